"""The order of a model's tensors: a container's own, except where it is only the string order
of the names (safetensors), which is taken in natural order so the first divergent layer is the
first layer."""

from __future__ import annotations

import numpy as np
from safetensors.numpy import save_file

from core.models.diff import diff_pairs, first_divergent
from core.models.inventory import inventory
from core.models.matching import match_tensors


def test_safetensors_tensors_come_in_natural_order_and_the_first_divergent_is_the_first_layer(tmp_path):
    values = {f"layers.{i}.weight": np.full(4, i, np.float32) for i in (1, 2, 10, 11)}
    save_file(values, str(tmp_path / "a.safetensors"))
    changed = {name: value + (1 if name != "layers.1.weight" else 0) for name, value in values.items()}
    save_file(changed, str(tmp_path / "b.safetensors"))
    a, b = inventory([tmp_path / "a.safetensors"]), inventory([tmp_path / "b.safetensors"])
    assert [t.name for t in a.tensors] == ["layers.1.weight", "layers.2.weight", "layers.10.weight",
                                           "layers.11.weight"]  # the file stores 1, 10, 11, 2
    assert [e.name for e in a.containers[0].entries][:2] == ["layers.1.weight", "layers.10.weight"]
    first = first_divergent(list(diff_pairs(match_tensors(a.tensors, b.tensors))))
    assert first.pair.key == "layers.2.weight" and first.index == 1


def test_a_numpy_archive_keeps_its_own_order(tmp_path):
    np.savez(tmp_path / "m.npz", **{"z": np.zeros(2), "layer10": np.ones(2), "layer2": np.ones(2)})
    assert [t.name for t in inventory([tmp_path / "m.npz"]).tensors] == ["z", "layer10", "layer2"]
