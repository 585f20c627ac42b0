"""Hex dumps written by the real tools (xxd, hexdump -C, od from the system) read back as the
bytes dumped, squeezed runs ('*') included; damaged dumps refused naming the line."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from core import tensor
from core.errors import ContainerError
from core.formats.hex_dump import dump_bytes
from core.formats.registry import list_file

DATA = b"hello tensor world\x00\x01\x02\xff" + bytes(100) + b"\x10" * 64 + bytes(range(256)) + b"end"
TOOLS = {"xxd": ["xxd"], "hexdump -C": ["hexdump", "-C"], "od": ["od", "-Ax", "-tx1"], "xxd -g1": ["xxd", "-g1"]}


@pytest.mark.parametrize("tool", list(TOOLS))
def test_a_dump_by_the_real_tool_is_the_bytes_dumped(tmp_path, tool):
    command = TOOLS[tool]
    if shutil.which(command[0]) is None:
        pytest.skip(f"needs {command[0]}")
    source = tmp_path / "data.bin"
    source.write_bytes(DATA)
    dump = tmp_path / "data.txt"
    dump.write_text(subprocess.run([*command, str(source)], check=True, capture_output=True, text=True).stdout)
    listing = list_file(str(dump))
    assert listing.format == "hex-dump" and listing.entries[0].shape == (len(DATA),)
    assert listing.metadata["dialect"] == tool.split(" -g")[0]
    assert tensor(str(dump), "bytes").tobytes() == DATA


def test_squeezed_runs_repeat_the_line_before():
    text = ("00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n"
            "00000040  41 42                                             |AB|\n00000042\n")
    data, dialect = dump_bytes(text)
    assert dialect == "hexdump -C" and data.tobytes() == bytes(64) + b"AB"


@pytest.mark.parametrize(("text", "said"), [
    ("00000000: 4142  AB\n00000004: 4344  CD\n", "starts at offset 0x4, but the lines before it end at 0x2"),
    ("00000000  41 42 |AB|\nnot a line\n", "line 2 of the hexdump -C dump is not a line of it"),
    ("000000 41 42\n000002 43\n000009\n", "says the dump is 9 bytes, but its lines hold 3"),
    ("00000000  41 42 |AB|\n*\n", r"ends with a '\*' line"),
])
def test_a_damaged_dump_is_refused_naming_the_line(tmp_path, text, said):
    with pytest.raises(ContainerError, match=said):
        dump_bytes(text)
    path = tmp_path / "bad.txt"
    path.write_text(text)
    assert said.replace("\\", "") in list_file(str(path)).entries[0].problem


def test_text_is_not_a_dump(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("00000000 is a number I like\n")
    assert list_file(str(path)) is None
    assert np.array_equal(dump_bytes("000000 ff\n000001\n")[0], [255])
