"""Colour images (RGB/BGR/RGBA/BGRA, HWC/CHW, batches) and complex signal views in the plot panel."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QComboBox, QLabel

from inspector.plot.panel import PlotPanel, configure_pyqtgraph
from inspector.state.display_axes import DisplayAxes

# A 2 x 2 RGB frame: red, green / blue, (10, 20, 30).
FRAME = np.array([[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [10, 20, 30]]], dtype=np.uint8)


@pytest.fixture
def panel(qtbot) -> PlotPanel:
    configure_pyqtgraph()
    widget = PlotPanel()
    qtbot.addWidget(widget)
    widget.resize(800, 500)
    return widget


def test_grey_is_the_default_and_rgb_shows_these_rgba_pixels(panel):
    panel.set_array(FRAME)
    combo = panel.findChild(QComboBox, "plot.colourMode")
    assert combo.isVisibleTo(panel) and panel.colour_mode is None
    assert [combo.itemText(i) for i in range(combo.count())] == ["grey", "RGB", "BGR"]
    assert panel.image_item.image.shape == (2, 3)  # grey: the W x C plane, as the table
    combo.setCurrentText("RGB")  # as the user would
    assert panel.colour_mode == "RGB" and panel.channel_axis == 2
    assert (panel.display_axes.row_axis, panel.display_axes.col_axis) == (0, 1)  # H x W on screen
    assert panel.image_plot.colour_item.image.tolist() == [[[255, 0, 0, 255], [0, 255, 0, 255]],
                                                          [[0, 0, 255, 255], [10, 20, 30, 255]]]
    assert panel.image_item.image is None
    panel.set_colour_mode("BGR")
    assert panel.image_plot.colour_item.image[1, 1].tolist() == [30, 20, 10, 255]
    panel.set_colour_mode(None)
    assert panel.image_plot.colour_item.image is None and panel.image_item.image.shape == (2, 2)


def test_chw_reads_channel_first_and_a_batch_axis_has_its_slider(panel):
    batch = np.stack([FRAME.transpose(2, 0, 1), 255 - FRAME.transpose(2, 0, 1)])  # NCHW (2, 3, 2, 2)
    panel.set_array(batch)
    panel.set_colour_mode("RGB")
    assert panel.channel_axis == 1
    assert (panel.display_axes.row_axis, panel.display_axes.col_axis) == (2, 3)
    assert panel.image_plot.colour_item.image[0, 0].tolist() == [255, 0, 0, 255]
    panel.display_axes.set_index(0, 1)  # the batch slider
    assert panel.image_plot.colour_item.image[0, 0].tolist() == [0, 255, 255, 255]
    panel.display_axes.set_index(1, 2)  # the channel index has no say in a colour image
    assert panel.image_plot.colour_item.image[0, 0].tolist() == [0, 255, 255, 255]


def test_rgba_is_offered_for_four_channels_and_reads_alpha(panel):
    pixels = np.array([[[1, 2, 3, 4], [5, 6, 7, 8]]], dtype=np.uint8)[None]  # (1, 1, 2, 4)
    panel.set_array(pixels)
    panel.set_colour_mode("BGRA")
    assert panel.image_plot.colour_item.image.tolist() == [[[3, 2, 1, 4], [7, 6, 5, 8]]]
    with pytest.raises(ValueError, match="colour mode must be one of"):
        panel.set_colour_mode("CMYK")


def test_float_colour_levels_are_auto_and_the_levels_bar_changes_them(panel):
    frame = np.array([[[0.0, 0.5, 1.0], [0.25, 0.75, 1.0]]], dtype=np.float32)  # (1, 2, 3)
    panel.set_array(frame)
    panel.set_colour_mode("RGB")
    assert panel.image_plot.levels() == (0.0, 1.0)
    assert panel.image_plot.colour_item.image[0].tolist() == [[0, 128, 255, 255], [64, 191, 255, 255]]
    panel.image_plot.set_levels(0.5, 1.0)
    assert panel.image_plot.levels() == (0.5, 1.0)
    assert panel.image_plot.colour_item.image[0].tolist() == [[0, 0, 255, 255], [0, 128, 255, 255]]


def test_the_readout_gives_every_channel(qtbot, panel):
    panel.set_array(FRAME)
    panel.set_colour_mode("BGR")
    panel.image_plot.cellHovered.emit((1, 1))
    assert panel.readout_text() == "index (1, 1, :) B 10, G 20, R 30"


def test_displaying_the_channel_axis_goes_back_to_grey(panel):
    axes = DisplayAxes()
    panel = PlotPanel(axes)
    panel.set_array(FRAME)
    panel.set_colour_mode("RGB")
    axes.set_axes(1, 2)  # the table shows W x C again
    assert panel.colour_mode is None and panel.image_item.image.shape == (2, 3)


def test_complex_data_is_not_offered_colour(panel):
    panel.set_array(np.zeros((2, 2, 3), np.complex64))
    assert not panel.findChild(QComboBox, "plot.colourMode").isVisibleTo(panel)
    with pytest.raises(ValueError, match="colour mode"):
        panel.set_colour_mode("RGB")


def test_phase_and_db_parts(panel):
    data = np.array([3 + 4j, -1 + 0j, 1j], np.complex64)
    panel.set_array(data)
    panel.set_complex_part("phase")
    np.testing.assert_array_equal(panel.curve.getData()[1], np.angle(data))
    panel.set_complex_part("dB")
    np.testing.assert_allclose(panel.curve.getData()[1], [13.979400086720377, 0.0, 0.0], rtol=1e-6)


def test_i_and_q_traces_and_the_constellation_equal_the_values(panel):
    data = np.array([1 + 2j, -3 - 4j, 0.5 + 0j, 0 - 1j], np.complex64)
    panel.set_array(data)
    combo = panel.findChild(QComboBox, "plot.complexPart")
    combo.setCurrentText("I and Q")
    assert panel.mode == "iq"
    np.testing.assert_array_equal(panel.iq_plot.i_plot.curve.getData()[1], [1, -3, 0.5, 0])
    np.testing.assert_array_equal(panel.iq_plot.q_plot.curve.getData()[1], [2, -4, 0, -1])
    combo.setCurrentText("constellation")
    assert panel.mode == "constellation"
    x, y = panel.constellation_plot.scatter.getData()
    assert x.tolist() == [1, -3, 0.5, 0] and y.tolist() == [2, -4, 0, -1]
    assert panel.constellation_plot.note.text() == "all 4 points"
    panel.set_array(np.zeros((2, 2), np.complex64))  # no signal views for 2-d data
    assert panel.complex_part == "abs" and panel.mode == "image"
    assert combo.findText("constellation") < 0


def test_a_long_signal_shows_a_sample_and_says_so(panel):
    data = (np.arange(200_000) + 1j * np.arange(200_000)).astype(np.complex64)
    panel.set_array(data)
    panel.set_complex_part("constellation")
    sample = panel.constellation_plot.sample
    assert len(sample.indices) == 65_536 and sample.total == 200_000
    assert sample.i.tolist() == sample.indices.astype(float).tolist()
    assert panel.constellation_plot.note.text() == "a sample of 65,536 of 200,000 points (evenly spread runs)"


def test_a_constellation_whose_file_shrank_shows_the_message(panel):
    from core.errors import SourceError

    class ShrunkReader:
        def read(self, view):
            raise SourceError("iq.bin changed on disk (it is shorter now): reload it", field="files")

    data = np.ones(100_000, np.complex64)
    panel.set_array(data, block_reader=ShrunkReader)
    panel.set_complex_part("constellation")
    assert panel.mode == "empty"
    assert "changed on disk" in panel.findChild(QLabel, "plot.message").text()
