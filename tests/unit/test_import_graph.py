"""The stage packages import each other in one direction only: no cycles (issue 15).

A node is a package or top-level module directly under ``harness/``; an edge is any import of one
from another, at module level or inside a function (a lazy import is still a dependency: it only
hides the cycle from the interpreter, not from a reader). The test prints the cycle it finds.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import harness

PACKAGE = Path(harness.__file__).parent


def _node(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "harness" and len(parts) > 1 else None


def _statements(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    """Every statement at any depth: an import is a statement, and statements sit only in the
    bodies of others (a function's, a branch's, a handler's, a match case's); ast.walk's visit of
    every expression cost a fifth of the test."""
    for node in nodes:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _imports(tree: ast.AST) -> Iterator[str]:
    for node in _statements(getattr(tree, "body", [tree])):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "harness":
                yield from (f"harness.{alias.name}" for alias in node.names)
            else:
                yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        source = rel.parts[0].removesuffix(".py") if len(rel.parts) > 1 or rel.name != "__init__.py" else None
        if source is None or source.startswith("__"):
            continue
        targets = graph.setdefault(source, set())
        for module in _imports(ast.parse(path.read_text(), str(path))):
            target = _node(module)
            if target is not None and target != source and not target.startswith("__"):
                targets.add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_stage_packages_import_each_other_without_a_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle between stage packages: " + " -> ".join(cycle or [])


def test_the_cycle_finder_reports_a_cycle_it_is_given() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_sees_lazy_imports_inside_functions() -> None:
    tree = ast.parse("def f():\n    from harness.x.y import z\n")
    assert list(_imports(tree)) == ["harness.x.y"]


def test_the_graph_sees_imports_in_every_kind_of_block() -> None:
    source = ("class C:\n    def m(self):\n        with x:\n            for i in y:\n                import harness.a\n"
              "try:\n    import harness.b\nexcept E:\n    import harness.c\nelse:\n    import harness.d\n"
              "finally:\n    import harness.e\n"
              "if t:\n    pass\nelif u:\n    import harness.f\n"
              "match v:\n    case 1:\n        import harness.g\n"
              "async def g():\n    async with z:\n        while w:\n            from harness import h\n")
    assert sorted(_imports(ast.parse(source))) == [f"harness.{n}" for n in "abcdefgh"]
