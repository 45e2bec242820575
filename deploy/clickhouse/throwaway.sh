#!/usr/bin/env bash
# Starts (or stops) a throwaway ClickHouse server for tests and CI: a fresh
# directory under /tmp holding its config, data and logs, listening on
# 127.0.0.1 only. Nothing under /etc or /var/lib/clickhouse is touched, so
# several can run side by side. Written for Debian's clickhouse-server
# 18.16.1 (root element <yandex>); it runs as the calling user, root included.
#
#   throwaway.sh start PORT [HTTP_PORT]   prints DIR=<dir> and DSN=<url> on stdout
#   throwaway.sh stop DIR                 stops the server and removes DIR
#
# PORT is the native (TCP) port clients use; HTTP_PORT defaults to a free
# port the script picks (18.16 always opens an HTTP listener; clickhouse-go
# cannot use it with this server anyway).
set -euo pipefail

install_hint="apt-get install -y clickhouse-server clickhouse-client"
server=$(command -v clickhouse-server || true)
client=$(command -v clickhouse-client || true)
if [ -z "$server" ] && [ -x /usr/sbin/clickhouse-server ]; then server=/usr/sbin/clickhouse-server; fi
if [ -z "$server" ] || [ -z "$client" ]; then
	echo "throwaway.sh: clickhouse-server/clickhouse-client not found; install them: $install_hint" >&2
	exit 1
fi
users_xml=/etc/clickhouse-server/users.xml
if [ ! -r "$users_xml" ]; then
	echo "throwaway.sh: $users_xml missing; reinstall: $install_hint" >&2
	exit 1
fi

# in_use reports whether something accepts connections on 127.0.0.1:$1.
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port prints a port nothing listens on, other than $1.
free_port() {
	local p i
	for i in $(seq 1 200); do
		p=$((20000 + RANDOM % 40000))
		if [ "$p" != "$1" ] && ! in_use "$p"; then echo "$p"; return 0; fi
	done
	echo "throwaway.sh: no free port found" >&2
	return 1
}

# alive reports whether pid $1 runs and is not a zombie (a server reparented
# to a non-reaping parent stays a zombie after it exits).
alive() {
	local state
	state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$state" ] && [ "$state" != Z ]
}

# stop_dir stops the server whose pid is in $1/pid, waiting for it to exit.
stop_dir() {
	local dir=$1 pid i
	[ -s "$dir/pid" ] || return 0
	pid=$(cat "$dir/pid")
	kill -TERM "$pid" 2>/dev/null || return 0
	for i in $(seq 1 150); do # 15 s for a clean shutdown
		alive "$pid" || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	for i in $(seq 1 50); do
		alive "$pid" || return 0
		sleep 0.1
	done
	echo "throwaway.sh: server pid $pid in $dir did not exit" >&2
	return 1
}

case "${1:-}" in
start)
	port=${2:?usage: throwaway.sh start PORT [HTTP_PORT]}
	http_port=${3:-$(free_port "$port")}
	if in_use "$port"; then
		echo "throwaway.sh: port $port already in use" >&2
		exit 1
	fi
	dir=$(mktemp -d /tmp/bridgelog-ch.XXXXXX)
	mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/format_schemas" "$dir/log"
	cp "$users_xml" "$dir/users.xml"
	echo '<?xml version="1.0"?><yandex></yandex>' >"$dir/metrika.xml"
	# 18.16 needs: logger, ports, listen_host, the four paths, users_config,
	# default profile/database. No interserver port (no replication), no
	# query_log, small caches: this is a test server on a shared 2-core box.
	# include_from points at an empty substitutions file of our own so the
	# default /etc/metrika.xml (users.xml's incl="networks") is never read;
	# 18.16 refuses to start if the file named there does not exist.
	cat >"$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>warning</level>
        <log>$dir/log/server.log</log>
        <errorlog>$dir/log/server.err.log</errorlog>
        <size>10M</size>
        <count>1</count>
    </logger>
    <tcp_port>$port</tcp_port>
    <http_port>$http_port</http_port>
    <listen_host>127.0.0.1</listen_host>
    <max_connections>256</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>50</max_concurrent_queries>
    <uncompressed_cache_size>67108864</uncompressed_cache_size>
    <mark_cache_size>67108864</mark_cache_size>
    <path>$dir/data/</path>
    <tmp_path>$dir/tmp/</tmp_path>
    <user_files_path>$dir/user_files/</user_files_path>
    <format_schema_path>$dir/format_schemas/</format_schema_path>
    <users_config>$dir/users.xml</users_config>
    <include_from>$dir/metrika.xml</include_from>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
    <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
    <max_session_timeout>3600</max_session_timeout>
    <default_session_timeout>60</default_session_timeout>
</yandex>
XML
	# Output goes to files: a caller reading our stdout must not wait on the
	# server holding the pipe open. setsid detaches it from the caller's
	# process group and terminal.
	setsid "$server" --config-file="$dir/config.xml" \
		</dev/null >"$dir/log/stdout.log" 2>&1 &
	echo $! >"$dir/pid"
	pid=$!
	for i in $(seq 1 600); do # 60 s
		if "$client" --host 127.0.0.1 --port "$port" -q 'SELECT 1' >/dev/null 2>&1; then
			echo "DIR=$dir"
			echo "DSN=clickhouse://127.0.0.1:$port/default?dial_timeout=5s"
			exit 0
		fi
		if ! alive "$pid"; then break; fi
		sleep 0.1
	done
	echo "throwaway.sh: clickhouse-server did not answer on 127.0.0.1:$port (dir $dir)" >&2
	for f in "$dir/log/server.err.log" "$dir/log/stdout.log"; do
		if [ -s "$f" ]; then echo "--- $f" >&2; tail -n 50 "$f" >&2; fi
	done
	stop_dir "$dir" || true
	rm -rf "$dir"
	exit 1
	;;
stop)
	dir=${2:?usage: throwaway.sh stop DIR}
	case "$dir" in /tmp/bridgelog-ch.*) ;; *) echo "throwaway.sh: refusing to remove $dir" >&2; exit 1 ;; esac
	stop_dir "$dir"
	rm -rf "$dir"
	;;
*)
	echo "usage: $0 start PORT [HTTP_PORT] | stop DIR" >&2
	exit 2
	;;
esac
