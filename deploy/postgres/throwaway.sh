#!/usr/bin/env bash
# Starts (or stops) a throwaway PostgreSQL 15 cluster for tests and CI: a
# fresh data directory under /tmp, trust auth, listening on 127.0.0.1 only,
# durability off (it is thrown away). PostgreSQL refuses to run as root, so
# as root the server runs as the `postgres` user (runuser).
#
#   throwaway.sh start [PORT]   prints DIR=<dir> and DSN=<url> on stdout
#   throwaway.sh stop DIR       stops the cluster and removes DIR
#
# Needs the server binaries: apt-get install -y postgresql (Debian) puts
# them in /usr/lib/postgresql/<version>/bin.
set -euo pipefail

bindir=""
for d in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
	if [ -x "$d/initdb" ]; then bindir=$d; break; fi
done
if [ -z "$bindir" ]; then
	if command -v initdb >/dev/null; then bindir=$(dirname "$(command -v initdb)"); else
		echo "throwaway.sh: no initdb found; install PostgreSQL server binaries (apt-get install -y postgresql)" >&2
		exit 1
	fi
fi

as_pg() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
start)
	port=${2:-55432}
	dir=$(mktemp -d /tmp/bridgelog-pg.XXXXXX)
	chmod 755 "$dir"
	if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
	as_pg "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2; exit 1; }
	as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50 -c shared_buffers=64MB" \
		start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
	echo "DIR=$dir"
	echo "DSN=postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
	;;
stop)
	dir=${2:?usage: throwaway.sh stop DIR}
	case "$dir" in /tmp/bridgelog-pg.*) ;; *) echo "throwaway.sh: refusing to remove $dir" >&2; exit 1 ;; esac
	as_pg "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$dir"
	;;
*)
	echo "usage: $0 start [PORT] | stop DIR" >&2
	exit 2
	;;
esac
