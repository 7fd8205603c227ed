"""The subjects that ship with wire-harness, as a distribution of their own.

Each sub-package is one subject (a pair of pipelines and the ``Subject`` value naming them),
registered under the ``harness.subjects`` entry-point group by this distribution's
``pyproject.toml``. They import only ``harness``'s public names (``harness.__all__``): a third
party could have written them, and ``tests/unit/test_public_surface.py`` holds them to that.
"""

__all__: list[str] = []
