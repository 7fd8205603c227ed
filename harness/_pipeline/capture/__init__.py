"""The wire itself: a loopback capture server and clients pointed at it.

    server     CaptureServer: a real HTTP server on 127.0.0.1 recording each request exactly
               (credentials removed) and answering it
    answers    cassette_answer(catalog, lane): the recorded rejection when a rule fires on the
               body, else the recorded acceptance
    pipeline   ClientPipeline: a ``{client: [...], base_url_env: ...}`` side; its observation is
               the request body the client sent
    gateway    GatewayPipeline: a ``{gateway: litellm-proxy, package: ...}`` side: the gateway on
               loopback, its upstream the capture server; observes what it forwards upstream
    envelope   check_envelope: the gateway's answer against the recorded gateway envelopes
    transport  TransportPipeline: a ``{call: ..., transport: httpx2}`` side run in this process on
               a MockTransport that records and answers like the server
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness._pipeline.capture.answers import cassette_answer, suite_catalog
from harness._pipeline.capture.pipeline import ClientPipeline, client_side
from harness._pipeline.capture.server import REMOVED, CaptureServer, Exchange, Request

if TYPE_CHECKING:
    from harness._model import PipelineSpec
    from harness._pipeline.capture.gateway import GatewayPipeline
    from harness._pipeline.capture.transport import TransportPipeline

__all__ = ["REMOVED", "CaptureServer", "ClientPipeline", "Exchange", "Request", "cassette_answer", "client_side",
           "open_client", "suite_catalog"]


def open_client(spec: PipelineSpec) -> ClientPipeline | TransportPipeline | GatewayPipeline:
    """The runner of a ``client`` side: in process on a MockTransport, or a program on the wire."""
    if spec.gateway:
        from harness._pipeline.capture.gateway import GatewayPipeline

        return GatewayPipeline(spec)
    if spec.transport:
        from harness._pipeline.capture.transport import TransportPipeline

        return TransportPipeline(spec)
    return ClientPipeline(spec)
