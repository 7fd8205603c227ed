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
from pathlib import Path
from typing import Any

from harness import supervise
from harness.canonical import canonical_bytes
from harness.capture.answers import cassette_answer, suite_catalog
from harness.capture.server import CaptureServer, Exchange, Request
from harness.errors import HarnessError
from harness.model import ErrorInfo, Observation, Outcome, PipelineSpec, Side
from harness.reject.cassettes import Catalog

__all__ = ["ClientPipeline", "client_side"]


def client_side(raw: dict[str, Any], role: str, root: Path) -> PipelineSpec:
    """The spec of a client side as declared in suite.yaml, paths resolved against ``root``."""
    where = str(root.resolve())
    return PipelineSpec(
        kind="client", command=tuple(raw["client"]), name=raw.get("name", role),
        cwd=str((root / raw["cwd"]).resolve()) if "cwd" in raw else where, setup=raw.get("setup"),
        env=tuple(sorted(raw.get("env", {}).items())), root=where,
        base_url_env=raw["base_url_env"], base_path=raw.get("base_path", ""), observe=raw.get("observe", "body"),
    )


def _request(exchange: Exchange, body: Any) -> dict[str, Any]:
    """The whole request as a value: header names lower-cased, the Host header (it carries the
    capture server's port, new every run) left out, credentials already removed by the server."""
    req = exchange.request
    headers = {k.lower(): v for k, v in req.headers if k.lower() != "host"}
    return {"method": req.method, "path": req.path, "query": req.query, "headers": dict(sorted(headers.items())),
            "body": body}


def _no_answer(_request: Request) -> tuple[int, bytes, str | None, str | None]:
    return 501, b'{"harness": "no lane is being called"}', None, None


class ClientPipeline:
    """One client, one capture server per process (started on first call, in the worker)."""

    def __init__(self, spec: PipelineSpec) -> None:
        self.spec = spec
        self.server: CaptureServer | None = None
        self.catalog: Catalog | None = None
        self.last: list[Exchange] = []
        self.said = ""  # the client's stdout on its last call: what it made of the answer

    def _catalog(self) -> Catalog | None:
        if self.catalog is None and self.spec.root:
            with contextlib.suppress(HarnessError):  # no cassettes: every answer says so (501)
                self.catalog = suite_catalog(self.spec.root)
        return self.catalog

    def call(self, pipeline_input: Any, lane: dict[str, Any], *, case_id: str, lane_id: str, side: Side,
             timeout: float | None, packed: bytes | None = None) -> Observation:
        start = time.perf_counter()

        def outcome(kind: Outcome, etype: str, message: str) -> Observation:
            return Observation(case_id, lane_id, side, kind, error=ErrorInfo(etype, message[:4000]),
                               duration_s=time.perf_counter() - start)

        if self.server is None:
            self.server = CaptureServer(_no_answer)
        catalog = self._catalog()
        self.server.answer = cassette_answer(catalog, lane) if catalog is not None else _no_answer
        self.server.take()
        base_url = self.server.url + self.spec.base_path
        assert self.spec.base_url_env
        env = {**os.environ, **dict(self.spec.env), self.spec.base_url_env: base_url}
        line = json.dumps({"input": pipeline_input, "lane": lane, "base_url": base_url}) + "\n"
        try:
            done = supervise.run(list(self.spec.command), timeout=timeout or 3600.0,
                                 cwd=self.spec.cwd or self.spec.root, env=env, stdin=line.encode())
        except OSError as exc:
            return outcome("error", "ClientStart", f"could not start {' '.join(self.spec.command)}: {exc}")
        if done.timed_out:
            self.server.take()
            return outcome("timeout", "Timeout", f"the client did not exit within {timeout:g} s; it was killed")
        self.last = self.server.take()
        self.said = done.stdout.decode("utf-8", "replace")[-4000:]
        if not self.last:
            tail = done.stderr.decode("utf-8", "replace").strip()[-1500:]
            return outcome("error", "NoRequest", f"the client exited with code {done.code} without sending "
                                                 f"a request" + (f"; stderr: {tail}" if tail else ""))
        try:
            body = json.loads(self.last[0].request.body)
        except ValueError as exc:
            return outcome("error", "BodyNotJSON", f"the request body is not JSON: {exc}")
        value = _request(self.last[0], body) if self.spec.observe == "request" else body
        return Observation(case_id, lane_id, side, "ok", wire=canonical_bytes(value), value=value,
                           duration_s=time.perf_counter() - start)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
