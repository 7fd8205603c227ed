"""Put mutated code where the pins will call it, inside the engine process.

Two mechanisms, one a mutant kind:
- operator targets: a meta-path finder loads each target module from its trampolined source
  (written by the planner) the first time anything imports it; ``__file__`` stays the original
  path so code that reads files beside itself still works, while code objects carry the
  mutated file's name so tracebacks and coverage point at the code that really ran;
- declared mutants: in the forked child, the site module's changed source is executed again
  into the live module, and every other module holding one of its old functions, classes or
  containers (``from site import f``) is rebound to the new object.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["MutatedSourceFinder", "exec_in_place", "install"]


class _Loader(importlib.abc.Loader):
    def __init__(self, original: str, mutated: str) -> None:
        self.original = original
        self.mutated = mutated

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        text = Path(self.mutated).read_text(encoding="utf-8")
        code = compile(text, self.mutated, "exec", dont_inherit=True)
        module.__file__ = self.original
        exec(code, module.__dict__)


class MutatedSourceFinder(importlib.abc.MetaPathFinder):
    """module name -> (original file, mutated file)."""

    def __init__(self, modules: Mapping[str, tuple[str, str]]) -> None:
        self.modules = dict(modules)

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        entry = self.modules.get(fullname)
        if entry is None:
            return None
        original, mutated = entry
        is_package = Path(original).name == "__init__.py"
        return importlib.util.spec_from_file_location(
            fullname, original, loader=_Loader(original, mutated),
            submodule_search_locations=[str(Path(original).parent)] if is_package else None,
        )


def install(modules: Mapping[str, tuple[str, str]]) -> MutatedSourceFinder:
    """Install the finder first on sys.meta_path. Targets already imported are refused loudly."""
    early = sorted(name for name in modules if name in sys.modules)
    if early:
        raise RuntimeError(f"mutation targets imported before the mutants were installed: {early}")
    finder = MutatedSourceFinder(modules)
    sys.meta_path.insert(0, finder)
    return finder


def _rebindable(value: object, module_name: str) -> bool:
    """Objects the module itself made, that another module may hold by reference."""
    if isinstance(value, types.FunctionType | type):
        return getattr(value, "__module__", None) == module_name
    if isinstance(value, list | dict | set | frozenset | tuple):
        return len(value) > 0
    return False


def _adopt_function(before: types.FunctionType, after: types.FunctionType) -> bool:
    """Give ``before`` the behaviour of ``after`` in place, so every holder of it sees the change."""
    if before.__code__.co_freevars or after.__code__.co_freevars:
        return False
    before.__code__ = after.__code__
    before.__defaults__ = after.__defaults__
    before.__kwdefaults__ = after.__kwdefaults__
    return True


def _adopt(module: types.ModuleType, owner: str, before: object, after: object) -> bool:
    """Keep ``before`` (a function, a trampoline or a class of the module) with ``after``'s code."""
    from harness._mutate.mutmut_adapter import retarget_trampoline

    if isinstance(after, types.FunctionType):
        return retarget_trampoline(module, owner, before, after) or (
            isinstance(before, types.FunctionType) and _adopt_function(before, after))
    if isinstance(after, type) and isinstance(before, type) and before.__module__ == module.__name__:
        _adopt_class(module, owner, before, after)
        return True
    return False


def _adopt_class(module: types.ModuleType, owner: str, before: type, after: type) -> None:
    """Give the class ``before`` every attribute of ``after``: methods keep their identity and take
    the new code where they can, anything else is set anew."""
    for name, value in vars(after).items():
        if name in ("__dict__", "__weakref__"):
            continue
        if not _adopt(module, f"{owner}.{name}", vars(before).get(name), value):
            setattr(before, name, value)


def exec_in_place(module_name: str, source: str, filename: str) -> None:
    """Run ``source`` as the new body of the live module ``module_name``.

    Functions and classes keep their identity and take the new code (``__code__`` swapped, a
    trampoline's original retargeted), so a reference held anywhere (``from site import f``,
    a cache of resolved callables) runs the mutant. Other values that changed are rebound in
    every module namespace that held the old object. Raises whatever compiling or executing the
    source raises: the caller reports the mutant as unviable (it does not import).
    """
    module = sys.modules.get(module_name) or importlib.import_module(module_name)
    code = compile(source, filename, "exec", dont_inherit=True)
    old = dict(module.__dict__)
    exec(code, module.__dict__)
    moved = _settle(module, module_name, old)
    if moved:
        _rebind_elsewhere(module, moved)


def _rebind_elsewhere(module: types.ModuleType, moved: dict[int, tuple[object, object]]) -> None:
    """Rebind the moved values in every other loaded module that holds one (``from site import X``)."""
    for other in list(sys.modules.values()):
        namespace = getattr(other, "__dict__", None)
        if other is not module and isinstance(namespace, dict):
            _rebind(namespace, moved)


def _settle(module: types.ModuleType, module_name: str, old: dict[str, object]) -> dict[int, tuple[object, object]]:
    """After the new body ran: each changed function or class adopted in place (the old object
    kept, with the new code); the other changed values, by id of the old one, to rebind elsewhere."""
    moved: dict[int, tuple[object, object]] = {}
    for name, before in old.items():
        after = module.__dict__.get(name, before)
        if after is before:
            continue
        if _adopt(module, name, before, after):
            module.__dict__[name] = before
        elif _rebindable(before, module_name):
            moved[id(before)] = (before, after)
    return moved


def _rebind(namespace: dict[str, object], moved: dict[int, tuple[object, object]]) -> None:
    """Point every name of ``namespace`` that held an old value at its new one."""
    for attr, value in list(namespace.items()):
        entry = moved.get(id(value))
        if entry is not None and entry[0] is value:
            namespace[attr] = entry[1]
