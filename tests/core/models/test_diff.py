"""Two whole models compared tensor by tensor (core.models.matching, core.models.diff)."""

from __future__ import annotations

import math
import os
import re

import numpy as np
import pytest
from safetensors import numpy as safetensors_numpy

from core.errors import CoreError
from core.models.diff import diff_pairs, first_divergent, ranked
from core.models.inventory import inventory
from core.models.matching import MatchRules, match_tensors, tensor_key
from core.pipeline.params import DecodeParams


def _save(path, tensors):
    safetensors_numpy.save_file(tensors, str(path))
    return path


def _diff(a, b, rules=None, params=None, **options):
    side_a, side_b = inventory([a], params), inventory([b], params)
    matching = match_tensors(side_a.tensors, side_b.tensors, rules)
    return matching, list(diff_pairs(matching, **options))


def test_statuses_figures_and_the_first_divergent_pair(tmp_path):
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = _save(tmp_path / "a.safetensors", {
        "0.same": w, "1.close": w + np.float32(1e-6), "2.off": w + np.float32(0.5),
        "3.cast": np.ones(3, np.float32), "4.shape": np.ones(6, np.float32), "5.onlyA": np.zeros(2, np.float32)})
    b = _save(tmp_path / "b.safetensors", {
        "0.same": w, "1.close": w, "2.off": w, "3.cast": np.ones(3, np.float16), "4.shape": np.ones((2, 3), np.float32),
        "6.onlyB": np.zeros(2, np.float32)})
    matching, diffs = _diff(a, b)
    status = {d.pair.key: d.status for d in diffs}
    assert status == {"0.same": "equal", "1.close": "close", "2.off": "differs", "3.cast": "dtype differs",
                      "4.shape": "shape differs", "5.onlyA": "only in A", "6.onlyB": "only in B"}
    off = next(d for d in diffs if d.pair.key == "2.off")
    assert off.result.mismatched == 12 and off.result.max_absolute.value == 0.5
    g = off.result.agreement
    wide, shifted = w.astype(np.float64).ravel(), w.astype(np.float64).ravel() + 0.5
    assert g.cosine == pytest.approx(shifted @ wide / math.sqrt((shifted @ shifted) * (wide @ wide)), rel=1e-12)
    assert g.pearson == pytest.approx(1.0, abs=1e-12)
    assert g.snr_db == pytest.approx(10 * math.log10((wide @ wide) / (12 * 0.25)), rel=1e-12)
    assert (g.quantile("median"), g.quantile("p99")) == (0.5, 0.5)
    reshaped = next(d for d in diffs if d.pair.key == "4.shape")
    assert reshaped.result.mismatched == 0 and "flat C order" in reshaped.reason
    assert first_divergent(diffs).pair.key == "2.off"
    assert [d.status for d in ranked(diffs)][:3] == ["differs", "shape differs", "only in A"]


def test_prefixes_are_removed_automatically_and_by_rule(tmp_path):
    a = _save(tmp_path / "a.safetensors", {"module.fc.weight": np.ones(2, np.float32), "module.fc.bias": np.zeros(1, np.float32)})
    b = _save(tmp_path / "b.safetensors", {"fc.weight": np.ones(2, np.float32), "fc.bias": np.zeros(1, np.float32)})
    matching, diffs = _diff(a, b)
    assert sorted(d.pair.key for d in diffs) == ["fc.bias", "fc.weight"] and all(d.status == "equal" for d in diffs)
    assert "removing the prefix 'module.' from A's names" in matching.notes[0]
    renamed = MatchRules(rename=((re.compile(r"^module\.fc\."), "fc."),))
    _matching, diffs = _diff(a, b, renamed)
    assert {d.status for d in diffs} == {"equal"}
    swapped = MatchRules(names={"fc.weight": "fc.bias", "fc.bias": "fc.weight"}, strip=("module.",))
    _matching, diffs = _diff(a, b, swapped)  # the map applies to the names after --strip
    assert {d.pair.key: d.status for d in diffs} == {"fc.bias": "shape differs", "fc.weight": "shape differs"}


def test_no_common_name_and_duplicates_are_refused_with_the_fix(tmp_path):
    a = _save(tmp_path / "a.safetensors", {"x": np.ones(2, np.float32)})
    b = _save(tmp_path / "b.safetensors", {"y": np.ones(2, np.float32)})
    with pytest.raises(CoreError, match="no tensor name in common.*--match order"):
        _diff(a, b)
    _matching, diffs = _diff(a, b, MatchRules(mode="order"))
    assert [(d.pair.a.name, d.pair.b.name, d.status) for d in diffs] == [("x", "y", "equal")]
    c = _save(tmp_path / "c.safetensors", {"p.x": np.ones(2, np.float32), "q.x": np.ones(2, np.float32)})
    with pytest.raises(CoreError, match="two tensors of A have the name 'x'"):
        _diff(c, a, MatchRules(strip=("p.", "q.")))


def test_match_by_shape_pairs_in_order(tmp_path):
    a = _save(tmp_path / "a.safetensors", {"a1": np.ones((2, 3), np.float32), "a2": np.ones(4, np.float32)})
    b = _save(tmp_path / "b.safetensors", {"b1": np.ones(4, np.float32), "b2": np.ones((2, 3), np.float32)})
    _matching, diffs = _diff(a, b, MatchRules(mode="shape"))
    assert sorted((d.pair.a.name, d.pair.b.name) for d in diffs) == [("a1", "b2"), ("a2", "b1")]


def test_empty_all_nan_and_broadcast_only_pairs(tmp_path):
    nan = np.full(4, np.nan, np.float32)
    a = _save(tmp_path / "a.safetensors", {"empty": np.zeros((0, 3), np.float32), "nan": nan, "bias": np.ones(3, np.float32)})
    b = _save(tmp_path / "b.safetensors", {"empty": np.zeros((0, 3), np.float32), "nan": nan, "bias": np.ones((2, 3), np.float32)})
    _matching, diffs = _diff(a, b)
    by = {d.pair.key: d for d in diffs}
    assert by["empty"].status == "equal" and by["empty"].result.compared == 0
    assert by["empty"].result.agreement.cosine is None
    assert by["nan"].status == "equal"  # NaN matches NaN by default
    g = by["nan"].result.agreement
    assert (g.pairs, g.cosine, g.snr_db, g.quantile("median")) == (0, None, None, None)
    assert by["bias"].status == "shape differs" and by["bias"].result is None  # broadcasting is no match
    assert "3 elements against 6" in by["bias"].reason


def test_dump_folders_of_different_formats_match_by_file_name(tmp_path):
    (tmp_path / "port").mkdir()
    (tmp_path / "golden").mkdir()
    for i in (1, 2, 10):
        x = np.full(5, i, np.float32)
        np.save(tmp_path / "golden" / f"layer{i}.npy", x)
        (x + np.float32(i == 2)).tofile(tmp_path / "port" / f"layer{i}.bin")
    params = DecodeParams(dtype="float32")
    side_a = inventory([tmp_path / "port"], params)
    side_b = inventory([tmp_path / "golden"], params)
    assert [tensor_key(t) for t in side_a.tensors] == ["layer1", "layer2", "layer10"]
    diffs = list(diff_pairs(match_tensors(side_a.tensors, side_b.tensors)))
    assert [(d.pair.key, d.status) for d in diffs] == [("layer1", "equal"), ("layer2", "differs"), ("layer10", "equal")]
    assert first_divergent(diffs).pair.key == "layer2"


def test_an_unreadable_tensor_is_an_error_pair_and_the_rest_is_compared(tmp_path):
    a = _save(tmp_path / "a.safetensors", {"a": np.ones(1 << 12, np.float32), "z": np.ones(1 << 12, np.float32)})
    b = _save(tmp_path / "b.safetensors", {"a": np.ones(1 << 12, np.float32), "z": np.ones(1 << 12, np.float32)})
    side_a, side_b = inventory([a]), inventory([b])
    with open(a, "r+b") as file:
        file.truncate(os.path.getsize(a) - (1 << 13))  # z loses its values
    diffs = list(diff_pairs(match_tensors(side_a.tensors, side_b.tensors)))
    by = {d.pair.key: d for d in diffs}
    assert by["z"].status == "error" and by["z"].reason
    assert by["a"].status in ("equal", "error")


def test_tolerances_apply_to_every_pair(tmp_path):
    a = _save(tmp_path / "a.safetensors", {"w": np.ones(8, np.float32) + np.float32(1e-3)})
    b = _save(tmp_path / "b.safetensors", {"w": np.ones(8, np.float32)})
    assert _diff(a, b)[1][0].status == "differs"
    assert _diff(a, b, atol=2e-3)[1][0].status == "close"


def test_a_quantized_checkpoint_against_its_float_values_compares_the_dequantized_values(tmp_path):
    # quantized_values.pt: qtensors written by torch; expected: torch's own dequantize() of each
    fixtures = os.path.join(os.path.dirname(__file__), "..", "formats", "fixtures", "pytorch")
    with np.load(os.path.join(fixtures, "quantized_values.expected.npz")) as saved:
        names = [str(n) for n in saved["names"]]
        floats = {n: np.ascontiguousarray(saved[f"real{i}"].astype(np.float32)) for i, n in enumerate(names)}
    reference = _save(tmp_path / "float.safetensors", floats)
    floats_off = dict(floats)
    floats_off[names[0]] = floats[names[0]] + np.float32(1.0)
    shifted = _save(tmp_path / "shifted.safetensors", floats_off)
    matching, diffs = _diff(os.path.join(fixtures, "quantized_values.pt"), reference)
    by = {d.pair.key: d for d in diffs}
    for name in names:
        assert by[name].status == "equal", (name, by[name].status, by[name].reason)
        assert "dequantized values are compared" in by[name].reason
    assert not any(key.endswith("(dequantized)") for key in by)  # folded into their pairs
    _matching, diffs = _diff(os.path.join(fixtures, "quantized_values.pt"), shifted)
    assert {d.pair.key: d.status for d in diffs}[names[0]] == "differs"


def _many_pairs(tmp_path, count=12):
    rng = np.random.default_rng(3)
    a, b = {}, {}
    for i in range(count):
        values = rng.normal(0, 1, 500 + 37 * i).astype(np.float32)
        a[f"t{i:02d}"] = values
        b[f"t{i:02d}"] = values + np.float32(0.25) * (i % 3 == 0)  # every third pair differs
    return _save(tmp_path / "a.safetensors", a), _save(tmp_path / "b.safetensors", b)


def _figures(d):
    r = d.result
    return (d.pair.key, d.status, r.mismatched, r.max_absolute.value, r.rms, r.agreement.cosine, r.agreement.snr_db)


def test_pairs_side_by_side_give_the_pairs_in_order_with_the_figures_of_one_at_a_time(tmp_path, monkeypatch):
    import core.models.diff as diff_module

    a, b = _many_pairs(tmp_path)
    matching = match_tensors(inventory([a]).tensors, inventory([b]).tensors)
    alone = [_figures(d) for d in diff_pairs(matching, workers=1)]
    assert [key for key, *_ in alone] == [f"t{i:02d}" for i in range(12)]
    assert [status for _key, status, *_ in alone] == ["differs", "equal", "equal"] * 4
    assert alone[0][2] == 500 and alone[0][3] == pytest.approx(0.25, rel=1e-6)  # 0.25 added in float32
    seen = []
    side_by_side = [_figures(d) for d in diff_pairs(matching, progress=lambda done, total: seen.append((done, total)))]
    assert side_by_side == alone
    total = sum(500 + 37 * i for i in range(12))
    assert seen[-1] == (total, total) and all(x[0] <= y[0] for x, y in zip(seen, seen[1:]))
    monkeypatch.setattr(diff_module, "BIG_PAIR", 700)  # pairs from t06 on: alone, on every core
    assert [_figures(d) for d in diff_pairs(matching)] == alone


def test_cancel_stops_the_model_diff_between_pairs_and_blocks(tmp_path):
    from core.errors import Cancelled

    a, b = _many_pairs(tmp_path)
    matching = match_tensors(inventory([a]).tensors, inventory([b]).tensors)
    calls = []
    got = []
    with pytest.raises(Cancelled):
        for d in diff_pairs(matching, cancelled=lambda: len(calls) > 5 or calls.append(1)):
            got.append(d.pair.key)
    assert len(got) < 12


def test_the_opener_keeps_the_last_few_idle_containers_open(tmp_path):
    from core.models import opening

    paths = [_save(tmp_path / f"m{i}.safetensors", {"x": np.full(3, i, np.float32)}) for i in range(opening.KEEP_IDLE + 2)]
    tensors = [inventory([p]).tensors[0] for p in paths]
    opener = opening.TensorOpener()
    first = opener.open(tensors[0])
    pipeline = opener._open[str(tensors[0].path)][0]
    opener.close(first)
    again = opener.open(tensors[0])  # the same open container, not a new one
    assert opener._open[str(tensors[0].path)][0] is pipeline and again.view.tolist() == [0.0, 0.0, 0.0]
    opener.close(again)
    for tensor in tensors[1:]:
        opener.close(opener.open(tensor))
    assert len(opener._idle) == opening.KEEP_IDLE and str(tensors[0].path) not in opener._idle  # the oldest closed
    opener.close_all()
    assert not opener._idle and not opener._open
