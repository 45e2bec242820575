#!/usr/bin/env bash
# Runs every bridgelog test on a fresh Debian machine: installs what the
# tests need (PostgreSQL and ClickHouse server binaries, promtool, Chromium
# for the operator consoles' browser tests, Node.js/npm packages for the
# contract and merkle cross-checks), then `go test ./...`.
# The tests start their own servers (PostgreSQL cluster, ClickHouse server,
# Kafka-protocol broker, simulated EVM chain) and fail loudly if they
# cannot. Then the tests that wait on kaspad and on signer processes run
# again beside two CPU-bound processes (the busy pass).
#
#   bash deploy/test.sh [go test flags]   everything, then the busy pass
#   bash deploy/test.sh --busy [flags]    the busy pass alone (flags go to
#                                         its go test runs, e.g. -count=3)
set -euo pipefail
cd "$(dirname "$0")/.."

busy_only=false
if [ "${1:-}" = "--busy" ]; then
	busy_only=true
	shift
fi

# The timing-sensitive tests: kaspad nodes and miners (their waits follow
# the node's DAA score and a busy node reorganises its tip now and then),
# and signer processes paying on kaspad (round timeouts). devnet's
# end-to-end run is left to the main pass: it alone would about double
# this pass's time. TestSignerNodeLaggingAndDown waits to join: under
# heavy load its node's 3 s stall detector fires while the node shuts
# down, and the down phase is recorded as a stall.
busy_packages=(./adapters/kaspa/kaspanode/ ./adapters/kaspa/kaspadproc/)
busy_signer_tests='^TestSignerProcessesPayEachWithdrawalOnce$'

busy_pids=()
stop_busy() {
	if [ ${#busy_pids[@]} -gt 0 ]; then
		kill "${busy_pids[@]}" 2>/dev/null || true
		wait "${busy_pids[@]}" 2>/dev/null || true
		busy_pids=()
	fi
}
trap stop_busy EXIT
trap 'exit 130' INT TERM

# busy_pass runs the timing-sensitive tests while two busy loops take
# their share of the CPUs, as other jobs on a shared machine do: a test
# that waits for a duration instead of a condition fails here.
busy_pass() {
	echo "test.sh: busy pass: ${busy_packages[*]} and cmd/bridgelog -run '$busy_signer_tests' beside two busy loops"
	for _ in 1 2; do
		sh -c 'while :; do :; done' &
		busy_pids+=($!)
	done
	local rc=0
	go test -count=1 -timeout 20m "$@" "${busy_packages[@]}" || rc=$?
	go test -count=1 -timeout 20m -run "$busy_signer_tests" "$@" ./cmd/bridgelog/ || rc=$?
	stop_busy
	return $rc
}

# The busy pass needs only Go (kaspad is built from source on first use).
if $busy_only; then
	busy_pass "$@"
	exit
fi

need_apt=()
command -v node >/dev/null || need_apt+=(nodejs npm)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt+=(postgresql)
command -v clickhouse-server >/dev/null || need_apt+=(clickhouse-server clickhouse-client)
command -v gcc >/dev/null || need_apt+=(gcc) # the race detector needs cgo
# The operator consoles' browser tests drive it headless.
command -v chromium >/dev/null || need_apt+=(chromium)
# promtool, for the alert rules' unit tests; without recommends, which
# would add a node exporter service.
need_bare=()
command -v promtool >/dev/null || need_bare+=(prometheus)
if [ $((${#need_apt[@]} + ${#need_bare[@]})) -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "test.sh: missing ${need_apt[*]} ${need_bare[*]}; install them (apt-get install -y ...) or run as root" >&2
		exit 1
	fi
	apt-get update -qq
	if [ ${#need_apt[@]} -gt 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
	fi
	if [ ${#need_bare[@]} -gt 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_bare[@]}"
	fi
fi

# npm packages pinned by the committed lock files.
for dir in $(git ls-files '*package-lock.json' | xargs -r -n1 dirname); do
	if [ ! -d "$dir/node_modules" ]; then
		(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
	fi
done

go vet ./...
go test -count=1 -timeout 30m "$@" ./...
# A bulk load judges one batch while the projections fold and flush the
# ones before, on two goroutines, the reader decodes large chunks on two,
# and appended pages are written on their own; a log opens its partitions
# side by side, and a store is replaced under a lock: run those under the
# race detector too.
go test -race -count=1 -run 'TestBulkLoad$|TestBulkLoadFailure$|TestBulkLoadFlushFailure$|TestDecodeChunkOrder$' ./projections/
# Two runners following one store while a third reads their checkpoints.
go test -race -count=1 -run 'TestProjections/embedded\+sqlite/TwoRunnersOneStore$' ./projections/
go test -race -count=1 -run 'TestCorruptionInTwoPartitionsNamesTheFirst$|TestMidFileCorruptionRefusesToOpen$' ./adapters/embeddedlog/
go test -race -count=1 ./adapters/sqlstore/
go test -race -count=1 -run 'TestPageWriterDirect$' ./adapters/sqlstore/sqlitefile/
# Signers deciding while their timers, deliveries and peers' commits race
# (the timeout against a quorum's arrival, a fast-forward against a local
# commit), the bus and the in-memory log they run on.
go test -race -count=1 ./handlers/signing/ ./adapters/simnet/ ./adapters/memlog/
# Without the fast rebuild (a build tag leaves it out) the projections
# still rebuild to the same tables: the slow path stays correct.
go test -count=1 -tags nofastrebuild ./projections/
# Last, the tests that wait on kaspad and signer processes, on a busy
# machine.
busy_pass
