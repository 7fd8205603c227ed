"""The wire itself: a loopback capture server and clients pointed at it.

    server    CaptureServer: a real HTTP server on 127.0.0.1 recording each request exactly
              (credentials removed) and answering it
    answers   cassette_answer(catalog, lane): the recorded rejection when a rule fires on the
              body, else the recorded acceptance
    pipeline  ClientPipeline: a ``{client: [...], base_url_env: ...}`` side; its observation is
              the request body the client sent
"""

from harness.capture.answers import cassette_answer, suite_catalog
from harness.capture.pipeline import ClientPipeline, client_side
from harness.capture.server import REMOVED, CaptureServer, Exchange, Request

__all__ = ["REMOVED", "CaptureServer", "ClientPipeline", "Exchange", "Request", "cassette_answer", "client_side",
           "suite_catalog"]
