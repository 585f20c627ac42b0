"""Reading and writing the parts of a session file: typed fields that name themselves when wrong.

A session file is untrusted input (it may come from a colleague, or be corrupt). Every value is
checked for its JSON type and range as it is read, and a wrong one raises
:class:`core.errors.SessionError` naming the field by its place in the file
(``bookmarks[2].index[1]``), what was found and the fix. Nothing is evaluated or unpickled:
values are JSON scalars, lists and objects only.

Rules
-----
- Whole numbers are JSON integers (``true``/``false`` are not numbers here), between the field's
  minimum and :data:`MAX_INT` (2**63 - 1: no file offset or size is larger).
- Texts have a length cap (:data:`MAX_NAME`, :data:`MAX_TEXT`, :data:`MAX_PATH`).
- Unknown keys are ignored, and each ignored key is reported in the load's notes (a later
  version 1 writer may add optional keys; the reader says what it did not use rather than
  failing or hiding it). A missing optional key takes its default; a missing required key is
  an error.
- :class:`~core.pipeline.pipeline.DecodeParams` are written field by field under their own names,
  in the dataclass's order, leaving out the fields that are None; ``shape`` is a list,
  ``elements`` a list of ``[offset, length]`` pairs, and ``strides`` (a container entry's view
  that is not in C order) a list of element strides. The dtype name is checked against the
  type tables when read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from core.dtypes.table import resolve_dtype
from core.errors import CoreError, SessionError
from core.pipeline.pipeline import DecodeParams
from core.pipeline.view_as import view_as_target

__all__ = [
    "MAX_INT", "MAX_NAME", "MAX_PATH", "MAX_TEXT", "MAX_DIMS", "MAX_ELEMENTS", "JsonObject",
    "json_type", "params_to_json", "params_from_json",
]

#: The largest whole number a session may hold (no offset or size is larger).
MAX_INT = 2**63 - 1
#: Characters in a bookmark name, a dtype or a tensor name.
MAX_NAME = 1024
#: Characters in a note, a slice expression or another free text.
MAX_TEXT = 65536
#: Characters in a file path.
MAX_PATH = 4096
#: Dimensions of a shape or an index (numpy's limit).
MAX_DIMS = 64
#: Explicit ``[offset, length]`` elements in one DecodeParams.
MAX_ELEMENTS = 1_000_000

_MISSING: Any = object()
_FIX = "(fix the session file by hand, or save the session again)"


def json_type(value: object) -> str:
    """The JSON name of a parsed value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _refuse(where: str, wanted: str, value: object, field: str) -> SessionError:
    return SessionError(f"{where or 'the whole file'} must be {wanted}, not {json_type(value)} {_FIX}",
                        field=field)


def check_int(value: object, where: str, minimum: int = 0, maximum: int = MAX_INT,
              field: str = "session") -> int:
    """``value`` as an int in ``[minimum, maximum]``.

    Raises
    ------
    SessionError
        Not a JSON integer (a bool is not), or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise _refuse(where, "a whole number", value, field)
    if value < minimum or value > maximum:
        shown = str(value) if abs(value) < 10**30 else f"a number of {len(str(abs(value)))} digits"
        upper = "" if maximum == MAX_INT else f" and at most {maximum}"
        raise SessionError(f"{where} is {shown}: it must be at least {minimum}{upper} {_FIX}",
                           field=field)
    return value


def check_str(value: object, where: str, limit: int = MAX_NAME, field: str = "session") -> str:
    """``value`` as a str of at most ``limit`` characters, without NUL.

    Raises
    ------
    SessionError
        Not a JSON string, too long, or holding a NUL character.
    """
    if not isinstance(value, str):
        raise _refuse(where, "a text", value, field)
    if len(value) > limit:
        raise SessionError(f"{where} is {len(value):,} characters long, more than the "
                           f"{limit:,} allowed {_FIX}", field=field)
    if "\0" in value:
        raise SessionError(f"{where} contains a NUL character {_FIX}", field=field)
    return value


def check_list(value: object, where: str, limit: int, field: str = "session") -> list:
    """``value`` as a list of at most ``limit`` items.

    Raises
    ------
    SessionError
        Not a JSON list, or too long.
    """
    if not isinstance(value, list):
        raise _refuse(where, "a list", value, field)
    if len(value) > limit:
        raise SessionError(f"{where} has {len(value):,} items, more than the {limit:,} a session "
                           f"may hold {_FIX}", field=field)
    return value


def check_ints(value: object, where: str, limit: int = MAX_DIMS, minimum: int = 0,
               field: str = "session") -> tuple[int, ...]:
    """``value`` as a tuple of ints (a list of at most ``limit`` JSON integers >= ``minimum``)."""
    items = check_list(value, where, limit, field)
    return tuple(check_int(v, f"{where}[{i}]", minimum, field=field) for i, v in enumerate(items))


class JsonObject:
    """A JSON object being read: typed getters that name the field, and the keys never asked for.

    Parameters
    ----------
    data
        The parsed value that must be an object.
    where
        Its place in the file, for messages (``"bookmarks[3]"``).
    notes
        Where :meth:`finish` reports the unknown keys.
    field
        The ``field`` of the errors raised (``"session"`` or ``"bookmark"``).

    Raises
    ------
    SessionError
        ``data`` is not a JSON object.
    """

    def __init__(self, data: object, where: str, notes: list[str] | None = None,
                 field: str = "session") -> None:
        if not isinstance(data, dict):
            raise _refuse(where, "an object ({...})", data, field)
        self.data = data
        self.where = where
        self.field = field
        self._notes = notes
        self._asked: set[str] = set()

    def place(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def value(self, key: str, default: Any = _MISSING) -> Any:
        """The raw value of ``key``; ``default`` when absent (required when no default)."""
        self._asked.add(key)
        if key in self.data:
            return self.data[key]
        if default is _MISSING:
            raise SessionError(f"{self.place(key)} is missing {_FIX}", field=self.field)
        return default

    def get(self, key: str, check: Callable[..., Any], default: Any = _MISSING,
            nullable: bool = False, **limits: Any) -> Any:
        """``check(value, place, **limits)`` of ``key``; absent (or null when ``nullable``):
        ``default``."""
        self._asked.add(key)
        if key not in self.data:
            if default is _MISSING:
                raise SessionError(f"{self.place(key)} is missing {_FIX}", field=self.field)
            return default
        value = self.data[key]
        if value is None and nullable:
            return None
        return check(value, self.place(key), field=self.field, **limits)

    def get_bool(self, key: str, default: Any = _MISSING) -> bool:
        value = self.value(key, default)
        if key in self.data and not isinstance(value, bool):
            raise _refuse(self.place(key), "true or false", value, self.field)
        return value

    def finish(self) -> None:
        """Report the keys of this object that no getter asked for (they are ignored)."""
        unknown = [key for key in self.data if key not in self._asked]
        if unknown and self._notes is not None:
            where = f" in {self.where}" if self.where else ""
            names = ", ".join(repr(k[:60]) for k in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
            self._notes.append(f"ignored unknown key{'s' if len(unknown) > 1 else ''} {names}{where} "
                               "(written by a newer tensor-inspector, or by hand)")


# -- DecodeParams --------------------------------------------------------------------------------
_INT_FIELDS = {"fixed_length": 0, "offset": 0, "record_size": 0, "length": 0}


def params_to_json(params: DecodeParams) -> dict[str, object]:
    """The fields of ``params`` that are not None, by name, in the dataclass's order."""
    out: dict[str, object] = {}
    for item in dataclasses.fields(params):
        value = getattr(params, item.name)
        if value is None:
            continue
        if item.name in ("shape", "strides"):
            value = [int(d) for d in value]
        elif item.name == "elements":
            value = [[int(o), int(n)] for o, n in value]
        elif item.name in _INT_FIELDS:
            value = int(value)
        out[item.name] = value
    return out


def params_from_json(data: object, where: str, notes: list[str] | None = None,
                     field: str = "session") -> DecodeParams:
    """A :class:`DecodeParams` from its JSON object (see the module rules).

    Raises
    ------
    SessionError
        A field of the wrong type or range, an unknown dtype or view-as type, or a shape with
        more than one -1.
    """
    obj = JsonObject(data, where, notes, field)
    values: dict[str, object] = {}
    for name in ("dtype", "view_as"):
        text = obj.get(name, check_str, None, nullable=True)
        if text is not None:
            values[name] = text
    for name, minimum in _INT_FIELDS.items():
        number = obj.get(name, check_int, None, nullable=True, minimum=minimum)
        if number is not None:
            values[name] = number
    little = obj.value("little_endian", None)
    if little is not None:
        values["little_endian"] = obj.get_bool("little_endian")
    values["extended_types"] = obj.get_bool("extended_types", True)
    shape = obj.get("shape", check_ints, None, nullable=True, minimum=-1)
    if shape is not None:
        if sum(d == -1 for d in shape) > 1:
            raise SessionError(f"{obj.place('shape')} has more than one -1 (only one dimension "
                               f"can be inferred) {_FIX}", field=field)
        values["shape"] = shape
    strides = obj.get("strides", check_ints, None, nullable=True, minimum=0)
    if strides is not None:
        values["strides"] = strides
    elements = obj.get("elements", check_list, None, nullable=True, limit=MAX_ELEMENTS)
    if elements is not None:
        place = obj.place("elements")
        values["elements"] = tuple(check_ints(pair, f"{place}[{i}]", 2, field=field)
                                   for i, pair in enumerate(elements))
        for i, pair in enumerate(values["elements"]):  # type: ignore[arg-type]
            if len(pair) != 2:
                raise SessionError(f"{place}[{i}] must be an [offset, length] pair {_FIX}", field=field)
    obj.finish()
    try:
        if values.get("dtype") is not None:
            resolve_dtype(values["dtype"], extended_types=True)
        if values.get("view_as") is not None:
            view_as_target(values["view_as"])  # type: ignore[arg-type]
    except CoreError as error:
        raise SessionError(f"{where}: {error.message}", field=field) from None
    return DecodeParams(**values)  # type: ignore[arg-type]
