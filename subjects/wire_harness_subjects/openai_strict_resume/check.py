"""The tool's own input check: a real JSON Schema validation, and the optional repair.

The check validates the arguments against the tool's *own* input schema (the author's, not the
strict one), with the draft the schema names (2020-12 when it names none). Messages are
``<json path>: <jsonschema message>``, sorted, so the output is deterministic.

``repair`` stands for the library's default ``repairToolInput``: when the check fails it drops
every null the check refused and checks again. That is why the seed's bug only shows with
repair off: the repair removes the strict null "by accident".
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

__all__ = ["Checked", "check_input"]


@dataclass(frozen=True)
class Checked:
    """The arguments after the check (repaired, when repair ran) and what the check refused."""

    arguments: Any
    errors: tuple[str, ...]


def check_input(tool: dict[str, Any], arguments: Any, repair: bool) -> Checked:
    validator = _validator(tool)
    errors = _errors(validator, arguments)
    if errors and repair:
        arguments = _repair(validator, arguments)
        errors = _errors(validator, arguments)
    return Checked(arguments, errors)


def _validator(tool: dict[str, Any]) -> Validator:
    schema = tool["input_schema"]
    cls = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        problem = f"tool {tool['name']}: input_schema is not a JSON Schema: {exc.message}"
        raise ValueError(problem) from None
    return cls(schema)


def _errors(validator: Validator, arguments: Any) -> tuple[str, ...]:
    found = {f"{err.json_path}: {err.message}" for err in validator.iter_errors(arguments)}
    return tuple(sorted(found))


def _repair(validator: Validator, arguments: Any) -> Any:
    repaired = copy.deepcopy(arguments)
    for err in validator.iter_errors(arguments):
        if err.instance is not None or not err.absolute_path:
            continue
        *parents, key = err.absolute_path
        holder = repaired
        for step in parents:
            holder = holder[step]
        if isinstance(holder, dict):
            holder.pop(key, None)
    return repaired
