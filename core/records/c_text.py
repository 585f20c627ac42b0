"""C text made parseable by pycparser without a preprocessor (the rules: :mod:`core.records.c_decl`).

The tool itself removes comments (keeping every line and column), reads ``#pragma pack``, blanks
every other ``#`` line (an ``#include`` is noted as not followed, a ``#define`` as not expanded),
removes ``__attribute__((...))`` and ``__packed`` (marking the packed structs by where pycparser
places them), and turns pycparser's errors into messages that name the line and what to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["KNOWN_TYPEDEFS", "CText", "parse_error_message", "prepare_c_text"]

#: Types known without their headers (``<stdint.h>``, ``size_t``, ``bool``).
KNOWN_TYPEDEFS = ("int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
                   "size_t", "ssize_t", "intptr_t", "uintptr_t", "ptrdiff_t", "bool")


@dataclass
class CText:
    """The C text made parseable, with what was read from it."""

    text: str
    pack_at: list[tuple[int, int | None]] = field(default_factory=list)  # (line, pack in force from it)
    packed_at: set[tuple[int, int]] = field(default_factory=set)        # (line, column) of packed structs
    notes: list[str] = field(default_factory=list)

    def pack_for(self, line: int) -> int | None:
        pack = None
        for at, value in self.pack_at:
            if at <= line:
                pack = value
        return pack


_COMMENTS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_PACK = re.compile(r"#\s*pragma\s+pack\s*\(\s*(?:(push)\s*(?:,\s*(\d+))?|(pop)|(\d+))?\s*\)")


def prepare_c_text(text: str) -> CText:
    """``text`` ready for pycparser, with its packing, packed structs and notes (module rules)."""
    def blank(match: re.Match) -> str:
        found = match.group(0)
        if found.startswith(("//", "/*")):
            return re.sub(r"[^\n]", " ", found)  # keep the lines and columns of what follows
        return found

    text = _COMMENTS.sub(blank, text)
    prepared = CText("")
    lines = text.split("\n")
    stack: list[int | None] = []
    pack: int | None = None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped.startswith("#"):
            continue
        match = _PACK.match(stripped)
        if match:
            push, pushed, pop, value = match.groups()
            if push:
                stack.append(pack)
                pack = int(pushed) if pushed else pack
            elif pop:
                pack = stack.pop() if stack else None
            else:
                pack = int(value) if value else None
            prepared.pack_at.append((number, pack))
        elif re.match(r"#\s*include\b", stripped):
            prepared.notes.append(f"line {number}: {stripped[:60]} not followed")
        elif re.match(r"#\s*define\b", stripped):
            prepared.notes.append(f"line {number}: #define not expanded")
        lines[number - 1] = ""
    text = "\n".join(lines)
    text = _strip_attributes(text, prepared)
    prepared.text = text
    return prepared


def _strip_attributes(text: str, prepared: CText) -> str:
    """``text`` without ``__attribute__((...))`` and ``__packed`` (blanked: every other character
    keeps its line and column); a packed one marks its struct by where pycparser places it: its
    name, or the ``{`` of an anonymous one."""
    out, position, keywords = [], 0, []
    pattern = re.compile(r"__attribute__\s*\(\(|__packed\b")
    while True:
        match = pattern.search(text, position)
        if match is None:
            out.append(text[position:])
            break
        out.append(text[position:match.start()])
        if match.group(0) == "__packed":
            inner, end = "packed", match.end()
        else:
            depth, end = 2, match.end()
            while end < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            inner = text[match.end():end - 2]
        if re.search(r"\b_*packed_*\b", inner):
            keyword = _struct_keyword_before(text, match.start())
            if keyword is not None:
                keywords.append(keyword)
        aligned = re.search(r"\baligned\s*\(\s*(\d+)\s*\)", inner)
        replacement = f"_Alignas({aligned.group(1)})" if aligned and not _after_brace(text, match.start()) else ""
        out.append(replacement + " " * max(0, end - match.start() - len(replacement)))
        position = end
    stripped = "".join(out)
    for keyword in keywords:
        after = re.compile(r"(struct|union)\s+(\w+|\{)").match(stripped, keyword)
        if after is None:
            continue
        at = after.start(2)
        line = stripped.count("\n", 0, at) + 1
        column = at - (stripped.rfind("\n", 0, at) + 1) + 1
        prepared.packed_at.add((line + 1, column))  # +1: the prelude's line
    return stripped


def _after_brace(text: str, at: int) -> bool:
    return text[:at].rstrip().endswith("}")


def _struct_keyword_before(text: str, at: int) -> int | None:
    """The position of the ``struct``/``union`` keyword of the struct an attribute at ``at``
    belongs to: after its closing brace (the matching open brace's keyword), or right after the
    keyword itself (``struct __attribute__((packed)) name {``)."""
    before = text[:at].rstrip()
    if before.endswith("}"):
        depth, index = 0, len(before) - 1
        while index >= 0:
            depth += {"}": 1, "{": -1}.get(before[index], 0)
            if depth == 0:
                break
            index -= 1
        head = before[:index]
    else:
        head = before
    found = list(re.finditer(r"\b(struct|union)\b", head))
    return found[-1].start() if found else None


_C_WORDS = {"struct", "union", "enum", "typedef", "const", "volatile", "signed", "unsigned", "char", "short", "int",
            "long", "float", "double", "void", "_Bool", "static", "extern", "register", "_Alignas", "return"}


def parse_error_message(message: str, text: str) -> str:
    """pycparser's error ``message`` about ``text`` in words: the line and column, or the unknown type name."""
    match = re.match(r"<C text>:(\d+):(\d+): (.*)", message)
    if match is None:
        defined = set(re.findall(r"typedef\b[^;]*?\b(\w+)\s*;", text)) | set(KNOWN_TYPEDEFS) | _C_WORDS
        for used in re.finditer(r"\b([A-Za-z_]\w*)\s+\**\s*[A-Za-z_]\w*\s*[;\[,:]", text):
            if used.group(1) not in defined:
                line = text.count("\n", 0, used.start()) + 1
                return (f"the C text does not parse: {used.group(1)!r} (line {line}) is a type name it does not "
                        f"define (add its typedef, e.g. typedef uint32_t {used.group(1)};)")
        return f"the C text does not parse ({message.removeprefix('<C text>: ')[:200]})"
    line, column, said = int(match.group(1)) - 1, int(match.group(2)), match.group(3)
    said = said.replace("before: ", "before '") + ("'" if "before: " in match.group(3) else "")
    return (f"the C text does not parse at line {line}, column {column}: {said} (write plain C declarations: "
            "a type the text does not define needs its typedef, and no macro is expanded)")
