"""Hostile PyTorch checkpoints, written by hand with pickle opcodes (no torch): payloads that
would run code never run (a file they would create is never created), and every bomb, lie and
broken zip gives one message naming the file and the problem, in bounded time."""

from __future__ import annotations

import io
import os
import pickle
import struct
import time
import zipfile

import pytest

import core
from core.cli import main
from core.errors import ContainerError
from core.formats import pytorch_pickle
from core.formats.entry import find_entry
from core.formats.registry import list_file


# ------------------------------------------------------------------ writing pickles by hand
def glob(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def text(value: str) -> bytes:
    raw = value.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


def integer(value: int) -> bytes:
    if 0 <= value < 2**31:
        return b"J" + struct.pack("<i", value)
    raw = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(raw)]) + raw


def ints(values) -> bytes:
    return b"(" + b"".join(integer(v) for v in values) + b"t"


def storage(key: str = "0", numel: int = 4, cls: bytes = glob("torch", "FloatStorage")) -> bytes:
    return b"((" + text("storage") + cls + text(key) + text("cpu") + integer(numel) + b"tQ"


def tensor(key: str = "0", numel: int = 4, offset: int = 0, size=(4,), stride=(1,),
           cls: bytes | None = None) -> bytes:
    """A ``_rebuild_tensor_v2`` record as torch.save writes it."""
    record = storage(key, numel, cls) if cls is not None else storage(key, numel)
    return (glob("torch._utils", "_rebuild_tensor_v2") + record
            + integer(offset) + ints(size) + ints(stride) + b"\x89"
            + glob("collections", "OrderedDict") + b")R" + b"tR")


def dict_of(**values: bytes) -> bytes:
    return b"\x80\x02}(" + b"".join(text(k) + v for k, v in values.items()) + b"u."


def checkpoint(tmp_path, pickled: bytes, storages: dict[str, bytes] | None = None,
               name: str = "hostile.pt", compressed: tuple[str, ...] = ()) -> str:
    """A torch.save-shaped zip: ``archive/data.pkl`` first, then byteorder and the storages."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("archive/data.pkl", pickled,
                         zipfile.ZIP_DEFLATED if "data.pkl" in compressed else zipfile.ZIP_STORED)
        archive.writestr("archive/byteorder", b"little")
        for key, data in (storages if storages is not None else {"0": bytes(16)}).items():
            archive.writestr(f"archive/data/{key}", data,
                             zipfile.ZIP_DEFLATED if key in compressed else zipfile.ZIP_STORED)
    path = tmp_path / name
    path.write_bytes(out.getvalue())
    return str(path)


GOOD = tensor()


def test_a_good_hand_written_checkpoint_opens(tmp_path):
    path = checkpoint(tmp_path, dict_of(w=GOOD), {"0": struct.pack("<4f", 1, 2, 3, 4)})
    assert core.tensor(path, "w").tolist() == [1, 2, 3, 4]


# ------------------------------------------------------------------ code that would run
class _Payload:
    """What an attacker pickles: ``__reduce__`` calls os.system when unpickled."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        return os.system, (self.command,)


@pytest.mark.parametrize("how", ["pickle.dumps", "by hand", "eval", "under another name",
                                 "subprocess", "top level"])
def test_code_in_the_pickle_never_runs(tmp_path, how):
    target = tmp_path / "pwned"
    command = f"touch {target}"
    if how == "pickle.dumps":  # the classic payload, as pickle itself writes it (never loaded)
        pickled = pickle.dumps({"w": None, "evil": _Payload(command)}, protocol=2)
        expected_type = f"{os.system.__module__}.system"
    elif how == "by hand":
        pickled = dict_of(w=GOOD, evil=glob("os", "system") + b"(" + text(command) + b"tR")
        expected_type = "os.system"
    elif how == "eval":
        pickled = dict_of(w=GOOD, evil=glob("builtins", "eval") + b"(" + text(
            f"__import__('os').system('{command}')") + b"tR")
        expected_type = "builtins.eval"
    elif how == "under another name":  # posix.system is os.system
        pickled = dict_of(w=GOOD, evil=glob("posix", "system") + b"(" + text(command) + b"tR")
        expected_type = "posix.system"
    elif how == "subprocess":
        pickled = dict_of(w=GOOD, evil=glob("subprocess", "check_call") + b"((" + text("touch")
                          + text(str(target)) + b"ltR")
        expected_type = "subprocess.check_call"
    else:
        pickled = b"\x80\x02" + glob("os", "system") + b"(" + text(command) + b"tR."
        expected_type = "os.system"
    path = checkpoint(tmp_path, pickled)
    listing = list_file(path)
    evil = find_entry(listing, "object" if how == "top level" else "evil")
    assert evil.stored_type == expected_type and not evil.readable
    assert "never built (this tool never runs the pickle)" in evil.problem
    assert main([path, "--list", "--json"]) == 0
    assert main([path, "--tensor", evil.name]) == 2
    assert not target.exists()


def test_build_on_arbitrary_objects_and_setstate_never_run(tmp_path):
    target = tmp_path / "pwned"
    evil_state = (b"}(" + text("__setstate__") + glob("os", "system") + text("cmd") + glob("os", "system")
                  + b"(" + text(f"touch {target}") + b"tRu")
    pickled = dict_of(
        w=GOOD + evil_state + b"b",                                   # BUILD on a tensor: ignored
        obj=glob("__main__", "Evil") + b")\x81" + evil_state + b"b",  # NEWOBJ + BUILD: opaque
        d=b"}" + evil_state + b"b",                                   # BUILD on a dict: ignored
        n=integer(5) + evil_state + b"b")                             # BUILD on an int: ignored
    listing = list_file(checkpoint(tmp_path, pickled))
    names = {e.name: e for e in listing.entries}
    assert names["w"].mappable
    assert names["obj/cmd"].stored_type == "os.system"  # the object's state is walked, never run
    assert sorted(names) == ["obj/cmd", "w"]
    assert not target.exists()


@pytest.mark.parametrize("pid, problem", [
    (b"(" + text("storage") + glob("os", "system") + text("0") + text("cpu") + integer(4) + b"tQ",
     "its storage type os.system is not a torch storage class"),
    (text("touch /tmp/x") + b"Q", "its storage is not torch's storage record"),
    (b"P" + b"storage 0\n", "its storage is not torch's storage record"),
    (storage("../../etc/passwd")[1:], "its storage member 'archive/data/../../etc/passwd' is not in the zip"),
    (storage("0", 2**63)[1:], "its storage record says 9223372036854775808 elements"),
    (storage("0", 5)[1:], "its storage record says 5 elements of 4 bytes, but its member 'archive/data/0' holds 16 bytes"),
])
def test_persistent_id_games(tmp_path, pid, problem):
    record = (glob("torch._utils", "_rebuild_tensor_v2") + b"(" + pid + integer(0) + ints((4,))
              + ints((1,)) + b"\x89" + glob("collections", "OrderedDict") + b")RtR")
    listing = list_file(checkpoint(tmp_path, dict_of(w=record, ok=GOOD)))
    entry = find_entry(listing, "w")
    assert problem in entry.problem and not entry.readable
    assert find_entry(listing, "ok").mappable


# ------------------------------------------------------------------ bombs and lies
def _refused(tmp_path, pickled: bytes, message: str, seconds: float = 20.0) -> None:
    path = checkpoint(tmp_path, pickled)
    start = time.perf_counter()
    with pytest.raises(ContainerError, match=message) as raised:
        list_file(path)
    assert time.perf_counter() - start < seconds
    assert str(raised.value).startswith(f"the pytorch file '{path}': its archive/data.pkl cannot be read: ")


def test_a_memo_bomb_is_refused(tmp_path):
    count = pytorch_pickle.MAX_MEMO + 1
    pickled = b"\x80\x02N" + b"".join(b"r" + struct.pack("<I", i) for i in range(count)) + b"."
    _refused(tmp_path, pickled, "memoizes more than 1,000,000 values")


def test_a_stack_bomb_is_refused(tmp_path):
    _refused(tmp_path, b"\x80\x02" + b"N" * (pytorch_pickle.MAX_STACK + 2) + b".",
             "stack holds more than 1,000,000 values")


def test_ten_million_opcodes_are_refused(tmp_path):
    limit = pytorch_pickle.opcode_limit()
    assert limit == 10**7
    _refused(tmp_path, b"\x80\x02" + b"N0" * (limit // 2) + b"N.", "more than 10,000,000 opcodes")


def test_marks_nested_without_end_are_refused(tmp_path):
    _refused(tmp_path, b"\x80\x02" + b"(" * (pytorch_pickle.MAX_MARKS + 1) + b".", "marks nested more than")


@pytest.mark.parametrize("pickled, message", [
    (b"\x80\x02}(" + text("w"), "without a STOP opcode"),
    (b"\x80\x02\xff.", "0xff, which is no pickle opcode"),
    (b"\x80\x02X\xff\xff\xff\x7f.", "reaches past the end of the pickle"),
    (b"\x80\x02\x8b\x00\x00\x01\x00" + bytes(65536) + b".", "an integer of 65536 bytes"),
    (b"\x80\x02\x8d" + struct.pack("<Q", 2**63) + b".", "a length of 9223372036854775808 bytes"),
    (b"\x80\x02h\x07.", "memo entry 7, which was never stored"),
    (b"\x80\x02u.", "needs a MARK"),
    (b"\x80\x02R.", "pops an empty stack"),
])
def test_broken_pickles_are_one_message(tmp_path, pickled, message):
    _refused(tmp_path, pickled, message)


def test_shared_containers_referring_to_each_other_stop_the_walk(tmp_path):
    # L0 = [tensor]; Lk = [Lk-1, Lk-1]: 2**40 paths from 200 bytes of pickle
    pickled = b"\x80\x02]" + GOOD + b"aq\x00"
    for level in range(1, 41):
        pickled += b"]h" + bytes([level - 1]) + b"ah" + bytes([level - 1]) + b"aq" + bytes([level])
    start = time.perf_counter()
    listing = list_file(checkpoint(tmp_path, pickled + b"."))
    assert time.perf_counter() - start < 5
    assert any("a memo bomb" in p for p in listing.problems)


def test_deep_nesting_is_cut_with_a_problem_entry(tmp_path):
    depth = 5000  # lists inside lists, ending in a tensor
    pickled = b"\x80\x02" + b"]" * depth + GOOD + b"a" * depth + b"."
    listing = list_file(checkpoint(tmp_path, pickled))
    (entry,) = listing.entries
    assert "nested more than 100 levels deep" in entry.problem


def test_a_list_containing_itself_lists_in_bounded_time(tmp_path):
    pickled = b"\x80\x02]q\x00h\x00a" + GOOD + b"a."
    listing = list_file(checkpoint(tmp_path, pickled))  # [itself, tensor]: one tensor per level
    names = [e.name for e in listing.entries]
    assert names[0] == "/".join(["0"] * 101) and "nested more than 100" in listing.entries[0].problem
    assert "1" in names and "0/1" in names and len(names) == 102


@pytest.mark.parametrize("offset, size, stride, problem", [
    (0, (2**63,), (1,), "are not sizes"),
    (2**63, (4,), (1,), "are not sizes"),
    (0, (4,), (-1,), "are not sizes"),
    (0, (4,), (1, 1), "are not sizes"),
    (2, (4,), (1,), "reaches element 6 of its storage member 'archive/data/0', which holds 4 elements"),
    (0, (2, 3), (3, 2), "reaches element 8"),
    (0, (2**31, 2**31), (1, 1), "reaches element 4294967295"),
])
def test_views_past_their_storage_are_problems(tmp_path, offset, size, stride, problem):
    record = tensor(offset=offset, size=size, stride=stride)
    entry = find_entry(list_file(checkpoint(tmp_path, dict_of(w=record))), "w")
    assert problem in entry.problem and not entry.readable


def test_compressed_members_are_refused(tmp_path):
    path = checkpoint(tmp_path, dict_of(w=GOOD, v=tensor("1")), {"0": bytes(16), "1": bytes(16)},
                      compressed=("1",))
    listing = list_file(path)
    assert find_entry(listing, "w").mappable
    assert "it is compressed (zip method 8)" in find_entry(listing, "v").problem
    with pytest.raises(ContainerError, match="its archive/data.pkl is compressed"):
        list_file(checkpoint(tmp_path, dict_of(w=GOOD), compressed=("data.pkl",), name="c.pt"))


def _directory_entries(data: bytes):
    """(offset of each central directory entry's header-offset field, its value)."""
    found, pos = [], data.find(b"PK\x01\x02")
    while pos >= 0:
        found.append((pos + 42, struct.unpack_from("<I", data, pos + 42)[0]))
        pos = data.find(b"PK\x01\x02", pos + 4)
    return found


def test_overlapping_zip_members_are_problems(tmp_path):
    path = checkpoint(tmp_path, dict_of(w=GOOD, v=tensor("1")), {"0": bytes(16), "1": bytes(16)})
    data = bytearray(open(path, "rb").read())
    fields = _directory_entries(bytes(data))
    # member data/1's directory entry points at data/0's local header: two members, one range
    struct.pack_into("<I", data, fields[3][0], fields[2][1])
    with open(path, "wb") as out:
        out.write(data)
    listing = list_file(path)
    for name in ("w", "v"):
        assert "overlap another member of the zip" in find_entry(listing, name).problem


def test_a_zip_without_data_pkl_and_the_legacy_magic_are_one_message(tmp_path, capsys):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("archive/byteorder", b"little")
    path = tmp_path / "no_pickle.pt"
    path.write_bytes(out.getvalue())
    with pytest.raises(ContainerError, match="without a '<folder>/data.pkl' member"):
        list_file(str(path))
    legacy = tmp_path / "legacy.pt"
    legacy.write_bytes(b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19." + b"\xff" * 100)
    assert main([str(legacy), "--list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "legacy format" in err and "Traceback" not in err
