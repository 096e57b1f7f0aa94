#!/usr/bin/env python3
"""Writes the update-level fixture that ReferenceUpdateFidelityTest compares PolicyUpdater against (issue 38).

What it restates, in torch float64: the reference trainer's whole policy update for one batch, that is
verl's dp_actor.update_policy (MAGE@9b2e588, verl/workers/actor/dp_actor.py) with the core_algos functions it calls
(compute_policy_loss with the dual clip, agg_loss "token-mean" = verl_F.masked_mean, the entropy bonus, kl_penalty
"low_var_kl"), clip_grad_norm_ and torch.optim.AdamW, under mage-reference's update settings:

  * every row is trained, zero advantages included (the reference has no skip);
  * rows in batch order (shuffle False), ppo_mini_batch_size 64 rows per optimizer step, micro-batches of
    ppo_micro_batch_size_per_gpu = 8 rows, gradient_accumulation = 64 // 8, one epoch;
  * loss = pg_loss - 0.001 * entropy_loss + 0.1 * kl_loss per micro-batch, each a masked mean over the micro-batch's
    own tokens (masked_mean divides by mask.sum() + 1e-8), divided by gradient_accumulation before backward;
  * clip_grad_norm_(1.0), a non-finite norm skips the step; AdamW (betas 0.9/0.999, eps 1e-8, weight decay 0.01).

On 8 GPUs the reference's 64-row minibatch is 8 per GPU, one micro-batch each, and FSDP averages the 8 gradients:
the same (1/8) sum of micro-batch token means (the rows of a minibatch are then the GPUs' slices of the batch rather
than 64 consecutive rows; the fixture takes the single-process order).

The policy is a tiny Qwen3 that the Java test builds with the same weights: one decoder layer whose o_proj and
down_proj are zero (and not trained), so each position's hidden state is its token's embedding and the model is a
bigram model, log p(t | prev) = log_softmax(RMSNorm(E[prev]) * g @ W^T)[t]. Trained: E (embed_tokens), g (the final
norm) and W (an untied lm_head). The KL reference is the initial model; old log-probabilities are recomputed by the
initial model before the update (stored as float32, as the reference stores log-probs and as PolicyUpdater does).

Each case is computed twice:
  * "reference": dp_actor exactly as above;
  * "global": the same with the one documented difference of PolicyUpdater (docs/training.md): every micro-batch's
    sums are divided by the whole minibatch's token count T (no + 1e-8, no division by gradient_accumulation), so the
    minibatch's objective is its own token mean rather than the mean of its micro-batches' token means.
PolicyUpdater must equal "global"; the differences between the two are the size of the normaliser difference and
are written into the fixture ("normaliser_difference"). A third computation ("skip_zero") runs the project's
update.skip_zero_advantage = true (the mage preset): the rows with advantage 0 are left out before minibatching.

Run with a torch install (any 2.x; Debian's python3-torch 1.13 works too), from anywhere:
    python3 mage-impl/train/src/test/python/make_reference_update_fixture.py
It rewrites mage-impl/train/src/test/resources/update/reference-update-fixture.json. The Java tests never call Python.
"""
import json
import math
import os

import torch

torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "resources", "update", "reference-update-fixture.json")

# ---- the batch and the model ----
VOCAB = 16
HIDDEN = 8
RMS_EPS = 1e-6
ROWS = 128                  # two minibatches of 64 rows (the reference pads a batch to a multiple of 64)
SEED = 38
# the trained tensors by their names in the Java model (Hugging Face names)
HF_NAMES = {"embed": "model.embed_tokens.weight", "norm": "model.norm.weight", "head": "lm_head.weight"}

# ---- mage-reference's update settings (TrainingPreset.MAGE_REFERENCE on mage-kuhn-poker) ----
MINI_BATCH = 64
MICRO_BATCH = 8
CLIP_LOW = 0.2
CLIP_HIGH = 0.2
DUAL_CLIP = 3.0
ENTROPY_COEF = 0.001
KL_COEF = 0.1
BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
WEIGHT_DECAY = 0.01
GRAD_CLIP = 1.0

CASES = [
    # name, learning rate, skip zero-advantage rows, what it shows
    ("mage_reference", 1e-6, False, "mage-reference's settings exactly (lr 1e-6)"),
    ("mage_reference_lr_0.5", 0.5, False,
     "the same with lr 0.5, so that the second minibatch's ratios leave the clip range (clip, dual clip and KL act)"),
    ("skip_zero_lr_0.5", 0.5, True,
     "the project's update.skip_zero_advantage = true (the mage preset) at lr 0.5: zero-advantage rows left out"),
]


def make_batch():
    g = torch.Generator().manual_seed(SEED)
    embed = torch.randn(VOCAB, HIDDEN, generator=g) * 0.8
    norm = 1.0 + 0.2 * torch.randn(HIDDEN, generator=g)
    head = torch.randn(VOCAB, HIDDEN, generator=g) * 0.6
    rows = []
    keys = set()
    while len(rows) < ROWS:
        plen = int(torch.randint(1, 7, (1,), generator=g))
        rlen = int(torch.randint(1, 10, (1,), generator=g))
        prompt = torch.randint(4, VOCAB, (plen,), generator=g).tolist()
        response = torch.randint(0, VOCAB, (rlen,), generator=g).tolist()
        kind = int(torch.randint(0, 4, (1,), generator=g))
        magnitude = round(0.3 + 7.7 * float(torch.rand(1, generator=g)), 6)
        advantage = 0.0 if kind == 0 else (magnitude if kind in (1, 2) else -magnitude)
        # the Java test finds a row of a micro-batch by its advantage and old log-probabilities (which depend on the
        # prompt's last token and the response): keep that pair unique
        key = (advantage, prompt[-1], tuple(response))
        if key in keys:
            continue
        keys.add(key)
        rows.append({"prompt": prompt, "response": response, "advantage": advantage})
    return {"embed": embed, "norm": norm, "head": head}, rows


# ---- the model ----

def token_scores(params, rows):
    """Per row: (log-probs, entropies) of the response tokens, each a 1-d tensor in the autograd graph."""
    out = []
    for r in rows:
        seq = r["prompt"] + r["response"]
        prev = torch.tensor(seq[len(r["prompt"]) - 1:len(seq) - 1])
        h = params["embed"][prev]
        n = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + RMS_EPS) * params["norm"]
        logits = n @ params["head"].T
        logp_all = torch.log_softmax(logits, dim=-1)
        logp = logp_all.gather(-1, torch.tensor(r["response"]).unsqueeze(-1)).squeeze(-1)
        # verl_F.entropy_from_logits
        pd = torch.softmax(logits, dim=-1)
        entropy = torch.logsumexp(logits, dim=-1) - torch.sum(pd * logits, dim=-1)
        out.append((logp, entropy))
    return out


def padded(values, width):
    m = torch.zeros(len(values), width)
    for i, v in enumerate(values):
        m[i, :len(v)] = v
    return m


# ---- core_algos, restated ----

def masked_mean(values, mask):
    return (values * mask).sum() / (mask.sum() + 1e-8)


def aggregate(values, mask, normalizer):
    """agg_loss "token-mean": the reference's masked_mean (normalizer None), or PolicyUpdater's sum / T."""
    if normalizer is None:
        return masked_mean(values, mask)
    return (values * mask).sum() / normalizer


def compute_policy_loss(old_log_prob, log_prob, advantages, response_mask, normalizer):
    negative_approx_kl = log_prob - old_log_prob
    ratio = torch.exp(negative_approx_kl)
    pg_losses1 = -advantages * ratio
    pg_losses2 = -advantages * torch.clamp(ratio, 1 - CLIP_LOW, 1 + CLIP_HIGH)
    clip_pg_losses1 = torch.maximum(pg_losses1, pg_losses2)
    pg_losses3 = -advantages * DUAL_CLIP
    clip_pg_losses2 = torch.min(pg_losses3, clip_pg_losses1)
    pg_losses = torch.where(advantages < 0, clip_pg_losses2, clip_pg_losses1)
    pg_loss = aggregate(pg_losses, response_mask, normalizer)
    clipped = torch.gt(pg_losses2, pg_losses1) & (response_mask > 0)
    dual = torch.gt(clip_pg_losses1, pg_losses3) & (advantages < 0) & (response_mask > 0)
    return pg_loss, ratio, int((clipped & (advantages < 0)).sum()), int((clipped & (advantages > 0)).sum()), \
        int(dual.sum())


def kl_penalty_low_var_kl(logprob, ref_logprob):
    kl = ref_logprob - logprob
    ratio = torch.exp(kl)
    kld = (ratio - kl - 1).contiguous()
    return torch.clamp(kld, min=-10, max=10)


# ---- dp_actor.update_policy, restated ----

def update_policy(initial, rows, lr, variant):
    """variant: "reference" (dp_actor) or "global" (PolicyUpdater's minibatch token normaliser)."""
    params = {k: v.clone().requires_grad_(True) for k, v in initial.items()}
    names = ["embed", "norm", "head"]
    with torch.no_grad():
        start = token_scores(params, rows)
    # old and reference log-probs: the initial model's, stored as float32 (as verl stores log-probs)
    old = [lp.float().double() for lp, _ in start]
    ref = [lp.float().double() for lp, _ in start]
    optimizer = torch.optim.AdamW([params[k] for k in names], lr=lr, betas=BETAS, eps=ADAM_EPS,
                                  weight_decay=WEIGHT_DECAY, foreach=False)
    gradient_accumulation = MINI_BATCH // MICRO_BATCH
    steps = []
    index = list(range(len(rows)))
    for start_row in range(0, len(rows), MINI_BATCH):
        mini = index[start_row:start_row + MINI_BATCH]
        tokens = sum(len(rows[i]["response"]) for i in mini)
        optimizer.zero_grad()
        totals = {"loss": 0.0, "pg_loss": 0.0, "entropy": 0.0, "kl_loss": 0.0}
        grad_logp = {}
        grad_entropy = {}
        clip_counts = [0, 0, 0]
        kink = math.inf
        for m in range(0, len(mini), MICRO_BATCH):
            micro = mini[m:m + MICRO_BATCH]
            width = max(len(rows[i]["response"]) for i in micro)
            scores = token_scores(params, [rows[i] for i in micro])
            log_prob = padded([lp for lp, _ in scores], width)
            entropy = padded([e for _, e in scores], width)
            log_prob.retain_grad()
            entropy.retain_grad()
            mask = padded([torch.ones(len(rows[i]["response"])) for i in micro], width)
            old_lp = padded([old[i] for i in micro], width)
            ref_lp = padded([ref[i] for i in micro], width)
            adv = torch.tensor([rows[i]["advantage"] for i in micro]).unsqueeze(-1).expand(-1, width)
            normalizer = None if variant == "reference" else float(tokens)
            pg_loss, ratio, low, high, dual = compute_policy_loss(old_lp, log_prob, adv, mask, normalizer)
            entropy_loss = aggregate(entropy, mask, normalizer)
            kld = kl_penalty_low_var_kl(log_prob, ref_lp)
            kl_loss = aggregate(kld, mask, normalizer)
            policy_loss = pg_loss - entropy_loss * ENTROPY_COEF + kl_loss * KL_COEF
            loss = policy_loss / gradient_accumulation if variant == "reference" else policy_loss
            loss.backward()
            scale = 1.0 / gradient_accumulation if variant == "reference" else 1.0
            totals["loss"] += loss.item()
            totals["pg_loss"] += pg_loss.item() * scale
            totals["entropy"] += entropy_loss.item() * scale
            totals["kl_loss"] += kl_loss.item() * scale
            clip_counts[0] += low
            clip_counts[1] += high
            clip_counts[2] += dual
            live = mask > 0
            for kinkpoint in (1 - CLIP_LOW, 1 + CLIP_HIGH, DUAL_CLIP):
                kink = min(kink, float((ratio.detach()[live] - kinkpoint).abs().min()))
            for j, i in enumerate(micro):
                n = len(rows[i]["response"])
                grad_logp[i] = log_prob.grad[j, :n].tolist()
                grad_entropy[i] = entropy.grad[j, :n].tolist()
        norm = float(torch.nn.utils.clip_grad_norm_([params[k] for k in names], max_norm=GRAD_CLIP))
        assert math.isfinite(norm)
        assert abs(norm - GRAD_CLIP) > 1e-6, norm
        optimizer.step()
        micro_tokens = [sum(len(rows[i]["response"]) for i in mini[m:m + MICRO_BATCH])
                        for m in range(0, len(mini), MICRO_BATCH)]
        steps.append({
            "rows": mini,
            "tokens": tokens,
            "micro_batch_tokens": micro_tokens,
            # a token's weight in dp_actor's objective over its weight in PolicyUpdater's: T / (8 T_micro)
            "token_weight_ratio": [min(tokens / (gradient_accumulation * t) for t in micro_tokens),
                                   max(tokens / (gradient_accumulation * t) for t in micro_tokens)],
            "loss": totals["loss"], "pg_loss": totals["pg_loss"], "entropy": totals["entropy"],
            "kl_loss": totals["kl_loss"],
            "clipped_tokens": {"low": clip_counts[0], "high": clip_counts[1], "dual": clip_counts[2]},
            "closest_ratio_to_a_kink": kink,
            "grad_norm": norm,
            "clipped": norm > GRAD_CLIP,
            "grad_log_probs": [grad_logp[i] for i in mini],
            "grad_entropies": [grad_entropy[i] for i in mini],
            "parameters": {HF_NAMES[k]: params[k].detach().reshape(-1).tolist() for k in names},
        })
    return [lp.tolist() for lp in old], steps


def max_abs(a, b):
    if isinstance(a, list):
        return max((max_abs(x, y) for x, y in zip(a, b)), default=0.0)
    return abs(a - b)


def main():
    initial, rows = make_batch()
    zero_rows = sum(1 for r in rows if r["advantage"] == 0)
    zero_tokens = sum(len(r["response"]) for r in rows if r["advantage"] == 0)
    all_tokens = sum(len(r["response"]) for r in rows)
    assert any(r["advantage"] > 0 for r in rows) and any(r["advantage"] < 0 for r in rows) and zero_rows > 0
    cases = []
    for name, lr, skip, what in CASES:
        trained = [r for r in rows if r["advantage"] != 0] if skip else rows
        old, global_steps = update_policy(initial, trained, lr, "global")
        case = {"name": name, "what": what, "learning_rate": lr, "skip_zero_advantage": skip,
                "trained_rows": [i for i, r in enumerate(rows) if not skip or r["advantage"] != 0],
                "old_log_probs": old, "global": global_steps}
        if not skip:
            _, reference_steps = update_policy(initial, trained, lr, "reference")
            case["reference"] = reference_steps
            diff = {}
            for key in ("loss", "pg_loss", "entropy", "kl_loss", "grad_norm", "grad_log_probs", "grad_entropies",
                        "parameters"):
                diff[key] = max(max_abs(
                    list(s[key].values()) if isinstance(s[key], dict) else s[key],
                    list(t[key].values()) if isinstance(t[key], dict) else t[key])
                    for s, t in zip(global_steps, reference_steps))
            case["normaliser_difference"] = diff
        cases.append(case)
        print(f"{name}: {len(trained)} rows, steps: "
              + ", ".join(f"loss {s['loss']:.6g} norm {s['grad_norm']:.4g} clip {s['clipped_tokens']}"
                          f" kink {s['closest_ratio_to_a_kink']:.2g}" for s in global_steps))
        if "normaliser_difference" in case:
            print("   normaliser difference (max abs, global vs reference):",
                  {k: f"{v:.3g}" for k, v in case["normaliser_difference"].items()})
            print("   token weight ratio reference / global per minibatch:",
                  [[round(x, 3) for x in s["token_weight_ratio"]] for s in global_steps],
                  "reference losses", [round(s["loss"], 4) for s in case["reference"]],
                  "global losses", [round(s["loss"], 4) for s in global_steps])
    # the clip, the dual clip and the KL act in the second minibatch of the large-rate case
    big = cases[1]["global"][1]
    assert big["clipped_tokens"]["low"] > 0 and big["clipped_tokens"]["high"] > 0, big["clipped_tokens"]
    assert big["clipped_tokens"]["dual"] > 0, big["clipped_tokens"]
    for c in cases:
        for s in c["global"] + c.get("reference", []):
            assert s["closest_ratio_to_a_kink"] > 1e-6, (c["name"], s["closest_ratio_to_a_kink"])
    fixture = {
        "generator": "mage-impl/train/src/test/python/make_reference_update_fixture.py",
        "torch": torch.__version__,
        "dtype": "float64",
        "model": {"vocab_size": VOCAB, "hidden_size": HIDDEN, "rms_norm_eps": RMS_EPS,
                  "trained": list(HF_NAMES.values())},
        "settings": {"mini_batch_turns": MINI_BATCH, "micro_batch_turns": MICRO_BATCH, "epochs": 1,
                     "clip_ratio_low": CLIP_LOW, "clip_ratio_high": CLIP_HIGH, "dual_clip": DUAL_CLIP,
                     "entropy_coefficient": ENTROPY_COEF, "kl_coefficient": KL_COEF, "beta1": BETAS[0],
                     "beta2": BETAS[1], "eps": ADAM_EPS, "weight_decay": WEIGHT_DECAY, "gradient_clip": GRAD_CLIP},
        "zero_advantage_rows": zero_rows,
        "zero_advantage_token_share": zero_tokens / all_tokens,
        "initial": {HF_NAMES[k]: v.reshape(-1).tolist() for k, v in initial.items()},
        "rows": rows,
        "cases": cases,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(fixture, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print("wrote", os.path.normpath(OUT), f"({os.path.getsize(OUT)} bytes); zero-advantage rows {zero_rows},"
          f" token share {zero_tokens / all_tokens:.3f}")


if __name__ == "__main__":
    main()
