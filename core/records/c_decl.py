"""Record layouts from C declarations: structs and unions parsed with pycparser, laid out by an ABI.

Rules
-----
- **Parsed, never compiled or preprocessed.** The text is read by pycparser; nothing runs a C
  compiler or preprocessor. Before parsing, the tool itself removes comments, reads
  ``#pragma pack(n)`` / ``pack(push, n)`` / ``pack(pop)`` / ``pack()`` (the packing in force from
  that line on), and blanks every other ``#`` line: an ``#include`` is not followed and a
  ``#define`` is not expanded (a note says so; a type or size that needed one is an error naming
  it). ``__attribute__((...))`` is removed, ``packed`` in it (or ARM's ``__packed``) packs the
  struct it belongs to, ``aligned(n)`` on a member raises its alignment. The fixed-width types of
  ``<stdint.h>``, ``size_t``, ``bool`` are known without their headers.
- **Types**: the C integer types, ``float``, ``double``, ``_Bool``, enums (``int``-sized, their
  names kept for display), pointers (unsigned integers of the ABI's pointer size), arrays of
  any rank, nested structs and unions (anonymous ones flattened), typedefs, bit fields,
  ``_Alignas``. ``long double``, complex types and function types are refused by name.
- **Layout** (:mod:`core.records.abi` gives sizes and alignments): each member at the next
  offset that is a multiple of its alignment (``min(alignment, n)`` under ``#pragma pack(n)``,
  1 when packed, raised by ``_Alignas``/``aligned``); a struct's alignment is its members'
  largest, its size a multiple of it; a union's members all at offset 0. Bit fields follow the
  System V / AAPCS rule: a field of type ``T`` and width ``w`` goes at the next bit unless that
  would make it cross a ``sizeof(T)`` boundary, where it starts the next unit (packed: at the next
  bit, whatever the boundary); ``:0`` moves to the next unit; bits are allocated from the least
  significant bit of little-endian data. Each is checked against gcc's own layout in the tests
  (x86-64).
- **Refused, each with its reason**: text that does not parse (the line and column, and
  pycparser's message), unknown type names, flexible array members and zero-size arrays, arrays
  whose record would pass 1 GiB, a struct that contains itself, bit fields wider than their
  type or of a non-integer type, and a struct name the text does not define (its structs are
  listed).
"""

from __future__ import annotations

import re

from core.errors import CoreError
from core.records.abi import DEFAULT_ABI, Abi, abi_named
from core.records.c_text import KNOWN_TYPEDEFS, CText, parse_error_message, prepare_c_text
from core.records.layout import MAX_FIELDS, MAX_RECORD_BYTES, Field, RecordLayout

__all__ = ["MAX_HEADER_BYTES", "parse_c_layout"]

#: Largest C text read.
MAX_HEADER_BYTES = 8 * 1024 * 1024

_PRELUDE = " ".join(f"typedef int {name};" for name in KNOWN_TYPEDEFS) + "\n"


def parse_c_layout(text: str, name: str | None = None, *, abi: str = DEFAULT_ABI,
                   little_endian: bool = True) -> RecordLayout:
    """The layout of the struct (or union, or typedef of one) called ``name`` in the C ``text``;
    without ``name``, the last struct the text defines (module rules).

    Raises
    ------
    CoreError
        ``field="struct"``: any refusal of the module rules, naming the line and what to do.
    """
    if len(text) > MAX_HEADER_BYTES:
        raise CoreError(f"the C text is {len(text):,} characters, more than the {MAX_HEADER_BYTES:,} read",
                        field="struct")
    rules = abi_named(abi)
    prepared = prepare_c_text(text)
    try:
        from pycparser import c_ast, c_parser
    except ImportError:
        raise CoreError("reading C declarations needs pycparser: pip install pycparser", field="struct") from None
    try:
        tree = c_parser.CParser().parse(_PRELUDE + prepared.text, filename="<C text>")
    except Exception as error:  # pycparser's ParseError: "<C text>:LINE:COL: message"
        raise CoreError(parse_error_message(str(error), prepared.text), field="struct") from None
    tables = _Tables(c_ast)
    tables.collect(tree)
    target = tables.target(name)
    builder = _Builder(c_ast, tables, rules, prepared, little_endian)
    leaves, size, _align = builder.layout_of(target, "")
    title = name or getattr(target, "name", None) or "struct"
    return RecordLayout(tuple(leaves), size, source=text, kind="c", abi=rules.name, name=title,
                        notes=tuple(prepared.notes))


# -- declarations -----------------------------------------------------------------------------
class _Tables:
    """Structs, unions, enums and typedefs of the text, by name."""

    def __init__(self, c_ast) -> None:
        self.c_ast = c_ast
        self.structs: dict[str, object] = {}
        self.typedefs: dict[str, object] = {}
        self.enumerators: dict[str, int] = {}
        self.enums: list[object] = []  # every enum with its values, in text order
        self.order: list[tuple[str, object]] = []  # every complete struct or union, in text order

    def collect(self, tree) -> None:
        c_ast = self.c_ast
        for node in _walk(tree):
            if isinstance(node, (c_ast.Struct, c_ast.Union)) and node.decls is not None:
                if node.name:
                    self.structs[node.name] = node
                self.order.append((node.name or "", node))
            elif isinstance(node, c_ast.Typedef) and node.name not in KNOWN_TYPEDEFS:
                self.typedefs[node.name] = node.type
            elif isinstance(node, c_ast.Enum) and node.values is not None:
                self.enums.append(node)

    def target(self, name: str | None):
        c_ast = self.c_ast
        if name is None:
            if not self.order:
                raise CoreError("the C text defines no struct or union (write struct NAME { ... };)", field="struct")
            return self.order[-1][1]
        bare = name.strip()
        for prefix in ("struct ", "union "):
            bare = bare.removeprefix(prefix)
        if bare in self.typedefs:
            node = _base_type(self.typedefs[bare], c_ast)
            if isinstance(node, (c_ast.Struct, c_ast.Union)):
                return self.structs.get(node.name, node) if node.decls is None else node
        if bare in self.structs:
            return self.structs[bare]
        known = sorted(set(self.structs) | {n for n, t in self.typedefs.items()
                                            if isinstance(_base_type(t, c_ast), (c_ast.Struct, c_ast.Union))})
        listed = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "")
        raise CoreError(f"the C text defines no struct {name!r} (it defines: {listed or 'none'})", field="struct")


def _walk(node):
    yield node
    for _name, child in node.children():
        yield from _walk(child)


def _base_type(node, c_ast):
    while isinstance(node, c_ast.TypeDecl):
        node = node.type
    return node


class _Builder:
    """Lays out one struct and what it contains (module rules)."""

    def __init__(self, c_ast, tables: _Tables, abi: Abi, text: CText, little_endian: bool) -> None:
        self.c_ast, self.tables, self.abi, self.text = c_ast, tables, abi, text
        self.little = little_endian
        self.open: set[int] = set()
        self.count = 0

    # the size and alignment of a type node, and its leaves (at offset 0, named under prefix)
    def layout_of(self, node, prefix: str) -> tuple[list[Field], int, int]:
        c_ast = self.c_ast
        if isinstance(node, (c_ast.Struct, c_ast.Union)):
            if node.decls is None:
                complete = self.tables.structs.get(node.name)
                if complete is None:
                    raise CoreError(f"struct {node.name} is declared but never defined (define its members)",
                                    field="struct")
                node = complete
            if id(node) in self.open:
                raise CoreError(f"struct {node.name or '(anonymous)'} contains itself (only a pointer to it can)",
                                field="struct")
            self.open.add(id(node))
            try:
                return self._members(node, prefix, isinstance(node, c_ast.Union))
            finally:
                self.open.discard(id(node))
        raise CoreError(f"{prefix or 'the record'} is not a struct or union", field="struct")

    def _pack(self, node) -> int | None:
        coord = node.coord
        if coord is not None and (coord.line, coord.column) in self.text.packed_at:
            return 1
        if self.abi.packed:
            return 1
        return self.text.pack_for((coord.line - 1) if coord is not None else 0)

    def _members(self, node, prefix: str, union: bool) -> tuple[list[Field], int, int]:
        pack = self._pack(node)
        leaves: list[Field] = []
        offset_bits, size, align = 0, 0, 1
        for member in node.decls or ():
            name = member.name
            width = None
            if member.bitsize is not None:
                width = self._constant(member.bitsize, f"the width of bit field {name}")
            explicit = max([self._constant(a.alignment, "an _Alignas") if not isinstance(a.alignment, self.c_ast.Typename)
                            else 1 for a in (member.align or [])] or [0])
            full = f"{prefix}{name}" if name else prefix.rstrip(".")
            if width is not None:
                ctype = self._scalar(member.type, full)
                if ctype is None or ctype.name in ("float32", "float64"):
                    raise CoreError(f"the bit field {full} is not of an integer type", field="struct")
                unit = ctype.size * 8
                if width > unit:
                    raise CoreError(f"the bit field {full} is {width} bits wide, wider than its type "
                                    f"({unit} bits)", field="struct")
                natural = 1 if pack == 1 else min(ctype.align, pack or ctype.align)
                position = 0 if union else offset_bits
                if width == 0:
                    offset_bits = _align_up(position, ctype.align * 8) if not union else offset_bits
                    continue
                if pack != 1 and position // unit != (position + width - 1) // unit:
                    position = _align_up(position, unit)
                if pack == 1:
                    start = position // 8
                    span = (position % 8 + width + 7) // 8
                    unit_bytes = next(n for n in (1, 2, 4, 8) if n >= span)
                    bit = position - start * 8
                else:
                    start = (position // unit) * ctype.size
                    unit_bytes, bit = ctype.size, position - start * 8
                unsigned = f"uint{unit_bytes * 8}"
                if name:
                    self._add(leaves, Field(full, start, unsigned, (), self.little, bit if self.little else
                                            _big_bit(bit, width, unit_bytes), width, ctype.signed,
                                            ctype=_type_text(member.type, self.c_ast)))
                align = max(align, natural)
                end = position + width
                offset_bits = offset_bits if union else end
                size = max(size, (end + 7) // 8)
                continue
            inner, inner_size, inner_align = self._type(member.type, full + ("." if not self._is_scalar(member.type) else ""),
                                                        anonymous=not name)
            if pack is not None:
                inner_align = min(inner_align, pack)
            inner_align = max(inner_align, explicit)
            offset = 0 if union else _align_up((offset_bits + 7) // 8, inner_align)
            for leaf in inner:
                self._add(leaves, Field(leaf.name, leaf.offset + offset, leaf.dtype, leaf.shape, leaf.little_endian,
                                        leaf.bit, leaf.width, leaf.signed, leaf.enum, leaf.ctype))
            align = max(align, inner_align)
            end = offset + inner_size
            size = max(size, end)
            if not union:
                offset_bits = end * 8
        total = _align_up(max(size, (offset_bits + 7) // 8), align)
        if total > MAX_RECORD_BYTES:
            raise CoreError(f"{prefix.rstrip('.') or 'the struct'} would be {total:,} bytes, more than the 1 GiB "
                            "a record may have", field="struct")
        return leaves, total, align

    def _add(self, leaves: list[Field], leaf: Field) -> None:
        self.count += 1
        if self.count > MAX_FIELDS:
            raise CoreError(f"the struct has more than {MAX_FIELDS:,} fields once its arrays of structs are "
                            "expanded (choose a smaller struct)", field="struct")
        leaves.append(leaf)

    def _is_scalar(self, node) -> bool:
        c_ast = self.c_ast
        while isinstance(node, c_ast.ArrayDecl):
            node = node.type
        base = self._resolve(node)
        return not isinstance(base, (c_ast.Struct, c_ast.Union))

    def _resolve(self, node):
        """A type node with its typedef names followed (not the known fixed-width ones)."""
        c_ast = self.c_ast
        for _ in range(64):
            base = _base_type(node, c_ast)
            if isinstance(base, c_ast.IdentifierType) and len(base.names) == 1 and \
                    base.names[0] in self.tables.typedefs and base.names[0] not in KNOWN_TYPEDEFS:
                node = self.tables.typedefs[base.names[0]]
                continue
            return base
        raise CoreError("a typedef refers to itself", field="struct")

    def _type(self, node, name: str, anonymous: bool = False) -> tuple[list[Field], int, int]:
        """Leaves, size and alignment of a member's type (arrays, structs, scalars)."""
        c_ast = self.c_ast
        if isinstance(node, c_ast.ArrayDecl):
            if node.dim is None:
                raise CoreError(f"{name.rstrip('.')} is a flexible array member (no size): records need a fixed "
                                "size (give the array a size)", field="struct")
            count = self._constant(node.dim, f"the size of {name.rstrip('.')}")
            if count <= 0:
                raise CoreError(f"{name.rstrip('.')} is an array of {count} elements (give it at least one)",
                                field="struct")
            inner, size, align = self._type(node.type, name, anonymous)
            if size * count > MAX_RECORD_BYTES:
                raise CoreError(f"{name.rstrip('.')} is {count:,} x {size:,} bytes, more than the 1 GiB a record may "
                                "have", field="struct")
            if len(inner) == 1 and inner[0].name == name and not inner[0].is_bits:  # an array of a scalar
                leaf = inner[0]
                return [Field(leaf.name, leaf.offset, leaf.dtype, (count,) + leaf.shape, leaf.little_endian,
                              enum=leaf.enum, ctype=leaf.ctype)], size * count, align
            base = name.rstrip(".")
            out = []
            for i in range(count):
                for leaf in inner:
                    tail = leaf.name[len(base):]
                    out.append(Field(f"{base}[{i}]{tail}", leaf.offset + i * size, leaf.dtype, leaf.shape,
                                     leaf.little_endian, leaf.bit, leaf.width, leaf.signed, leaf.enum, leaf.ctype))
                    if len(out) > MAX_FIELDS:
                        raise CoreError(f"the struct has more than {MAX_FIELDS:,} fields once {base} is expanded "
                                        "(choose a smaller struct)", field="struct")
            return out, size * count, align
        if isinstance(node, c_ast.PtrDecl):
            size = self.abi.pointer_bytes
            return [Field(name, 0, f"uint{size * 8}", (), self.little, ctype="pointer")], size, \
                1 if self.abi.packed else size
        if isinstance(node, c_ast.FuncDecl):
            raise CoreError(f"{name.rstrip('.')} is a function, not data", field="struct")
        base = self._resolve(node)
        if isinstance(base, (c_ast.Struct, c_ast.Union)):
            prefix = "" if anonymous else name
            if anonymous and base.name is None:
                prefix = name if name.endswith(".") else ""
            return self.layout_of(base, prefix if prefix.endswith(".") or not prefix else prefix + ".")
        if isinstance(base, c_ast.Enum):
            names = self._enum(base)
            ctype = self.abi.scalar(("int",))
            return [Field(name, 0, ctype.name, (), self.little, enum=names, ctype=f"enum {base.name or ''}".strip())], \
                ctype.size, ctype.align
        ctype = self._scalar(node, name)
        if ctype is None:
            raise CoreError(f"{name.rstrip('.')} has a type this tool does not know "
                            f"({_type_text(node, c_ast)}): add its typedef to the text", field="struct")
        return [Field(name, 0, ctype.name, (), self.little, ctype=_type_text(node, c_ast))], ctype.size, ctype.align

    def _scalar(self, node, name: str):
        c_ast = self.c_ast
        base = self._resolve(node)
        if isinstance(base, c_ast.Enum):
            return self.abi.scalar(("int",))
        if not isinstance(base, c_ast.IdentifierType):
            return None
        words = tuple(base.names)
        if "long" in words and "double" in words:
            raise CoreError(f"{name.rstrip('.')} is a long double, which the engine does not decode", field="struct")
        if "_Complex" in words:
            raise CoreError(f"{name.rstrip('.')} is a complex type, not read as a record field", field="struct")
        return self.abi.scalar(words)

    def _enum(self, node) -> dict[int, str]:
        c_ast = self.c_ast
        if node.values is None:
            for candidate in _walk_enums(self.tables, c_ast):
                if candidate.name == node.name and candidate.values is not None:
                    node = candidate
                    break
            else:
                return {}
        names: dict[int, str] = {}
        value = -1
        for item in node.values.enumerators:
            value = self._constant(item.value, f"the enumerator {item.name}") if item.value is not None else value + 1
            self.tables.enumerators[item.name] = value
            names.setdefault(value, item.name)
        return names

    def _constant(self, node, what: str) -> int:
        """An integer constant expression (literals, enumerators, + - * / % << >> | & ^ ~, sizeof
        of a known type): computed here over the parse tree."""
        c_ast = self.c_ast
        if isinstance(node, c_ast.Constant):
            text = node.value.rstrip("uUlL")
            try:
                if text.startswith("'") and len(text) >= 3:
                    return ord(text[1:-1].encode().decode("unicode_escape")[0])
                return int(text, 0) if not re.fullmatch(r"0[0-7]+", text) else int(text, 8)
            except ValueError:
                raise CoreError(f"{what} is {node.value}, not an integer", field="struct") from None
        if isinstance(node, c_ast.ID):
            if node.name in self.tables.enumerators:
                return self.tables.enumerators[node.name]
            for enum in _walk_enums(self.tables, c_ast):
                self._enum(enum)
            if node.name in self.tables.enumerators:
                return self.tables.enumerators[node.name]
            raise CoreError(f"{what} is {node.name}, which the text does not define (a macro is not expanded: "
                            "write its value)", field="struct")
        if isinstance(node, c_ast.UnaryOp):
            if node.op == "sizeof":
                return self._type(node.expr.type if isinstance(node.expr, c_ast.Typename) else node.expr, "sizeof")[1]
            value = self._constant(node.expr, what)
            return {"-": -value, "+": value, "~": ~value, "!": int(not value)}.get(node.op, _bad(what, node.op))
        if isinstance(node, c_ast.BinaryOp):
            a, b = self._constant(node.left, what), self._constant(node.right, what)
            ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "<<": lambda: a << b if 0 <= b < 64 else
                   _bad(what, "<<"), ">>": lambda: a >> b if 0 <= b < 64 else _bad(what, ">>"), "|": lambda: a | b,
                   "&": lambda: a & b, "^": lambda: a ^ b, "/": lambda: a // b if b else _bad(what, "/ 0"),
                   "%": lambda: a % b if b else _bad(what, "% 0")}
            if node.op not in ops:
                return _bad(what, node.op)
            value = ops[node.op]()
            if abs(value) > 1 << 62:
                raise CoreError(f"{what} is too large ({value})", field="struct")
            return value
        if isinstance(node, c_ast.Cast):
            return self._constant(node.expr, what)
        raise CoreError(f"{what} is not an integer constant", field="struct")


def _walk_enums(tables: _Tables, c_ast):
    yield from list(tables.enums)


def _bad(what: str, op: str) -> int:
    raise CoreError(f"{what} uses {op!r}, which is not read in a constant (write its value)", field="struct")


def _big_bit(bit: int, width: int, unit_bytes: int) -> int:
    """The bit a field allocated from the most significant end starts at, counted from that end
    (the layout's ``bit`` of a big-endian field)."""
    return bit


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment if alignment > 1 else value


def _type_text(node, c_ast) -> str:
    base = _base_type(node, c_ast)
    if isinstance(base, c_ast.IdentifierType):
        return " ".join(base.names)
    if isinstance(base, c_ast.Enum):
        return f"enum {base.name or ''}".strip()
    return type(base).__name__.lower()
