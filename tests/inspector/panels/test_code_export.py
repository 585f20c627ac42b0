"""Copy as code: the numpy snippet of the document's state, executed, gives its view back."""

import numpy as np
import pytest
from PySide6.QtGui import QGuiApplication

from core.errors import CoreError, SourceError
from core.pipeline.pipeline import DecodeParams
from inspector.panels.code_export import (
    copy_snippet,
    copy_snippet_message,
    numpy_snippet_for,
    tensorflow_snippet_for,
)
from inspector.state.document import Document
from resources import DEFAULT_SAMPLE, resource_path, sample_settings


def run_snippet(text):
    scope = {}
    exec(compile(text, "<snippet>", "exec"), scope)  # tests only: the snippet is ours
    return np.asarray(scope["x"])


def sample_document(slice_text=""):
    settings = dict(sample_settings()[DEFAULT_SAMPLE])
    settings["shape"] = tuple(settings["shape"])
    document = Document()
    assert document.open_files([str(resource_path(DEFAULT_SAMPLE))], DecodeParams(**settings),
                               slice_text)
    return document


@pytest.mark.parametrize("slice_text", ["", "[1, ::2, -3:]", "[..., ::-7]", "[2, 5, 7]"])
def test_numpy_snippet_reproduces_the_sample_view(qapp, slice_text):
    document = sample_document(slice_text)
    x = run_snippet(numpy_snippet_for(document))
    expected = document.result.view
    assert x.shape == expected.shape
    # numpy scalars (a full index) are always native-endian; arrays keep the file's byte order
    assert x.dtype == (expected.dtype if expected.ndim else expected.dtype.newbyteorder("="))
    np.testing.assert_array_equal(x, expected)


def test_numpy_snippet_with_records_and_two_files(qapp, tmp_path):
    paths = []
    for i in range(2):
        path = tmp_path / f"part{i}.bin"
        (np.arange(30, dtype="<i2") + 100 * i).tofile(path)  # 60 bytes: 4 records of 14 + 4 left
        paths.append(str(path))
    document = Document()
    assert document.open_files(paths, DecodeParams(dtype="int16", record_size=14), "[:, 1:, ::3]")
    assert document.result.view.shape == (2, 3, 3)
    np.testing.assert_array_equal(run_snippet(numpy_snippet_for(document)), document.result.view)


def test_copy_puts_the_text_on_the_clipboard(qapp):
    document = sample_document("[0]")
    text = copy_snippet(document, "numpy")
    assert QGuiApplication.clipboard().text() == text
    assert text.startswith("# tensor-inspector's view, reproduced with numpy")
    message = copy_snippet_message(document, "tensorflow")
    tf_text = QGuiApplication.clipboard().text()
    assert tf_text == tensorflow_snippet_for(document)
    assert "tf.io.decode_raw" in tf_text and "tf.strided_slice" in tf_text
    lines = tf_text.count("\n") + 1
    assert message == f"Copied TensorFlow code ({lines} lines) to the clipboard"


def test_invalid_settings_give_the_engine_message(qapp):
    document = sample_document()
    document.set_slice_text("[5]")  # axis 0 has 3 entries
    assert document.error is not None
    QGuiApplication.clipboard().setText("unchanged")
    with pytest.raises(CoreError) as raised:
        copy_snippet(document, "numpy")
    assert str(raised.value) == document.error.message
    assert copy_snippet_message(document, "numpy") == (
        f"Cannot copy numpy code: {document.error.message}")
    assert QGuiApplication.clipboard().text() == "unchanged"


def test_no_file_open(qapp):
    document = Document()
    with pytest.raises(SourceError, match=r"No file is open \(open a file first\)"):
        numpy_snippet_for(document)
    assert copy_snippet_message(document, "numpy") == (
        "Cannot copy numpy code: No file is open (open a file first)")
    with pytest.raises(ValueError, match="unknown snippet kind 'julia'"):
        copy_snippet(sample_document(), "julia")
