"""Recorded rejections: rules backed by receipts (vcrpy cassettes + manifest), the offline
verdicts a run reports, the consistency check, replay and the live re-probe.

    rules.py      load ``*.rules.yaml`` into frozen Rule values
    walk.py       every subschema of a JSON Schema, and how providers spell its path
    match.py      fire rules on a body: Hit(rule, location, captures, path)
    template.py   location templates: render and extract ``tools.{0}.custom.input_schema``
    manifest.py   the manifest beside the cassettes (provenance, rule, drift)
    cassettes.py  read/write plain vcrpy cassettes; the Catalog of a suite
    build.py      rebuild the bundled cassettes from receipts.jsonl
    check.py      ``harness cassettes check``: is every interaction explained?
    secrets.py    credential scanner (cassettes, the probe persister)
    verdicts.py   evaluate(suite, observations) -> report section; exit_code
    report.py     render_markdown(section)
    replay.py     send a body under vcrpy replay-only mode with a signature matcher
    persist.py    the atomic, secret-refusing vcrpy persister
    probe.py      the live re-probe and its drift report
"""

from __future__ import annotations

__all__: list[str] = []
