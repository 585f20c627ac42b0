"""The commands of ``tensor-inspect`` and the dispatch to them.

``tensor-inspect WORD ...`` runs the command registered under WORD with the words after it;
any other command line is the plain command (:mod:`core.cli.show`: decode files and print the
view; a file named like a command is written ``./diff``). A command is a module with
``run(words) -> int`` (the exit status) and one :class:`Command` line in :data:`COMMANDS`; its
module is imported only when it runs, so ``--help`` and the plain command never load it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import import_module

from core.cli import show

__all__ = ["COMMANDS", "Command", "main"]


@dataclass(frozen=True)
class Command:
    """A subcommand: the ``word`` after ``tensor-inspect``, the ``module`` whose ``run(words)``
    runs it, and what it does in a few words."""

    word: str
    module: str
    summary: str


#: Every subcommand, one line each.
COMMANDS: tuple[Command, ...] = (
    Command("diff", "core.cli.diff", "compare tensor A with tensor B (exit 0 equal, 1 not, 2 bad input)"),
    Command("kerchunk", "core.cli.kerchunk", "write kerchunk references (a Zarr v2 array over the same bytes) for a decode"),
    Command("scan", "core.cli.scan", "scan every tensor of models, files and folders (exit 0 clean, 1 flagged, 2 errors)"),
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    for command in COMMANDS:
        if words[:1] == [command.word]:
            return import_module(command.module).run(words[1:])
    return show.run(words)
