"""Rebuild the bundled cassettes from receipts.jsonl, deterministically.

For each rule, one cassette ``<validator>/<rule id>.yaml`` holds one interaction per receipt it
lists: a request body rebuilt to carry the reported trigger (placed at the index the message
names, clean tools elsewhere) and the response as the source showed it (status, envelope,
message). The manifest says each is ``transcribed`` with its source URL and date, that the
request body is ``reconstructed`` and whether the envelope is the one reported or the provider's
documented shape. A few ``accepted`` interactions (clean bodies) are marked ``synthetic``.
"""

from __future__ import annotations

import ast
import copy
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from harness._common.canonical import canonical_bytes
from harness._common.secrets import ensure_clean, env_secrets
from harness._common.selectors import compile_selector
from harness._errors import ConfigError, InputError, Place
from harness._plugins import registered_wires, wire_for_validator
from harness._reject.cassettes import cassette_text, response_texts
from harness._reject.manifest import MANIFEST_NAME
from harness._reject.persist import atomic_write
from harness._reject.rules import Rule, RuleSet
from harness._reject.template import extract
from harness._wires import DEFAULT_WIRE, WIRES, Wire, envelope_for

__all__ = ["build_catalog", "load_receipts", "merge_patch"]

_SENTINEL = "__HARNESS_MESSAGE__"
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 422: "Unprocessable Entity",
            500: "Internal Server Error"}
ACCEPTED_WIRES = ("anthropic", "openai-chat", "gemini")


def load_receipts(path: Path) -> dict[str, dict[str, Any]]:
    """receipts.jsonl by id; InputError naming the line of a broken record."""
    out: dict[str, dict[str, Any]] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(Place(str(path)), "UTF-8 text, one JSON object a line", str(exc)) from None
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            rec = _receipt(Place(str(path), n), line)
            out[rec["id"]] = rec
    return out


def _receipt(place: Place, line: str) -> dict[str, Any]:
    """One line of receipts.jsonl: an object with a string id."""
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError) as exc:
        why = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
        raise InputError(place, "one JSON object a line", why) from None
    if not isinstance(rec, dict):
        raise InputError(place, "a receipt object with a string id", type(rec).__name__)
    if not isinstance(rec.get("id"), str):
        raise InputError(place, "a receipt object with a string id", f"id={rec.get('id')!r}")
    return rec


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: objects merge, ``null`` deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def _override(base: Any, extra: Any) -> Any:
    """Deep merge where ``extra`` wins and null is a value (a trigger may patch with null)."""
    if not (isinstance(base, dict) and isinstance(extra, dict)):
        return copy.deepcopy(extra)
    out = copy.deepcopy(base)
    for key, value in extra.items():
        out[key] = _override(out[key], value) if key in out else copy.deepcopy(value)
    return out


def _trigger(rule: Rule, rid: str) -> dict[str, Any]:
    merged = _override(dict(rule.trigger), dict(rule.triggers.get(rid, {})))
    return merged if isinstance(merged, dict) else {}


def _indices(rule: Rule, wire: Wire, texts: list[str], trig: Mapping[str, Any]) -> list[int]:
    if "at" in trig:
        return list(trig["at"])
    return _named_indices(rule, wire, texts) or [0]


def _named_indices(rule: Rule, wire: Wire, texts: list[str]) -> list[int]:
    """The tool indices the response names at the wire's index hole, in the order first named."""
    found: list[int] = []
    for template in rule.location:
        for named in extract(template, texts):
            value = named.get(wire.index_hole, "")  # every hole of a match holds text
            if value.isdigit() and int(value) not in found:
                found.append(int(value))
    return found


def _container_for(step: str | int) -> list[Any] | dict[str, Any]:
    """What holds the next step: a list for an index, an object for a key."""
    return [] if isinstance(step, int) else {}


def _put(body: dict[str, Any], path: tuple[str | int, ...], value: Any) -> None:
    node: Any = body
    for i, step in enumerate(path[:-1]):
        nxt = path[i + 1]
        if isinstance(node, dict):
            node = node.setdefault(step, _container_for(nxt))
        else:
            while len(node) <= int(step):
                node.append(_container_for(nxt))
            node = node[int(step)]
    node[path[-1]] = value


def _set(value: Any, assignments: Mapping[str, Any]) -> Any:
    """Set each selector path to its value verbatim (a merge patch cannot write null or {})."""
    for path, new in assignments.items():
        steps = [s[1] for s in compile_selector(path)]
        node = value
        for step in steps[:-1]:
            node = node[step]
        node[steps[-1]] = copy.deepcopy(new)
    return value


def rebuild_body(rule: Rule, wire: Wire, texts: list[str], trig: Mapping[str, Any]) -> dict[str, Any]:
    """A body in ``wire``'s shape carrying the trigger at the places the response names."""
    at = _indices(rule, wire, texts, trig)
    count = int(trig.get("tools", max(at) + 1 if at else 1))
    body = copy.deepcopy(wire.base)
    if count:
        _put(body, wire.tools_path, _tools(wire, trig, at, count))
    if "body" in trig:
        body = merge_patch(body, trig["body"])
    return body


def _tools(wire: Wire, trig: Mapping[str, Any], at: list[int], count: int) -> list[Any]:
    """``count`` clean tools, the trigger patched into those at the indices ``at``."""
    tools = [wire.clean(i) for i in range(count)]
    for i in at:
        if i < count:
            tools[i] = _set(merge_patch(tools[i], trig.get("tool", {})), trig.get("set", {}))
    return tools


def _fill(value: Any, message: str) -> Any:
    if isinstance(value, dict):
        return {k: _fill(v, message) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, message) for v in value]
    if isinstance(value, str) and _SENTINEL in value:
        return _fill_text(value, message)
    return value


def _json_container(text: str) -> Any | None:
    """``text`` parsed when it is a JSON object or array, else None."""
    inner = text.strip()
    if inner[:1] not in ("{", "["):
        return None
    try:
        return json.loads(inner)
    except ValueError:
        return None


def _fill_text(value: str, message: str) -> str:
    """The message in place of the mark; a string holding JSON stays JSON (the message escaped),
    laid out as it was."""
    parsed = _json_container(value)
    if parsed is None:
        return value.replace(_SENTINEL, message)
    indent = 2 if "\n " in value else None
    return json.dumps(_fill(parsed, message), indent=indent, ensure_ascii=False) + (
        "\n" if value.endswith("\n") else "")


def _placeholders_left(value: Any) -> bool:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):  # a Python repr with ``...`` elided: not a whole body
        return True
    return any(mark in text for mark in ("<path>", "<per-field", "<lines>", "<url>"))


def response_body(receipt: Mapping[str, Any]) -> tuple[Any, str]:
    """(error body, "as-reported" | "documented-shape") for a receipt."""
    message = receipt["error_text"]
    reported = _reported_envelope(str(receipt.get("envelope", "")))
    if reported is not None:
        return _fill(reported, message), "as-reported"
    return envelope_for(str(receipt.get("provider_family", "")), message), "documented-shape"


def _reported_envelope(envelope: str) -> Any | None:
    """The envelope a receipt shows, read as JSON or a Python repr, the message's place marked;
    None when it is not a whole body."""
    if envelope.strip()[:1] not in ("{", "["):
        return None
    text = envelope.replace("<text>", _SENTINEL)
    for parse in (json.loads, ast.literal_eval):
        try:
            parsed = parse(text)
        except (ValueError, SyntaxError):
            continue
        if isinstance(parsed, dict | list) and not _placeholders_left(parsed):
            return parsed
    return None


def _wire_of(rule: Rule) -> Wire:
    # plugins' wires (the harness.wires entry points) beside the built-in ones
    wires = registered_wires()
    name = rule.wire or DEFAULT_WIRE.get(rule.validator) or wire_for_validator(rule.validator)
    if name not in wires:
        raise InputError(Place(rule.file, rule.line, "wire"), f"one of {', '.join(wires)}", repr(name))
    return wires[name]


def _pair(uri: str, wire: Wire, body: Any, status: int, response: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    request = {"method": "POST", "uri": uri, "body": canonical_bytes(body).decode(),
               "headers": {k: [v] for k, v in wire.headers}}
    reply = {"status": {"code": status, "message": _REASONS.get(status, "Error")},
             "headers": {"Content-Type": ["application/json"]},
             "body": {"string": canonical_bytes(response).decode()}}
    return request, reply


def _entry(rule: Rule, receipt: Mapping[str, Any], cassette: str, index: int, envelope: str) -> dict[str, Any]:
    prov = {"kind": "transcribed", "source": receipt.get("source", ""), "source_url": receipt["source_url"],
            "date": receipt["date"], "via": receipt.get("via", ""),
            "confidence": receipt.get("verbatim_confidence", "low")}
    entry = {"id": receipt["id"], "cassette": cassette, "index": index, "validator": rule.validator,
             "outcome": "rejected", "rule": rule.id, "provider": receipt.get("provider", ""),
             "endpoint": receipt.get("endpoint", ""), "request_body": "reconstructed",
             "envelope": envelope, "drift": rule.drift, "notes": receipt.get("notes", ""),
             "provenance": prov}
    return {k: v for k, v in entry.items() if v != ""}


def _receipt_of(rule: Rule, rid: str, receipts: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any]:
    """The receipt ``rule`` lists as ``rid``: it exists and shows an HTTP status."""
    receipt = receipts.get(rid)
    if receipt is None:
        raise InputError(Place(rule.file, rule.line, "receipts"), "receipt ids from receipts.jsonl", repr(rid))
    if receipt.get("status") is None:
        raise InputError(Place(rule.file, rule.line, "receipts"), "receipts with a known HTTP status",
                         f"{rid} (status not shown by its source)")
    return receipt


def _litellm_error(prefix: str, response: Any, status: Any) -> dict[str, Any]:
    """LiteLLM's proxy error: its exception prefix, then the upstream body as text."""
    return {"error": {"message": f"litellm.BadRequestError: {prefix} - {canonical_bytes(response).decode()}",
                      "type": None, "param": None, "code": str(status)}}


Pair = tuple[dict[str, Any], dict[str, Any]]


def _transcribed(rule: Rule, wire: Wire, rid: str, receipt: Mapping[str, Any], cassette: str, index: int,
                 secrets: tuple[str, ...]) -> tuple[dict[str, Any], Pair]:
    """One receipt as a manifest entry and a cassette interaction: the body rebuilt, the answer as shown."""
    trig = _trigger(rule, rid)
    response, envelope = response_body(receipt)
    texts = [receipt["error_text"], *response_texts(canonical_bytes(response).decode())]
    body = rebuild_body(rule, wire, texts, trig)
    if "wrap" in trig:
        response, envelope = _litellm_error(trig["wrap"], response, receipt["status"]), "documented-shape"
    entry = _entry(rule, receipt, cassette, index, envelope)
    pair = _pair(trig.get("uri", wire.uri), wire, body, int(receipt["status"]), response)
    # a receipt is public text, but one pasted with a key in it must not become a cassette:
    # scan per receipt so the refusal names the receipt, not only the file
    ensure_clean(canonical_bytes([pair, entry]), f"receipt {rid} -> {cassette}", secrets)
    return entry, pair


def _rule_cassette(rule: Rule, receipts: Mapping[str, Mapping[str, Any]], manifest: list[dict[str, Any]],
                   secrets: tuple[str, ...] = ()) -> str:
    wire = _wire_of(rule)
    cassette = f"{rule.validator}/{rule.id}.yaml"
    pairs: list[Pair] = []
    for rid in rule.receipts:
        entry, pair = _transcribed(rule, wire, rid, _receipt_of(rule, rid, receipts), cassette, len(pairs), secrets)
        manifest.append(entry)
        pairs.append(pair)
    return cassette_text(pairs) if pairs else ""


def _accepted(manifest: list[dict[str, Any]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in ACCEPTED_WIRES:
        wire = WIRES[name]
        body = copy.deepcopy(wire.base)
        _put(body, wire.tools_path, [wire.clean(0), wire.clean(1)])
        note = ("not a recording: an example of a clean body the catalog's rules accept; the "
                "response body is a placeholder, never a provider's answer")
        response = {"harness_synthetic": "accepted example: not a recording"}
        cassette = f"accepted/{name}.yaml"
        out[cassette] = cassette_text([_pair(wire.uri, wire, body, 200, response)])
        validators = sorted(v for v, w in DEFAULT_WIRE.items() if w == name)
        manifest.append({"id": f"accepted-{name}", "cassette": cassette, "index": 0,
                         "validator": validators[0], "outcome": "accepted", "request_body": "synthetic",
                         "envelope": "synthetic", "provenance": {"kind": "synthetic", "note": note}})
    return out


def _old_entries(out: Path) -> list[dict[str, Any]]:
    path = out / MANIFEST_NAME
    if not path.is_file():
        return []
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    entries = loaded.get("interactions", []) if isinstance(loaded, dict) else []
    return [e for e in entries if isinstance(e, dict)]


def _built_before(out: Path) -> set[str]:
    """Cassettes a previous build wrote (transcribed or synthetic): the only ones it may delete."""
    return {str(e.get("cassette")) for e in _old_entries(out)
            if e.get("provenance", {}).get("kind") in ("transcribed", "synthetic")}


def _kept_entries(out: Path, built: set[str]) -> list[dict[str, Any]]:
    """Entries a build does not own (recorded live, added by hand): carried over unchanged."""
    return [e for e in _old_entries(out) if e.get("provenance", {}).get("kind") == "recorded"
            and e.get("cassette") not in built]


def _check_inputs(receipts_paths: Sequence[Path], rules: RuleSet) -> None:
    for receipts_path in receipts_paths:
        if not receipts_path.is_file():
            raise ConfigError("--receipts", str(receipts_path), "an existing receipts.jsonl")
    if not rules.rules:
        # stale built cassettes are deleted below: with no rules that would be the whole catalog
        raise ConfigError("--rules", "(no rules)", "at least one rule (nothing was built or deleted)")


def _cassettes(rules: RuleSet, receipts: Mapping[str, Mapping[str, Any]], manifest: list[dict[str, Any]],
               secrets: tuple[str, ...]) -> dict[str, str]:
    """Every rule's cassette that has an interaction, then the accepted examples, by path."""
    files: dict[str, str] = {}
    for rule in rules.rules:
        text = _rule_cassette(rule, receipts, manifest, secrets)
        if text:
            files[f"{rule.validator}/{rule.id}.yaml"] = text
    files.update(_accepted(manifest))
    return files


def _manifest_text(manifest: list[dict[str, Any]]) -> str:
    head = {"version": 1, "description": (
        "Built by `harness cassettes build` from receipts.jsonl: transcribed public reports, "
        "request bodies reconstructed to carry each trigger. Not live recordings."),
        "interactions": manifest}
    return yaml.safe_dump(head, sort_keys=False, allow_unicode=True, width=100)


def _write(out: Path, files: Mapping[str, str], kept: list[dict[str, Any]], secrets: tuple[str, ...]) -> None:
    """Replace the previous build under ``out``: every byte is scanned before the first write or
    delete, so a refusal leaves ``out`` as it was."""
    for rel, text in files.items():
        ensure_clean(text.encode("utf-8"), f"{out / rel}", secrets)
    for stale in _built_before(out) - set(files) - {e["cassette"] for e in kept}:
        (out / stale).unlink(missing_ok=True)
    for rel, text in files.items():
        atomic_write(out / rel, text.encode("utf-8"), secrets)


def _counts(rules: RuleSet, files: Mapping[str, str], manifest: list[dict[str, Any]]) -> dict[str, int]:
    return {"rules": sum(1 for r in rules.rules if r.receipts), "cassettes": len(files) - 1,
            "interactions": len(manifest), "receipts": sum(1 for e in manifest if e["outcome"] == "rejected")}


def _all_receipts(paths: Sequence[Path]) -> dict[str, dict[str, Any]]:
    """Every receipts file's receipts by id; an id two files give is bad input naming the second."""
    out: dict[str, dict[str, Any]] = {}
    where: dict[str, Path] = {}
    for path in paths:
        for rid, rec in load_receipts(path).items():
            if rid in out:
                raise InputError(Place(str(path)), "receipt ids unique across the receipts files",
                                 f"{rid!r}, also in {where[rid]}")
            out[rid], where[rid] = rec, path
    return out


def build_catalog(receipts: Path | Sequence[Path], rules: RuleSet, out: Path) -> dict[str, int]:
    """Write every cassette and the manifest under ``out`` from one receipts file or several (the
    shared transcriptions and a project's own); returns counts. Stale builds are removed."""
    paths = [receipts] if isinstance(receipts, Path) else list(receipts)
    _check_inputs(paths, rules)
    secrets = tuple(env_secrets())
    manifest: list[dict[str, Any]] = []
    files = _cassettes(rules, _all_receipts(paths), manifest, secrets)
    kept = _kept_entries(out, set(files))
    manifest.extend(kept)
    files[MANIFEST_NAME] = _manifest_text(manifest)
    _write(out, files, kept, secrets)
    return _counts(rules, files, manifest)
