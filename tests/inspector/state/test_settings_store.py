"""SettingsStore: start-up files, display choices, recent files and keys by real path; stale or
corrupt values fall back to the defaults."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from core.pipeline.pipeline import DecodeParams
from inspector.state.settings_store import SettingsStore


@pytest.fixture
def ini(tmp_path):
    return str(tmp_path / "settings.ini")


def store(ini):
    return SettingsStore(QSettings(ini, QSettings.IniFormat))


def test_defaults(ini):
    settings = store(ini)
    assert settings.reopen_last_files() is True
    assert settings.sample_shown() is False
    assert settings.last_files() == []
    assert settings.display_options() == {"format": None, "decimals": None, "heat_map": None, "plot_line_axis": None}


def test_values_survive_a_restart_through_an_ini_file(ini, tmp_path):
    data = tmp_path / "a.bin"
    data.write_bytes(b"1")
    first = store(ini)
    first.set_reopen_last_files(False)
    first.set_sample_shown()
    first.set_last_files([str(data)])
    first.set_display_options("hex", 4, True, 2)
    first.qsettings.sync()
    second = store(ini)  # INI gives bools and ints back as text
    assert second.reopen_last_files() is False
    assert second.sample_shown() is True
    assert second.last_files() == [str(data)]
    assert second.display_options() == {"format": "hex", "decimals": 4, "heat_map": True, "plot_line_axis": 2}
    second.set_display_options("auto", 6, False, None)
    assert second.display_options()["plot_line_axis"] == "image"


@pytest.mark.parametrize("garbage", ["", "maybe", "-3", "1e9", "x" * 100, "9" * 30])
def test_corrupt_values_fall_back(ini, garbage):
    settings = store(ini)
    for key in ("startup/reopen_last_files", "startup/sample_shown", "view/table_format", "view/decimals",
                "view/heat_map", "view/plot_mode"):
        settings.qsettings.setValue(key, garbage)
    assert settings.reopen_last_files() is True
    assert settings.sample_shown() is False
    options = settings.display_options()
    assert options["decimals"] in (None, -3)  # "-3" is an int; the panel ignores it (out of range)
    assert options["plot_line_axis"] is None
    # a short unknown format name is kept: the table panel ignores names it does not offer
    assert options["format"] == (garbage if 0 < len(garbage) < 32 else None)
    assert options["heat_map"] is False  # stored but not a flag: off


def test_recent_files_by_real_path_without_deleted_files(ini, tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(b"1")
    b.write_bytes(b"2")
    link = tmp_path / "link.bin"
    link.symlink_to(a)
    settings = store(ini)
    settings.add_recent_file(str(a))
    settings.add_recent_file(str(b))
    settings.add_recent_file(str(link))  # the same file as a: replaces its entry
    assert settings.recent_files() == [str(link), str(b)]
    b.unlink()
    assert settings.recent_files() == [str(link)]


def test_decode_settings_are_found_through_a_link(ini, tmp_path):
    data = tmp_path / "data.bin"
    data.write_bytes(b"12")
    link = tmp_path / "link.bin"
    link.symlink_to(data)
    settings = store(ini)
    settings.set_decode_settings((str(data),), DecodeParams(dtype="int16"), "[0]")
    assert settings.decode_settings((str(link),)) == (DecodeParams(dtype="int16"), "[0]")


def test_decode_settings_keep_a_strided_entrys_strides(ini, tmp_path):
    data = tmp_path / "model.bin"
    data.write_bytes(bytes(24))
    params = DecodeParams(dtype="int16", offset=0, length=24, shape=(4, 3), strides=(1, 4))
    store(ini).set_decode_settings((str(data),), params, "")
    assert store(ini).decode_settings((str(data),)) == (params, "")


def test_a_batch_of_4_million_strings_is_not_remembered_and_a_huge_old_line_is_dropped(ini, tmp_path):
    # Issue 30 item 19: one 4-million-string TFRecord stored a 55 MB settings line that every
    # later start parsed. Over MAX_REMEMBERED_ELEMENTS ranges nothing is stored for the file.
    from inspector.state import settings_store

    data = tmp_path / "strings.tfrecord"
    data.write_bytes(b"x")
    paths = (str(data),)
    settings = store(ini)
    small = DecodeParams(dtype="uint8", elements=((16, 4), (36, 4)))
    assert settings.set_decode_settings(paths, small, "1:") is True
    assert settings.decode_settings(paths) == (small, "1:")  # ranges come back as DecodeParams takes them
    many = DecodeParams(dtype="uint8", elements=tuple((16 + 20 * i, 4) for i in range(settings_store.MAX_REMEMBERED_ELEMENTS + 1)))
    assert settings.set_decode_settings(paths, many, "") is False
    assert settings.decode_settings(paths) is None  # the older, small value went too
    settings.set_last_directory(str(tmp_path))
    settings.qsettings.sync()
    with open(ini, encoding="utf-8") as stream:
        assert len(stream.read()) < 1000
    # A line written by an older version (no cap) is ignored and removed when read.
    key = settings._key(paths)
    settings.qsettings.setValue(key, '{"params": {"dtype": "uint8"}, "slice": "' + " " * settings_store.MAX_SETTING_CHARS + '"}')
    assert settings.decode_settings(paths) is None
    assert settings.qsettings.value(key) is None
