#!/usr/bin/env bash
# Worker throughput and queue latency with 1, 2 and 4 worker processes on a throwaway PostgreSQL cluster.
#   bench/workers/run.sh [RUNS] [CONCURRENCY] [RATE]   (defaults: 200 runs, --concurrency 8, 4 runs/s)
# Two measures per worker count: throughput with a backlog (RUNS queued before the workers start), and queue latency
# with runs queued at RATE per second while the workers run (below their capacity).
# Needs initdb/pg_ctl on PATH and the CLI built: mvn -B -q -pl loopflow-cli -am package -DskipTests
set -euo pipefail
runs="${1:-200}"
concurrency="${2:-8}"
rate="${3:-4}"
source "$(dirname "$0")/cluster.sh"
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
      waiting drain "$url"
      pg0=$(pgcpu)
      start_workers "$workers"
      printf '%d worker(s) x %d, %d runs queued before they start: ' "$workers" "$concurrency" "$runs"
      wait "$waiting_pid"; cat "$tmp/drain.out"
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
