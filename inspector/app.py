"""GUI entry point: ``tensor-inspector [FILE ...]`` and ``python -m inspector [FILE ...]``.

Shares the option set of the headless command (:mod:`core.cli.options`); options given on the command
line override the settings remembered for the files. With no FILE, the files open when the app
last closed are reopened (setting "reopen last files", on by default); the embedded sample opens
on the first launch only, with a hint saying how to open one's own file; otherwise the window
opens empty (see :func:`open_startup_files`). A FILE whose content is a session
(``"format": "tensor-inspector-session"``, whatever its name) opens that session; the options
then override its decode settings and slice. ``--screenshot PNG`` renders the window exactly as the user would see it
(errors included), saves it and exits 0. Bad options print one ``error:`` line and exit 2; the
parser runs before Qt is imported, so ``--help`` needs no display.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import fields, replace

from core.cli.options import (
    CliArgumentParser,
    add_cluster_options,
    add_pipeline_options,
    join_dash_values,
    params_from_args,
)
from core.cli.records import add_record_options, choice_from_args, wants_records
from core.errors import CoreError, describe_error
from core.scan.cluster import ClusterSpec


def build_parser() -> argparse.ArgumentParser:
    parser = CliArgumentParser(
        prog="tensor-inspector",
        description="Open binary tensor files and see them as tf.io.decode_raw and tf.strided_slice would.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="files to open (none: the files open at the last exit, or the embedded sample on the first launch)")
    add_pipeline_options(parser)
    add_cluster_options(parser)
    parser.add_argument("--screenshot", metavar="PNG", help="render the window to PNG and exit")
    # GUI-only plot choices (the choices are inspector.plot's COLOUR_MODES / parts, kept literal
    # so that --help needs no Qt).
    parser.add_argument("--colour", choices=("RGB", "BGR", "RGBA", "BGRA"),
                        help="plot the image in colour, channels along the last (HWC) or third from last (CHW) axis")
    parser.add_argument("--complex-part", choices=("abs", "re", "im", "phase", "dB", "I and Q", "constellation"),
                        help="what the plot shows of complex data")
    parser.add_argument("--tensor", metavar="NAME",
                        help="show the container's tensor of this exact name (as choosing its row in the "
                             "Tensors dock: a view of the file here, anything else in a new window)")
    parser.add_argument("--compare", metavar="B", nargs="+",
                        help="compare the view with reference file(s) B (decoded with the same options; "
                             "the worst mismatch is selected when the comparison is ready)")
    add_record_options(parser)  # the records window opens with the layout; --offset is the header
    parser.add_argument("--plot-fields", metavar="NAMES",
                        help="with a record layout: plot these columns overlaid in the records window "
                             "(comma-separated, e.g. 'ch[0],ch[1],gain')")
    return parser


def merge_params(base, overrides):
    """``overrides`` fields that are not None replace those of ``base``."""
    changes = {f.name: getattr(overrides, f.name) for f in fields(overrides) if getattr(overrides, f.name) is not None}
    changes.pop("extended_types", None)
    return replace(base, **changes)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(join_dash_values(sys.argv[1:] if argv is None else argv))
    try:
        cli_params, slice_text, _view_as = params_from_args(args)
        _check_option_values(cli_params, slice_text)
        cluster = ClusterSpec.from_options(args.scheduler, args.workers)
        records = choice_from_args(args) if wants_records(args) else None
        if records is not None and cli_params.dtype is None:  # the records' bytes, one row each
            cli_params = replace(cli_params, dtype="uint8", offset=records.records_start(),
                                 record_size=records.layout().itemsize)
    except CoreError as error:
        print(f"error: {describe_error(error).message}", file=sys.stderr)
        return 2

    if args.screenshot:
        from core.files.output import check_destination

        try:
            check_destination(args.screenshot, args.files)
        except CoreError as error:
            print(f"error: --screenshot: {describe_error(error).message}", file=sys.stderr)
            return 2
    problem = _display_problem(args.screenshot)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2

    from PySide6.QtWidgets import QApplication

    from inspector.main_window import MainWindow
    from inspector.plot.panel import configure_pyqtgraph

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("tensor-inspector")
    from inspector.state.gc_policy import collect_in_gui_thread

    collect_in_gui_thread()  # never free Qt objects from a worker thread
    configure_pyqtgraph()
    window = MainWindow()
    if cluster is not None:  # in the background: the window shows at once
        window.document.cluster.connect_to(cluster)
    if args.screenshot:
        window.resize(1400, 860)
    models = _models_compared(args, cli_params)
    folders = not args.compare and _folders_of_tensors(args.files)
    if (models and os.path.isdir(models[0])) or folders:
        paths = []  # folders of tensors: the pair table or the scan is the start; a row opens its file
    else:
        paths = open_startup_files(window, args.files, cli_params, slice_text)
    if args.tensor is not None and paths:
        show_startup_tensor(window, args.tensor)
    if records is not None and paths:
        show_startup_records(window, records, args.field, args.plot_fields)
    _apply_plot_choices(window, args.colour, args.complex_part)
    window.show()
    if folders:
        window.scan_models(args.files)
    if models:  # once the first layout is applied (queued by show()), as for --compare of files
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, lambda shown=window: _compare_models_at_start(shown, *models))
    elif args.compare and paths:  # once the first layout is applied (queued by show()): the docks
        from PySide6.QtCore import QTimer  # it reveals are then tabbed into place, with no stale tab bar

        QTimer.singleShot(0, lambda shown=window: _compare_at_start(shown, args.compare))
    status = _screenshot(app, window, args.screenshot, paths) if args.screenshot else app.exec()
    # pyqtgraph's graphics items must be deleted while Qt is still alive, not by the
    # interpreter's final teardown (which can segfault).
    window.deleteLater()
    app.processEvents()
    del window
    return status


def open_startup_files(window, files: list[str], cli_params, slice_text: str | None) -> list[str]:
    """Open what the app shows at start; returns the paths opened ([] for an empty window).

    ``files`` given: those, with their remembered settings overridden by the options. Else the
    files open at the last exit (when the "reopen last files" setting is on and they all still
    exist), else the embedded sample if it was never shown, else nothing.
    """
    from core.pipeline.pipeline import DecodeParams
    from inspector.main_window import sample_params

    settings = window.settings
    if len(files) == 1 and _is_session(files[0]):
        window.session_actions.open_session(files[0])  # problems are shown in its banner
        if window.document.paths and (slice_text is not None or cli_params != DecodeParams()):
            window.document.set_params(merge_params(window.document.params, cli_params))
            if slice_text is not None:
                window.document.set_slice_text(slice_text)
        return list(window.document.paths)
    paths = list(files) or (settings.last_files() if settings.reopen_last_files() else [])
    if paths:
        remembered = settings.decode_settings(tuple(_abs(p) for p in paths))
        base = remembered[0] if remembered else DecodeParams()
        base_slice = remembered[1] if remembered else ""
        window.open_paths(paths, merge_params(base, cli_params), slice_text if slice_text is not None else base_slice)
        return paths
    if settings.sample_shown():
        return []
    window.open_sample(merge_params(sample_params(), cli_params), slice_text or "")
    return list(window.document.paths)


def show_startup_records(window, choice, field: str | None, plot_fields: str | None = None) -> None:
    """``--fields`` / ``--struct`` / ``--numpy-fields``: the first file's records in the records
    window (a refusal, e.g. a header past the end, in the status bar); ``--field NAME`` makes
    that field the window's tensor, as *Field as the tensor*; ``--plot-fields A,B`` plots those
    columns overlaid (a name the layout does not have: a warning on stderr)."""
    if not window._choose_records(choice):
        return
    dialog = window.show_records_dialog()
    if dialog.model.rowCount() == 0:
        return
    names = [dialog.model.column(n).name for n in range(dialog.model.columnCount())]
    if field:
        leaf = [n for n in range(len(names)) if dialog.model.column(n).field.name == field]
        dialog.table.setCurrentIndex(dialog.model.index(0, leaf[0]))
        dialog.show_field()
    if plot_fields:
        wanted = [name.strip() for name in plot_fields.split(",") if name.strip()]
        missing = [name for name in wanted if name not in names]
        if missing:
            print(f"warning: --plot-fields: the records have no column {', '.join(missing)} (they have "
                  f"{', '.join(names[:12])}{', ...' if len(names) > 12 else ''})", file=sys.stderr)
        chosen = [names.index(name) for name in wanted if name in names]
        if chosen:
            dialog.select_columns(chosen)
            dialog.plot_fields()


def show_startup_tensor(window, name: str) -> None:
    """``--tensor NAME``: show that tensor of the open container (:meth:`TensorsPanel.show_tensor`)
    now, or when its listing ends (a listing that runs in the background)."""
    document = window.document
    if not document.listing_running:
        window.tensors_panel.show_tensor(name)
        return
    from PySide6.QtCore import QTimer

    def listed() -> None:
        if document.listing_running:
            return
        document.listingChanged.disconnect(listed)
        # after the document has shown its first tensor for the finished listing
        QTimer.singleShot(0, lambda: window.tensors_panel.show_tensor(name))

    document.listingChanged.connect(listed)


def _screenshot(app, window, path: str, inspected: list[str]) -> int:
    """Let pending work settle, render the window to ``path`` (PNG) and close.

    The file is written by :func:`core.files.output.write_atomically`: never onto an inspected
    file (through any link), never to a FIFO or device, and an existing file is only replaced
    once the new image is complete.
    """
    from PySide6.QtCore import QBuffer, QByteArray, QElapsedTimer, QIODevice

    from core.files.output import write_atomically

    timer = QElapsedTimer()
    timer.start()
    while timer.elapsed() < 400 or (_busy(window) and timer.elapsed() < 20_000):
        app.processEvents()
    timer.restart()
    while timer.elapsed() < 200:  # what a finished comparison laid out last
        app.processEvents()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.WriteOnly)
    saved = _with_floating_windows(window).save(buffer, "PNG")
    buffer.close()
    window.close()
    if not saved:
        print("error: the window could not be rendered as PNG", file=sys.stderr)
        return 2
    try:
        write_atomically(path, lambda out: out.write(bytes(data)), inspected)
    except CoreError as error:
        print(f"error: --screenshot: {describe_error(error).message}", file=sys.stderr)
        return 2
    return 0


def _with_floating_windows(window):
    """The window's picture with its visible floating windows (the records window...) drawn over
    its lower right corner, framed, as they would float over it on a screen."""
    from PySide6.QtGui import QColor, QPainter, QPen
    from PySide6.QtWidgets import QDialog

    picture = window.grab()
    floating = [d for d in window.findChildren(QDialog) if d.isVisible() and d.isWindow()]
    if not floating:
        return picture
    painter = QPainter(picture)
    for dialog in floating:
        shot = dialog.grab()
        x = max(picture.width() - shot.width() - 24, 0)
        y = max(picture.height() - shot.height() - 24, 0)
        painter.fillRect(x + 6, y + 6, shot.width(), shot.height(), QColor(0, 0, 0, 90))  # a shadow
        painter.drawPixmap(x, y, shot)
        painter.setPen(QPen(QColor("#555555"), 1))
        painter.drawRect(x, y, shot.width() - 1, shot.height() - 1)
    painter.end()
    return picture


def _busy(window) -> bool:
    """Work whose outcome the screenshot shows is still running (comparisons, the model scan)."""
    return window.comparison.is_running or window.model_comparison.running or window.model_panel.scan.running \
        or window.document.cluster.connecting


def _compare_at_start(window, paths: list[str]) -> None:
    """``--compare B``: open B as the reference and select the worst mismatch once it is known
    (an error, such as a missing B, is shown in the Compare dock as for File > Compare with…)."""
    _select_worst_when_compared(window)
    window.comparison.open_b(paths)


def _select_worst_when_compared(window) -> None:
    """Select the worst mismatch of the next comparison result (if it has mismatches)."""
    comparison = window.comparison

    def select_worst(result) -> None:
        if result is None:
            return
        comparison.resultChanged.disconnect(select_worst)
        if window.compare_panel.entries:
            window.compare_panel.visit(0)

    comparison.resultChanged.connect(select_worst)


def _models_compared(args, cli_params) -> tuple[str, str] | None:
    """``A --compare B`` of two models or folders (:func:`core.cli.model_diff.are_models`):
    their paths; None for any other start."""
    from core.cli.model_diff import are_models
    from core.pipeline.pipeline import DecodeParams

    if not args.compare or len(args.files) != 1 or len(args.compare) != 1:
        return None
    a, b = args.files[0], args.compare[0]
    if not (os.path.exists(a) and os.path.exists(b)):
        return None  # the files' own errors say what is missing
    return (a, b) if are_models(a, b, layout_given=cli_params != DecodeParams()) else None


def _folders_of_tensors(files: list[str]) -> bool:
    """Whether every path given is a folder that is not itself one container (a TensorFlow
    checkpoint folder opens as its checkpoint): those are scanned in the Model dock."""
    from core.formats.registry import container_path

    return bool(files) and all(os.path.isdir(f) and container_path(f) == f for f in files)


def _compare_models_at_start(window, path_a: str, path_b: str) -> None:
    """``A --compare B`` of two models: their pair table; once every pair is compared, the first
    divergent pair (if any) opens in the element-level compare with its worst mismatch selected, so "which layer is the first
    wrong, and where" is one command and one glance."""
    models = window.model_comparison

    def open_first() -> None:
        if models.status != "running":
            models.stateChanged.disconnect(open_first)
            first = models.first_divergent
            if first is not None:
                _select_worst_when_compared(window)
                models.open_pair(first)

    window.compare_models(path_a, path_b)
    models.stateChanged.connect(open_first)


def _apply_plot_choices(window, colour: str | None, complex_part: str | None) -> None:
    """Apply ``--colour`` / ``--complex-part``; one that does not fit the view is a warning."""
    options = window.document.view_options  # outside the history: the user has undone nothing yet
    for option, field, value in (("--colour", "colour_mode", colour), ("--complex-part", "complex_part", complex_part)):
        if value is None:
            continue
        try:
            options.choose(undoable=False, **{field: value})
        except ValueError as error:
            print(f"warning: {option}: {describe_error(error).message}", file=sys.stderr)


def _display_problem(screenshot: str | None) -> str | None:
    """On Linux without a display, a screenshot renders offscreen; a window cannot open at all.

    Qt would abort the process with a core dump instead of an error message.
    """
    import os

    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    if screenshot:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return None
    return (
        "no display to open a window on (run it in a desktop session, under xvfb-run, or use "
        "--screenshot PNG to render the window to a file)"
    )


def _check_option_values(params, slice_text: str | None) -> None:
    """Refuse option values that can never work (unknown type names, bad slice text) up front.

    Problems that depend on the files (sizes, offsets past the end...) are shown in the window.
    """
    from core.dtypes.data_type import DataType
    from core.dtypes.table import resolve_dtype
    from core.slicing.expr import parse_slice

    if params.dtype is not None:
        resolve_dtype(params.dtype, extended_types=params.extended_types)
    if params.view_as is not None:
        try:
            DataType.parse(params.view_as)
        except CoreError as error:  # IllegalArgumentError: names no type
            raise CoreError(f"--view-as: {describe_error(error).message}", field="view_as") from None
    if slice_text:
        parse_slice(slice_text)


def _is_session(path: str) -> bool:
    """A session file, told by its content (``"format": "tensor-inspector-session"``)."""
    from core.session.sniff import looks_like_session, read_head

    return looks_like_session(read_head(path))


def _abs(path: str) -> str:
    """A local path made absolute; a URL as it is."""
    import os

    from core.files.remote import is_url

    return path if is_url(path) else os.path.abspath(path)
