"""ElidedLabel: the whole text stays the label's text; what is painted is cut to fit, and the
label never asks its window for the width of a long text."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel

from inspector.widgets.elided_label import MIN_CHARS, ElidedLabel

NAME = "start_" + "x" * 286 + "_end.bin"  # 300 characters


def test_a_300_character_name_asks_for_a_few_characters_only(qtbot):
    label = ElidedLabel(NAME)
    qtbot.addWidget(label)
    plain = QLabel(NAME)
    qtbot.addWidget(plain)
    char = QFontMetrics(label.font()).averageCharWidth()
    assert len(NAME) == 300
    assert plain.minimumSizeHint().width() > 250 * char  # what a QLabel demands
    assert label.minimumSizeHint().width() == MIN_CHARS * char
    assert label.sizeHint().width() == plain.sizeHint().width()  # all of it when there is room


def test_the_middle_is_cut_and_the_text_stays_whole(qtbot):
    label = ElidedLabel(NAME)
    qtbot.addWidget(label)
    label.resize(200, 20)
    shown = label.shown_text()
    head, tail = shown.split("…")
    assert NAME.startswith(head) and head.startswith("start_")
    assert NAME.endswith(tail) and tail.endswith("_end.bin")
    assert QFontMetrics(label.font()).horizontalAdvance(shown) <= 200
    assert label.text() == NAME and label.is_elided()
    label.resize(QFontMetrics(label.font()).horizontalAdvance(NAME) + 10, 20)
    assert label.shown_text() == NAME and not label.is_elided()


def test_end_elision_and_a_capped_preferred_width(qtbot):
    label = ElidedLabel(NAME, mode=Qt.TextElideMode.ElideRight, preferred_chars=40)
    qtbot.addWidget(label)
    char = QFontMetrics(label.font()).averageCharWidth()
    assert label.sizeHint().width() == 40 * char
    label.resize(label.sizeHint())
    assert label.shown_text().startswith("start_xxx") and label.shown_text().endswith("…")
    short = ElidedLabel("a.bin", preferred_chars=40)
    qtbot.addWidget(short)
    assert short.sizeHint().width() == QLabel("a.bin").sizeHint().width()  # never wider than the text


def test_rich_looking_text_is_shown_as_it_is(qtbot):
    label = ElidedLabel("<b>bold</b>.bin")
    qtbot.addWidget(label)
    label.resize(400, 20)
    assert label.textFormat() == Qt.TextFormat.PlainText
    assert label.shown_text() == "<b>bold</b>.bin"
