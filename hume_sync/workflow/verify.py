"""`hume-sync verify STUDY_DIR`: check every model's and LLM's sealing commitment alone.

Recomputes each commitment from the study store and judges its recorded history against the
first annotation (:func:`hume_sync.sealing.check_study`), printing one line per model (its
commitment as recomputed now, ``ok`` or the failure) and, indented under it, what changed. The
command fails (exit 1) when a commitment does not match the stored answers, a sealed answer
changed after the first annotation, or answers have no commitment; it only reads the study.
"""

from __future__ import annotations

from hume_sync.sealing import SealReport, check_study
from hume_sync.store import Store

#: Exit status of a study whose sealing does not hold (2 stays for bad input, as everywhere).
EXIT_SEAL_BROKEN = 1


def verify_store(store: Store) -> SealReport:
    """The sealing check of an open study store."""
    return check_study(store)


def report_lines(report: SealReport) -> list[str]:
    """What ``verify`` prints: a heading, then per model its line and what it found."""
    first = report.first_annotation_at or "none pulled yet"
    out = [f"study id {report.study_id or '(none)'} ({report.scheme}); first annotation: {first}"]
    if not report.checks:
        out.append("no sealed answers and no commitments in this study")
    for check in report.checks:
        out.append(check.line())
        if check.published is not None and check.published != check.recomputed:
            out.append(
                f"  published (in force at the first annotation, recorded "
                f"{check.published_at}): sha256:{check.published}"
            )
        out += [f"  {problem}" for problem in check.problems]
        out += [f"  note: {note}" for note in check.notes]
    return out
