"""A read-only, seekable file object over a range of bytes that something else reads: what
``zipfile`` and h5py take as a file, for a zip inside a container or a descriptor's range."""

from __future__ import annotations

import io

__all__ = ["RangeFile"]


class RangeFile(io.RawIOBase):
    """``size`` bytes, positioned like a file; reads go to :meth:`_read` (or a subclass's
    ``readinto``). Seeking past the end is allowed and reads nothing, as with a file."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self.size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer) -> int:
        count = max(0, min(len(buffer), self.size - self._position))
        buffer[:count] = self._read(self._position, count)
        self._position += count
        return count

    def _read(self, offset: int, count: int) -> bytes:
        raise NotImplementedError
