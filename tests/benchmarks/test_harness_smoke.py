"""The benchmark harness runs end to end (tiny sizes: the numbers mean nothing, no timing asserted)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_benchmarks_tiny_run_prints_the_table(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--tiny"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "| figure | ours | baseline | ratio | target | met |" in out.stdout
    for figure in (
        "open+decode+read 1 record",
        "added peak memory",
        "padded decode",
        "slice apply",
        "statistics throughput",
        "GUI time to first paint",
        "table data() per screen",
        "slice edit -> table model and plot items updated",
        "plot first paint",
        "plot pan/zoom redraw",
        "GUI event-loop latency",
        "list a GGUF with 20 tensors",
        "TFLite model (sparse; buffers past the flatbuffer)",
        "list a safetensors file with",
        "open one tensor of a",
        "while comparing two",
        "list a PyTorch checkpoint of 50 tensors",
        "open one tensor of a PyTorch checkpoint",
        "requests before its first value",
        "bytes fetched per screen",
        "over HTTP: throughput vs fsspec cat",
    ):
        assert figure in out.stdout, figure
    assert "Machine:" in out.stdout and "numpy" in out.stdout
