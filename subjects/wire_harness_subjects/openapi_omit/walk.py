"""validate, current revision: refuse only the omit paths the success responses rule out.

A path is held against each 2xx JSON response schema of its operation and refused only when
*every* one rules it out: through a value declared as a scalar, or a name an object with
``additionalProperties: false`` does not declare; ``where_empty`` on a value declared as
something other than an array, or on an array of scalars. An undeclared name passes
(published response schemas under-declare). ``$ref`` and one level of ``allOf`` are followed;
``oneOf``/``anyOf`` are never chosen between. An OpenAPI 3.1 type list such as
``["object", "null"]`` reads as its one non-null type; a list of several rules nothing out.
Arrays met on the way are stepped through ``items``; an array that is its own ``items`` (a
YAML alias can build one) ends the walk.
"""

from __future__ import annotations

from typing import Any

from wire_harness_subjects.openapi_omit.entries import Entry

__all__ = ["SCALARS", "Walker"]

SCALARS = frozenset({"string", "number", "integer", "boolean", "null"})
_MAX_HOPS = 64


class Walker:
    """Holds one entry against one schema. ``root`` resolves local ``$ref``s (may be {})."""

    def __init__(self, root: Any = None) -> None:
        self.root = root if isinstance(root, dict) else {}

    # -- what the revisions differ in -------------------------------------------------------
    def kind(self, schema: dict[str, Any]) -> Any:
        """The declared type, or None when the schema leaves it open."""
        declared = schema.get("type")
        if isinstance(declared, list):
            others = [t for t in declared if t != "null"]
            return others[0] if len(others) == 1 and isinstance(others[0], str) else None
        return declared if isinstance(declared, str) else None

    def is_scalar(self, schema: dict[str, Any]) -> bool:
        return self.kind(schema) in SCALARS

    def named(self, kind: Any) -> str:
        text = str(kind)
        return f"an {text}" if text[:1] in "aeiou" else f"a {text}"

    # -- the walk ---------------------------------------------------------------------------
    def resolve(self, node: Any) -> Any:
        for _ in range(_MAX_HOPS):
            ref = node.get("$ref") if isinstance(node, dict) else None
            if not isinstance(ref, str):
                return node
            node = self._pointer(ref)
        return {}

    def _pointer(self, ref: str) -> Any:
        node: Any = self.root
        for raw in ref.removeprefix("#").split("/")[1:] if ref.startswith("#") else [None]:
            if raw is None or not isinstance(node, dict):
                return {}
            node = node.get(raw.replace("~1", "/").replace("~0", "~"), {})
        return node

    def facets(self, node: Any) -> list[dict[str, Any]] | None:
        """The schema and its allOf members (one level); None when oneOf/anyOf leave it open."""
        node = self.resolve(node)
        if not isinstance(node, dict):
            return []
        if "oneOf" in node or "anyOf" in node:
            return None
        out = [node]
        members = node.get("allOf")
        for member in members if isinstance(members, list) else []:
            member = self.resolve(member)
            if isinstance(member, dict) and "oneOf" not in member and "anyOf" not in member:
                out.append(member)
        return out

    def _first_kind(self, facets: list[dict[str, Any]]) -> Any:
        for f in facets:
            found = self.kind(f)
            if found is not None:
                return found
        return None

    def _through_arrays(self, node: Any) -> Any:
        """Step into ``items`` while the value is an array; None when an array is its own items."""
        seen: set[int] = set()
        while True:
            node = self.resolve(node)
            if not isinstance(node, dict) or self.kind(node) != "array":
                return node
            if id(node) in seen:
                return None
            seen.add(id(node))
            node = node.get("items", {})

    def _step(self, node: Any, segment: str, where: str) -> tuple[Any, str | None]:
        """(child schema or None to stop the walk, refusal reason or None)."""
        facets = self.facets(node)
        if facets is None:
            return None, None
        if any(self.is_scalar(f) for f in facets):
            return None, f"{where} is declared as {self.named(self._first_kind(facets))}"
        child = None
        for f in facets:
            props = f.get("properties")
            if isinstance(props, dict) and segment in props:
                child = props[segment] if child is None else child
            elif f.get("additionalProperties") is False and not f.get("patternProperties"):
                return None, f"{where} allows no property {segment!r} (additionalProperties: false)"
        if child is None:
            extra = [f["additionalProperties"] for f in facets if isinstance(f.get("additionalProperties"), dict)]
            return (extra[0] if extra else None), None
        return child, None

    def _target(self, node: Any, entry: Entry) -> str | None:
        facets = self.facets(node)
        if facets is None or entry.where_empty is None:
            return None
        declared = self._first_kind(facets)
        if declared is not None and declared != "array":
            return f"where_empty on {entry.path}, declared as {self.named(declared)}, not an array"
        items = self.facets(next((f["items"] for f in facets if "items" in f), {}))
        if declared == "array" and items and any(self.is_scalar(f) for f in items):
            kind = self._first_kind(items)
            return f"where_empty on {entry.path}, an array of {kind} values, not of objects"
        return None

    def rules_out(self, schema: Any, entry: Entry) -> str | None:
        """Why ``schema`` rules ``entry`` out, or None when the path may hold."""
        node: Any = schema
        for i, segment in enumerate(entry.segments):
            if i:
                node = self._through_arrays(node)
                if node is None:
                    return None
            where = ".".join(entry.segments[:i]) or "the result"
            node, reason = self._step(node, segment, where)
            if reason or node is None:
                return reason
        return self._target(node, entry)
