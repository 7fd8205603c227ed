"""The mutation stage's own dependency, mutmut, comes with the ``[mutate]`` extra.

``harness run`` and the pins need none of it; ``harness mutate`` and ``harness run --mutate``
check for it first and say how to install it, instead of failing deep inside the planner.
The version is pinned: ``mutmut_adapter`` uses mutmut internals that the canary test pins.
"""

from __future__ import annotations

import importlib
from importlib import metadata

from harness._errors import ConfigError

__all__ = ["MUTMUT_VERSION", "require_mutmut"]

MUTMUT_VERSION = "3.8.1"
_INSTALL = "pip install 'wire-harness[mutate]'"


def require_mutmut() -> None:
    """Raise ConfigError (exit 2) naming the install command when mutmut is missing or another version."""
    try:
        importlib.import_module("mutmut")
        importlib.import_module("libcst")
        found = metadata.version("mutmut")
    except (ImportError, metadata.PackageNotFoundError) as exc:
        raise ConfigError("mutation", f"mutmut not installed ({exc})",
                          f"mutmut {MUTMUT_VERSION}, from the [mutate] extra: {_INSTALL}") from None
    if found != MUTMUT_VERSION:
        raise ConfigError("mutation", f"mutmut {found}",
                          f"mutmut {MUTMUT_VERSION} (the adapter uses its internals): {_INSTALL}")
