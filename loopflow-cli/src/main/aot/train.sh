#!/usr/bin/env bash
# The build's training run (the package phase of loopflow-cli runs this after the jar is made): runs training.yaml
# once through the launcher with LOOPFLOW_AOT_TRAINING=1, which on JDK 25 or newer writes the AOT cache the launcher
# maps at start-up (loopflow-cli/target/loopflow-STAMP.aot). It never fails the build: without a cache, runs use class
# data sharing as before. Everything it writes stays under loopflow-cli/target (store, temporary files, its log);
# it needs no network. It is bounded in time: a stuck run is stopped after a minute.
set -uo pipefail
CLI="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
ROOT="$(dirname "$CLI")"
TARGET="$CLI/target"
LOG="$TARGET/aot-training.log"
[ "${LOOPFLOW_AOT_SKIP:-}" = "1" ] && { echo "loopflow: AOT training skipped (LOOPFLOW_AOT_SKIP=1)"; exit 0; }
[ -f "$TARGET/loopflow.jar" ] || { echo "loopflow: AOT training skipped: no $TARGET/loopflow.jar"; exit 0; }

HOME_DIR="$TARGET/aot-training-home"
rm -rf "$HOME_DIR" && mkdir -p "$HOME_DIR" || { echo "loopflow: AOT training skipped: cannot create $HOME_DIR"; exit 0; }
# A fresh store, as a first run creates: the cache then also holds what creating the schema loads.
cmd=(env -u LOOPFLOW_STORE -u OPENAI_API_KEY -u OLLAMA_BASE_URL LOOPFLOW_AOT_TRAINING=1 LOOPFLOW_HOME="$HOME_DIR"
  TMPDIR="$TARGET" "$ROOT/loopflow" run "$CLI/src/main/aot/training.yaml")
if command -v timeout >/dev/null 2>&1; then cmd=(timeout -k 5 60 "${cmd[@]}"); fi
"${cmd[@]}" > "$LOG" 2>&1 < /dev/null
status=$?
rm -rf "$HOME_DIR"
if [ "$status" -eq 0 ]; then
  if ls "$TARGET"/loopflow-*.aot >/dev/null 2>&1; then
    echo "loopflow: AOT cache written: $(ls "$TARGET"/loopflow-*.aot)"
  else
    echo "loopflow: $(tail -n 1 "$LOG")"
  fi
else
  echo "loopflow: AOT training run failed (exit $status, see $LOG); runs use class data sharing instead"
fi
exit 0
