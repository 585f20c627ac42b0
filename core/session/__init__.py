"""Sessions and bookmarks: what a user found in a file, named, saved and shared (docs/sessions.md).

- ``bookmark``: the :class:`Bookmark` value (an element, a region of elements or a byte range,
  with a note and a colour) and its JSON object;
- ``records``: :class:`Session` and :class:`SessionFile`, the values, and ``capture_file``;
- ``json_fields``: typed reading of untrusted JSON fields, DecodeParams as JSON;
- ``document``: the session file's JSON document both ways, and ``save_session``;
- ``loading``: ``load_session`` (hostile input refused, missing and changed files reported);
- ``session_file``: the public names above in one module;
- ``placement``: where bookmarks lie in the view on screen (the window's marks, docs/bookmarks.md);
- ``sniff``: whether a file is a session, told by its content.

Everything here is pure data and file rules, never Qt (``core.files`` does the checked reads and
the atomic writes). May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``,
``core.slicing``, ``core.decode``, ``core.tflite``, ``core.files``, ``core.records``, ``core.frames``, ``core.scan`` and
``core.pipeline``.
"""
