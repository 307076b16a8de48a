"""Make the tiny random-weight model the ``llama-server-*tool*`` recordings in
``tests/data/wire`` were made with (see ``tools/wire/README.md``).

A Qwen2-shaped GGUF (2 layers, 64 wide) with random weights, Qwen2's real vocabulary
(``models/ggml-vocab-qwen2.gguf`` of the llama.cpp sources), Qwen2.5's ``<tool_call>`` /
``</tool_call>`` tokens, and the Qwen2.5-Instruct chat template: enough for llama-server
to run its real chat template, tool-call grammar and streaming code paths.

    python make_tiny_model.py LLAMA_CPP_SOURCES OUT.gguf    (needs numpy and gguf)
"""

from __future__ import annotations

import sys

import gguf  # type: ignore[import-not-found]
import numpy as np

N_EMBD, N_HEAD, N_LAYER, N_FF = 64, 4, 2, 128


def main(sources: str, out: str) -> None:
    src = gguf.GGUFReader(f"{sources}/models/ggml-vocab-qwen2.gguf")
    fields = src.fields
    w = gguf.GGUFWriter(out, "qwen2")
    w.add_name("tiny-random-qwen2")
    w.add_block_count(N_LAYER)
    w.add_context_length(4096)
    w.add_embedding_length(N_EMBD)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD)
    w.add_rope_freq_base(1000000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    listed, typed = fields["tokenizer.ggml.tokens"], fields["tokenizer.ggml.token_type"]
    tokens = [bytes(listed.parts[i]) for i in listed.data]
    types = [int(typed.parts[i][0]) for i in typed.data]
    # Qwen2.5's added tokens (Qwen2's vocabulary pads these ids).
    tokens[151657], tokens[151658] = b"<tool_call>", b"</tool_call>"
    types[151657] = types[151658] = 4  # user-defined: shown as text
    w.add_token_list(tokens)
    w.add_token_types(types)
    merges = fields["tokenizer.ggml.merges"]
    w.add_token_merges([bytes(merges.parts[i]) for i in merges.data])
    w.add_eos_token_id(151645)  # <|im_end|>
    w.add_pad_token_id(151643)
    w.add_bos_token_id(151643)
    w.add_add_bos_token(False)
    with open(f"{sources}/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja", encoding="utf-8") as f:
        w.add_chat_template(f.read())
    rng = np.random.default_rng(7)
    vocab = len(tokens)

    def weights(name: str, *shape: int) -> None:
        w.add_tensor(name, (rng.standard_normal(shape) * 0.02).astype(np.float16))

    def ones(name: str, n: int) -> None:
        w.add_tensor(name, np.ones(n, dtype=np.float32))

    weights("token_embd.weight", vocab, N_EMBD)
    for block in range(N_LAYER):
        p = f"blk.{block}."
        ones(p + "attn_norm.weight", N_EMBD)
        for x in "qkv":
            weights(p + f"attn_{x}.weight", N_EMBD, N_EMBD)
            w.add_tensor(p + f"attn_{x}.bias", np.zeros(N_EMBD, dtype=np.float32))
        weights(p + "attn_output.weight", N_EMBD, N_EMBD)
        ones(p + "ffn_norm.weight", N_EMBD)
        weights(p + "ffn_gate.weight", N_FF, N_EMBD)
        weights(p + "ffn_up.weight", N_FF, N_EMBD)
        weights(p + "ffn_down.weight", N_EMBD, N_FF)
    ones("output_norm.weight", N_EMBD)
    weights("output.weight", vocab, N_EMBD)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
