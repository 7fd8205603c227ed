"""Every odd value of every JSON type at every place of a rich OpenAPI document, or the place
left out: the import succeeds or refuses with one InputError naming the document. Expensive
(about 880 imports, a CPU second): the README tier puts one value of each kind (scalar, list,
object) at every place, in turn (tests/unit/sources/test_openapi_shapes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.sources.test_openapi_shapes import import_failures, variants

pytestmark = [pytest.mark.slow, pytest.mark.expensive]


def test_any_value_of_any_type_anywhere_gives_a_result_or_one_input_error(tmp_path: Path) -> None:
    documents = variants(every=True)
    assert len(documents) > 600
    failures = import_failures(tmp_path / "api.json", documents)
    assert not failures, "\n".join(failures[:20])
