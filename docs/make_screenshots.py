"""Regenerate the README's screenshots from the real app (``python docs/make_screenshots.py``).

Each screenshot is the app's own ``--screenshot`` rendering (offscreen) of an example file
written here, with the options shown in the README's user guide.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"


def sensor_dump(path: Path) -> None:
    """1-d: a 32-byte header, then 20,000 big-endian int16 samples of a chirp with noise."""
    t = np.linspace(0, 1, 20_000)
    rng = np.random.default_rng(0)
    signal = 8000 * np.sin(2 * np.pi * (5 + 40 * t) * t) + 600 * rng.standard_normal(t.size)
    path.write_bytes(b"SENSORDUMP v2".ljust(32, b"\0") + signal.astype(">i2").tobytes())


def spectrogram_records(path: Path) -> None:
    """2-d: 240 records of 64 little-endian float32 values (one 256-byte record per frame)."""
    frames, bins = np.mgrid[0:240, 0:64].astype(np.float32)
    track = 32 + 20 * np.sin(frames / 30)
    image = np.exp(-((bins - track) ** 2) / 8) + 0.5 * np.exp(-((bins - 10) ** 2) / 2) * (frames % 60 < 30)
    path.write_bytes(image.astype("<f4").tobytes())


def batch_4d(path: Path) -> None:
    """4-d: a float32 batch of 2 images x 3 channels x 32 x 48, as a model input dump."""
    n, c, y, x = np.meshgrid(np.arange(2), np.arange(3), np.arange(32), np.arange(48), indexing="ij")
    values = np.sin(x / (4 + 2 * c)) * np.cos(y / (3 + n)) + 0.1 * c
    path.write_bytes(values.astype("<f4").tobytes())


def checkpoint(path: Path) -> None:
    """Containers: a small safetensors checkpoint (written by the safetensors package)."""
    from safetensors.numpy import save_file

    y, x = np.mgrid[0:48, 0:64].astype(np.float32)
    rng = np.random.default_rng(1)
    save_file({
        "embed.weight": (np.sin(x / 6) * np.cos(y / 9) + 0.05 * rng.standard_normal((48, 64))).astype(np.float32),
        "layers.0.attn.q_proj.weight": rng.standard_normal((64, 64)).astype(np.float16),
        "layers.0.attn.q_proj.bias": np.linspace(-1, 1, 64, dtype=np.float32),
        "layers.0.mlp.up.weight": rng.standard_normal((128, 64)).astype(np.float32),
        "layers.0.norm.scale": np.ones(64, np.float32),
        "lm_head.weight": rng.standard_normal((100, 64)).astype(np.float16),
    }, str(path), metadata={"format": "pt", "producer": "make_screenshots.py"})


checkpoint.suffix = ".safetensors"  # type: ignore[attr-defined]


def torch_checkpoint(path: Path) -> None:
    """Containers: a PyTorch Lightning checkpoint written by torch.save (committed: PyTorch is
    not needed here; docs/screenshot_inputs/make_checkpoint.py wrote it)."""
    path.write_bytes((ROOT / "docs" / "screenshot_inputs" / "lightning.ckpt").read_bytes())


torch_checkpoint.suffix = ".ckpt"  # type: ignore[attr-defined]


def rgb_frame(path: Path) -> None:
    """Colour: one 180 x 240 RGB frame, HWC uint8 (a camera dump: colour bars over a gradient, a disc)."""
    y, x = np.mgrid[0:180, 0:240].astype(np.float32)
    bars = np.array([[255, 255, 255], [255, 255, 0], [0, 255, 255], [0, 255, 0],
                     [255, 0, 255], [255, 0, 0], [0, 0, 255], [0, 0, 0]], dtype=np.float32)
    frame = bars[(x // 30).astype(int)]
    fade = (y / 179)[..., None]
    frame = frame * (1 - fade) + fade * np.stack([x / 239 * 255, 128 + 0 * x, 255 - x / 239 * 255], -1)
    disc = (x - 170) ** 2 + (y - 120) ** 2 < 35**2
    frame[disc] = [255, 140, 0]
    path.write_bytes(np.clip(frame, 0, 255).astype(np.uint8).tobytes())


def chw_batch(path: Path) -> None:
    """Colour: a float32 NCHW batch of 4 images x 3 channels x 96 x 128 in [0, 1], as a model input."""
    n, y, x = np.meshgrid(np.arange(4), np.arange(96), np.arange(128), indexing="ij")
    red = 0.5 + 0.5 * np.sin(x / (6 + 2 * n))
    green = 0.5 + 0.5 * np.cos(y / (5 + n))
    blue = ((x - 64) ** 2 + (y - 48) ** 2 < (20 + 6 * n) ** 2).astype(float)
    path.write_bytes(np.stack([red, green, blue], axis=1).astype("<f4").tobytes())


def iq_capture(path: Path) -> None:
    """Complex: 400,000 complex64 samples of a noisy 16-QAM radio capture (I + jQ interleaved)."""
    rng = np.random.default_rng(3)
    levels = np.array([-3, -1, 1, 3], dtype=np.float32)
    symbols = levels[rng.integers(0, 4, 400_000)] + 1j * levels[rng.integers(0, 4, 400_000)]
    noise = 0.18 * (rng.standard_normal(400_000) + 1j * rng.standard_normal(400_000))
    path.write_bytes((symbols * np.exp(0.1j) + noise).astype("<c8").tobytes())


def model_outputs(path: Path) -> None:
    """A 2-d float32 output (48 x 64) and its golden reference beside it (``golden.bin``): equal
    up to float32 rounding noise, except a 6 x 8 patch off by up to 0.05 and one element by 0.08."""
    y, x = np.mgrid[0:48, 0:64].astype(np.float32)
    golden = np.sin(x / 9.0) * np.cos(y / 7.0)
    output = golden + np.random.default_rng(3).normal(0, 2e-7, golden.shape).astype(np.float32)
    output[20:26, 30:38] += np.linspace(0.01, 0.05, 48, dtype=np.float32).reshape(6, 8)
    output[40, 10] = golden[40, 10] + 0.08
    output.astype(np.float32).tofile(path)
    golden.astype(np.float32).tofile(path.with_name("golden.bin"))


def broken_checkpoint(path: Path) -> None:
    """The Model dock: a 24-layer safetensors checkpoint (written by the safetensors package)
    after a bad fine-tuning step: layer 15's attention output has NaN and infinities, two norms
    are all zeros, one bias is constant."""
    from safetensors.numpy import save_file

    rng = np.random.default_rng(5)
    tensors = {"embed.weight": rng.normal(0, 0.02, (128, 64)).astype(np.float32)}
    for layer in range(24):
        tensors[f"layers.{layer}.attn.o_proj.weight"] = rng.normal(0, 0.02, (64, 64)).astype(np.float32)
        tensors[f"layers.{layer}.mlp.up.weight"] = rng.normal(0, 0.02, (128, 64)).astype(np.float32)
        tensors[f"layers.{layer}.norm.weight"] = (1 + rng.normal(0, 0.05, 64)).astype(np.float32)
    broken = tensors["layers.15.attn.o_proj.weight"]
    broken[5:9, 10:40] = np.nan  # the tensor shown is layer 16: rows 15 and 17 in sight
    broken[20, 3] = np.inf
    tensors["layers.17.norm.weight"][:] = 0
    tensors["layers.18.norm.weight"][:] = 0
    tensors["layers.4.norm.weight"][:] = 1
    save_file(tensors, str(path), metadata={"format": "pt", "producer": "make_screenshots.py"})


broken_checkpoint.suffix = ".safetensors"  # type: ignore[attr-defined]


def layer_dumps(path: Path) -> None:
    """Compare models: a port's per-layer activations (a folder of ``.npy`` dumps, 12 layers of
    48 x 64 float32) and the golden ones beside it (``golden/``): equal through layer 6, then a
    patch that drifts further at each layer."""
    y, x = np.mgrid[0:48, 0:64].astype(np.float32)
    path.mkdir()
    golden = path.with_name("golden")
    golden.mkdir()
    for layer in range(1, 13):
        values = (np.sin(x / (4 + layer)) * np.cos(y / (3 + layer / 2))).astype(np.float32)
        np.save(golden / f"layer{layer}.npy", values)
        if layer >= 7:
            values = values.copy()
            values[10:30, 20:44] += np.float32(0.004 * (layer - 6) ** 2) * np.sin(x[10:30, 20:44] / 3)
        np.save(path / f"layer{layer}.npy", values)


layer_dumps.suffix = ""  # type: ignore[attr-defined]


def bookmarked_session(path: Path) -> None:
    """Sessions: a session file (written by the session engine) of the spectrogram records beside
    it, with element, region and byte-range bookmarks; opened as ``tensor-inspector S.json``."""
    sys.path.insert(0, str(ROOT))
    from core.pipeline.pipeline import DecodeParams
    from core.session.bookmark import Bookmark
    from core.session.session_file import Session, capture_file, save_session

    data = path.with_name("spectrogram.bin")
    spectrogram_records(data)
    params = DecodeParams(dtype="float32", record_size=256)
    marks = (
        Bookmark("track peak", "element", params=params, index=(30, 52), note="the track at its highest",
                 colour="#d9480f"),
        Bookmark("track low", "element", params=params, index=(120, 12), colour="#ae3ec9"),
        Bookmark("first burst", "region", params=params, slice_text="[0:30, 6:15]",
                 note="the 10-bin tone is on for 30 frames", colour="#2f9e44"),
        Bookmark("frame 30 end", "bytes", byte_range=(30 * 256 + 192, 64), note="values 48 to 63 of frame 30",
                 colour="#1c7ed6"),
    )
    save_session(Session(files=(capture_file(str(data)),), params=params,
                         display={"plot_mode": "image", "selection": [30, 52]}, bookmarks=marks), str(path))


bookmarked_session.suffix = ".json"  # type: ignore[attr-defined]


SENSOR_STRUCT = ("enum mode { IDLE, RUN, FAULT = 7 };\n"
                 "struct sample { uint32_t ts; int16_t ch[4]; float gain; uint8_t flags:3; uint8_t level:5; "
                 "enum mode m; };")


def sensor_records(path: Path) -> None:
    """A firmware log of ``struct sample`` records (x86-64 layout, 24 bytes) after a 16-byte header:
    a millisecond timestamp, four channels (sines with noise, channel 2 saturating), a gain that
    steps, bit fields and a mode enum, as numpy writes the same structured dtype."""
    n = 4000
    dtype = np.dtype({"names": ["ts", "ch", "gain", "bits", "m"],
                      "formats": ["<u4", ("<i2", (4,)), "<f4", "<u1", "<i4"],
                      "offsets": [0, 4, 12, 16, 20], "itemsize": 24})
    rng = np.random.default_rng(36)
    t = np.arange(n)
    data = np.zeros(n, dtype)
    data["ts"] = 1_700_000 + t * 5
    for k, (amplitude, period) in enumerate([(9000, 700), (6000, 420), (14000, 1000), (2500, 90)]):
        data["ch"][:, k] = np.clip(amplitude * np.sin(2 * np.pi * t / period + k) + rng.normal(0, 300, n),
                                   -12000, 12000).astype(np.int16)
    data["gain"] = np.where(t < 2600, 1.0, 2.5)
    data["bits"] = (np.minimum(t // 150, 31) << 3) | (t % 5)
    data["m"] = np.where(t < 3400, 1, 7)
    path.write_bytes(b"LOGv2\x00\x00\x00" + (n).to_bytes(4, "little") + bytes(4) + data.tobytes())


SHOTS = [
    ("sample.png", None, []),
    ("one_d.png", sensor_dump, ["--dtype", "int16", "--big-endian", "--offset", "32"]),
    ("two_d.png", spectrogram_records, ["--dtype", "float32", "--record-size", "256"]),
    ("four_d.png", batch_4d, ["--dtype", "float32", "--shape", "2,3,32,48"]),
    ("slice_editor.png", batch_4d, ["--dtype", "float32", "--shape", "2,3,32,48", "--slice", "[-1, 1:, ..., ::-2]"]),
    ("containers.png", checkpoint, []),
    ("pytorch.png", torch_checkpoint, ["--tensor", "state_dict/encoder.layers.0.mlp.down.weight"]),
    ("rgb_frame.png", rgb_frame, ["--dtype", "uint8", "--shape", "180,240,3", "--colour", "RGB"]),
    ("chw_batch.png", chw_batch, ["--dtype", "float32", "--shape", "4,3,96,128", "--colour", "RGB"]),
    ("iq_constellation.png", iq_capture, ["--dtype", "complex64", "--complex-part", "constellation"]),
    ("compare.png", model_outputs, ["--dtype", "float32", "--shape", "48,64", "--compare", "{dir}/golden.bin"]),
    ("bookmarks.png", bookmarked_session, []),
    ("model_scan.png", broken_checkpoint, ["--tensor", "layers.16.attn.o_proj.weight"]),
    ("compare_models.png", layer_dumps, ["--compare", "{dir}/golden"]),
    # {served}: the file is opened by its URL from a loopback nginx (tests/remote/servers.py)
    ("remote.png", checkpoint, ["{served}", "--tensor", "embed.weight"]),
    ("records.png", sensor_records, ["--struct", SENSOR_STRUCT, "--offset", "16",
                                     "--plot-fields", "ch[0],ch[1],ch[2]"]),
    ("cluster.png", broken_checkpoint, ["--tensor", "layers.16.attn.o_proj.weight", "--workers", "2"]),
]


@contextlib.contextmanager
def _served(files: list[str], serve: bool):
    """``files`` as they are, or (``serve``) as URLs of a loopback nginx serving their folder."""
    if not serve:
        yield files
        return
    sys.path.insert(0, str(ROOT / "tests" / "remote"))
    from servers import NginxServer

    with NginxServer(Path(files[0]).parent) as server:
        yield [server.url(Path(f).name) for f in files]


def main(names: list[str] | None = None) -> int:
    """Write every screenshot, or only those named (``python docs/make_screenshots.py rgb_frame.png``)."""
    OUT.mkdir(parents=True, exist_ok=True)
    unknown = set(names or ()) - {name for name, _make, _options in SHOTS}
    if unknown:
        print(f"error: no screenshot named {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(Path(tmp) / "config"))
        for name, make, options in SHOTS:
            if names and name not in names:
                continue
            files = []
            if make is not None:
                data = Path(tmp) / (make.__name__ + getattr(make, "suffix", ".bin"))
                make(data)
                files = [str(data)]
            options = [option.replace("{dir}", tmp) for option in options]
            with _served(files, "{served}" in options) as shown:
                options = [option for option in options if option != "{served}"]
                command = [sys.executable, "-m", "inspector", *shown, *options, "--screenshot", str(OUT / name)]
                subprocess.run(command, cwd=ROOT, env=env, check=True)
            print("wrote", OUT / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
