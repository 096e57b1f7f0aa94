"""Writes the PyTorch reference fixture that PpoLossTorchFixtureTest compares PpoLoss against.

The reference policy loss of MAGE (verl's core_algos.compute_policy_loss with dual clip, agg_loss, the entropy bonus
and kl_penalty "low_var_kl", combined the way dp_actor.update_policy combines them) is restated below in torch, in
float64, on seeded random inputs. Each case stores the inputs, the loss, d loss / d log_probs (and d loss / d
entropies when the entropy bonus is on) from torch autograd, and the diagnostics as PpoLoss defines them.

Two changes to the reference are deliberate and are the contract of the Java loss (docs/gigpo.md, "The policy
loss"):
  * the aggregation divides by an explicit normalizer (the whole minibatch's token or sequence count) instead of
    the micro-batch's own count, so micro-batches add up; with normalizer = the micro-batch's own count it is the
    reference's masked_mean / agg_loss exactly;
  * seq-mean-token-mean gives a sequence without response tokens a mean of 0 instead of 0/0.
Masked positions hold finite random values here (the reference multiplies by the mask, which cannot hide infinite
values); the Java test overwrites them with inf/NaN and expects the same numbers.

Run from the repository root (needs torch; any version with float64 autograd):
    python3 mage-gigpo/src/test/python/make_ppo_loss_fixture.py
It rewrites mage-gigpo/src/test/resources/ppo_loss_fixture.json. The Java tests never call Python.
"""
import json
import math
import os

import torch

torch.set_default_dtype(torch.float64)
OUT = os.path.join(os.path.dirname(__file__), "..", "resources", "ppo_loss_fixture.json")


# ---- the reference, restated (verl core_algos.py / dp_actor.py) ----

def masked_sum(values, mask, axis=None):
    return (values * mask).sum() if axis is None else (values * mask).sum(dim=axis)


def agg_loss(loss_mat, loss_mask, loss_agg_mode, normalizer):
    if loss_agg_mode == "token-mean":
        # reference: masked_mean(loss_mat, loss_mask) = masked_sum / loss_mask.sum()
        return masked_sum(loss_mat, loss_mask) / normalizer
    if loss_agg_mode == "seq-mean-token-mean":
        # reference: (sum(loss_mat * mask, -1) / sum(mask, -1)).mean()
        tokens = loss_mask.sum(dim=-1)
        seq_losses = masked_sum(loss_mat, loss_mask, -1) / tokens.clamp(min=1)
        return seq_losses.sum() / normalizer
    raise ValueError(loss_agg_mode)


def compute_policy_loss(old_log_prob, log_prob, advantages, response_mask, cliprange_low, cliprange_high,
                        clip_ratio_c, loss_agg_mode, normalizer):
    assert clip_ratio_c > 1.0
    negative_approx_kl = log_prob - old_log_prob
    ratio = torch.exp(negative_approx_kl)
    ppo_kl = agg_loss(-negative_approx_kl, response_mask, loss_agg_mode, normalizer)

    pg_losses1 = -advantages * ratio
    pg_losses2 = -advantages * torch.clamp(ratio, 1 - cliprange_low, 1 + cliprange_high)
    clip_pg_losses1 = torch.maximum(pg_losses1, pg_losses2)
    pg_losses3 = -advantages * clip_ratio_c
    clip_pg_losses2 = torch.min(pg_losses3, clip_pg_losses1)
    pg_losses = torch.where(advantages < 0, clip_pg_losses2, clip_pg_losses1)
    pg_loss = agg_loss(pg_losses, response_mask, loss_agg_mode, normalizer)

    # the reference's two clip metrics (token means over the micro-batch) ...
    pg_clipfrac = (torch.gt(pg_losses2, pg_losses1).double() * response_mask).sum() / response_mask.sum()
    pg_clipfrac_lower = (torch.gt(clip_pg_losses1, pg_losses3).double() * (advantages < 0).double()
                         * response_mask).sum() / response_mask.sum()
    # ... and PpoLoss's split of them, aggregated like the loss
    clipped = torch.gt(pg_losses2, pg_losses1)
    low = agg_loss((clipped & (advantages < 0)).double(), response_mask, loss_agg_mode, normalizer)
    high = agg_loss((clipped & (advantages > 0)).double(), response_mask, loss_agg_mode, normalizer)
    dual = agg_loss((torch.gt(clip_pg_losses1, pg_losses3) & (advantages < 0)).double(), response_mask,
                    loss_agg_mode, normalizer)
    return pg_loss, ppo_kl, low, high, dual, pg_clipfrac, pg_clipfrac_lower


def kl_penalty_low_var_kl(logprob, ref_logprob):
    kl = ref_logprob - logprob
    ratio = torch.exp(kl)
    kld = (ratio - kl - 1).contiguous()
    return torch.clamp(kld, min=-10, max=10)


def policy_loss(case, log_prob, entropy):
    """dp_actor.update_policy: pg_loss - entropy_coeff * entropy_loss + kl_loss_coef * kl_loss."""
    mask = case["mask"]
    adv = case["advantages"]
    if adv.dim() == 1:
        adv = adv.unsqueeze(-1).expand_as(log_prob)
    mode = case["mode"]
    n = case["normalizer"]
    pg_loss, ppo_kl, low, high, dual, clipfrac, clipfrac_lower = compute_policy_loss(
        case["old_log_probs"], log_prob, adv, mask, case["clip_low"], case["clip_high"], case["dual_clip"], mode, n)
    loss = pg_loss
    diag = {"pg_loss": pg_loss.item(), "clipfrac_low": low.item(), "clipfrac_high": high.item(),
            "clipfrac_dual": dual.item(), "ppo_kl": ppo_kl.item()}
    if entropy is not None:
        entropy_loss = agg_loss(entropy, mask, mode, n)
        diag["entropy"] = entropy_loss.item()
        if case["entropy_coef"] != 0:
            loss = loss - entropy_loss * case["entropy_coef"]
    if case["ref_log_probs"] is not None:
        kld = kl_penalty_low_var_kl(log_prob, case["ref_log_probs"])
        kl_loss = agg_loss(kld, mask, mode, n)
        diag["kl_loss"] = kl_loss.item()
        if case["kl_coef"] != 0:
            loss = loss + kl_loss * case["kl_coef"]
    diag["loss"] = loss.item()
    diag["tokens"] = int(mask.sum().item())
    diag["sequences"] = int((mask.sum(dim=-1) > 0).sum().item())
    return loss, diag, (clipfrac.item(), clipfrac_lower.item(), low.item(), high.item(), dual.item())


# ---- seeded inputs ----

def make_inputs(seed, b, t, per_token_adv, dual_clip, clip_high):
    g = torch.Generator().manual_seed(seed)

    def rand(*shape):
        return torch.rand(*shape, generator=g)

    def randn(*shape):
        return torch.randn(*shape, generator=g)

    old = -rand(b, t) * 3 - 0.05
    # log-ratios from five regions, each well away from the kinks 1 - 0.2, 1 + clip_high and dual_clip
    kind = torch.randint(0, 5, (b, t), generator=g)
    small = (randn(b, t) * 0.05).clamp(-0.15, 0.15)                    # inside the clip range
    below = -0.5 - rand(b, t)                                          # ratio 0.22 .. 0.61
    above = 0.35 + rand(b, t) * 0.4                                    # ratio 1.42 .. 2.12
    huge = math.log(dual_clip) + 0.2 + rand(b, t) * 2                  # beyond the dual clip
    tiny = -4 - rand(b, t) * 4                                         # ratio ~ 0.0003 .. 0.02
    log_ratio = torch.where(kind == 0, small, torch.where(kind == 1, below, torch.where(
        kind == 2, above, torch.where(kind == 3, huge, tiny))))
    log_prob = old + log_ratio
    for kink in (math.log(0.8), math.log(1 + clip_high), math.log(dual_clip)):
        assert (log_ratio - kink).abs().min() > 1e-4, "a log-ratio lies on a kink; change the seed"

    # response lengths: one empty row, one full row, one row with a hole, the rest random
    lengths = torch.randint(1, t + 1, (b,), generator=g)
    lengths[1] = 0
    lengths[2] = t
    mask = (torch.arange(t).unsqueeze(0) < lengths.unsqueeze(1)).double()
    mask[2, t // 2] = 0.0

    if per_token_adv:
        advantages = randn(b, t) * 1.5
        advantages[0, :] = 0.0
    else:
        advantages = randn(b) * 1.5
        advantages[0] = 0.0                                            # A = 0 exactly: no loss, no gradient
        advantages[2] = abs(advantages[2].item()) + 0.1                # both signs present
        advantages[3] = -abs(advantages[3].item()) - 0.1

    ref = log_prob + (randn(b, t) * 0.4).clamp(-1.5, 1.5)
    ref[2, 0] = log_prob[2, 0] + 5.0                                   # k3 = e^5 - 6 > 10: clamped
    ref[2, 1] = log_prob[2, 1] - 15.0                                  # k3 = e^-15 + 14 > 10: clamped
    entropy = rand(b, t) * 3
    return {"log_probs": log_prob, "old_log_probs": old, "ref_log_probs": ref, "advantages": advantages,
            "mask": mask, "entropies": entropy}


CASES = [
    # name, seed, B, T, mode, clip_low, clip_high, dual_clip, entropy_coef (None: no entropies), kl_coef (None: no
    # reference log-probs), per-token advantages, extra units in the normalizer (another micro-batch's share)
    ("token_mean_reference_defaults", 11, 6, 9, "token-mean", 0.2, 0.2, 3.0, 0.001, 0.1, False, 0),
    ("seq_mean_token_mean_reference_defaults", 12, 6, 9, "seq-mean-token-mean", 0.2, 0.2, 3.0, 0.001, 0.1, False, 0),
    ("token_mean_per_token_advantages_asymmetric_clip", 53, 5, 8, "token-mean", 0.2, 0.28, 5.0, 0.01, None, True, 0),
    ("token_mean_micro_batch_share_no_entropy", 14, 7, 10, "token-mean", 0.2, 0.2, 3.0, None, 0.1, False, 17),
    ("seq_mean_micro_batch_share_pg_only", 15, 7, 10, "seq-mean-token-mean", 0.1, 0.3, 4.0, None, None, False, 3),
    ("token_mean_strong_coefficients", 16, 6, 12, "token-mean", 0.2, 0.2, 3.0, 0.5, 2.0, False, 0),
    ("token_mean_entropies_measured_not_weighted", 17, 5, 6, "token-mean", 0.2, 0.2, 3.0, 0.0, 0.0, False, 0),
]


def tolist(x):
    return None if x is None else x.tolist()


def main():
    cases = []
    for (name, seed, b, t, mode, clip_low, clip_high, dual_clip, entropy_coef, kl_coef, per_token, extra) in CASES:
        inputs = make_inputs(seed, b, t, per_token, dual_clip, clip_high)
        mask = inputs["mask"]
        units = mask.sum().item() if mode == "token-mean" else (mask.sum(dim=-1) > 0).sum().item()
        case = dict(inputs)
        case.update({"mode": mode, "clip_low": clip_low, "clip_high": clip_high, "dual_clip": dual_clip,
                     "entropy_coef": entropy_coef or 0.0, "kl_coef": kl_coef or 0.0,
                     "normalizer": float(units + extra)})
        if entropy_coef is None:
            case["entropies"] = None
        if kl_coef is None:
            case["ref_log_probs"] = None

        log_prob = inputs["log_probs"].clone().requires_grad_(True)
        entropy = None if case["entropies"] is None else case["entropies"].clone().requires_grad_(True)
        loss, diag, metrics = policy_loss(case, log_prob, entropy)
        loss.backward()
        grad_entropy = None
        if entropy is not None and case["entropy_coef"] != 0:
            grad_entropy = entropy.grad
        assert torch.isfinite(log_prob.grad).all()
        assert (log_prob.grad[mask == 0] == 0).all()

        clipfrac, clipfrac_lower, low, high, dual = metrics
        if mode == "token-mean" and extra == 0:
            # with the micro-batch's own count, the split adds up to the reference's metrics
            assert abs(clipfrac - (low + high)) < 1e-15, (clipfrac, low, high)
            assert abs(clipfrac_lower - dual) < 1e-15, (clipfrac_lower, dual)
        assert low > 0 and high > 0 and dual > 0, name

        cases.append({
            "name": name,
            "aggregation": "TOKEN_MEAN" if mode == "token-mean" else "SEQ_MEAN_TOKEN_MEAN",
            "clip_ratio_low": clip_low, "clip_ratio_high": clip_high, "dual_clip": dual_clip,
            "entropy_coefficient": case["entropy_coef"], "kl_coefficient": case["kl_coef"],
            "normalizer": case["normalizer"],
            "log_probs": tolist(inputs["log_probs"]), "old_log_probs": tolist(inputs["old_log_probs"]),
            "ref_log_probs": tolist(case["ref_log_probs"]), "advantages": tolist(inputs["advantages"]),
            "mask": tolist(mask), "entropies": tolist(case["entropies"]),
            "expected": {"grad_log_probs": tolist(log_prob.grad), "grad_entropies": tolist(grad_entropy), **diag},
        })
        print(f"{name}: loss={diag['loss']:.12f} tokens={diag['tokens']} sequences={diag['sequences']} "
              f"clip low/high/dual={diag['clipfrac_low']:.4f}/{diag['clipfrac_high']:.4f}/"
              f"{diag['clipfrac_dual']:.4f}")

    fixture = {
        "generator": "mage-gigpo/src/test/python/make_ppo_loss_fixture.py",
        "torch": torch.__version__,
        "dtype": "float64",
        "cases": cases,
    }
    with open(OUT, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")
    print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
