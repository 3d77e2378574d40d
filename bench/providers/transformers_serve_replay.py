#!/usr/bin/env python3
"""A stand-in for `transformers serve` on loopback, for the conformance matrix: transformers itself cannot be
installed here (PyPI is not reachable), so this answers /v1/chat/completions the way its source does (see
transformers_serve_fixtures.py for where each behaviour is in that source):

  - a request field it does not know: HTTP 422 {"detail": "..."} before anything is generated
  - a field it knows but does not support (stream_options, response_format, tool_choice, max_completion_tokens,
    parallel_tool_calls, user, ...): ignored with a logged warning (the refactored serving package, as in 5.16),
    or, with `strict`, HTTP 422 as the earlier 5.x serving package (main at 40417ee) answers
  - streamed: a role chunk, the content chunks, one chunk with finish_reason and usage, then the end of the body,
    with no `data: [DONE]`; blocking: the ChatCompletion with usage
  - any other path: FastAPI's 404 {"detail":"Not Found"}

It is not a model: every accepted request gets the same answer ("Hello, world!").

    python3 bench/providers/transformers_serve_replay.py PORT [strict]
"""
import json
import os
import sys
import uuid
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import transformers_serve_fixtures as fx  # noqa: E402

UNUSED = {"audio", "function_call", "functions", "logprobs", "max_completion_tokens", "metadata", "modalities", "n",
          "parallel_tool_calls", "prediction", "presence_penalty", "reasoning_effort", "response_format",
          "service_tier", "store", "stream_options", "tool_choice", "top_logprobs", "user", "web_search_options"}
# CompletionCreateParamsStreaming's keys (openai-python) plus transformers' own generation_config and seed
KNOWN = UNUSED | {"messages", "model", "frequency_penalty", "logit_bias", "max_tokens", "prompt_cache_key",
                  "safety_identifier", "seed", "stop", "stream", "temperature", "tools", "top_p", "verbosity",
                  "extra_body", "generation_config", "prompt_cache_retention"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def head(self, status, headers):
        lines = ["HTTP/1.1 " + status, "date: " + formatdate(usegmt=True), "server: uvicorn"] + headers
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode())

    def json(self, status, obj, request_id):
        body = fx.dumps(obj).encode()
        self.head(status, ["content-length: %d" % len(body), "content-type: application/json",
                           "x-request-id: " + request_id])
        self.wfile.write(body)
        self.wfile.flush()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        request_id = self.headers.get("x-request-id") or str(uuid.uuid4())
        if self.path != "/v1/chat/completions":
            return self.json("404 Not Found", {"detail": "Not Found"}, request_id)
        try:
            req = json.loads(body)
        except ValueError:
            return self.json("422 Unprocessable Entity", {"detail": "invalid JSON body"}, request_id)
        keys = set(req)
        if keys - KNOWN:
            return self.json("422 Unprocessable Entity",
                             {"detail": "Unexpected keys in the request: %r" % (keys - KNOWN)}, request_id)
        if keys & UNUSED and STRICT:
            return self.json("422 Unprocessable Entity",
                             {"detail": "Unsupported fields in the request: %r" % (keys & UNUSED)}, request_id)
        fx.REQUEST_ID = request_id
        fx.MODEL = req.get("model", "") + "@main"
        if not req.get("stream"):
            text = "".join(fx.PIECES)
            return self.json("200 OK", {"id": request_id,
                                        "choices": [{"finish_reason": "stop", "index": 0,
                                                     "message": {"content": text, "role": "assistant"}}],
                                        "created": fx.CREATED, "model": fx.MODEL, "object": "chat.completion",
                                        "usage": fx.usage()}, request_id)
        self.head("200 OK", ["content-type: text/event-stream; charset=utf-8", "x-request-id: " + request_id,
                             "transfer-encoding: chunked"])
        events = [fx.chunk({"role": "assistant"})] + [fx.chunk({"content": p}) for p in fx.PIECES] \
            + [fx.chunk({}, "stop", fx.usage())]
        for event in events:
            data = event.encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def do_GET(self):
        request_id = str(uuid.uuid4())
        if self.path == "/health":
            return self.json("200 OK", {"status": "ok"}, request_id)
        return self.json("404 Not Found", {"detail": "Not Found"}, request_id)


STRICT = len(sys.argv) > 2 and sys.argv[2] == "strict"

if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
