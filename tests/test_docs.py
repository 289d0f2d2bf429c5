"""The README stays a newcomer's page and the documentation stays true to the repository (issue 23).

The README is capped at 200 lines (the reference lives in ``docs/``); every relative link in the
README, ``CONTRIBUTING.md`` and ``docs/`` must reach a file or folder of the repository (and, for
``page.md#anchor``, a heading of that page); and every ``hume-sync <command>`` the README and the
docs name must be a command the CLI's parser has, down to its sub-actions
(``annotators add``), so a renamed or removed command cannot leave the walk-through stale.
``mkdocs build --strict`` (``make docs``, part of ``make test``) checks the site's own links.
"""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify

from hume_sync.cli import build_parser
from tests._paths import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
PAGES = [README, REPO_ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md"))]
MAX_README_LINES = 200

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.M)
#: ``hume-sync`` and the words after it (across a line break, as prose wraps, up to the next one).
_COMMAND = re.compile(r"\bhume-sync((?:\s+(?!hume-sync\b)[a-z][a-z-]*)+)")


def _prose(text: str) -> str:
    """The text outside code blocks and inline code, where a Markdown link is a link."""
    return _INLINE_CODE.sub("", _FENCE.sub("", text))


def _anchors(page: Path) -> set[str]:
    """The anchors mkdocs gives the page's headings (Python-Markdown's toc slugs)."""
    return {
        slugify(_INLINE_CODE.sub(lambda m: m[0][1:-1], h), "-")
        for h in _HEADING.findall(_FENCE.sub("", page.read_text(encoding="utf-8")))
    }


def _relative_links(page: Path) -> list[str]:
    targets = _LINK.findall(_prose(page.read_text(encoding="utf-8")))
    return [t for t in targets if not re.match(r"^[a-z][a-z+.-]*:", t)]


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; the reference goes in docs/"


def test_the_readme_keeps_the_two_commands() -> None:
    # .ci/run and the Makefile's header call these "the README's commands".
    text = README.read_text(encoding="utf-8")
    assert re.search(r"^make demo\s+#", text, re.M)
    assert re.search(r"^make test\s+#", text, re.M)


def test_the_reference_pages_are_in_docs() -> None:
    names = {p.name for p in DOCS.glob("*.md")}
    assert {"index.md", "running-a-study.md", "study-spec.md", "deployment.md"} <= names
    nav = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    missing = sorted(n for n in names if n not in nav)
    assert not missing, f"docs pages not in mkdocs.yml's nav: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in _relative_links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.is_relative_to(REPO_ROOT):
            broken.append(f"{target} (outside the repository)")
        elif not dest.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target} (no heading with that anchor)")
    assert not broken, f"{page.relative_to(REPO_ROOT)}: {broken}"


#: Every Markdown document of the repository (a user's clone has nothing beside it).
_NOT_OURS = {".venv", "site", ".git", "node_modules", "hume-demo"}
DOCUMENTS = sorted(
    p for p in REPO_ROOT.rglob("*.md") if not _NOT_OURS & set(p.relative_to(REPO_ROOT).parts)
)
#: Absolute paths that can only be one machine's (a home, a workspace, a scratch folder), and
#: relative ones that climb out of the document's folder.
_MACHINE_PATH = re.compile(r"(?<![\w.:/-])/(?:work|home|root|tmp|opt|mnt|srv|Users)/[\w.-]+")
_CLIMBING_PATH = re.compile(r"(?<![\w.:/-])(?:\.\./)+[\w.-][\w./-]*")


def paths_outside(text: str, folder: Path) -> list[str]:
    """Paths ``text`` (a document in ``folder``) names, in prose, code or links, that lie
    outside the repository."""
    found = _MACHINE_PATH.findall(text)
    for rel in _CLIMBING_PATH.findall(text):
        if not (folder / rel).resolve().is_relative_to(REPO_ROOT):
            found.append(rel)
    return found


@pytest.mark.parametrize("page", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_no_document_names_a_path_outside_the_repository(page: Path) -> None:
    assert paths_outside(page.read_text(encoding="utf-8"), page.parent) == []


def test_the_path_check_sees_a_path_outside() -> None:
    assert len(DOCUMENTS) > len(PAGES) and REPO_ROOT / "tests" / "data" / "SOURCES.md" in DOCUMENTS
    text = (
        "Run `python3 /home/someone/tools/structure.py .` or ../../elsewhere/x.py; keep "
        "[a](../README.md), https://example.org/work/x, /usr/bin/chromium and /api/tasks/.\n"
    )
    assert paths_outside(text, REPO_ROOT / "docs") == ["/home/someone", "../../elsewhere/x.py"]


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# A page\n\n[ok](#a-page) [gone](missing.md) [web](https://example.org)\n"
        "`[not a link](nowhere.md)`\n```\n[nor this](nowhere.md)\n```\n",
        encoding="utf-8",
    )
    assert _relative_links(page) == ["#a-page", "missing.md"]
    assert _anchors(page) == {"a-page"}


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser] | None:
    """The parser's sub-commands by name, or None when it takes none."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return None


def _unknown_commands(text: str) -> list[str]:
    """Each ``hume-sync <words>`` in ``text`` whose words leave the parser's command tree."""
    unknown = []
    for match in _COMMAND.finditer(text):
        parser, words = build_parser(), match[1].split()
        for i, word in enumerate(words):
            choices = _choices(parser)
            if choices is None:
                break  # a command's arguments follow
            if word not in choices:
                unknown.append("hume-sync " + " ".join(words[: i + 1]))
                break
            parser = choices[word]
    return unknown


@pytest.mark.parametrize(
    "page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: str(p.relative_to(REPO_ROOT))
)
def test_every_named_command_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert _COMMAND.search(text) or page.name not in {"README.md", "running-a-study.md"}
    assert _unknown_commands(text) == []


def test_the_command_check_sees_a_missing_command() -> None:
    text = "hume-sync setup s\nhume-sync annotators add s e\nhume-sync annotators purge s\n"
    assert _unknown_commands(text + "run `hume-sync teleport`") == [
        "hume-sync annotators purge",
        "hume-sync teleport",
    ]


def test_contributing_names_every_marker_and_benchmark() -> None:
    text = (REPO_ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    with (REPO_ROOT / "pyproject.toml").open("rb") as f:
        declared = tomllib.load(f)["tool"]["pytest"]["ini_options"]["markers"]
    markers = [m.split(":")[0].strip() for m in declared]
    assert len(markers) >= 5
    benchmarks = sorted(p.name for p in (REPO_ROOT / "benchmarks").glob("*.py"))
    missing = [n for n in markers + benchmarks if f"| `{n}` |" not in text]
    assert not missing, f"CONTRIBUTING.md does not list: {missing}"


def _settings_rows(text: str) -> set[tuple[str, str]]:
    """(type, key) of the spec page's table of each type's own keys."""
    return set(re.findall(r"^\| ([a-z_]+) \| `([a-z_]+)` \|", text, re.M))


def test_the_spec_page_lists_every_types_own_settings() -> None:
    """docs/study-spec.md names each registered type's settings keys, and no key a type lacks:
    a setting added to a type's ``settings.py`` without a line there fails here."""
    from hume_sync import task_types

    declared = set()
    for name in task_types.names():
        model = task_types.get(name).study_settings
        declared |= {(name, key) for key in (model.model_fields if model else ())}
    documented = _settings_rows((DOCS / "study-spec.md").read_text(encoding="utf-8"))
    assert documented == declared
    assert _settings_rows("| sts | `bins` | 5 | x |\n") == {("sts", "bins")}  # the reader works
