#!/usr/bin/env bash
# Compares the 1,000,000-event bulk rebuild (BenchmarkRebuild1MBulk, or the
# benchmark named by $BENCH) of two revisions in alternating pairs. The
# development VMs run one binary 15–40% faster in one hour than in
# another, so only runs made back to back compare; BENCHMARKS.md judges
# every change this way.
#
#   deploy/bench-ab.sh BASE_REV NEW_REV [PAIRS]     (default 5 pairs)
#   BENCH=BenchmarkRebuild1MRelayBulk deploy/bench-ab.sh BASE_REV NEW_REV
#
# Prints each pair (events/s, peak RSS, user and system CPU), the medians,
# and in how many pairs NEW was faster. The generated log is cached in
# $TMPDIR as the benchmark caches it.
set -euo pipefail

if [ $# -lt 2 ]; then
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
base=$1 new=$2 pairs=${3:-5} bench=${BENCH:-BenchmarkRebuild1MBulk}
repo=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench-ab: /usr/bin/time is needed (apt-get install time)" >&2; exit 1; }

for side in base new; do
	rev=${!side}
	mkdir "$work/$side"
	git -C "$repo" archive "$rev" | tar -x -C "$work/$side"
	echo "building $side ($(git -C "$repo" rev-parse --short "$rev"))" >&2
	(cd "$work/$side" && go test -c -o "$work/$side.test" ./projections/)
done

# run SIDE prints: events/s peakRSS_MB user_s sys_s
run() {
	local out
	out=$( (cd "$work/$1/projections" && /usr/bin/time -f 'TIME %U %S' "$work/$1.test" \
		-test.run '^$' -test.bench "^$bench\$" -test.benchtime 1x) 2>&1)
	local rate rss cpu
	rate=$(awk '/events\/s/ { for (i = 1; i < NF; i++) if ($(i+1) == "events/s") print $i }' <<<"$out")
	rss=$(awk '/peakRSS_MB/ { for (i = 1; i < NF; i++) if ($(i+1) == "peakRSS_MB") print $i }' <<<"$out")
	cpu=$(awk '/^TIME / { print $2, $3 }' <<<"$out")
	if [ -z "$rate" ]; then
		echo "bench-ab: the $1 run printed no rate:" >&2
		echo "$out" >&2
		exit 1
	fi
	echo "$rate $rss $cpu"
}

printf '%-5s %12s %12s %9s %9s    %12s %12s %9s %9s\n' pair base/s new/s base_MB new_MB base_user new_user base_sys new_sys
faster=0
: >"$work/results"
for i in $(seq 1 "$pairs"); do
	read -r br bm bu bs <<<"$(run base)"
	read -r nr nm nu ns <<<"$(run new)"
	printf '%-5s %12.0f %12.0f %9.1f %9.1f    %12.2f %12.2f %9.2f %9.2f\n' "$i" "$br" "$nr" "$bm" "$nm" "$bu" "$nu" "$bs" "$ns"
	echo "$br $nr $bm $nm $bu $nu $bs $ns" >>"$work/results"
	awk -v b="$br" -v n="$nr" 'BEGIN { exit !(n > b) }' && faster=$((faster + 1))
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$1" '{ print $c }' "$work/results" | median; }
printf 'median %11.0f %12.0f %9.1f %9.1f    %12.2f %12.2f %9.2f %9.2f\n' "$(col 1)" "$(col 2)" "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)" "$(col 7)" "$(col 8)"
echo "new faster in $faster of $pairs pairs"
