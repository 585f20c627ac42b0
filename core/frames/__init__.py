"""Camera and sensor frames (docs/frames.md): pixel formats and their byte layouts
(``formats``), where a frame's planes and lines lie in a file (``geometry``), the exact decoding
of a frame's bytes to per-plane sample arrays (``unpack``, the MIPI CSI-2 packed RAW in
``mipi``) and the frame as colour: YUV to RGB, Bayer demosaic, black and white levels
(``colour``, ``bayer``).

May import: ``core.errors``, ``core.dtypes``, ``core.text`` and ``core.budget``.
"""
