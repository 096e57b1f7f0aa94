#!/usr/bin/env python3
"""Writes an independent safetensors fixture with numpy only (no safetensors or torch package).

Output, under ../resources/safetensors/:
  numpy-mixed.safetensors  F32, F16, BF16, I64, U8 and BOOL tensors, a scalar and an empty tensor, with metadata;
                           the header is written in insertion order and padded to 8 bytes, like the reference writer.
  numpy-mixed.json         for every float tensor: dtype, shape, its values widened to float32 ("values"), and the
                           float32 values narrowed to float16 by numpy ("as_f16", what loading as FLOAT16 must give).

numpy rounds float32 -> float16 to nearest-even; bfloat16 is narrowed here with the usual integer rounding trick
on the float32 bits (round to nearest, ties to even), written out independently of the Java code.
Run: python3 make_safetensors_fixture.py
"""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "resources", "safetensors")


def to_bf16_bits(values):
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def main():
    rng = np.random.default_rng(20240611)
    f32 = (rng.standard_normal((3, 4)) * 3).astype(np.float32)
    f16_source = np.array([0.1, -2.5, 65504.0, 1e-6, 0.333333], dtype=np.float32)
    bf16_source = np.array([[0.68884, -1.0, 3.140625], [1e-3, 250.7, -7.77]], dtype=np.float32)
    scalar = np.array(1.25, dtype=np.float32)

    tensors = [  # (name, dtype, shape, raw little-endian bytes, float32 values or None)
        ("model.f32", "F32", f32.shape, f32.astype("<f4").tobytes(), f32),
        ("model.f16", "F16", f16_source.shape, f16_source.astype("<f2").tobytes(),
         f16_source.astype(np.float16).astype(np.float32)),
        ("model.bf16", "BF16", bf16_source.shape, to_bf16_bits(bf16_source).astype("<u2").tobytes(),
         (to_bf16_bits(bf16_source).astype(np.uint32) << 16).view(np.float32)),
        ("model.scalar", "F32", (), scalar.astype("<f4").tobytes(), scalar),
        ("model.empty", "F16", (0, 3), b"", np.zeros((0, 3), dtype=np.float32)),
        ("ids", "I64", (3,), np.array([1, -2, 3], dtype="<i8").tobytes(), None),
        ("bytes", "U8", (2,), bytes([7, 255]), None),
        ("mask", "BOOL", (3,), bytes([1, 0, 1]), None),
    ]
    header = {"__metadata__": {"format": "pt", "source": "numpy"}}
    data = b""
    expected = {}
    for name, dtype, shape, raw, values in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
        if values is not None:
            flat = np.asarray(values, dtype=np.float32).reshape(-1)
            expected[name] = {
                "dtype": dtype,
                "shape": list(shape),
                "values": [float(v) for v in flat],
                "as_f16": [float(v) for v in flat.astype(np.float16).astype(np.float32)],
            }
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-(8 + len(text)) % 8)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "numpy-mixed.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.write(data)
    with open(os.path.join(OUT, "numpy-mixed.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
