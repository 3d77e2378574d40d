#!/usr/bin/env python3
"""Writes toy.gguf: a tiny llama-architecture model whose every answer is known in advance.

It is hand-wired, not trained. Greedy decoding (temperature 0) of it gives exactly these replies:

  plain prompt (no tools offered)           -> "Hello, world!"
  plain prompt, JSON schema enforced         -> {"answer": 42}
  tools offered, before any tool result      -> <tool_call>
                                                {"name": "shared_memory_write", "arguments": {"key": "city", "value": "Paris"}}
                                                </tool_call>          (a Hermes tool call)
  after a tool result                        -> "Noted: the city is Paris."
  after a tool result, JSON schema enforced  -> {"answer": 42}

How: one layer, one attention head. The residual stream holds the last token as a one-hot vector, so the output
head is a bigram table (each token names its successor). The attention head looks back for two marker tokens of the
chat template (Qwen 2.5's, whose tool calls llama.cpp parses as Hermes tool calls): "<tools>", which the template
writes when tools are offered, and "<tool_response>", which it writes around a tool result; it copies which it saw
into two more dimensions, and the output head adds a bias from those to the first token of each answer. So the
answer depends on the conversation, not on its last token alone. The bigram table also gives the JSON answer a
lower score as the first token: when a grammar (response_format, output_config) forbids the plain answer, the
JSON one is the best token left.

The tokenizer is byte-level BPE without merges (but one that never applies): any prompt tokenizes (one token per byte), and the answers are
made of whole-word tokens the prompt side never produces. Usage figures are therefore one prompt token per byte.

Usage: toy_model.py GGUF_PY_DIR OUT.gguf CHAT_TEMPLATE.jinja
(the template: llama.cpp's models/templates/Qwen-Qwen2.5-7B-Instruct.jinja, from the same source as llama-server)
"""
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
import gguf  # noqa: E402

OUT = sys.argv[2]
TEMPLATE = sys.argv[3]

# GPT-2's byte-level alphabet: each byte is one printable character in the vocabulary.
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


B2U = bytes_to_unicode()


def enc(text):
    return "".join(B2U[b] for b in text.encode("utf-8"))


tokens, types = [], []


def add(text, kind=gguf.TokenType.NORMAL, raw=False):
    tokens.append(text if raw else enc(text))
    types.append(kind)
    return len(tokens) - 1


for b in range(256):
    add(B2U[b], raw=True)
IM_START = add("<|im_start|>", gguf.TokenType.CONTROL, raw=True)
IM_END = add("<|im_end|>", gguf.TokenType.CONTROL, raw=True)
ENDOFTEXT = add("<|endoftext|>", gguf.TokenType.CONTROL, raw=True)
TOOLS = add("<tools>", gguf.TokenType.USER_DEFINED, raw=True)
TOOL_RESPONSE = add("<tool_response>", gguf.TokenType.USER_DEFINED, raw=True)
TOOL_CALL = add("<tool_call>", gguf.TokenType.USER_DEFINED, raw=True)
TOOL_CALL_END = add("</tool_call>", gguf.TokenType.USER_DEFINED, raw=True)

# llama.cpp requires a merge list; one merge of two control bytes that no prompt holds changes nothing.
RARE = add(B2U[0] + B2U[1], raw=True)
HELLO = add("Hello")
COMMA = tokens.index(enc(","))  # single bytes: their byte tokens are the chain's
WORLD = add(" world")
BANG = tokens.index(enc("!"))
JSON_ANSWER = add('{"answer": 42}')
CALL_BODY = add('\n{"name": "shared_memory_write", "arguments": {"key": "city", "value": "Paris"}}\n')
NOTED = add("Noted:")
CITY = add(" the city is Paris.")

assert len(set(tokens)) == len(tokens), "a token text is in the vocabulary twice"
V = len(tokens)
M_TOOLS, M_RESPONSE = V, V + 1  # residual dimensions of the two markers
E = 512  # embedding width: one-hot tokens, two marker dimensions, the rest unused
assert V + 2 <= E - 2, "vocabulary too large for the embedding"
NEWLINE = B2U[ord("\n")]
NL = tokens.index(NEWLINE)

emb = np.zeros((V, E), dtype=np.float32)
emb[np.arange(V), np.arange(V)] = 1.0

# Attention: every position's query is the same vector in the last two head dimensions, where rotary embedding with
# a huge base barely turns (so relative position does not matter); only the marker tokens have keys there. Values
# carry the marker's identity; the output projection writes it to the marker dimensions of the residual.
norm = np.sqrt(E)  # RMSNorm of a one-hot vector multiplies it by sqrt(E)
wq = np.zeros((E, E), dtype=np.float32)
wq[E - 2, :V] = 1.0
wk = np.zeros((E, E), dtype=np.float32)
score = 40.0  # q.k / sqrt(head_dim) for a marker: e^40 outweighs every other position of a 4096-token context
wk[E - 2, TOOLS] = score / norm
wk[E - 2, TOOL_RESPONSE] = score / norm
wv = np.zeros((E, E), dtype=np.float32)
wv[0, TOOLS] = 1.0
wv[1, TOOL_RESPONSE] = 1.0
wo = np.zeros((E, E), dtype=np.float32)
wo[M_TOOLS, 0] = 1.0 / norm
wo[M_RESPONSE, 1] = 1.0 / norm

# The output head: the chain of each answer (weight 4), the first token's choice (less than 4 whatever the markers,
# so a chain always continues), and <|im_end|> after each answer's last token.
out = np.zeros((V, E), dtype=np.float32)


def chain(*ids):
    for a, b in zip(ids, ids[1:]):
        out[b, a] = 4.0


chain(HELLO, COMMA, WORLD, BANG, IM_END)
chain(JSON_ANSWER, IM_END)
chain(TOOL_CALL, CALL_BODY, TOOL_CALL_END, IM_END)
chain(NOTED, CITY, IM_END)
out[HELLO, NL] = 0.5         # after "assistant\n": the plain answer ...
out[JSON_ANSWER, NL] = 0.3   # ... unless a grammar forbids it
# The attention head averages over the markers it finds: Qwen's tool prompt writes <tools> twice, so after one tool
# result the two markers weigh 2/3 and 1/3.
out[TOOL_CALL, M_TOOLS] = 0.8      # tools offered: call one (0.8 > 0.5)
out[NOTED, M_RESPONSE] = 3.0       # a tool result seen: answer (1.0 > 0.53 and > 0.5), however many came


w = gguf.GGUFWriter(OUT, "llama")
w.add_name("loopflow-toy")
w.add_context_length(4096)
w.add_embedding_length(E)
w.add_block_count(1)
w.add_feed_forward_length(32)
w.add_head_count(1)
w.add_head_count_kv(1)
w.add_rope_dimension_count(E)
w.add_rope_freq_base(1e12)
w.add_layer_norm_rms_eps(1e-6)
w.add_vocab_size(V)
w.add_file_type(gguf.LlamaFileType.ALL_F32)
w.add_tokenizer_model("gpt2")
w.add_tokenizer_pre("default")
w.add_token_list(tokens)
w.add_token_types(types)
w.add_token_merges([B2U[0] + " " + B2U[1]])
w.add_bos_token_id(ENDOFTEXT)
w.add_eos_token_id(IM_END)
w.add_add_bos_token(False)
with open(TEMPLATE) as f:
    w.add_chat_template(f.read())

w.add_tensor("token_embd.weight", emb)
w.add_tensor("output_norm.weight", np.ones(E, dtype=np.float32))
w.add_tensor("output.weight", out)
w.add_tensor("blk.0.attn_norm.weight", np.ones(E, dtype=np.float32))
w.add_tensor("blk.0.attn_q.weight", wq)
w.add_tensor("blk.0.attn_k.weight", wk)
w.add_tensor("blk.0.attn_v.weight", wv)
w.add_tensor("blk.0.attn_output.weight", wo)
w.add_tensor("blk.0.ffn_norm.weight", np.ones(E, dtype=np.float32))
w.add_tensor("blk.0.ffn_gate.weight", np.zeros((32, E), dtype=np.float32))
w.add_tensor("blk.0.ffn_up.weight", np.zeros((32, E), dtype=np.float32))
w.add_tensor("blk.0.ffn_down.weight", np.zeros((E, 32), dtype=np.float32))
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
print(f"wrote {OUT}: {V} tokens, embedding {E}")
