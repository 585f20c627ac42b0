"""ml_dtypes is imported on first need (core.dtypes.ml_types): checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

_PROBE = r"""
import json, sys
import numpy as np
from core import DecodeParams, Pipeline, decode_raw
from core.dtypes.table import type_row
from core.scan.statistics import compute_statistics
from core.text.number_format import format_value

path = sys.argv[1]
np.arange(8, dtype="<f4").tofile(path)
row = type_row("bfloat16")
facts = [row.itemsize, row.stored_bits, row.numpy_code, row.packed, type_row("float8_e5m2").stored_size]
with Pipeline(path) as p:
    view = p.run(DecodeParams(dtype="float32", record_size=16)).view
    stats = compute_statistics(view)
texts = [format_value(v, view.dtype) for v in view[1]]
before = "ml_dtypes" in sys.modules
half = decode_raw(b"\x3f\x80\x40\x40", "bfloat16", little_endian=False)
print(json.dumps(dict(before=before, after="ml_dtypes" in sys.modules, facts=facts, texts=texts,
                      max=stats.max, bf16=[half.dtype.name, [float(x) for x in half]])))
"""


def test_float32_work_never_imports_ml_dtypes_and_bfloat16_imports_it_on_first_use(tmp_path):
    out = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path / "x.bin")], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    # The table knows bfloat16's facts without ml_dtypes; float32 decode, statistics and
    # formatting do not need it.
    assert result["facts"] == [2, 16, "ml_dtypes.bfloat16", False, 1]
    assert result["texts"] == ["4.0", "5.0", "6.0", "7.0"] and result["max"] == 7.0
    assert result["before"] is False
    # 3f 80 / 40 40 big-endian: bfloat16 1.0 and 3.0
    assert result["after"] is True and result["bf16"] == ["bfloat16", [1.0, 3.0]]


def test_a_type_the_installed_ml_dtypes_lacks_is_refused_with_an_upgrade_message():
    import pytest

    from core.dtypes import table
    from core.errors import DecodeError

    row = table._beyond_tf_row("float8_e9m9", "float8_e9m9", "float")  # as float8_e5m3fnu on 0.5
    assert (row.itemsize, row.stored_bits, row.from_ml_dtypes) == (1, 8, True)
    with pytest.raises(DecodeError, match=r"float8_e9m9 is not in the installed ml_dtypes .* "
                       r"\(upgrade it: pip install -U ml_dtypes\)") as caught:
        row.dtype
    assert caught.value.field == "dtype"


def test_needs_ml_dtypes_import_names_the_types_that_import_it(monkeypatch):
    import core.dtypes.table as table

    monkeypatch.setattr(table, "loaded_ml_dtypes", lambda: None)  # as at start-up
    assert [table.needs_ml_dtypes_import(t) for t in ("bfloat16", "float8_e4m3fn", "float32", "int4", None,
                                                      "no such type")] == [True, True, False, False, False, False]
    monkeypatch.setattr(table, "loaded_ml_dtypes", lambda: object())  # imported already
    assert table.needs_ml_dtypes_import("bfloat16") is False
