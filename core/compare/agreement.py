"""How closely two tensors agree as a whole: cosine similarity, Pearson correlation, SNR, PSNR and
quantiles of the absolute error, computed in the same single pass as the other comparison
figures (each block adds its sums; no metric needs a second pass).

Rules (over the *finite pairs*: both values finite; ``a`` the checked side, ``b`` the reference,
summed as float64; ``d = a - b`` in the comparison's work type, as the error figures; sums over
those ``n`` pairs)
----------------------------------------------------------------------------------------------
- ``cosine = Σab / sqrt(Σa² · Σb²)``; undefined when a side is all zero.
- ``pearson = cov(a, b) / (σa · σb)`` (population moments, merged across blocks with Chan's
  pairwise update); undefined for fewer than two pairs or when a side is constant.
- ``snr_db = 10 · log10(Σb² / Σd²)``: the reference's energy over the error's; ``+inf`` when
  the finite values are identical, ``-inf`` when the reference is all zero and they are not.
- ``psnr_db = 10 · log10(peak² / mean(d²))`` with ``peak = max |b|``; ``+inf`` / ``-inf`` as SNR.
- Error quantiles (``median``, ``p99``; :data:`QUANTILES`): of ``|d|`` in the comparison's work
  type, by nearest rank (the ``ceil(q · n)``-th smallest), read from a histogram of
  :data:`FINE_BITS` bits below the exponent: 64 bins per power of two, so a quantile is given as
  the lower edge of its bin: exact for errors of at most 7 significant bits (0, integers up to
  128, 0.5, 0.375...), otherwise at most 1/64 of a power of two below the true value (under
  1.6 %, never above it).
- Undefined figures are None (no pair, a zero norm, sums past float64's range); never NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["FINE_BITS", "QUANTILES", "Agreement", "AgreementSums", "block_sums", "fine_histogram"]

#: Mantissa bits kept by the error histogram of the quantiles (64 bins per power of two).
FINE_BITS = 6
#: The error quantiles a comparison reports, by name.
QUANTILES = (("median", 0.5), ("p99", 0.99))

#: Elements converted to float64 at a time by :func:`block_sums`: both sides' copies (512 KiB)
#: stay in a core's L2 cache for the dot products that read them again (measured in a
#: comparison's block loop: 10-25 % faster than larger pieces, which the caller's own scratch
#: arrays push out to L3; smaller ones cost more in numpy calls than they save).
_SUM_CHUNK = 1 << 15
#: Length of one dot product of :func:`block_sums`: well under OpenBLAS's 10,000, above which it
#: splits a dot product over its own threads (numpy's ``vecdot`` calls BLAS), which fight the
#: comparison's worker threads (tens of times slower on two cores).
_DOT_ROW = 1 << 11
_FLOAT_BITS = {4: (np.int32, 23, 8), 8: (np.int64, 52, 11)}  # bit view, mantissa bits, exponent bits


def fine_histogram(absolute: np.ndarray) -> np.ndarray:
    """Counts of the non-negative finite float32/float64 values ``absolute`` by their top bits
    (sign excluded): the exponent and :data:`FINE_BITS` mantissa bits."""
    view, mantissa, exponent = _FLOAT_BITS[absolute.dtype.itemsize]
    bins = np.right_shift(absolute.view(view), mantissa - FINE_BITS)
    return np.bincount(bins, minlength=1 << (exponent + FINE_BITS))


def _bin_lower_edge(index: int, work: np.dtype) -> float:
    view, mantissa, _exponent = _FLOAT_BITS[np.dtype(work).itemsize]
    bits = np.array([index << (mantissa - FINE_BITS)], view)
    return float(bits.view(work)[0])


@dataclass
class AgreementSums:
    """The running sums of one comparison (or one block): raw sums for the cosine, Chan's
    moments for the correlation, the peak of the reference and the error histogram."""

    n: int = 0
    sum_aa: float = 0.0
    sum_bb: float = 0.0
    sum_ab: float = 0.0
    mean_a: float = 0.0
    mean_b: float = 0.0
    m2_a: float = 0.0
    m2_b: float = 0.0
    c_ab: float = 0.0
    peak_b: float = 0.0
    zeros: int = 0
    fine: np.ndarray | None = None

    def add(self, other: AgreementSums) -> None:
        """Merge ``other`` into these sums (any order)."""
        if other.n == 0:
            return
        if self.n == 0:
            fine = self.fine
            self.__dict__.update(other.__dict__)
            self.fine = other.fine.copy() if other.fine is not None else fine
            return
        n1, n2 = self.n, other.n
        n = n1 + n2
        delta_a, delta_b = other.mean_a - self.mean_a, other.mean_b - self.mean_b
        weight = n1 * n2 / n
        self.m2_a += other.m2_a + delta_a * delta_a * weight
        self.m2_b += other.m2_b + delta_b * delta_b * weight
        self.c_ab += other.c_ab + delta_a * delta_b * weight
        self.mean_a += delta_a * n2 / n
        self.mean_b += delta_b * n2 / n
        self.n = n
        self.sum_aa += other.sum_aa
        self.sum_bb += other.sum_bb
        self.sum_ab += other.sum_ab
        self.peak_b = max(self.peak_b, other.peak_b)
        self.zeros += other.zeros
        if other.fine is not None:
            if self.fine is None:
                self.fine = other.fine.copy()
            else:
                self.fine += other.fine

    def result(self, sum_sq_error: float | None, work: np.dtype) -> Agreement:
        """The figures (module rules); ``sum_sq_error``: ``Σd²`` of the same pairs."""
        n = self.n
        if n == 0 or sum_sq_error is None:
            return Agreement(n)
        finite = all(math.isfinite(x) for x in (self.sum_aa, self.sum_bb, self.sum_ab, self.m2_a, self.m2_b,
                                                  self.c_ab, sum_sq_error))
        cosine = pearson = None
        if finite and self.sum_aa > 0 and self.sum_bb > 0:
            cosine = _clamp(self.sum_ab / math.sqrt(self.sum_aa * self.sum_bb))
        if finite and n > 1 and self.m2_a > 0 and self.m2_b > 0:
            pearson = _clamp(self.c_ab / math.sqrt(self.m2_a * self.m2_b))
        snr = psnr = None
        if finite:
            snr = _decibels(self.sum_bb, sum_sq_error)
            psnr = _decibels(self.peak_b * self.peak_b, sum_sq_error / n) if math.isfinite(self.peak_b ** 2) else None
        cumulative = None if self.fine is None else np.cumsum(self.fine)
        quantiles = tuple((name, self._quantile(q, work, cumulative)) for name, q in QUANTILES)
        return Agreement(n, cosine, pearson, snr, psnr, self.peak_b, quantiles)

    def _quantile(self, q: float, work: np.dtype, cumulative: np.ndarray | None = None) -> float | None:
        if self.fine is None:
            return None
        rank = max(1, math.ceil(q * self.n))
        if rank <= self.zeros:
            return 0.0
        if cumulative is None:
            cumulative = np.cumsum(self.fine)
        index = int(np.searchsorted(cumulative, rank))
        return _bin_lower_edge(index, work)


def _clamp(value: float) -> float:
    """A correlation rounded past ±1 by the last bit is ±1."""
    return max(-1.0, min(1.0, value))


def _decibels(signal: float, noise: float) -> float:
    if noise == 0:
        return math.inf
    if signal == 0:
        return -math.inf
    return 10.0 * math.log10(signal / noise)


@dataclass(frozen=True)
class Agreement:
    """The whole-tensor figures of a comparison (module rules); None: undefined."""

    pairs: int
    cosine: float | None = None
    pearson: float | None = None
    snr_db: float | None = None
    psnr_db: float | None = None
    peak_b: float | None = None
    quantiles: tuple[tuple[str, float | None], ...] = ()

    def quantile(self, name: str) -> float | None:
        return dict(self.quantiles).get(name)

    def to_json(self) -> dict:
        """The figures as JSON values: None stays null (undefined), infinities are ``"inf"`` /
        ``"-inf"``."""
        def number(x):
            if x is None or math.isfinite(x):
                return x
            return "inf" if x > 0 else "-inf"
        out = {"pairs": self.pairs, "cosine": self.cosine, "pearson": self.pearson,
               "snr_db": number(self.snr_db), "psnr_db": number(self.psnr_db), "peak_b": number(self.peak_b)}
        out.update({f"{name}_absolute": number(value) for name, value in self.quantiles})
        return out


def block_sums(a: np.ndarray, b: np.ndarray, zeros: int, fine: np.ndarray, scratch,
               peak: float | None = None) -> AgreementSums:
    """The sums of the finite pairs ``a[i]``, ``b[i]`` (flat, any real type), with ``zeros``
    pairs of zero error and ``fine`` (:func:`fine_histogram`) of their absolute errors;
    ``scratch``: the thread's buffers (:class:`core.compare.blockstats.Scratch`); ``peak``:
    ``max |b|`` when the caller has it already."""
    n = int(a.size)
    if n == 0:
        return AgreementSums()
    step = min(n, _SUM_CHUNK)
    rows = -(-step // _DOT_ROW)
    # float64 copies of a cache-sized piece of A and B at a time, in rows of one dot product
    # each, short enough for BLAS to compute on the calling thread alone
    wide = scratch.get("agree", np.float64, 2 * rows * _DOT_ROW)
    ones = scratch.get("agree_1", np.float64, _DOT_ROW)
    if ones[:1].tolist() != [1.0] or ones[-1:].tolist() != [1.0]:
        ones.fill(1.0)
    sums = np.zeros(5)
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, n, step):
            stop = min(n, start + step)
            count = stop - start
            used = -(-count // _DOT_ROW)
            width = used * _DOT_ROW
            pair = wide[:2 * width].reshape(2, width)
            if width == count:
                np.concatenate((a[start:stop], b[start:stop]), out=wide[:2 * width], casting="unsafe")
            else:  # the last row's tail is zeros: it adds nothing
                np.copyto(pair[0, :count], a[start:stop], casting="unsafe")
                np.copyto(pair[1, :count], b[start:stop], casting="unsafe")
                pair[:, count:] = 0.0
            rows_of = pair.reshape(2, used, _DOT_ROW)
            squares = np.vecdot(rows_of, rows_of).sum(axis=1)  # Σaa, Σbb
            plain = np.vecdot(rows_of, ones).sum(axis=1)  # Σa, Σb
            sums += (squares[0], squares[1], np.vecdot(rows_of[0], rows_of[1]).sum(), plain[0], plain[1])
        sum_aa, sum_bb, sum_ab, sum_a, sum_b = (float(x) for x in sums)
        mean_a, mean_b = sum_a / n, sum_b / n
        m2_a = max(0.0, sum_aa - sum_a * mean_a)
        m2_b = max(0.0, sum_bb - sum_b * mean_b)
        c_ab = sum_ab - sum_a * mean_b
    if peak is None:
        peak = max(float(b.max()), -float(b.min()))
    return AgreementSums(n, sum_aa, sum_bb, sum_ab, mean_a, mean_b, m2_a, m2_b, c_ab, peak, zeros, fine)
