#!/usr/bin/env bash
# Worker throughput and queue latency with 1, 2 and 4 worker processes on a throwaway PostgreSQL cluster.
#   bench/workers/run.sh [RUNS] [CONCURRENCY]     (defaults: 400 runs, --concurrency 8 per worker)
# Needs initdb/pg_ctl on PATH and the CLI built: mvn -B -q -pl loopflow-cli -am package -DskipTests
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${1:-400}"
concurrency="${2:-8}"
jar="$(ls "$root"/loopflow-cli/target/loopflow-cli-*.jar | grep -v original | head -1)"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
tmp="$(mktemp -d)"
port=$((20000 + RANDOM % 20000))
trap 'jobs -p | xargs -r kill 2>/dev/null; pg_ctl -D "$tmp/pg" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
initdb -D "$tmp/pg" -U bench -A trust >/dev/null
pg_ctl -D "$tmp/pg" -o "-p $port -k $tmp -c listen_addresses=127.0.0.1 -c max_connections=200" -l "$tmp/pg.log" start >/dev/null
for workers in 1 2 4; do
  db="bench_$workers"
  createdb -h 127.0.0.1 -p "$port" -U bench "$db"
  url="postgresql://bench@127.0.0.1:$port/$db"
  # open the store once so the schema exists before the workers start
  "$java" -cp "$jar" dev.loopflow.cli.Main runs --store "$url" >/dev/null
  pids=()
  for i in $(seq 1 "$workers"); do
    "$java" -cp "$jar" dev.loopflow.cli.Main worker --store "$url" --name "w$i" --concurrency "$concurrency" \
      --poll-ms 100 >/dev/null 2>"$tmp/w$i.log" &
    pids+=($!)
  done
  sleep 3
  printf '%d worker(s) x %d: ' "$workers" "$concurrency"
  "$java" -cp "$jar" "$here/WorkerBench.java" "$url" "$runs" "$here/drafts.yaml"
  kill -TERM "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true
done
