"""Tokens of slice expressions, and the syntax errors a GUI can underline (docs/semantics.md §5).

The error type, :class:`core.errors.SliceSyntaxError`, lives with every other engine error.

The tokenizer is lazy (the parser in :mod:`core.slicing.expr` pulls one token at a time), so the
first error in reading order is the one reported, and it never fails: a character that starts no
token becomes a ``"bad"`` token that the parser reports with a hint fitting its context.
Whitespace is space, tab, newline, CR, FF and VT; digits are ASCII ``0-9`` (``str.isdigit`` would
accept other scripts' digits); names are ASCII identifiers. Every step is a regular-expression
match anchored at the current position, so tokenizing is linear in the text's length.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from core.errors import SliceSyntaxError

__all__ = ["Lexer", "Token", "syntax_error", "unexpected"]

_SPACE = re.compile(r"[ \t\n\r\f\v]*")
_DIGITS = re.compile(r"[0-9]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PUNCTUATION = frozenset("[],:()=.+-")
_SHOWN_CHARS = 20


class Token(NamedTuple):
    """One token: its kind, its text and its 0-based start column."""

    kind: str  # "int", "name", "...", one punctuation character, "bad" or "end"
    text: str
    start: int

    @property
    def stop(self) -> int:
        return self.start + len(self.text)


class Lexer:
    """Lazy tokenizer: :meth:`peek` looks at the next token, :meth:`next` consumes it."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0
        self._peeked: Token | None = None

    def peek(self) -> Token:
        if self._peeked is None:
            self._peeked = self._scan()
        return self._peeked

    def next(self) -> Token:
        token = self.peek()
        self._peeked = None
        return token

    def _scan(self) -> Token:
        text = self._text
        pos = _SPACE.match(text, self._pos).end()
        if pos == len(text):
            self._pos = pos
            return Token("end", "", pos)
        char = text[pos]
        match = _DIGITS.match(text, pos) or _NAME.match(text, pos)
        if match:
            kind = "int" if char <= "9" else "name"
            token = Token(kind, match.group(), pos)
        elif text.startswith("...", pos):
            token = Token("...", "...", pos)
        elif char in _PUNCTUATION:
            token = Token(char, char, pos)
        else:
            token = Token("bad", char, pos)
        self._pos = token.stop
        return token


def _shown(text: str) -> str:
    """A token as quoted in a message: truncated, with invisible characters escaped."""
    cut = text[:_SHOWN_CHARS]
    shown = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in cut)
    return f"'{shown}...'" if len(text) > _SHOWN_CHARS else f"'{shown}'"


def syntax_error(message: str, column: int, length: int, hint: str) -> SliceSyntaxError:
    return SliceSyntaxError(f"{message} at column {column + 1} ({hint})", column, length)


def unexpected(token: Token, hint: str) -> SliceSyntaxError:
    if token.kind == "end":
        return syntax_error("unexpected end of expression", token.start, 0, hint)
    return syntax_error(f"unexpected {_shown(token.text)}", token.start, len(token.text), hint)
