"""The "May import" lines say what the import-linter contracts enforce, no more and no less.

Each package of ``core`` and ``inspector`` states in its ``__init__.py`` docstring what it may
import, in one regular sentence: ``May import:`` then the packages in double backticks, separated
by commas or "and", up to the sentence's full stop, a ``;`` clause or an aside in parentheses
(``May import: nothing of ours.`` for none); ``core`` names the whole engine. docs/architecture.md's
tables ("Packages and what they may import") give the same list for every package and module of
both roots.

The law is ``pyproject.toml``'s ``[tool.importlinter]`` contracts, read here with tomllib. From
them, :class:`ImportRules` works out which packages each package may import directly:

- ``layers`` (with ``containers``): a package imports packages on lower floors only; siblings of
  a ``|`` floor never import each other, siblings of a ``:`` floor may;
- ``forbidden``: no source module imports a forbidden one;
- ``independence``: the listed modules import none of each other;
- ``protected``: only the allowed importers (and the protected package itself) import it;
- ``acyclic_siblings`` forbids no single import.

A line that names a package the contracts forbid, or omits one they allow, fails; so does a rule
finer than a package (the lines could not state it) and a contract type this file does not know.
``ignore_imports`` exempts single imports and changes no package's line. Packages outside ``core``
and ``inspector`` (numpy, Qt) are not part of the lines.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser as the package tomli (a test dependency there)
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
ROOTS = ("core", "inspector")
ARCHITECTURE = ROOT / "docs" / "architecture.md"
TABLE_SECTION = "## Packages and what they may import"

_NAME = r"``[\w.]+``"
# The list ends where the sentence does, or where a clause (";") or an aside ("(") begins.
_MAY_IMPORT = re.compile(
    rf"May import:\s+(?P<names>nothing of ours|{_NAME}(?:(?:,\s+|,?\s+and\s+){_NAME})*)(?=\s*[.;(])")


def _within(module: str, package: str) -> bool:
    """Whether ``module`` is ``package`` or inside it."""
    return module == package or module.startswith(package + ".")


class ImportRules:
    """Which of our packages ("rooms": the direct children of each root) may import which.

    Raises
    ------
    ValueError
        A contract of a type not handled here, or one that names a module finer than a room.
    """

    def __init__(self, contracts: Sequence[Mapping]) -> None:
        self._floors: list[dict[str, tuple[int, bool]]] = []  # per layers contract: room -> (floor, independent)
        self._forbidden: list[tuple[list[str], list[str]]] = []
        self._independent: list[list[str]] = []
        self._protected: list[tuple[list[str], list[str]]] = []
        for contract in contracts:
            kind = contract["type"]
            if kind == "layers":
                self._floors.append(_layer_floors(contract))
            elif kind == "forbidden":
                self._forbidden.append((contract["source_modules"], contract["forbidden_modules"]))
            elif kind == "independence":
                self._independent.append(contract["modules"])
            elif kind == "protected":
                self._protected.append((contract["protected_modules"], contract["allowed_importers"]))
            elif kind != "acyclic_siblings":
                raise ValueError(f"contract {contract['name']!r}: type {kind!r} is not known to this check")
        self.rooms = frozenset(room for floors in self._floors for room in floors)
        for modules in (*(s + f for s, f in self._forbidden), *self._independent,
                        *(p + a for p, a in self._protected)):
            for module in modules:
                self._check_granularity(module)

    def _check_granularity(self, module: str) -> None:
        if module.split(".")[0] in ROOTS and module not in ROOTS and module not in self.rooms:
            raise ValueError(f"{module}: a rule finer than a package cannot be stated by a 'May import' line")

    def permits(self, importer: str, imported: str) -> bool:
        """Whether room ``importer`` may import room (or root) ``imported`` directly."""
        for floors in self._floors:
            if importer in floors and imported in floors:
                (low, independent), (high, _) = floors[importer], floors[imported]
                if high > low or (high == low and independent):
                    return False
        for sources, forbidden in self._forbidden:
            if any(_within(importer, s) for s in sources) and any(_within(imported, f) for f in forbidden):
                return False
        for modules in self._independent:
            mine = [m for m in modules if _within(importer, m)]
            if mine and any(_within(imported, m) for m in modules if m not in mine):
                return False
        for protected, allowed in self._protected:
            for package in protected:
                if (_within(imported, package) and not _within(importer, package)
                        and not any(_within(importer, a) for a in allowed)):
                    return False
        return True

    def allowed(self, room: str) -> frozenset[str]:
        """Every other room that ``room`` may import directly."""
        return frozenset(other for other in self.rooms if other != room and self.permits(room, other))

    def expand(self, names: Iterable[str]) -> tuple[frozenset[str], list[str]]:
        """The rooms ``names`` stand for (a root stands for all its rooms), and the unknown names."""
        rooms: set[str] = set()
        unknown = []
        for name in names:
            if name in ROOTS:
                rooms.update(r for r in self.rooms if _within(r, name))
            elif name in self.rooms:
                rooms.add(name)
            else:
                unknown.append(name)
        return frozenset(rooms), unknown


def _layer_floors(contract: Mapping) -> dict[str, tuple[int, bool]]:
    """room -> (floor, independent), floor 0 at the bottom; layers are listed top first."""
    containers = contract.get("containers") or [""]
    floors: dict[str, tuple[int, bool]] = {}
    layers = contract["layers"]
    for position, layer in enumerate(layers):
        independent = ":" not in layer
        for tail in re.split(r"[|:]", layer):
            tail = tail.strip().strip("()")
            for container in containers:
                floors[f"{container}.{tail}" if container else tail] = (len(layers) - 1 - position, independent)
    return floors


def line_problems(room: str, names: Iterable[str], rules: ImportRules, where: str) -> list[str]:
    """How a stated list of what ``room`` may import differs from what the contracts allow."""
    stated, unknown = rules.expand(names)
    stated -= {room}
    expected = rules.allowed(room)
    problems = [f"{where}: {name!r} is not a package of ours" for name in unknown]
    problems += [f"{where}: names {name}, which the contracts forbid {room} to import"
                 for name in sorted(stated - expected)]
    problems += [f"{where}: omits {name}, which the contracts allow {room} to import"
                 for name in sorted(expected - stated)]
    return problems


def may_import_names(docstring: str) -> list[str] | None:
    """The names of a docstring's one regular "May import" sentence; None when it has none."""
    text = " ".join(docstring.split())
    matches = list(_MAY_IMPORT.finditer(text))
    if len(matches) != 1 or text.count("May import") != 1:
        return None
    return re.findall(r"``([\w.]+)``", matches[0].group("names"))


def docstring_problems(room: str, docstring: str | None, rules: ImportRules, where: str) -> list[str]:
    """What is wrong with a package's docstring's "May import" sentence."""
    names = may_import_names(docstring or "")
    if names is None:
        return [f"{where}: no single regular 'May import: ``a``, ``b`` and ``c``.' sentence"]
    return line_problems(room, names, rules, where)


def table_rows(markdown: str) -> list[tuple[list[str], list[str] | None]]:
    """(packages, may-import names) of every row of the tables under :data:`TABLE_SECTION`.

    A row's cells are split on ``|`` outside backticks; the ``package`` and ``may import`` columns
    are found by their headers. A name without a dot that is not a root is a sibling of the row's
    first package (``errors`` in an engine row is ``core.errors``). The names are None when the
    cell is not a regular list (backticked names, commas, "and"; or "nothing of ours").
    """
    section = markdown.split(TABLE_SECTION, 1)[1].split("\n## ", 1)[0]
    rows: list[tuple[list[str], list[str] | None]] = []
    columns: dict[str, int] = {}
    for line in section.splitlines():
        if not line.startswith("|"):
            columns = {}
            continue
        cells = [cell.strip() for cell in re.split(r"\|(?=(?:[^`]*`[^`]*`)*[^`]*$)", line.strip().strip("|"))]
        if not columns:
            columns = {cell.lower(): i for i, cell in enumerate(cells)}
            continue
        if set(line) <= set("|- "):
            continue
        packages = re.findall(r"`([\w.]+)`", cells[columns["package"]])
        cell = cells[columns["may import"]]
        if cell == "nothing of ours":
            rows.append((packages, []))
            continue
        if not re.fullmatch(r"`[\w.]+`(?:(?:, |,? and )`[\w.]+`)*", cell):
            rows.append((packages, None))
            continue
        parent = packages[0].split(".")[0] if packages else ""
        names = re.findall(r"`([\w.]+)`", cell)
        rows.append((packages, [n if "." in n or n in ROOTS else f"{parent}.{n}" for n in names]))
    return rows


def table_problems(markdown: str, rules: ImportRules) -> list[str]:
    """Rows that disagree with the contracts, and rooms in no row or in several."""
    problems = []
    seen: dict[str, int] = {}
    for packages, names in table_rows(markdown):
        where = f"architecture.md row {', '.join(packages)}"
        if names is None:
            problems.append(f"{where}: the 'may import' cell is not a list of packages")
            continue
        for room in packages:
            seen[room] = seen.get(room, 0) + 1
            problems += line_problems(room, names, rules, where)
    problems += [f"architecture.md: {room} is in no row" for room in sorted(rules.rooms - set(seen))]
    problems += [f"architecture.md: {room} is in {n} rows" for room, n in sorted(seen.items()) if n > 1]
    problems += [f"architecture.md: {room} is not a package of ours" for room in sorted(set(seen) - rules.rooms)]
    return problems


@cache
def project_rules() -> ImportRules:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return ImportRules(config["tool"]["importlinter"]["contracts"])


def _packages_on_disk() -> dict[str, Path]:
    """Every direct child of each root: module name -> its ``__init__.py`` (packages) or file."""
    found = {}
    for root in ROOTS:
        for path in (ROOT / root).iterdir():
            if path.suffix == ".py" and path.name != "__init__.py":
                found[f"{root}.{path.stem}"] = path
            elif (path / "__init__.py").is_file():
                found[f"{root}.{path.name}"] = path / "__init__.py"
    return found


def _package_rooms() -> list[str]:
    return sorted(name for name, path in _packages_on_disk().items() if path.name == "__init__.py")


# --- the project --------------------------------------------------------------------------------

def test_every_package_and_module_of_both_roots_has_a_floor():
    assert project_rules().rooms == set(_packages_on_disk())


@pytest.mark.parametrize("room", _package_rooms())
def test_each_package_docstring_states_what_the_contracts_allow(room):
    path = _packages_on_disk()[room]
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring_problems(room, docstring, project_rules(), str(path.relative_to(ROOT))) == []


def test_the_architecture_tables_state_what_the_contracts_allow():
    assert table_problems(ARCHITECTURE.read_text(encoding="utf-8"), project_rules()) == []


def test_what_a_package_may_import_it_may_also_reach_through_what_it_imports():
    """The linter checks chains of imports too: a permission that led through a permitted import
    to a forbidden one would be a line the contracts break."""
    rules = project_rules()
    for room in rules.rooms:
        for other in rules.allowed(room):
            assert rules.allowed(other) - {room} <= rules.allowed(room), (room, other)


# --- the checker --------------------------------------------------------------------------------

_TOY = """
[[contracts]]
name = "floors"
type = "layers"
containers = ["core"]
layers = ["top : side", "middle | beside", "bottom"]

[[contracts]]
name = "beside is for top only"
type = "protected"
protected_modules = ["core.beside"]
allowed_importers = ["core.top"]

[[contracts]]
name = "side knows no middle"
type = "forbidden"
source_modules = ["core.side"]
forbidden_modules = ["core.middle", "numpy"]
"""


def _toy_rules(extra: str = "") -> ImportRules:
    return ImportRules(tomllib.loads(_TOY + extra)["contracts"])


def test_the_checker_reads_floors_siblings_forbidden_and_protected_rules():
    rules = _toy_rules()
    assert rules.rooms == {"core.top", "core.side", "core.middle", "core.beside", "core.bottom"}
    assert rules.allowed("core.top") == {"core.side", "core.middle", "core.beside", "core.bottom"}
    assert rules.allowed("core.side") == {"core.top", "core.bottom"}  # ':' sibling; middle forbidden, beside protected
    assert rules.allowed("core.middle") == {"core.bottom"}  # '|' sibling beside is not allowed
    assert rules.allowed("core.bottom") == set()


def test_the_checker_reads_independence_rules():
    rules = _toy_rules('[[contracts]]\nname = "apart"\ntype = "independence"\nmodules = ["core.top", "core.bottom"]\n')
    assert rules.allowed("core.top") == {"core.side", "core.middle", "core.beside"}


def test_a_line_naming_a_forbidden_package_or_omitting_an_allowed_one_is_caught():
    docstring = "Text for values.\n\nMay import: ``core.dtypes``, ``core.budget``\nand ``core.errors``. Pure numpy."
    assert may_import_names(docstring) == ["core.dtypes", "core.budget", "core.errors"]
    assert docstring_problems("core.text", docstring, project_rules(), "synthetic") == [
        "synthetic: names core.budget, which the contracts forbid core.text to import",
    ]
    assert docstring_problems("core.text", "May import: ``core.dtypes``.", project_rules(), "synthetic") == [
        "synthetic: omits core.errors, which the contracts allow core.text to import",
    ]
    assert docstring_problems("core.errors", "May import: nothing of ours.", project_rules(), "synthetic") == []


def test_an_irregular_or_unknown_line_is_caught():
    rules = project_rules()
    assert docstring_problems("core.pipeline", "May import every engine package below it.", rules, "x") == [
        "x: no single regular 'May import: ``a``, ``b`` and ``c``.' sentence",
    ]
    assert docstring_problems("core.text", "May import: ``core.dtypes``. May import: ``core.errors``.", rules,
                              "x") == ["x: no single regular 'May import: ``a``, ``b`` and ``c``.' sentence"]
    assert docstring_problems("core.text", "May import: ``core.dtypes``, ``core.errors``, ``core.colours``.",
                              rules, "x") == ["x: 'core.colours' is not a package of ours"]


def test_a_root_stands_for_all_its_packages():
    rules = project_rules()
    assert docstring_problems("inspector.widgets", "May import: ``core``.", rules, "x") == []
    assert docstring_problems("inspector.widgets", "May import: ``core``, ``inspector.state``.", rules, "x") == [
        "x: names inspector.state, which the contracts forbid inspector.widgets to import",
    ]


def test_a_table_row_that_disagrees_is_caught():
    markdown = (f"{TABLE_SECTION}\n\n| floor | package | what lives there | may import |\n| --- | --- | --- | --- |\n"
                "| 3 | `core.text` | the formatter | `dtypes`, `budget` |\n"
                "| 1 | `core.errors` | exceptions | all of them |\n\n## Next\n")
    problems = table_problems(markdown, project_rules())
    assert problems[:3] == [
        "architecture.md row core.text: names core.budget, which the contracts forbid core.text to import",
        "architecture.md row core.text: omits core.errors, which the contracts allow core.text to import",
        "architecture.md row core.errors: the 'may import' cell is not a list of packages",
    ]
    assert "architecture.md: core.pipeline is in no row" in problems


def test_a_rule_finer_than_a_package_or_an_unknown_contract_type_is_refused():
    with pytest.raises(ValueError, match="finer than a package"):
        _toy_rules('[[contracts]]\nname = "x"\ntype = "forbidden"\nsource_modules = ["core.top.one"]\n'
                   'forbidden_modules = ["core.bottom"]\n')
    with pytest.raises(ValueError, match="not known"):
        _toy_rules('[[contracts]]\nname = "x"\ntype = "custom_kind"\n')
