"""Sessions and bookmarks: what a user found in a file, named, saved and shared.

``bookmark`` holds the :class:`Bookmark` value (an element, a region of elements or a byte
range, with a note and a colour). Everything here is pure data and file rules; it may import
``core.pipeline``, ``core.slicing``, ``core.errors`` and the standard library, never Qt.
"""
