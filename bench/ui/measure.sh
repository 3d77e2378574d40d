#!/usr/bin/env bash
# The run viewer in headless Chromium (docs/benchmarks.md, "Run viewer in Chromium"): starts `loopflow server` on a
# fresh SQLite store with bench/ui/workflows as its folder, runs the fixtures to completion, then measures their run
# pages over N cold loads and a live run, with loopflow-ui's playwright-core driving /usr/bin/chromium. Builds
# nothing: it runs the CLI jar it is given, so the same harness measures any build of the server.
#
#   bench/ui/measure.sh                          # ./loopflow-cli/target/loopflow.jar of this checkout
#   bench/ui/measure.sh --jar /work/main/loopflow-cli/target/loopflow.jar --label main
#   BENCH_N=5 BENCH_LIVE_N=3 BENCH_PACER_MS=3 BENCH_ONLY=loop-1000,live bench/ui/measure.sh
#
# Prints a Markdown table (median / max) and writes it with the raw figures as JSON to bench/ui/results/ (or
# BENCH_RESULTS). Takes about 2-4 minutes on 2 cores for a fast build; a slow one is cut at BENCH_LOAD_LIMIT_MS
# (60 s) per load.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

jar=""
label=""
while [ $# -gt 0 ]; do
  case "$1" in
    --jar) jar="$2"; shift 2 ;;
    --label) label="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "measure.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
jar=${jar:-${LOOPFLOW_JAR:-$root/loopflow-cli/target/loopflow.jar}}
[ -f "$jar" ] || { echo "measure.sh: no CLI jar at $jar; build one (./loopflow --version builds it) or pass --jar" >&2; exit 2; }
if [ -z "$label" ]; then
  label="$(git -C "$(dirname "$jar")" rev-parse --short HEAD 2>/dev/null || echo build)"
fi

java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}' \
    | awk -F. '{print ($1 == "1") ? $2 : $1}' || echo 0
}
JAVA=""
for c in "${JAVA_HOME:-}/bin/java" "$(command -v java 2>/dev/null || true)" /usr/lib/jvm/*/bin/java; do
  if [ -x "$c" ] && [ "$(java_major "$c")" -ge 21 ] 2>/dev/null; then JAVA="$c"; break; fi
done
[ -n "$JAVA" ] || { echo "measure.sh: no JDK 21 or newer found (JAVA_HOME, PATH, /usr/lib/jvm)" >&2; exit 2; }
[ -x "${LOOPFLOW_CHROMIUM:-/usr/bin/chromium}" ] || { echo "measure.sh: no Chromium at ${LOOPFLOW_CHROMIUM:-/usr/bin/chromium}" >&2; exit 2; }
[ -d "$root/loopflow-ui/node_modules/playwright-core" ] || { echo "measure.sh: loopflow-ui/node_modules has no playwright-core" >&2; exit 2; }

work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# the jar is copied: a build finishing elsewhere during the session must not change what is measured
cp "$jar" "$work/loopflow.jar"
mkdir -p "$work/workflows" "$work/home"
cp "$here"/workflows/*.yaml "$work/workflows/"
token="bench-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"

LOOPFLOW_HOME="$work/home" "$JAVA" -jar "$work/loopflow.jar" server --port 0 --store "sqlite:$work/runs.db" \
  --workflows "$work/workflows" --token "$token" > "$work/server.out" 2> "$work/server.err" &
server=$!
url=""
for _ in $(seq 1 300); do
  url=$(head -n 1 "$work/server.out" 2>/dev/null | sed -n 's|^\(http://[^#]*\)#.*|\1|p')
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { echo "measure.sh: the server stopped:" >&2; cat "$work/server.err" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "measure.sh: the server printed no address in 30 s" >&2; exit 1; }
echo "measure.sh: server $url (jar $jar, label $label); load: $(uptime | sed 's/.*load average/load average/')" >&2

LOOPFLOW_URL="$url" LOOPFLOW_TOKEN="$token" BENCH_LABEL="$label" BENCH_RESULTS="${BENCH_RESULTS:-$here/results}" \
  node "$here/measure.mjs"
echo "measure.sh: load after: $(uptime | sed 's/.*load average/load average/')" >&2
