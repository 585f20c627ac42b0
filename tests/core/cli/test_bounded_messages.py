"""Messages that name the real problem, in one short line: a bookmark's byte range outside its
file, a misspelt name among many long names, an AIFF header with negative bits."""

from __future__ import annotations

import struct
from types import SimpleNamespace

import pytest

from core.cli import main
from core.errors import ContainerError
from core.formats.entry import find_entry
from core.pipeline.pipeline import DecodeParams
from core.session.session_file import Bookmark, Session, capture_file, save_session
from core.text.names import closest_names, short_name


def test_a_bookmark_range_outside_its_file_is_an_error_naming_range_and_size(tmp_path, capsys):
    (tmp_path / "data.bin").write_bytes(bytes(256))
    session = str(tmp_path / "s.json")
    save_session(Session(files=(capture_file(str(tmp_path / "data.bin")),), params=DecodeParams(dtype="uint8"),
                         bookmarks=(Bookmark("far", "bytes", byte_range=(2**62, 2**62)),
                                    Bookmark("tail", "bytes", byte_range=(250, 10)))), session)
    assert main(["--session", session, "--bookmark", "far"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"error: bookmark 'far' marks bytes 4,611,686,018,427,387,904..9,223,372,036,854,775,807, but "
                   f"'{tmp_path / 'data.bin'}' has 256 bytes (bytes 0..255): the range is not in this file (the "
                   "bookmark was made for another file, or the file shrank: give the file it was made for)\n")
    assert main(["--session", session, "--bookmark", "tail"]) == 2
    assert capsys.readouterr().err.startswith("error: bookmark 'tail' marks bytes 250..259, but ")


def test_a_misspelt_name_among_1500_long_names_gets_a_short_line():
    names = [f"layer.{i}." + "w" * 20_000 for i in range(1500)]
    wanted = "layer.1499." + "w" * 19_999 + "x"
    close = closest_names(wanted, names)
    assert close[0] == names[1499] and len(close) == 5
    listing = SimpleNamespace(format="safetensors", path="m.safetensors",
                              entries=[SimpleNamespace(name=n) for n in names])
    with pytest.raises(ContainerError) as caught:
        find_entry(listing, wanted)
    message = caught.value.message
    assert len(message) < 1000
    assert message.startswith("the safetensors file 'm.safetensors' has no tensor named "
                              f"'layer.1499.{'w' * 29}…{'w' * 39}x (20,011 characters)' (closest: "
                              f"'layer.1499.{'w' * 29}…{'w' * 40} (20,011 characters)', ")


def test_short_name_keeps_short_names_and_escapes():
    assert short_name("peak") == "'peak'"
    assert short_name("a\nb") == "'a\\nb'"
    assert short_name("x" * 80) == "'" + "x" * 80 + "'"
    assert short_name("x" * 81) == "'" + "x" * 40 + "…" + "x" * 40 + " (81 characters)'"


def aiff(path, bits: int, channels: int = 2):
    comm = struct.pack(">hIh", channels, 4, bits) + bytes.fromhex("400EAC44000000000000")  # 44100 Hz
    ssnd = struct.pack(">II", 0, 0) + bytes(16)
    body = (b"AIFF" + b"COMM" + struct.pack(">I", len(comm)) + comm
            + b"SSND" + struct.pack(">I", len(ssnd)) + ssnd)
    path.write_bytes(b"FORM" + struct.pack(">I", len(body)) + body)
    return path


@pytest.mark.parametrize("options", [[], ["--dtype", "uint8"]])
def test_an_aiff_with_negative_bits_blames_its_header_not_length(tmp_path, capsys, options):
    path = aiff(tmp_path / "neg.aiff", -8)
    assert main([str(path), "--tensor", "samples", *options]) == 2
    assert capsys.readouterr().err == (
        "error: AIFF samples: the COMM chunk says 2 channels of -8 bits per sample (AIFF needs 1 or more "
        "channels of 1 to 64 bits: the file is corrupt; open its bytes with --offset 54 --dtype uint8)\n")
    assert main([str(path), "--offset", "54", "--dtype", "uint8"]) == 0


def test_an_aiff_with_negative_channels_lists_no_negative_byte_count(tmp_path, capsys):
    path = aiff(tmp_path / "negc.aiff", 16, channels=-2)
    assert main([str(path), "--list", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"nbytes": 0' in out and "-2 channels of 16 bits" in out
