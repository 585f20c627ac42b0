"""The table's values of a comparison: read by tiles around the painted cells, coloured by a
diverging map."""

from __future__ import annotations

import numpy as np
import pytest

from core.pipeline.pipeline import DecodeParams
from inspector.compare.table_values import TILE_COLS, TILE_ROWS, ComparisonValues, diverging_color
from inspector.state.comparison import Comparison
from inspector.state.document import Document
from inspector.widgets import palette


@pytest.fixture
def comparison(qtbot):
    document = Document()
    yield Comparison(document)
    document.close_files()


def write(path, values) -> str:
    np.asarray(values).tofile(path)
    return str(path)


def wait_for_outcome(qtbot, comparison):
    qtbot.waitUntil(lambda: not comparison.is_running and (comparison.result is not None or comparison.error is not None))


def test_the_table_reads_one_tile_around_the_cells_it_paints(qtbot, comparison, tmp_path):
    a = np.arange(1000 * 100, dtype=np.float32).reshape(1000, 100)
    b = a + np.float32(1)
    comparison.document.open_files([write(tmp_path / "a.bin", a)], DecodeParams(dtype="float32", shape=(1000, 100)))
    comparison.open_b([write(tmp_path / "b.bin", b)])
    wait_for_outcome(qtbot, comparison)
    values = ComparisonValues(comparison, comparison.document.display_axes)
    assert values.value((500, 50)) == 1.0
    assert values.value((511, 63)) == 1.0  # the same tile: rows 448-511, columns 32-63
    assert values.tiles_read() == 1
    (start, window), = values._tiles.values()
    assert start == (448, 32) and window.a.shape == (TILE_ROWS, TILE_COLS)
    np.testing.assert_array_equal(window.a[0], a[448, 32:64])


def test_diverging_colours_run_from_neutral_to_the_palettes_ends(qapp):
    assert diverging_color(1, 0.0).name() == palette.DIFF_NONE
    assert diverging_color(1, 1.0).name() == palette.DIFF_ABOVE
    assert diverging_color(-1, 1.0).name() == palette.DIFF_BELOW
    # Halfway from #f7f7f7 to #4393c3: (247 + 67) / 2, (247 + 147) / 2, (247 + 195) / 2.
    assert diverging_color(-1, 0.5).getRgb()[:3] == (157, 197, 221)
