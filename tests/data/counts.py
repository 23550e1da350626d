"""What every validation's counts must satisfy, checked by each test that validates rows."""

from __future__ import annotations

from semcse.core.data.validation import ValidatedCorpus


def check_reconciles(result: ValidatedCorpus) -> None:
    """Every row read lands in one count, the reasons add up to the rejects, and the frames match the counts."""
    report = result.report
    assert report.total == report.accepted + report.merged + report.skipped + report.rejected, report
    assert sum(report.reasons.values()) == report.rejected and report.replaced <= report.accepted, report
    assert len(result.accepted) == report.accepted and len(result.rejects) == report.rejected, report
    assert len(result.skipped) == report.skipped and len(result.replaced) == report.replaced, report
