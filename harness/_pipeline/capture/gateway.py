"""A real gateway in the loop: ``{gateway: litellm-proxy, package: "litellm[proxy]==1.74.0"}``.

The harness provisions the gateway's package like any released version (``harness._provision``),
then, once per worker, starts a capture server (the upstream) and the gateway on loopback,
configured by a generated ``config.yaml`` whose every upstream ``api_base`` is the capture server.
Each call posts the case's tools as an OpenAI Chat body to the gateway (``model`` = the lane's,
``strict`` on each function when the lane's options say so) and observes what the gateway
forwarded upstream: the first upstream request's body, judged by the lane's fronted validators'
rules like any body. The capture server answers that request from the cassettes (the upstream's
recorded rejection when a rule fires), the gateway wraps it in its own envelope, and the answer
the client received is kept on the observation (``Observation.answer``) with the envelope check of
``harness._pipeline.capture.envelope``: does it carry the upstream's recorded rejection, in the shape the
gateway-envelope receipts show?

Start-up is the slow part (``import litellm`` and the proxy app: 20-60 s here), so the gateway is
started once per worker and kept; ``start_timeout_s`` (default 180) bounds it. The gateway and its
children end with the pipeline (``close``), with the harness, and on Ctrl-C (``harness._common.supervise``).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from harness._common import supervise
from harness._errors import SubjectError
from harness._model import Observation, PipelineSpec, Side
from harness._pipeline.capture.envelope import check_envelope
from harness._pipeline.capture.pipeline import CallPlace, lane_answer, no_answer, observed
from harness._pipeline.capture.server import CaptureServer, Exchange
from harness._provision.envs import env_python
from harness._reject.cassettes import Catalog

__all__ = ["GATEWAYS", "GatewayPipeline", "gateway_body", "gateway_side", "litellm_config"]

GATEWAYS = ("litellm-proxy",)
_CLIENT_KEY = "sk-harness-client-not-a-key"  # what the client presents to the gateway (no master key set)
_UPSTREAM_KEY = "sk-harness-upstream-not-a-key"  # what the gateway presents upstream; removed from records


def gateway_side(raw: dict[str, Any], role: str, root: Path) -> PipelineSpec:
    """The spec of a gateway side as declared in suite.yaml: its package provisioned like a
    released version, the gateway kind in ``gateway``."""
    where = str(root.resolve())
    requirements = (str(raw["package"]).strip(), *(str(r).strip() for r in raw.get("requirements", ())))
    links = tuple(link if "://" in link else str((root / link).resolve()) for link in raw.get("find_links", ()))
    return PipelineSpec(
        kind="client", gateway=str(raw["gateway"]), name=raw.get("name", ""), python=env_python(requirements),
        cwd=where, root=where, env=tuple(sorted(raw.get("env", {}).items())), requirements=requirements,
        find_links=links, index=bool(raw.get("index", True)), observe=raw.get("observe", "body"),
        start_timeout_s=float(raw.get("start_timeout_s", 180.0)),
    )


def litellm_config(upstream: str) -> str:
    """LiteLLM proxy configuration: every provider's models routed to ``upstream``, no retries
    (one upstream request per call), no key of the proxy's own."""
    # LiteLLM appends only ":generateContent" to a custom Gemini api_base, so that base names a
    # models path itself; the recorded path then says "gemini", not the lane's model (the body does)
    routes = (("anthropic", upstream), ("openai", upstream + "/v1"), ("gemini", upstream + "/v1beta/models/gemini"))
    lines = ["model_list:"]
    for provider, base in routes:
        lines += [f'  - model_name: "{provider}/*"', "    litellm_params:", f'      model: "{provider}/*"',
                  f'      api_base: "{base}"', f'      api_key: "{_UPSTREAM_KEY}"']
    lines += ["litellm_settings:", "  num_retries: 0", "  request_timeout: 60", "router_settings:",
              "  num_retries: 0", ""]
    return "\n".join(lines)


def gateway_body(pipeline_input: Any, lane: dict[str, Any]) -> dict[str, Any]:
    """The case's tools as the OpenAI Chat body a client sends to the gateway."""
    strict = bool((lane.get("options") or {}).get("strict"))
    tools = [{"type": "function", "function": {
        "name": t["name"], "description": t.get("description", ""),
        "parameters": t.get("input_schema", {"type": "object"}), **({"strict": True} if strict else {})}}
        for t in pipeline_input.get("tools", ())]
    return {"model": lane.get("model", ""), "messages": [{"role": "user", "content": "Use a tool."}], "tools": tools}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _post(url: str, body: bytes, timeout: float) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {_CLIENT_KEY}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as got:
            return int(got.status), got.read()
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read()


class _Gateway:
    """One running gateway process and its upstream capture server."""

    def __init__(self, spec: PipelineSpec) -> None:
        self.server = CaptureServer(no_answer)
        self.folder = Path(tempfile.mkdtemp(prefix="harness-gateway-"))
        (self.folder / "config.yaml").write_text(litellm_config(self.server.url), encoding="utf-8")
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        assert spec.python is not None
        program = str(Path(spec.python).parent / "litellm")
        env = {**os.environ, **dict(spec.env), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
               "LITELLM_TELEMETRY": "False"}
        self.log = open(self.folder / "gateway.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = supervise.popen([program, "--config", str(self.folder / "config.yaml"), "--host", "127.0.0.1",
                                     "--port", str(self.port)], stdout=self.log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=str(self.folder), env=env)
        self._wait(spec.start_timeout_s)

    def _wait(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()
                raise SubjectError(f"the gateway exited with code {self.proc.returncode} while starting: "
                                   f"{self.tail()}")
            try:
                with urllib.request.urlopen(self.url + "/health/liveliness", timeout=2):
                    return
            except OSError:
                time.sleep(0.3)
        tail = self.tail()
        self.stop()
        raise SubjectError(f"the gateway did not answer on {self.url} within {timeout:g} s: {tail}")

    def tail(self) -> str:
        path = self.folder / "gateway.log"
        text = path.read_bytes()[-1500:].decode("utf-8", "replace") if path.is_file() else ""
        return text.strip()

    def stop(self) -> None:
        supervise.kill_group(self.proc.pid)
        self.proc.wait()
        self.log.close()
        self.server.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class GatewayPipeline:
    """A gateway side: the gateway started on first call (in the worker) and kept warm."""

    def __init__(self, spec: PipelineSpec) -> None:
        if spec.gateway not in GATEWAYS:
            raise SubjectError(f"unknown gateway {spec.gateway!r}; known: {', '.join(GATEWAYS)}")
        self.spec = spec
        self.gateway: _Gateway | None = None
        self.catalogs: dict[str, Catalog | None] = {}
        self.last: list[Exchange] = []
        self.said: tuple[int, bytes] = (0, b"")  # the gateway's answer to the client: status, body

    def call(self, pipeline_input: Any, lane: dict[str, Any], *, case_id: str, lane_id: str, side: Side,
             timeout: float | None, packed: bytes | None = None) -> Observation:
        place = CallPlace(case_id, lane_id, side, time.perf_counter())
        if self.gateway is None:
            try:
                self.gateway = _Gateway(self.spec)
            except SubjectError as exc:
                return place.outcome("error", "GatewayStart", str(exc))
        server = self.gateway.server
        server.answer = lane_answer(self.spec.root, self.catalogs, lane)
        server.take()
        body = json.dumps(gateway_body(pipeline_input, lane)).encode()
        try:
            self.said = _post(self.gateway.url + "/v1/chat/completions", body, timeout or 120.0)
        except OSError as exc:
            return place.outcome("error", "GatewayUnreachable", f"posting to the gateway failed: {exc}")
        self.last = server.take()
        obs = observed(self.last, self.spec.observe, place, f"the gateway answered {self.said[0]} without "
                       f"forwarding a request upstream: {self.said[1][:600].decode('utf-8', 'replace')}")
        if obs.ok:
            catalog = self.catalogs.get(self.spec.root or "")
            obs.answer = check_envelope(catalog, self.spec.gateway, self.last[0], *self.said)
        return obs

    def close(self) -> None:
        if self.gateway is not None:
            self.gateway.stop()
            self.gateway = None
