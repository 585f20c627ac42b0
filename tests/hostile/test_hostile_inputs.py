"""Issue #10: a catalogue of hostile files and inputs, each with the behaviour the user gets.

Every entry of :data:`CATALOGUE` goes through the engine (``Pipeline(paths).run(...)``) and the
headless command (``core.cli.main`` in-process for all of them, ``python -m core`` in a
subprocess for a representative few): the expected error class, the field the GUI shows it
next to, and the exact message; or, for inputs that must *work* (an empty file, a 1 TiB sparse
file, a path with spaces and non-ASCII characters), what is decoded. The GUI goes through the
same catalogue in ``tests/hostile/test_hostile_gui.py``, and ``docs/bad_inputs.md`` lists it.

Files changed while open (truncated, replaced, deleted) are exercised in a subprocess: reading a
memory map past a shrunk file's end raises SIGBUS, which would kill pytest itself; in a child it
shows as a negative return code.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import core.budget
from core import (
    BudgetError,
    CoreError,
    DecodeError,
    DecodeParams,
    Pipeline,
    ShapeError,
    SliceError,
    SourceError,
    parse_slice,
)
from core.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
TIB = 1 << 40
DEFAULT_BUDGET = 2 * 1024**3
ALLOWED = ("half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, complex128, "
           "bool, bfloat16")
NOT_REGULAR = ("not a regular file; it is not opened because reading it could block or never "
               "end (save the data to a regular file first)")
ITEM_HINT = "(an item is an integer, start:stop[:step], ..., or tf.newaxis)"


# ------------------------------------------------------------------------------------- files
def raw(name: str, data: bytes) -> Callable[[Path], list[str]]:
    def make(folder: Path) -> list[str]:
        path = folder / name
        path.write_bytes(data)
        return [str(path)]
    return make


def missing(folder: Path) -> list[str]:
    return [str(folder / "missing.bin")]


def directory(folder: Path) -> list[str]:
    (folder / "a folder").mkdir()
    return [str(folder / "a folder")]


def fifo(folder: Path) -> list[str]:
    os.mkfifo(folder / "pipe")
    return [str(folder / "pipe")]


def device(path: str) -> Callable[[Path], list[str]]:
    return lambda folder: [path]


def sparse_tib(folder: Path) -> list[str]:
    """A 1 TiB sparse file (a few KiB on disk) with float32 markers in records 0 and 200,000,000."""
    path = folder / "sparse.bin"
    with open(path, "wb") as out:
        out.write(np.array([1.5, 2.5], "<f4").tobytes())
        out.seek(200_000_000 * 4096 + 8)
        out.write(np.array([-7.25], "<f4").tobytes())
        out.truncate(TIB)
    return [str(path)]


def npy_with_header(name: str, header: str, data: bytes = b"\0" * 16) -> Callable[[Path], list[str]]:
    """A version 1.0 .npy file with a hand-written header dict."""
    def make(folder: Path) -> list[str]:
        text = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        path = folder / name
        path.write_bytes(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little")
                         + text.encode("latin1") + data)
        return [str(path)]
    return make


class Evil:
    """Unpickling this runs ``touch <marker>``: the engine must never unpickle."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch '{self.marker}'",))


def npy_object(folder: Path) -> list[str]:
    path = folder / "objects.npy"
    array = np.empty(2, dtype=object)
    array[0] = Evil(str(folder / "UNPICKLED"))
    array[1] = "x"
    np.save(path, array, allow_pickle=True)
    assert b"system" in path.read_bytes()  # the pickle really is in there
    return [str(path)]


def cut_npy(folder: Path) -> list[str]:
    """Magic, version 1.0, a header length of 1000 bytes, and only 20 bytes after it."""
    path = folder / "cut.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00" + (1000).to_bytes(2, "little") + b"{'descr': '<f4'" + b" " * 5)
    return [str(path)]


# --------------------------------------------------------------------------------- catalogue
@dataclass(frozen=True)
class BadInput:
    """One hostile input and what the user must get.

    ``message`` may contain ``{0}`` for the first path (as given). ``error`` None means the input
    must work; ``shape`` / ``first`` then describe the decoded view.
    """

    id: str
    files: Callable[[Path], list[str]]
    params: dict = field(default_factory=dict)
    slice_text: str | None = None
    error: type | None = None
    field: str | None = None
    message: str = ""
    shape: tuple[int, ...] | None = None
    first: object = None
    subprocess: bool = False  # also run `python -m core` in a subprocess

    def text(self, paths: list[str]) -> str:
        return self.message.format(*paths)

    def cli_args(self, paths: list[str]) -> list[str]:
        """The same request as command-line options."""
        args = list(paths)
        options = {"dtype": "--dtype", "offset": "--offset", "record_size": "--record-size",
                   "fixed_length": "--fixed-length", "shape": "--shape", "view_as": "--view-as"}
        for name, value in self.params.items():
            if name == "little_endian":
                args.append("--little-endian" if value else "--big-endian")
            else:
                args.append(f"{options[name]}={value}")
        if self.slice_text is not None:
            args.append(f"--slice={self.slice_text}")
        return args


CODE = "__import__('os').system('touch /tmp/tensor_inspector_pwned')"
PWNED = Path("/tmp/tensor_inspector_pwned")

CATALOGUE = [
    BadInput("missing file", missing, error=SourceError, field="files",
             message="'{0}' does not exist (check the path)", subprocess=True),
    BadInput("directory", directory, error=SourceError, field="files",
             message="'{0}' is a directory, not a file (choose a file inside it)"),
    BadInput("/dev/zero", device("/dev/zero"), error=SourceError, field="files",
             message="'{0}' is a character device, " + NOT_REGULAR, subprocess=True),
    BadInput("/dev/null", device("/dev/null"), error=SourceError, field="files",
             message="'{0}' is a character device, " + NOT_REGULAR),
    BadInput("FIFO", fifo, error=SourceError, field="files",
             message="'{0}' is a named pipe (FIFO), " + NOT_REGULAR, subprocess=True),
    BadInput("empty file", raw("empty.bin", b""), shape=(0,)),
    BadInput("empty file as float32", raw("empty.bin", b""), {"dtype": "float32"}, shape=(0,)),
    BadInput("empty file with records", raw("empty.bin", b""), {"record_size": 4},
             error=SourceError, field="record_size",
             message="record_size 4 is larger than the 0 bytes of data in '{0}' after offset 0 "
                     "(there is nothing to split into records: choose a smaller offset, no "
                     "record size, or another file)"),
    BadInput("1-byte file as float32", raw("one.bin", b"\x01"), {"dtype": "float32"},
             error=DecodeError, field="fixed_length",
             message="Input to DecodeRaw has length 1 that is not a multiple of 4, the size of "
                     "float (choose a record size or fixed_length that is a multiple of 4)"),
    BadInput("size not a multiple of the type", raw("five.bin", b"12345"), {"dtype": "int32"},
             error=DecodeError, field="fixed_length",
             message="Input to DecodeRaw has length 5 that is not a multiple of 4, the size of "
                     "int32 (choose a record size or fixed_length that is a multiple of 4)"),
    BadInput("record size not a multiple of the type", raw("twelve.bin", bytes(12)),
             {"dtype": "int32", "record_size": 6}, error=DecodeError, field="record_size",
             message="Input to DecodeRaw has length 6 that is not a multiple of 4, the size of "
                     "int32 (choose a record size or fixed_length that is a multiple of 4)"),
    BadInput("offset past the end", raw("three.bin", b"abc"), {"offset": 4},
             error=SourceError, field="offset",
             message="offset 4 is past the end of '{0}' (3 bytes) (use an offset of at most 3)"),
    BadInput("offset negative", raw("three.bin", b"abc"), {"offset": -1},
             error=SourceError, field="offset",
             message="offset -1 is negative (use 0 or more bytes to skip)"),
    BadInput("offset that cuts a value in two", raw("eight.bin", bytes(8)),
             {"dtype": "int16", "offset": 1}, error=DecodeError, field="offset",
             message="Input to DecodeRaw has length 7 that is not a multiple of 2, the size of "
                     "int16 (the header offset 1 leaves 7 of the file's 8 bytes: choose a header "
                     "offset that leaves a multiple of 2 bytes, e.g. 0 or 2)"),
    BadInput("record size 0", raw("twelve.bin", bytes(12)), {"record_size": 0},
             error=SourceError, field="record_size",
             message="record_size 0 must be greater than zero (use the number of bytes in one "
                     "record, or no record size)"),
    BadInput("record size negative", raw("twelve.bin", bytes(12)), {"record_size": -8},
             error=SourceError, field="record_size",
             message="record_size -8 must be greater than zero (use the number of bytes in one "
                     "record, or no record size)"),
    BadInput("record size larger than the file", raw("twelve.bin", bytes(12)),
             {"record_size": 16}, error=SourceError, field="record_size",
             message="record_size 16 is larger than the 12 bytes of data in '{0}' after offset "
                     "0 (use a record size of at most 12, or a smaller offset)"),
    BadInput("fixed_length 0", raw("twelve.bin", bytes(12)), {"dtype": "int16", "fixed_length": 0},
             error=DecodeError, field="fixed_length",
             message="fixed_length (0) must be greater than zero. (use a positive multiple of 2, "
                     "or no fixed_length)"),
    BadInput("fixed_length negative", raw("twelve.bin", bytes(12)),
             {"dtype": "int16", "fixed_length": -4}, error=DecodeError, field="fixed_length",
             message="fixed_length (-4) must be greater than zero. (use a positive multiple of 2, "
                     "or no fixed_length)"),
    BadInput("fixed_length not a multiple", raw("twelve.bin", bytes(12)),
             {"dtype": "int16", "fixed_length": 3}, error=DecodeError, field="fixed_length",
             message="fixed_length (3) must be a multiple of the size of out_type (2) (choose a "
                     "fixed_length that is a multiple of 2, e.g. 2)"),
    BadInput("fixed_length absurd (2**40)", raw("twelve.bin", bytes(12)),
             {"fixed_length": 2**40}, error=DecodeError, field="fixed_length",
             message="fixed_length (1099511627776) does not fit TensorFlow's 32-bit fixed_length "
                     "attribute (use at most 2147483647 bytes, or no fixed_length)", subprocess=True),
    BadInput("fixed_length above the budget (3 x 2**30)", raw("twelve.bin", bytes(12)),
             {"fixed_length": 2**30, "record_size": 4}, error=BudgetError, field="fixed_length",
             message="padding to fixed_length 1073741824 would copy 3.0 GiB, above the 2.0 "
                     "GiB copy budget (choose a smaller fixed_length, or raise the budget with "
                     "TENSOR_INSPECTOR_COPY_BUDGET)"),
    BadInput("unknown dtype", raw("twelve.bin", bytes(12)), {"dtype": "float33"},
             error=DecodeError, field="dtype",
             message=f"Value for attr 'out_type' of float33 is not in the list of allowed values: "
                     f"{ALLOWED} (choose one of the allowed types, or a type beyond TF: uint32, "
                     "uint64, float8_e4m3fn, float8_e5m2 and the other float8 types, int4, uint4, "
                     "int24, uint24)"),
    BadInput("shape that does not fit", raw("twelve.bin", bytes(12)), {"shape": "5,-1"},
             error=ShapeError, field="shape",
             message="Input to reshape is a tensor with 12 values, but the requested shape "
                     "requires a multiple of 5 (the dimensions must multiply to 12: choose sizes "
                     "among its divisors 1, 2, 3, 4, 6, 12, or -1 for one dimension)"),
    BadInput("shape beyond int64", raw("twelve.bin", bytes(12)), {"shape": "99999999999999999999,0"},
             error=ShapeError, field="shape",
             message="in shape '99999999999999999999,0', dimension 1 ('99999999999999999999') "
                     "does not fit in int64 (write dimensions as integers separated by commas, "
                     "e.g. 4,-1,3)"),
    BadInput("1 TiB sparse file", sparse_tib, {"dtype": "float32", "record_size": 4096},
             shape=(268_435_456, 1024), first=1.5, subprocess=True),
    BadInput("path with spaces and non-ASCII", raw("dump ü 日本 (1).bin",
                                                   np.arange(4, dtype="<f4").tobytes()),
             {"dtype": "float32"}, shape=(4,), first=0.0, subprocess=True),
    BadInput(".npy with an absurd shape", npy_with_header(
                 "absurd.npy", "{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1099511627776, 1099511627776), }"),
             error=SourceError, field="files",
             message="'{0}' is not a usable .npy file: its header promises (1099511627776, "
                     "1099511627776) float32 values (4835703278458516698824704 bytes from byte "
                     "128) but the file has only 16 bytes of data (the file is truncated or its "
                     "shape is corrupt; open it as raw bytes with an explicit offset to look at it)"),
    BadInput(".npy with an unknown dtype", npy_with_header(
                 "unknown.npy", "{'descr': '<f3', 'fortran_order': False, 'shape': (4,), }"),
             error=SourceError, field="files",
             message="'{0}' is not a usable .npy file: its dtype '<f3' is not a supported numeric "
                     "type (supported: float16/32/64, int8-64, uint8-64, complex64/128, bool)"),
    BadInput(".npy holding pickled objects", npy_object, error=SourceError, field="files",
             message="'{0}' is not a usable .npy file: it holds Python objects (dtype 'O'), "
                     "stored with pickle, which is never loaded (save a numeric array instead)",
             subprocess=True),
    BadInput(".npy with a header cut short", cut_npy, error=SourceError, field="files",
             message="'{0}' is not a usable .npy file: the header ends at byte 1010 but the file "
                     "has 30 bytes (the file is truncated: save it again)"),
    BadInput("slice that is code", raw("twelve.bin", bytes(12)), slice_text=CODE,
             error=SliceError, field="slice",
             message=f"unexpected '__import__' at column 1 {ITEM_HINT}", subprocess=True),
    BadInput("slice of 50,000 '['", raw("twelve.bin", bytes(12)), slice_text="[" * 50000,
             error=SliceError, field="slice", message=f"unexpected '[' at column 2 {ITEM_HINT}"),
    BadInput("slice of 100,000 characters", raw("twelve.bin", bytes(12)),
             slice_text="0:1, " * 20000, error=SliceError, field="slice",
             message="item 32 is one too many at column 156 (a slice has at most 31 items, "
                     "because TensorFlow's masks are 32-bit)"),
    BadInput("slice in another script", raw("twelve.bin", bytes(12)), slice_text="٣:٥",
             error=SliceError, field="slice", message=f"unexpected '٣' at column 1 {ITEM_HINT}"),
    BadInput("slice with control characters", raw("twelve.bin", bytes(12)),
             slice_text="1\x00:\x1b", error=SliceError, field="slice",
             message="unexpected '\\x00' at column 2 (separate items with ',')"),
    BadInput("slice index out of range", raw("twelve.bin", bytes(12)), slice_text="[99]",
             error=SliceError, field="slice",
             message="slice index 99 of dimension 0 out of bounds. (use an index in [-12, 12))"),
]


IDS = [case.id for case in CATALOGUE]


@pytest.fixture(autouse=True)
def default_budget(monkeypatch):
    """The messages quote the default 2 GiB budget, whatever the environment says."""
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", DEFAULT_BUDGET)
    monkeypatch.setattr(core.budget, "_ENV_ERROR", None)


def run_engine(case: BadInput, paths: list[str]):
    spec = parse_slice(case.slice_text) if case.slice_text is not None else None
    with Pipeline(paths) as pipeline:
        result = pipeline.run(DecodeParams(**case.params), spec)
        view = result.view
        first = None if view.size == 0 else view[(0,) * view.ndim].item()
        return tuple(view.shape), first


# ------------------------------------------------------------------------------------ engine
@pytest.mark.parametrize("case", CATALOGUE, ids=IDS)
def test_engine_refuses_with_the_catalogued_message_or_works(case, tmp_path):
    paths = case.files(tmp_path)
    if case.error is None:
        assert run_engine(case, paths) == (case.shape, case.first)
        return
    with pytest.raises(CoreError) as caught:
        run_engine(case, paths)
    assert type(caught.value) is case.error or isinstance(caught.value, case.error)
    assert caught.value.field == case.field
    assert caught.value.message == case.text(paths)
    assert not (tmp_path / "UNPICKLED").exists()


# --------------------------------------------------------------------------------------- CLI
@pytest.mark.parametrize("case", CATALOGUE, ids=IDS)
def test_cli_prints_one_error_line_and_exits_2(case, tmp_path, capsys):
    paths = case.files(tmp_path)
    status = cli_main(case.cli_args(paths) + ["--limit", "4"])
    out, err = capsys.readouterr()
    if case.error is None:
        assert status == 0 and err == ""
        assert out.startswith(f"shape: {case.shape}\n")
        return
    assert status == 2 and out == ""
    assert err == f"error: {case.text(paths)}\n"


def run_cli(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != core.budget.ENV_VAR}
    env["PYTHONPATH"] = str(ROOT)
    env.update(kwargs.pop("env", {}))
    return subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120, **kwargs)


@pytest.mark.parametrize("case", [c for c in CATALOGUE if c.subprocess],
                         ids=[c.id for c in CATALOGUE if c.subprocess])
def test_the_command_in_a_subprocess_never_shows_a_traceback(case, tmp_path):
    paths = case.files(tmp_path)
    done = run_cli(case.cli_args(paths) + ["--limit", "4"])
    assert "Traceback" not in done.stderr
    if case.error is None:
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"shape: {case.shape}\n")
        return
    assert done.returncode == 2
    assert done.stderr == f"error: {case.text(paths)}\n"
    assert done.stdout == ""


# --------------------------------------------------------------------- the cases in detail
def test_a_fifo_is_never_opened_so_nothing_blocks(tmp_path, monkeypatch):
    [path] = fifo(tmp_path)
    opened = []
    real_open = os.open
    def recording_open(p, *args, **kwargs):
        opened.append(os.fspath(p))
        return real_open(p, *args, **kwargs)

    monkeypatch.setattr(os, "open", recording_open)
    # Should a regression open the FIFO (blocking until a writer comes), this unblocks it after
    # 20 s so the test fails instead of hanging the suite.
    def unblock():
        try:
            os.close(real_open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    rescue = threading.Timer(20.0, unblock)
    rescue.start()
    try:
        with pytest.raises(SourceError, match="named pipe"):
            Pipeline([path])
    finally:
        rescue.cancel()
    assert path not in opened


def test_permission_denied(tmp_path, monkeypatch, capsys):
    [path] = raw("secret.bin", b"1234")(tmp_path)
    real_open = os.open

    def refuse(p, flags, *args, **kwargs):  # tests run as root: chmod 000 would not stop us
        if os.fspath(p) == path:
            raise PermissionError(13, "Permission denied", path)
        return real_open(p, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    message = f"permission denied reading '{path}' (make the file readable, e.g. chmod a+r)"
    with pytest.raises(SourceError) as caught:
        Pipeline([path])
    assert (caught.value.message, caught.value.field) == (message, "files")
    assert cli_main([path]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"


def test_a_1_tib_sparse_file_opens_and_reads_any_record(tmp_path):
    [path] = sparse_tib(tmp_path)
    assert os.path.getsize(path) == TIB
    with Pipeline([path]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="float32", record_size=4096),
                              parse_slice("[200000000, :4]"))
        np.testing.assert_array_equal(result.view, np.array([0.0, 0.0, -7.25, 0.0], np.float32))
        assert result.zero_copy and result.trailing_bytes == (0,)
        assert result.byte_offset((2,)) == (0, 200_000_000 * 4096 + 8, 4)
        whole = pipeline.run(DecodeParams(dtype="float32"))  # one element of 1 TiB: still a view
        assert whole.view.shape == (TIB // 4,) and whole.zero_copy
        assert whole.view[-1] == 0.0 and whole.view[1] == 2.5


def test_an_absurd_fixed_length_is_refused_before_any_allocation(tmp_path):
    import tracemalloc

    [path] = raw("twelve.bin", bytes(12))(tmp_path)
    with Pipeline([path]) as pipeline:
        tracemalloc.start()
        try:
            with pytest.raises(BudgetError):
                pipeline.run(DecodeParams(fixed_length=2**30, record_size=4))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 1 << 20  # numpy reports its buffers to tracemalloc: nothing big was made


def test_code_in_a_slice_is_never_run(tmp_path, capsys):
    PWNED.unlink(missing_ok=True)
    [path] = raw("twelve.bin", bytes(12))(tmp_path)
    for text in (CODE, f"[{CODE}]", f"strided_slice(begin={CODE}, end=[1])", "eval('1')"):
        with pytest.raises(SliceError):
            parse_slice(text)
        assert cli_main([path, "--slice", text]) == 2
    capsys.readouterr()
    assert not PWNED.exists()


def test_a_pickled_npy_is_never_unpickled(tmp_path):
    [path] = npy_object(tmp_path)
    with Pipeline([path]) as pipeline, pytest.raises(SourceError, match="never loaded"):
        pipeline.run(DecodeParams())
    done = run_cli([path])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert not (tmp_path / "UNPICKLED").exists()


def test_unknown_npy_dtypes_and_shapes_are_refused(tmp_path):
    headers = {
        "{'descr': '|V8', 'fortran_order': False, 'shape': (2,), }": "numpy's name for 8-byte values",
        "{'descr': '|V17', 'fortran_order': False, 'shape': (2,), }": "is not a supported numeric type",
        "{'descr': '<U4', 'fortran_order': False, 'shape': (2,), }": "is not a supported numeric type",
        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }": "is structured",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }": "negative dimension",
        "{'descr': '<f4', 'fortran_order': 'yes', 'shape': (2,), }": "not True or False",
        "{'descr': '<f4', 'fortran_order': False, 'shape': " + "(1,)" * 3 + ", }":
            "not a Python dict literal",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': __import__('os'), }":
            "not a Python dict literal",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1," * 65 + "), }": "more than 64",
        "[" * 4900 + "]" * 4900: "not a Python dict literal",
    }
    for i, (header, expected) in enumerate(headers.items()):
        [path] = npy_with_header(f"h{i}.npy", header)(tmp_path)
        with Pipeline([path]) as pipeline, pytest.raises(SourceError, match=expected):
            pipeline.run(DecodeParams())


# ------------------------------------------------------------- files changed while open
CHANGED_SCRIPT = textwrap.dedent("""
    import os, sys
    import numpy as np
    from core import DecodeParams, Pipeline, SourceError
    from core.export.arrays import export_view
    from core.scan.statistics import compute_statistics

    path, how = sys.argv[1], sys.argv[2]
    np.arange(256 * 1024, dtype="<f4").tofile(path)  # 1 MiB: 256 pages
    pipeline = Pipeline([path])
    params = DecodeParams(dtype="float32", record_size=4096)
    view = pipeline.run(params).view  # kept, as a GUI keeps its last good view
    if how == "truncate":
        os.truncate(path, 0)
    elif how == "shrink":
        os.truncate(path, 5000)
    elif how == "replace":
        with open(path + ".new", "wb") as out:
            out.write(b"x" * 8)
        os.replace(path + ".new", path)
    elif how == "delete":
        os.unlink(path)
    elif how == "rewrite":  # what re-running a script that saves the file does
        with open(path, "wb") as out:
            out.write(np.full(1000, 9, "<f4").tobytes())
    for attempt in ("run", "export", "statistics"):
        try:
            if attempt == "run":
                pipeline.run(params)
            elif attempt == "export":
                export_view(view, path + ".csv", "csv", check=pipeline.source.check_unchanged)
            else:
                compute_statistics(view, check=pipeline.source.check_unchanged)
            print(attempt, "ok")
        except SourceError as error:
            print(attempt, "error:", error)
    # The stale view is read whole (every page): pages past a new end read zeros, no SIGBUS.
    print("last", float(view[-1, -1]), "sum", float(view.astype(np.float64).sum()))
""")


@pytest.mark.parametrize("how, detail, last", [
    ("truncate", "size 1048576 -> 0 bytes", 0.0),
    ("shrink", "size 1048576 -> 5000 bytes", 0.0),
    ("rewrite", "size 1048576 -> 4000 bytes", 0.0),
    ("replace", "it was replaced by another file", 262143.0),  # the map keeps the old inode
    ("delete", "it was deleted or moved", 262143.0),
])
def test_a_file_changed_while_open_gives_a_message_never_sigbus(tmp_path, how, detail, last):
    path = tmp_path / "changing.bin"
    script = tmp_path / "changed.py"
    script.write_text(CHANGED_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(script), str(path), how], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0, f"return code {done.returncode} (-7 is SIGBUS): {done.stderr}"
    message = f"'{path}' changed on disk since it was opened ({detail}) (reload it)"
    lines = done.stdout.splitlines()
    assert lines[:3] == [f"run error: {message}", f"export error: {message}",
                         f"statistics error: {message}"]
    assert lines[3].startswith(f"last {last} sum ")
    assert not (tmp_path / "changing.bin.csv").exists()


def test_maps_are_read_at_random_and_scans_read_ahead(tmp_path, monkeypatch):
    """A strided sample of a huge file must not read MiBs around every page it touches (the
    kernel's read-around made the first image of the 1 TiB file take ~20 s), while a scan that
    reads a view whole gets its read-ahead back for the scan."""
    import mmap

    import core.files.safe_open
    from core.scan.statistics import compute_statistics

    advised = []
    real_mmap = mmap.mmap

    class RecordingMmap(real_mmap):
        def madvise(self, option, *args):
            advised.append(("map", option))
            return super().madvise(option, *args)

    monkeypatch.setattr(mmap, "mmap", RecordingMmap)
    monkeypatch.setattr(core.files.safe_open, "_madvise",
                        lambda start, length, advice: advised.append((length, advice)))
    [path] = raw("data.bin", np.arange(4096, dtype="<f4").tobytes())(tmp_path)
    with Pipeline([path]) as pipeline:
        assert advised == [("map", mmap.MADV_RANDOM)]
        view = pipeline.run(DecodeParams(dtype="float32")).view
        compute_statistics(view)
        column = pipeline.run(DecodeParams(dtype="float32", record_size=4096)).view[:, 0]
        compute_statistics(column)  # 4 values spread over the file: no read-ahead for those
    assert advised[1:] == [(16384, mmap.MADV_SEQUENTIAL), (16384, mmap.MADV_RANDOM)] * 2
