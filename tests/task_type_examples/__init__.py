"""Example data of every registered task type, one module per type, for the shared protocol tests.

The protocol tests (``tests/scoring/test_rules.py``, ``tests/ml_backend/test_llm_task.py``,
``test_model_procedure.py``, ``test_reveal.py``, ``tests/label_studio_configs/test_lsc_*.py``)
run for every name in ``hume_sync.task_types.names()`` and read that type's example data through
:func:`examples`. So adding a type means writing ``tests/task_type_examples/<name>.py`` next to
its package; no shared test is edited. A registered type without one fails those tests, naming
the file to write and the fields it lacks.

What an example module holds (every name in :data:`FIELDS`):

- ``CONTENT``: one instance's stored content (the study store's shape);
- ``CONFIG``, ``CONFIG_ALT``: two stored subset configs (the second with instructions);
- ``SCORING``: ``{"gold": {item: gold}, "humans": {rater: {item: answer}}}``, three raters
  ``x``, ``y``, ``z`` on a small subset that every scoring rule can score;
- ``LLM_PARAMS``: the keywords of the type's ``llm_spec`` for its subset parameters;
- ``LLM_PROMPTS``: ``{(language, instructions): sha256[:16]}`` of the prompt JSON that
  ``build_prompt`` gives for ``CONTENT`` (``instructions`` None or :data:`STUDY_INSTRUCTIONS`);
- ``MODEL_JOB``: the fields of one small ``SubsetJob`` (``contents``, ``gold``, a train pool
  where the type needs one);
- ``LS_LABELS``: what ``ls_labels(CONFIG)`` shows; ``LS_TRANSLATION_KWARGS``:
  ``ls_translation_kwargs(CONFIG, CONTENT)``; ``LS_ANSWER``: an answer that round-trips through
  ``ls_answer_to_result`` / ``ls_result_to_answer`` with those keywords;
- ``LS_RENDERED``: ``{(config index, language): sha256[:16]}`` of ``ls_subset_config`` for
  ``(CONFIG, CONFIG_ALT)[index]``;
- ``LS_RENDER_KW``: keywords that ``ls_render_config`` needs to render at all;
- ``LS_RESULT_CASE``: ``(keywords, answer)`` for the config module's ``answer_to_result`` /
  ``result_to_answer``, used to check that faulty results are refused;
- ``REVEAL_PINNED``: ``[(model version, stored answer, score, rule, sha256[:16])]`` of the
  Label Studio prediction ``ml_backend.reveal.ls_prediction`` builds from ``CONFIG`` and
  ``CONTENT``;
- ``REVEAL_SHOWN``: ``(an embedding model's stored answer, how the interface shows it)``;
- ``MODEL_PAIRED``: ``(answers, printed, compared)``: an embedding model's stored answer per
  item of ``SCORING``, its printed (mteb) score there, and, worked out by hand, the score the
  paired comparison gives its side (the printed one where the type compares like for like;
  ``None`` where the type's model score has no per-item form: "unpaired").

And a simulated annotator, for the tests and benchmarks that play annotators or models (so that
none of them branches on a type's name; gold in the store's shape, answers in the interface's):

- ``perfect_answer(gold)``: what an annotator who agrees with gold submits;
- ``other_answer(answer, labels)``: a plausible answer that differs from ``answer``;
- ``scripted_answer(gold, k, who, labels)``: deterministic annotators ``'a'`` (mostly right) and
  ``'b'`` (errs elsewhere) on the ``k``-th instance;
- ``stored_prediction(gold, llm=...)``: a stored model answer equal to gold (an LLM's or an
  embedding model's shape);
- ``items_in(gold)``: how many items an instance holds (a clustering set counts its texts);
- ``check_revealed(prediction, answer, score)``: the type's own assertions on a revealed
  Label Studio prediction.

The digests pin bytes: for the first four types, the bytes before the type objects existed
(commit fed7b48); for a type added later, the bytes it was added with; since issue 13 without
the ``score`` key (revealed predictions carry no score: tests/ml_backend/test_reveal.py checks
that putting the stored score back gives the digests pinned before).
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: The names every example module defines (see the module docstring).
FIELDS: tuple[str, ...] = (
    "CONTENT",
    "CONFIG",
    "CONFIG_ALT",
    "SCORING",
    "LLM_PARAMS",
    "LLM_PROMPTS",
    "MODEL_JOB",
    "LS_LABELS",
    "LS_TRANSLATION_KWARGS",
    "LS_ANSWER",
    "LS_RENDERED",
    "LS_RENDER_KW",
    "LS_RESULT_CASE",
    "REVEAL_PINNED",
    "REVEAL_SHOWN",
    "perfect_answer",
    "other_answer",
    "scripted_answer",
    "stored_prediction",
    "items_in",
    "check_revealed",
    "MODEL_PAIRED",
)

#: Instructions a study sets (with a placeholder and a ``$`` that must stay literal).
STUDY_INSTRUCTIONS = "Do the {n_groups} thing $x"
#: Model versions of the pinned predictions: an embedding model and an LLM annotator.
EMB, LLM = "emb:some/model", "llm:test"


class MissingExamplesError(LookupError):
    """A registered task type has no example module, or one that lacks fields."""


def examples(name: str) -> ModuleType:
    """The example module of the registered type ``name`` (``tests.task_type_examples.<name>``).

    Raises :class:`MissingExamplesError` naming the file to write, or the fields it lacks.
    """
    module_name = f"{__name__}.{name}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise MissingExamplesError(
            f"task type {name!r} is registered but has no example data: write "
            f"tests/task_type_examples/{name}.py with {', '.join(FIELDS)} "
            "(see tests/task_type_examples/__init__.py)"
        ) from None
    missing = [f for f in FIELDS if not hasattr(module, f)]
    if missing:
        raise MissingExamplesError(
            f"tests/task_type_examples/{name}.py lacks {', '.join(missing)} "
            "(see tests/task_type_examples/__init__.py)"
        )
    return module


__all__ = ["EMB", "FIELDS", "LLM", "STUDY_INSTRUCTIONS", "MissingExamplesError", "examples"]
