#!/usr/bin/env python3
"""Writes the transformers-serve fixtures, reconstructed from the source of `transformers serve`.

transformers cannot be installed on this machine (PyPI is not reachable), so these replies are written the way its
source writes them (transformers main at 40417ee, the 5.x serving package):

  src/transformers/cli/serving/chat_completion.py  ChatCompletionHandler
    streamed:  a role chunk, one chunk per decoded piece of text, then ONE chunk carrying finish_reason and usage,
               then the generator returns: the body ends without `data: [DONE]`; usage is always sent, and
               `stream_options` is refused (below)
    blocking:  JSONResponse(ChatCompletion(...).model_dump(exclude_none=True))
    refused:   fields in UNUSED_CHAT_COMPLETION_FIELDS (stream_options, response_format, tool_choice,
               max_completion_tokens, parallel_tool_calls, user, ...) -> HTTPException(422,
               "Unsupported fields in the request: {...}") -> FastAPI's {"detail": ...}; the later, refactored
               serving package (BaseHandler._validate_request, as in 5.16) only logs "Ignoring unsupported fields"
               and goes on, and still ends its stream without [DONE]
  src/transformers/cli/serving/utils.py  BaseHandler.chunk_to_sse: f"data: {chunk.model_dump_json(exclude_none=True)}\\n\\n"
  src/transformers/cli/serving/server.py  request_id_middleware: every reply carries x-request-id (a uuid4 unless the
               request sent one), which is also the completion's id
  uvicorn (httptools): `date` and `server: uvicorn` first, the app's headers, then `transfer-encoding: chunked`
               when there is no content-length; Starlette adds `; charset=utf-8` to text/event-stream

Pydantic dumps fields in declaration order (openai-python's ChatCompletionChunk: id, choices, created, model, object,
service_tier, system_fingerprint, usage; Choice: delta, finish_reason, index, logprobs), compactly, without None.
completion_tokens counts every generated token, the end-of-turn token included (which decodes to no text).

    python3 bench/providers/transformers_serve_fixtures.py   writes loopflow-testkit/.../wire/transformers-serve/
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "loopflow-testkit", "src", "main", "resources", "dev", "loopflow", "testkit",
                   "wire", "transformers-serve")
MARK = ("X-Loopflow-Fixture: reconstructed from transformers 5.x source (src/transformers/cli/serving at 40417ee), "
        "not recorded: PyPI is not reachable here")
DATE = "Sat, 28 Nov 2026 08:30:00 GMT"
CREATED = 1795854600
REQUEST_ID = "3f0c8a52-6a0e-4c4f-9d6b-2b8f1e7a9c41"
MODEL = "Qwen/Qwen2.5-0.5B-Instruct@main"  # ModelManager.process_model_name adds the revision
PIECES = ["Hello", ",", " world", "!"]
PROMPT_TOKENS = 30  # "Say hello" in Qwen 2.5's template with its default system prompt
COMPLETION_TOKENS = len(PIECES) + 1  # the pieces and <|im_end|>


def dumps(obj):
    # pydantic's model_dump_json and Starlette's JSONResponse both write compact JSON, non-ASCII as is
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def chunk(delta, finish_reason=None, usage=None):
    choice = {"delta": delta}
    if finish_reason is not None:
        choice["finish_reason"] = finish_reason
    choice["index"] = 0
    c = {"id": REQUEST_ID, "choices": [choice], "created": CREATED, "model": MODEL,
         "object": "chat.completion.chunk", "system_fingerprint": ""}
    if usage is not None:
        c["usage"] = usage
    return "data: " + dumps(c) + "\n\n"


def usage():
    return {"completion_tokens": COMPLETION_TOKENS, "prompt_tokens": PROMPT_TOKENS,
            "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS}


def write(name, status, headers, body, request):
    head = [status, "date: " + DATE, "server: uvicorn"] + headers + [MARK]
    with open(os.path.join(OUT, name + ".http"), "wb") as f:
        # curl -i writes the head as received: CRLF line ends
        f.write(("\r\n".join(head) + "\r\n\r\n").encode())
        f.write(body.encode())
    with open(os.path.join(OUT, name + ".request.json"), "w") as f:
        f.write(dumps(request) + "\n")
    print("wrote", name)


def main():
    os.makedirs(OUT, exist_ok=True)
    hello = [{"role": "user", "content": "Say hello"}]

    stream = chunk({"role": "assistant"})
    for piece in PIECES:
        stream += chunk({"content": piece})
    stream += chunk({}, "stop", usage())
    write("openai-stream-no-done", "HTTP/1.1 200 OK",
          ["content-type: text/event-stream; charset=utf-8", "x-request-id: " + REQUEST_ID,
           "transfer-encoding: chunked"],
          stream, {"model": "Qwen/Qwen2.5-0.5B-Instruct", "messages": hello, "stream": True})

    blocking = dumps({"id": REQUEST_ID,
                      "choices": [{"finish_reason": "stop", "index": 0,
                                   "message": {"content": "".join(PIECES), "role": "assistant"}}],
                      "created": CREATED, "model": MODEL, "object": "chat.completion", "usage": usage()})
    write("openai-plain", "HTTP/1.1 200 OK",
          ["content-length: %d" % len(blocking.encode()), "content-type: application/json",
           "x-request-id: " + REQUEST_ID],
          blocking, {"model": "Qwen/Qwen2.5-0.5B-Instruct", "messages": hello, "stream": False})

    # What an OpenAI client that asks for usage in a stream gets: the field is refused before any generation.
    refused = dumps({"detail": "Unsupported fields in the request: {'stream_options'}"})
    write("openai-422-stream-options", "HTTP/1.1 422 Unprocessable Entity",
          ["content-length: %d" % len(refused.encode()), "content-type: application/json",
           "x-request-id: " + REQUEST_ID],
          refused, {"model": "Qwen/Qwen2.5-0.5B-Instruct", "messages": hello, "stream": True,
                    "stream_options": {"include_usage": True}})


if __name__ == "__main__":
    sys.exit(main())
