"""A file truncated *during* a comparison: reported as changed (SourceError), never SIGBUS.

Like tests/hostile/test_shrink_races.py: each race runs in a subprocess (a SIGBUS would kill
pytest), a timer truncates one side (to 0 or to half) a few milliseconds into the comparison,
cold and warm cache alternating. Every trial must end "complete" or "changed".
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRIALS = int(os.environ.get("TENSOR_INSPECTOR_RACE_TRIALS", "24"))

SCRIPT = r"""
import os, sys, threading
import numpy as np
from core.compare.scanner import compare_results
from core.errors import SourceError
from core.pipeline.pipeline import DecodeParams, Pipeline

directory, trials = sys.argv[1], int(sys.argv[2])
size = 24 << 20
paths = [os.path.join(directory, name) for name in ("a.bin", "b.bin")]
outcomes = []
for trial in range(trials):
    for path in paths:
        with open(path, "wb") as f:
            f.write(np.arange(size // 4, dtype=np.float32).tobytes())
    victim = paths[trial % 2]
    if trial % 4 >= 2:
        os.posix_fadvise(os.open(victim, os.O_RDONLY), 0, 0, os.POSIX_FADV_DONTNEED)  # cold cache
    pa, pb = Pipeline([paths[0]]), Pipeline([paths[1]])
    cut = threading.Timer(0.002 * (trial % 3), os.truncate, (victim, (trial % 2) * (size // 2)))
    try:
        ra = pa.run(DecodeParams(dtype="float32", shape=(-1, 4096)))
        rb = pb.run(DecodeParams(dtype="float32", shape=(-1, 4096)))
        cut.start()
        compare_results(ra, rb, chunk_elements=1 << 16)
        outcomes.append("complete")
    except SourceError:
        outcomes.append("changed")
    finally:
        cut.join()
        pa.close()
        pb.close()
print(",".join(outcomes))
"""


def test_truncation_during_a_comparison_is_reported_not_a_crash(tmp_path):
    script = tmp_path / "race.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, str(script), str(tmp_path), str(TRIALS)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]  # -7 would be SIGBUS
    outcomes = run.stdout.strip().split(",")
    assert len(outcomes) == TRIALS and set(outcomes) <= {"complete", "changed"}
    assert "changed" in outcomes  # the race really happened


def test_the_command_exits_two_when_a_file_shrinks_meanwhile(tmp_path):
    # Deterministic: B is truncated while the third block is being compared.
    code = r"""
import os, sys
import numpy as np
import core.compare.scanner as scanner
from core.cli import main
path_a, path_b = sys.argv[1], sys.argv[2]
for path in (path_a, path_b):
    np.arange(4 << 20, dtype=np.float32).tofile(path)
original, calls = scanner.summarise_block, []

def truncating(*args, **kwargs):
    calls.append(1)
    if len(calls) == 3:
        os.truncate(path_b, 1 << 20)
    return original(*args, **kwargs)

scanner.summarise_block = truncating
sys.exit(main(["diff", path_a, path_b, "--dtype", "float32"]))
"""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.bin"), str(tmp_path / "b.bin")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 2, (run.returncode, run.stderr[-2000:])
    assert run.stdout == "" and run.stderr.count("\n") == 1
    assert run.stderr.startswith(f"error: '{tmp_path / 'b.bin'}' changed on disk")
