"""The live re-probe: re-send recorded bodies to the real endpoint and report drift.

Each rejected interaction backing a rule of the lane's validators is re-sent (the lane's model
replacing the recorded one) to the lane's own host, and the answer is compared with the record:

    holds            still refused, and the rule's message pattern still matches
    passes-now       accepted now: the rule no longer holds                    (drift)
    message-changed  still refused, but the message no longer matches        (drift)
    new-rejection    a body no rule covers was refused                       (drift)
    accepted         a body no rule covers was accepted
    error            no answer to compare (a redirect, a refused connection, a timeout, a 5xx):
                     the probe could not check this one, which is never a green result

Everything is recorded through vcrpy into a scratch folder by the secret-refusing persister;
credential headers are filtered before recording; redirects are never followed; a request to
any host but the lane's is refused before it leaves. Each request has a whole deadline and each
answer a size cap, decompressed or not (``harness._reject.bounded``); the run has a deadline too,
past which the rest are not sent (each one "error": could not check). An answer that carries a
credential (a provider echoing the key) is compared but not recorded, and its item says so; the
rest of the run is recorded as usual. Every detail is redacted before it is written or printed.
"""

from __future__ import annotations

import copy
import datetime
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

import httpx
import vcr
import yaml

from harness._common.canonical import canonical_bytes
from harness._common.redact import Redactor
from harness._common.secrets import SECRET_HEADERS, env_secrets, scan
from harness._errors import ConfigError
from harness._model import Lane
from harness._reject.bounded import MAX_ANSWER_BYTES, AnswerRefused, bounded_transport, deadline
from harness._reject.cassettes import Catalog, Interaction, response_texts
from harness._reject.persist import atomic_write, safe_persister
from harness._reject.verdicts import findings_for_body

__all__ = ["DRIFT", "KEY_ENV", "UNCHECKED", "ProbeItem", "auth_headers", "probe", "summarize", "unchecked"]

DRIFT = ("passes-now", "message-changed", "new-rejection")
# outcomes that compared nothing: a drift check that could not check must not pass as "no drift"
UNCHECKED = ("error",)
KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "google": "GEMINI_API_KEY",
           "gemini": "GEMINI_API_KEY", "deepseek": "DEEPSEEK_API_KEY", "mistral": "MISTRAL_API_KEY",
           "groq": "GROQ_API_KEY", "openrouter": "OPENROUTER_API_KEY", "fireworks": "FIREWORKS_API_KEY"}


@dataclass(frozen=True)
class ProbeItem:
    id: str
    rule: str | None
    outcome: str
    status: int | None
    detail: str = ""
    refused: str = ""  # why this answer was not recorded (a credential in it), when it was not


def auth_headers(provider: str, key: str) -> dict[str, str]:
    if provider == "anthropic":
        return {"x-api-key": key, "anthropic-version": "2023-06-01"}
    if provider in ("google", "gemini"):
        return {"x-goog-api-key": key}
    return {"Authorization": f"Bearer {key}"}


def _origin(lane: Lane) -> tuple[str, str, int | None]:
    """The lane's (scheme, host, port): all a probe ever sends to or names.

    A ``user:password@`` in base_url is refused outright: it would ride along in every request
    URL and land in the cassette, the manifest and any error message. The refusal itself names
    the lane, never the URL.
    """
    if not lane.base_url:
        raise ConfigError("lane.base_url", lane.id, "a lane with a base_url to probe")
    base = urlsplit(lane.base_url)
    port = _port(base)
    if "@" in base.netloc:  # a user name, a password or both: urlsplit reads them from before an @
        raise ConfigError(f"lanes[{lane.id}].base_url", "(a URL with credentials in it, not shown)",
                          "a base_url without user:password@; the key comes from the environment")
    if base.scheme not in ("http", "https") or not base.hostname or port == -1:
        raise ConfigError(f"lanes[{lane.id}].base_url", lane.id, "an http(s) URL with a host and a numeric port")
    return base.scheme, base.hostname.lower(), port


def _port(base: SplitResult) -> int | None:
    """The URL's port, None when it names none, -1 when it is not a number in range."""
    try:
        return base.port
    except ValueError:
        return -1


def _netloc(host: str, port: int | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return shown if port is None else f"{shown}:{port}"


def _url(lane: Lane, recorded_uri: str) -> str:
    scheme, host, port = _origin(lane)
    prefix = urlsplit(lane.base_url or "").path.rstrip("/")
    path = urlsplit(recorded_uri).path
    joined = path if prefix and path.startswith(prefix) else prefix + path
    return f"{scheme}://{_netloc(host, port)}{joined}"


def _host_guard(lane: Lane) -> Any:
    scheme, host, port = _origin(lane)
    allowed = (host, port or (443 if scheme == "https" else 80))

    def guard(request: httpx.Request) -> None:
        url = request.url
        if (url.host.lower(), url.port or (443 if url.scheme == "https" else 80)) != allowed:
            # name the host only: the URL may carry userinfo or a key in its query
            raise ConfigError("probe target", url.host, f"the lane's host {_netloc(host, port)}")

    return guard


def _scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    headers = response.get("headers", {})
    for name in list(headers):
        if name.lower() in SECRET_HEADERS:
            del headers[name]
    return response


def _body_for(lane: Lane, body: Any) -> Any:
    sent = copy.deepcopy(body)
    if isinstance(sent, dict) and "model" in sent and lane.model:
        sent["model"] = lane.model
    return sent


def _judge(catalog: Catalog, interaction: Interaction | None, response: httpx.Response | None,
           error: str) -> tuple[str, str]:
    if response is None:
        return "error", error
    unusable = _unusable(response.status_code)
    if unusable:
        return "error", unusable
    ok = 200 <= response.status_code < 300
    if interaction is None:
        return _new_body_verdict(response, ok)
    if ok:
        return "passes-now", f"recorded {interaction.status}, now {response.status_code}"
    return _compare(catalog.rules.by_id()[interaction.entry.rule or ""].pattern, interaction, response)


def _new_body_verdict(response: httpx.Response, ok: bool) -> tuple[str, str]:
    """A body no rule covers: accepted, or refused (a rejection no rule knows yet)."""
    return ("accepted", "") if ok else ("new-rejection", _gist(response))


def _gist(response: httpx.Response) -> str:
    """The answer's text on one line, cut to 300 characters: enough to see what it said."""
    return " ".join(response.text.split())[:300]


def _unusable(status: int) -> str:
    """Why an answer with this status says nothing about the body (a redirect, a server failing,
    even for a new body); "" when it can be judged."""
    if 300 <= status < 400:
        return f"redirect {status} not followed"
    if status >= 500:
        return f"server error {status}"
    return ""


def _compare(rule_pattern: Any, interaction: Interaction, response: httpx.Response) -> tuple[str, str]:
    texts = response_texts(response.text)
    if any(rule_pattern.search(t) for t in texts):
        return "holds", ""
    return "message-changed", _gist(response)


def _send(client: httpx.Client, url: str, body: Any, seconds: float) -> tuple[httpx.Response | None, str]:
    try:
        with deadline(seconds, "request"):
            return client.post(url, content=canonical_bytes(body)), ""
    except ConfigError:
        raise
    except AnswerRefused as exc:
        return None, str(exc)
    except httpx.HTTPError as exc:
        return None, f"{type(exc).__name__}: {exc}"


class _Refusals:
    """vcrpy hooks that drop an interaction holding a credential and remember what was found."""

    def __init__(self, secrets: list[str]) -> None:
        self.secrets = secrets
        self.found: list[str] = []

    def _check(self, data: bytes, what: str) -> bool:
        kinds = sorted({f.kind for f in scan(data, self.secrets)})
        if kinds:
            self.found.append(f"the {what} held {', '.join(kinds)}")
        return not kinds

    def request(self, request: Any) -> Any:
        body = request.body if isinstance(request.body, bytes) else str(request.body or "").encode()
        return request if self._check(body + request.uri.encode(), "request") else None

    def response(self, response: dict[str, Any]) -> dict[str, Any] | None:
        response = _scrub_response(response)
        body = response.get("body", {}).get("string", b"")
        data = (body if isinstance(body, bytes) else str(body).encode()) + json.dumps(
            response.get("headers", {}), default=str).encode()
        return response if self._check(data, "answer") else None

    def take(self) -> str:
        said, self.found = self.found, []
        return "; ".join(said)


def _refuse_old_cassette(cassette: Path) -> None:
    """vcrpy would load it and append: a broken one ends the run, an old one shifts every index."""
    if cassette.exists() or cassette.is_symlink():
        raise ConfigError("--out", str(cassette.parent),
                          f"a folder without {cassette.name} (an earlier probe's recording: move it away)")


def _targets(catalog: Catalog, lane: Lane, bodies: Iterable[Any]) -> list[tuple[Interaction | None, Any]]:
    """The recorded rejections backing the lane's rules, then the distinct bodies no rule covers."""
    todo: list[tuple[Interaction | None, Any]] = [(i, i.body) for i in _recorded(catalog, lane)]
    seen: set[bytes] = set()
    for body in bodies:
        key = canonical_bytes(body)
        if key not in seen and not findings_for_body(catalog, lane, body):
            seen.add(key)
            todo.append((None, body))
    return todo


def _recorded(catalog: Catalog, lane: Lane) -> list[Interaction]:
    """The recorded rejections backing a rule of the lane's validators."""
    rules = {r.id for r in catalog.rules.for_lane(lane)}
    return [i for i in catalog.interactions if i.entry.outcome == "rejected" and i.entry.rule in rules]


def _recorder(refusals: _Refusals, secrets: list[str]) -> vcr.VCR:
    """vcrpy recording everything, credentials filtered, through the secret-refusing persister."""
    recorder = vcr.VCR(record_mode="all", filter_headers=list(SECRET_HEADERS),
                       filter_query_parameters=["key", "api_key", "access_token"],
                       before_record_request=refusals.request, before_record_response=refusals.response,
                       decode_compressed_response=True)
    recorder.register_persister(safe_persister(secrets))
    return recorder


def _client(lane: Lane, key: str, timeout: float, max_bytes: int) -> httpx.Client:
    """A client that never follows a redirect, bounds every answer and sends only to the lane's host."""
    headers = {"Content-Type": "application/json", **auth_headers(lane.provider, key)}
    return httpx.Client(follow_redirects=False, timeout=timeout, headers=headers,
                        transport=bounded_transport(max_bytes, timeout), event_hooks={"request": [_host_guard(lane)]})


def probe(catalog: Catalog, lane: Lane, out: Path, key: str, *, bodies: Iterable[Any] = (),
          limit: int | None = None, timeout: float = 30.0, today: str | None = None,
          run_deadline: float | None = None, max_bytes: int = MAX_ANSWER_BYTES) -> list[ProbeItem]:
    """Probe ``lane`` live; record into ``out``; return one item per request planned.

    ``timeout`` bounds each request whole (connect to last byte), ``run_deadline`` the run: a
    request not sent in time is an "error" item (could not check)."""
    if not key:
        raise ConfigError("provider key", "(empty)", "the provider's key in the environment")
    _origin(lane)  # refuse a base_url with credentials before anything is recorded or sent
    cassette = out / f"{lane.id}.yaml"
    _refuse_old_cassette(cassette)
    secrets = [key, *env_secrets()]
    refusals = _Refusals(secrets)
    todo = _targets(catalog, lane, bodies)[:limit]
    ends = time.monotonic() + run_deadline if run_deadline is not None else None
    with _recorder(refusals, secrets).use_cassette(str(cassette)), _client(lane, key, timeout, max_bytes) as client:
        items = [_one(catalog, lane, client, refusals, interaction, body, timeout, ends, n)
                 for n, (interaction, body) in enumerate(todo)]
    items = _redacted(items, secrets)
    _write_manifest(out, lane, items, today or datetime.date.today().isoformat(), secrets)
    return items


def _redacted(items: list[ProbeItem], secrets: list[str]) -> list[ProbeItem]:
    """The items with every secret taken out of their details, before anything writes them."""
    clean = Redactor(secrets)
    return [ProbeItem(i.id, i.rule, i.outcome, i.status, clean.text(i.detail), i.refused) for i in items]


def _one(catalog: Catalog, lane: Lane, client: httpx.Client, refusals: _Refusals, interaction: Interaction | None,
         body: Any, timeout: float, ends: float | None, n: int) -> ProbeItem:
    """One request, its answer judged; never sent when the run's deadline has passed."""
    name, rule, uri = _planned(catalog, lane, interaction, n)
    left = timeout if ends is None else min(timeout, ends - time.monotonic())
    if left <= 0:
        return ProbeItem(name, rule, "error", None, "not sent: the run's deadline passed")
    response, error = _send(client, _url(lane, uri), _body_for(lane, body), left)
    outcome, detail = _judge(catalog, interaction, response, error)
    refused = refusals.take()
    return ProbeItem(name, rule, outcome, response.status_code if response is not None else None, detail,
                     f"not recorded: {refused}" if refused else "")


def _planned(catalog: Catalog, lane: Lane, interaction: Interaction | None, n: int) -> tuple[str, str | None, str]:
    """(item id, rule, recorded URI) of a request: a recorded interaction's, or the ``n``-th new body's."""
    if interaction is None:
        return f"new-{n}", None, _default_uri(catalog, lane)
    return interaction.entry.id, interaction.entry.rule, interaction.uri


def _default_uri(catalog: Catalog, lane: Lane) -> str:
    for i in catalog.interactions:
        if i.entry.validator in lane.fronts:
            return i.uri
    return lane.base_url or ""


def _manifest_entry(lane: Lane, item: ProbeItem, status: int, index: int, today: str) -> dict[str, Any]:
    """The scratch manifest's entry for one recorded answer (``status``: the item's)."""
    entry: dict[str, Any] = {
        "id": f"{item.id}-probe-{today}", "cassette": f"{lane.id}.yaml", "index": index,
        "validator": lane.fronts[0] if lane.fronts else lane.provider,
        "outcome": "rejected" if status >= 400 else "accepted",
        "provenance": {"kind": "recorded", "date": today, "model": lane.model,
                       "sdk": f"httpx {httpx.__version__} (harness probe)",
                       "host": _netloc(*_origin(lane)[1:]), "lane": lane.id},
    }
    return {**entry, **_judged(item, status)}


def _judged(item: ProbeItem, status: int) -> dict[str, str]:
    """What an entry adds for the answer: the rule a refusal backs, the drift it showed."""
    extra: dict[str, str] = {}
    if item.rule and status >= 400:
        extra["rule"] = item.rule
    if item.outcome in DRIFT:
        extra["drift"] = f"{item.outcome}: {item.detail}"
    return extra


def _probe_report(lane: Lane, items: list[ProbeItem], today: str) -> dict[str, Any]:
    return {"lane": lane.id, "date": today, "drift": len(_with(items, DRIFT)),
            "could_not_check": len(unchecked(items)), "not_recorded": sum(1 for i in items if i.refused),
            "items": [asdict(i) for i in items]}


def _write_manifest(out: Path, lane: Lane, items: list[ProbeItem], today: str, secrets: list[str]) -> None:
    """A manifest for the scratch folder (recorded live) and the drift report, both scanned."""
    entries: list[dict[str, Any]] = []
    for item in items:
        # nothing answered, or the answer held a credential: nothing was recorded for it
        if item.status is not None and not item.refused:
            entries.append(_manifest_entry(lane, item, item.status, len(entries), today))
    manifest = yaml.safe_dump({"version": 1, "interactions": entries}, sort_keys=False, allow_unicode=True)
    atomic_write(out / "manifest.yaml", manifest.encode(), secrets)
    report = _probe_report(lane, items, today)
    atomic_write(out / "probe-report.json", json.dumps(report, indent=2).encode(), secrets)


def unchecked(items: Iterable[ProbeItem]) -> list[ProbeItem]:
    """The requests that got no answer to compare with the record (see UNCHECKED)."""
    return _with(items, UNCHECKED)


def _with(items: Iterable[ProbeItem], outcomes: tuple[str, ...]) -> list[ProbeItem]:
    return [i for i in items if i.outcome in outcomes]


def summarize(items: Iterable[ProbeItem]) -> Mapping[str, int]:
    counts: dict[str, int] = {}
    for item in items:
        counts[item.outcome] = counts.get(item.outcome, 0) + 1
    return counts
