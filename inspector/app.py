"""GUI entry point: ``tensor-inspector [FILE ...]`` and ``python -m inspector [FILE ...]``.

Shares the option set of the headless command (:mod:`core.cli`); options given on the command
line override the settings remembered for the files. With no FILE the embedded sample opens with
its preset settings. ``--screenshot PNG`` renders the window exactly as the user would see it
(errors included), saves it and exits 0. Bad options print one ``error:`` line and exit 2; the
parser runs before Qt is imported, so ``--help`` needs no display.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields, replace

from core.cli import CliArgumentParser, add_pipeline_options, params_from_args


def build_parser() -> argparse.ArgumentParser:
    parser = CliArgumentParser(
        prog="tensor-inspector",
        description="Open binary tensor files and see them as tf.io.decode_raw and tf.strided_slice would.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="files to open (none: the embedded sample)")
    add_pipeline_options(parser)
    parser.add_argument("--screenshot", metavar="PNG", help="render the window to PNG and exit")
    return parser


def merge_params(base, overrides):
    """``overrides`` fields that are not None replace those of ``base``."""
    changes = {f.name: getattr(overrides, f.name) for f in fields(overrides) if getattr(overrides, f.name) is not None}
    changes.pop("extended_types", None)
    return replace(base, **changes)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    cli_params, slice_text = params_from_args(args)

    from PySide6.QtWidgets import QApplication

    from inspector.main_window import MainWindow
    from inspector.plot_panel import configure_pyqtgraph
    from resources import DEFAULT_SAMPLE, resource_path, sample_settings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("tensor-inspector")
    configure_pyqtgraph()
    window = MainWindow()
    if args.screenshot:
        window.resize(1400, 860)
    from core.pipeline import DecodeParams

    if args.files:
        paths = args.files
        remembered = window.settings.decode_settings(tuple(_abs(p) for p in paths))
        base = remembered[0] if remembered else DecodeParams()
        base_slice = remembered[1] if remembered else ""
    else:
        paths = [str(resource_path(DEFAULT_SAMPLE))]
        preset = sample_settings()[DEFAULT_SAMPLE]
        base = DecodeParams(**{k: tuple(v) if isinstance(v, list) else v for k, v in preset.items()})
        base_slice = ""
    window.open_paths(paths, merge_params(base, cli_params), slice_text if slice_text is not None else base_slice)
    window.show()
    if args.screenshot:
        return _screenshot(app, window, args.screenshot)
    return app.exec()


def _screenshot(app, window, path: str) -> int:
    """Let pending work settle, render the window to ``path`` and close."""
    from PySide6.QtCore import QElapsedTimer

    timer = QElapsedTimer()
    timer.start()
    while timer.elapsed() < 400:
        app.processEvents()
    if not window.grab().save(path):
        print(f"error: cannot write the screenshot to {path} (check the directory exists and is writable)", file=sys.stderr)
        window.close()
        return 2
    window.close()
    return 0


def _abs(path: str) -> str:
    import os

    return os.path.abspath(path)
