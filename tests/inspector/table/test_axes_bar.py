"""AxesBar: hidden parts below 2-d, combos and sliders write the DisplayAxes and follow it."""


import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox, QSpinBox

from inspector.state.display_axes import DisplayAxes
from inspector.table.axes_bar import AxesBar


@pytest.fixture
def make_bar(qtbot):
    keep = []  # the bar does not own a DisplayAxes it was given

    def make(shape):
        axes = DisplayAxes()
        axes.reset(shape)
        bar = AxesBar(axes)
        qtbot.addWidget(bar)
        bar.show()
        keep.append(axes)
        return bar, axes

    yield make


def visible_parts(bar):
    return [w.isVisibleTo(bar) for w in (bar.row_combo, bar.col_combo)]


@pytest.mark.parametrize("shape", [(), (7,)])
def test_nothing_to_choose_below_two_d(make_bar, shape):
    bar, _ = make_bar(shape)
    assert visible_parts(bar) == [False, False]
    assert bar.slice_text == ""
    with pytest.raises(KeyError):
        bar.index_editors(0)


def test_three_d_lists_axes_and_one_slider(make_bar):
    bar, axes = make_bar((3, 48, 64))
    assert visible_parts(bar) == [True, True]
    items = [bar.row_combo.itemText(i) for i in range(bar.row_combo.count())]
    assert items == ["axis 0 (3)", "axis 1 (48)", "axis 2 (64)"]
    assert (bar.row_combo.currentIndex(), bar.col_combo.currentIndex()) == (1, 2)
    slider, spin = bar.index_editors(0)
    assert (slider.minimum(), slider.maximum(), spin.maximum()) == (0, 2, 2)
    assert bar.slice_text == "[0, :, :]"


def test_slider_and_spin_box_set_the_fixed_index(make_bar, qtbot):
    bar, axes = make_bar((3, 4, 5))
    slider, spin = bar.index_editors(0)
    with qtbot.waitSignal(axes.changed):
        qtbot.keyClick(slider, Qt.Key.Key_Right)
    assert axes.indices[0] == 1 and spin.value() == 1
    with qtbot.waitSignal(axes.changed):
        spin.setValue(2)
    assert axes.indices[0] == 2 and slider.value() == 2
    assert bar.slice_text == "[2, :, :]"


def test_bar_follows_changes_made_elsewhere(make_bar):
    bar, axes = make_bar((3, 4, 5, 6))
    axes.set_axes(0, 3)
    bar.index_editors(1)  # the fixed axes are now 1 and 2
    with pytest.raises(KeyError):
        bar.index_editors(0)
    axes.set_index(2, 4)
    slider, spin = bar.index_editors(2)
    assert (slider.value(), spin.value(), slider.maximum()) == (4, 4, 4)
    assert (bar.row_combo.currentIndex(), bar.col_combo.currentIndex()) == (0, 3)
    assert bar.slice_text == "[:, 0, 4, :]"


def test_choosing_the_column_axis_for_rows_swaps_them(make_bar, qtbot):
    bar, axes = make_bar((2, 3, 4))
    with qtbot.waitSignal(axes.changed):
        qtbot.keyClick(bar.row_combo, Qt.Key.Key_Down)  # rows: axis 1 -> axis 2
    assert (axes.row_axis, axes.col_axis) == (2, 1)
    assert bar.slice_text == "[0, :, :].T"
    assert (bar.row_combo.currentIndex(), bar.col_combo.currentIndex()) == (2, 1)
    with qtbot.waitSignal(axes.changed):
        qtbot.keyClick(bar.col_combo, Qt.Key.Key_Up)  # columns: axis 1 -> axis 0
    assert (axes.row_axis, axes.col_axis) == (2, 0)
    assert [type(w).__name__ for w in bar.index_editors(1)] == ["QSlider", "QSpinBox"]


def test_axes_longer_than_qt_int_stay_reachable(make_bar, qtbot):
    bar, axes = make_bar((2**33, 2, 2))
    slider, spin = bar.index_editors(0)
    assert isinstance(spin, QDoubleSpinBox) and not isinstance(spin, QSpinBox)
    assert slider.maximum() == 2**31 - 1
    spin.setValue(6_000_000_000)
    assert axes.indices[0] == 6_000_000_000
    slider.setValue(slider.maximum())
    assert axes.indices[0] == 2**33 - 1 and spin.value() == 2**33 - 1


def test_zero_length_fixed_axis_disables_its_editors(make_bar):
    bar, _ = make_bar((0, 3, 4))
    slider, spin = bar.index_editors(0)
    assert not slider.isEnabled() and not spin.isEnabled()
