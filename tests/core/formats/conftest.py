"""Helpers for the container tests: list a file, show one entry through the pipeline."""

from __future__ import annotations

import numpy as np
import pytest

from core.formats.entry import find_entry
from core.formats.registry import list_file
from core.pipeline.pipeline import DecodeParams, Pipeline


def show(path, name: str, given: DecodeParams | None = None):
    """``(values, result)``: the entry ``name`` of ``path`` as the pipeline shows it (a copy of
    the view, so the file can be closed), with ``given`` overriding like the command line."""
    listing = list_file(str(path))
    entry = find_entry(listing, name)
    params = entry.params_over(given) if given is not None else entry.params()
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(params)
        return np.array(result.view), result


@pytest.fixture
def shown():
    return show
