"""Differential tests: the engine against real TensorFlow (docs/semantics.md §2, §4, §5).

Skipped when TensorFlow is not importable (the project's own environment and CI never install
it). To run them, use an environment that has TensorFlow, numpy, ml_dtypes and pytest::

    python3 -m venv /tmp/tfenv && /tmp/tfenv/bin/pip install tensorflow numpy ml_dtypes pytest hypothesis
    PYTHONPATH=. /tmp/tfenv/bin/python -m pytest tests/against_tensorflow -p no:cacheprovider -x -q

(from the repository root)

Each part draws a few hundred seeded random cases and collects *every* disagreement before
failing, so one run lists them all (``TF_DIFF_SCALE`` multiplies the case counts,
``TF_DIFF_SEED`` shifts the seeds):

(a) ``strided_slice`` vs ``tf.strided_slice`` (eager): same shape and values, or both raise, and
    then our message starts with TF's core sentence (TF's ``{{function_node ...}}`` prefix and
    ``[Op:...]`` suffix removed) followed by `` (fix)``;
(b) ``parse_slice(text)`` vs the StridedSlice op TF's own ``t[idx]`` builds, read from the graph
    of ``tf.function(lambda t: t[idx])`` (masks as attrs, begin/end/strides as constants);
(c) ``decode_raw`` vs ``tf.io.decode_raw``: every out_type, both byte orders, fixed_length
    None / shorter / equal / longer / 0 / negative / not a multiple, input ranks 0-2 with
    zero-size dimensions, several input forms; values compared bit for bit (NaN payloads
    included) and error vs error;
(d) ``decode_raw``'s ``out_type`` given as every ``tf.DType``, its name and its numpy type, with
    and without ``fixed_length``: same output dtype, or the same attr error.

(a) and (b) also check the GUI helpers against TF: ``SliceSpec.analyze`` (output shape and the
source of every output element) and ``SliceSpec.from_index``.

Deliberate deviations (docs/semantics.md is normative): TF 2.21 has no CPU kernel for ``half`` with
``fixed_length``; docs/semantics.md says we decode it like any other type, so the reference for that case is
TF's ``uint16`` result bitcast to ``half``. ``bool`` output: TF keeps the raw byte (so a ``2`` is
True), we normalise to 0/1; compared as "nonzero". A type TF's Python layer cannot even turn
into a DType (``np.datetime64``, ``"FLOAT"``) raises TypeError there; docs/semantics.md §2 gives every unknown
type the attr message (part (d) checks just that for such types), and our type names are
case-insensitive with optional ``tf.``/``np.`` prefixes (docs/semantics.md §1 aliases; not generated here).

Not covered, on purpose: inputs of rank > 8. TF's CPU StridedSlice kernel raises
``Unimplemented: Unhandled input dimensions 9`` there unless its identity / aligned-dim-0 fast
paths apply, which depend on the element size and the build's Eigen alignment; the engine
slices any rank (a kernel limit, like the missing half kernel, not a semantic rule).
"""

from __future__ import annotations

import math
import os
import random
import re

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")

from core.decode.decode_raw import decode_raw
from core.errors import CoreError
from core.slicing.expr import parse_slice
from core.slicing.spec import SliceSpec, strided_slice

#: ``TF_DIFF_SCALE=20 TF_DIFF_SEED=7 pytest ...`` explores more cases / other seeds.
SCALE = int(os.environ.get("TF_DIFF_SCALE", "1"))
SEED = int(os.environ.get("TF_DIFF_SEED", "0"))
MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
MAX_REPORTED = 25


def tf_core_message(error: Exception) -> str | None:
    """TF's own sentence from an error: no ``{{function_node ...}}`` prefix, no ``[Op:X]``
    suffix, no ``\\n\\t; NodeDef: ...`` tail. None if TF gave no message."""
    text = getattr(error, "message", None) or str(error)
    text = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", text)
    text = text.split("\n")[0]
    text = re.sub(r"\s*\[Op:\w+\].*$", "", text)
    return text.strip() or None


def error_mismatch(ours: Exception, theirs: Exception) -> str | None:
    """None if our error agrees with TF's, else a description of the difference."""
    if not isinstance(ours, CoreError):
        return f"ours raised {type(ours).__name__}: {ours} (not a CoreError)"
    core = tf_core_message(theirs)
    if core is None:
        return None
    if not str(ours).startswith(core + " ("):
        return f"message differs:\n      ours: {ours}\n      TF:   {core}"
    return None


def report(name: str, cases: int, failures: list[str]) -> None:
    print(f"\n{name}: {cases} cases, {len(failures)} disagreements")
    if failures:
        shown = "\n".join(failures[:MAX_REPORTED])
        more = len(failures) - MAX_REPORTED
        pytest.fail(
            f"{len(failures)} of {cases} {name} cases disagree with TensorFlow:\n{shown}"
            + (f"\n... and {more} more" if more > 0 else "")
        )


# -------------------------------------------------------------------------------------------
# (a) strided_slice
# -------------------------------------------------------------------------------------------

SLICE_CASES = 600 * SCALE


def random_index(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.04:
        return rng.choice([2**40, -(2**40), 2**31, -(2**31) - 1])
    if roll < 0.10:
        return rng.randint(-40, 40)
    return rng.randint(-7, 7)


def random_mask(rng: random.Random, ellipsis: bool) -> int:
    if ellipsis:
        roll = rng.random()
        if roll < 0.45:
            return 0
        if roll < 0.9:
            return 1 << rng.randrange(5)  # possibly beyond the spec
        return (1 << rng.randrange(5)) | (1 << rng.randrange(5))  # two bits (or one twice)
    return rng.randrange(32) if rng.random() < 0.6 else 0


def random_slice_case(rng: random.Random):
    rank = rng.randint(0, 4)
    shape = tuple(rng.choice([0, 1, 1, 2, 3, 3, 4, 5]) for _ in range(rank))
    n = rng.randint(0, 5)
    begin = [random_index(rng) for _ in range(n)]
    end = [random_index(rng) for _ in range(n)]
    strides = [rng.choice([1, 1, 1, 2, 3, -1, -1, -2, -3, 0]) for _ in range(n)]
    masks = {name: random_mask(rng, name == "ellipsis_mask") for name in MASKS}
    return shape, begin, end, strides, masks


def analysis_mismatch(shape, begin, end, strides, masks, expected) -> str | None:
    """The GUI's shape-only analysis must agree with TF's output: shape, and for every output
    element the input element it comes from (``x`` is ``arange``, so a value is its flat index).
    """
    analysis = SliceSpec(tuple(begin), tuple(end), tuple(strides), **masks).analyze(shape)
    if analysis.output_shape != expected.shape:
        return f"analyze() shape {analysis.output_shape} != TF {expected.shape}"
    for out_index in np.ndindex(*expected.shape):
        source = analysis.source_index(out_index)
        flat = int(np.ravel_multi_index(source, shape)) if shape else 0
        if flat != int(expected[out_index]):
            return f"analyze().source_index({out_index}) = {source}, TF took flat {expected[out_index]}"
    return None


def test_strided_slice_matches_tensorflow():
    rng = random.Random(20250101 + SEED)
    failures: list[str] = []
    for case in range(SLICE_CASES):
        shape, begin, end, strides, masks = random_slice_case(rng)
        x = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
        big = any(abs(v) >= 2**31 - 1 for v in begin + end)
        index_type = np.int64 if big else np.int32
        what = f"#{case} shape={shape} begin={begin} end={end} strides={strides} {masks}"
        try:
            expected = tf.strided_slice(
                tf.constant(x),
                np.array(begin, index_type),
                np.array(end, index_type),
                np.array(strides, index_type),
                **masks,
            ).numpy()
            theirs = None
        except (tf.errors.OpError, ValueError, TypeError) as error:
            theirs = error
        try:
            got = strided_slice(x, begin, end, strides, **masks)
            ours = None
        except Exception as error:
            ours = error
        if theirs is None and ours is None:
            if got.shape != expected.shape or not np.array_equal(got, expected):
                failures.append(
                    f"{what}: ours {got.shape} {got.tolist()} != TF {expected.shape} "
                    f"{expected.tolist()}"
                )
            else:
                mismatch = analysis_mismatch(shape, begin, end, strides, masks, expected)
                if mismatch:
                    failures.append(f"{what}: {mismatch}")
        elif theirs is None:
            failures.append(f"{what}: ours raised {ours!r}, TF gave {expected.shape}")
        elif ours is None:
            failures.append(f"{what}: TF raised {tf_core_message(theirs)!r}, ours gave {got.shape}")
        else:
            mismatch = error_mismatch(ours, theirs)
            if mismatch:
                failures.append(f"{what}: {mismatch}")
    report("strided_slice", SLICE_CASES, failures)


# -------------------------------------------------------------------------------------------
# (b) parse_slice vs TF's x[...]
# -------------------------------------------------------------------------------------------

PARSE_CASES = 300 * SCALE
NEWAXIS_SPELLINGS = ("tf.newaxis", "np.newaxis", "newaxis", "None", "tf . newaxis")


def random_bound(rng: random.Random) -> int | None:
    roll = rng.random()
    if roll < 0.35:
        return None
    if roll < 0.40:
        return rng.choice([2**40, -(2**40), 2**31, -(2**31) - 1, 2**63 - 2, -(2**63)])
    return rng.randint(-9, 9)


def random_item(rng: random.Random):
    roll = rng.random()
    if roll < 0.25:
        value = random_bound(rng)
        return rng.randint(-9, 9) if value is None or value >= 2**63 - 2 else value
    if roll < 0.70:
        step = random_bound(rng) if rng.random() < 0.6 else None
        return slice(random_bound(rng), random_bound(rng), step)
    if roll < 0.85:
        return Ellipsis
    return None  # tf.newaxis


def item_text(rng: random.Random, item) -> str:
    space = lambda: rng.choice(["", "", " ", "  ", "\t"])
    if item is Ellipsis:
        return "..."
    if item is None:
        return rng.choice(NEWAXIS_SPELLINGS)
    if isinstance(item, int):
        return (f"+{item}" if item >= 0 and rng.random() < 0.1 else str(item))
    parts = ["" if p is None else str(p) for p in (item.start, item.stop)]
    text = parts[0] + space() + ":" + space() + parts[1]
    if item.step is not None:
        text += space() + ":" + space() + str(item.step)
    elif rng.random() < 0.2:
        text += ":"
    return text


def index_text(rng: random.Random, items: list) -> str:
    text = ", ".join(item_text(rng, item) for item in items)
    if items and rng.random() < 0.15:
        text += ","
    return f"[{text}]" if rng.random() < 0.5 else text


def tf_index_spec(idx) -> SliceSpec | Exception:
    """The spec TF's ``t[idx]`` builds: read from the traced StridedSlice op."""
    function = tf.function(lambda t: t[idx])
    try:
        graph = function.get_concrete_function(tf.TensorSpec(None, tf.float32)).graph
    except Exception as error:
        return error
    ops = [op for op in graph.get_operations() if op.type == "StridedSlice"]
    assert len(ops) == 1, [op.type for op in graph.get_operations()]
    op = ops[0]
    begin, end, strides = (
        tuple(int(v) for v in tf.get_static_value(tensor)) for tensor in op.inputs[1:]
    )
    return SliceSpec(begin, end, strides, **{name: op.get_attr(name) for name in MASKS})


def test_parse_slice_matches_tensorflow_indexing():
    rng = random.Random(20250102 + SEED)
    failures: list[str] = []
    for case in range(PARSE_CASES):
        items = [random_item(rng) for _ in range(rng.randint(0, 5))]
        idx = tuple(items) if len(items) != 1 or rng.random() < 0.5 else items[0]
        text = index_text(rng, items)
        expected = tf_index_spec(idx)
        try:
            got = parse_slice(text)
        except Exception as error:
            got = error
        what = f"#{case} {text!r} (TF index {idx!r})"
        if isinstance(expected, Exception):
            if not isinstance(got, Exception):
                failures.append(f"{what}: TF refused ({expected!r}), ours parsed {got}")
            continue
        if isinstance(got, Exception):
            failures.append(f"{what}: ours raised {got!r}, TF built {expected!r}")
        elif got != expected:
            failures.append(f"{what}: ours {got!r} != TF {expected!r}")
        from_index = SliceSpec.from_index(idx)
        if from_index != expected:
            failures.append(f"{what}: SliceSpec.from_index {from_index!r} != TF {expected!r}")
    report("parse_slice", PARSE_CASES, failures)


# -------------------------------------------------------------------------------------------
# (c) decode_raw
# -------------------------------------------------------------------------------------------

DECODE_CASES = 900 * SCALE
OUT_TYPES = (
    "half", "float", "double", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "complex64", "complex128", "bool",
)
PADDED_REFUSED = {"bool", "complex64", "complex128"}


def random_bytes(rng: random.Random, length: int) -> bytes:
    # Bias towards 0x00 / 0xFF / 0x7F / 0x80 so that NaNs, infinities, signalling-NaN payloads,
    # trailing NULs (S arrays) and nonzero-but-not-one bools are common.
    pool = [0x00, 0xFF, 0x7F, 0x80, 0x7C, 0xFC, 0x01, 0x02]
    return bytes(rng.choice(pool) if rng.random() < 0.4 else rng.randrange(256)
                 for _ in range(length))


def random_decode_case(rng: random.Random):
    out_type = rng.choice(OUT_TYPES)
    size = np.dtype(tf.as_dtype(out_type).as_numpy_dtype).itemsize
    rank = rng.randint(0, 2)
    shape = tuple(rng.choice([0, 1, 2, 3]) for _ in range(rank))
    count = math.prod(shape)
    if rng.random() < 0.6:  # all elements of one length
        length = size * rng.randint(0, 4) if rng.random() < 0.75 else rng.randint(0, 17)
        lengths = [length] * count
    else:
        lengths = [rng.randint(0, 17) for _ in range(count)]
    form = rng.choice(["list", "object", "S", "uint8", "str", "U"])
    if form in ("str", "U"):  # text, UTF-8 encoded by both (1-4 bytes per character)
        elements = ["".join(rng.choice("a\x00\x7fé€\U0001d11e") for _ in range(n // 2))
                    for n in lengths]
        lengths = [len(e.encode("utf-8")) for e in elements]
    else:
        elements = [random_bytes(rng, n) for n in lengths]
    if form == "uint8" and len(set(lengths)) > 1:
        form = "object"
    if form in ("list", "str") and 0 in shape[:-1]:
        form = "object"  # a nested list expresses (2, 0) but not (0, 3)
    longest = max(lengths, default=0)
    roll = rng.random()
    if roll < 0.3:
        fixed_length = None
    else:
        fixed_length = rng.choice([
            max(size, (longest // size - 1) * size),  # shorter (or the minimum)
            max(size, longest - longest % size),  # equal-ish
            (longest // size + 2) * size,  # longer: padding
            0,
            -size,
            size * rng.randint(1, 5) + (rng.randint(1, size - 1) if size > 1 else 0),  # not a multiple
        ])
    little_endian = rng.random() < 0.5
    return out_type, shape, elements, form, fixed_length, little_endian


def build_inputs(shape, elements, form):
    """(our input, TF's input tensor) for the same string tensor."""
    objects = np.empty(len(elements), dtype=object)
    objects[:] = elements
    objects = objects.reshape(shape)
    tf_input = tf.constant(objects, dtype=tf.string)
    if form == "U":
        ours = np.array(elements, dtype=str).reshape(shape)
        tf_input = tf.constant(ours)  # TF converts the U array itself (UTF-8)
    elif form in ("list", "str"):
        ours = objects.tolist() if shape else elements[0]
    elif form == "object":
        ours = objects
    elif form == "S":
        width = max((len(e) for e in elements), default=0)
        ours = np.array(elements, dtype=f"S{max(width, 1)}").reshape(shape)
        tf_input = tf.constant(ours)  # TF converts the S array itself (trailing NULs dropped)
    else:  # uint8 rows
        width = len(elements[0]) if elements else 3  # zero-size input: (..., 0, ..., 3) bytes
        data = b"".join(elements)
        ours = np.frombuffer(data, dtype=np.uint8).reshape(shape + (width,)) if data or width \
            else np.zeros(shape + (width,), np.uint8)
    return ours, tf_input


def bits(array: np.ndarray) -> np.ndarray:
    """Values as native unsigned integers holding their exact bits (complex: per component)."""
    dtype = array.dtype
    if dtype.kind == "b":
        return array.view(np.uint8) != 0
    order = dtype.byteorder if dtype.byteorder in "<>" else "="
    if dtype.kind == "c":
        array = array.view(np.dtype(f"{order}f{dtype.itemsize // 2}"))
    unsigned = array.view(np.dtype(f"{order}u{array.dtype.itemsize}"))
    return unsigned.astype(unsigned.dtype.newbyteorder("="))


def tf_decode(tf_input, out_type, little_endian, fixed_length):
    dtype = tf.as_dtype(out_type)
    if fixed_length is not None and out_type == "half":
        # docs/semantics.md §2: TF 2.21 lacks the CPU kernel; the reference is uint16 bitcast to half.
        raw = tf.io.decode_raw(tf_input, tf.uint16, little_endian, fixed_length)
        return tf.bitcast(raw, tf.half).numpy()
    return tf.io.decode_raw(tf_input, dtype, little_endian, fixed_length).numpy()


def test_decode_raw_matches_tensorflow():
    rng = random.Random(20250103 + SEED)
    failures: list[str] = []
    for case in range(DECODE_CASES):
        out_type, shape, elements, form, fixed_length, little_endian = random_decode_case(rng)
        ours_input, tf_input = build_inputs(shape, elements, form)
        what = (f"#{case} {out_type} le={little_endian} fixed_length={fixed_length} "
                f"form={form} shape={shape} elements={elements[:4]!r}")
        try:
            expected = tf_decode(tf_input, out_type, little_endian, fixed_length)
            theirs = None
        except (tf.errors.OpError, ValueError, TypeError) as error:
            theirs = error
        try:
            got = decode_raw(ours_input, out_type, little_endian, fixed_length)
            ours = None
        except Exception as error:
            ours = error
        if theirs is None and ours is None:
            if got.shape != expected.shape:
                failures.append(f"{what}: shape ours {got.shape} != TF {expected.shape}")
            elif got.dtype.newbyteorder("=") != expected.dtype:
                failures.append(f"{what}: dtype ours {got.dtype} != TF {expected.dtype}")
            elif not np.array_equal(bits(got), bits(expected)):
                failures.append(f"{what}: bits ours {bits(got).tolist()} != TF "
                                f"{bits(expected).tolist()}")
            elif got.dtype.kind == "b" and got.size and int(got.view(np.uint8).max()) > 1:
                failures.append(f"{what}: our bool holds bytes other than 0/1")
        elif theirs is None:
            failures.append(f"{what}: ours raised {ours!r}, TF gave {expected.shape}")
        elif ours is None:
            failures.append(f"{what}: TF raised {tf_core_message(theirs)!r}, ours gave {got.shape}")
        else:
            mismatch = error_mismatch(ours, theirs)
            if mismatch:
                failures.append(f"{what}: {mismatch}")
    report("decode_raw", DECODE_CASES, failures)


# -------------------------------------------------------------------------------------------
# (d) decode_raw's out_type: every tf.DType, its name and numpy type, with/without fixed_length
# -------------------------------------------------------------------------------------------


def out_type_spellings():
    seen = set()
    for name in sorted(dir(tf.dtypes)):
        dtype = getattr(tf.dtypes, name)
        if not isinstance(dtype, tf.dtypes.DType) or dtype in seen:
            continue
        seen.add(dtype)
        yield dtype
        yield dtype.name
        try:
            numpy_type = dtype.as_numpy_dtype
        except Exception:
            continue
        yield numpy_type
    yield from (np.longlong, np.ulonglong, np.intc, np.object_, np.str_, np.bytes_)


def test_decode_raw_out_type_matches_tensorflow():
    failures: list[str] = []
    cases = 0
    for out_type in out_type_spellings():
        for fixed_length in (None, 8):
            cases += 1
            try:
                expected = tf.io.decode_raw(b"\x01" * 16, out_type, fixed_length=fixed_length)
                theirs = None
            except (tf.errors.OpError, ValueError, TypeError) as error:
                theirs = error
            try:
                got = decode_raw(b"\x01" * 16, out_type, fixed_length=fixed_length)
                ours = None
            except Exception as error:
                ours = error
            what = f"{out_type!r} fixed_length={fixed_length}"
            if isinstance(theirs, tf.errors.NotFoundError) and ours is None:
                continue  # docs/semantics.md §2: half with fixed_length has no TF CPU kernel; we decode it
            if isinstance(theirs, TypeError):
                # TF's Python layer cannot convert it to a DType at all; docs/semantics.md §2 prescribes the
                # attr message for every unknown type.
                if ours is None or not str(ours).startswith("Value for attr 'out_type' of "):
                    failures.append(f"{what}: TF refused ({theirs}), ours gave {ours!r}")
            elif theirs is None and ours is None:
                if got.dtype.newbyteorder("=") != expected.numpy().dtype or \
                        got.shape != tuple(expected.shape):
                    failures.append(f"{what}: ours {got.dtype}{got.shape} != TF "
                                    f"{expected.dtype.name}{tuple(expected.shape)}")
            elif theirs is None:
                failures.append(f"{what}: ours raised {ours!r}, TF gave {expected.dtype.name}")
            elif ours is None:
                failures.append(f"{what}: TF raised {tf_core_message(theirs)!r}, ours gave "
                                f"{got.dtype}")
            else:
                mismatch = error_mismatch(ours, theirs)
                if mismatch:
                    failures.append(f"{what}: {mismatch}")
    report("decode_raw out_type", cases, failures)
