"""Flash images as text: Intel HEX and Motorola S-records, parsed by ``bincopy``.

Rules
-----
- **Recognised** by content: Intel HEX is lines of ``:`` and hex digits (``:LLAAAATT...CC``),
  S-records lines of ``S0``-``S9`` and hex digits; the first non-blank line decides, and the first
  4096 bytes must be such lines (blank lines allowed).
- **Parsed by bincopy** (``pip install 'tensor-inspector[firmware]'``), which checks every
  record's checksum and refuses records that overlap: either is a message naming the record,
  and nothing is listed. At most :data:`MAX_TEXT_BYTES` of text.
- **Entries**: one per contiguous segment of the image, named by its start address
  (``0x08000000``), its bytes as ``uint8`` (copies: the records' data, not the text's bytes);
  extras ``address`` and ``end`` (the last byte's address). The listing's metadata says the
  segment count, the gaps between them and the execution start address when the file gives one.
"""

from __future__ import annotations

import re

import numpy as np

from core.budget import check_copy_budget
from core.errors import ContainerError
from core.files.sources import Source
from core.formats.entry import ContainerFormat, ContainerListing, EntryValues, Storage, TensorEntry
from core.formats.reader import HeaderReader
from core.text.names import printable_name

__all__ = ["IHEX_FORMAT", "MAX_TEXT_BYTES", "SREC_FORMAT", "sniff_ihex", "sniff_srec"]

#: Largest text read (a 64 MiB image is about 180 MB of Intel HEX).
MAX_TEXT_BYTES = 512 * 1024 * 1024
_INSTALL = "pip install 'tensor-inspector[firmware]' (or pip install bincopy)"
_IHEX_LINE = re.compile(rb":[0-9A-Fa-f]{10,}")
_SREC_LINE = re.compile(rb"S[0-9][0-9A-Fa-f]{6,}")


def _sniff(head: bytes, line: re.Pattern) -> bool:
    lines = [x.strip() for x in head.split(b"\n")]
    if head and not head.endswith(b"\n") and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut by the sniff window
    lines = [x for x in lines if x]
    return bool(lines) and all(line.fullmatch(x) for x in lines)


def sniff_ihex(head: bytes, size: int) -> bool:
    """Lines of ``:`` and hex digits (module rules)."""
    return head.lstrip()[:1] == b":" and _sniff(head, _IHEX_LINE)


def sniff_srec(head: bytes, size: int) -> bool:
    """Lines of ``S0``-``S9`` and hex digits (module rules)."""
    return head.lstrip()[:1] == b"S" and _sniff(head, _SREC_LINE)


def _parsed(reader: HeaderReader, kind: str):
    if reader.size > MAX_TEXT_BYTES:
        raise reader.error(f"it is {reader.size:,} bytes of text, more than the {MAX_TEXT_BYTES:,} read", None,
                           "convert it to a binary image (objcopy -O binary) and open that")
    try:
        import bincopy
    except ImportError:
        raise reader.error(f"reading {kind} files needs bincopy", None, _INSTALL) from None
    text = reader.read(0, reader.size, f"{kind} text").decode("ascii", "replace")
    image = bincopy.BinFile()
    try:
        (image.add_ihex if kind == "Intel HEX" else image.add_srec)(text)
    except Exception as error:  # bincopy's Error / AddDataError: a bad checksum, overlapping records...
        said = str(error)[:200]
        if "overlap" in said or "adjacent" in said:
            said = f"records overlap ({said})"
        raise reader.error(f"it is not a valid {kind} file: {said}", None,
                           "the file is damaged: write it again from its build") from None
    return image


def _list(reader: HeaderReader, kind: str, name: str) -> ContainerListing:
    image = _parsed(reader, kind)
    entries, ends = [], []
    for segment in image.segments:
        start, end = int(segment.minimum_address), int(segment.maximum_address)
        entries.append(TensorEntry(f"0x{start:08X}", "uint8", True, (end - start,), 0, 0, "bytes",
                                   {"address": f"0x{start:08X}", "end": f"0x{end - 1:08X}"}, storage=Storage.COPY))
        ends.append((start, end))
    gaps = [f"0x{a_end:08X}-0x{b_start - 1:08X}" for (_a, a_end), (b_start, _b) in zip(ends, ends[1:])]
    metadata = {"segments": str(len(entries)), "gaps": ", ".join(gaps) if gaps else "none"}
    if image.execution_start_address is not None:
        metadata["execution start"] = f"0x{int(image.execution_start_address):08X}"
    problems = () if entries else (f"the {kind} file holds no data records",)
    return ContainerListing(name, reader.path, tuple(entries), metadata, problems)


def _values(source: Source, entry: TensorEntry, kind: str, name: str) -> EntryValues:
    reader = HeaderReader(source, 0, name)  # type: ignore[arg-type]
    image = _parsed(reader, kind)
    for segment in image.segments:
        if f"0x{int(segment.minimum_address):08X}" == entry.name:
            check_copy_budget(len(segment.data), f"the segment {entry.name}", "convert the image to binary",
                              field="tensor")
            values = np.frombuffer(bytes(segment.data), np.uint8).copy()
            return EntryValues.stored_copy(values, "parsed", f"the {kind} segment at {entry.name}")
    raise ContainerError(f"the {kind} file no longer has a segment at {printable_name(entry.name)} (list it again)",
                         field="tensor")


def list_ihex(reader: HeaderReader) -> ContainerListing:
    """The segments of an Intel HEX file (module rules)."""
    return _list(reader, "Intel HEX", "intel-hex")


def list_srec(reader: HeaderReader) -> ContainerListing:
    """The segments of a Motorola S-record file (module rules)."""
    return _list(reader, "S-record", "srec")


IHEX_FORMAT = ContainerFormat("intel-hex", sniff_ihex, list_ihex,
                              lambda source, entry: _values(source, entry, "Intel HEX", "intel-hex"))
SREC_FORMAT = ContainerFormat("srec", sniff_srec, list_srec,
                              lambda source, entry: _values(source, entry, "S-record", "srec"))
