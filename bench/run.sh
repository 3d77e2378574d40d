#!/usr/bin/env bash
# The side-by-side benchmark, one command: builds loopflow (its runner and CLI), the LangGraph4j runner (Maven
# Central) and the LangGraph.js runner (npm, versions pinned in bench/js/package-lock.json), then runs every
# engine on workloads W1-W6 interleaved (bench/PROTOCOL.md) and writes bench/results/latest.md.
#
#   bench/run.sh                 # the full session (about 30-40 minutes on 2 cores)
#   bench/run.sh --quick         # small sizes, one round: checks that everything runs (a few minutes)
#   bench/run.sh --only W1,W4    # a subset; --rounds R changes the number of rounds (default 3)
#   bench/run.sh server [...]    # the server load benchmark instead (SSE clients, concurrent runs; bench/README.md)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}' \
    | awk -F. '{print ($1 == "1") ? $2 : $1}' || echo 0
}
JAVA=""
for c in "${JAVA_HOME:-}/bin/java" "$(command -v java 2>/dev/null || true)" /usr/lib/jvm/*/bin/java; do
  if [ -x "$c" ] && [ "$(java_major "$c")" -ge 21 ] 2>/dev/null; then JAVA="$c"; break; fi
done
[ -n "$JAVA" ] || { echo "bench: no JDK 21 or newer found (JAVA_HOME, PATH, /usr/lib/jvm)" >&2; exit 2; }

if [ "${1:-}" = "server" ]; then
  shift
  echo "bench: building the CLI and the benchmark..." >&2
  mvn -B -q -DskipTests -pl loopflow-cli,bench -am package >&2
  exec "$JAVA" -cp bench/target/benchmarks.jar dev.loopflow.bench.server.ServerBench "$@"
fi
command -v node >/dev/null || { echo "bench: node (20 or newer) is needed for the LangGraph.js runner" >&2; exit 2; }
command -v npm >/dev/null || { echo "bench: npm is needed for the LangGraph.js runner" >&2; exit 2; }

echo "bench: building loopflow, its runner and the LangGraph4j runner..." >&2
mvn -B -q -DskipTests -pl loopflow-cli,bench,bench/langgraph4j -am package >&2

if ! (cd bench/js && node -e "require('better-sqlite3'); require('@langchain/langgraph')" >/dev/null 2>&1); then
  echo "bench: installing the LangGraph.js runner's packages (npm ci; better-sqlite3 may compile)..." >&2
  # node-gyp needs Node's headers; Debian's nodejs package has them under /usr/include/node.
  nodedir=""
  if [ -f /usr/include/node/node.h ]; then nodedir=/usr; fi
  (cd bench/js && if [ -n "$nodedir" ]; then npm_config_nodedir="$nodedir" npm ci --no-audit --no-fund; \
    else npm ci --no-audit --no-fund; fi) >&2
fi

# PostgreSQL (W3's second loopflow store) is started by the runner from Debian's server binaries when present.
exec "$JAVA" -Dsun.net.httpserver.maxIdleConnections=2000 -cp bench/target/benchmarks.jar dev.loopflow.bench.harness.Compare "$@"
