"""A symbolic reading of the pickle ``torch.save`` writes (``data.pkl``), which never unpickles.

Rules
-----
- The pickle is *interpreted*, opcode by opcode, by a machine of our own (:func:`walk_pickle`):
  no ``pickle.load``, no ``Unpickler``, no ``find_class``, no import, no ``eval``; nothing the file
  names is ever looked up or called. ``GLOBAL``/``STACK_GLOBAL`` push a :class:`Global` that
  only *names* a module and an attribute.
- ``REDUCE``/``NEWOBJ`` of a global on the allowlist (:data:`TENSOR_BUILDERS` and the plain data
  types: ``collections.OrderedDict``, ``builtins.set``/``frozenset``/``slice``, ``torch.Size``,
  the tensor type wrappers of ``_rebuild_from_type_v2``) give a symbolic value: a
  :class:`Tensor`, a :class:`Dict`, a tuple. Anything else gives an :class:`Opaque` value that
  keeps only its type name (``os.system``, ``builtins.eval``, a model class): it is listed, never
  built. ``BUILD`` on an opaque object keeps its state (a dict) so that the tensors inside a
  pickled module or a TorchScript object are still found; ``BUILD`` on anything else is ignored.
- ``BINPERSID``/``PERSID`` give a :class:`Storage` only for the record torch writes,
  ``('storage', <torch storage class>, key, location, numel)``; any other persistent id is an
  :class:`Opaque` value.
- Bounded by the pickle's size: at most :func:`opcode_limit` opcodes (10**7 at most; each opcode
  makes at most one new value, so this bounds the memory too), a stack and memo of at most
  :data:`MAX_STACK` and :data:`MAX_MEMO` items, marks nested at most :data:`MAX_MARKS` deep,
  integers of at most :data:`MAX_INT_BYTES` bytes; every length is checked against the bytes
  left. A violation raises :class:`PickleRefused` with a message (the caller names the file).
"""

from __future__ import annotations

import codecs
import struct
from dataclasses import dataclass, field

import core.budget

__all__ = ["Dict", "Global", "MAX_OPCODES", "Opaque", "PickleRefused", "SetData", "Storage",
           "Tensor", "opcode_limit", "walk_pickle"]

#: Most opcodes interpreted (each makes at most one value of about :data:`OPCODE_BYTES`).
MAX_OPCODES = 10_000_000
#: Memory one opcode may make (a small container or string); bounds the walk by the copy budget.
OPCODE_BYTES = 128
MAX_STACK = 1_000_000
MAX_MEMO = 1_000_000
MAX_MARKS = 10_000
#: Longest integer accepted (LONG1/LONG4/LONG): sizes and offsets are at most 8 bytes.
MAX_INT_BYTES = 64


def opcode_limit() -> int:
    """How many opcodes one pickle may have: :data:`MAX_OPCODES`, or fewer under a copy budget
    too small for that many values (at least 100,000)."""
    return max(100_000, min(MAX_OPCODES, core.budget.COPY_BUDGET_BYTES // OPCODE_BYTES))


class PickleRefused(Exception):  # noqa: N818 (a refusal with its message, caught by the format)
    """The pickle breaks a bound or is not a pickle; ``str()`` is the problem, ``offset`` its byte."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


@dataclass(frozen=True, slots=True)
class Global:
    """A ``GLOBAL`` the pickle names (never looked up)."""

    module: str
    name: str

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass(slots=True, eq=False)
class Dict:
    """A dict or ``OrderedDict`` of the pickle: its items in order (keys of any value)."""

    items: list = field(default_factory=list)
    kind: str = "dict"


@dataclass(slots=True, eq=False)
class SetData:
    """A ``set``, ``frozenset`` or ``slice`` of the pickle, as plain data."""

    kind: str
    items: list = field(default_factory=list)


@dataclass(frozen=True, slots=True, eq=False)
class Storage:
    """A storage record: ``('storage', storage_type, key, location, numel)``."""

    storage_type: Global
    key: str
    location: str
    numel: int


@dataclass(slots=True, eq=False)
class Tensor:
    """A tensor ``_rebuild_tensor*`` or ``_rebuild_qtensor`` would build (never built)."""

    storage: object
    storage_offset: object
    size: object
    stride: object
    builder: str
    dtype: object = None          # _rebuild_tensor_v3's dtype (a Global), else None
    quantizer: object = None      # _rebuild_qtensor's quantizer parameters (a tuple)
    parameter: bool = False


@dataclass(slots=True, eq=False)
class Opaque:
    """A value only running the pickle could make: its type name and why it is not data."""

    type_name: str
    problem: str
    state: object = None

    def __post_init__(self) -> None:
        self.type_name = self.type_name[:200]


_MARK = object()

#: ``torch._utils`` builders of tensors and parameters interpreted symbolically.
TENSOR_BUILDERS = frozenset({"_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3",
                             "_rebuild_parameter", "_rebuild_parameter_with_state",
                             "_rebuild_qtensor"})
#: Type names ``_rebuild_from_type_v2`` may wrap a plain tensor in.
_TENSOR_TYPES = frozenset({"torch.Tensor", "torch._tensor.Tensor", "torch.nn.parameter.Parameter",
                           "torch.nn.Parameter"})


def _opaque_call(func: object, why: str = "") -> Opaque:
    name = func.dotted if isinstance(func, Global) else (
        func.type_name if isinstance(func, Opaque) else type(func).__name__)
    return Opaque(name, why or f"a value of type {name}, which only running the pickle could "
                                "make (this tool never runs it)")


def _reduce(func: object, args: object) -> object:
    """The symbolic value of ``func(*args)`` (module rules)."""
    if not isinstance(func, Global):
        return _opaque_call(func)
    args = args if isinstance(args, tuple) else ()
    module, name = func.module, func.name
    if module == "torch._utils" and name in TENSOR_BUILDERS:
        return _tensor(name, args)
    if module == "torch._tensor" and name == "_rebuild_from_type_v2" and len(args) >= 3:
        inner, kind, inner_args = args[0], args[1], args[2]
        kind_name = kind.dotted if isinstance(kind, Global) else type(kind).__name__
        if kind_name in _TENSOR_TYPES:
            value = _reduce(inner, inner_args)
            if isinstance(value, Tensor) and "Parameter" in kind_name:
                value.parameter = True
            return value
        return Opaque(kind_name, f"a tensor subclass {kind_name}, which only running the pickle "
                                 "could make")
    if (module, name) == ("collections", "OrderedDict"):
        result = Dict(kind="OrderedDict")
        if args and isinstance(args[0], (list, tuple)):
            result.items.extend(pair for pair in args[0] if isinstance(pair, tuple) and len(pair) == 2)
        return result
    if module in ("builtins", "__builtin__") and name in ("set", "frozenset", "slice"):
        items = list(args[0]) if name != "slice" and args and isinstance(args[0], (list, tuple)) \
            else list(args)
        return SetData(name, items)
    if (module, name) == ("torch", "Size") and args and isinstance(args[0], tuple):
        return args[0]
    return _opaque_call(func)


def _tensor(builder: str, args: tuple) -> object:
    if builder in ("_rebuild_parameter", "_rebuild_parameter_with_state"):
        data = args[0] if args else None
        if isinstance(data, Tensor):
            data.parameter = True
            return data
        return Opaque(f"torch._utils.{builder}", "a parameter whose data is not a tensor record")
    if len(args) < 4:
        return Opaque(f"torch._utils.{builder}", f"torch._utils.{builder} with {len(args)} "
                                                 "arguments, not a tensor record")
    tensor = Tensor(args[0], args[1], args[2], args[3], builder)
    if builder == "_rebuild_tensor_v3":
        tensor.dtype = args[6] if len(args) > 6 else None
    elif builder == "_rebuild_qtensor":
        tensor.quantizer = args[4] if len(args) > 4 else None
    return tensor


def _persistent(pid: object) -> object:
    if (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
            and isinstance(pid[1], Global) and isinstance(pid[2], str)
            and isinstance(pid[3], str) and type(pid[4]) is int):
        return Storage(pid[1], pid[2], pid[3], pid[4])
    what = pid[0] if isinstance(pid, tuple) and pid and isinstance(pid[0], str) else type(pid).__name__
    return Opaque("persistent id", f"a persistent id {str(what)[:40]!r} that is not torch's storage "
                                   "record ('storage', type, key, location, numel)")


def _build(target: object, state: object) -> None:
    if isinstance(target, Opaque) and target.state is None:
        if isinstance(state, tuple) and len(state) == 2 and isinstance(state[0], Dict):
            state = state[0]  # (state, slotstate)
        target.state = state


def _dict_items(target: object, pairs: list) -> None:
    if isinstance(target, Dict):
        target.items.extend(pairs)
    elif isinstance(target, Opaque):  # an opaque dict subclass: its items are kept as its state
        if target.state is None:
            target.state = Dict()
        if isinstance(target.state, Dict):
            target.state.items.extend(pairs)
    # SETITEM(S) on anything else (a tensor, a tuple) is ignored: the pickle only names it


def _list_items(target: object, items: list) -> None:
    if isinstance(target, list):
        target.extend(items)
    elif isinstance(target, SetData):
        target.items.extend(items)
    elif isinstance(target, Opaque):
        if target.state is None:
            target.state = []
        if isinstance(target.state, list):
            target.state.extend(items)


_UNPACK_I = struct.Struct("<i").unpack_from
_UNPACK_H = struct.Struct("<H").unpack_from
_UNPACK_BI = struct.Struct("<I").unpack_from
_UNPACK_Q = struct.Struct("<Q").unpack_from
_UNPACK_D = struct.Struct(">d").unpack_from


def walk_pickle(data: bytes) -> tuple[object, int]:
    """The symbolic value of the pickle ``data`` and the number of opcodes interpreted.

    Raises
    ------
    PickleRefused
        A bound is broken, an opcode is unknown or truncated, or the pickle has no STOP.
    """
    limit = opcode_limit()
    size = len(data)
    stack: list = []
    marks: list[list] = []
    memo: dict[int, object] = {}
    pos = 0
    count = 0

    def refuse(message: str) -> PickleRefused:
        return PickleRefused(message, pos)

    def take(n: int) -> bytes:
        nonlocal pos
        if n < 0 or pos + n > size:
            raise refuse(f"an opcode's argument of {n} bytes at byte {pos} reaches past the end "
                         f"of the pickle ({size} bytes): it is truncated or corrupt")
        chunk = data[pos:pos + n]
        pos += n
        return chunk

    def line() -> bytes:
        nonlocal pos
        end = data.find(b"\n", pos)
        if end < 0:
            raise refuse(f"a text argument at byte {pos} has no end of line: the pickle is truncated")
        chunk = data[pos:end]
        pos = end + 1
        return chunk

    def pop_mark() -> list:
        nonlocal stack
        if not marks:
            raise refuse(f"an opcode at byte {pos} needs a MARK that is not there (a corrupt pickle)")
        items = stack
        stack = marks.pop()
        return items

    def pop() -> object:
        if not stack:
            raise refuse(f"an opcode at byte {pos} pops an empty stack (a corrupt pickle)")
        return stack.pop()

    def top() -> object:
        if not stack:
            raise refuse(f"an opcode at byte {pos} needs a value on an empty stack (a corrupt pickle)")
        return stack[-1]

    def long_of(raw: bytes) -> int:
        if len(raw) > MAX_INT_BYTES:
            raise refuse(f"an integer of {len(raw)} bytes (at most {MAX_INT_BYTES} are accepted: "
                         "no size or offset needs more)")
        return int.from_bytes(raw, "little", signed=True)

    def put(index: int, value: object) -> None:
        if index not in memo and len(memo) >= MAX_MEMO:
            raise refuse(f"the pickle memoizes more than {MAX_MEMO:,} values (a memo bomb)")
        memo[index] = value

    def get(index: int) -> object:
        try:
            return memo[index]
        except KeyError:
            raise refuse(f"it refers to memo entry {index}, which was never stored (a corrupt "
                         "pickle)") from None

    def text(raw: bytes) -> str:
        return raw.decode("utf-8", "surrogatepass")

    while True:
        if pos >= size:
            raise refuse(f"the pickle ends at byte {size} without a STOP opcode: it is truncated")
        count += 1
        if count > limit:
            raise refuse(f"the pickle has more than {limit:,} opcodes (a real checkpoint of a "
                         "million tensors has about 30 million bytes of pickle); it is refused "
                         "to keep the listing's time bounded")
        if len(stack) > MAX_STACK:
            raise refuse(f"the pickle's stack holds more than {MAX_STACK:,} values (a stack bomb)")
        op = data[pos]
        pos += 1
        # the opcodes torch.save writes first
        if op == 0x71:    # q BINPUT
            put(take(1)[0], top())
        elif op == 0x68:  # h BINGET
            stack.append(get(take(1)[0]))
        elif op == 0x58:  # X BINUNICODE
            (n,) = _UNPACK_BI(take(4))
            stack.append(text(take(n)))
        elif op == 0x4B:  # K BININT1
            stack.append(take(1)[0])
        elif op == 0x28:  # ( MARK
            if len(marks) >= MAX_MARKS:
                raise refuse(f"marks nested more than {MAX_MARKS:,} deep (a nesting bomb)")
            marks.append(stack)
            stack = []
        elif op == 0x74:  # t TUPLE
            items = pop_mark()  # rebinds the stack: pop before naming stack.append
            stack.append(tuple(items))
        elif op == 0x85:  # TUPLE1
            stack.append((pop(),))
        elif op == 0x86:  # TUPLE2
            b = pop()
            stack.append((pop(), b))
        elif op == 0x87:  # TUPLE3
            c, b = pop(), pop()
            stack.append((pop(), b, c))
        elif op == 0x52:  # R REDUCE
            args = pop()
            stack.append(_reduce(pop(), args))
        elif op == 0x51:  # Q BINPERSID
            stack.append(_persistent(pop()))
        elif op == 0x63:  # c GLOBAL
            module = line().decode("utf-8", "replace")
            stack.append(Global(module, line().decode("utf-8", "replace")))
        elif op == 0x89:  # NEWFALSE
            stack.append(False)
        elif op == 0x88:  # NEWTRUE
            stack.append(True)
        elif op == 0x29:  # ) EMPTY_TUPLE
            stack.append(())
        elif op == 0x7D:  # } EMPTY_DICT
            stack.append(Dict())
        elif op == 0x5D:  # ] EMPTY_LIST
            stack.append([])
        elif op == 0x72:  # r LONG_BINPUT
            put(_UNPACK_BI(take(4))[0], top())
        elif op == 0x6A:  # j LONG_BINGET
            stack.append(get(_UNPACK_BI(take(4))[0]))
        elif op == 0x4D:  # M BININT2
            stack.append(_UNPACK_H(take(2))[0])
        elif op == 0x4A:  # J BININT
            stack.append(_UNPACK_I(take(4))[0])
        elif op == 0x8A:  # LONG1
            stack.append(long_of(take(take(1)[0])))
        elif op == 0x8B:  # LONG4
            (n,) = _UNPACK_I(take(4))
            stack.append(long_of(take(n)))
        elif op == 0x47:  # G BINFLOAT
            stack.append(_UNPACK_D(take(8))[0])
        elif op == 0x4E:  # N NONE
            stack.append(None)
        elif op == 0x75:  # u SETITEMS
            items = pop_mark()
            if len(items) % 2:
                raise refuse(f"SETITEMS at byte {pos - 1} has an odd number of values (a corrupt pickle)")
            _dict_items(top(), list(zip(items[::2], items[1::2])))
        elif op == 0x73:  # s SETITEM
            value, key = pop(), pop()
            _dict_items(top(), [(key, value)])
        elif op == 0x65:  # e APPENDS
            items = pop_mark()
            _list_items(top(), items)
        elif op == 0x61:  # a APPEND
            value = pop()
            _list_items(top(), [value])
        elif op == 0x62:  # b BUILD
            state = pop()
            _build(top(), state)
        elif op == 0x2E:  # . STOP
            return pop(), count
        elif op == 0x80:  # PROTO
            take(1)
        elif op == 0x95:  # FRAME (a length hint: the opcodes follow inline)
            take(8)
        elif op == 0x94:  # MEMOIZE
            put(len(memo), top())
        elif op == 0x8C:  # SHORT_BINUNICODE
            stack.append(text(take(take(1)[0])))
        elif op == 0x8D:  # BINUNICODE8
            stack.append(text(take(_bounded8(take(8), size, refuse))))
        elif op == 0x42:  # B BINBYTES
            stack.append(take(_UNPACK_BI(take(4))[0]))
        elif op == 0x43:  # C SHORT_BINBYTES
            stack.append(take(take(1)[0]))
        elif op in (0x8E, 0x96):  # BINBYTES8, BYTEARRAY8
            stack.append(take(_bounded8(take(8), size, refuse)))
        elif op == 0x54:  # T BINSTRING
            (n,) = _UNPACK_I(take(4))
            stack.append(take(n).decode("latin-1"))
        elif op == 0x55:  # U SHORT_BINSTRING
            stack.append(take(take(1)[0]).decode("latin-1"))
        elif op == 0x93:  # STACK_GLOBAL
            name, module = pop(), pop()
            if not isinstance(module, str) or not isinstance(name, str):
                raise refuse(f"STACK_GLOBAL at byte {pos - 1} names no module and attribute (a corrupt pickle)")
            stack.append(Global(module, name))
        elif op == 0x81:  # NEWOBJ
            args = pop()
            stack.append(_reduce(pop(), args))
        elif op == 0x92:  # NEWOBJ_EX
            _kwargs, args = pop(), pop()
            stack.append(_reduce(pop(), args))
        elif op == 0x8F:  # EMPTY_SET
            stack.append(SetData("set"))
        elif op == 0x90:  # ADDITEMS
            items = pop_mark()
            _list_items(top(), items)
        elif op == 0x91:  # FROZENSET
            items = pop_mark()
            stack.append(SetData("frozenset", items))
        elif op == 0x30:  # 0 POP
            if stack:
                stack.pop()
            else:
                pop_mark()
        elif op == 0x31:  # 1 POP_MARK
            pop_mark()
        elif op == 0x32:  # 2 DUP
            stack.append(top())
        elif op == 0x6C:  # l LIST
            items = pop_mark()
            stack.append(items)
        elif op == 0x64:  # d DICT
            items = pop_mark()
            stack.append(Dict(list(zip(items[::2], items[1::2]))))
        elif op == 0x70:  # p PUT
            put(_text_int(line(), refuse), top())
        elif op == 0x67:  # g GET
            stack.append(get(_text_int(line(), refuse)))
        elif op == 0x49:  # I INT (also the text booleans 00 and 01)
            raw = line()
            stack.append({b"00": False, b"01": True}.get(raw) if raw in (b"00", b"01")
                         else _text_int(raw, refuse))
        elif op == 0x4C:  # L LONG
            stack.append(_text_int(line().rstrip(b"L"), refuse))
        elif op == 0x46:  # F FLOAT
            try:
                stack.append(float(line().decode("ascii")))
            except (UnicodeDecodeError, ValueError):
                raise refuse(f"a FLOAT at byte {pos} is not a number (a corrupt pickle)") from None
        elif op == 0x53:  # S STRING (a quoted Python 2 string; escapes decoded, never evaluated)
            raw = line()
            if len(raw) < 2 or raw[0] != raw[-1] or raw[:1] not in (b"'", b'"'):
                raise refuse(f"a STRING at byte {pos} is not quoted (a corrupt pickle)")
            stack.append(codecs.escape_decode(raw[1:-1])[0].decode("latin-1"))
        elif op == 0x56:  # V UNICODE
            stack.append(line().decode("raw-unicode-escape", "replace"))
        elif op == 0x50:  # P PERSID
            stack.append(_persistent(line().decode("ascii", "replace")))
        elif op == 0x69:  # i INST
            module = line().decode("utf-8", "replace")
            name = line().decode("utf-8", "replace")
            pop_mark()
            stack.append(_opaque_call(Global(module, name)))
        elif op == 0x6F:  # o OBJ
            items = pop_mark()
            stack.append(_opaque_call(items[0] if items else None))
        elif op in (0x82, 0x83, 0x84):  # EXT1, EXT2, EXT4: the copyreg extension registry
            take({0x82: 1, 0x83: 2, 0x84: 4}[op])
            stack.append(Opaque("extension code", "a value from the copyreg extension registry, "
                                                  "which only running the pickle could look up"))
        elif op in (0x97, 0x98):  # NEXT_BUFFER, READONLY_BUFFER: out-of-band buffers
            if op == 0x97:
                stack.append(Opaque("out-of-band buffer", "an out-of-band pickle buffer, which "
                                                          "the file does not hold"))
        else:
            raise refuse(f"byte {pos - 1} holds 0x{op:02x}, which is no pickle opcode (the "
                         "pickle is corrupt, or not one)")


def _bounded8(raw: bytes, size: int, refuse) -> int:
    (n,) = _UNPACK_Q(raw)
    if n > size:
        raise refuse(f"a length of {n} bytes, more than the whole pickle ({size} bytes)")
    return n


def _text_int(raw: bytes, refuse) -> int:
    if len(raw) > 3 * MAX_INT_BYTES:
        raise refuse(f"a text integer of {len(raw)} digits (at most {3 * MAX_INT_BYTES} are accepted)")
    try:
        return int(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise refuse(f"{raw[:20]!r} is not an integer (a corrupt pickle)") from None
