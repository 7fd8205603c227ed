"""What the capture server answers: the suite's cassettes, judged by its rejection rules.

A request body that a rule of the lane's fronted validators fires on gets that rule's recorded
rejection (its status and response body, exactly as recorded), so the client's own error path is
observed; any other body gets the recorded acceptance of the lane's first fronted validator that
has one. Nothing is invented: with no recorded acceptance the answer is a 501 saying so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness._model import Lane
from harness._pipeline.capture.server import Answer, Request
from harness._reject.cassettes import Catalog, suite_settings
from harness._reject.verdicts import cached_catalog, findings_for_body

__all__ = ["cassette_answer", "suite_catalog"]


def suite_catalog(root: str) -> Catalog:
    """The rules and cassettes of the suite at ``root`` (loaded once per process)."""
    settings = suite_settings(Path(root))
    return cached_catalog(root, settings.cassettes, settings.rules)  # no rules named: the rules stage's default


def _lane(raw: dict[str, Any]) -> Lane:
    return Lane(id=str(raw.get("id", "")), wire=str(raw.get("wire", "")), provider=str(raw.get("provider", "")),
                fronts=tuple(raw.get("fronts") or ()))


def cassette_answer(catalog: Catalog, lane: dict[str, Any]) -> Answer:
    """The answer function for one lane (a lane dict as pipelines receive it)."""
    target = _lane(lane)
    accepted = next((i for v in target.fronts for i in catalog.interactions
                     if i.entry.outcome == "accepted" and i.entry.validator == v), None)

    def answer(request: Request) -> tuple[int, bytes, str | None, str | None]:
        try:
            body = json.loads(request.body) if request.body else None
        except ValueError:
            body = None
        if isinstance(body, dict):
            for rule, _hit in findings_for_body(catalog, target, body):
                backing = catalog.backing(rule.id)
                if backing:
                    return backing[0].status, backing[0].response_text.encode(), rule.id, backing[0].entry.id
        if accepted is None:
            note = {"harness": f"no recorded acceptance for the validators {list(target.fronts)} of lane {target.id}"}
            return 501, json.dumps(note).encode(), None, None
        return accepted.status, accepted.response_text.encode(), None, accepted.entry.id

    return answer
