"""The Comparison state: one owner of B and the compare settings, driven without widgets."""

from __future__ import annotations

import numpy as np
import pytest

from core.pipeline.pipeline import DecodeParams
from inspector.state.comparison import Comparison
from inspector.state.document import Document


@pytest.fixture
def comparison(qtbot):
    document = Document()
    yield Comparison(document)
    document.close_files()


def write(path, values) -> str:
    np.asarray(values).tofile(path)
    return str(path)


def wait_for_outcome(qtbot, comparison):
    qtbot.waitUntil(lambda: not comparison.is_running and (comparison.result is not None or comparison.error is not None))


def test_b_broadcasts_against_a_and_index_b_follows_numpys_rule(qtbot, comparison, tmp_path):
    a = np.arange(10, dtype=np.float32).reshape(2, 5)
    b = np.array([0, 1, 2, 3, 4], np.float32)  # row 0 of A: row 1 differs everywhere (by 5)
    comparison.document.open_files([write(tmp_path / "a.bin", a)], DecodeParams(dtype="float32", shape=(2, 5)))
    assert comparison.open_b([write(tmp_path / "b.bin", b)], {"shape": (5,)})
    wait_for_outcome(qtbot, comparison)
    result = comparison.result
    assert result.summary() == "Mismatched elements: 5 / 10 (50%)"
    assert result.notes == ("broadcast: A (2, 5) and B (5,) compared as (2, 5) (numpy's rule)",)
    assert comparison.same_shape
    assert comparison.index_b((1, 3)) == (3,)
    assert comparison.bytes_of_b((3,)) == (str(tmp_path / "b.bin"), 12, 4)


def test_refused_settings_are_reported_not_raised(qtbot, comparison, tmp_path):
    comparison.document.open_files([write(tmp_path / "a.bin", np.zeros(4, np.float32))], DecodeParams(dtype="float32"))
    comparison.open_b([write(tmp_path / "b.bin", np.zeros(4, np.float32))])
    wait_for_outcome(qtbot, comparison)
    assert comparison.result.equal
    comparison.update_settings(ulp=2, rtol=1e-3)
    assert comparison.error.message == "Compare: give either a ULP tolerance or rtol/atol, not both (drop one of them)"
    assert comparison.result is None
    comparison.update_settings(rtol=None)
    wait_for_outcome(qtbot, comparison)
    assert comparison.error is None and comparison.result.rules.ulp == 2
    with pytest.raises(ValueError, match="unknown quantity 'diff'"):
        comparison.set_quantity("diff")
    with pytest.raises(TypeError):
        comparison.set_b_overrides({"colour": "red"})


def test_a_different_shape_is_a_message(qtbot, comparison, tmp_path):
    comparison.document.open_files([write(tmp_path / "a.bin", np.zeros(4, np.float32))], DecodeParams(dtype="float32"))
    comparison.open_b([write(tmp_path / "b.bin", np.zeros(3, np.float32))])
    wait_for_outcome(qtbot, comparison)
    assert comparison.error.message.startswith("Compare: A has shape (4,) and B has shape (3,): they neither match nor broadcast")


def test_closing_b_clears_the_result(qtbot, comparison, tmp_path):
    comparison.document.open_files([write(tmp_path / "a.bin", np.ones(3, np.float32))], DecodeParams(dtype="float32"))
    comparison.open_b([write(tmp_path / "b.bin", np.ones(3, np.float32))])
    wait_for_outcome(qtbot, comparison)
    comparison.close_b()
    assert comparison.result is None and not comparison.is_open and comparison.paths == ()


def test_a_comparison_over_the_work_limit_is_a_message_not_a_run(qtbot, comparison, tmp_path):
    # A (2**20, 1) against B (2**20,) broadcast to 2**40 pairs: refused before anything is read
    comparison.document.open_files([write(tmp_path / "a.bin", np.zeros(1 << 20, np.float32))],
                                   DecodeParams(dtype="float32", shape=(1 << 20, 1)))
    comparison.open_b([write(tmp_path / "b.bin", np.zeros(1 << 20, np.float32))], {"shape": (1 << 20,)})
    assert not comparison.is_running and comparison.result is None
    assert comparison.error.message == (
        "Compare: comparing 1,099,511,627,776 element pairs (4.0 TiB read from A, 4.0 TiB from B) is above "
        "the limit of 2,147,483,648 pairs of one comparison (compare a slice: type one in the Slice box, B "
        "gets the same one; tensor-inspect diff --no-limit compares it all)")
