# Sourced by the worker benchmarks: a throwaway PostgreSQL cluster under a temporary directory, stopped and removed on
# exit, and the helpers both scripts use. Sets here, root, jar, java, tmp, port; defines pg, cpu, pgcpu, bench,
# waiting.
here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
jar="$root/loopflow-cli/target/loopflow.jar"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"  # a JDK >= 21
tmp="$(mktemp -d)"
chmod 755 "$tmp"
# PostgreSQL refuses to run as root: run its tools as an unprivileged user then.
pg() { if [ "$(id -u)" = 0 ]; then runuser -u "${PG_USER:-postgres}" -- "$@"; else "$@"; fi; }
port=$((20000 + RANDOM % 20000))
# Stopped processes (SIGSTOP) are continued first, or they would never see the kill.
trap 'jobs -p | xargs -r kill -CONT 2>/dev/null; jobs -p | xargs -r kill 2>/dev/null; pg pg_ctl -D "$tmp/pg" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
mkdir "$tmp/pg" && { [ "$(id -u)" != 0 ] || chown "${PG_USER:-postgres}" "$tmp/pg"; }
pg initdb -D "$tmp/pg" -U bench -A trust >/dev/null
pg pg_ctl -D "$tmp/pg" -o "-p $port -k $tmp/pg -c listen_addresses=127.0.0.1 -c max_connections=200" -l "$tmp/pg/server.log" -w start >/dev/null
# CPU seconds (user + system) of processes, and of the cluster's server processes.
# (from /proc/PID/stat, in clock ticks of 1/100 s; a process that exited counts nothing)
cpu() { for p in "$@"; do cat "/proc/$p/stat" 2>/dev/null; done | awk '{s += $14 + $15} END {printf "%.1f", s / 100}'; }
# The system part of that (the kernel's work for the process: sockets, futexes, scheduling).
syscpu() { for p in "$@"; do cat "/proc/$p/stat" 2>/dev/null; done | awk '{s += $15} END {printf "%.1f", s / 100}'; }
pgcpu() { local pm; pm="$(head -1 "$tmp/pg/postmaster.pid")"; cpu "$pm" $(ps -o pid= --ppid "$pm"); }
# The client, compiled once: compiling it at each start (java WorkerBench.java) took CPU from what was measured.
"${JAVA_HOME:+$JAVA_HOME/bin/}javac" -d "$tmp/classes" -cp "$jar" "$here/WorkerBench.java"
bench() { "$java" -cp "$jar:$tmp/classes" WorkerBench "$@"; }
# A drain client started in the background (waiting_pid), returning once it is connected and counting, so that its
# JVM's start-up does not overlap the drain it measures; `wait "$waiting_pid"; cat "$tmp/drain.out"` for its figure.
waiting() {
  bench "$@" >"$tmp/drain.out" 2>"$tmp/drain.err" &
  waiting_pid=$!
  for _ in $(seq 1 600); do grep -q '^ready' "$tmp/drain.err" 2>/dev/null && return; sleep 0.05; done
  echo "the drain client did not start: $(cat "$tmp/drain.err")" >&2; return 1
}
