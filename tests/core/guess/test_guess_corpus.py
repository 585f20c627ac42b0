"""Accuracy of the layout guess on a generated corpus of files of known layout.

Each file is made here with a fixed seed: many dtypes in both byte orders, 1-d signals, 2-d
images, 3-d stacks, text, binary and ``.npy`` headers, records with their own headers, and
random bytes. A candidate matches the truth when dtype, byte order (for multi-byte types),
offset and record size are equal, and its row width (last dimension) is the truth's for 2-d
and 3-d data (a 1-d truth matches a candidate without a 2-d shape). Random bytes are right when
the report is not convincing.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest

from core.guess import guess_report

TOP1_TARGET = 0.70
TOP3_TARGET = 0.90


@dataclass
class Case:
    name: str
    data: bytes
    dtype: str | None            # None: random bytes, expect no convincing layout
    little_endian: bool = True
    offset: int = 0
    record_size: int | None = None
    row_width: int | None = None  # last dimension of 2-d / 3-d data


def _smooth_field(rng, height, width, scale):
    """A natural-looking texture: low-pass filtered noise."""
    noise = rng.standard_normal((height, width))
    spectrum = np.fft.rfft2(noise)
    fy = np.fft.fftfreq(height)[:, None]
    fx = np.fft.rfftfreq(width)[None, :]
    spectrum *= np.exp(-((fy ** 2 + fx ** 2) * (scale ** 2)))
    field = np.fft.irfft2(spectrum, s=(height, width))
    return field / (field.std() or 1)


def _scaled(values, dtype):
    """Unit-scale values mapped into a range typical for the type."""
    if dtype == "uint8":
        return np.clip(values * 40 + 128, 0, 255)
    if dtype == "uint16":
        return np.clip(values * 9000 + 32768, 0, 65535)
    if dtype == "int16":
        return np.clip(values * 3000, -32768, 32767)
    if dtype == "int32":
        return values * 200000
    return values * 3.0


def _encode(values, dtype, little):
    if dtype == "bfloat16":
        bits = np.asarray(values, dtype=np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)
        return bits.astype("<u2" if little else ">u2").tobytes()
    if dtype == "complex64":
        return np.asarray(values).astype(np.dtype("complex64").newbyteorder("<" if little else ">")).tobytes()
    kind = np.dtype(dtype).newbyteorder("<" if little else ">")
    return np.round(values).astype(kind).tobytes() if kind.kind in "iu" else np.asarray(values).astype(kind).tobytes()


def _signal(rng, n, kind):
    t = np.arange(n)
    if kind == "sine":
        return np.sin(t * (2 * np.pi / 97.3)) + 0.3 * np.sin(t * 0.0131)
    if kind == "ramp":
        return ((t % 1013.7) / 1013.7 * 2 - 1) + 0.01 * rng.standard_normal(n)
    walk = np.cumsum(rng.standard_normal(n))
    walk = walk / (np.abs(walk).max() or 1)
    return walk + np.linspace(-0.5, 0.5, n)


def build_corpus() -> list[Case]:
    rng = np.random.default_rng(18)
    cases: list[Case] = []
    types = ["uint8", "int16", "uint16", "int32", "float16", "bfloat16", "float32", "float64", "complex64"]
    for index, dtype in enumerate(types):
        orders = (True,) if dtype == "uint8" else (True, False)
        for little in orders:
            tag = f"{dtype}_{'le' if little else 'be'}"
            # 1-d signals
            for kind in ("sine", "ramp", "walk"):
                values = _signal(rng, 6000, kind)
                if dtype == "complex64":
                    values = values * np.exp(1j * np.arange(values.size) * 0.05)
                cases.append(Case(f"sig_{kind}_{index}{int(little)}.bin",
                                  _encode(_scaled(values, dtype), dtype, little), dtype, little))
            if dtype == "complex64":
                continue
            # 2-d images: a smooth gradient and a texture
            height, width = 96, 120 + 8 * index
            y, x = np.mgrid[0:height, 0:width]
            gradient = np.sin(x / 19.0) * np.cos(y / 27.0) + x / width
            cases.append(Case(f"img_gradient_{index}{int(little)}.bin",
                              _encode(_scaled(gradient, dtype), dtype, little), dtype, little, row_width=width))
            texture = _smooth_field(rng, height, width, 6.0)
            cases.append(Case(f"img_texture_{index}{int(little)}.bin",
                              _encode(_scaled(texture, dtype), dtype, little), dtype, little, row_width=width))
            # 3-d stack, named with its shape
            stack = np.stack([_smooth_field(rng, 40, 64, 5.0) for _ in range(4)])
            cases.append(Case(f"stack_4x40x64_{tag}.raw", _encode(_scaled(stack, dtype), dtype, little),
                              dtype, little, row_width=64))
            # Headers: text (padded and not), binary
            payload = _encode(_scaled(_signal(rng, 5000, "sine"), dtype), dtype, little)
            text = f"# sensor dump\nrecorded 2026-11-30\nsamples 5000 id {index}\n".encode()
            cases.append(Case(f"text_hdr_{index}{int(little)}.bin", text + payload, dtype, little,
                              offset=len(text)))
            padded = b"HEADER v2\nsource=probe\n".ljust(256, b"\0")
            cases.append(Case(f"text_pad_{index}{int(little)}.bin", padded + payload, dtype, little, offset=256))
            binary = rng.integers(0, 256, 64 + 64 * (index % 3), dtype=np.uint8).tobytes()
            cases.append(Case(f"bin_hdr_{index}{int(little)}.bin", binary + payload, dtype, little,
                              offset=len(binary)))
    # .npy files
    for dtype in ("float32", "int16", "float64", "uint8"):
        buffer = io.BytesIO()
        np.save(buffer, _scaled(_smooth_field(rng, 30, 40, 4.0), dtype).astype(dtype))
        data = buffer.getvalue()
        offset = data.index(b"\n", 10) + 1
        cases.append(Case(f"array_{dtype}.npy", data, dtype, True, offset=offset, row_width=40))
    # Records with their own 16-byte headers
    for dtype, little in (("int16", True), ("float32", False), ("uint16", False), ("float32", True)):
        itemsize = np.dtype(dtype).itemsize
        items = 240 // itemsize
        records = []
        for number in range(60):
            header = b"REC\x01" + number.to_bytes(4, "little") + (items * itemsize).to_bytes(4, "little") + b"\0" * 4
            values = _scaled(_signal(rng, items, "sine") * 0.8, dtype)
            records.append(header + _encode(values, dtype, little))
        cases.append(Case(f"records_{dtype}_{int(little)}.bin", b"".join(records), dtype, little,
                          record_size=16 + items * itemsize))
    # Random bytes: no convincing layout
    for size in (4096, 65536, 100003):
        cases.append(Case(f"noise_{size}.bin", rng.integers(0, 256, size, dtype=np.uint8).tobytes(), None))
    return cases


def matches(candidate, case: Case) -> bool:
    params = candidate.params
    if params.dtype != case.dtype:
        return False
    if np.dtype(ml_dtypes.bfloat16 if case.dtype == "bfloat16" else case.dtype).itemsize > 1 \
            and params.little_endian is not case.little_endian:
        return False
    if (params.offset or 0) != case.offset:
        return False
    itemsize = np.dtype(ml_dtypes.bfloat16 if case.dtype == "bfloat16" else case.dtype).itemsize
    if params.record_size != case.record_size:
        # Records of one row each decode to the same 2-d tensor as rows of that width.
        return (case.record_size is None and params.shape is None and case.row_width is not None
                and params.record_size == case.row_width * itemsize)
    if case.row_width is None:
        return params.shape is None or len(params.shape) == 1 or case.record_size is not None
    return params.shape is not None and len(params.shape) >= 2 and params.shape[-1] == case.row_width


def evaluate(tmp_path) -> tuple[float, float, list[str]]:
    cases = build_corpus()
    top1 = top3 = 0
    misses = []
    for case in cases:
        path = tmp_path / case.name
        path.write_bytes(case.data)
        report = guess_report(str(path))
        if case.dtype is None:
            hit1 = hit3 = not report.convincing
        else:
            ranked = list(report.candidates) if report.convincing else []
            hit1 = bool(ranked) and matches(ranked[0], case)
            hit3 = any(matches(c, case) for c in ranked[:3])
        top1 += hit1
        top3 += hit3
        if not hit1:
            best = report.candidates[0].summary if report.candidates else report.verdict
            misses.append(f"{case.name}: {'top-3' if hit3 else 'MISS'} -> {best}")
    return top1 / len(cases), top3 / len(cases), misses


def test_corpus_accuracy(tmp_path, capsys):
    top1, top3, misses = evaluate(tmp_path)
    with capsys.disabled():
        print(f"\nguess corpus: {len(build_corpus())} files, top-1 {top1:.1%}, top-3 {top3:.1%}")
    assert top3 >= TOP3_TARGET, "\n".join(misses)
    assert top1 >= TOP1_TARGET, "\n".join(misses)


@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_corpus_is_deterministic(dtype):
    first = [c.data for c in build_corpus() if c.dtype == dtype]
    second = [c.data for c in build_corpus() if c.dtype == dtype]
    assert first == second and len(first) > 10
