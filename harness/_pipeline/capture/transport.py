"""A client side run in the harness's own process through an in-process HTTP transport:
``{call: "clients:send", transport: httpx2}``.

For Python clients built on httpx or httpx2 (the openai and anthropic SDKs), nothing needs to go
over a socket: the harness hands the callable a ``MockTransport`` of the named module whose
handler records the request exactly as the capture server would (method, raw path, query, body
bytes; headers with credentials removed) and answers it from the same cassettes
(``harness._pipeline.capture.answers``). The callable is ``send(input, lane, transport)``: it builds its
client on the transport (``anthropic.Anthropic(http_client=httpx2.Client(transport=transport))``),
makes its call and returns what it made of the answer. The observation has the same shape as a
``client:`` side's (``harness._pipeline.capture.pipeline.observed``): the first request's body, or the whole
request with ``observe: request``.

A raise after the request was sent is the client's own error path (an SDK's ``APIStatusError`` on
a recorded 400): the observation is the request, and the raise is kept as what the client said.
A raise before any request is an ``error`` outcome (NoRequest) naming it; running past the deadline
is ``timeout``, as for any in-process callable (``harness._pipeline.calls``).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from harness._model import Observation, PipelineSpec, Side
from harness._pipeline.calls import call_pipeline
from harness._pipeline.capture.pipeline import CallPlace, lane_answer, no_answer, observed
from harness._pipeline.capture.server import Answer, Exchange, Request, scrub_headers, scrub_query
from harness._pipeline.inprocess import resolve_in_suite
from harness._reject.cassettes import Catalog

__all__ = ["TRANSPORTS", "Recorder", "TransportPipeline"]

TRANSPORTS = ("httpx", "httpx2")
"""The HTTP libraries whose ``MockTransport`` a side may name (the SDKs moved from httpx to httpx2)."""


def _split_raw_path(raw: bytes) -> tuple[str, str]:
    """``/v1/messages?beta=true`` -> (path, query) as sent: percent-escapes kept, as on the wire."""
    path, _, query = raw.decode("ascii", "replace").partition("?")
    return path, query


class Recorder:
    """The handler of a ``MockTransport``: records each request and answers it with ``answer``."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.answer: Answer = no_answer
        self.exchanges: list[Exchange] = []

    def __call__(self, request: Any) -> Any:
        path, query = _split_raw_path(request.url.raw_path)
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw]
        sent = Request(request.method, path, scrub_query(query), scrub_headers(headers), request.read())
        try:
            status, body, rule, receipt = self.answer(sent)
        except Exception as exc:  # the harness's bug: the client sees a 500, as from the server
            status, body, rule, receipt = 500, f'{{"harness_error": "{type(exc).__name__}"}}'.encode(), None, None
        self.exchanges.append(Exchange(sent, status, body, rule, receipt))
        return self.module.Response(status, content=body, headers={"content-type": "application/json"})

    def take(self) -> list[Exchange]:
        out, self.exchanges = self.exchanges, []
        return out

    def transport(self) -> Any:
        return self.module.MockTransport(self)


class TransportPipeline:
    """An in-process client side: its callable, one recorder, the suite's cassettes."""

    def __init__(self, spec: PipelineSpec) -> None:
        assert spec.call is not None and spec.transport in TRANSPORTS
        self.spec = spec
        self.fn: Callable[..., Any] = resolve_in_suite(spec.call, spec.root)
        self.catalogs: dict[str, Catalog | None] = {}
        self.recorder: Recorder | None = None
        self.last: list[Exchange] = []
        self.said = ""  # what the client made of the answer: its return value, or what it raised

    def _recorder(self) -> Recorder:
        if self.recorder is None:
            self.recorder = Recorder(importlib.import_module(self.spec.transport))
        return self.recorder

    def call(self, pipeline_input: Any, lane: dict[str, Any], *, case_id: str, lane_id: str, side: Side,
             timeout: float | None, packed: bytes | None = None) -> Observation:
        place = CallPlace(case_id, lane_id, side, time.perf_counter())
        try:
            recorder = self._recorder()
        except ImportError as exc:
            return place.outcome("error", "TransportMissing", f"transport {self.spec.transport!r} cannot be "
                                 f"imported in the harness's interpreter: {exc}")
        recorder.answer = lane_answer(self.spec.root, self.catalogs, lane)
        recorder.take()
        transport = recorder.transport()
        ran = call_pipeline(lambda given, its_lane: str(self.fn(given, its_lane, transport)), pipeline_input, lane,
                            case_id=case_id, lane_id=lane_id, side=side, timeout=timeout, packed=packed)
        self.last = recorder.take()
        if ran.outcome == "timeout":
            return ran
        if ran.error is not None:
            self.said = f"{ran.error.type}: {ran.error.message}"
            why = f"the client raised {self.said} without sending a request"
        else:
            self.said = str(ran.value)[-4000:]
            why = "the client returned without sending a request"
        return observed(self.last, self.spec.observe, place, why)

    def close(self) -> None:
        """Nothing to release: no socket, no child process."""
