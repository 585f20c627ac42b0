"""A realistic corpus for the layout guess, generated from a seed (issue 30, "guessing that
generalises").

``build_corpus(seed)`` makes raw dumps of the kinds people actually meet, with their true layout:
audio (sines, chirps, noise; mono and stereo; int16 and float32; both byte orders), depth maps and
sensor frames (uint16, smooth surfaces with holes), grayscale images (uint8), interleaved RGB
frames, sensor logs of float32 columns, headers of many kinds (a magic padded with zeros to 64
bytes, a 512-byte header of fields, text headers, none), PGM/PPM written byte by byte after
netpbm's specification, TIFF written by tifffile, and NV12/I420 frames named with their
resolution. Names carry hints (``160x120``, ``s16le``, ``hdr64``, ``stereo``) in some files and
none in others. Everything (sizes, widths, frequencies, names) is drawn from ``seed``.

Splits are fixed by seed before any tuning: :data:`TUNING_SEEDS` may be looked at case by case;
:data:`HELDOUT_SEEDS` are only scored, in aggregate, at the end.

``python -m benchmarks.guess_corpus [--split tuning|heldout] [--misses]`` prints top-1/top-3
(``--misses`` only for the tuning split).

A candidate matches a case when dtype, byte order (multi-byte types), offset are the truth's and
its shape ends with the case's ``tail`` (a 1-d truth: a candidate without a 2-d shape).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
from dataclasses import dataclass

import numpy as np

TUNING_SEEDS = (101,)
HELDOUT_SEEDS = (202, 303)


@dataclass
class Case:
    name: str
    data: bytes
    kind: str
    dtype: str
    little_endian: bool = True
    offset: int = 0
    tail: tuple[int, ...] | None = None  # trailing dimensions the shape must end with


def _field(rng, height, width, scale):
    """Low-pass filtered noise, unit standard deviation: a natural-looking surface."""
    noise = rng.standard_normal((height, width))
    spectrum = np.fft.rfft2(noise)
    fy = np.fft.fftfreq(height)[:, None]
    fx = np.fft.rfftfreq(width)[None, :]
    spectrum *= np.exp(-((fy ** 2 + fx ** 2) * scale ** 2))
    out = np.fft.irfft2(spectrum, s=(height, width))
    return out / (out.std() or 1)


def _audio(rng, n, rate):
    t = np.arange(n) / rate
    kind = rng.integers(0, 3)
    if kind == 0:  # tones
        f = rng.uniform(110, 1200, 3)
        x = sum(np.sin(2 * np.pi * fi * t + rng.uniform(0, 6)) / (i + 1) for i, fi in enumerate(f))
    elif kind == 1:  # chirp
        f0, f1 = rng.uniform(50, 300), rng.uniform(1000, 4000)
        x = np.sin(2 * np.pi * (f0 * t + (f1 - f0) * t ** 2 / (2 * t[-1])))
    else:  # speech-like: filtered noise under an envelope
        x = np.convolve(rng.standard_normal(n), np.hanning(24), mode="same")
        x /= np.abs(x).max()
    envelope = 0.6 + 0.4 * np.sin(2 * np.pi * t * rng.uniform(0.5, 3))
    x = x * envelope + 0.01 * rng.standard_normal(n)
    return x / np.abs(x).max()


def _order(little):
    return "<" if little else ">"


def _depth(rng, h, w):
    y, x = np.mgrid[0:h, 0:w]
    plane = 1500 + 4 * y + rng.uniform(-2, 2) * x
    blob = 800 * np.exp(-((x - w * rng.uniform(0.3, 0.7)) ** 2 + (y - h * rng.uniform(0.3, 0.7)) ** 2) / (0.05 * w * h))
    d = plane - blob + 30 * _field(rng, h, w, 8.0) + rng.normal(0, 3, (h, w))
    holes = _field(rng, h, w, 12.0) > 2.0
    d[holes] = 0
    return np.clip(d, 0, 65535)


def _rgb(rng, h, w):
    base = _field(rng, h, w, 10.0)
    channels = [np.clip(128 + 50 * (base + 0.5 * _field(rng, h, w, 6.0)) + 20 * k, 0, 255) for k in range(3)]
    return np.stack(channels, axis=-1)


def _pnm_header(magic, w, h, maxval, comment):
    text = f"{magic}\n"
    if comment:
        text += "# CREATOR: sensor export 1.2\n"
    text += f"{w} {h}\n" if magic in ("P5", "P6") else ""
    return (text + f"{maxval}\n").encode()


def build_corpus(seed: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases: list[Case] = []
    s = seed
    # Audio: mono and stereo int16, float32, both byte orders.
    for i in range(6):
        rate = int(rng.choice([8000, 16000, 22050, 44100, 48000]))
        n = int(rng.integers(15000, 60000))
        stereo = i % 2 == 1
        little = i != 4
        x = _audio(rng, n, rate)
        if stereo:
            delayed = np.roll(x, int(rng.integers(3, 40))) * rng.uniform(0.5, 0.9)
            x = np.stack([x, 0.7 * delayed + 0.3 * _audio(rng, n, rate)], axis=1)
        amp = rng.uniform(3000, 24000)
        data = np.round(x * amp).astype(_order(little) + "i2").tobytes()
        hinted = rng.random() < 0.5
        tag = f"{rate // 1000}k_{'stereo' if stereo else 'mono'}_s16{'le' if little else 'be'}"
        name = f"rec{s}_{i}_{tag}.pcm" if hinted else f"capture{s}_{i}.raw"
        cases.append(Case(name, data, "audio-int16", "int16", little, 0, (2,) if stereo else None))
    for i in range(3):
        n = int(rng.integers(10000, 40000))
        stereo = i == 1
        x = _audio(rng, n, 16000) * rng.uniform(0.2, 0.9)
        if stereo:
            x = np.stack([x, np.roll(x, 7) * 0.8], axis=1)
        little = i != 2
        data = x.astype(_order(little) + "f4").tobytes()
        name = f"synth{s}_{i}_f32{'le' if little else 'be'}.raw" if rng.random() < 0.5 else f"wave{s}_{i}.dat"
        cases.append(Case(name, data, "audio-float32", "float32", little, 0, (2,) if stereo else None))
    # Depth maps / sensor frames: uint16, with and without headers.
    sizes = [(120, 160), (240, 320), (480, 640), (172, 224), (360, 640), (424, 512), (288, 352), (200, 256)]
    header_kinds = ["none", "magic64", "fields512", "none", "magic64", "text", "none", "fields512"]
    for i, (h, w) in enumerate(sizes):
        little = i != 3
        depth = _depth(rng, h, w)
        payload = np.round(depth).astype(_order(little) + "u2").tobytes()
        kind = header_kinds[i]
        if kind == "magic64":
            header = b"DPT1" + bytes(60)
        elif kind == "fields512":
            fields = np.array([0x44455054, 2, w, h, 16, int(rng.integers(0, 2**31))], "<u4").tobytes()
            header = (b"DEPTHCAM" + fields).ljust(512, b"\0")
        elif kind == "text":
            header = f"# depth frame\nwidth {w}\nheight {h}\nunits mm\n".encode()
        else:
            header = b""
        roll = rng.random()
        if roll < 0.4:
            name = f"depth{s}_{i}_{w}x{h}" + (f"_hdr{len(header)}" if header and rng.random() < 0.5 else "") + ".raw"
        elif roll < 0.6 and header:
            name = f"frame{s}_{i}_hdr{len(header)}.bin"
        else:
            name = f"depth{s}_{i}.bin"
        cases.append(Case(name, header + payload, "depth-uint16", "uint16", little, len(header), (w,)))
    # Grayscale images, uint8.
    for i in range(4):
        h, w = int(rng.integers(60, 300)), int(rng.choice([96, 128, 200, 256, 320, 360, 500]))
        img = np.clip(128 + 45 * _field(rng, h, w, rng.uniform(4, 12)), 0, 255)
        name = f"gray{s}_{i}_{w}x{h}.raw" if rng.random() < 0.4 else f"img{s}_{i}.bin"
        cases.append(Case(name, np.round(img).astype(np.uint8).tobytes(), "gray-uint8", "uint8", True, 0, (w,)))
    # Interleaved RGB frames.
    for i in range(5):
        h, w = int(rng.integers(60, 240)), int(rng.choice([80, 128, 160, 200, 320]))
        frame = np.round(_rgb(rng, h, w)).astype(np.uint8)
        roll = rng.random()
        name = (f"frame{s}_{i}_{w}x{h}_rgb24.raw" if roll < 0.3 else f"frame{s}_{i}_{w}x{h}.rgb" if roll < 0.5
                else f"cam{s}_{i}.bin")
        cases.append(Case(name, frame.tobytes(), "rgb-uint8", "uint8", True, 0, (w, 3)))
    # Sensor logs: float32 columns (timestamp-free), both byte orders.
    for i in range(4):
        rows, cols = int(rng.integers(2000, 8000)), int(rng.choice([3, 4, 6, 9]))
        t = np.arange(rows) / 100.0
        columns = []
        for _column in range(cols):
            scale, level = rng.choice([0.1, 1.0, 9.81, 100.0]), rng.choice([0.0, 20.0, 1013.0, -5.0])
            columns.append(level + scale * (np.sin(t * rng.uniform(0.1, 2)) + 0.05 * rng.standard_normal(rows)))
        little = i != 1
        data = np.stack(columns, axis=1).astype(_order(little) + "f4").tobytes()
        name = f"imu{s}_{i}_{cols}ch_f32.log" if rng.random() < 0.3 else f"sensors{s}_{i}.dat"
        cases.append(Case(name, data, "log-float32", "float32", little, 0, (cols,)))
    # PGM / PPM, binary (P5 / P6), 8 and 16 bits, after netpbm's specification.
    for i in range(6):
        h, w = int(rng.integers(40, 200)), int(rng.integers(40, 300))
        color = i % 2 == 1
        wide = i >= 3
        maxval = 65535 if wide else 255
        if color:
            img = _rgb(rng, h, w) * (257 if wide else 1)
        else:
            img = np.clip(128 + 45 * _field(rng, h, w, 6.0), 0, 255) * (257 if wide else 1)
        payload = np.round(img).astype(">u2" if wide else "u1").tobytes()
        header = _pnm_header("P6" if color else "P5", w, h, maxval, comment=rng.random() < 0.5)
        ext = ".ppm" if color else ".pgm"
        name = f"scan{s}_{i}{ext}" if rng.random() < 0.7 else f"scan{s}_{i}.bin"
        cases.append(Case(name, header + payload, "pnm", "uint16" if wide else "uint8", not wide, len(header),
                          (w, 3) if color else (w,)))
    # TIFF by tifffile (baseline, uncompressed, contiguous strips).
    import tifffile  # in the test extra

    for i, (dtype, color) in enumerate((("uint8", False), ("uint16", False), ("uint8", True), ("float32", False),
                                        ("uint16", False))):
        h, w = int(rng.integers(40, 200)), int(rng.integers(40, 300))
        little = i % 2 == 0
        if color:
            img = np.round(_rgb(rng, h, w)).astype(np.uint8)
        elif dtype == "float32":
            img = _field(rng, h, w, 6.0).astype(np.float32)
        else:
            scale = 257 if dtype == "uint16" else 1
            img = np.round(np.clip(128 + 45 * _field(rng, h, w, 6.0), 0, 255) * scale).astype(dtype)
        buffer = io.BytesIO()
        tifffile.imwrite(buffer, img, byteorder=_order(little), photometric="rgb" if color else "minisblack",
                         contiguous=True, metadata=None)
        data = buffer.getvalue()
        with tifffile.TiffFile(io.BytesIO(data)) as tif:
            offset = tif.pages[0].dataoffsets[0]
        name = f"micro{s}_{i}.tif" if rng.random() < 0.7 else f"micro{s}_{i}.tiff"
        cases.append(Case(name, data, "tiff", dtype, little, int(offset), (w, 3) if color else (w,)))
    # NV12 / I420 frames named with their resolution.
    for i, (w, h) in enumerate([(640, 480), (1280, 720), (320, 240), (1920, 1080)]):
        fmt = "nv12" if i % 2 == 0 else rng.choice(["i420", "yuv420p"])
        y = np.round(np.clip(128 + 50 * _field(rng, h, w, 10.0), 16, 235)).astype(np.uint8)
        u = np.round(np.clip(128 + 20 * _field(rng, h // 2, w // 2, 6.0), 16, 240)).astype(np.uint8)
        v = np.round(np.clip(128 + 20 * _field(rng, h // 2, w // 2, 6.0), 16, 240)).astype(np.uint8)
        chroma = np.stack([u, v], axis=-1).tobytes() if fmt == "nv12" else u.tobytes() + v.tobytes()
        name = f"video{s}_{i}_{w}x{h}_{fmt}.yuv" if rng.random() < 0.6 else f"{w}x{h}_{fmt}_{s}{i}.raw"
        cases.append(Case(name, y.tobytes() + chroma, "yuv", "uint8", True, 0, (w,)))
    return cases


def matches(candidate, case: Case) -> bool:
    params = candidate.params
    if params.dtype != case.dtype:
        return False
    if np.dtype(case.dtype).itemsize > 1 and params.little_endian is not case.little_endian:
        return False
    if (params.offset or 0) != case.offset or params.record_size:
        return False
    shape = params.shape
    if case.tail is None:
        return shape is None or len(shape) == 1
    return shape is not None and tuple(shape[-len(case.tail):]) == case.tail


def evaluate(seeds, directory: str, *, misses: bool = False) -> tuple[int, int, int, list[str]]:
    """(cases, top-1 hits, top-3 hits, lines about the misses when asked)."""
    from core.guess import guess_report

    total = top1 = top3 = 0
    lines = []
    for seed in seeds:
        for case in build_corpus(seed):
            path = os.path.join(directory, case.name)
            with open(path, "wb") as f:
                f.write(case.data)
            report = guess_report(path)
            ranked = list(report.candidates) if report.convincing else []
            hit1 = bool(ranked) and matches(ranked[0], case)
            hit3 = any(matches(c, case) for c in ranked[:3])
            total += 1
            top1 += hit1
            top3 += hit3
            if misses and not hit1:
                best = ranked[0].summary if ranked else report.verdict
                lines.append(f"{case.kind:14} {case.name}: {'top-3' if hit3 else 'MISS '} -> {best}")
            os.unlink(path)
    return total, top1, top3, lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("tuning", "heldout"), default="tuning")
    parser.add_argument("--misses", action="store_true", help="list the misses (tuning split only)")
    args = parser.parse_args(argv)
    seeds = TUNING_SEEDS if args.split == "tuning" else HELDOUT_SEEDS
    with tempfile.TemporaryDirectory() as tmp:
        total, top1, top3, lines = evaluate(seeds, tmp, misses=args.misses and args.split == "tuning")
    print("\n".join(lines))
    print(f"{args.split}: {total} files, top-1 {top1}/{total} ({top1 / total:.1%}), "
          f"top-3 {top3}/{total} ({top3 / total:.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
