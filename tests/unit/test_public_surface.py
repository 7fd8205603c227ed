"""The public surface: what ``__all__`` promises exists, every module declares one, and nothing a
user reads or copies (the docs, the README, the examples, the bundled suite, the built-in
subjects' distribution) imports anything else from the package."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import harness
from harness._exitcodes import ExitCode, combine

REPO = Path(__file__).resolve().parents[2]

# Modules outside ``harness`` itself that users import (docs/stability.md's Python API row).
PUBLIC_MODULES = {"harness": set(harness.__all__), "harness.adapter": {"serve"}}
# Modules users name as pytest plugins (``-p``, ``pytest_plugins``, the pytest11 entry point).
PYTEST_PLUGINS = {"harness.pins.plugin", "harness.reject.pytest_plugin"}
# The places users read or copy code from; what they import is what the surface must hold.
USER_FACING = ("README.md", "docs", "examples", "cases", "subjects")
_SKIP = {"node_modules", "target", "__pycache__", ".venv"}
_TEXT = {".md", ".py", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".sh"}

_FROM = re.compile(r"^[ \t]*from\s+(harness(?:\.\w+)*)\s+import[ \t]+(?:\(([^)]*)\)|([\w \t,]+))", re.MULTILINE)
_IMPORT = re.compile(r"^\s*import\s+(harness(?:\.\w+)+)", re.MULTILINE)
_PLUGIN = re.compile(r"(?:-p\s+|pytest_plugins\s*=\s*\[?\s*[\"'])(harness(?:\.\w+)+)")


def all_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(harness.__path__, "harness.")
                  if m.name not in ("harness.__main__",))


def user_files() -> list[Path]:
    out: list[Path] = []
    for name in USER_FACING:
        top = REPO / name
        found = [top] if top.is_file() else [p for p in top.rglob("*") if p.is_file()]
        out += [p for p in found if p.suffix in _TEXT and not _SKIP & set(p.relative_to(REPO).parts)]
    return sorted(out)


def _python_imports(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """(module, names) of every harness import in Python source, multi-line ones included."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "harness":
            out.append((node.module, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Import):
            out += [(a.name, ()) for a in node.names if a.name.split(".")[0] == "harness"]
    return out


def harness_imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".py":
        return _python_imports(text)
    found = [(m, tuple(n.strip() for n in (inside or names).split(",") if n.strip()))
             for m, inside, names in _FROM.findall(text)]
    return found + [(m, ()) for m in _IMPORT.findall(text)]


def outside_the_surface(path: Path) -> list[str]:
    where = path.relative_to(REPO)
    bad = []
    for module, names in harness_imports(path):
        public = PUBLIC_MODULES.get(module)
        if public is None:
            bad.append(f"{where}: {module}")
        else:
            bad += [f"{where}: {module}.{n}" for n in names if n not in public]
    text = path.read_text(encoding="utf-8", errors="replace")
    bad += [f"{where}: plugin {m}" for m in _PLUGIN.findall(text) if m not in PYTEST_PLUGINS]
    return bad


def test_every_public_name_imports_and_there_are_at_most_forty() -> None:
    assert len(harness.__all__) <= 40, len(harness.__all__)
    assert harness.__all__ == sorted(harness.__all__, key=str), "keep __all__ sorted"
    for module, names in PUBLIC_MODULES.items():
        loaded = importlib.import_module(module)
        for name in names:
            assert getattr(loaded, name) is not None, f"{module}.{name}"
    for name in PYTEST_PLUGINS:
        importlib.import_module(name)


def test_the_docs_examples_bundled_suite_and_subjects_import_only_public_names() -> None:
    files = user_files()
    assert any(p.parts[-3:-1] == ("wire_harness_subjects", "openai_strict_resume") for p in files)
    bad = [line for path in files for line in outside_the_surface(path)]
    assert not bad, "imports from outside the public surface:\n" + "\n".join(bad)


def test_the_scan_finds_a_private_import_in_every_form_it_reads(tmp_path: Path) -> None:
    # the scanner itself: each form a private import takes in a doc or a module is caught
    (tmp_path / "x.py").write_text("from harness import Subject\nfrom harness._model import (\n    Lane,\n)\n"
                                   "import harness._load\n")
    (tmp_path / "x.md").write_text("```python\nfrom harness._common.selectors import location\n\nX = 1\n"
                                   "from harness import (\n    Lane,\n    Case,\n)\n```\n"
                                   "`pytest -p harness._mutate.engine`\n")
    found = [hit for p in (tmp_path / "x.py", tmp_path / "x.md") for hit in harness_imports(p)]
    assert found == [("harness", ("Subject",)), ("harness._model", ("Lane",)), ("harness._load", ()),
                     ("harness._common.selectors", ("location",)), ("harness", ("Lane", "Case"))]
    assert _PLUGIN.findall((tmp_path / "x.md").read_text()) == ["harness._mutate.engine"]


def test_docs_stability_lists_every_public_name_and_their_number() -> None:
    text = (REPO / "docs" / "stability.md").read_text(encoding="utf-8")
    api = text[text.index("## The Python API"):]
    listed = set(re.findall(r"`(\w+)(?:\(|`)", api)) & set(harness.__all__)
    assert sorted(listed) == sorted(harness.__all__)
    assert f"the {len(harness.__all__)} names in `harness.__all__`" in text


def test_every_name_in_the_package_all_is_importable() -> None:
    for name in harness.__all__:
        assert hasattr(harness, name), name


def test_every_module_declares_all_and_each_name_exists() -> None:
    missing, broken = [], []
    for name in all_modules():
        module = importlib.import_module(name)
        if not hasattr(module, "__all__"):
            missing.append(name)
            continue
        broken += [f"{name}.{n}" for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"modules without __all__: {missing}"
    assert not broken, f"__all__ names that do not exist: {broken}"


def test_exit_codes_are_the_documented_numbers() -> None:
    assert {c.name: int(c) for c in ExitCode} == {
        "OK": 0, "DIVERGENCE": 1, "BAD_INPUT": 2, "KNOWN_REJECTION": 3, "MUTANTS_ESCAPED": 4, "DRIFT": 5,
        "INTERNAL": 70, "INTERRUPTED": 130, "TERMINATED": 143,
    }


def test_the_lowest_non_zero_exit_code_wins() -> None:
    assert combine(ExitCode.OK, ExitCode.MUTANTS_ESCAPED, ExitCode.KNOWN_REJECTION) == ExitCode.KNOWN_REJECTION
    assert combine(ExitCode.OK, ExitCode.OK) == ExitCode.OK
