"""Every public function of ``scoring/`` and ``ml_backend/`` documents what it takes and gives.

The docstring convention of these two packages is Google style (Args / Returns / Raises, as
mteb writes them), checked by ruff's pydocstyle rules (``D``, pyproject.toml). Ruff checks the
form, and D417 the names in an ``Args:`` section that exists, but not that the section is
there. This test is that rule: a public function or method has a docstring; an ``Args:``
section naming each parameter (other than ``self`` / ``cls``) when it takes any; a
``Returns:`` (or ``Yields:``) section when it returns something; a ``Raises:`` section when
its body raises.

Public: a name without a leading underscore, in a module whose dotted path has no private
part, or in a private module when the package above it re-exports the name (its ``__all__``),
as ``scoring/agreement/_categorical.py`` behind ``scoring/agreement/__init__.py``. Dunder methods
are left out (a class documents its construction), and so are properties' ``Returns`` (a
property's docstring describes the attribute). Run one package with ``-k ml_backend``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._paths import REPO_ROOT

PACKAGES = ("scoring", "ml_backend")

SECTION = re.compile(r"^(?P<indent>\s*)(?P<name>[A-Z][A-Za-z ]*):\s*$")
#: An entry of an Args section: ``name:``, ``name (type):``, ``*args:``, ``**kwargs:``.
ARG = re.compile(r"^\s*\*{0,2}(?P<name>\w+)(\s*\([^)]*\))?\s*:")
PROPERTY_DECORATORS = {"property", "cached_property", "setter", "getter", "deleter"}

Function = ast.FunctionDef | ast.AsyncFunctionDef


def sections(doc: str) -> dict[str, list[str]]:
    """The docstring's Google sections, each with its body lines (header name -> lines)."""
    out: dict[str, list[str]] = {}
    current: str | None = None
    header_indent = 0
    for line in doc.expandtabs().splitlines():
        match = SECTION.match(line)
        if match and match["name"] in KNOWN_SECTIONS:
            current = match["name"]
            header_indent = len(match["indent"])
            out.setdefault(current, [])
            continue
        if current is None:
            continue
        if line.strip() and len(line) - len(line.lstrip()) <= header_indent:
            current = None  # the section ended: body text at the header's indent
            continue
        out[current].append(line)
    return out


KNOWN_SECTIONS = {
    "Args", "Arguments", "Parameters", "Returns", "Return", "Yields", "Yield", "Raises",
    "Example", "Examples", "Note", "Notes", "Attributes", "See Also", "Warning", "Warnings",
    "Todo", "References",
}  # fmt: skip


def documented_args(lines: list[str]) -> set[str]:
    """Names at the first indent of an Args section (continuation lines are deeper)."""
    entries = [line for line in lines if line.strip()]
    if not entries:
        return set()
    indent = min(len(line) - len(line.lstrip()) for line in entries)
    names = set()
    for line in entries:
        if len(line) - len(line.lstrip()) == indent and (match := ARG.match(line)):
            names.add(match["name"])
    return names


def _own_nodes(func: Function) -> Iterator[ast.AST]:
    """Nodes of ``func``'s body, not descending into nested functions, lambdas or classes."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    stack: list[ast.AST] = [n for n in func.body if not isinstance(n, nested)]
    while stack:
        node = stack.pop()
        yield node
        stack += [c for c in ast.iter_child_nodes(node) if not isinstance(c, nested)]


def _decorators(func: Function) -> set[str]:
    names = set()
    for dec in func.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute):
            names.add(target.attr)
        elif isinstance(target, ast.Name):
            names.add(target.id)
    return names


def _returns_value(func: Function) -> bool:
    if func.returns is not None:
        return not (isinstance(func.returns, ast.Constant) and func.returns.value is None)
    return any(
        (isinstance(n, ast.Return) and n.value is not None)
        or isinstance(n, ast.Yield | ast.YieldFrom)
        for n in _own_nodes(func)
    )


def _parameters(func: Function, is_method: bool) -> list[str]:
    a = func.args
    names = [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
    if (
        is_method
        and names
        and names[0] in {"self", "cls"}
        and "staticmethod" not in _decorators(func)
    ):
        names = names[1:]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return names


def problems_of(func: Function, where: str, is_method: bool) -> list[str]:
    """What the docstring of ``func`` lacks under the convention (empty when nothing)."""
    doc = ast.get_docstring(func)
    if not doc:
        return [f"{where}: no docstring"]
    decorators = _decorators(func)
    if "overload" in decorators:
        return []
    found = sections(doc)
    out = []
    params = _parameters(func, is_method)
    if params:
        args = found.get("Args", found.get("Arguments"))
        if args is None:
            out.append(f"{where}: no Args section (takes {', '.join(params)})")
        else:
            missing = [p for p in params if p not in documented_args(args)]
            if missing:
                out.append(f"{where}: Args does not name {', '.join(missing)}")
    is_property = bool(decorators & PROPERTY_DECORATORS)
    if not is_property and _returns_value(func) and not {"Returns", "Yields"} & set(found):
        out.append(f"{where}: no Returns section")
    if any(isinstance(n, ast.Raise) for n in _own_nodes(func)) and "Raises" not in found:
        out.append(f"{where}: raises but has no Raises section")
    return out


def _re_exported(package_init: Path) -> set[str]:
    """Names in the ``__all__`` list of a package's ``__init__.py`` (empty without one)."""
    if not package_init.exists():
        return set()
    for node in ast.parse(package_init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                value = node.value
                if isinstance(value, ast.List | ast.Tuple):
                    return {e.value for e in value.elts if isinstance(e, ast.Constant)}
    return set()


def _public_functions(path: Path) -> Iterator[tuple[Function, str, bool]]:
    """(function, qualified name, is a method) for each public function of the module."""
    rel = path.relative_to(REPO_ROOT)
    parts = [*rel.parent.parts, rel.stem]
    private_module = any(p.startswith("_") and p != "__init__" for p in parts)
    exported = _re_exported(path.parent / "__init__.py") if private_module else None
    if private_module and any(p.startswith("_") and p != "__init__" for p in rel.parent.parts):
        return  # a private package: nothing in it is public
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def visible(name: str) -> bool:
        return not name.startswith("_") and (exported is None or name in exported)

    def walk_class(cls: ast.ClassDef, prefix: str) -> Iterator[tuple[Function, str, bool]]:
        for node in cls.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if not node.name.startswith("_"):
                    yield node, f"{prefix}.{node.name}", True
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                yield from walk_class(node, f"{prefix}.{node.name}")

    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and visible(node.name):
            yield node, f"{rel}:{node.name}", False
        elif isinstance(node, ast.ClassDef) and visible(node.name):
            yield from walk_class(node, f"{rel}:{node.name}")


def _package_problems(package: str) -> tuple[int, list[str]]:
    checked = 0
    found: list[str] = []
    for path in sorted((REPO_ROOT / package).rglob("*.py")):
        for func, where, is_method in _public_functions(path):
            checked += 1
            found += problems_of(func, f"{where} (line {func.lineno})", is_method)
    return checked, found


@pytest.mark.parametrize("package", PACKAGES)
def test_public_functions_document_args_returns_and_raises(package: str) -> None:
    checked, found = _package_problems(package)
    assert checked > 20, f"found only {checked} public functions in {package}/"
    assert found == [], f"{len(found)} of {checked} public functions:\n" + "\n".join(found)


def _only(source: str) -> Function:
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    return node


GOOD = '''
def f(values, *, level=0.95, **extra):
    """Sum of values.

    Args:
        values: one score per item.
        level (float): the interval's level,
            on two lines.
        **extra: anything else.

    Returns:
        The sum.

    Raises:
        ValueError: no values.
    """
    if not values:
        raise ValueError("no values")
    return sum(values)
'''


def test_the_check_accepts_a_complete_docstring() -> None:
    assert problems_of(_only(GOOD), "f", is_method=False) == []


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("        level (float): the interval's level,\n            on two lines.\n", "",
         "Args does not name level"),
        ("    Returns:\n        The sum.\n\n", "", "no Returns section"),
        ("    Raises:\n        ValueError: no values.\n", "", "raises but has no Raises section"),
        ("    Args:\n", "    Arguments were:\n", "no Args section"),
    ],
)  # fmt: skip
def test_the_check_finds_each_missing_part(old: str, new: str, expected: str) -> None:
    assert old in GOOD
    found = problems_of(_only(GOOD.replace(old, new)), "f", is_method=False)
    assert any(expected in p for p in found), found


def test_the_check_finds_a_missing_docstring() -> None:
    func = _only("def f(values):\n    return values\n")
    assert problems_of(func, "f", is_method=False) == ["f: no docstring"]


def test_methods_leave_self_out_and_nested_raises_do_not_count() -> None:
    source = '''
class A:
    def m(self, x):
        """Twice x.

        Args:
            x: a number.

        Returns:
            2 x.
        """
        def inner():
            raise ValueError
        return 2 * x
'''
    cls = ast.parse(source).body[0]
    assert isinstance(cls, ast.ClassDef)
    method = cls.body[0]
    assert isinstance(method, ast.FunctionDef)
    assert problems_of(method, "A.m", is_method=True) == []
