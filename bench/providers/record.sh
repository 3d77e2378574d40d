#!/usr/bin/env bash
# Records what real servers send, as fixtures the test suite's fake servers replay byte for byte
# (Reply.recorded in loopflow-testkit). Each case writes NAME.http (`curl -i`: status line, headers, empty line,
# the de-chunked body) and NAME.request.json (what was sent) under
# loopflow-testkit/src/main/resources/dev/loopflow/testkit/wire/.
#
#   bench/providers/record.sh           starts the servers (servers.sh), records every case, stops them
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WIRE=$ROOT/loopflow-testkit/src/main/resources/dev/loopflow/testkit/wire
. "$HERE/servers.sh"
trap stop_servers EXIT
set -euo pipefail
mkdir -p "$WIRE/llama-server" "$WIRE/nginx"

# record NAME URL BODY [HEADER...]
record() {
  local name=$1 url=$2 body=$3
  shift 3
  printf '%s\n' "$body" > "$WIRE/$name.request.json"
  curl -sS -i --http1.1 -N -X POST "$url" -H 'Content-Type: application/json' "$@" --data-binary "$body" \
    > "$WIRE/$name.http" || true
  printf '%-40s %s\n' "$name" "$(head -1 "$WIRE/$name.http" | tr -d '\r')"
}

SYSTEM='You answer briefly. This system prompt is long on purpose, so that a second request with the same prefix is served from the prompt cache of the server: the cache stores the keys and values of every prompt token it has seen, and a request whose tokens begin the same way reuses them instead of computing them again.'
TOOL='{"type":"function","function":{"name":"shared_memory_write","description":"Stores a value under a key.","parameters":{"type":"object","properties":{"key":{"type":"string"},"value":{"type":"string"}},"required":["key","value"]}}}'
ATOOL='{"name":"shared_memory_write","description":"Stores a value under a key.","input_schema":{"type":"object","properties":{"key":{"type":"string"},"value":{"type":"string"}},"required":["key","value"]}}'
SCHEMA='{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}'
O=$LLAMA_URL/v1/chat/completions
A=$LLAMA_URL/v1/messages
AH=(-H 'x-api-key: not-needed' -H 'anthropic-version: 2023-06-01')

record llama-server/openai-plain "$O" '{"model":"toy","messages":[{"role":"user","content":"Say hello"}],"temperature":0}'
record llama-server/openai-plain-stream "$O" '{"model":"toy","messages":[{"role":"user","content":"Say hello"}],"temperature":0,"stream":true,"stream_options":{"include_usage":true}}'
record llama-server/openai-schema "$O" '{"model":"toy","messages":[{"role":"user","content":"Give the answer"}],"temperature":0,"response_format":{"type":"json_schema","json_schema":{"name":"answer","strict":true,"schema":'"$SCHEMA"'}}}'
record llama-server/openai-tools "$O" '{"model":"toy","messages":[{"role":"user","content":"Note the city."}],"temperature":0,"tools":['"$TOOL"']}'
record llama-server/openai-tools-stream "$O" '{"model":"toy","messages":[{"role":"user","content":"Note the city."}],"temperature":0,"tools":['"$TOOL"'],"stream":true,"stream_options":{"include_usage":true}}'
record llama-server/openai-tools-and-schema "$O" '{"model":"toy","messages":[{"role":"user","content":"Note the city."}],"temperature":0,"tools":['"$TOOL"'],"response_format":{"type":"json_schema","json_schema":{"name":"answer","strict":true,"schema":'"$SCHEMA"'}}}'
record llama-server/openai-after-tool-result "$O" '{"model":"toy","messages":[{"role":"user","content":"Note the city."},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"shared_memory_write","arguments":"{\"key\":\"city\",\"value\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"stored"}],"temperature":0,"tools":['"$TOOL"']}'
record llama-server/openai-wrong-path "$LLAMA_URL/v1/v1/chat/completions" '{"model":"toy","messages":[{"role":"user","content":"Say hello"}]}'
# A base URL without /v1: llama-server answers /chat/completions as well as /v1/chat/completions (so there is no
# openai-404-no-v1 from it), but not /messages; a proxy that forwards only /v1/ answers with its own 404 page.
record llama-server/anthropic-404-no-v1 "$LLAMA_URL/messages" '{"model":"toy","max_tokens":64,"messages":[{"role":"user","content":"Say hello"}]}' -H 'x-api-key: not-needed' -H 'anthropic-version: 2023-06-01'

record llama-server/anthropic-plain "$A" '{"model":"toy","max_tokens":64,"messages":[{"role":"user","content":"Say hello"}],"temperature":0}' "${AH[@]}"
record llama-server/anthropic-plain-stream "$A" '{"model":"toy","max_tokens":64,"messages":[{"role":"user","content":"Say hello"}],"temperature":0,"stream":true}' "${AH[@]}"
record llama-server/anthropic-tools "$A" '{"model":"toy","max_tokens":256,"messages":[{"role":"user","content":"Note the city."}],"temperature":0,"tools":['"$ATOOL"']}' "${AH[@]}"
record llama-server/anthropic-tools-stream "$A" '{"model":"toy","max_tokens":256,"messages":[{"role":"user","content":"Note the city."}],"temperature":0,"tools":['"$ATOOL"'],"stream":true}' "${AH[@]}"
# The same prompt twice: the second is served from the prompt cache (cache_read_input_tokens).
CACHED='{"model":"toy","max_tokens":64,"system":"'"$SYSTEM"'","messages":[{"role":"user","content":"Say hello"}],"temperature":0}'
record llama-server/anthropic-cache-warm "$A" "$CACHED" "${AH[@]}"
record llama-server/anthropic-cached "$A" "$CACHED" "${AH[@]}"
record llama-server/anthropic-cached-stream "$A" "${CACHED%\}},\"stream\":true}" "${AH[@]}"
rm -f "$WIRE/llama-server/anthropic-cache-warm.http" "$WIRE/llama-server/anthropic-cache-warm.request.json"

PLAIN='{"model":"toy","messages":[{"role":"user","content":"Say hello"}]}'
record nginx/429 "$NGINX_URL/status/429/v1/chat/completions" "$PLAIN"
record nginx/500 "$NGINX_URL/status/500/v1/chat/completions" "$PLAIN"
record nginx/502 "$NGINX_URL/dead/v1/chat/completions" "$PLAIN"
record nginx/503 "$NGINX_URL/status/503/v1/chat/completions" "$PLAIN"
record nginx/504 "$NGINX_URL/slow/v1/chat/completions" "$PLAIN"
record nginx/404-no-v1 "$NGINX_URL/chat/completions" "$PLAIN"
