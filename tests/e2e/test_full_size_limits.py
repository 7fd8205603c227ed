"""Input limits at their real, default bounds. Reaching a bound of a million values costs a
second or more of CPU each time, so these live here; tests/unit checks the same refusals at a
lower bound (tests/unit/load/test_yaml_loading.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._common.yamlsafe import load_text
from harness._errors import InputError
from tests.unit.load.test_suite_errors import errors_of, make_suite
from tests.unit.load.test_yaml_loading import ALIAS_BOMB

pytestmark = [pytest.mark.slow, pytest.mark.expensive]


def test_an_alias_bomb_is_refused_with_the_file_and_the_limit() -> None:
    with pytest.raises(InputError) as err:
        load_text(ALIAS_BOMB, "bomb.yaml")
    assert err.value.place.file == "bomb.yaml"
    assert "after expanding YAML aliases" in err.value.expected


def test_a_yaml_alias_bomb_in_a_case_file_is_one_clear_error(tmp_path: Path) -> None:
    [message] = errors_of(make_suite(tmp_path, bomb=ALIAS_BOMB))
    assert message.startswith("bomb.cases.yaml") and "after expanding YAML aliases" in message
