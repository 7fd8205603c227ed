"""A small gateway of the project's own, started where the harness starts LiteLLM's proxy
(``<environment>/bin/litellm --config FILE --host H --port P``), for testing the gateway lane's
whole path without LiteLLM's ~100 packages (tests/e2e/test_gateway_answer.py; the real proxy is
tests/e2e/test_gateway_lane.py).

It reads the ``config.yaml`` the harness wrote, answers ``/health/liveliness``, and turns each
OpenAI Chat body posted to ``/v1/chat/completions`` into an Anthropic Messages body for the
``anthropic/*`` route's ``api_base`` (the harness's capture server). An upstream error comes back
to the client the way LiteLLM 1.74.0 wraps one: ``{"error": {"message": "litellm.BadRequestError:
AnthropicException - <upstream body>. Received Model Group=<model>", "type": null, "param": null,
"code": "<status>"}}``; an upstream success is passed on as it came."""

from __future__ import annotations

import argparse
import json
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml


def _routes(config: Path) -> dict[str, dict[str, Any]]:
    """``{"anthropic": {"api_base": ..., "api_key": ...}, ...}`` from the proxy configuration."""
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    return {m["model_name"].split("/")[0]: m["litellm_params"] for m in data["model_list"]}


def _anthropic(body: dict[str, Any]) -> dict[str, Any]:
    tools = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
              "input_schema": t["function"].get("parameters", {"type": "object"})} for t in body.get("tools", ())]
    return {"model": body["model"].split("/", 1)[1], "max_tokens": 4096, "messages": body["messages"],
            "tools": tools}


def _upstream(url: str, key: str, body: dict[str, Any]) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01"})
    try:
        with urllib.request.urlopen(request, timeout=30) as got:
            return int(got.status), got.read()
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read()


def _handler(routes: dict[str, dict[str, Any]]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send(200 if self.path == "/health/liveliness" else 404, b'"I\'m alive!"')

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            route = routes[body["model"].split("/")[0]]
            status, answer = _upstream(route["api_base"] + "/v1/messages", route["api_key"], _anthropic(body))
            if status < 400:
                self._send(status, answer)
                return
            message = (f"litellm.BadRequestError: AnthropicException - {answer.decode()}. "
                       f"Received Model Group={body['model']}\nAvailable Model Group Fallbacks=None")
            error = {"error": {"message": message, "type": None, "param": None, "code": str(status)}}
            self._send(status, json.dumps(error).encode())

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    ThreadingHTTPServer((args.host, args.port), _handler(_routes(args.config))).serve_forever()


if __name__ == "__main__":
    main()
