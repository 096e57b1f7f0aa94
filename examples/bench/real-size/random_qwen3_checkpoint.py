#!/usr/bin/env python3
"""Writes a Qwen3-0.6B-shaped checkpoint with random weights: config.json, generation_config.json, model.safetensors.

Called by make-qwen3-0.6b-random.sh, which also puts the real Qwen3 tokenizer (tokenizer.json,
tokenizer_config.json) beside these files. Needs only Python 3 and numpy.

The architecture is Qwen3-0.6B's as published in the config.json of the Hugging Face repository Qwen/Qwen3-0.6B,
the same values as the qwen3-0.6b preset of this project
(examples/cli/src/main/java/org/magejvm/examples/memory/Qwen3Presets.java).

model.safetensors holds every tensor of Hugging Face's Qwen3ForCausalLM checkpoint (no lm_head.weight: the output
head is tied to the embedding), in bfloat16 like the real checkpoint, with shapes in PyTorch's [out, in] order.
Matrices are normal with standard deviation 0.02 (Hugging Face's initializer_range), the norm scales are 1.0.
Each tensor has its own generator, seeded with (seed, index of the tensor), so a tensor does not depend on the
others, and the values are generated and written a slice at a time: peak memory stays around 100 MB.

float32 -> bfloat16 keeps the upper 16 bits of the float32, rounded to nearest, ties to even (as torch does).

Usage: random_qwen3_checkpoint.py OUT_DIR [--seed N] [--std S]
"""

import argparse
import json
import os
import re
import struct
import sys
import time

import numpy as np

# Qwen/Qwen3-0.6B config.json (the architecture fields match Qwen3Presets "qwen3-0.6b").
CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151645,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 1024,
    "initializer_range": 0.02,
    "intermediate_size": 3072,
    "max_position_embeddings": 40960,
    "max_window_layers": 28,
    "model_type": "qwen3",
    "num_attention_heads": 16,
    "num_hidden_layers": 28,
    "num_key_value_heads": 8,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000,
    "sliding_window": None,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}

# Qwen/Qwen3-0.6B generation_config.json: the project reads only eos_token_id from it (stop tokens); the
# sampling fields are the published defaults, kept for fidelity.
GENERATION_CONFIG = {
    "bos_token_id": 151643,
    "do_sample": True,
    "eos_token_id": [151645, 151643],
    "pad_token_id": 151643,
    "temperature": 0.6,
    "top_k": 20,
    "top_p": 0.95,
}

# Elements generated at a time (16 MiB of float32).
CHUNK = 4 * 1024 * 1024


def tensor_specs(c):
    """(name, shape, kind) of every tensor, in the order of the Hugging Face checkpoint's modules."""
    d = c["hidden_size"]
    q = c["num_attention_heads"] * c["head_dim"]
    kv = c["num_key_value_heads"] * c["head_dim"]
    f = c["intermediate_size"]
    specs = [("model.embed_tokens.weight", (c["vocab_size"], d), "matrix")]
    for i in range(c["num_hidden_layers"]):
        p = "model.layers.%d." % i
        specs += [
            (p + "input_layernorm.weight", (d,), "norm"),
            (p + "self_attn.q_proj.weight", (q, d), "matrix"),
            (p + "self_attn.k_proj.weight", (kv, d), "matrix"),
            (p + "self_attn.v_proj.weight", (kv, d), "matrix"),
            (p + "self_attn.o_proj.weight", (d, q), "matrix"),
            (p + "self_attn.q_norm.weight", (c["head_dim"],), "norm"),
            (p + "self_attn.k_norm.weight", (c["head_dim"],), "norm"),
            (p + "post_attention_layernorm.weight", (d,), "norm"),
            (p + "mlp.gate_proj.weight", (f, d), "matrix"),
            (p + "mlp.up_proj.weight", (f, d), "matrix"),
            (p + "mlp.down_proj.weight", (d, f), "matrix"),
        ]
    specs.append(("model.norm.weight", (d,), "norm"))
    if not c["tie_word_embeddings"]:
        specs.append(("lm_head.weight", (c["vocab_size"], d), "matrix"))
    return specs


def to_bf16(x):
    """float32 array -> little-endian uint16 bfloat16 bits, round to nearest even (inputs are finite)."""
    u = x.view(np.uint32)
    u += np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))
    return (u >> np.uint32(16)).astype("<u2")


def header_bytes(specs):
    header = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, shape, _ in specs:
        n = 2 * int(np.prod(shape))
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)  # pad with spaces to 8 bytes, as the reference writer does
    return raw, offset


def write_safetensors(path, specs, seed, std):
    raw, data_len = header_bytes(specs)
    tmp = path + ".partial"
    start = time.time()
    with open(tmp, "wb") as out:
        out.write(struct.pack("<Q", len(raw)))
        out.write(raw)
        for index, (name, shape, kind) in enumerate(specs):
            count = int(np.prod(shape))
            if kind == "norm":
                out.write(to_bf16(np.ones(count, dtype=np.float32)).tobytes())
                continue
            rng = np.random.default_rng([seed, index])
            done = 0
            while done < count:
                n = min(CHUNK, count - done)
                x = rng.standard_normal(n, dtype=np.float32)
                x *= np.float32(std)
                out.write(to_bf16(x).tobytes())
                done += n
            layer = re.match(r"model\.layers\.(\d+)\.mlp\.down_proj", name)
            if name == "model.embed_tokens.weight" or (layer and int(layer.group(1)) % 7 == 6):
                print("  %-45s %-14s %6.1f s" % (name, "x".join(map(str, shape)), time.time() - start),
                      file=sys.stderr, flush=True)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    return 8 + len(raw) + data_len


def check_safetensors(path, specs):
    """Reads the header back and checks it against the specs and the file size."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    size = os.path.getsize(path)
    assert header.pop("__metadata__") == {"format": "pt"}
    assert list(header) == [s[0] for s in specs], "tensor names differ"
    end = 0
    for name, shape, _ in specs:
        e = header[name]
        assert e["dtype"] == "BF16" and tuple(e["shape"]) == tuple(shape), name
        assert e["data_offsets"][0] == end, name
        end = e["data_offsets"][1]
    assert 8 + n + end == size, "data section does not end at the end of the file"
    return len(specs), end // 2


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=1234, help="numpy seed (default 1234)")
    ap.add_argument("--std", type=float, default=0.02, help="standard deviation of the matrices (default 0.02)")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    write_json(os.path.join(args.out_dir, "config.json"), CONFIG)
    write_json(os.path.join(args.out_dir, "generation_config.json"), GENERATION_CONFIG)
    specs = tensor_specs(CONFIG)
    path = os.path.join(args.out_dir, "model.safetensors")
    print("writing %s (%d tensors, bf16, seed %d, std %g)" % (path, len(specs), args.seed, args.std),
          file=sys.stderr, flush=True)
    write_safetensors(path, specs, args.seed, args.std)
    tensors, params = check_safetensors(path, specs)
    print("checked %s: %d tensors, %d parameters (%.3fB)" % (path, tensors, params, params / 1e9),
          file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
