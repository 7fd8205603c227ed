"""What the SDK-client tests share (tests/unit/capture/, tests/e2e/test_capture_clients.py): the
``suites/sdk_clients`` scenario copied and filled in, a tool Anthropic is recorded refusing, and
the two lanes the clients play."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

__all__ = ["CLAUDE", "OPENAI", "ROOT_ONEOF", "copy_sdk_suite"]

REPO = Path(__file__).resolve().parents[1]
ROOT_ONEOF = {"name": "apply_patch", "input_schema": {
    "type": "object", "properties": {"path": {"type": "string"}, "patch": {"type": "string"}},
    "oneOf": [{"required": ["path"]}, {"required": ["patch"]}]}}
CLAUDE = {"id": "claude", "wire": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
          "fronts": ["anthropic"], "options": {}}
OPENAI = {"id": "openai-chat", "wire": "openai-chat", "provider": "openai", "model": "gpt-4.1",
          "fronts": ["openai-chat"], "options": {}}


def copy_sdk_suite(tmp_path: Path, scenarios: Path) -> Path:
    """The scenario in ``tmp_path``, pointed at the bundled cassettes and this interpreter."""
    folder = tmp_path / "sdk_clients"
    shutil.copytree(scenarios / "suites" / "sdk_clients", folder)
    text = (folder / "suite.yaml").read_text().replace("CASSETTES", str(REPO / "cassettes"))
    (folder / "suite.yaml").write_text(text.replace("PYTHON", sys.executable))
    return folder
