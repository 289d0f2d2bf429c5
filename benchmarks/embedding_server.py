"""Predict through an embedding server vs in-process, same model and texts; the cache on a rerun.

Usage: ``python benchmarks/embedding_server.py [--texts 600] [--runs 3] [--base-url URL]``

Without ``--base-url`` the test suite's OpenAI-compatible server (``tests/ml_backend/
embedding_server.py``: the packaged all-MiniLM-L6-v2 in another process on loopback) is
started. Both paths embed the same texts (SIB-200 and STS Benchmark sentences) through the
embedding cache, as ``predict`` does, each run into a fresh cache; runs alternate (server,
in-process, server, ...) so that machine load hits both alike, and medians are printed with the
ratio server / in-process. Then the cache's effect: the same texts again into a warm cache.
With a GPU server, pass its ``--base-url`` and ``--model``.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ml_backend.embedding_cache import EmbeddingCache, EncodeRequest  # noqa: E402
from ml_backend.encoders import load_encoder, packaged_minilm_path  # noqa: E402
from ml_backend.openai_embeddings import ServerSettings, load_openai_encoder  # noqa: E402
from tests._paths import SOURCE_DATA  # noqa: E402

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def texts(n: int) -> list[str]:
    out: list[str] = []
    for lang in ("eng_Latn", "rus_Cyrl"):
        with (SOURCE_DATA / "sib200" / lang / "train.tsv").open(encoding="utf-8") as fh:
            out += [r["text"] for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)]
    with (SOURCE_DATA / "stsb-en-test.csv").open(encoding="utf-8") as fh:
        out += [t for row in csv.reader(fh) for t in row[:2]]
    return list(dict.fromkeys(out))[:n]


def timed(encoder: object, sample: list[str], cache_dir: Path, tag: str) -> float:
    with EmbeddingCache(cache_dir / f"{tag}.sqlite") as cache:
        started = time.perf_counter()
        stats = cache.ensure(encoder, [EncodeRequest(tuple(sample), task_type="STS")])
        seconds = time.perf_counter() - started
    assert stats.computed == len(sample) or stats.cached == len(sample)
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--texts", type=int, default=600)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--model", default=MODEL)
    args = ap.parse_args()
    sample = texts(args.texts)
    server = None
    if args.base_url is None:
        from tests.ml_backend.embedding_server import start_server

        tmp = Path(tempfile.mkdtemp())
        server = start_server(str(packaged_minilm_path()), args.model, tmp / "server.log")
        args.base_url = server.base_url
    try:
        remote = load_openai_encoder(ServerSettings(base_url=args.base_url, model=args.model))
        local = load_encoder("all-MiniLM-L6-v2") if args.model == MODEL else None
        with tempfile.TemporaryDirectory() as d:
            cache_dir = Path(d)
            timed(remote, sample[:32], cache_dir, "warm-r")  # first request, tokenizer warm-up
            if local is not None:
                timed(local, sample[:32], cache_dir, "warm-l")
            served, in_process = [], []
            for run in range(args.runs):
                served.append(timed(remote, sample, cache_dir, f"r{run}"))
                if local is not None:
                    in_process.append(timed(local, sample, cache_dir, f"l{run}"))
            rerun = [timed(remote, sample, cache_dir, "r0") for _ in range(args.runs)]
        print(f"{len(sample)} texts, {args.runs} alternating runs, medians:")
        print(f"  server      {statistics.median(served):7.2f} s  ({args.base_url})")
        if in_process:
            ratio = statistics.median(served) / statistics.median(in_process)
            print(f"  in-process  {statistics.median(in_process):7.2f} s  ({local.method_note()})")
            print(f"  ratio server / in-process: {ratio:.2f}")
        print(
            f"  rerun into the warm cache: {statistics.median(rerun):.3f} s "
            f"({statistics.median(served) / statistics.median(rerun):.0f}x faster than embedding)"
        )
        usage = remote.remote.usage
        print(
            f"  server usage (warm-up included): {usage.requests} requests, {usage.tokens} tokens"
        )
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
