#!/usr/bin/env bash
# Journal bytes of a run and of forks of it at several passes, on SQLite: what a fork writes is its own executions
# and events, never a copy of the part it reuses. Prints a Markdown table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LOOPFLOW_STORE="sqlite:$work/runs.db" LOOPFLOW_HOME="$work/home"
lf() { "$root/loopflow" "$@" --quiet; }
bytes() {
  sqlite3 "$work/runs.db" "SELECT
    (SELECT COALESCE(SUM(LENGTH(COALESCE(input_json,''))+LENGTH(COALESCE(result_json,''))+LENGTH(COALESCE(state_patch_json,''))
      +LENGTH(COALESCE(sessions_json,''))+LENGTH(path)+LENGTH(COALESCE(usage_json,''))),0) FROM lf_node_executions WHERE run_id='$1')
    + (SELECT COALESCE(SUM(LENGTH(body)),0) FROM lf_events WHERE run_id='$1')
    + (SELECT COALESCE(SUM(LENGTH(body)),0) FROM lf_values WHERE run_id='$1')
    + (SELECT LENGTH(COALESCE(options_json,'')) FROM lf_runs WHERE run_id='$1');"
}
rows() { sqlite3 "$work/runs.db" "SELECT COUNT(*) FROM lf_node_executions WHERE run_id='$1';"; }
lf run "$here/passes.yaml" --run-id origin > /dev/null
echo "| run | executions journaled | journal bytes |"
echo "|---|---:|---:|"
echo "| origin (20 passes) | $(rows origin) | $(bytes origin) |"
for at in 2 10 19 20; do
  lf fork origin --at "refine:$at" --run-id "fork-$at" > /dev/null
  echo "| fork at refine:$at | $(rows fork-$at) | $(bytes fork-$at) |"
done
lf fork fork-10 --at refine:15 --run-id fork-of-fork > /dev/null
echo "| fork of fork-10 at refine:15 | $(rows fork-of-fork) | $(bytes fork-of-fork) |"
