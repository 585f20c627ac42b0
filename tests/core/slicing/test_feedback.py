"""The slice editor's feedback text (core.slicing.feedback): engine errors, notes, highlighting."""

from core.slicing.expr import parse_slice
from core.slicing.feedback import describe, highlight_html


def test_describe_reports_engine_errors_and_notes():
    feedback = describe(parse_slice("[::0]"), (3,))
    assert feedback.error.startswith("strides[0] must be non-zero")
    assert feedback.output_rows == () and feedback.summary == "input (3,) -> no output"
    reversed_ = describe(parse_slice("[::-1, 1]"), (3, 4, 2))
    assert reversed_.summary == "input (3, 4, 2) -> output (3, 2)"
    assert reversed_.input_rows[2] == (
        "input dim 2 (size 2): taken whole by the implicit ellipsis after the last entry "
        "-> output dim 1"
    )
    assert reversed_.notes == (
        "no ellipsis in the spec: an implicit one after the last entry takes input dim 2 whole",
    )


def test_highlight_marks_the_culprit_or_an_insertion_point():
    assert highlight_html("[1, <x]", 4, 1).count("&lt;") == 1
    marked = highlight_html("[1, 2", 5, 0)
    assert marked.startswith('<span style="white-space:pre">[1, 2<span')
    assert "<b>&nbsp;&nbsp;</b>" in marked
