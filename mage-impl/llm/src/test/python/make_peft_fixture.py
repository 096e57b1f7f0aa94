#!/usr/bin/env python3
"""Generate a PEFT LoRA adapter fixture for the tiny Qwen3 test checkpoint.

What it writes (under --out, default: ../resources/peft-tiny next to this script):

  adapter/adapter_config.json          LoraConfig as PEFT's save_pretrained writes it
  adapter/adapter_model.safetensors    lora_A / lora_B float32 tensors, metadata {"format": "pt"}
  expected-adapted-logits.json         float64 logits of base + adapter (scaling = lora_alpha / r)
  rslora/adapter_config.json           same adapter, use_rslora = true
  rslora/adapter_model.safetensors     byte-identical copy of adapter/adapter_model.safetensors
  rslora/expected-adapted-logits.json  float64 logits with scaling = lora_alpha / sqrt(r)

Neither `peft` nor `transformers` nor `safetensors` is needed (or used): their behaviour is
restated here, and NOTES.md says which upstream file each restated fact comes from.

  * adapter_config.json: the key set of PEFT 0.18.1's LoraConfig (PeftConfigMixin + PeftConfig +
    LoraConfig dataclass fields, minus runtime_config), serialised as PEFT does:
    json.dumps(config, indent=2, sort_keys=True), no trailing newline; inference_mode is true in
    a saved config; base_model_name_or_path is the name the base model was loaded from.
  * adapter_model.safetensors: tensor names
    base_model.model.<module path>.lora_A.weight  shape [r, in_features]
    base_model.model.<module path>.lora_B.weight  shape [out_features, r]
    (PEFT strips the ".default" adapter name on save). The file layout is the one the safetensors
    library writes: u64 little-endian header length, compact JSON header with "__metadata__" first
    and tensors ordered by (dtype alignment descending, name ascending), header padded with spaces
    to a multiple of 8, then the tensor bytes back to back in that same order.
  * forward: Qwen3ForCausalLM (transformers modeling_qwen3.py) restated in torch float64; every
    targeted nn.Linear becomes y = x W^T + scaling * (x A^T) B^T (lora_dropout 0 -> identity).

Before writing the adapted logits the script checks that the restated forward WITHOUT the adapter
reproduces the base fixture's expected-logits.json to < 1e-9 and stops otherwise.

Deterministic: numpy.random.default_rng(SEED), values drawn in a fixed order (layer 0..2, module
in TARGET_MODULES order, A then B), rounded to float32 before use, so the logits are computed
from exactly the numbers stored in the file.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import struct
import sys

import numpy as np
import torch

SEED = 20250101
R = 4
LORA_ALPHA = 8
LORA_DROPOUT = 0.0
B_STD = 0.05  # lora_B ~ N(0, 0.05^2): nonzero, so the adapter visibly moves the logits
PEFT_VERSION = "0.18.1"
BASE_MODEL_NAME = "qwen3-tiny"

# Order used for drawing the random values and for the (set-derived) target_modules list.
TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
MODULE_PARENT = {
    "q_proj": "self_attn", "k_proj": "self_attn", "v_proj": "self_attn", "o_proj": "self_attn",
    "gate_proj": "mlp", "up_proj": "mlp", "down_proj": "mlp",
}

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BASE = os.path.join(HERE, "..", "resources", "qwen3-tiny")
DEFAULT_OUT = os.path.join(HERE, "..", "resources", "peft-tiny")

SAFETENSORS_DTYPES = {"F32": np.dtype("<f4"), "F64": np.dtype("<f8"), "F16": np.dtype("<f2"),
                      "I64": np.dtype("<i8"), "I32": np.dtype("<i4")}


# --------------------------------------------------------------------------- safetensors by hand

def read_safetensors(path: str) -> tuple[dict[str, np.ndarray], dict | None]:
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", None)
    data = blob[8 + n:]
    out = {}
    for name, info in header.items():
        dt = SAFETENSORS_DTYPES[info["dtype"]]
        s, e = info["data_offsets"]
        arr = np.frombuffer(data[s:e], dtype=dt).reshape(info["shape"])
        out[name] = arr.copy()
    return out, meta


def write_safetensors(path: str, tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> None:
    """Write exactly what safetensors' Rust `prepare`/`serialize_to_file` writes.

    All tensors here are F32, so the (dtype desc, name asc) sort reduces to name order.
    """
    for name, arr in tensors.items():
        assert arr.dtype == np.float32, name
    names = sorted(tensors)
    header: dict = {"__metadata__": dict(metadata)}
    offset = 0
    chunks = []
    for name in names:
        arr = np.ascontiguousarray(tensors[name], dtype="<f4")
        raw = arr.tobytes(order="C")
        header[name] = {"dtype": "F32", "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        chunks.append(raw)
    hbytes = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    hbytes += b" " * ((8 - len(hbytes) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hbytes)))
        f.write(hbytes)
        for raw in chunks:
            f.write(raw)


# --------------------------------------------------------------------------- PEFT config

def lora_config_dict(use_rslora: bool) -> dict:
    """PEFT 0.18.1 LoraConfig.to_dict() as saved by PeftModel.save_pretrained (36 keys)."""
    return {
        # PeftConfigMixin
        "task_type": "CAUSAL_LM",
        "peft_type": "LORA",
        "auto_mapping": None,  # only filled when task_type is None
        "peft_version": PEFT_VERSION,
        # PeftConfig
        "base_model_name_or_path": BASE_MODEL_NAME,
        "revision": None,
        "inference_mode": True,  # save_pretrained writes the config with inference_mode=True
        # LoraConfig
        "r": R,
        "target_modules": list(TARGET_MODULES),  # a set in memory; saved as list(set) -> any order
        "exclude_modules": None,
        "lora_alpha": LORA_ALPHA,
        "lora_dropout": LORA_DROPOUT,
        "fan_in_fan_out": False,
        "bias": "none",
        "use_rslora": use_rslora,
        "modules_to_save": None,
        "init_lora_weights": True,
        "layers_to_transform": None,
        "layers_pattern": None,
        "rank_pattern": {},
        "alpha_pattern": {},
        "megatron_config": None,
        "megatron_core": "megatron.core",
        "trainable_token_indices": None,
        "loftq_config": {},
        "eva_config": None,
        "corda_config": None,
        "use_dora": False,
        "alora_invocation_tokens": None,
        "use_qalora": False,
        "qalora_group_size": 16,
        "layer_replication": None,
        "lora_bias": False,
        "target_parameters": None,
        "arrow_config": None,
        "ensure_weight_tying": False,
    }


def write_config(path: str, cfg: dict) -> None:
    # PeftConfigMixin.save_pretrained: writer.write(json.dumps(output_dict, indent=2, sort_keys=True))
    with open(path, "w") as f:
        f.write(json.dumps(cfg, indent=2, sort_keys=True))


# --------------------------------------------------------------------------- adapter weights

def linear_shapes(cfg: dict) -> dict[str, tuple[int, int]]:
    """(out_features, in_features) of each targeted nn.Linear in a Qwen3 decoder layer."""
    h = cfg["hidden_size"]
    hd = cfg["head_dim"]
    nh = cfg["num_attention_heads"]
    nkv = cfg["num_key_value_heads"]
    inter = cfg["intermediate_size"]
    return {
        "q_proj": (nh * hd, h), "k_proj": (nkv * hd, h), "v_proj": (nkv * hd, h),
        "o_proj": (h, nh * hd),
        "gate_proj": (inter, h), "up_proj": (inter, h), "down_proj": (h, inter),
    }


def module_path(layer: int, module: str) -> str:
    return f"model.layers.{layer}.{MODULE_PARENT[module]}.{module}"


def make_adapter(cfg: dict) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    shapes = linear_shapes(cfg)
    tensors = {}
    for layer in range(cfg["num_hidden_layers"]):
        for module in TARGET_MODULES:
            out_f, in_f = shapes[module]
            # lora_A like PEFT's default init (kaiming_uniform_(a=sqrt(5)) on [r, in] == U(-1/sqrt(in), 1/sqrt(in)))
            bound = 1.0 / math.sqrt(in_f)
            a = rng.uniform(-bound, bound, size=(R, in_f)).astype(np.float32)
            # lora_B random instead of PEFT's zeros, so the adapter is not a no-op
            b = rng.normal(0.0, B_STD, size=(out_f, R)).astype(np.float32)
            prefix = "base_model.model." + module_path(layer, module)
            tensors[prefix + ".lora_A.weight"] = a
            tensors[prefix + ".lora_B.weight"] = b
    return tensors


# --------------------------------------------------------------------------- Qwen3 forward (float64)

def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    var = x.pow(2).mean(-1, keepdim=True)
    return w * (x * torch.rsqrt(var + eps))


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def qwen3_logits(cfg: dict, w: dict[str, torch.Tensor], input_ids: list[int],
                 lora: dict[str, torch.Tensor] | None, scaling: float) -> torch.Tensor:
    f64 = torch.float64
    h = cfg["hidden_size"]
    nh = cfg["num_attention_heads"]
    nkv = cfg["num_key_value_heads"]
    hd = cfg["head_dim"]
    eps = cfg["rms_norm_eps"]
    theta = cfg["rope_theta"]
    n_rep = nh // nkv
    T = len(input_ids)

    def linear(x: torch.Tensor, layer: int, module: str) -> torch.Tensor:
        path = module_path(layer, module)
        y = x @ w[path + ".weight"].T
        if lora is not None:
            a = lora["base_model.model." + path + ".lora_A.weight"]  # [r, in]
            b = lora["base_model.model." + path + ".lora_B.weight"]  # [out, r]
            y = y + scaling * ((x @ a.T) @ b.T)
        return y

    # RoPE, default rope_type: inv_freq = 1 / theta^(2i/d), emb = cat(freqs, freqs)
    inv_freq = 1.0 / (theta ** (torch.arange(0, hd, 2, dtype=f64) / hd))
    pos = torch.arange(T, dtype=f64)
    freqs = torch.outer(pos, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)  # [T, hd]
    cos, sin = emb.cos(), emb.sin()

    causal = torch.full((T, T), float("-inf"), dtype=f64).triu(1)

    x = w["model.embed_tokens.weight"][torch.tensor(input_ids)]  # [T, h]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        res = x
        hs = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = linear(hs, layer, "q_proj").view(T, nh, hd)
        k = linear(hs, layer, "k_proj").view(T, nkv, hd)
        v = linear(hs, layer, "v_proj").view(T, nkv, hd)
        # q_norm / k_norm: RMSNorm over head_dim, per head, BEFORE RoPE
        q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps).transpose(0, 1)  # [nh, T, hd]
        k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps).transpose(0, 1)  # [nkv, T, hd]
        v = v.transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        # GQA (repeat_kv): query head i uses kv head i // n_rep
        k = k.repeat_interleave(n_rep, dim=0)
        v = v.repeat_interleave(n_rep, dim=0)
        scores = (q @ k.transpose(1, 2)) * (hd ** -0.5) + causal
        attn = torch.softmax(scores, dim=-1) @ v  # [nh, T, hd]
        attn = attn.transpose(0, 1).reshape(T, nh * hd)
        x = res + linear(attn, layer, "o_proj")
        res = x
        hs = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        mlp = linear(torch.nn.functional.silu(linear(hs, layer, "gate_proj")) * linear(hs, layer, "up_proj"),
                     layer, "down_proj")
        x = res + mlp
    x = rms_norm(x, w["model.norm.weight"], eps)
    lm_head = w.get("lm_head.weight", w["model.embed_tokens.weight"])  # tie_word_embeddings
    return x @ lm_head.T  # [T, vocab]


# --------------------------------------------------------------------------- main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default=DEFAULT_BASE,
                    help="directory with config.json, model.safetensors, expected-logits.json")
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()

    with open(os.path.join(args.base, "config.json")) as f:
        cfg = json.load(f)
    with open(os.path.join(args.base, "expected-logits.json")) as f:
        ref = json.load(f)
    base_np, _ = read_safetensors(os.path.join(args.base, "model.safetensors"))
    assert cfg["tie_word_embeddings"] and "lm_head.weight" not in base_np
    assert not cfg.get("attention_bias", False) and cfg["hidden_act"] == "silu"
    w = {k: torch.from_numpy(v.astype(np.float64)) for k, v in base_np.items()}

    input_ids = ref["input_ids"]
    ref_logits = torch.tensor(ref["logits"], dtype=torch.float64)

    # 1. prove the restatement: base forward vs the base fixture
    base_logits = qwen3_logits(cfg, w, input_ids, None, 0.0)
    base_diff = (base_logits - ref_logits).abs().max().item()
    print(f"restated base forward vs expected-logits.json: max |diff| = {base_diff:.3e}")
    if not base_diff < 1e-9:
        print("FAIL: restated Qwen3 forward does not reproduce the base fixture", file=sys.stderr)
        return 1

    # 2. adapter weights (float32 as stored, float64 for the forward)
    adapter = make_adapter(cfg)
    lora = {k: torch.from_numpy(v.astype(np.float64)) for k, v in adapter.items()}

    variants = [
        ("adapter", False, LORA_ALPHA / R, "lora_alpha / r"),
        ("rslora", True, LORA_ALPHA / math.sqrt(R), "lora_alpha / sqrt(r) (use_rslora)"),
    ]
    for subdir, use_rslora, scaling, rule in variants:
        d = os.path.join(args.out, subdir)
        os.makedirs(d, exist_ok=True)
        write_config(os.path.join(d, "adapter_config.json"), lora_config_dict(use_rslora))
        st_path = os.path.join(d, "adapter_model.safetensors")
        write_safetensors(st_path, adapter, {"format": "pt"})

        # read back what was written and run the forward from the file's own numbers
        back, meta = read_safetensors(st_path)
        assert meta == {"format": "pt"} and sorted(back) == sorted(adapter)
        assert all(np.array_equal(back[k], adapter[k]) for k in adapter)
        lora_back = {k: torch.from_numpy(v.astype(np.float64)) for k, v in back.items()}

        logits = qwen3_logits(cfg, w, input_ids, lora_back, scaling)
        # zero-scaled adapter must give the base logits back (sanity of the LoRA path)
        zero = qwen3_logits(cfg, w, input_ids, lora_back, 0.0)
        assert (zero - base_logits).abs().max().item() == 0.0
        # PEFT's merge path: W' = W + get_delta_weight() = W + (B @ A) * scaling; must agree with the unmerged path
        merged = dict(w)
        for key in lora_back:
            if key.endswith(".lora_A.weight"):
                path = key[len("base_model.model."):-len(".lora_A.weight")]
                b_key = key.replace(".lora_A.", ".lora_B.")
                merged[path + ".weight"] = w[path + ".weight"] + (lora_back[b_key] @ lora_back[key]) * scaling
        merged_diff = (qwen3_logits(cfg, merged, input_ids, None, 0.0) - logits).abs().max().item()
        assert merged_diff < 1e-9, merged_diff
        print(f"{subdir}: merged-weight forward vs unmerged LoRA forward: max |diff| = {merged_diff:.3e}")
        delta = (logits - base_logits).abs().max().item()
        delta_ref = (logits - ref_logits).abs().max().item()
        print(f"{subdir}: scaling = {rule} = {scaling!r}; max |adapted - base| = {delta:.6f} "
              f"(vs expected-logits.json: {delta_ref:.6f})")

        expected_name = "expected-adapted-logits.json"
        expected_path = os.path.join(args.out if subdir == "adapter" else d, expected_name)
        note = (
            "float64 logits for every position of input_ids, Qwen3ForCausalLM forward restated in torch "
            "float64 from the float32 base weights in qwen3-tiny/model.safetensors plus the float32 LoRA "
            f"tensors in {subdir}/adapter_model.safetensors; every targeted linear computes "
            f"y = x W^T + scaling * (x A^T) B^T with scaling = {rule} = {scaling!r} "
            f"(r={R}, lora_alpha={LORA_ALPHA}, lora_dropout=0, all 3 layers, "
            f"targets {','.join(TARGET_MODULES)}). The same restated forward without the adapter matches "
            f"qwen3-tiny/expected-logits.json to {base_diff:.1e}; max |adapted - base| = {delta:.6f}. "
            f"Generated by make_peft_fixture.py (numpy seed {SEED})."
        )
        with open(expected_path, "w") as f:
            json.dump({"input_ids": input_ids, "logits": logits.tolist(), "note": note}, f)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
