"""validate, first revision: the declared type looked up in a set, as the first PR had it.

Kept as the ``old`` pipeline so the differential run shows what the 3.1 fix changed:
``schema.get("type") in SCALARS`` raises TypeError when the type is a list (unhashable), so a
path *through* a value typed ``["object", "null"]`` stops validate with a TypeError; and
``where_empty`` on an array typed ``["array", "null"]`` is refused, since the list is not
``"array"``. Its messages also put "a" before every type ("a object").
"""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.openapi_omit.walk import SCALARS, Walker

__all__ = ["FirstWalker"]


class FirstWalker(Walker):
    """The first revision's reading of ``type``: the raw value, whatever it is."""

    def kind(self, schema: dict[str, Any]) -> Any:
        return schema.get("type")

    def is_scalar(self, schema: dict[str, Any]) -> bool:
        return schema.get("type") in SCALARS  # TypeError for a 3.1 type list: the recorded bug

    def named(self, kind: Any) -> str:
        return f"a {kind}"
