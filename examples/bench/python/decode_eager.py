#!/usr/bin/env python3
"""The decode loop of `./mage bench model` (ModelBench) in eager PyTorch, for comparison; run by hand, never by tests.

Same model shapes (random float32 Qwen3: RMSNorm, q/k/v projections, per-head q/k RMSNorm, rotate-half rotary
embeddings, grouped-query attention over a preallocated KV cache, SwiGLU MLP, tied output head), same prompts length,
same batches and the same sampling work per step as Qwen3Generator at temperature 1 without filters (log-softmax for
the reported log-probability, softmax, cumulative sum, inverse-CDF draw). One thread, no autograd.

    /usr/bin/python3 examples/bench/python/decode_eager.py [--size 10m] [--batches 1,8,64] [--prompt 64] [--new 256]
        [--rounds 1] [--profile]

Prints, per batch, the prefill time, the total time and the decode rate b * (n - 1) / (total - prefill), as
ModelBench does.

Debian's python3-torch does its matrix products through libblas.so.3, which is whatever BLAS the system's
alternatives name: the reference BLAS by default (several times slower than the MKL inside DJL's libtorch), OpenBLAS
with libopenblas0-pthread, MKL with libmkl-rt (Debian's non-free section). The script prints the libraries it
loaded and the speed of the products a 10M decoding step runs, in cache and from memory, as `./mage bench model`
does, so that a comparison can show both sides multiply at the same speed. Run it with MKL_NUM_THREADS=1 (and
OPENBLAS_NUM_THREADS=1).
"""
import argparse
import math
import re
import statistics
import time

import torch

SIZES = {
    "10m": dict(vocab=12000, hidden=256, inter=768, layers=8, heads=4, kv=2, hd=64),
    "100m": dict(vocab=32000, hidden=768, inter=2048, layers=12, heads=12, kv=4, hd=64),
}


class Model:
    def __init__(self, c, seed=1):
        g = torch.Generator().manual_seed(seed)
        r = lambda *s: torch.randn(*s, generator=g) * 0.02
        self.c = c
        self.embed = r(c["vocab"], c["hidden"])
        self.layers = []
        for _ in range(c["layers"]):
            self.layers.append(dict(
                n1=torch.ones(c["hidden"]), n2=torch.ones(c["hidden"]),
                q=r(c["heads"] * c["hd"], c["hidden"]), k=r(c["kv"] * c["hd"], c["hidden"]),
                v=r(c["kv"] * c["hd"], c["hidden"]), o=r(c["hidden"], c["heads"] * c["hd"]),
                qn=torch.ones(c["hd"]), kn=torch.ones(c["hd"]),
                gate=r(c["inter"], c["hidden"]), up=r(c["inter"], c["hidden"]), down=r(c["hidden"], c["inter"])))
        self.norm = torch.ones(c["hidden"])
        half = c["hd"] // 2
        self.inv_freq = 1.0 / (1e6 ** (torch.arange(0, half, dtype=torch.float32) * 2 / c["hd"]))

    @staticmethod
    def rms(x, w, eps=1e-6):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w

    @staticmethod
    def rotate(x, cos, sin):
        h = x.shape[-1] // 2
        return x * cos + torch.cat((-x[..., h:], x[..., :h]), -1) * sin

    def forward(self, ids, pos, cache_k, cache_v, length):
        c = self.c
        b, t = ids.shape
        x = self.embed[ids]
        freqs = pos[:, :, None].float() * self.inv_freq
        emb = torch.cat((freqs, freqs), -1)
        cos, sin = emb.cos()[:, None], emb.sin()[:, None]  # (B, 1, T, hd)
        s = length + t
        causal = torch.ones(t, s, dtype=torch.bool).tril(diagonal=length)
        mask = torch.zeros(t, s).masked_fill(~causal, float("-inf"))
        g = c["heads"] // c["kv"]
        for i, w in enumerate(self.layers):
            h = self.rms(x, w["n1"])
            q = (h @ w["q"].T).view(b, t, c["heads"], c["hd"]).transpose(1, 2)
            k = (h @ w["k"].T).view(b, t, c["kv"], c["hd"]).transpose(1, 2)
            v = (h @ w["v"].T).view(b, t, c["kv"], c["hd"]).transpose(1, 2)
            q = self.rotate(self.rms(q, w["qn"]), cos, sin)
            k = self.rotate(self.rms(k, w["kn"]), cos, sin)
            cache_k[i][:, :, length:s] = k
            cache_v[i][:, :, length:s] = v
            keys = cache_k[i][:, :, :s].repeat_interleave(g, 1)
            values = cache_v[i][:, :, :s].repeat_interleave(g, 1)
            scores = (q @ keys.transpose(-1, -2)) / math.sqrt(c["hd"]) + mask
            a = (scores.softmax(-1) @ values).transpose(1, 2).reshape(b, t, -1)
            x = x + a @ w["o"].T
            h = self.rms(x, w["n2"])
            x = x + (torch.nn.functional.silu(h @ w["gate"].T) * (h @ w["up"].T)) @ w["down"].T
        return self.rms(x[:, -1], self.norm) @ self.embed.T  # (B, V) logits of the last position


def generate(model, prompts, n, seed=1):
    c = model.c
    b, p = prompts.shape
    cache_k = [torch.zeros(b, c["kv"], p + n, c["hd"]) for _ in range(c["layers"])]
    cache_v = [torch.zeros(b, c["kv"], p + n, c["hd"]) for _ in range(c["layers"])]
    g = torch.Generator().manual_seed(seed)
    ids, pos, length = prompts, torch.arange(p).expand(b, p), 0
    for step in range(n):
        logits = model.forward(ids, pos, cache_k, cache_v, length)
        length += ids.shape[1]
        logp = logits.log_softmax(-1)
        cdf = logits.softmax(-1).cumsum(-1)
        u = torch.rand(b, 1, generator=g)
        token = (cdf < u * cdf[:, -1:]).sum(-1, keepdim=True).clamp(max=c["vocab"] - 1)
        logp.gather(-1, token).tolist()  # the generator reads each step's picks and log-probs back
        ids, pos = token, torch.full((b, 1), length)
    return length


def product(hidden, rows, weights):
    """Times (rows x hidden).(768 x hidden)^T, the 10M model's MLP projection, as ModelBench does: with one weight
    the weight stays in the caches; with 48 different ones (37.7 MB, more than this machine's 32 MiB L3) each call
    reads its weight from memory, as every product of a decoding step does."""
    ws = [torch.randn(768, hidden) for _ in range(weights)]
    x = torch.randn(rows, 1, hidden)
    for i in range(2 * weights + 50):
        torch.nn.functional.linear(x, ws[i % weights])
    n = 2016
    start = time.perf_counter()
    for i in range(n):
        torch.nn.functional.linear(x, ws[i % weights])
    took = (time.perf_counter() - start) / n
    where = "in cache" if weights == 1 else f"{weights} weights, from memory"
    print(f"one ({rows} x {hidden}) . (768 x {hidden})^T product, {where}: {took * 1e6:.1f} us,"
          f" {768 * hidden * 4 / took / 1e9:.2f} GB/s of weights")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="10m")
    ap.add_argument("--batches", default="1,8,64")
    ap.add_argument("--prompt", type=int, default=64)
    ap.add_argument("--new", type=int, default=256)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--profile", action="store_true",
                    help="decode the first batch size once more under PyTorch's profiler and print the operators'"
                         " self time per step (as `./mage bench model profile=FILE` does)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run every batch this many times, in turn; more than one adds each batch's median and range")
    a = ap.parse_args()
    if a.rounds < 1:
        ap.error("--rounds must be at least 1, got %d" % a.rounds)
    batches = [int(x) for x in a.batches.split(",")]
    torch.set_num_threads(a.threads)
    c = SIZES[a.size]
    model = Model(c)
    print(f"eager PyTorch {torch.__version__}, {torch.get_num_threads()} thread(s), size {a.size}: {c}")
    # the BLAS behind matrix products decides batch 1's time as much as the loop does: Debian's build says "generic"
    # (the reference BLAS), DJL's libtorch uses MKL
    blas = re.search(r"BLAS_INFO=[^,\s]+", torch.__config__.show())
    print("build: " + (blas.group(0) if blas else "BLAS_INFO not reported"))
    # the BLAS library actually loaded (Debian's libblas.so.3 is an alternative: reference BLAS, OpenBLAS or MKL)
    with open("/proc/self/maps") as maps:
        libs = sorted({line.split()[-1] for line in maps if re.search(r"blas|mkl", line.split()[-1])})
    print("BLAS libraries loaded: " + (", ".join(libs) if libs else "none found"))
    product(c["hidden"], 1, 1)
    product(c["hidden"], 1, 48)
    product(c["hidden"], 8, 48)
    with torch.inference_mode():
        generate(model, torch.randint(0, c["vocab"], (2, 16)), 8)  # warm-up
        rates = {}
        for _ in range(a.rounds):
            for b in batches:
                prompts = torch.randint(0, c["vocab"], (b, a.prompt), generator=torch.Generator().manual_seed(2))
                t0 = time.perf_counter()
                generate(model, prompts, 1)
                prefill = time.perf_counter() - t0
                t0 = time.perf_counter()
                generate(model, prompts, a.new)
                total = time.perf_counter() - t0
                rate = b * (a.new - 1) / max(1e-9, total - prefill)
                rates.setdefault(b, []).append(rate)
                print(f"decode batch {b:2d}, prompt {a.prompt}, {a.new} new: {total:7.2f} s total (prefill {prefill:.2f} s),"
                      f" {rate:8.1f} tokens/s, {1e3 * (total - prefill) / (a.new - 1):6.1f} ms/step")
        if a.profile:
            b = batches[0]
            prompts = torch.randint(0, c["vocab"], (b, a.prompt), generator=torch.Generator().manual_seed(2))
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                t0 = time.perf_counter()
                generate(model, prompts, a.new)
                took = time.perf_counter() - t0
            events = prof.key_averages()
            inside = sum(e.self_cpu_time_total for e in events)
            print(f"profiled: decode batch {b}, {a.new} new tokens, {1e3 * took / a.new:.1f} ms/step under the profiler;"
                  f" {inside / 1e3 / a.new:.2f} ms per step inside operators")
            for e in sorted(events, key=lambda e: -e.self_cpu_time_total)[:25]:
                print(f"  {e.key:28s} {e.self_cpu_time_total / 1e3 / a.new:8.3f} ms/step {e.count / a.new:7.1f} calls/step"
                      f" {e.self_cpu_time_total / e.count:7.1f} us/call")
        if a.rounds > 1:
            for b, r in rates.items():
                median = statistics.median(r)
                print(f"decode batch {b:2d}, median of {a.rounds} rounds: {median:8.1f} tokens/s ({min(r):.1f} to {max(r):.1f}),"
                      f" {1e3 * b / median:6.1f} ms/step")

if __name__ == "__main__":
    main()
