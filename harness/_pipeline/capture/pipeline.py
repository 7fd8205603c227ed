"""A side that is a whole client sending HTTP: ``{client: [argv...], base_url_env: OPENAI_BASE_URL}``.

For each call the harness points the client at its loopback capture server (the environment
variable ``base_url_env`` holds the server's URL plus ``base_path``), writes
``{"input": ..., "lane": ..., "base_url": ...}`` as one JSON line on the client's stdin and waits
for it to exit. The observation is the body of the first request the client sent, exactly as
sent (decoded from its bytes), so the differential, the pins and the rejection rules judge what
really went on the wire; with ``observe: request`` it is the whole request (method, path, query,
headers, body) for subjects whose ``output`` is ``value``. The server answers from the suite's
cassettes (``answers``): a body a rule fires on gets that rule's recorded rejection, so the
client's error path runs too.

    no request before the client exits    outcome ``error`` (NoRequest) with its exit code and stderr
    a body that is not JSON               outcome ``error`` (BodyNotJSON)
    no exit within the deadline           outcome ``timeout``; the client's process group is killed
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._common import supervise
from harness._common.canonical import canonical_bytes
from harness._errors import HarnessError
from harness._model import ErrorInfo, Observation, Outcome, PipelineSpec, Side
from harness._pipeline.capture.answers import cassette_answer, suite_catalog
from harness._pipeline.capture.server import Answer, CaptureServer, Exchange, Request
from harness._reject.cassettes import Catalog

__all__ = ["CallPlace", "ClientPipeline", "client_side", "lane_answer", "no_answer", "observed", "request_value"]


def client_side(raw: dict[str, Any], role: str, root: Path) -> PipelineSpec:
    """The spec of a client side as declared in suite.yaml, paths resolved against ``root``: a
    program (``client: [argv]``) or an in-process callable on a MockTransport (``call`` + ``transport``)."""
    where = str(root.resolve())
    if "transport" in raw:
        return PipelineSpec(kind="client", call=raw["call"], transport=raw["transport"], name=raw.get("name", role),
                            root=where, cwd=where, observe=raw.get("observe", "body"))
    return PipelineSpec(
        kind="client", command=tuple(raw["client"]), name=raw.get("name", role),
        cwd=str((root / raw["cwd"]).resolve()) if "cwd" in raw else where, setup=raw.get("setup"),
        env=tuple(sorted(raw.get("env", {}).items())), root=where,
        base_url_env=raw["base_url_env"], base_path=raw.get("base_path", ""), observe=raw.get("observe", "body"),
    )


def request_value(exchange: Exchange, body: Any) -> dict[str, Any]:
    """The whole request as a value: header names lower-cased, the Host header (it carries the
    capture server's port, new every run) left out, credentials already removed by the server."""
    req = exchange.request
    headers = {k.lower(): v for k, v in req.headers if k.lower() != "host"}
    return {"method": req.method, "path": req.path, "query": req.query, "headers": dict(sorted(headers.items())),
            "body": body}


def no_answer(_request: Request) -> tuple[int, bytes, str | None, str | None]:
    return 501, b'{"harness": "no lane is being called"}', None, None


@dataclass(frozen=True)
class CallPlace:
    """Where one pipeline call's observation goes, and when the call started."""

    case_id: str
    lane_id: str
    side: Side
    start: float

    def outcome(self, kind: Outcome, etype: str, message: str) -> Observation:
        return Observation(self.case_id, self.lane_id, self.side, kind, error=ErrorInfo(etype, message[:4000]),
                           duration_s=time.perf_counter() - self.start)


def observed(exchanges: list[Exchange], observe: str, place: CallPlace, why_none: str) -> Observation:
    """The observation of a call whose client sent ``exchanges``: the first request's JSON body (or
    the whole request with ``observe: request``); ``why_none`` says how the client ended without one."""
    if not exchanges:
        return place.outcome("error", "NoRequest", why_none)
    if exchanges[0].refused:
        return place.outcome("error", "RequestRefused",
                             f"the capture server refused the request: {exchanges[0].refused}")
    try:
        body = json.loads(exchanges[0].request.body)
    except ValueError as exc:
        return place.outcome("error", "BodyNotJSON", f"the request body is not JSON: {exc}")
    value = request_value(exchanges[0], body) if observe == "request" else body
    return Observation(place.case_id, place.lane_id, place.side, "ok", wire=canonical_bytes(value), value=value,
                       duration_s=time.perf_counter() - place.start)


def lane_answer(root: str | None, cache: dict[str, Catalog | None], lane: dict[str, Any]) -> Answer:
    """The cassette answer for ``lane`` from the suite at ``root`` (its catalog loaded once into
    ``cache``); a suite without cassettes answers every request with a 501 saying so."""
    if root and root not in cache:
        cache[root] = None
        with contextlib.suppress(HarnessError):
            cache[root] = suite_catalog(root)
    catalog = cache.get(root or "")
    return cassette_answer(catalog, lane) if catalog is not None else no_answer


class ClientPipeline:
    """One client, one capture server per process (started on first call, in the worker)."""

    def __init__(self, spec: PipelineSpec) -> None:
        self.spec = spec
        self.server: CaptureServer | None = None
        self.catalogs: dict[str, Catalog | None] = {}
        self.last: list[Exchange] = []
        self.said = ""  # the client's stdout on its last call: what it made of the answer

    def call(self, pipeline_input: Any, lane: dict[str, Any], *, case_id: str, lane_id: str, side: Side,
             timeout: float | None, packed: bytes | None = None) -> Observation:
        place = CallPlace(case_id, lane_id, side, time.perf_counter())
        if self.server is None:
            self.server = CaptureServer(no_answer)
        self.server.answer = lane_answer(self.spec.root, self.catalogs, lane)
        self.server.take()
        base_url = self.server.url + self.spec.base_path
        assert self.spec.base_url_env
        env = {**os.environ, **dict(self.spec.env), self.spec.base_url_env: base_url}
        line = json.dumps({"input": pipeline_input, "lane": lane, "base_url": base_url}) + "\n"
        try:
            done = supervise.run(list(self.spec.command), timeout=timeout or 3600.0,
                                 cwd=self.spec.cwd or self.spec.root, env=env, stdin=line.encode())
        except OSError as exc:
            return place.outcome("error", "ClientStart", f"could not start {' '.join(self.spec.command)}: {exc}")
        if done.timed_out:
            self.server.take()
            return place.outcome("timeout", "Timeout", f"the client did not exit within {timeout:g} s; it was killed")
        self.last = self.server.take()
        self.said = done.stdout.decode("utf-8", "replace")[-4000:]
        tail = done.stderr.decode("utf-8", "replace").strip()[-1500:]
        return observed(self.last, self.spec.observe, place, f"the client exited with code {done.code} without "
                        f"sending a request" + (f"; stderr: {tail}" if tail else ""))

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
