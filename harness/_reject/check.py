"""``harness cassettes check``: is every recorded interaction explained, every rule backed?

Kinds of problem (each has a test with its own tiny scenario folder):

    unknown-rule        a rejected interaction names a rule the suite does not have
    rule-does-not-fire  its rule does not fire on the recorded request body
    message-mismatch    the rule's message pattern is not in the recorded response
    wrong-place         the message names a place where the rule does not fire (every place
                        named must be one), or a rule's templates name no place in any receipt
    status-mismatch     a rejection with a 2xx status, or an acceptance without one
    accepted-fires      an accepted interaction sets off a rule
    rule-without-receipt a rule no manifest interaction backs (or a receipt id it lists is absent)
    unlisted            a cassette interaction the manifest does not describe
    secret              a credential in a cassette or the manifest, also inside a ``!!binary``
                        or gzip/deflate body (decoded before the scan)
    provenance          a transcription presented as live (``recorded`` body or envelope without
                        ``kind: recorded``), or a rejection backed by a synthetic example
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness._common.secrets import env_secrets, scan
from harness._errors import Place
from harness._reject.bounded import WBITS
from harness._reject.cassettes import Catalog, Interaction, read_cassette
from harness._reject.manifest import Entry
from harness._reject.match import fire, fire_all
from harness._reject.rules import Rule
from harness._reject.template import Named, extract, normalize

__all__ = ["KINDS", "CheckResult", "Problem", "check_catalog", "dangling_receipts", "place_named"]

KINDS = ("unknown-rule", "rule-does-not-fire", "message-mismatch", "wrong-place", "status-mismatch",
         "accepted-fires", "rule-without-receipt", "unlisted", "secret", "provenance")


@dataclass(frozen=True)
class Problem:
    kind: str
    where: str
    detail: str
    place: Place | None = None  # file:line of the manifest entry or rule, for an InputError

    def __str__(self) -> str:
        return f"{self.where}: {self.kind}: {self.detail}"


@dataclass
class CheckResult:
    problems: list[Problem] = field(default_factory=list)
    rules: int = 0
    interactions: int = 0
    rejected: int = 0
    accepted: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def _where(i: Interaction) -> str:
    return f"{i.entry.cassette}#{i.entry.index} ({i.entry.id})"


def _about(i: Interaction, kind: str, detail: str) -> Problem:
    """A problem with one interaction, placed at its manifest entry."""
    return Problem(kind, _where(i), detail, Place(i.entry.manifest, i.entry.line, f"id {i.entry.id}"))


def _about_rule(rule: Rule, kind: str, detail: str, place: Place | None = None) -> Problem:
    return Problem(kind, f"{rule.file}:{rule.line} ({rule.id})", detail,
                   place or Place(rule.file, rule.line, f"rule {rule.id}"))


def place_named(rule: Rule, body: object, texts: tuple[str, ...]) -> tuple[bool, list[str]]:
    """(every place the message names is a place the rule fires, the places named that are not).

    True with nothing listed when the message names no place at all; the catalog-wide check
    then flags a rule whose templates name a place in none of its receipts.
    """
    holes = [{**dict(hit.captures), "path": hit.path} for hit in fire(rule, body)]
    named = _named_places(rule, texts)
    missed = [f"{template} -> {found}" for template, found in named if not _fits(found, holes)]
    return not missed, missed if missed else ([] if not named else ["(all matched)"])


def _named_places(rule: Rule, texts: tuple[str, ...]) -> list[tuple[str, Named]]:
    """(template, place) of every place the rule's location templates find in the texts."""
    return [(template, found) for template in rule.location for found in extract(template, list(texts))]


def _fits(found: Mapping[str, str], holes: list[dict[str, str]]) -> bool:
    """Whether one hit's holes say what the message named at each of them (loosely: quotes, spaces)."""
    return any(all(normalize(h.get(k, "\0")) == normalize(v) for k, v in found.items()) for h in holes)


def _rejected(i: Interaction, rules: dict[str, Rule], out: list[Problem]) -> None:
    # the rule fires and places are matched in this frame: recorded bodies may nest near the
    # recursion limit, and the invalid-schema predicate validates them recursively
    rule = _known_rule(i, rules, out)
    if rule is None:
        return
    if not fire(rule, i.body):
        out.append(_about(i, "rule-does-not-fire", f"{rule.id} does not fire on the recorded body"))
        return
    if not any(rule.pattern.search(t) for t in i.texts):
        out.append(_about(i, "message-mismatch",
                           f"{rule.id}: /{rule.message}/ not found in the recorded response"))
    ok, missed = place_named(rule, i.body, i.texts)
    if not ok:
        out.append(_about(i, "wrong-place",
                           f"{rule.id} fired at {[h.location for h in fire(rule, i.body)]} "
                           f"but the message names {missed}"))


def _known_rule(i: Interaction, rules: dict[str, Rule], out: list[Problem]) -> Rule | None:
    """The rule a rejected interaction names (None, with a problem, if the suite lacks it); a
    rejection with a 2xx status is a problem too."""
    rule = rules.get(i.entry.rule or "")
    if rule is None:
        out.append(_about(i, "unknown-rule", f"rule {i.entry.rule!r} is not in the suite's rules"))
        return None
    if 200 <= i.status < 300:
        out.append(_about(i, "status-mismatch", f"outcome rejected but status {i.status}"))
    return rule


def _accepted(i: Interaction, catalog: Catalog, out: list[Problem]) -> None:
    if not 200 <= i.status < 300:
        out.append(_about(i, "status-mismatch", f"outcome accepted but status {i.status}"))
    # a clean body of one wire may look odd to another wire's rules: check its own validator's
    hits = fire_all(catalog.rules.for_validators([i.entry.validator]), i.body)
    if hits:
        listed = ", ".join(f"{h.rule} at {h.location}" for h in hits[:5])
        out.append(_about(i, "accepted-fires", f"an accepted body sets off {listed}"))


def dangling_receipts(catalog: Catalog, rule: Rule) -> list[Problem]:
    """One problem per receipt id the rule lists that no manifest interaction for this rule has."""
    entries = catalog.manifest.by_id()
    out = []
    for j, rid in enumerate(rule.receipts):
        entry = entries.get(rid)
        if entry is None or entry.rule != rule.id:
            place = rule.receipt_places[j] if j < len(rule.receipt_places) else None
            out.append(_about_rule(rule, "rule-without-receipt", _dangling(rid, entry, catalog), place))
    return out


def _dangling(rid: str, entry: Entry | None, catalog: Catalog) -> str:
    """Why a receipt id backs nothing: the manifest lacks it, or says it backs another rule."""
    if entry is None:
        return f"{rid!r}, which is not in {catalog.manifest.file}"
    return f"{rid!r}, which the manifest says backs {entry.rule or 'no rule'}"


def _receipts(catalog: Catalog, out: list[Problem]) -> None:
    for rule in catalog.rules.rules:
        interactions = catalog.backing(rule.id)
        out.extend(_unbacked(catalog, rule, interactions))
        # a template that names no place in any receipt checks nothing: say so (place_named fires
        # the rule here, in this frame: recorded bodies may nest near the recursion limit)
        if interactions and rule.location and not any(place_named(rule, i.body, i.texts)[1] for i in interactions):
            out.append(_about_rule(rule, "wrong-place",
                                   f"no location template ({', '.join(rule.location)}) names a place in any receipt"))


def _unbacked(catalog: Catalog, rule: Rule, interactions: list[Interaction]) -> list[Problem]:
    """Dangling receipt ids of a rule, or that no interaction backs it when none dangles (each
    dangling id already says why nothing backs the rule)."""
    dangling = dangling_receipts(catalog, rule)
    if interactions or dangling:
        return dangling
    return [_about_rule(rule, "rule-without-receipt", "no manifest interaction backs this rule")]


def _files(catalog: Catalog, out: list[Problem], secrets: list[str]) -> None:
    """Each cassette and the manifest scanned for key shapes and for the values of this
    environment's credential variables (a cassette recorded with ``$OPENAI_API_KEY`` in a header
    whose name hides it holds no key shape, only the value)."""
    folder = Path(catalog.folder)
    described = {(e.cassette, e.index) for e in catalog.manifest.entries}
    for rel in catalog.files:
        path = folder / rel
        found = [Problem("secret", rel, str(f), Place(str(path))) for f in scan(path.read_bytes(), secrets)]
        pairs = read_cassette(path)
        out += found + _secrets_inside(path, rel, pairs, secrets) + _unlisted(path, rel, len(pairs), described)
    out += _manifest_secrets(Path(catalog.manifest.file), secrets)


def _manifest_secrets(manifest: Path, secrets: list[str]) -> list[Problem]:
    if not manifest.is_file():
        return []
    return [Problem("secret", manifest.name, str(f), Place(str(manifest)))
            for f in scan(manifest.read_bytes(), secrets)]


def _secrets_inside(path: Path, rel: str, pairs: list[tuple[Any, dict[str, Any]]],
                    secrets: list[str]) -> list[Problem]:
    """Credentials in the recorded bodies, decoded and decompressed (see ``_bodies``)."""
    return [Problem("secret", rel, f"{f} of {where}", Place(str(path), None, where))
            for where, data in _bodies(pairs) for f in scan(data, secrets)]


def _unlisted(path: Path, rel: str, count: int, described: set[tuple[str, int]]) -> list[Problem]:
    return [Problem("unlisted", f"{rel}#{n}", "no manifest entry describes this interaction",
                    Place(str(path), None, f"interactions[{n}]")) for n in range(count) if (rel, n) not in described]


INFLATE_LIMIT = 64 * 1024 * 1024  # a recorded answer past this once decompressed is not scanned further


def _inflate(data: bytes, encoding: str) -> bytes | None:
    """``data`` decompressed (gzip or deflate, by header or gzip's magic), at most INFLATE_LIMIT bytes."""
    wbits = WBITS.get("gzip" if data[:2] == b"\x1f\x8b" else encoding)
    if wbits is None:
        return None
    try:
        return zlib.decompressobj(wbits).decompress(data, INFLATE_LIMIT)
    except zlib.error:
        return None


def _bodies(pairs: list[tuple[Any, dict[str, Any]]]) -> Iterator[tuple[str, bytes]]:
    """Each recorded body as the bytes it stands for: ``!!binary`` decoded, gzip/deflate undone.
    The raw file scan sees only base64 text there, where no key shape shows."""
    for n, (req, resp) in enumerate(pairs):
        sides = ((f"interactions[{n}].request.body", req.body, req.headers),
                 (f"interactions[{n}].response.body.string", resp["body"]["string"], resp.get("headers", {})))
        for where, body, headers in sides:
            data = _as_bytes(body)
            yield where, data
            inflated = _inflate(data, _content_encoding(headers))
            if inflated is not None:
                yield f"{where} (decompressed)", inflated


def _as_bytes(body: Any) -> bytes:
    """A recorded body as vcrpy holds it (bytes, text or nothing) as bytes."""
    return body if isinstance(body, bytes) else str(body or "").encode("utf-8", "surrogatepass")


def _content_encoding(headers: Any) -> str:
    """The first Content-Encoding a recorded side names (vcrpy keeps values as lists), lowercased."""
    for name, value in dict(headers).items():  # a Mapping: read_cassette checked the response's
        if str(name).lower() == "content-encoding":
            first = value[0] if isinstance(value, list) and value else value
            return str(first).strip().lower()
    return ""


def _provenance(i: Interaction, out: list[Problem]) -> None:
    """A transcribed receipt is never presented as live; a rejection is never synthetic."""
    live = i.entry.kind == "recorded"
    if not live and "recorded" in (i.entry.request_body, i.entry.envelope):
        out.append(_about(i, "provenance",
                           f"{i.entry.kind} interaction claims a recorded body or envelope; only "
                           "kind: recorded may (use reported, reconstructed or as-reported)"))
    if i.entry.outcome == "rejected" and i.entry.kind == "synthetic":
        out.append(_about(i, "provenance", "a rejection must be transcribed or recorded, not synthetic"))


def check_catalog(catalog: Catalog, secrets: list[str] | None = None) -> CheckResult:
    """Every problem of ``catalog``; ``secrets``: the credential values to look for (default: this
    environment's credential-like variables, ``harness._common.secrets.env_secrets``)."""
    secrets = env_secrets() if secrets is None else secrets
    result = CheckResult(rules=len(catalog.rules.rules), interactions=len(catalog.interactions))
    rules = catalog.rules.by_id()
    for i in catalog.interactions:
        _provenance(i, result.problems)
        if i.entry.outcome == "rejected":
            result.rejected += 1
            _rejected(i, rules, result.problems)
        else:
            result.accepted += 1
            _accepted(i, catalog, result.problems)
    _receipts(catalog, result.problems)
    _files(catalog, result.problems, secrets)
    return result
