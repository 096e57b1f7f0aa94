#!/usr/bin/env python3
"""Writes an AdamW trajectory computed by PyTorch, for AdamWTorchFixtureTest (the tests never run Python).

Output: ../resources/adamw/torch-adamw-trajectory.json with the settings, the initial float64 parameters, the
gradient fed at every step, and after every step the gradient norm torch.nn.utils.clip_grad_norm_ reported and the
parameters and moments torch.optim.AdamW left behind.

What runs per step, as the reference trainer does it: gradients are set, clip_grad_norm_(max_norm=clip) scales them
(the norm it returns is the one before clipping), AdamW steps, and a LambdaLR schedule moves the learning rate to
lr * min(1, (t + 1) / warmup) for the next step t + 1 (so step t, counted from 1, uses lr * min(1, t / warmup)).
The gradients are chosen so that some steps clip and none has a norm within 1e-6 of the clip (where torch's
clip_coef = clip / (norm + 1e-6) < 1 but norm <= clip).

Run with Debian's python3-torch: /usr/bin/python3 make_adamw_fixture.py
"""
import json
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "resources", "adamw", "torch-adamw-trajectory.json")

LR = 0.01
BETAS = (0.9, 0.999)
EPS = 1e-8
WEIGHT_DECAY = 0.1
CLIP = 1.0
WARMUP = 3
STEPS = 7
SHAPES = {"w": [2, 3], "b": [4]}
# scale of each step's gradients: the large ones are clipped
SCALES = [0.2, 1.5, 0.05, 4.0, 0.3, 0.0, 2.5]


def gradient(name, shape, step):
    n = math.prod(shape)
    offset = 0.0 if name == "w" else 10.0
    return [SCALES[step] * math.sin(1.3 * (i + offset) + 0.7 * (step + 1)) for i in range(n)]


def main():
    torch.set_default_dtype(torch.float64)
    params = {}
    initial = {}
    for name, shape in SHAPES.items():
        n = math.prod(shape)
        values = [0.5 * math.cos(0.9 * i + (0.0 if name == "w" else 3.0)) for i in range(n)]
        initial[name] = values
        params[name] = torch.tensor(values, dtype=torch.float64).reshape(shape).requires_grad_(True)
    names = list(SHAPES)
    opt = torch.optim.AdamW([params[k] for k in names], lr=LR, betas=BETAS, eps=EPS, weight_decay=WEIGHT_DECAY,
                            foreach=False)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / WARMUP))
    steps = []
    for t in range(STEPS):
        grads = {}
        for k in names:
            g = gradient(k, SHAPES[k], t)
            grads[k] = g
            params[k].grad = torch.tensor(g, dtype=torch.float64).reshape(SHAPES[k])
        lr_used = opt.param_groups[0]["lr"]
        norm = float(torch.nn.utils.clip_grad_norm_([params[k] for k in names], max_norm=CLIP))
        assert abs(norm - CLIP) > 1e-5, norm
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=False)
        steps.append({
            "gradients": grads,
            "learning_rate": lr_used,
            "grad_norm": norm,
            "clipped": norm > CLIP,
            "parameters": {k: params[k].detach().reshape(-1).tolist() for k in names},
            "exp_avg": {k: opt.state[params[k]]["exp_avg"].reshape(-1).tolist() for k in names},
            "exp_avg_sq": {k: opt.state[params[k]]["exp_avg_sq"].reshape(-1).tolist() for k in names},
        })
    out = {
        "torch_version": torch.__version__,
        "config": {"learning_rate": LR, "beta1": BETAS[0], "beta2": BETAS[1], "eps": EPS,
                   "weight_decay": WEIGHT_DECAY, "gradient_clip": CLIP, "warmup_steps": WARMUP},
        "shapes": SHAPES,
        "initial": initial,
        "steps": steps,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
