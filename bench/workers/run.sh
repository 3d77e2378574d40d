#!/usr/bin/env bash
# Worker throughput and queue latency with 1, 2 and 4 worker processes on a throwaway PostgreSQL cluster.
#   bench/workers/run.sh [RUNS] [CONCURRENCY] [RATE]   (defaults: 200 runs, --concurrency 8, 4 runs/s)
# Two measures per worker count: throughput with a backlog (RUNS queued before the workers start), and queue latency
# with runs queued at RATE per second while the workers run (below their capacity).
# Needs initdb/pg_ctl on PATH and the CLI built: mvn -B -q -pl loopflow-cli -am package -DskipTests
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${1:-200}"
concurrency="${2:-8}"
rate="${3:-4}"
jar="$root/loopflow-cli/target/loopflow.jar"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"  # a JDK >= 21
tmp="$(mktemp -d)"
chmod 755 "$tmp"
# PostgreSQL refuses to run as root: run its tools as an unprivileged user then.
pg() { if [ "$(id -u)" = 0 ]; then runuser -u "${PG_USER:-postgres}" -- "$@"; else "$@"; fi; }
port=$((20000 + RANDOM % 20000))
trap 'jobs -p | xargs -r kill 2>/dev/null; pg pg_ctl -D "$tmp/pg" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
mkdir "$tmp/pg" && { [ "$(id -u)" != 0 ] || chown "${PG_USER:-postgres}" "$tmp/pg"; }
pg initdb -D "$tmp/pg" -U bench -A trust >/dev/null
pg pg_ctl -D "$tmp/pg" -o "-p $port -k $tmp/pg -c listen_addresses=127.0.0.1 -c max_connections=200" -l "$tmp/pg/server.log" -w start >/dev/null
# CPU seconds (user + system) of processes, and of the cluster's server processes.
# (from /proc/PID/stat, in clock ticks of 1/100 s; a process that exited counts nothing)
cpu() { for p in "$@"; do cat "/proc/$p/stat" 2>/dev/null; done | awk '{s += $14 + $15} END {printf "%.1f", s / 100}'; }
pgcpu() { local pm; pm="$(head -1 "$tmp/pg/postmaster.pid")"; cpu "$pm" $(ps -o pid= --ppid "$pm"); }
bench() { "$java" -cp "$jar" "$here/WorkerBench.java" "$@"; }
start_workers() {
  pids=()
  for i in $(seq 1 "$1"); do
    "$java" -cp "$jar" dev.loopflow.cli.Main worker --store "$url" --name "w$i" --concurrency "$concurrency" \
      --poll-ms 100 >/dev/null 2>"$tmp/w$i.log" &
    pids+=($!)
  done
}
for workers in 1 2 4; do
  for mode in ${MODES:-backlog rate}; do
    db="bench_${workers}_$mode"
    pg createdb -h 127.0.0.1 -p "$port" -U bench "$db"
    url="postgresql://bench@127.0.0.1:$port/$db"
    "$java" -cp "$jar" dev.loopflow.cli.Main runs --store "$url" >/dev/null  # creates the schema
    if [ "$mode" = backlog ]; then
      bench enqueue "$url" "$here/drafts.yaml" "$runs"
      pg0=$(pgcpu)
      start_workers "$workers"
      printf '%d worker(s) x %d, %d runs queued before they start: ' "$workers" "$concurrency" "$runs"
      bench drain "$url"
    else
      start_workers "$workers"
      sleep 3
      pg0=$(pgcpu)
      printf '%d worker(s) x %d, %d runs queued at %s/s: ' "$workers" "$concurrency" "$runs" "$rate"
      bench rate "$url" "$here/drafts.yaml" "$runs" "$rate"
    fi
    echo "  CPU s: workers $(cpu "${pids[@]}") (start-up included), PostgreSQL $(awk "BEGIN {print $(pgcpu) - $pg0}")"
    kill -TERM "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true
  done
done
