"""describe_error: every kind of exception becomes one line with a field and a severity."""

from __future__ import annotations

import errno
import pickle

import numpy as np
import pytest

import core.errors as errors_module
from core.errors import (
    BudgetError,
    Cancelled,
    CoreError,
    DecodeError,
    ErrorReport,
    ExportError,
    IllegalArgumentError,
    ShapeError,
    SliceError,
    SliceSyntaxError,
    SourceError,
    TensorBufferError,
    describe_error,
)


# ----------------------------------------------------------------------------- the hierarchy
def test_every_engine_error_is_a_core_error_and_a_value_error():
    for kind in (DecodeError, SourceError, ShapeError, SliceError, SliceSyntaxError,
                 TensorBufferError, IllegalArgumentError, BudgetError, ExportError):
        assert issubclass(kind, CoreError) and issubclass(kind, ValueError), kind
    assert issubclass(SliceSyntaxError, SliceError)
    assert issubclass(IllegalArgumentError, TensorBufferError)
    assert not issubclass(Cancelled, CoreError)  # a request to stop, not an error


def test_the_old_homes_no_longer_define_or_re_export_them():
    import core.export.arrays
    import core.scan.statistics
    import core.slicing.expr
    import core.slicing.tokens
    import core.tflite.tensor_buffer

    assert "SliceSyntaxError" not in core.slicing.tokens.__all__
    assert "SliceSyntaxError" not in core.slicing.expr.__all__
    assert "Cancelled" not in core.scan.statistics.__all__
    assert "ExportError" not in core.export.arrays.__all__
    assert "IllegalArgumentError" not in core.tflite.tensor_buffer.__all__
    assert not hasattr(errors_module, "IllegalStateError")
    with pytest.raises(ImportError):
        __import__("core.tflite.errors")


def test_slice_syntax_error_keeps_its_span_through_pickling():
    error = pickle.loads(pickle.dumps(SliceSyntaxError("unexpected 'x' at column 3 (hint)", 2, 1)))
    assert (error.message, error.field, error.column, error.length) == (
        "unexpected 'x' at column 3 (hint)", "slice", 2, 1)


# ----------------------------------------------------------------------------- engine errors
def test_core_errors_keep_their_message_and_field():
    report = describe_error(DecodeError("Input to DecodeRaw has length 6 that is not a multiple "
                                        "of 4, the size of int32 (choose another type)", field="dtype"))
    assert report == ErrorReport(
        "Input to DecodeRaw has length 6 that is not a multiple of 4, the size of int32 "
        "(choose another type)", "dtype", "error")


def test_core_error_without_field_and_with_line_breaks():
    assert describe_error(BudgetError("copying 8 GiB\n  exceeds the budget (slice it)")) == ErrorReport(
        "copying 8 GiB exceeds the budget (slice it)", None, "error")


def test_cancelled_is_information():
    assert describe_error(Cancelled("statistics cancelled")) == ErrorReport(
        "cancelled (start it again to finish)", None, "info")


# ----------------------------------------------------------------------------- OSError by errno
def test_missing_file(tmp_path):
    path = tmp_path / "nope.bin"
    with pytest.raises(OSError) as caught:
        open(path, "rb")
    assert describe_error(caught.value) == ErrorReport(
        f"'{path}' does not exist (check the path)", "files", "error")


@pytest.mark.parametrize(("code", "strerror", "message"), [
    (errno.EACCES, "Permission denied",
     "permission denied reading '/d/x.bin' (make the file readable, e.g. chmod a+r)"),
    (errno.EISDIR, "Is a directory", "'/d/x.bin' is a directory, not a file (choose a file inside it)"),
    (errno.ENOTDIR, "Not a directory", "a part of '/d/x.bin' is not a directory (check the path)"),
    (errno.EMFILE, "Too many open files",
     "too many open files to open '/d/x.bin' (close some files, or raise the limit, e.g. ulimit -n 4096)"),
    (errno.ENFILE, "Too many open files in system",
     "too many open files to open '/d/x.bin' (close some files, or raise the limit, e.g. ulimit -n 4096)"),
    (errno.ENOMEM, "Cannot allocate memory",
     "not enough memory to map '/d/x.bin' (close other files or programs, or raise vm.max_map_count)"),
    (errno.ENODEV, "No such device",
     "'/d/x.bin' cannot be memory-mapped: it is a device or a special file such as one in /sys or "
     "/proc (copy the data to a regular file first)"),
    (errno.ENOSPC, "No space left on device",
     "no space left on the device for '/d/x.bin' (free some space, or choose another location)"),
    (errno.EROFS, "Read-only file system",
     "'/d/x.bin' is on a read-only file system (choose another location)"),
    (errno.EIO, "Input/output error",
     "input/output error reading '/d/x.bin' (the disk or network share may be failing; copy the "
     "file elsewhere)"),
    (errno.ENAMETOOLONG, "File name too long", "the path '/d/x.bin' is too long (use a shorter path)"),
    (errno.ELOOP, "Too many levels of symbolic links",
     "too many symbolic links in '/d/x.bin' (check where the links point)"),
    (errno.EBUSY, "Device or resource busy",
     "cannot open '/d/x.bin': Device or resource busy (check the file)"),
])
def test_os_errors_name_the_path_and_the_fix(code, strerror, message):
    assert describe_error(OSError(code, strerror, "/d/x.bin")) == ErrorReport(message, "files", "error")


def test_os_error_without_a_path():
    assert describe_error(OSError(errno.ENOMEM, "Cannot allocate memory")) == ErrorReport(
        "not enough memory to map the file (close other files or programs, or raise "
        "vm.max_map_count)", None, "error")
    assert describe_error(OSError(errno.EBUSY, "Device or resource busy")) == ErrorReport(
        "Device or resource busy (check the file and try again)", None, "error")


def test_mmap_of_an_empty_file_is_described(tmp_path):
    import mmap

    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    with open(path, "rb") as handle, pytest.raises(ValueError) as caught:
        mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    assert describe_error(caught.value) == ErrorReport(
        "invalid value: cannot mmap an empty file (check the numbers and names typed)", None, "error")


# ----------------------------------------------------------------------------- escaped built-ins
def test_memory_error_from_numpy():
    report = describe_error(MemoryError("Unable to allocate 8.00 GiB for an array with shape "
                                        "(1073741824,) and data type float64"))
    assert report == ErrorReport(
        "out of memory: Unable to allocate 8.00 GiB for an array with shape (1073741824,) and data "
        "type float64 (slice a smaller view, or close other programs)", None, "error")
    assert describe_error(MemoryError()).message == (
        "out of memory (slice a smaller view, or close other programs)")


def test_overflow_error_from_int_conversion():
    with pytest.raises(OverflowError) as caught:
        np.int64(2**70)
    assert describe_error(caught.value) == ErrorReport(
        "a number is too large: Python int too large to convert to C long (use a smaller value)",
        None, "error")


def test_index_error_from_numpy():
    with pytest.raises(IndexError) as caught:
        np.arange(3)[5]
    assert describe_error(caught.value) == ErrorReport(
        "index out of range: index 5 is out of bounds for axis 0 with size 3 (use an index inside "
        "the shape)", None, "error")


def test_value_error_from_int_parsing():
    with pytest.raises(ValueError) as caught:
        int("12x")
    assert describe_error(caught.value) == ErrorReport(
        "invalid value: invalid literal for int() with base 10: '12x' (check the numbers and "
        "names typed)", None, "error")


def test_a_warning_raised_as_an_error_is_a_warning():
    assert describe_error(RuntimeWarning("overflow encountered in cast")) == ErrorReport(
        "overflow encountered in cast", None, "warning")


def test_anything_else_is_unexpected_and_says_how_to_get_a_traceback():
    assert describe_error(ZeroDivisionError("division by zero")) == ErrorReport(
        "unexpected ZeroDivisionError: division by zero (please report this; set "
        "TENSOR_INSPECTOR_DEBUG=1 for a traceback)", None, "error")
    assert describe_error(KeyError()).message == (
        "unexpected KeyError: KeyError (please report this; set TENSOR_INSPECTOR_DEBUG=1 for a "
        "traceback)")


def test_interrupt_is_information():
    assert describe_error(KeyboardInterrupt()) == ErrorReport("interrupted", None, "info")


# ----------------------------------------------------------------------------- the command line
@pytest.fixture
def four_bytes(tmp_path):
    path = tmp_path / "four.bin"
    path.write_bytes(b"\x01\x02\x03\x04")
    return str(path)


@pytest.mark.parametrize("raised", [
    ZeroDivisionError("division by zero"),
    MemoryError("Unable to allocate 8.00 GiB for an array with shape (1073741824,) and data type float64"),
    OSError(errno.EMFILE, "Too many open files", "/d/x.bin"),
])
def test_the_cli_prints_describe_error_on_one_line(four_bytes, capsys, monkeypatch, raised):
    from core import cli
    from core.pipeline.pipeline import Pipeline

    monkeypatch.delenv("TENSOR_INSPECTOR_DEBUG", raising=False)
    monkeypatch.setattr(Pipeline, "run", lambda self, params, spec=None: (_ for _ in ()).throw(raised))
    assert cli.main([four_bytes]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"error: {describe_error(raised).message}\n"


def test_the_cli_debug_variable_re_raises_only_unexpected_errors(four_bytes, capsys, monkeypatch):
    from core import cli
    from core.pipeline.pipeline import Pipeline

    monkeypatch.setenv("TENSOR_INSPECTOR_DEBUG", "1")
    with monkeypatch.context() as patch:
        patch.setattr(Pipeline, "run", lambda self, params, spec=None: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            cli.main([four_bytes])
    assert cli.main([four_bytes, "--offset", "9"]) == 2  # a user error stays one line
    assert capsys.readouterr().err == (
        f"error: offset 9 is past the end of '{four_bytes}' (4 bytes) (use an offset of at most 4)\n")
