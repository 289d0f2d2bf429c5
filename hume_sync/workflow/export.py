"""`hume-sync export`'s step: build a study's score report from its store and write every output.

The report is computed in :mod:`hume_sync.report.model` and written by
:mod:`hume_sync.report.export`; this step only opens the store and joins the two (the demo calls
it as well as the command).
"""

from __future__ import annotations

from pathlib import Path

from hume_sync.report.export import Outputs, write_outputs
from hume_sync.report.model import StudyReport, build_report
from hume_sync.store import Store


def export_study(
    study_dir: str | Path,
    out_dir: str | Path,
    *,
    results_dir: str | None = None,
    include_late: bool = False,
    with_emails: bool = False,
    rate_per_hour: float | None = None,
) -> tuple[StudyReport, Outputs]:
    """Compute the report and write every output under ``out_dir``; returns the report and
    what was written. Annotators are named by pseudonymous keys unless ``with_emails``; the
    sample-size table prices its annotator-hours at ``rate_per_hour`` where given."""
    with Store.open(Path(study_dir)) as store:
        report = build_report(
            store,
            results_dir=results_dir,
            include_late=include_late,
            with_emails=with_emails,
            rate_per_hour=rate_per_hour,
        )
    return report, write_outputs(report, out_dir)
