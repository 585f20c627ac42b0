"""Acceptance: for every engine type, the plot readout and the table cell of one element read the same.

Each type gets a small array of awkward values (a bfloat16 1/3, -0.0, NaN, a subnormal, the
integer extremes, complex values with special parts), shown in the real table model and the real
plot panel sharing one DisplayAxes, as in the main window. The readout is read after a real mouse
move over the image (and after a selection in line mode) and compared with the table's text.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt

from core.dtypes.table import ENGINE_TYPES, resolve_dtype
from inspector.plot.panel import PlotPanel, configure_pyqtgraph
from inspector.state.display_axes import DisplayAxes
from inspector.table.model import ArrayTableModel

NAN, INF = float("nan"), float("inf")


def awkward_values(name: str) -> np.ndarray:
    """Six awkward values of engine type ``name``, as a 2 x 3 array."""
    dtype = resolve_dtype(name, extended_types=True)
    if dtype.kind == "b":
        values = [True, False, True, False, False, True]
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        middle = -1 if dtype.kind == "i" else int(info.max) // 2 + 1  # -1, or the top bit alone
        values = [int(info.min), int(info.max), 1, int(info.max) - 1, middle, 100]
    elif dtype.kind == "c":
        tiny = float(np.finfo(dtype).smallest_subnormal)
        values = [complex(1 / 3, 1 / 3), complex(-0.0, NAN), complex(0, tiny), complex(INF, -1),
                  complex(0.1, -0.2), complex(1, 2)]
    else:
        finfo = ml_dtypes.finfo(dtype)  # numpy's floats, bfloat16 and every float8
        values = [1 / 3, -0.0, NAN, float(finfo.smallest_subnormal), -INF, 0.1]
    return np.array(values, dtype=dtype).reshape(2, 3)


@pytest.fixture
def views(qtbot):
    configure_pyqtgraph()
    axes = DisplayAxes()
    model = ArrayTableModel(axes)
    panel = PlotPanel(axes)
    qtbot.addWidget(panel)
    panel.resize(700, 450)
    panel.show()
    qtbot.waitExposed(panel)
    yield model, panel
    model.deleteLater()


def hover(qtbot, panel: PlotPanel, row: int, col: int) -> str:
    """Move the mouse over element (row, col) of the image; return the value the readout shows."""
    plot = panel.image_plot
    prefix = f"index ({row}, {col}) value "
    tries = iter(range(1_000_000))

    def moved_there() -> bool:
        # Mapped anew on each try (the view's range settles after the first layout passes), at
        # another point of the cell each time: a move to where the cursor already is sends no event.
        shift = 0.1 * (next(tries) % 5) - 0.2
        scene = plot.view_box.mapViewToScene(QPointF(col + 0.5 + shift, row + 0.5 - shift))
        qtbot.mouseMove(plot.graphics_view.viewport(), plot.graphics_view.mapFromScene(scene))
        return panel.readout_text().startswith(prefix)

    qtbot.waitUntil(moved_there)
    return panel.readout_text()[len(prefix):]


def cell_is_number(element) -> bool:
    """Not a real NaN (of any float type, ml_dtypes' too); complex values, ints, bools are."""
    value = np.asarray(element)
    return value.dtype.kind in "biuc" or not np.isnan(value.astype(np.float64))


def cell_text(model: ArrayTableModel, row: int, col: int) -> str:
    return model.data(model.index(row, col), Qt.ItemDataRole.DisplayRole)


@pytest.mark.parametrize("name", ENGINE_TYPES)
def test_image_readout_and_table_cell_read_the_same(qtbot, views, name):
    model, panel = views
    array = awkward_values(name)
    model.set_array(array)
    panel.set_array(array)
    assert panel.mode == "image"
    texts = []
    for row in range(2):
        for col in range(3):
            table = cell_text(model, row, col)
            assert hover(qtbot, panel, row, col) == table, (name, row, col)
            texts.append(table)
    # Different values (bit patterns) get different texts: the text tells them apart. NaNs all
    # read "nan" (float8_e4m3fn has no infinity: -inf becomes its other NaN pattern, 0xff).
    patterns = {element.tobytes() for element in array.flat if cell_is_number(element)}
    assert len(set(texts) - {"nan"}) == len(patterns)


@pytest.mark.parametrize("name", ENGINE_TYPES)
def test_line_readout_and_table_cell_read_the_same(qtbot, views, name):
    model, panel = views
    array = awkward_values(name).reshape(-1)
    model.set_array(array)
    panel.set_array(array)
    assert panel.mode == "line"
    for i in range(array.size):
        panel.select_element((i,))
        assert panel.readout_text() == f"selected index ({i},) value {cell_text(model, i, 0)}"


@pytest.mark.parametrize("name, row, col, expected", [
    ("bfloat16", 0, 0, "0.334"),  # numpy's own str of this bfloat16 is 0.333984
    ("bfloat16", 1, 0, "9e-41"),  # the smallest bfloat16 subnormal, 9.18355e-41
    ("float32", 0, 0, "0.33333334"),
    ("float16", 1, 0, "6e-08"),
    ("float64", 0, 1, "-0.0"),
    ("float64", 0, 2, "nan"),
    ("int64", 0, 0, "-9223372036854775808"),
    ("uint64", 0, 1, "18446744073709551615"),
    ("complex64", 0, 0, "0.33333334+0.33333334j"),
    ("complex128", 0, 1, "-0.0+nanj"),
    ("complex128", 1, 0, "inf-1.0j"),
    ("bool", 0, 0, "True"),
])
def test_both_views_show_the_formatters_text(qtbot, views, name, row, col, expected):
    model, panel = views
    array = awkward_values(name)
    model.set_array(array)
    panel.set_array(array)
    assert cell_text(model, row, col) == expected
    assert hover(qtbot, panel, row, col) == expected


def test_scalar_readout_matches_the_table(qtbot, views):
    model, panel = views
    array = np.array(1 / 3, dtype=ml_dtypes.bfloat16)
    model.set_array(array)
    panel.set_array(array)
    assert cell_text(model, 0, 0) == "0.334"
    assert panel.readout_text() == "index () value 0.334"
