#!/usr/bin/env bash
# Starts the real servers the conformance harness talks to, on loopback, and prints their environment:
#   llama-server (toy model)      LLAMA_URL      OpenAI /v1/chat/completions and Anthropic /v1/messages
#   nginx in front of it          NGINX_URL      /v1/... proxied; /status/N answers HTTP N with nginx's own page;
#                                               /dead/... proxies to nothing (a real 502); /slow/... to a server
#                                               that never answers (a real 504); /trickle/... sends 64 bytes/s;
#                                               anything else is nginx's 404 page
#   transformers serve stand-in   TRANSFORMERS_URL  its /v1/chat/completions as its source answers (not the real
#                                               server: PyPI is not reachable here; transformers_serve_replay.py);
#                                 TRANSFORMERS_STRICT_URL  as the earlier 5.x one, which refuses stream_options
# Source it: `. bench/providers/servers.sh` (stop them with `stop_servers`).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LLAMA_DIR=$("$HERE/build-llama-server.sh")
WORK=${LOOPFLOW_BENCH_WORK:-$(mktemp -d /tmp/loopflow-providers.XXXXXX)}
mkdir -p "$WORK"
LLAMA_PORT=${LLAMA_PORT:-18080}
NGINX_PORT=${NGINX_PORT:-18081}
SILENT_PORT=${SILENT_PORT:-18082}
TRANSFORMERS_PORT=${TRANSFORMERS_PORT:-18083}
TRANSFORMERS_STRICT_PORT=${TRANSFORMERS_STRICT_PORT:-18084}

python3 "$HERE/toy_model.py" "$LLAMA_DIR/gguf-py" "$WORK/toy.gguf" \
  "$LLAMA_DIR/templates/Qwen-Qwen2.5-7B-Instruct.jinja" >&2

# Greedy decoding by default (a request that sets no temperature still gets the known answer), one slot so that
# a repeated prompt is served from the prompt cache.
"$LLAMA_DIR/bin/llama-server" -m "$WORK/toy.gguf" --host 127.0.0.1 --port "$LLAMA_PORT" --jinja -c 4096 -np 1 \
  --temp 0 --top-k 1 --alias toy > "$WORK/llama-server.log" 2>&1 &
echo $! > "$WORK/llama-server.pid"

# A server that accepts connections and never answers: nginx's upstream for a real 504.
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64); held = []
while True:
    c, _ = s.accept(); held.append(c)
' "$SILENT_PORT" > /dev/null 2>&1 &
echo $! > "$WORK/silent.pid"

python3 "$HERE/transformers_serve_replay.py" "$TRANSFORMERS_PORT" > "$WORK/transformers-serve.log" 2>&1 &
echo $! > "$WORK/transformers-serve.pid"
python3 "$HERE/transformers_serve_replay.py" "$TRANSFORMERS_STRICT_PORT" strict > "$WORK/transformers-serve-strict.log" 2>&1 &
echo $! > "$WORK/transformers-serve-strict.pid"

cat > "$WORK/nginx.conf" <<CONF
worker_processes 1;
error_log $WORK/nginx-error.log;
pid $WORK/nginx.pid;
events { worker_connections 256; }
http {
  access_log $WORK/nginx-access.log;
  client_body_temp_path $WORK/nginx-body;
  proxy_temp_path $WORK/nginx-proxy;
  fastcgi_temp_path $WORK/nginx-fastcgi;
  uwsgi_temp_path $WORK/nginx-uwsgi;
  scgi_temp_path $WORK/nginx-scgi;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location /v1/ { proxy_pass http://127.0.0.1:$LLAMA_PORT; proxy_buffering off; }
    # anything else (a base URL without /v1) gets nginx's own 404 page, as a proxy that forwards only /v1/ does
    location / { return 404; }
    location = /status/429/v1/chat/completions { return 429; }
    location = /status/500/v1/chat/completions { return 500; }
    location = /status/503/v1/chat/completions { return 503; }
    location /dead/ { proxy_pass http://127.0.0.1:9/; }
    location /slow/ { proxy_pass http://127.0.0.1:$SILENT_PORT/; proxy_read_timeout 2s; }
    location /trickle/ {
      proxy_pass http://127.0.0.1:$LLAMA_PORT/; proxy_buffering on; proxy_ignore_headers X-Accel-Buffering;
      limit_rate 64;
    }
  }
}
CONF
nginx -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log"

for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$LLAMA_PORT/health" > /dev/null 2>&1 && break
  sleep 0.2
done
curl -sf "http://127.0.0.1:$LLAMA_PORT/health" > /dev/null || { cat "$WORK/llama-server.log" >&2; exit 1; }

for _ in $(seq 1 50); do
  curl -sf "http://127.0.0.1:$TRANSFORMERS_PORT/health" > /dev/null 2>&1 \
    && curl -sf "http://127.0.0.1:$TRANSFORMERS_STRICT_PORT/health" > /dev/null 2>&1 && break
  sleep 0.1
done

export LLAMA_URL="http://127.0.0.1:$LLAMA_PORT" NGINX_URL="http://127.0.0.1:$NGINX_PORT" PROVIDERS_WORK="$WORK"
export TRANSFORMERS_URL="http://127.0.0.1:$TRANSFORMERS_PORT" TRANSFORMERS_STRICT_URL="http://127.0.0.1:$TRANSFORMERS_STRICT_PORT"
stop_servers() {
  kill "$(cat "$PROVIDERS_WORK/llama-server.pid")" "$(cat "$PROVIDERS_WORK/silent.pid")" \
    "$(cat "$PROVIDERS_WORK/transformers-serve.pid")" "$(cat "$PROVIDERS_WORK/transformers-serve-strict.pid")" \
    2>/dev/null || true
  nginx -p "$PROVIDERS_WORK" -c "$PROVIDERS_WORK/nginx.conf" -e "$PROVIDERS_WORK/nginx-error.log" -s stop 2>/dev/null || true
}
echo "servers up: llama-server $LLAMA_URL, nginx $NGINX_URL, transformers serve stand-in $TRANSFORMERS_URL (logs in $WORK)" >&2
set +e +u
