"""The manifest beside the cassettes: what vcrpy must not hold (provenance, rule, drift).

vcrpy 9 writes provenance into a ``metadata:`` block that pytest-recording 0.14.1 cannot load,
so every cassette stays plain and this file says, per interaction, where it came from
(``transcribed`` from a public report, ``recorded`` live, or a ``synthetic`` example), which
rule it backs and how the message drifted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness._common.schemacheck import check
from harness._common.yamlsafe import load_document

__all__ = ["MANIFEST_NAME", "Entry", "Manifest", "load_manifest"]

MANIFEST_NAME = "manifest.yaml"


@dataclass(frozen=True)
class Entry:
    """One interaction's provenance and purpose."""

    id: str
    cassette: str
    index: int
    validator: str
    outcome: str
    provenance: Mapping[str, Any]
    rule: str | None = None
    provider: str = ""
    endpoint: str = ""
    request_body: str = ""
    envelope: str = ""
    drift: str = ""
    notes: str = ""
    line: int | None = None
    manifest: str = ""  # the manifest file this entry stands in, for naming its place

    @property
    def kind(self) -> str:
        return str(self.provenance.get("kind", ""))

    def source(self) -> str:
        """Where a reader can check this interaction: a URL, or what it is."""
        prov = self.provenance
        if prov.get("kind") == "transcribed":
            return str(prov.get("source_url", ""))
        if prov.get("kind") == "recorded":
            return f"recorded live {prov.get('date')} ({prov.get('sdk')})"
        return f"synthetic: {prov.get('note', '')}"


@dataclass(frozen=True)
class Manifest:
    folder: str
    file: str
    entries: tuple[Entry, ...] = field(default_factory=tuple)

    def by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}


def load_manifest(folder: Path) -> Manifest:
    """Load ``folder/manifest.yaml``; an absent file is an empty manifest."""
    path = folder / MANIFEST_NAME
    if not path.is_file():
        return Manifest(str(folder), str(path))
    doc = load_document(path, display=str(path))
    check(doc, "manifest")
    entries = []
    for i, raw in enumerate(doc.value["interactions"]):
        entries.append(Entry(
            id=raw["id"], cassette=raw["cassette"], index=raw["index"], validator=raw["validator"],
            outcome=raw["outcome"], provenance=raw["provenance"], rule=raw.get("rule"),
            provider=raw.get("provider", ""), endpoint=raw.get("endpoint", ""),
            request_body=raw.get("request_body", ""), envelope=raw.get("envelope", ""),
            drift=raw.get("drift", ""), notes=raw.get("notes", ""),
            line=doc.lines.line_of(f"interactions[{i}]"), manifest=str(path),
        ))
    return Manifest(str(folder), str(path), tuple(entries))
