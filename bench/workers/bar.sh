#!/usr/bin/env bash
# The worker bar, through the real server and one worker on a throwaway PostgreSQL cluster:
#   bench/workers/bar.sh [RUNS] [CONCURRENCY] [LATENCY_RUNS]   (defaults: 400 runs, --concurrency 16, 50)
# 1. backlog, cold: RUNS drafts runs posted to `loopflow server --dispatch workers`, then one worker started; runs
#    ended per second from the first run taken to the last run's end (the worker's JVM start and JIT included).
# 2. backlog, warm: the same worker stopped (SIGSTOP), RUNS more posted, the worker continued (SIGCONT); twice.
# 3. latency: with the worker idle, one-node runs posted one at a time, POST to completed.
# Needs initdb/pg_ctl on PATH; the server and the worker start through the launcher (./loopflow), which builds the
# CLI when it is missing or older than the sources.
set -euo pipefail
runs="${1:-400}"
concurrency="${2:-16}"
latency_runs="${3:-50}"
source "$(dirname "$0")/cluster.sh"
pg createdb -h 127.0.0.1 -p "$port" -U bench bar
url="postgresql://bench@127.0.0.1:$port/bar"
token=bench-token-0123456789
export LOOPFLOW_HOME="$tmp/home"
# Both through the launcher, with the JVM options a user's server and worker get (WORKER_JAVA_OPTS adds some).
env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY "$root/loopflow" server --store "$url" --dispatch workers --port 0 \
  --token "$token" >"$tmp/server.out" 2>"$tmp/server.err" &
server_pid=$!
for _ in $(seq 1 300); do grep -q '^http' "$tmp/server.out" 2>/dev/null && break; sleep 0.1; done
base="$(head -1 "$tmp/server.out" | sed 's|/#token=.*||; s|/$||')"
echo "server $base, PostgreSQL on port $port, load average $(cut -d' ' -f1-3 /proc/loadavg)"
bench post "$url" "$base" "$token" "$here/drafts.yaml" "$runs"
waiting drain "$url"
pg0=$(pgcpu)
env -u OPENAI_API_KEY -u ANTHROPIC_API_KEY JDK_JAVA_OPTIONS="${WORKER_JAVA_OPTS:-}" "$root/loopflow" worker \
  --store "$url" --name w1 \
  --concurrency "$concurrency" ${WORKER_FLAGS:-} >/dev/null 2>"$tmp/w1.log" &
worker=$!
printf 'cold worker x %d, %d drafts runs queued before it starts: ' "$concurrency" "$runs"
wait "$waiting_pid"; cat "$tmp/drain.out"
echo "  CPU s: worker $(cpu "$worker") (start-up included), PostgreSQL $(awk "BEGIN {print $(pgcpu) - $pg0}")"
# Twice: a worker that has run only the cold backlog is still compiling its hot paths (its JIT takes CPU from the
# runs); the second round shows the worker as it runs once it has been up a while.
for round in 1 2; do
  kill -STOP "$worker"
  since=$(date +%s%3N)
  bench post "$url" "$base" "$token" "$here/drafts.yaml" "$runs"
  waiting drain-since "$url" "$since"
  w0=$(cpu "$worker"); ws0=$(syscpu "$worker"); pg0=$(pgcpu)
  kill -CONT "$worker"
  printf 'warm worker x %d (round %d), %d drafts runs queued while it was stopped: ' "$concurrency" "$round" "$runs"
  wait "$waiting_pid"; cat "$tmp/drain.out"
  echo "  CPU s: worker $(awk "BEGIN {print $(cpu "$worker") - $w0}") (system $(awk "BEGIN {print $(syscpu "$worker") - $ws0}")),\
 PostgreSQL $(awk "BEGIN {print $(pgcpu) - $pg0}")"
done
bench latency "$url" "$base" "$token" "$here/one-node.yaml" "$latency_runs"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
