"""A lone clone runs every test and benchmark: nothing reads a folder beside the repository.

The real datasets the tests use live in ``tests/data`` (origins and licences in
``tests/data/SOURCES.md``). This test fails if a test or a benchmark builds a path that climbs
out of the repository (``REPO_ROOT.parent``, ``parents[N]`` beyond the root, ``../shared``), and
if a data file that the tests name is not inside the repository.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests import _paths

ROOT = _paths.REPO_ROOT
#: Path expressions that leave the repository from a module under tests/ or benchmarks/.
ESCAPES = (
    re.compile(r"\.\./shared"),
    re.compile(r"""["']shared["']\s*/\s*["']data["']"""),
    re.compile(r"(REPO_ROOT|ROOT)\.parent\b"),
)


def _sources() -> list[Path]:
    return sorted(
        p
        for folder in ("tests", "benchmarks")
        for p in (ROOT / folder).rglob("*.py")
        if p.resolve() != Path(__file__).resolve()
    )


def _climbs_out(path: Path, tree: ast.AST) -> list[str]:
    """``Path(__file__).resolve().parents[N]`` (plus ``.parent`` steps) above the repository."""
    depth = len(path.relative_to(ROOT).parts) - 1  # folders between the root and the file
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            inner = node.value
            if (
                isinstance(inner, ast.Subscript)
                and isinstance(inner.value, ast.Attribute)
                and inner.value.attr == "parents"
                and isinstance(inner.slice, ast.Constant)
                and isinstance(inner.slice.value, int)
                and inner.slice.value >= depth - 1
            ):
                found.append(f"line {node.lineno}: parents[{inner.slice.value}].parent")
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "parents"
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, int)
            and node.slice.value > depth
        ):
            found.append(f"line {node.lineno}: parents[{node.slice.value}]")
    return found


def test_no_test_or_benchmark_reads_beside_the_repository() -> None:
    offences = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT)
        for pattern in ESCAPES:
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                offences.append(f"{rel}:{line}: {m.group(0)}")
        offences += [f"{rel}: {o}" for o in _climbs_out(path, ast.parse(text))]
    assert offences == []


def test_the_checker_sees_an_escape(tmp_path: Path) -> None:
    """The AST check flags a path that climbs above the root (so the test above can fail)."""
    fake = ROOT / "tests" / "integration" / "x.py"
    tree = ast.parse('S = Path(__file__).resolve().parents[2].parent / "shared"')
    assert _climbs_out(fake, tree) == ["line 1: parents[2].parent"]
    assert any(p.search('ROOT.parent / "shared" / "data"') for p in ESCAPES)


def test_the_data_the_tests_name_is_in_the_repository() -> None:
    for path in (_paths.SOURCE_DATA, _paths.MTEB_RESULTS):
        assert path.is_dir(), path
        assert path.resolve().is_relative_to(ROOT.resolve())
    names = {
        "stsb-en-test.csv",
        "SICK_test_annotated.txt",
        "sib200/eng_Latn/test.tsv",
        "sib200/arb_Arab/test.tsv",
        "sib200/labels.txt",
    }
    for name in names:
        assert (_paths.SOURCE_DATA / name).is_file(), name
    sources = (ROOT / "tests" / "data" / "SOURCES.md").read_text(encoding="utf-8")
    for top in sorted(p.name for p in _paths.SOURCE_DATA.iterdir()):
        stem = "sts12_" if top.startswith("sts12_") else top
        assert stem in sources, f"{top} has no origin in tests/data/SOURCES.md"
