"""`hume-sync predict`: every model's sealed answers and subset scores, then (with ``--llm``)
one LLM annotator's."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hume_sync.errors import CliError

if TYPE_CHECKING:
    from hume_sync.sealing import Commitment

NAME = "predict"
HELP = "compute every model's sealed answers and subset scores (cached, resumable)"
DESCRIPTION: str | None = (
    "Embed the study's texts once per model (cache in STUDY_DIR/cache/"
    "embeddings), answer every instance as MTEB would, and store the answers as sealed "
    "predictions (model_version emb:<name>) with each model's score per subset."
)
WRITES_STUDY = True
CREATES_STUDY = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    p = parser
    p.add_argument("study_dir", metavar="STUDY_DIR")
    p.add_argument(
        "--models",
        nargs="+",
        default=None,  # hume_sync.workflow.predict.DEFAULT_MODELS, read when predict runs
        metavar="MODEL",
        help="mteb model names (run through mteb's own wrapper), other sentence-transformers "
        "ids or local directories, or openai:<model> on --emb-base-url "
        "(default: the packaged all-MiniLM-L6-v2)",
    )
    p.add_argument(
        "--subsets", nargs="+", metavar="TASK/SUBSET", help="only these subsets (default: all)"
    )
    p.add_argument(
        "--chunk-size", type=int, default=None, help="texts per encode call and cache commit"
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="overwrite stored predictions that changed (new model revision, changed data)",
    )
    p.add_argument(
        "--device",
        default=None,
        metavar="DEVICE",
        help="torch device for in-process models (default: a GPU when there is one, else cpu)",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="texts per encode batch (default: 128 on a GPU, 32 on the CPU)",
    )
    e = p.add_argument_group(
        "embedding server (models given as openai:<model>, any OpenAI-compatible endpoint)"
    )
    e.add_argument("--emb-base-url", default=None, metavar="URL", help="e.g. http://gpu:8000/v1")
    e.add_argument(
        "--emb-api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="name of the environment variable holding the API key (sent if set)",
    )
    e.add_argument("--emb-concurrency", type=int, default=4, help="requests in flight")
    e.add_argument(
        "--emb-max-batch-tokens",
        type=int,
        default=8192,
        help="estimated tokens per request (UTF-8 bytes / 4)",
    )
    e.add_argument("--emb-retries", type=int, default=4, help="retries on 429/5xx/timeouts")
    e.add_argument("--emb-timeout", type=float, default=60.0, help="seconds per request")
    e.add_argument(
        "--emb-price-per-mtok", type=float, default=None, help="USD per million tokens (cost log)"
    )
    g = p.add_argument_group("LLM annotator (any OpenAI-compatible endpoint)")
    g.add_argument("--llm", metavar="MODEL_ID", help="also annotate with this LLM")
    g.add_argument(
        "--llm-base-url",
        default=None,
        metavar="URL",
        help="endpoint (default: $OPENAI_BASE_URL, else https://api.openai.com/v1)",
    )
    g.add_argument(
        "--llm-api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="name of the environment variable holding the API key",
    )
    g.add_argument("--llm-name", default=None, help="name in model_version llm:<name>")
    g.add_argument(
        "--llm-response-format",
        default="json_schema",
        choices=("json_schema", "json_object_schema", "json_object", "none"),
        help="structured output mode (llama.cpp's server: json_object_schema)",
    )
    g.add_argument("--llm-concurrency", type=int, default=4)
    g.add_argument("--llm-max-tokens", type=int, default=512)
    g.add_argument("--llm-temperature", type=float, default=0.0)


def run(args: argparse.Namespace) -> int:
    """Embedding models as MTEB runs them, then (with --llm) one LLM annotator."""
    _predict_models(args)
    if not args.llm:
        return 0
    from hume_sync.workflow.cli_support import study_store
    from hume_sync.workflow.llm import llm_client, predict_llm

    client = llm_client(
        args.llm,
        base_url=args.llm_base_url,
        api_key_env=args.llm_api_key_env,
        name=args.llm_name,
        temperature=args.llm_temperature,
        max_tokens=args.llm_max_tokens,
        response_format=args.llm_response_format,
    )
    with study_store(args.study_dir) as store:
        summary = predict_llm(
            args.study_dir,
            store,
            client,
            concurrency=args.llm_concurrency,
            progress=sys.stderr.isatty(),
        )
    counts = ", ".join(f"{k} {v}" for k, v in sorted(summary.statuses.items()))
    print(f"{summary.model_version}: {counts}; full records in {summary.log}")
    if summary.commitment is not None:
        _print_commitment(summary.commitment)
    return 0


def _predict_models(args: argparse.Namespace) -> None:
    """Every embedding model's sealed answers and subset scores; one line per model and subset."""
    from hume_sync.progress import say
    from hume_sync.workflow.cli_support import study_store
    from hume_sync.workflow.predict import DEFAULT_MODELS, predict_study

    if args.chunk_size is not None and args.chunk_size < 1:
        raise CliError("--chunk-size must be at least 1")
    for flag in ("batch_size", "emb_concurrency", "emb_max_batch_tokens"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise CliError(f"--{flag.replace('_', '-')} must be at least 1")
    server = {
        "base_url": args.emb_base_url,
        "api_key_env": args.emb_api_key_env,
        "concurrency": args.emb_concurrency,
        "max_batch_tokens": args.emb_max_batch_tokens,
        "retries": args.emb_retries,
        "timeout_s": args.emb_timeout,
        "price_per_mtok": args.emb_price_per_mtok,
    }
    with study_store(args.study_dir) as store:
        summary = predict_study(
            Path(args.study_dir),
            store,
            args.models or list(DEFAULT_MODELS),
            subsets=args.subsets,
            chunk_size=args.chunk_size,
            replace=args.replace,
            progress=sys.stderr.isatty(),
            loading={"device": args.device, "batch_size": args.batch_size, "server": server},
        )
    for m in summary.models:
        say(
            f"{m.model_version}: {m.subsets - m.skipped} subset(s) computed, {m.skipped} "
            f"up to date; {m.embedded} text(s) embedded, {m.cached} from the cache, "
            f"in {m.seconds:.1f} s"
        )
        for line in m.score_lines():
            print(line)
        print(
            f"{m.model_version}: {m.added} prediction(s) added, {m.replaced} replaced, "
            f"{m.unchanged} unchanged (sealed)"
        )
    for c in summary.commitments:
        _print_commitment(c)


def _print_commitment(c: Commitment) -> None:
    """The commitment line to publish before annotation opens, and a warning when it is new
    after annotation began (export and verify will flag it)."""
    print(c.line())
    if c.after_annotation:
        print(
            f"warning: the sealed answers of {c.model_version} changed after the first "
            "annotation; 'hume-sync verify' and the report will say so",
            file=sys.stderr,
        )
