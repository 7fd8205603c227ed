"""`harness openapi`'s summary for people: twenty skipped operations by name, then a count of the rest."""

from __future__ import annotations

from harness._cli.openapi import summary_text
from harness._sources.openapi.importer import ImportResult, Skipped


def test_past_twenty_skipped_operations_the_rest_are_counted_before_the_dropped_responses() -> None:
    skipped = [Skipped(f"op{n}", "get", f"/p{n}", "no JSON body") for n in range(23)]
    dropped = [Skipped("op0", "get", "/p0", "a binary response")]
    text = summary_text(ImportResult("api.json", "3.1.0", 1234, 23, skipped=skipped, dropped_responses=dropped), 0.5)
    assert text.splitlines() == [
        "api.json: OpenAPI 3.1.0, 1,234 values, 23 operations in 0.50 s",
        "  tools: 0",
        "  skipped: 23",
        *(f"    op{n} (GET /p{n}): no JSON body" for n in range(20)),
        "    ... and 3 more",
        "  response schemas dropped: 1",
        "    op0: a binary response",
        "  duplicated operationIds: 0",
        "  root compositions (tools): 0",
        "  JSON bodies with a root composition: 0 (a composition-only body becomes one `body` field)",
    ]


def test_twenty_skipped_operations_are_all_named_and_no_time_is_shown_without_one() -> None:
    skipped = [Skipped(f"op{n}", "post", "/p", "why") for n in range(20)]
    lines = summary_text(ImportResult("api.json", "3.0.3", 5, 20, skipped=skipped)).splitlines()
    assert lines[0] == "api.json: OpenAPI 3.0.3, 5 values, 20 operations"
    assert lines[23] == "  response schemas dropped: 0" and not any("more" in line for line in lines)
