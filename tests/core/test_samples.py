"""Every embedded sample decodes with its preset settings (STYLE: every sample loads in a test)."""

import numpy as np
import pytest

from core import DecodeParams, Pipeline
from resources import DEFAULT_SAMPLE, resource_path, sample_settings
from resources.make_samples import waves


@pytest.mark.parametrize("name", sorted(sample_settings()))
def test_sample_decodes_with_its_settings(name):
    preset = sample_settings()[name]
    params = DecodeParams(**{k: tuple(v) if isinstance(v, list) else v for k, v in preset.items()})
    with Pipeline(resource_path(name)) as pipeline:
        result = pipeline.run(params)
        assert result.view.shape == tuple(preset["shape"])
        assert result.zero_copy
        assert sum(result.trailing_bytes) == 0


def test_default_sample_holds_the_documented_values():
    preset = sample_settings()[DEFAULT_SAMPLE]
    with Pipeline(resource_path(DEFAULT_SAMPLE)) as pipeline:
        view = pipeline.run(DecodeParams(dtype="float32", little_endian=False, offset=64, shape=(3, 48, 64))).view
        expected = waves()
        np.testing.assert_array_equal(view, expected)
        # The special values of channel 2's first row, as resources/README.md documents them.
        assert np.isnan(view[2, 0, 0]) and view[2, 0, 1] == np.inf and view[2, 0, 2] == -np.inf
        assert view[2, 0, 3] == 0 and np.signbit(view[2, 0, 3])
        assert 0 < view[2, 0, 4] < np.finfo(np.float32).smallest_normal
    assert preset == {"dtype": "float32", "little_endian": False, "offset": 64, "shape": [3, 48, 64]}


def test_default_decode_of_the_sample_is_noise_without_the_settings():
    with Pipeline(resource_path(DEFAULT_SAMPLE)) as pipeline:
        view = pipeline.run(DecodeParams()).view
        assert view.dtype == np.uint8 and view.shape == (64 + 3 * 48 * 64 * 4,)
        assert bytes(view[:8]) == b"TISAMPLE"
