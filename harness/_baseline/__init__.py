"""Comparing a run with an earlier one (``--baseline``): what is newly failing, what was failing
already, what got fixed; and the exit code when only new findings fail (``--fail-on new``).

    findings(report) -> Findings             the failing names of a report, by kind
    compare(current, base) -> dict           the report's ``baseline`` block: new, still, fixed
    judge(report, fail_on) -> (code, reason) the exit code from that block (or every finding)
    mutation_exit(section, delta, fail_on)   the same for ``harness mutate`` alone
"""

from harness._baseline.compare import (
    KINDS,
    Findings,
    compare,
    escape_names,
    findings,
    judge,
    load_baseline,
    load_mutation_baseline,
    mutation_exit,
    mutation_findings,
)

__all__ = ["KINDS", "Findings", "compare", "escape_names", "findings", "judge", "load_baseline",
           "load_mutation_baseline", "mutation_exit", "mutation_findings"]
