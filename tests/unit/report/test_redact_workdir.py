"""The shell's working directories are not credentials: an error or a report naming a file under
the current folder keeps its path (found running `harness merge` from /tmp/hx/h: the message read
"shard folder='[REDACTED:environment-credential]'", the very place the user needed)."""

from __future__ import annotations

from harness._common.redact import Redactor
from harness._common.secrets import env_secrets

ENV = {"PWD": "/home/alice/project", "OLDPWD": "/home/alice/elsewhere", "DB_PWD": "hunter2-hunter2",
       "ANTHROPIC_API_KEY": "sk-ant-api03-abcdefghijklmnop"}


def test_pwd_and_oldpwd_are_not_taken_for_secrets_but_a_password_variable_still_is() -> None:
    assert env_secrets(ENV) == ["hunter2-hunter2", "sk-ant-api03-abcdefghijklmnop"]


def test_a_path_under_the_current_folder_survives_redaction_while_a_key_beside_it_does_not() -> None:
    text = Redactor(env_secrets(ENV)).text("/home/alice/project/plan.json: bad; key hunter2-hunter2")
    assert text == "/home/alice/project/plan.json: bad; key [REDACTED:environment-credential]"
