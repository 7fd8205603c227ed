"""Public only for its pytest plugin module, whose name is a contract (docs/stability.md)."""

__all__: list[str] = []
