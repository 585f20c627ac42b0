"""The headless command ``tensor-inspect`` (``python -m core``): one module per command.

- ``commands``: the registry of subcommands (:data:`~core.cli.commands.COMMANDS`) and
  :func:`main`, which dispatches to them;
- ``show``: the plain command, ``tensor-inspect FILE ...`` (decode, shape, slice, print; the
  tensors of a container: ``--list``, ``--tensor``);
- ``diff``: ``tensor-inspect diff A B``, compare two tensors (docs/compare.md);
- ``session``: ``--session S.json`` and ``--bookmark NAME`` (docs/sessions.md);
- ``guess``: ``--guess``, the ranked layout candidates (docs/guess.md);
- ``kerchunk``: ``tensor-inspect kerchunk FILE... -o REFS.json``, the decode as kerchunk references;
- ``options``: what every command shares: the parser whose errors are one line, the decode and
  slice options (also the GUI entry point's), the ``error:`` line and exit status 2;
- ``printing``: a view printed as text laid out as numpy prints arrays, or as JSON, streamed.

Adding a command is one module with ``run(words) -> int`` plus one line in ``COMMANDS``.
Every command runs the same :class:`~core.pipeline.pipeline.Pipeline` as the GUI and formats
numbers with :mod:`core.text`; nothing here imports Qt.

May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``, ``core.slicing``,
``core.decode``, ``core.tflite``, ``core.files``, ``core.records``, ``core.frames``, ``core.scan``, ``core.pipeline``,
``core.formats``, ``core.export``, ``core.session``, ``core.guess``, ``core.compare``,
``core.models`` and ``core.api`` (every engine package below it but ``core.display``).
"""

from core.cli.commands import main
from core.cli.options import (
    CliArgumentParser,
    OneLineErrorParser,
    add_pipeline_options,
    join_dash_values,
    params_from_args,
)
from core.cli.printing import json_pieces, render_json, render_text, text_pieces
from core.cli.show import build_parser

__all__ = [
    "CliArgumentParser", "OneLineErrorParser", "add_pipeline_options", "build_parser", "join_dash_values", "json_pieces",
    "main", "params_from_args", "render_json", "render_text", "text_pieces",
]
