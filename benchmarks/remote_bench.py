"""Remote files over loopback (issue 34): a real nginx from Debian (the test suite's server,
tests/remote/servers.py) serving files from a temporary folder.

Goals: one tensor of a 4 GiB safetensors file opened in at most 3 requests before its first
value, and read whole for at most 1.2x the bytes of its header and tensor; the first paint of a
1 GiB remote raw file at most 1.5x the local one; scrolling the table fetches only the blocks
shown (bytes per screen); statistics of a 1 GiB remote file at >= 0.7x the throughput of
fsspec's own ``cat`` of the whole object from the same server.

The files hold real values (random float32), written once; the server's page cache holds them,
as a nearby object store's would. Loopback has no latency: the counts of requests and bytes
are the figures that carry to a real network, the times are the floor.
"""

from __future__ import annotations

import json
import os
import struct
import sys
from pathlib import Path

import numpy as np

from benchmarks.harness import ROOT, Row, median_time, temp_dir, write_random

MiB = 1 << 20
GiB = 1 << 30


def _servers():
    sys.path.insert(0, str(ROOT / "tests" / "remote"))
    import servers

    return servers


def _safetensors(path: Path, tensors: int, tensor_bytes: int) -> tuple[int, str]:
    """A safetensors file of ``tensors`` float32 tensors of ``tensor_bytes`` each: the values of
    the one benchmarked (the middle one) are random, the others a sparse hole (zeros that take no
    disk). Returns the header's length and the benchmarked tensor's name."""
    header, offset = {}, 0
    for i in range(tensors):
        header[f"model.layers.{i}.mlp.weight"] = {"dtype": "F32", "shape": [tensor_bytes // 4 // 1024, 1024],
                                                  "data_offsets": [offset, offset + tensor_bytes]}
        offset += tensor_bytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    chosen = tensors // 2
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text)
        out.seek(8 + len(text) + chosen * tensor_bytes)
        rng = np.random.default_rng(3)
        out.write(rng.standard_normal(tensor_bytes // 4, dtype=np.float32).tobytes())
        out.truncate(8 + len(text) + tensors * tensor_bytes)
    return 8 + len(text), f"model.layers.{chosen}.mlp.weight"


def tensor_rows(nginx, folder: Path, total: int) -> list[Row]:
    import core.files.remote as remote
    from core import tensor

    count = 64
    header, name = _safetensors(folder / "model.safetensors", count, total // count)
    url = nginx.url("model.safetensors")
    remote.set_cache_capacity(256 * MiB)
    remote.cache().clear()
    nginx.clear_log()
    first = tensor(url, name, slice="0, :8")
    before_first = len(nginx.requests(at_least=1))
    remote.set_cache_capacity(256 * MiB)
    remote.cache().clear()
    remote._infos.clear()
    nginx.clear_log()
    whole = tensor(url, name)
    fetched = sum(r.body_bytes_sent for r in nginx.requests(at_least=1) if r.method == "GET")
    needed = header + whole.nbytes
    assert first.shape == (8,)
    label = f"{total / GiB:g} GiB safetensors, {count} tensors"
    return [
        Row(f"open one tensor over HTTP ({label}): requests before its first value", before_first, None, "",
            "<= 3", before_first <= 3, unit="requests"),
        Row(f"read one tensor whole over HTTP ({label}): bytes fetched vs its header + tensor", fetched / needed,
            None, "header + tensor bytes", "<= 1.2x", fetched / needed <= 1.2, unit="x",
            note=f"{fetched / MiB:.1f} MiB fetched for {needed / MiB:.1f} MiB"),
    ]


_PAINT = """
import os, sys, time, json
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
app = QApplication([])
configure_pyqtgraph()
w = MainWindow(SettingsStore(QSettings({ini!r}, QSettings.IniFormat)))
w.resize(1400, 860)
w.show()
app.processEvents()
t_import = time.perf_counter()
w.open_paths([{warm!r}], DecodeParams(dtype="uint8"))  # a first, tiny file of the same kind: what a
w.grab()                                                # running app has done before (imports, session)
t_import = time.perf_counter() - t_import
app.processEvents()
t0 = time.perf_counter()
w.open_paths([{path!r}], DecodeParams(dtype="float32", shape=({rows}, 4096)))
w.grab()  # forces the first paint of every visible widget
first_paint = time.perf_counter() - t0
image = w.plot_panel.image_plot.image_item
while image.image is None and time.perf_counter() - t0 < 60:  # a remote image arrives in the background
    app.processEvents()
    time.sleep(0.001)
RESULT = dict(first_paint=first_paint, image=time.perf_counter() - t0, warm=t_import, error=str(w.document.error))
w.close()
w.deleteLater()
app.processEvents()
del w
"""


def paint_rows(nginx, folder: Path, nbytes: int, repeats: int) -> list[Row]:
    from benchmarks.harness import run_probe

    write_random(folder / "raw.bin", nbytes, 11)
    (folder / "warm.bin").write_bytes(bytes(range(256)) * 4)
    rows = nbytes // 4 // 4096
    ini = str(folder / "settings.ini")
    local, far, first_import, far_image, local_image = [], [], [], [], []
    for _ in range(max(3, repeats // 2)):  # interleaved: the machine's load hits both alike
        here = run_probe(_PAINT.format(ini=ini, path=str(folder / "raw.bin"), warm=str(folder / "warm.bin"),
                                       rows=rows))
        there = run_probe(_PAINT.format(ini=ini, path=nginx.url("raw.bin"), warm=nginx.url("warm.bin"), rows=rows))
        local.append(here["first_paint"])
        far.append(there["first_paint"])
        local_image.append(here["image"])
        far_image.append(there["image"])
        first_import.append(there["warm"] - here["warm"])
    local_s, remote_s = sorted(local)[len(local) // 2], sorted(far)[len(far) // 2]
    imports = sorted(first_import)[len(first_import) // 2]
    image_s, local_image_s = sorted(far_image)[len(far_image) // 2], sorted(local_image)[len(local_image) // 2]
    label = f"{nbytes / GiB:g} GiB" if nbytes >= GiB else f"{nbytes // MiB} MiB"
    return [
        Row(f"first paint of a {label} float32 raw file (rows of 4096) over HTTP, open to painted window", remote_s,
            local_s, "the same file on local disk", "<= 1.5x", remote_s <= 1.5 * local_s),
        Row(f"image of the same {label} file drawn over HTTP (its window fetched in the background)", image_s,
            local_image_s, "the same file on local disk", "reported", None),
        Row("first remote file of a process: added time (fsspec and aiohttp imports, the HTTP session)", imports,
            None, "", "reported", None),
    ]


def screen_rows(nginx, folder: Path) -> list[Row]:
    from PySide6.QtWidgets import QApplication

    import core.files.remote as remote
    from core import DecodeParams, Pipeline
    from inspector.table.model import ArrayTableModel

    app = QApplication.instance() or QApplication([])  # noqa: F841 (models need an app)
    path = folder / "raw.bin"
    rows = os.path.getsize(path) // 4 // 4096
    remote.set_cache_capacity(256 * MiB)
    remote.cache().clear()
    tops = np.random.default_rng(1).integers(0, 1 << 30, 16)
    out = []
    for name, kind, params in (("one column (1-d)", "column", DecodeParams(dtype="float32")),
                               ("40 x 12 cells of 4096-wide rows", "wide",
                                DecodeParams(dtype="float32", shape=(rows, 4096)))):
        with Pipeline(nginx.url("raw.bin")) as pipe:
            result = pipe.run(params)
            model = ArrayTableModel()
            model.set_array(result.view, reader=result.block_reader(1 << 20))
            before = pipe.source.transfer()
            for top in tops.tolist():
                top %= max(model.rowCount() - 40, 1)
                for r in range(top, top + 40):
                    for c in range(1 if kind == "column" else 12):
                        model.value_at(r, c)  # what painting reads, waited for
            after = pipe.source.transfer()
        per_screen = (after.bytes_fetched - before.bytes_fetched) / len(tops)
        requests = (after.requests - before.requests) / len(tops)
        out.append(Row(f"table over HTTP, {name}: bytes fetched per screen", per_screen, None, "",
                       "only the blocks shown", per_screen <= 2 * MiB, unit="B",
                       note=f"{requests:.1f} requests per screen"))
        del model, result
    return out


def statistics_rows(nginx, folder: Path, repeats: int) -> list[Row]:
    import fsspec

    import core.files.remote as remote
    from core import DecodeParams, Pipeline
    from core.scan.statistics import compute_statistics

    url = nginx.url("raw.bin")
    nbytes = os.path.getsize(folder / "raw.bin")
    fs = fsspec.filesystem("http", skip_instance_cache=True)

    def cat():
        assert len(fs.cat_file(url)) == nbytes

    def stats():
        remote.set_cache_capacity(256 * MiB)  # cold cache: every byte comes from the server
        remote.cache().clear()
        remote._infos.clear()
        with Pipeline(url) as pipe:
            result = pipe.run(DecodeParams(dtype="float32"))
            compute_statistics(result.view, reader=result.block_reader(), check=pipe.source.check_unchanged)

    cat_s = median_time(cat, repeats=max(3, repeats // 2))
    stats_s = median_time(stats, repeats=max(3, repeats // 2))
    ratio = cat_s / stats_s
    label = f"{nbytes / GiB:g} GiB" if nbytes >= GiB else f"{nbytes // MiB} MiB"
    return [Row(f"statistics of a {label} float32 file over HTTP: throughput vs fsspec cat of it", ratio, None,
                "fsspec's cat_file of the whole object", ">= 0.7x", ratio >= 0.7, unit="x",
                note=f"statistics {stats_s:.2f} s, cat {cat_s:.2f} s")]


def rows(*, tiny: bool = False, quick: bool = False, repeats: int = 3) -> list[Row]:
    servers = _servers()
    if servers.nginx_binary() is None:
        return [Row("remote files over HTTP (needs nginx: apt-get install -y nginx)", None, None, "", "", None)]
    total = 64 * MiB if tiny else (1 * GiB if quick else 4 * GiB)
    raw = 16 * MiB if tiny else (256 * MiB if quick else 1 * GiB)
    out: list[Row] = []
    with temp_dir() as tmp:
        folder = Path(tmp)
        with servers.NginxServer(folder) as nginx:
            out += tensor_rows(nginx, folder, total)
            (folder / "model.safetensors").unlink()
            out += paint_rows(nginx, folder, raw, repeats)
            out += screen_rows(nginx, folder)
            out += statistics_rows(nginx, folder, repeats)
    return out
