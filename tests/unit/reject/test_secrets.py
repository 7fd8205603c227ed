"""The secrets scanner and the persister that refuses to write a credential."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from vcr.request import Request
from vcr.serializers import yamlserializer

from harness._common.secrets import env_secrets, scan
from harness._errors import SecretError
from harness._reject.persist import safe_persister

KEY = "zq-not-a-known-shape-0123456789abcdef"


@pytest.mark.parametrize("text", [
    b"x-api-key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
    b'"Authorization": "Bearer abcdefghijklmnop.qrstuv"',
    b"uri: https://generativelanguage.googleapis.com/v1?key=AIzaSyA1234567890abcdefghijklmnopqrstu",
    b"    set-cookie:\n    - session=1",
    b"token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    b"AKIAABCDEFGHIJKLMNOP",
])
def test_credential_shapes_are_found(text: bytes) -> None:
    assert scan(text)


def test_receipt_text_with_request_ids_is_not_a_secret() -> None:
    text = b'{"request_id":"req_011CZpoE4trUStrdcwQQmawA","message":"tools.13.custom.input_schema: no"}'
    assert scan(text) == []


@pytest.mark.parametrize("form", ["raw", "json", "base64"])
def test_an_environment_key_of_no_known_shape_is_found_in_every_form(form: str) -> None:
    data = {"raw": f"body {KEY} end".encode(), "json": f'"{KEY}\\u0000"'.encode(),
            "base64": base64.b64encode(f"{{\"k\":\"{KEY}\"}}".encode())}[form]
    assert scan(data, [KEY]), form


def test_credential_like_environment_variables_are_collected() -> None:
    assert env_secrets({"MY_API_KEY": KEY, "HOME": "/home/someone-long", "X_TOKEN": "short"}) == [KEY]


def test_the_working_folder_and_desktop_session_paths_are_not_taken_for_credentials() -> None:
    # PWD matched the credential pattern: every path under the working folder showed as
    # [REDACTED:environment-credential] in messages and in report.json
    env = {"PWD": "/home/someone/project", "OLDPWD": "/home/someone/elsewhere", "SSH_AUTH_SOCK": "/tmp/ssh-XYZ/agent.1",
           "XAUTHORITY": "/home/someone/.Xauthority", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus",
           "DB_PWD": KEY}
    assert env_secrets(env) == [KEY]


def _cassette(body: str) -> dict[str, object]:
    request = Request("POST", "https://api.example.invalid/v1", body, {})
    return {"requests": [request], "responses": [{"status": {"code": 400, "message": "x"}, "headers": {},
                                                  "body": {"string": body}}]}


def test_the_persister_refuses_a_cassette_containing_a_key_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "c.yaml"
    with pytest.raises(SecretError) as caught:
        safe_persister([KEY]).save_cassette(target, _cassette(f"echo {KEY}"), yamlserializer)
    assert KEY not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_the_persister_writes_a_clean_cassette_atomically(tmp_path: Path) -> None:
    target = tmp_path / "c.yaml"
    safe_persister([KEY]).save_cassette(target, _cassette('{"error": "nope"}'), yamlserializer)
    assert "interactions" in target.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["c.yaml"]
