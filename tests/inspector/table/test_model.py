"""ArrayTableModel: values against numpy, headers, formats, special values, heat map, paging,
by-reference storage and dataChanged-versus-reset."""

import itertools

import ml_dtypes
import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from core.text.number_format import format_value
from inspector.state.display_axes import DisplayAxes
from inspector.table.model import (
    SPECIAL_COLORS,
    ArrayTableModel,
    _viridis_lut,
)

DISPLAY = Qt.ItemDataRole.DisplayRole
TOOLTIP = Qt.ItemDataRole.ToolTipRole
FOREGROUND = Qt.ItemDataRole.ForegroundRole
BACKGROUND = Qt.ItemDataRole.BackgroundRole
H, V = Qt.Orientation.Horizontal, Qt.Orientation.Vertical


@pytest.fixture
def make_model(qapp):
    models = []

    def make(array, **kwargs):
        model = ArrayTableModel(**kwargs)
        model.set_array(array)
        models.append(model)
        return model

    yield make
    for model in models:
        model.deleteLater()


def cells(model):
    """{(plane row, plane col): ValueRole} of the current page."""
    return {
        model.cell(model.index(r, c)): model.data(model.index(r, c), model.ValueRole)
        for r in range(model.rowCount())
        for c in range(model.columnCount())
    }


def headers(model, orientation):
    count = model.columnCount() if orientation == H else model.rowCount()
    return [model.headerData(s, orientation) for s in range(count)]


# ---------------------------------------------------------------------------- shapes
def test_zero_d_is_one_cell(make_model):
    model = make_model(np.array(2.5, dtype=">f8"))
    assert (model.rowCount(), model.columnCount()) == (1, 1)
    assert model.data(model.index(0, 0)) == "2.5"
    assert model.data(model.index(0, 0), model.FullIndexRole) == ()
    assert headers(model, V) == ["()"] and headers(model, H) == ["value"]


def test_one_d_is_one_column_with_index_headers(make_model):
    a = np.arange(5, dtype="i4") * 10 - 20
    model = make_model(a)
    assert (model.rowCount(), model.columnCount()) == (5, 1)
    assert [model.data(model.index(r, 0)) for r in range(5)] == ["-20", "-10", "0", "10", "20"]
    assert headers(model, V) == ["0", "1", "2", "3", "4"] and headers(model, H) == ["value"]
    assert model.data(model.index(3, 0), model.FullIndexRole) == (3,)


def test_two_d_direct(make_model):
    a = np.arange(12, dtype="f4").reshape(3, 4) / 4
    model = make_model(a)
    assert (model.rowCount(), model.columnCount()) == (3, 4)
    assert all(v == a[rc] and type(v) is np.float32 for rc, v in cells(model).items())
    assert model.data(model.index(2, 1)) == "2.25"
    assert headers(model, V) == ["0", "1", "2"] and headers(model, H) == ["0", "1", "2", "3"]


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 1, 4)])
def test_n_d_every_axis_pair_and_fixed_index_matches_numpy(make_model, shape):
    a = np.arange(np.prod(shape), dtype="i8").reshape(shape) * 7 - 30
    model = make_model(a)
    axes = model.display_axes
    for row_axis, col_axis in itertools.permutations(range(len(shape)), 2):
        axes.set_axes(row_axis, col_axis)
        fixed = axes.fixed_axes()
        for fixed_index in itertools.product(*(range(shape[f]) for f in fixed)):
            for axis, i in zip(fixed, fixed_index):
                axes.set_index(axis, i)
            assert (model.rowCount(), model.columnCount()) == (shape[row_axis], shape[col_axis])
            for (r, c), value in cells(model).items():
                index = dict(zip(fixed, fixed_index)) | {row_axis: r, col_axis: c}
                full = tuple(index[k] for k in range(len(shape)))
                assert value == a[full]
                assert model.data(model.index(r, c), model.FullIndexRole) == full
            assert headers(model, V) == [str(i) for i in range(shape[row_axis])]


def test_transposed_plane_headers_and_values(make_model):
    a = np.arange(24).reshape(2, 3, 4)
    model = make_model(a)
    model.display_axes.set_axes(2, 0)  # rows = axis 2, columns = axis 0
    model.display_axes.set_index(1, 2)
    assert (model.rowCount(), model.columnCount()) == (4, 2)
    assert model.data(model.index(3, 1)) == str(a[1, 2, 3])
    assert headers(model, H) == ["0", "1"]
    assert model.headerData(3, V, TOOLTIP) == "axis 2, index 3"


def test_big_endian_values_equal_numpy(make_model):
    a = np.array([[1.5, -2.25], [1e30, 3.0]], dtype=">f4")
    model = make_model(a)
    assert all(v == a[rc] for rc, v in cells(model).items())
    assert model.data(model.index(1, 0)) == "1e+30"
    b = np.arange(-3, 3, dtype=">i8")
    model = make_model(b)
    assert [model.data(model.index(r, 0)) for r in range(6)] == [str(x) for x in range(-3, 3)]
    model.set_number_format("hex")
    assert model.data(model.index(0, 0)) == "0xfffffffffffffffd"


def test_big_endian_bfloat16_view(make_model):
    # What core.decode.decode_raw gives for big-endian bfloat16: dtype.name "bfloat16", byte order ">".
    dtype = np.dtype(ml_dtypes.bfloat16).newbyteorder(">")
    a = np.frombuffer(bytes([0x3F, 0xC0, 0x7F, 0xC1, 0x00, 0x01, 0xC0, 0x40]), dtype=dtype)
    model = make_model(a)
    values = [float(model.data(model.index(r, 0), model.ValueRole)) for r in range(4)]
    np.testing.assert_array_equal(values, [1.5, np.nan, 2.0**-133, -3.0])
    assert [model.data(model.index(r, 0)) for r in range(4)] == ["1.5", "nan", "9e-41", "-3.0"]
    assert model.data(model.index(1, 0), TOOLTIP) == (
        "[1] = nan  (bfloat16, big-endian)\nNaN (bits 0x7fc1, quiet, payload 0x1)")
    model.set_number_format("hex")
    assert [model.data(model.index(r, 0)) for r in range(4)] == [
        "0x3fc0", "0x7fc1", "0x0001", "0xc040"]
    assert np.shares_memory(model.plane, a)


def test_bfloat16_values_and_text(make_model):
    a = np.array([0.1, 1.5, -3.0, 1e-39], dtype=ml_dtypes.bfloat16)
    model = make_model(a)
    assert [model.data(model.index(r, 0), model.ValueRole) for r in range(4)] == list(a)
    assert [model.data(model.index(r, 0)) for r in range(4)] == ["0.1", "1.5", "-3.0", "1e-39"]
    assert model.data(model.index(3, 0), model.SpecialRole) == "subnormal"


@pytest.mark.parametrize(
    "fmt, decimals, expected",
    [("auto", 6, "1.5"), ("fixed", 2, "1.50"), ("scientific", 1, "1.5e+00"),
     ("hex", 6, "0x3fc00000"), ("raw bits", 6, "0 01111111 10000000000000000000000")],
)
def test_number_formats_reach_the_display(make_model, qtbot, fmt, decimals, expected):
    model = make_model(np.array([1.5, 2.0], dtype="<f4"))
    if fmt != "auto":
        with qtbot.waitSignal(model.dataChanged):
            model.set_number_format(fmt, decimals)
    assert model.data(model.index(0, 0)) == expected
    assert model.number_format == (fmt, decimals)


def test_packed_values_show_their_stored_bits_in_hex(make_model):
    model = make_model(np.array([-8, 7, -1], dtype=np.int8))
    model.set_array(model._array, stored_bits=4)  # int4 decoded into int8 (docs/semantics.md §2a)
    model.set_number_format("hex")
    assert [model.data(model.index(r, 0)) for r in range(3)] == ["0x8", "0x7", "0xf"]
    model.set_number_format("auto")
    assert [model.data(model.index(r, 0)) for r in range(3)] == ["-8", "7", "-1"]
    model.set_array(np.array([-8388608, -1], dtype=np.int32), stored_bits=24)
    model.set_number_format("hex")
    assert [model.data(model.index(r, 0)) for r in range(2)] == ["0x800000", "0xffffff"]
    model.set_array(np.array([-1], dtype=np.int32))  # a plain int32 again
    assert model.data(model.index(0, 0)) == "0xffffffff"


def test_float8_cells(make_model):
    a = np.frombuffer(bytes([0x38, 0x7F, 0x01]), ml_dtypes.float8_e4m3fn)
    model = make_model(a)
    assert [model.data(model.index(r, 0)) for r in range(3)] == ["1.0", "nan", "0.002"]
    assert model.data(model.index(2, 0), model.SpecialRole) == "subnormal"  # 2**-9
    model.set_number_format("raw bits")
    assert model.data(model.index(0, 0)) == "0 0111 000"


def test_complex_and_bool_cells(make_model):
    model = make_model(np.array([1.5 - 2j, 0.25j], dtype="c8"))
    assert [model.data(model.index(r, 0)) for r in range(2)] == ["1.5-2.0j", "0.0+0.25j"]
    model = make_model(np.array([[True, False]]))
    assert headers(model, H) == ["0", "1"]
    assert [model.data(model.index(0, c)) for c in range(2)] == ["True", "False"]


# ---------------------------------------------------------------------------- special values
def test_special_values_are_classified_coloured_and_explained(make_model):
    nan_bits = np.array([0x7FC00001], dtype="<u4").view("<f4")[0]
    a = np.array([nan_bits, np.inf, -np.inf, 1e-40, -0.0, 1.0], dtype=">f4")
    model = make_model(a)
    kinds = [model.data(model.index(r, 0), model.SpecialRole) for r in range(6)]
    assert kinds == ["nan", "inf", "-inf", "subnormal", "-0", None]
    for r, kind in enumerate(kinds):
        colour = model.data(model.index(r, 0), FOREGROUND)
        assert colour == (SPECIAL_COLORS[kind] if kind else None)
    assert model.data(model.index(0, 0), TOOLTIP) == (
        "[0] = nan  (float32, big-endian)\nNaN (bits 0x7fc00001, quiet, payload 0x1)")
    assert model.data(model.index(3, 0), TOOLTIP).endswith("subnormal (smaller than the "
                                                          "smallest normal 1.1754944e-38)")
    assert model.data(model.index(4, 0), TOOLTIP) == (
        "[4] = -0.0  (float32, big-endian)\nnegative zero")
    assert model.data(model.index(5, 0), TOOLTIP) == "[5] = 1.0  (float32, big-endian)"


def test_tooltip_shows_full_index(make_model):
    a = np.arange(24, dtype="u2").reshape(2, 3, 4)
    model = make_model(a)
    model.display_axes.set_index(0, 1)
    assert model.data(model.index(2, 3), TOOLTIP) == "[1, 2, 3] = 23  (uint16)"
    model.set_array(a.astype(">u2"))
    assert model.data(model.index(2, 3), TOOLTIP) == "[1, 2, 3] = 23  (uint16, big-endian)"


# ---------------------------------------------------------------------------- heat map
def test_heat_map_colours_min_and_max_with_contrasting_text(make_model, qtbot):
    a = np.array([[0.0, 5.0], [np.nan, 10.0]], dtype="f8")
    model = make_model(a)
    assert model.data(model.index(0, 0), BACKGROUND) is None
    with qtbot.waitSignal(model.dataChanged):
        model.set_heat_map(True)
    lut = _viridis_lut()
    assert model.heat_levels == (0.0, 10.0)
    assert model.data(model.index(0, 0), BACKGROUND) == lut[0]  # dark purple
    assert model.data(model.index(1, 1), BACKGROUND) == lut[-1]  # yellow
    assert model.data(model.index(0, 0), FOREGROUND) == QColor(Qt.GlobalColor.white)
    assert model.data(model.index(1, 1), FOREGROUND) == QColor(Qt.GlobalColor.black)
    assert model.data(model.index(1, 0), BACKGROUND) is None  # NaN keeps its mark
    assert model.data(model.index(1, 0), FOREGROUND) == SPECIAL_COLORS["nan"]
    model.set_heat_map(False)
    assert model.heat_levels is None and model.data(model.index(1, 1), BACKGROUND) is None


def test_heat_levels_follow_the_plane(make_model):
    a = np.arange(2 * 3 * 4, dtype="i2").reshape(2, 3, 4)
    model = make_model(a)
    model.set_heat_map(True)
    assert model.heat_levels == (0.0, 11.0)
    model.display_axes.set_index(0, 1)
    assert model.heat_levels == (12.0, 23.0)


def test_heat_levels_of_complex_and_all_nan_planes(make_model):
    model = make_model(np.array([[3 + 4j, 0j]]))
    model.set_heat_map(True)
    assert model.heat_levels == (0.0, 5.0)  # magnitudes, as the image plot's default
    model.set_array(np.array([[np.nan, np.inf]]))
    assert model.heat_levels == (0.0, 1.0)  # no finite sample: the image plot's default levels
    model.set_array(np.array([["a", "b"]]))
    assert model.heat_levels is None  # no numbers, no heat map


# ---------------------------------------------------------------------------- storage
def test_model_holds_a_read_only_memmap_by_reference(make_model, tmp_path):
    path = tmp_path / "data.bin"
    np.arange(60, dtype=">f4").tofile(path)
    mm = np.memmap(path, dtype=">f4", mode="r", shape=(3, 4, 5))
    model = make_model(mm)
    assert model.array is mm
    assert np.shares_memory(model.plane, mm)
    model.display_axes.set_axes(2, 0)
    assert np.shares_memory(model.plane, mm)
    assert model.data(model.index(4, 2)) == str(np.float32(mm[2, 0, 4]))


def test_same_shape_emits_data_changed_not_reset(make_model, qtbot):
    a = np.zeros((3, 4), dtype="f4")
    model = make_model(a)
    resets = []
    model.modelReset.connect(lambda: resets.append(True))
    with qtbot.waitSignal(model.dataChanged) as blocker:
        model.set_array(a + 1)
    top_left, bottom_right = blocker.args[:2]
    assert (top_left.row(), top_left.column(), bottom_right.row(), bottom_right.column()) == (
        0, 0, 2, 3)
    assert model.data(model.index(2, 3)) == "1.0" and not resets
    with qtbot.waitSignal(model.modelReset):
        model.set_array(np.zeros((3, 5), dtype="f4"))
    assert model.columnCount() == 5
    resets.clear()
    with qtbot.waitSignal(model.dataChanged):  # another dtype, same shape: values only
        model.set_array(np.ones((3, 5), dtype=">i2"))
    assert model.data(model.index(0, 0)) == "1" and not resets


def test_any_shape_change_resets_even_with_the_same_plane(make_model, qtbot):
    model = make_model(np.zeros((3, 4, 5)))
    with qtbot.waitSignal(model.modelReset):
        model.set_array(np.ones((7, 4, 5)))
    assert model.data(model.index(3, 4)) == "1.0"


def test_moving_a_fixed_index_is_data_changed_but_new_axes_reset(make_model, qtbot):
    model = make_model(np.arange(24).reshape(2, 3, 4))
    resets = []
    model.modelReset.connect(lambda: resets.append(True))
    with qtbot.waitSignal(model.dataChanged):
        model.display_axes.set_index(0, 1)
    assert not resets and model.data(model.index(0, 0)) == "12"
    with qtbot.waitSignal(model.modelReset):
        model.display_axes.set_axes(0, 2)


def test_shared_axes_reset_elsewhere_waits_for_set_array(make_model):
    axes = DisplayAxes()
    model = make_model(np.arange(6).reshape(2, 3), display_axes=axes)
    axes.reset((4, 5, 6))  # e.g. the plot got the new array first
    assert model.rowCount() == 2  # still the old plane, no IndexError
    model.set_array(np.zeros((4, 5, 6)))
    assert (model.rowCount(), model.columnCount()) == (5, 6)


# ---------------------------------------------------------------------------- paging
def test_paging_small_pages_show_true_indices(make_model):
    a = np.arange(25 * 9).reshape(25, 9)
    model = make_model(a, max_rows=10, max_cols=4)
    assert (model.rowCount(), model.columnCount()) == (10, 4)
    index = model.show_cell(23, 8)
    assert (model.row_offset, model.col_offset) == (20, 8)
    assert (model.rowCount(), model.columnCount()) == (5, 1)  # last pages are short
    assert (index.row(), index.column()) == (3, 0)
    assert model.data(index) == str(a[23, 8])
    assert headers(model, V) == ["20", "21", "22", "23", "24"] and headers(model, H) == ["8"]
    model.set_offsets(-5, 5)
    assert (model.row_offset, model.col_offset) == (0, 4)
    with pytest.raises(IndexError, match="outside the 25 x 9 plane"):
        model.show_cell(25, 0)


def test_more_than_2_to_the_31_rows_on_a_sparse_memmap(make_model, tmp_path):
    path = tmp_path / "sparse.bin"
    with open(path, "wb") as f:
        f.seek(3_000_000_001)
        f.write(b"\x2a")
        f.truncate(2**32)  # 4 GiB, almost all holes: nothing is read unless asked
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    model = make_model(mm)
    assert model.plane_shape == (2**32, 1)
    assert model.rowCount() == ArrayTableModel.MAX_ROWS < 2**31 - 1
    index = model.show_cell(3_000_000_000, 0)
    assert model.row_offset == 3_000_000_000 - 3_000_000_000 % ArrayTableModel.MAX_ROWS
    assert model.headerData(index.row(), V) == "3000000000"
    assert model.data(index) == "0"
    assert model.headerData(index.row() + 1, V) == "3000000001"
    assert model.data(model.index(index.row() + 1, 0)) == "42"
    assert model.data(index, model.FullIndexRole) == (3_000_000_000,)
    last = model.show_cell(2**32 - 1, 0)
    assert model.rowCount() == 2**32 - model.row_offset and model.data(last) == "0"
    assert np.shares_memory(model.plane, mm)


# ---------------------------------------------------------------------------- TSV
def test_selection_text_is_exact_tsv(make_model):
    a = np.array([[1.5, -2.0, np.nan], [0.1, 1e-40, 3.0]], dtype="f4")
    model = make_model(a)
    assert model.selection_text(0, 0, 1, 2) == "1.5\t-2.0\tnan\n0.1\t1e-40\t3.0"
    model.set_number_format("hex")
    assert model.selection_text(1, 1, 1, 2) == "0x000116c2\t0x40400000"


def test_selection_text_refuses_huge_boxes(make_model):
    model = make_model(np.zeros((2000, 1000), dtype="u1"))
    with pytest.raises(ValueError, match=r"selection has 2,000,000 cells; copying is limited"):
        model.selection_text(0, 0, 1999, 999)


def test_bad_format_is_rejected(make_model):
    model = make_model(np.zeros(3))
    with pytest.raises(ValueError, match="unknown number format 'octal'"):
        model.set_number_format("octal")
    assert format_value(np.float64(0), np.dtype("f8")) == model.data(model.index(0, 0))
