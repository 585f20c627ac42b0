"""C source holding arrays (xxd -i output, firmware tables): every array an entry, its values the
initialiser's numbers parsed (never compiled); an embedded TFLite model says so."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from core import tensor
from core.errors import ContainerError
from core.formats.entry import Storage, find_entry
from core.formats.registry import list_file

TFLITE = Path(__file__).resolve().parent / "fixtures" / "tflite" / "quantized.tflite"

TABLE = r"""/* a lookup table */
#include <stdint.h>
static const int16_t sine_lut[8] = { 0, 23170, 32767, 23170, 0, -23170, -32767, -23170, };
const float gains[] = { 1.5f, -2e-3, .25, 3 };  // trailing comment
alignas(16) const unsigned char raw[6] = { 'a', 0xff, 017, '\n', '\x41' };
const uint32_t big[2] = { 4294967295u, 0x10 };
"""


def test_xxd_output_lists_the_model_and_gives_its_bytes(tmp_path):
    if shutil.which("xxd") is None:
        pytest.skip("needs xxd (apt-get install -y xxd)")
    model = tmp_path / "model.tflite"
    model.write_bytes(TFLITE.read_bytes())
    out = tmp_path / "model_data.cc"
    out.write_text(subprocess.run(["xxd", "-i", model.name], cwd=tmp_path, check=True, capture_output=True,
                                  text=True).stdout)
    listing = list_file(str(out))
    assert listing.format == "c-arrays" and listing.problems == ()
    entry = find_entry(listing, "model_tflite")
    assert (entry.dtype, entry.shape, entry.storage) == ("uint8", (model.stat().st_size,), Storage.COPY)
    assert "TFLite model" in entry.extras["holds"]
    np.testing.assert_array_equal(tensor(str(out), "model_tflite"), np.frombuffer(model.read_bytes(), np.uint8))


def test_typed_tables_are_their_c_values(tmp_path):
    path = tmp_path / "table.h"
    path.write_text(TABLE)
    listing = list_file(str(path))
    assert [(e.name, e.dtype, e.shape) for e in listing.entries] == [
        ("sine_lut", "int16", (8,)), ("gains", "float32", (4,)), ("raw", "uint8", (6,)), ("big", "uint32", (2,))]
    assert tensor(str(path), "sine_lut").tolist() == [0, 23170, 32767, 23170, 0, -23170, -32767, -23170]
    assert tensor(str(path), "gains").tolist() == [1.5, np.float32(-2e-3), 0.25, 3.0]
    assert tensor(str(path), "raw").tolist() == [97, 255, 15, 10, 65, 0]  # zero-filled to its size, as C does
    assert tensor(str(path), "big").tolist() == [4294967295, 16]
    assert find_entry(listing, "gains").extras["line"] == 4


@pytest.mark.parametrize(("text", "said"), [
    ("unsigned char a[] = { 1, 2, 3", "has no closing '}'"),
    ("unsigned char a[] = { 1, SIZE, 3 };", "value 1 is 'SIZE', not a number"),
    ("unsigned char a[] = { 1, 2 + 3 };", "value 1 is '2 + 3', not a number"),
    ("unsigned char a[2] = { 1, 2, 3 };", "3 values for 2 elements"),
    ("unsigned char a[] = { 1, 256 };", "the value 256 does not fit its type uint8"),
    ("unsigned char a[N] = { 1 };", "its size 'N' is not a number"),
    ("int16_t a[] = { 1,, 2 };", "nothing between two commas"),
])
def test_bad_initialisers_are_refused_on_their_entry(tmp_path, text, said):
    path = tmp_path / "bad.c"
    path.write_text(text + "\nunsigned char fine[] = { 7 };\n")
    listing = list_file(str(path))
    bad = find_entry(listing, "a")
    assert bad.problem is not None and said in bad.problem
    assert tensor(str(path), "fine").tolist() == [7]  # the other arrays stay usable
    with pytest.raises(ContainerError, match="cannot be|not|no closing|values|fit|size"):
        tensor(str(path), "a")


def test_plain_c_code_is_not_a_container(tmp_path):
    path = tmp_path / "main.c"
    path.write_text("int main(void) { return 0; }\n")
    assert list_file(str(path)) is None
