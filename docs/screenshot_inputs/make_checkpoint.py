"""Write ``lightning.ckpt``, the PyTorch checkpoint of the README's screenshot (``pytorch.png``).

Run once in a scratch environment with PyTorch (the screenshots and the suite never import it):

    python3 -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch==2.13.0 numpy
    /tmp/torchvenv/bin/python docs/screenshot_inputs/make_checkpoint.py

Written by ``torch.save`` (PyTorch 2.13.0) in the layout PyTorch Lightning's
``Trainer.save_checkpoint`` gives it: ``epoch``, ``global_step``, the model's ``state_dict`` (a
tied ``lm_head.weight``, which shares its bytes with ``encoder.embed.weight``) and Adam's
``optimizer_states``.
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    torch.manual_seed(1)
    y, x = torch.meshgrid(torch.arange(48.0), torch.arange(64.0), indexing="ij")
    embed = torch.sin(x / 6) * torch.cos(y / 9) + 0.05 * torch.randn(48, 64)
    state = OrderedDict()
    state["encoder.embed.weight"] = embed
    for layer in range(2):
        prefix = f"encoder.layers.{layer}"
        state[f"{prefix}.attn.qkv.weight"] = (torch.randn(192, 64) / math.sqrt(64)).to(torch.bfloat16)
        state[f"{prefix}.attn.qkv.bias"] = torch.zeros(192)
        state[f"{prefix}.mlp.up.weight"] = torch.randn(256, 64) / 8
        state[f"{prefix}.mlp.down.weight"] = (torch.randn(256, 64) / 16).t()  # saved transposed: strides
        state[f"{prefix}.norm.weight"] = torch.ones(64, dtype=torch.float16)
    state["lm_head.weight"] = embed  # tied to the embedding
    params = [t for n, t in state.items() if n != "lm_head.weight"]
    optimizer = {"state": {i: {"step": torch.tensor(4800.0), "exp_avg": torch.zeros_like(p, dtype=torch.float32),
                               "exp_avg_sq": torch.full(p.shape, 1e-4)} for i, p in enumerate(params[:3])},
                 "param_groups": [{"lr": 3e-4, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01,
                                   "params": list(range(len(params)))}]}
    checkpoint = {"epoch": 12, "global_step": 4800, "pytorch-lightning_version": "2.4.0",
                  "state_dict": state, "optimizer_states": [optimizer], "lr_schedulers": []}
    torch.save(checkpoint, os.path.join(HERE, "lightning.ckpt"))
    with open(os.path.join(HERE, "versions.txt"), "w", encoding="utf-8") as file:
        file.write(f"torch {torch.__version__}\n")


if __name__ == "__main__":
    main()
