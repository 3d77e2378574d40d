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

LIMIT=60
# What a training run stopped part-way left behind (the launcher moves a cache into place only after a whole run).
clean_partial() { rm -f "$TARGET"/aot-training-*.aot "$TARGET"/aot-training-*.aot.config 2>/dev/null || true; }
clean_partial
HOME_DIR="$TARGET/aot-training-home"
rm -rf "$HOME_DIR" && mkdir -p "$HOME_DIR" || { echo "loopflow: AOT training skipped: cannot create $HOME_DIR"; exit 0; }
# A fresh store, as a first run creates: the cache then also holds what creating the schema loads.
cmd=(env -u LOOPFLOW_STORE -u OPENAI_API_KEY -u OLLAMA_BASE_URL LOOPFLOW_AOT_TRAINING=1 LOOPFLOW_HOME="$HOME_DIR"
  TMPDIR="$TARGET" "$ROOT/loopflow" run "$CLI/src/main/aot/training.yaml")
if command -v timeout >/dev/null 2>&1; then cmd=(timeout -k 5 "$LIMIT" "${cmd[@]}"); fi
"${cmd[@]}" > "$LOG" 2>&1 < /dev/null
status=$?
rm -rf "$HOME_DIR"
clean_partial
if [ "$status" -eq 0 ]; then
  if ls "$TARGET"/loopflow-*.aot >/dev/null 2>&1; then
    echo "loopflow: AOT cache written: $(ls "$TARGET"/loopflow-*.aot)"
  else
    echo "loopflow: $(tail -n 1 "$LOG")"
  fi
elif [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  # Stopped by the time bound (a busy machine): not an error. Nothing half-written is kept, and the build is fine.
  echo "loopflow: no AOT start-up cache this time (its optional training run takes longer than ${LIMIT} s on this" \
    "machine now); runs start with class data sharing instead"
else
  echo "loopflow: no AOT start-up cache (its optional training run ended with exit $status, see $LOG); runs start" \
    "with class data sharing instead"
fi
exit 0
