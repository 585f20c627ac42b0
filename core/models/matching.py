"""Which tensor of model A meets which tensor of model B.

Rules
-----
- Each tensor has a *key*: its entry name in its container; for a raw file or a ``.npy`` its
  path below the folder given without the last extension (``dumps/layer3.bin`` and
  ``golden/layer3.npy`` are both ``layer3``), so dump folders of different formats match.
- ``mode="name"`` (default): keys are rewritten, in this order, by ``strip`` (each prefix is
  removed from the keys of both sides that start with it), ``rename`` (regular expressions with
  their replacements, ``re.sub``, applied to A's keys in the order given) and ``names`` (a map
  from A's key to B's, applied last). Keys equal after that are a pair.
- Automatic prefixes: when ``auto_prefix`` and no rule was given, and every key of a side
  starts with the same first component (up to its first ``.`` or ``/``: ``module.``,
  ``model.``, ``_orig_mod.``), removing it from that side is tried; the choice that pairs the
  most tensors wins (ties: the fewest removals), and a note says what was removed.
- ``mode="order"``: the i-th tensor of A meets the i-th of B (each side in its inventory's
  natural order); ``mode="shape"``: each tensor of A, in order, meets the first tensor of B
  not yet paired that has the same shape.
- Two tensors of one side with the same key after the rules are refused
  (:class:`~core.errors.CoreError` naming both and the fix), as is a pairing with no pair at
  all (it suggests ``--match order`` / ``shape``, ``--strip`` and ``--map``).
- Order of the pairs: ``order`` (keys, one per line) first, in its order; then A's tensors in
  their order; then those only in B, in B's order. A key of ``order`` that is no pair is
  reported in the notes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.errors import CoreError
from core.models.inventory import ModelTensor
from core.text.names import printable_name

__all__ = ["MODES", "MatchRules", "Matching", "TensorPair", "match_tensors", "tensor_key"]

#: How tensors are paired (``--match``).
MODES = ("name", "order", "shape")
_FIRST_COMPONENT = re.compile(r"^([^./]+[./])")


@dataclass(frozen=True)
class MatchRules:
    """How to pair tensors (module rules)."""

    mode: str = "name"
    strip: tuple[str, ...] = ()
    rename: tuple[tuple[re.Pattern, str], ...] = ()
    names: dict[str, str] = field(default_factory=dict)
    auto_prefix: bool = True

    @property
    def given(self) -> bool:
        return bool(self.strip or self.rename or self.names)


@dataclass(frozen=True)
class TensorPair:
    """A tensor of A and its partner of B (either None when it is only on one side); ``key``:
    the name the pair is shown under (A's key after the rules, else B's)."""

    key: str
    a: ModelTensor | None
    b: ModelTensor | None


@dataclass(frozen=True)
class Matching:
    pairs: tuple[TensorPair, ...]
    notes: tuple[str, ...] = ()


def tensor_key(tensor: ModelTensor) -> str:
    """The key of a tensor (module rules)."""
    if tensor.entry is not None:
        return tensor.name
    root, _extension = os.path.splitext(tensor.name)
    return (root or tensor.name).replace(os.sep, "/")


def match_tensors(a: Sequence[ModelTensor], b: Sequence[ModelTensor], rules: MatchRules | None = None, *,
                  order: Sequence[str] = (), shape_of: Callable[[ModelTensor], tuple | None] | None = None) -> Matching:
    """Pair the tensors of A and B (module rules). ``shape_of`` gives a tensor's shape (None when
    it cannot be had), used by ``mode="shape"``.

    Raises
    ------
    CoreError
        A mode not in :data:`MODES`, duplicate keys, or no pair at all.
    """
    rules = rules or MatchRules()
    if rules.mode not in MODES:
        raise CoreError(f"--match takes one of {', '.join(MODES)}, not {rules.mode!r}", field="match")
    notes: list[str] = []
    if rules.mode == "order":
        pairs = [TensorPair(tensor_key(x), x, y) for x, y in zip(a, b)]
        pairs += [TensorPair(tensor_key(x), x, None) for x in a[len(b):]]
        pairs += [TensorPair(tensor_key(y), None, y) for y in b[len(a):]]
    elif rules.mode == "shape":
        pairs = _by_shape(a, b, shape_of or _entry_shape)
    else:
        pairs, notes = _by_name(a, b, rules)
    if a and b and not any(p.a is not None and p.b is not None for p in pairs):
        raise CoreError(_no_pair_message(a, b, rules), field="match")
    pairs, order_notes = _ordered(pairs, order)
    return Matching(tuple(pairs), tuple(notes + order_notes))


def _entry_shape(tensor: ModelTensor) -> tuple | None:
    return None if tensor.entry is None else tuple(tensor.entry.shape)


def _by_shape(a, b, shape_of) -> list[TensorPair]:
    free = list(b)
    shapes = {id(y): shape_of(y) for y in b}
    pairs = []
    for x in a:
        shape = shape_of(x)
        partner = next((y for y in free if shape is not None and shapes[id(y)] == shape), None)
        if partner is not None:
            free.remove(partner)
        pairs.append(TensorPair(tensor_key(x), x, partner))
    pairs += [TensorPair(tensor_key(y), None, y) for y in free]
    return pairs


def _rewrite(key: str, strip: Sequence[str]) -> str:
    for prefix in strip:
        if prefix and key.startswith(prefix):
            key = key[len(prefix):]
    return key


def _keys(tensors, strip, rename=(), names=None, side="A") -> dict[str, ModelTensor]:
    out: dict[str, ModelTensor] = {}
    for tensor in tensors:
        key = _rewrite(tensor_key(tensor), strip)
        for pattern, replacement in rename:
            key = pattern.sub(replacement, key)
        if names:
            key = names.get(key, key)
        if key in out:
            raise CoreError(
                f"two tensors of {side} have the name '{printable_name(key)}' after the matching rules "
                f"('{printable_name(out[key].label)}' and '{printable_name(tensor.label)}'): compare one file "
                "of each side, or give --strip / --map rules that keep them apart", field="match")
        out[key] = tensor
    return out


def _common_component(tensors) -> str | None:
    found = None
    for tensor in tensors:
        m = _FIRST_COMPONENT.match(tensor_key(tensor))
        if m is None or (found is not None and m.group(1) != found):
            return None
        found = m.group(1)
    return found


def _by_name(a, b, rules: MatchRules) -> tuple[list[TensorPair], list[str]]:
    choices = [((), ())]
    notes: list[str] = []
    if rules.auto_prefix and not rules.given:
        prefix_a, prefix_b = _common_component(a), _common_component(b)
        if prefix_a and prefix_a != prefix_b:
            choices.append(((prefix_a,), ()))
        if prefix_b and prefix_a != prefix_b:
            choices.append(((), (prefix_b,)))
        if prefix_a and prefix_b and prefix_a != prefix_b:
            choices.append(((prefix_a,), (prefix_b,)))
    best = None
    for strip_a, strip_b in choices:
        keys_a = _keys(a, rules.strip + strip_a, rules.rename, rules.names, "A")
        keys_b = _keys(b, rules.strip + strip_b, (), None, "B")
        common = len(keys_a.keys() & keys_b.keys())
        if best is None or common > best[0]:
            best = (common, strip_a, strip_b, keys_a, keys_b)
    _common, strip_a, strip_b, keys_a, keys_b = best
    for side, removed in (("A", strip_a), ("B", strip_b)):
        if removed:
            notes.append(f"names matched after removing the prefix '{printable_name(removed[0])}' from {side}'s "
                         "names (--strip PREFIX chooses; --match order pairs by position)")
    pairs = [TensorPair(key, tensor, keys_b.get(key)) for key, tensor in keys_a.items()]
    pairs += [TensorPair(key, None, tensor) for key, tensor in keys_b.items() if key not in keys_a]
    return pairs, notes


def _ordered(pairs: list[TensorPair], order: Sequence[str]) -> tuple[list[TensorPair], list[str]]:
    if not order:
        return pairs, []
    by_key = {}
    for pair in pairs:
        by_key.setdefault(pair.key, pair)
    first, seen, unknown = [], set(), []
    for key in order:
        pair = by_key.get(key)
        if pair is None:
            unknown.append(key)
        elif key not in seen:
            seen.add(key)
            first.append(pair)
    notes = []
    if unknown:
        shown = ", ".join(f"'{printable_name(k)}'" for k in unknown[:5])
        notes.append(f"{len(unknown)} name(s) of the order file match no pair: {shown}"
                     + (" ..." if len(unknown) > 5 else ""))
    return first + [p for p in pairs if p.key not in seen], notes


def _no_pair_message(a, b, rules: MatchRules) -> str:
    sample_a = ", ".join(f"'{printable_name(tensor_key(t))}'" for t in a[:3])
    sample_b = ", ".join(f"'{printable_name(tensor_key(t))}'" for t in b[:3])
    if rules.mode == "shape":
        return (f"no tensor of A has the shape of a tensor of B (A: {sample_a}...; B: {sample_b}...): "
                "pair them by position with --match order")
    return (f"A and B have no tensor name in common (A has {sample_a}...; B has {sample_b}...): pair them "
            "by position with --match order or by shape with --match shape, or rewrite names with "
            "--strip PREFIX or --map 'REGEX=REPLACEMENT' / --map NAMES.json")
