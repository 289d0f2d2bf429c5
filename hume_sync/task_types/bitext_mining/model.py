"""Bitext mining: how an embedding model answers it, as mteb's ``AbsTaskBitextMining``.

mteb embeds every ``sentence1`` in one call and every ``sentence2`` in another and searches all
of the latter for each of the former. Here the subset's pairs are the sampled sentences and
their translations (gold's candidates), in the source's order: mteb's own task class on those
pairs gives the same numbers (the full-set score, main score ``f1``). The model also answers
what people answer: its similarity to each candidate shown (its choice is the most similar),
scored by the same F1 as ``candidates_f1``, the like-for-like number. Texts are embedded
without a query/passage role, as mteb's evaluator does.
"""

from __future__ import annotations

from typing import Any

from ml_backend.model_procedure import (
    Embeddings,
    ModelAnswers,
    ModelProcedure,
    PredictError,
    SubsetJob,
    TextGroup,
)
from ml_backend.procedures import bitext_mining as P


def _gold_texts(job: SubsetJob) -> list[str] | None:
    """Each instance's translation (its gold candidate's text), or None without gold."""
    if job.gold is None:
        return None
    out = []
    for n, (content, gold) in enumerate(zip(job.contents, job.gold, strict=True)):
        texts = {str(c["id"]): str(c["text"]) for c in content["candidates"]}
        if str(gold) not in texts:
            raise PredictError(f"{job.key}: gold of {job.hume_ids[n]!r} is not a candidate")
        out.append(texts[str(gold)])
    return out


class BitextMiningModel(ModelProcedure):
    """Bitext mining's model procedure (nearest translation, mteb's weighted F1)."""

    #: Candidates are read in the order shown: they carry subset-wide ids, no source order.
    model_items_key = None
    model_needs_train_pool = False

    def model_encode_groups(self, job: SubsetJob) -> list[TextGroup]:
        n_items = range(len(job.contents))
        sentences = tuple(str(self.model_field(job, n, "sentence")) for n in n_items)
        for n in n_items:
            self.model_field(job, n, "candidates")
        golds = _gold_texts(job)
        seen = set(sentences) | set(golds or ())
        rest = tuple(
            dict.fromkeys(
                str(c["text"])
                for content in job.contents
                for c in content["candidates"]
                if str(c["text"]) not in seen
            )
        )
        groups = [TextGroup(sentences)]
        if golds is not None:
            groups.append(TextGroup(tuple(golds)))
        if rest:
            groups.append(TextGroup(rest))
        return groups

    def model_answers(
        self, job: SubsetJob, embeddings: Embeddings, similarity: str
    ) -> ModelAnswers:
        golds = _gold_texts(job)
        shown = [content["candidates"] for content in job.contents]
        result = P.mine(
            embeddings([str(c["sentence"]) for c in job.contents]),
            [embeddings([str(c["text"]) for c in cands]) for cands in shown],
            [[str(c["id"]) for c in cands] for cands in shown],
            gold_targets=None if golds is None else embeddings(golds),
            gold_ids=None if job.gold is None else [str(g) for g in job.gold],
            similarity=similarity,
        )
        # The stored answer is the model's choice, an annotator's shape; its similarity to
        # the chosen candidate is the item score.
        return ModelAnswers.from_result(
            result,
            result.choices,
            [a[c] for a, c in zip(result.answers, result.choices, strict=True)],
        )

    def model_job_settings(self, subset: Any) -> dict[str, Any]:
        """Nothing beyond the instances: the candidates are in each instance's content."""
        return {}
