"""View options: the value's checks, what fits the data, choices (undoable in the document's
history), restoring, and colour choices moving the plane."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from core.pipeline.pipeline import DecodeParams
from inspector.state.display_axes import DisplayAxes
from inspector.state.document import Document
from inspector.state.view_options import ViewOptions, ViewOptionsModel, fitted


@pytest.fixture
def cube(qtbot, tmp_path):
    """A document showing a 2 x 3 x 4 float32 tensor."""
    path = tmp_path / "cube.bin"
    np.arange(24, dtype=np.float32).tofile(path)
    document = Document()
    assert document.open_files([str(path)], DecodeParams(dtype="float32", shape=(2, 3, 4)))
    yield document
    document.close_files()


def model(shape=None, is_complex=False) -> ViewOptionsModel:
    axes = DisplayAxes()
    options = ViewOptionsModel(axes)
    if shape is not None:
        axes.reset(shape)
        options.fit(shape, is_complex)
    return options


# ---------------------------------------------------------------------------- the value
def test_the_defaults_are_what_a_first_launch_shows():
    assert ViewOptions() == ViewOptions(table_format="auto", table_decimals=6, heat_map=False, plot_line_axis=None,
                                        complex_part="abs", colour_mode=None, channel_axis=None,
                                        square_pixels=False, statistics_quantity="magnitude",
                                        histogram_log_scale=False)


@pytest.mark.parametrize(("changes", "message"), [
    ({"table_format": "octal"}, "unknown number format 'octal'"),
    ({"table_decimals": 18}, "decimals must be a whole number from 0 to 17, got 18"),
    ({"table_decimals": -1}, "decimals must be a whole number from 0 to 17, got -1"),
    ({"plot_line_axis": -2}, "plot_line_axis must be an axis"),
    ({"channel_axis": True}, "channel_axis must be an axis"),
    ({"complex_part": "modulus"}, "complex part must be one of"),
    ({"colour_mode": "CMYK"}, "colour mode must be one of"),
    ({"statistics_quantity": "abs"}, "quantity must be one of"),
    ({"heat_map": 1}, "heat_map must be true or false, got 1"),
])
def test_a_value_outside_its_field_is_refused_by_name(changes, message):
    with pytest.raises(ValueError, match=message):
        ViewOptions(**changes)


def test_with_valid_keeps_what_is_stale():
    options = ViewOptions().with_valid({"table_format": "hex", "table_decimals": 99, "heat_map": None,
                                        "no_such_field": 3, "plot_line_axis": 2})
    assert options == ViewOptions(table_format="hex", plot_line_axis=2)


# ---------------------------------------------------------------------------- fitting
def test_a_new_number_of_axes_goes_back_to_the_image_and_real_data_to_abs():
    chosen = ViewOptions(plot_line_axis=1, complex_part="im")
    assert fitted(chosen, (2, 3, 4), True, new_ndim=False) == chosen
    assert fitted(chosen, (2, 3, 4), True, new_ndim=True).plot_line_axis is None
    assert fitted(chosen, (2, 3, 4), False, new_ndim=False).complex_part == "abs"
    assert fitted(replace(chosen, plot_line_axis=3), (2, 3, 4), True, new_ndim=False).plot_line_axis is None
    assert fitted(ViewOptions(complex_part="constellation"), (8,), True, new_ndim=False).complex_part == "constellation"
    assert fitted(ViewOptions(complex_part="constellation"), (2, 4), True, new_ndim=False).complex_part == "abs"


def test_the_channel_axis_and_colour_follow_what_the_shape_offers():
    rgb = ViewOptions(colour_mode="RGBA", channel_axis=3)
    assert fitted(rgb, (1, 2, 2, 4), False, new_ndim=False) == rgb  # HWC, 4 channels
    three = fitted(rgb, (1, 2, 2, 3), False, new_ndim=False)
    assert (three.channel_axis, three.colour_mode) == (3, None)  # RGBA needs 4 channels
    chw = fitted(ViewOptions(colour_mode="RGB", channel_axis=3), (1, 3, 2, 2), False, new_ndim=False)
    assert (chw.channel_axis, chw.colour_mode) == (1, "RGB")  # the only axis that can hold channels
    assert fitted(rgb, (1, 2, 2, 4), True, new_ndim=False).channel_axis is None  # complex: no colour
    assert fitted(rgb, None, False, new_ndim=True) == ViewOptions()  # nothing shown


# ---------------------------------------------------------------------------- choosing
def test_a_choice_the_data_does_not_offer_is_refused_and_changes_nothing(qtbot):
    options = model((2, 3, 5))
    with pytest.raises(ValueError, match="no line along axis 3 for 3-d data"):
        options.choose(plot_line_axis=3)
    with pytest.raises(ValueError, match=r"complex part must be one of \('abs',\)"):
        options.choose(complex_part="re")  # real data
    with pytest.raises(ValueError, match="colour mode must be one of"):
        options.choose(colour_mode="RGB")  # no axis of 3 or 4
    assert options.value == ViewOptions()
    with qtbot.waitSignal(options.changed) as blocker:
        options.choose(plot_line_axis=1)
    assert blocker.args == [ViewOptions(plot_line_axis=1)]


def test_a_plot_mode_change_is_undone_and_redone_in_the_documents_history(cube):
    options, history = cube.view_options, cube.history
    options.choose(plot_line_axis=2)
    assert options.value.plot_line_axis == 2 and history.undo_label == "plot mode"
    cube.update_params(little_endian=False)  # a decode edit after it
    cube.undo()
    cube.undo()
    assert options.value.plot_line_axis is None and history.redo_label == "plot mode"
    cube.redo()
    assert options.value.plot_line_axis == 2


def test_decimals_merge_into_one_step_and_the_statistics_choices_stay_out_of_the_history(cube):
    options, history = cube.view_options, cube.history
    options.choose(table_format="fixed")
    for decimals in (2, 3, 4):
        options.choose(table_decimals=decimals)
    assert len(history) == 2 and history.undo_label == "decimals"
    options.choose(histogram_log_scale=True)
    options.choose(statistics_quantity="phase")
    assert len(history) == 2
    cube.undo()
    assert (options.value.table_format, options.value.table_decimals) == ("fixed", 6)
    assert options.value.histogram_log_scale and options.value.statistics_quantity == "phase"


def test_undo_of_a_line_axis_the_view_lost_falls_back_to_the_image(cube):
    options = cube.view_options
    options.choose(plot_line_axis=2)
    cube.update_params(shape=(6, 4))  # 2-d: the line goes
    assert options.value.plot_line_axis is None
    cube.undo()  # back to 3-d: the plot stays as it was fitted
    assert options.value.plot_line_axis is None
    cube.undo()  # the plot mode's step: its old value, the image
    assert options.value.plot_line_axis is None and not cube.history.can_undo


# ---------------------------------------------------------------------------- restoring
def test_restored_while_nothing_is_shown_the_line_axis_waits_for_the_first_view(qtbot):
    options = model()
    options.restore(ViewOptions(table_format="hex", plot_line_axis=2))
    assert options.value.plot_line_axis == 2  # nothing to fit yet
    options.fit((2, 3, 4))
    assert options.value == ViewOptions(table_format="hex", plot_line_axis=2, channel_axis=2)
    options.fit((6, 4))
    assert options.value.plot_line_axis is None  # a new number of axes
    options.fit(None)
    options.restore(ViewOptions(plot_line_axis=5))
    options.fit((2, 3, 4))  # the first view has no axis 5
    assert options.value.plot_line_axis is None


def test_restore_outside_the_history_fits_the_data_shown(cube):
    cube.view_options.restore(ViewOptions(plot_line_axis=1, complex_part="re", heat_map=True))
    # Real data: abs; its last axis (4 long) is offered as colour channels.
    assert cube.view_options.value == ViewOptions(plot_line_axis=1, heat_map=True, channel_axis=2)
    assert not cube.history.can_undo


# ---------------------------------------------------------------------------- colour and the plane
def test_choosing_a_colour_puts_the_channels_beside_the_image_and_showing_them_goes_back_to_grey(qtbot):
    options = model((2, 2, 3))  # HWC; rows and columns are W x C at first
    axes = options._axes
    assert (axes.row_axis, axes.col_axis) == (1, 2) and options.value.channel_axis == 2
    options.choose(colour_mode="RGB")
    assert (axes.row_axis, axes.col_axis) == (0, 1) and options.colour_shown
    axes.set_axes(1, 2)
    assert options.value.colour_mode is None and not options.colour_shown


def test_a_signal_with_channels_is_lines_per_channel_until_the_data_is_not_one(qtbot):
    """Issue 31 item 18: the document says the data is a signal; the options follow."""
    axes = DisplayAxes()
    model = ViewOptionsModel(axes)
    axes.reset((1000, 2))
    model.fit((1000, 2), False, signal=True)
    assert (model.value.plot_line_axis, model.value.plot_channel_lines) == (0, True)
    model.fit((1000, 2), False)  # a view that knows only the shape changes nothing
    assert (model.value.plot_line_axis, model.value.plot_channel_lines) == (0, True)
    model.choose(plot_line_axis=1)  # one line along the other axis ends the lines per channel
    assert (model.value.plot_line_axis, model.value.plot_channel_lines) == (1, False)
    model.choose(plot_line_axis=0, plot_channel_lines=True)
    axes.reset((500, 4))
    model.fit((500, 4), False, signal=False)  # not the signal any more: the image
    assert (model.value.plot_line_axis, model.value.plot_channel_lines) == (None, False)
    with pytest.raises(ValueError, match="lines per channel need 2-d data"):
        axes.reset((2, 3, 4))
        model.fit((2, 3, 4), False)
        model.choose(plot_line_axis=0, plot_channel_lines=True)
