"""Machine description and writing the results into the READMEs."""

from __future__ import annotations

import os
import platform
import re

import numpy as np

from benchmarks.harness import ROOT, Row


def machine_description() -> str:
    """CPU, cores, Python, numpy and Qt versions of this run."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        import PySide6

        qt = f"PySide6 {PySide6.__version__}"
    except ImportError:
        qt = "PySide6 not installed"
    try:
        import pyqtgraph

        qt += f", pyqtgraph {pyqtgraph.__version__}"
    except ImportError:
        pass
    return (
        f"Machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}; "
        f"numpy {np.__version__}; {qt}; {_tensorflow()}; {platform.system()} {platform.release()}"
    )


def _tensorflow() -> str:
    """TensorFlow's version, read from its installed metadata (importing it takes seconds)."""
    from importlib import metadata

    for name in ("tensorflow", "tensorflow-cpu"):
        try:
            return f"TensorFlow {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    return "TensorFlow not installed (its baselines skipped)"


def write_reports(table: str, rows: list[Row], quick: bool) -> None:
    kind = "python -m benchmarks --quick" if quick else "python -m benchmarks"
    body = (
        "# Benchmarks\n\n"
        "Every performance goal of the project, measured by `python -m benchmarks` (full) or "
        "`python -m benchmarks --quick` (a subset, under a minute). Each figure is the median of "
        "several runs after a warm-up; baselines are measured in the same run on the same data; "
        "memory is the peak RSS of a fresh subprocess (`resource.getrusage`). The test suite only "
        "smoke-tests this harness with tiny sizes; it asserts no timings.\n\n"
        "The TensorFlow baselines run when TensorFlow is importable; the project never depends on "
        "it. To include them, run from an environment that has it too: `python3 -m venv /tmp/tf && "
        "/tmp/tf/bin/pip install tensorflow-cpu -e '.[test]' && /tmp/tf/bin/python -m benchmarks`.\n\n"
        f"Last run (`{kind}`):\n\n{machine_description()}\n\n{table}\n"
    )
    (ROOT / "benchmarks" / "README.md").write_text(body, encoding="utf-8")
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    summary = (
        "<!-- benchmarks:start -->\n"
        f"{machine_description()}\n\n{table}\n"
        "<!-- benchmarks:end -->"
    )
    if "<!-- benchmarks:start -->" in text:
        text = re.sub(r"<!-- benchmarks:start -->.*?<!-- benchmarks:end -->", lambda _m: summary, text, flags=re.S)
        readme.write_text(text, encoding="utf-8")
