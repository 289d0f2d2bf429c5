"""scoring.output_files: whole files only, owner-only as mkstemp made them, never outside root."""

from __future__ import annotations

import os
import stat
import tempfile
import unicodedata
from pathlib import Path

import pytest

from scoring.output_files import OutputTree, write_text_atomic
from scoring.safe_paths import UnsafePathError, component_problem, confined


def test_text_is_written_whole_owner_only_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old", encoding="utf-8")
    text = "é ☃ \n" * 50_000  # larger than one pipe or page: every byte must arrive
    write_text_atomic(target, text)
    assert target.read_bytes() == text.encode("utf-8")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600  # as tempfile.mkstemp makes it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]
    # the library's way, which this stands in for: the same bytes, the same mode
    fd, ref = tempfile.mkstemp(dir=tmp_path)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    assert Path(ref).read_bytes() == target.read_bytes()
    assert stat.S_IMODE(Path(ref).stat().st_mode) == stat.S_IMODE(target.stat().st_mode)


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary_one(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(target, "half \udc80 written")  # a lone surrogate cannot be UTF-8
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]

    def interrupted(fd: int, data: object) -> int:
        raise KeyboardInterrupt

    with monkeypatch.context() as m, pytest.raises(KeyboardInterrupt):
        m.setattr(os, "write", interrupted)  # an interrupt while writing
        write_text_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_a_tree_gives_the_paths_confined_gives_and_makes_each_folder(tmp_path):
    root = tmp_path / "out"
    tree = OutputTree(root)
    assert tree.file("org__m", "r", "T.json") == confined(root, "org__m", "r", "T.json")
    assert tree.file("org__m", "r", "U.json") == root / "org__m" / "r" / "U.json"
    assert tree.folder("org__m", "r") == (root / "org__m" / "r", True)
    assert (root / "org__m" / "r").is_dir()
    assert tree.file("top.md") == root / "top.md"
    for bad in (("org__m", "r", "../T.json"), ("..", "T.json"), ("org__m", ".r", "T.json")):
        with pytest.raises(UnsafePathError):
            tree.file(*bad)
    assert not (tmp_path / "T.json").exists()


def test_links_leading_outside_are_refused_as_confined_refuses_them(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    root = tmp_path / "out"
    (root / "org__m").mkdir(parents=True)
    os.symlink(outside, root / "org__m" / "r")  # a folder that is a link to elsewhere
    with pytest.raises(UnsafePathError, match="outside"):
        OutputTree(root).file("org__m", "r", "T.json")
    # a folder that was already there: a file in it that is a link to elsewhere is refused too
    (root / "org__m" / "s").mkdir()
    os.symlink(outside / "T.json", root / "org__m" / "s" / "T.json")
    tree = OutputTree(root)
    assert tree.folder("org__m", "s") == (root / "org__m" / "s", False)
    with pytest.raises(UnsafePathError, match="outside"):
        tree.file("org__m", "s", "T.json")
    assert tree.file("org__m", "s", "U.json") == root / "org__m" / "s" / "U.json"
    assert list(outside.iterdir()) == []
    assert not any(Path(p).name.endswith(".tmp") for p in root.rglob("*"))


def test_names_are_refused_for_control_characters_exactly_as_their_categories_say() -> None:
    """component_problem's quick test (str.isprintable) refuses what the category look-up does."""
    specials = [0x2028, 0x2029, 0x200B, 0xFEFF, 0xD800, 0xE000, 0xE0001, 0x1F600, 0x10FFFF]
    for code in [*range(0x3100), *specials]:
        ch = chr(code)
        if ch in "/\\":
            continue
        got = component_problem(f"a{ch}b")
        control = unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")
        assert (got == "it contains control characters") == control, hex(code)


def test_a_file_where_a_folder_goes_is_refused_before_anything_is_written(tmp_path) -> None:
    (tmp_path / "out").write_text("a file", encoding="utf-8")
    with pytest.raises(FileExistsError):
        OutputTree(tmp_path / "out").folder()
    with pytest.raises(FileExistsError):
        OutputTree(tmp_path).file("out", "T.json")
    assert (tmp_path / "out").read_text(encoding="utf-8") == "a file"
