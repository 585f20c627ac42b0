"""The command registry: ``tensor-inspect WORD ...`` runs the module registered under WORD."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import core.cli.commands as commands
from core.cli import main
from core.cli.commands import COMMANDS, Command

ROOT = Path(__file__).resolve().parents[3]


def test_the_registered_commands_and_their_modules():
    assert [(c.word, c.module) for c in COMMANDS] == [("diff", "core.cli.diff"), ("kerchunk", "core.cli.kerchunk"),
                                                           ("scan", "core.cli.scan")]


def test_a_registered_command_runs_with_the_words_after_it(monkeypatch, capsys):
    # One Command line is all a new command needs: here "compare" runs diff's module.
    monkeypatch.setattr(commands, "COMMANDS", COMMANDS + (Command("compare", "core.cli.diff", "again"),))
    assert main(["compare", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: tensor-inspect diff [-h]")
    assert main(["compare", "only-one"]) == 2
    assert capsys.readouterr().err == ("error: the following arguments are required: B (see --help)\n")


def test_a_file_named_like_a_command_is_the_plain_command(tmp_path, capsys, monkeypatch):
    (tmp_path / "diff").write_bytes(b"\x01\x02")
    monkeypatch.chdir(tmp_path)
    assert main(["./diff"]) == 0
    assert capsys.readouterr().out == "shape: (2,)\ndtype: uint8\n[1 2]\n"


def test_the_plain_command_does_not_import_the_subcommands():
    code = ("import sys\nfrom core.cli import main\nmain(['--help'])\n"
            "print('core.cli.diff' in sys.modules, 'core.compare.scanner' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().endswith("False False"), out.stderr
