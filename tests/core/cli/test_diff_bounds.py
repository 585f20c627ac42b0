"""``tensor-inspect diff`` is bounded (docs/compare.md, "How much a comparison may do"): it
refuses past the work limit unless --no-limit, checks --limit against the copy budget, says what
it will do before a large run, draws progress on a terminal only, and names the option of an
out-of-range --ulp or --max-shift."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

import core.budget
import core.cli.diff
from core.cli import main


def diff(capsys, *args) -> tuple[int, str, str]:
    status = main(["diff", *[str(a) for a in args]])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture
def pair(tmp_path):
    a = np.arange(16, dtype=np.float32)
    b = a.copy()
    b[[3, 9]] += 1
    a.tofile(tmp_path / "a.bin")
    b.tofile(tmp_path / "b.bin")
    return tmp_path / "a.bin", tmp_path / "b.bin"


def test_a_1_tib_sparse_pair_is_refused_before_it_is_read(tmp_path, capsys):
    for name in "ab":
        with open(tmp_path / name, "wb") as f:
            f.truncate(1 << 40)
    status, out, err = diff(capsys, tmp_path / "a", tmp_path / "b", "--dtype", "float32")
    assert (status, out) == (2, "")
    assert err == ("error: comparing 274,877,906,944 element pairs (1.0 TiB read from A, 1.0 TiB from B) "
                   "is above the limit of 2,147,483,648 pairs of one comparison (compare a slice of each side "
                   "with --slice, --a-slice and --b-slice, or give --no-limit)\n")


def test_shapes_that_broadcast_to_2_to_the_40_are_refused(tmp_path, capsys):
    np.zeros(1 << 20, np.float32).tofile(tmp_path / "v.bin")
    status, _, err = diff(capsys, tmp_path / "v.bin", tmp_path / "v.bin", "--dtype", "float32",
                          "--a-shape", f"{1 << 20},1", "--json")
    assert status == 2
    assert err.startswith("error: comparing 1,099,511,627,776 element pairs (4.0 TiB read from A, 4.0 TiB from B)")


def test_no_limit_lifts_the_limit(pair, capsys, monkeypatch):
    monkeypatch.setattr(core.cli.diff, "WORK_LIMIT", 10)
    status, _, err = diff(capsys, *pair, "--dtype", "float32")
    assert status == 2 and "is above the limit of 10 pairs" in err
    status, out, err = diff(capsys, *pair, "--dtype", "float32", "--no-limit", "--json")
    assert (status, err) == (1, "")
    assert json.loads(out)["mismatched"] == 2


def test_limit_is_checked_against_the_copy_budget(pair, capsys, monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 20_000)
    # --limit 10**9 on 16 pairs: 2 x 16 entries x 1 KiB = 32 KiB, above a 20,000-byte budget
    status, _, err = diff(capsys, *pair, "--dtype", "float32", "--limit", str(10**9), "--json")
    assert status == 2
    assert err == ("error: --limit: listing up to 32 first and worst mismatches would copy 32.0 KiB, above the "
                   "19.5 KiB copy budget (list fewer mismatches, or raise the budget with "
                   "TENSOR_INSPECTOR_COPY_BUDGET)\n")
    status, out, _ = diff(capsys, *pair, "--dtype", "float32", "--limit", "8", "--json")
    assert status == 1 and [m["flat"] for m in json.loads(out)["worst"]] == [3, 9]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_large_comparison_is_announced_and_shows_progress_on_a_terminal(pair, monkeypatch, capsys):
    monkeypatch.setattr(core.cli.diff, "ANNOUNCE_PAIRS", 16)
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["diff", str(pair[0]), str(pair[1]), "--dtype", "float32", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["compared"] == 16  # stdout: the JSON alone
    assert terminal.getvalue() == ("note: comparing 16 element pairs (64 bytes read from A, 64 bytes from B)\n"
                                   "\rcomparing: 100% (16 of 16 pairs)\r\x1b[K")


def test_redirected_stderr_gets_the_note_but_no_progress_line(pair, monkeypatch, capsys):
    monkeypatch.setattr(core.cli.diff, "ANNOUNCE_PAIRS", 16)
    status, _, err = diff(capsys, *pair, "--dtype", "float32")
    assert status == 1
    assert err == "note: comparing 16 element pairs (64 bytes read from A, 64 bytes from B)\n"
    monkeypatch.setattr(core.cli.diff, "ANNOUNCE_PAIRS", 17)
    assert diff(capsys, *pair, "--dtype", "float32")[2] == ""


def test_ulp_out_of_range_names_the_option_and_the_range(pair, capsys):
    status, out, err = diff(capsys, *pair, "--dtype", "float32", "--ulp", str(10**30))
    assert (status, out) == (2, "")
    assert err == ("error: --ulp: ulp 1,000,000,000,000,000,000,000,000,000,000 is out of range: ULP distances "
                   "are counted in 64 bits, so a tolerance is a whole number from 0 to "
                   "18,446,744,073,709,551,615 (2**64 - 1, which matches every finite pair)\n")


def test_a_huge_max_shift_names_the_option_and_the_range(pair, capsys):
    status, out, err = diff(capsys, *pair, "--dtype", "float32", "--shift", "auto", "--max-shift", str(10**15))
    assert (status, out) == (2, "")
    assert err == ("error: --max-shift: max_shift 1000000000000000 is out of range: the shift search tries "
                   "every shift from -max_shift to max_shift, so it takes a whole number from 0 to 65,536 "
                   "(give the shift itself when it is larger)\n")
