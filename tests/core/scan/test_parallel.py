"""core.scan.parallel: the block scheduler shared by statistics and compare, and the histogram
bin indices it feeds (core.scan.histogram)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from core.errors import Cancelled
from core.scan.histogram import BinIndexer
from core.scan.parallel import read_whole, scan_blocks


def test_blocks_are_merged_in_block_order_with_progress():
    merged, progress = [], []
    scan_blocks((np.arange(10),), 3, lambda start, blocks, state: (start, int(blocks[0].sum())),
                merged.append, progress=lambda done, total: progress.append((done, total)), workers=2)
    assert merged == [(0, 3), (3, 12), (6, 21), (9, 9)]
    assert progress == [(3, 10), (6, 10), (9, 10), (10, 10)]


def test_two_views_share_the_cut_and_weight_scales_progress():
    merged, progress = [], []
    a, b = np.arange(6).reshape(2, 3), np.arange(6, 12).reshape(2, 3)
    scan_blocks((a, b), 3, lambda start, blocks, state: (start, blocks[0].tolist(), blocks[1].tolist()),
                merged.append, progress=lambda done, total: progress.append(done), total=12, weight=2)
    assert merged == [(0, [[0, 1, 2]], [[6, 7, 8]]), (3, [[3, 4, 5]], [[9, 10, 11]])]
    assert progress == [6, 12]


def test_each_thread_makes_its_own_state_once():
    made, lock = [], threading.Lock()

    def new_state():
        with lock:
            made.append(threading.get_ident())
        return threading.get_ident()

    owners = []
    scan_blocks((np.arange(100),), 1, lambda start, blocks, state: state == threading.get_ident(),
                owners.append, new_state=new_state, workers=2)
    assert len(owners) == 100 and all(owners)
    assert 1 <= len(made) <= 2 and len(set(made)) == len(made)


def test_a_worker_error_reaches_the_caller():
    def work(start, blocks, state):
        if start == 4:
            raise ValueError("bad block at 4")
        return start

    with pytest.raises(ValueError, match="bad block at 4"):
        scan_blocks((np.arange(10),), 2, work, lambda summary: None, workers=2)


def test_cancel_reports_the_blocks_in_flight_then_raises():
    done, asked = [], []

    def cancelled():
        asked.append(1)
        return len(asked) > 2  # the third block is refused

    with pytest.raises(Cancelled, match="stopped"):
        scan_blocks((np.arange(10),), 2, lambda start, blocks, state: start, lambda s: None,
                    cancelled=cancelled, cancel_message="stopped",
                    progress=lambda d, t: done.append(d), workers=2)
    assert done == [2, 4]  # the two blocks started before the cancel are merged and reported


def test_read_whole_without_a_reader_is_the_block():
    block = np.arange(5)
    assert read_whole(None, block) is block


def test_bin_indices_are_numpys_on_the_edges():
    values = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 0.2499999999999999, 0.7500000000000001])
    indexer = BinIndexer(0.0, 1.0, 4)
    assert indexer.indices(values).tolist() == [0, 1, 2, 3, 3, 0, 3]
    assert indexer.counts(values).tolist() == np.histogram(values, bins=4, range=(0, 1))[0].tolist() == [2, 1, 1, 3]


def test_bin_counts_equal_numpy_on_awkward_ranges():
    rng = np.random.default_rng(4)
    for scale, bins in ((1e-300, 7), (1.0, 64), (1e300, 33), (3.7, 1000)):
        values = rng.standard_normal(20_000) * scale
        values[:50] = np.linspace(values.min(), values.max(), 50)  # values on (or next to) edges
        low, high = values.min(), values.max()
        expected = np.histogram(values, bins=bins, range=(low, high))[0]
        assert BinIndexer(low, high, bins).counts(values).tolist() == expected.tolist()
