"""``inspector.show(obj)``: the window on an object in memory, from a script or a notebook.

The convention of ``plt.show()`` and ``napari.view_image``:

- in a script, :func:`show` opens the window and blocks until it is closed, then returns the
  :class:`ShowHandle` (which still reads the last view, slice and selection);
- where a Qt event loop already runs (IPython or Jupyter after ``%gui qt``, or a call from
  inside a Qt application), it returns at once and the window stays live: the handle reads and
  sets the view while the user works in it. ``block=`` overrides the choice;
- several calls share one ``QApplication`` (created by the first one, or the running one).

Qt is imported by :func:`show` only, so ``import inspector`` stays light. Everything the handle
reads or sets goes through the window's :class:`~inspector.state.document.Document`, as the
widgets' edits do (undoable, and shown at once).
"""

from __future__ import annotations

import os
import sys
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import numpy as np

from core.errors import CoreError
from core.files.memory import is_in_memory
from core.pipeline.pipeline import DecodeParams, PipelineResult
from core.slicing.expr import stored_slice_text
from core.slicing.spec import SliceSpec

if TYPE_CHECKING:  # Qt only when show() runs
    from inspector.main_window import MainWindow
    from inspector.state.settings_store import SettingsStore

__all__ = ["ShowHandle", "show"]

_DECODE_OPTIONS = tuple(f.name for f in fields(DecodeParams))
_collector = None  # the one GUI-thread garbage collector of the process (gc_policy)
_app = None  # the QApplication show() created: kept for the next calls
_open_windows: dict[int, Any] = {}  # the windows show() opened, until each is destroyed


def show(obj: object, *, block: bool | None = None, slice: str = "",
         settings: SettingsStore | None = None, name: str | None = None,
         **decode_options: Any) -> ShowHandle:
    """Open a window on ``obj`` and return its handle.

    Parameters
    ----------
    obj
        A path, URL (``https://``, ``s3://``...: :mod:`core.files.remote`) or glob, or a list of
        them (a batch), opened as the window opens files (read-only, nothing remembered); or
        ``bytes``, ``bytearray``, ``memoryview``, a list of bytes (a batch), a numpy array
        (shown as is; decode options read its raw bytes, as for a ``.npy`` file), or an object
        with ``__array__`` or ``.numpy()`` (TensorFlow, PyTorch tensors). Rules:
        :mod:`core.files.memory` (writable buffers are viewed, not copied).
    block
        True: wait until the window is closed; False: return at once (the window lives while
        an event loop runs). None: block unless a Qt event loop already runs (IPython/Jupyter
        with ``%gui qt``, or a call from a Qt application).
    slice
        A slice expression such as ``"[1:, ::2]"`` ("" the whole tensor).
    settings
        Where the window keeps its layout and display options (default: the application's).
    name
        The title for a single buffer (default: its kind, type and shape).
    **decode_options
        :class:`core.DecodeParams` fields: ``dtype``, ``little_endian``, ``fixed_length``,
        ``offset``, ``record_size``, ``length``, ``shape``, ``view_as``, ...

    Returns
    -------
    ShowHandle
        Reads and sets the window's view, slice, selection and parameters.

    Raises
    ------
    TypeError
        A keyword that is not a decode option.
    CoreError
        The object cannot be shown (``SourceError``: the window is closed again). Invalid
        decode options or slice do not raise: the window shows the message, as for a file,
        and so does :attr:`ShowHandle.error`.
    """
    unknown = sorted(set(decode_options) - set(_DECODE_OPTIONS))
    if unknown:
        raise TypeError(f"show() got unknown options {unknown} (decode options are: "
                        f"{', '.join(_DECODE_OPTIONS)})")
    params = DecodeParams(**decode_options)
    _application()
    from PySide6.QtCore import Qt

    from inspector.main_window import MainWindow

    window = MainWindow(settings)
    # Kept here until it closes, then deleted: a window whose last Python reference goes (a
    # notebook that drops the handle) must neither vanish nor be freed twice by Qt and Python.
    window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    key = id(window)
    _open_windows[key] = window
    window.destroyed.connect(lambda *_args: _open_windows.pop(key, None))
    handle = ShowHandle(window)
    if is_in_memory(obj):
        window.open_object(obj, params, slice, name)
    else:
        window.open_paths([obj] if isinstance(obj, (str, os.PathLike)) else list(obj), params, slice,
                          remember=False)
    window.show()
    window.raise_()
    error = window.document.exception
    if window.document.pipeline is None and error is not None:
        window.close()
        raise error
    if block is None:
        block = not event_loop_running()
    if block:
        handle.wait()
    return handle


class ShowHandle:
    """What :func:`show` returns: the window's current view, slice and selection, both ways.

    Reads come from the window's document (after the window is closed: the last values it
    showed); setters go through the document like the widgets' edits (undoable) and raise the
    engine's error when the document refuses the value.
    """

    def __init__(self, window: MainWindow) -> None:
        self.window: MainWindow | None = window
        self._document = window.document
        self._result: PipelineResult | None = None
        self._spec = SliceSpec.full()
        self._selection: tuple[int, ...] | None = None
        self._params = DecodeParams()
        document = window.document
        document.resultChanged.connect(self._on_result_changed)
        document.sliceChanged.connect(self._on_slice_changed)
        document.selectionChanged.connect(self._on_selection_changed)
        document.paramsChanged.connect(self._on_params_changed)
        window.destroyed.connect(self._on_window_gone)

    # ------------------------------------------------------------------ reading
    @property
    def is_open(self) -> bool:
        """Whether the window is still open (setters need it; a closed window is deleted)."""
        return self.window is not None and self.window.isVisible()

    @property
    def result(self) -> PipelineResult | None:
        """The last good :class:`core.PipelineResult` the window showed (None: none yet)."""
        return self._result

    @property
    def view(self) -> np.ndarray:
        """A copy of the values the window shows (decoded, reshaped, sliced, viewed as).

        Raises
        ------
        CoreError
            Nothing was shown (the object or its options could not be decoded).
        """
        if self._result is None:
            raise CoreError("nothing is shown (fix the decode options first)", field="files")
        result = self._result
        return np.array(result.block_reader().read(result.view), copy=True)

    @property
    def slice_spec(self) -> SliceSpec:
        """The slice applied to the tensor (:class:`core.SliceSpec`)."""
        return self._spec

    @property
    def slice_text(self) -> str:
        """:attr:`slice_spec` as an expression (``""``: the whole tensor)."""
        return stored_slice_text(self._spec)

    @property
    def selection(self) -> tuple[int, ...] | None:
        """The selected element's index into :attr:`view`, or None."""
        return self._selection

    @property
    def params(self) -> DecodeParams:
        """The decode parameters as set (None fields take the defaults)."""
        return self._params

    @property
    def error(self) -> str | None:
        """The message the window shows about the current settings, or None."""
        report = self._document.error if self.is_open else None
        return None if report is None else report.message

    # ------------------------------------------------------------------ setting
    def set_slice(self, slice_spec: str | SliceSpec) -> None:
        """Apply a slice, e.g. ``"[1:, ::2]"`` (or a :class:`core.SliceSpec`; ``""`` clears it).

        Raises
        ------
        SliceError
            The text does not parse, or the tensor refuses the slice (the window shows it too).
        RuntimeError
            The window was closed.
        """
        document = self._open_document()
        if isinstance(slice_spec, SliceSpec):
            document.set_slice_spec(slice_spec)
        else:
            document.set_slice_text(str(slice_spec))
        self._raise_error()

    def select(self, index: tuple[int, ...] | int) -> None:
        """Select the element ``index`` of :attr:`view` (the hex view shows its bytes).

        Raises
        ------
        IndexError
            ``index`` is not an element of the view.
        RuntimeError
            The window was closed.
        """
        document = self._open_document()
        index = (index,) if isinstance(index, (int, np.integer)) else tuple(index)
        shape = self._result.view.shape if self._result is not None else ()
        if len(index) != len(shape) or not all(0 <= int(i) < n for i, n in zip(index, shape)):
            raise IndexError(f"index {index} is not an element of the view of shape {shape} "
                             "(give one index per axis, each in 0 .. size - 1)")
        document.select(index)

    def set_params(self, **changes: Any) -> None:
        """Change decode parameters, e.g. ``set_params(dtype="int16", shape=(2, -1))``.

        Raises
        ------
        TypeError
            A keyword that is not a decode option.
        CoreError
            The document refused the new parameters (the window shows the message).
        RuntimeError
            The window was closed.
        """
        unknown = sorted(set(changes) - set(_DECODE_OPTIONS))
        if unknown:
            raise TypeError(f"set_params() got unknown options {unknown} (decode options are: "
                            f"{', '.join(_DECODE_OPTIONS)})")
        self._open_document().update_params(**changes)
        self._raise_error()

    def wait(self) -> None:
        """Block until the window is closed (runs the Qt event loop meanwhile)."""
        if not self.is_open:
            return
        from PySide6.QtCore import QEventLoop

        loop = QEventLoop()
        closed = _watch_close(self.window, loop.quit)
        loop.exec()
        del closed

    def close(self) -> None:
        """Close the window (the handle keeps reading the last values)."""
        if self.is_open:
            self.window.close()

    # ------------------------------------------------------------------ internals
    def _open_document(self):
        if not self.is_open:
            raise RuntimeError("the window was closed (call inspector.show again)")
        return self._document

    def _raise_error(self) -> None:
        if self._document.exception is not None and self._document.error is not None:
            raise self._document.exception

    def _on_result_changed(self, result: PipelineResult) -> None:
        self._result = result

    def _on_slice_changed(self, spec: SliceSpec) -> None:
        self._spec = spec

    def _on_selection_changed(self, index: tuple[int, ...] | None) -> None:
        self._selection = index

    def _on_params_changed(self, params: DecodeParams) -> None:
        self._params = params

    def _on_window_gone(self, *_args: object) -> None:
        self.window = None  # deleted when closed: the last values stay readable here


def event_loop_running() -> bool:
    """Whether a Qt event loop already runs for this thread, or IPython integrates one.

    True inside a running loop (a call from a Qt application's slot), and in IPython or a
    Jupyter kernel whose event loop integration is Qt (``%gui qt``: the shell's
    ``active_eventloop`` names it).
    """
    from PySide6.QtCore import QThread

    if QThread.currentThread().loopLevel() > 0:
        return True
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    shell = get_ipython() if callable(get_ipython) else None
    loop = getattr(shell, "active_eventloop", None)
    return isinstance(loop, str) and loop.startswith("qt")


def _application():
    """The running ``QApplication``, or a new one set up as the app's (one per process)."""
    global _app, _collector
    from PySide6.QtWidgets import QApplication

    from inspector.plot.panel import configure_pyqtgraph
    from inspector.state.gc_policy import collect_in_gui_thread

    app = QApplication.instance()
    if app is None:
        app = _app = QApplication(sys.argv[:1] or ["tensor-inspector"])
        app.setApplicationName("tensor-inspector")
    if _collector is None:
        _collector = collect_in_gui_thread()  # never free Qt objects from a worker thread
    configure_pyqtgraph()
    return app


def _watch_close(window, on_close):
    """An event filter on ``window`` calling ``on_close`` when it closes or is destroyed."""
    from PySide6.QtCore import QEvent, QObject

    class CloseWatcher(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Close:
                on_close()
            return False

    watcher = CloseWatcher()
    window.installEventFilter(watcher)
    window.destroyed.connect(on_close)
    return watcher
