#!/usr/bin/env bash
# The provider conformance matrix: the loopflow CLI against real server software (llama.cpp's llama-server with a
# toy model whose answers are known, nginx in front of it for real error pages), for llm and agent nodes, blocking
# and streamed, OpenAI-compatible and Anthropic, plain, structured output, tools and errors. On demand only.
#
#   bench/providers/run.sh            prints one line per case and a summary; exits 1 when a case fails
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/servers.sh"
trap stop_servers EXIT
set -uo pipefail
OUT=$PROVIDERS_WORK/matrix
mkdir -p "$OUT"
PASS=0
FAIL=0

# run NAME PROVIDER BASE_URL MODE WORKFLOW CHECK   (MODE: blocking | streamed; CHECK: a Python expression over r)
run() {
  local name=$1 provider=$2 base=$3 mode=$4 workflow=$5 check=$6
  local wf=$OUT/$name.yaml
  sed "s/PROVIDER/$provider/" "$HERE/workflows/$workflow" > "$wf"
  local stream=(--no-stream)
  [ "$mode" = streamed ] && stream=(--events-jsonl "$OUT/$name.events.jsonl")
  local env=(OPENAI_API_KEY=not-needed ANTHROPIC_API_KEY=not-needed)
  case $provider in
    openai) env+=(OPENAI_BASE_URL="$base") ;;
    anthropic) env+=(ANTHROPIC_BASE_URL="$base") ;;
  esac
  env -u OLLAMA_BASE_URL "${env[@]}" LOOPFLOW_HOME="$OUT/home" "$ROOT/loopflow" run "$wf" --json "${stream[@]}" \
    > "$OUT/$name.json" 2> "$OUT/$name.err"
  local verdict
  verdict=$(python3 - "$OUT/$name.json" "$OUT/$name.events.jsonl" "$check" <<'PY'
import json, sys, os
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("FAIL no JSON result (%s)" % e); sys.exit()
events = []
if os.path.exists(sys.argv[2]):
    events = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
calls = [e for e in events if e.get("type") == "llm.call"]
err = (r.get("error") or {}).get("message", "")
try:
    ok = eval(sys.argv[3])
except Exception as e:
    ok = False
usage = r.get("usage") or {}
print(("PASS" if ok else "FAIL") + " status=%s in=%s out=%s output=%s%s" % (r.get("status"), usage.get("input_tokens"),
      usage.get("output_tokens"), json.dumps(r.get("output"))[:70], (" error=" + err[:160]) if err else ""))
PY
)
  case $verdict in PASS*) PASS=$((PASS + 1)) ;; *) FAIL=$((FAIL + 1)) ;; esac
  printf '%-44s %s\n' "$name" "$verdict"
}

for provider in openai anthropic; do
  base=$LLAMA_URL/v1
  for mode in blocking streamed; do
    p="$provider/$mode"
    run "$provider-$mode-llm-plain" $provider "$base" $mode llm-plain.yaml \
      'r["status"] == "completed" and r["output"] == "Hello, world!" and r["usage"]["input_tokens"] > 0 and r["usage"]["output_tokens"] > 0'
    if [ $provider = openai ]; then
      run "$provider-$mode-llm-schema" $provider "$base" $mode llm-schema.yaml \
        'r["status"] == "completed" and r["output"] == {"answer": 42}'
    else
      # llama-server's Anthropic endpoint ignores output_config.format: the answer is free text, and the message
      # says which mechanism was used.
      run "$provider-$mode-llm-schema-ignored" $provider "$base" $mode llm-schema.yaml \
        'r["status"] == "failed" and "output_config.format" in err and "may ignore" in err'
    fi
    run "$provider-$mode-agent-tools" $provider "$base" $mode agent-tools.yaml \
      'r["status"] == "completed" and r["output"] == "Noted: the city is Paris." and r["nodes"]["agent"]["tool_calls"][0]["name"] == "shared_memory_write"'
    if [ $provider = openai ]; then
      run "$provider-$mode-agent-tools-schema" $provider "$base" $mode agent-tools-schema.yaml \
        'r["status"] == "completed" and r["output"] == {"answer": 42} and r["nodes"]["agent"]["turns"] == 3 and r["nodes"]["agent"]["tool_calls"][0]["name"] == "shared_memory_write"'
      run "$provider-$mode-agent-tools-schema-every-turn" $provider "$base" $mode agent-tools-schema-every-turn.yaml \
        'r["status"] == "completed" and r["output"] == {"answer": 42} and r["nodes"]["agent"]["tool_calls"] == []'
    else
      run "$provider-$mode-agent-tools-schema-ignored" $provider "$base" $mode agent-tools-schema.yaml \
        'r["status"] == "failed" and "output_config.format" in err'
    fi
    # The same long prompt twice in a row: the second is served from the prompt cache and counts in full.
    run "$provider-$mode-llm-cache-warm" $provider "$base" $mode llm-cached.yaml 'r["status"] == "completed"'
    warm=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["usage"]["input_tokens"])' \
      "$OUT/$provider-$mode-llm-cache-warm.json" 2>/dev/null || echo 0)
    run "$provider-$mode-llm-cached" $provider "$base" $mode llm-cached.yaml \
      'r["status"] == "completed" and r["usage"]["input_tokens"] == '"$warm"' and '"$warm"' > 200'
  done
done

for mode in blocking streamed; do
  run "errors-$mode-429" openai "$NGINX_URL/status/429/v1" $mode llm-plain.yaml \
    'r["status"] == "failed" and "HTTP 429" in err and "429 Too Many Requests" in err and "<" not in err'
  run "errors-$mode-500" openai "$NGINX_URL/status/500/v1" $mode llm-plain.yaml \
    'r["status"] == "failed" and "500 Internal Server Error" in err and "<" not in err'
  run "errors-$mode-502" openai "$NGINX_URL/dead/v1" $mode llm-plain.yaml \
    'r["status"] == "failed" and "502 Bad Gateway" in err and "<" not in err'
  run "errors-$mode-503" openai "$NGINX_URL/status/503/v1" $mode llm-plain.yaml \
    'r["status"] == "failed" and "503 Service" in err and "<" not in err'
  run "errors-$mode-504" openai "$NGINX_URL/slow/v1" $mode llm-plain.yaml \
    'r["status"] == "failed" and "504 Gateway Time-out" in err and "<" not in err'
  run "errors-$mode-wrong-base-url" openai "$LLAMA_URL/v1/v1" $mode llm-plain.yaml \
    'r["status"] == "failed" and "HTTP 404" in err and "/v1/v1/chat/completions" in err'
  run "errors-$mode-refused" openai "http://127.0.0.1:9/v1" $mode llm-plain.yaml \
    'r["status"] == "failed" and "connection refused" in err and "Exception" not in err'
  run "errors-$mode-through-proxy" openai "$NGINX_URL/v1" $mode llm-plain.yaml \
    'r["status"] == "completed" and r["output"] == "Hello, world!"'
  run "errors-$mode-trickle-timeout" openai "$NGINX_URL/trickle/v1" $mode llm-timeout.yaml \
    'r["status"] == "failed" and r["error"]["code"] == "timeout"'
done

# A base URL without /v1: an OpenAI one through a proxy that forwards only /v1/ is nginx's HTML 404 page (llama-server
# itself answers /chat/completions as well as /v1/chat/completions).
for mode in blocking streamed; do
  run "errors-$mode-no-v1-proxy" openai "$NGINX_URL" $mode llm-plain.yaml \
    'r["status"] == "failed" and "HTTP 404" in err and "404 Not Found" in err and "/chat/completions" in err and "base URL" in err and "<" not in err'
  # ANTHROPIC_BASE_URL names the host, as Anthropic's SDK does: /v1 is appended (llama-server 404s /messages)
  run "anthropic-$mode-base-url-without-v1" anthropic "$LLAMA_URL" $mode llm-plain.yaml \
    'r["status"] == "completed" and r["output"] == "Hello, world!"'
done

# transformers serve as its source answers (a stand-in: it cannot be installed here). Its stream ends after the
# chunk with finish_reason and usage, without data: [DONE]. It ignores response_format (so output_schema gets free
# text); the earlier 5.x serving package refused fields it does not support with a 422, stream_options among them,
# so a streamed call to it fails before anything is generated (--no-stream works).
for mode in blocking streamed; do
  run "transformers-serve-$mode-llm-plain" openai "$TRANSFORMERS_URL/v1" $mode llm-plain.yaml \
    'r["status"] == "completed" and r["output"] == "Hello, world!" and r["usage"]["input_tokens"] == 30 and r["usage"]["output_tokens"] == 5 and all(c.get("attempts", 1) == 1 for c in calls)'
  run "transformers-serve-$mode-llm-schema-ignored" openai "$TRANSFORMERS_URL/v1" $mode llm-schema.yaml \
    'r["status"] == "failed" and "not JSON" in err and "response_format" in err'
done
run "transformers-serve-strict-blocking-llm-plain" openai "$TRANSFORMERS_STRICT_URL/v1" blocking llm-plain.yaml \
  'r["status"] == "completed" and r["output"] == "Hello, world!"'
run "transformers-serve-strict-streamed-llm-plain-refused" openai "$TRANSFORMERS_STRICT_URL/v1" streamed llm-plain.yaml \
  'r["status"] == "failed" and "HTTP 422" in err and "stream_options" in err and "after 1 attempt" in err'

echo "passed $PASS, failed $FAIL (results and events in $OUT)"
[ "$FAIL" -eq 0 ]
