"""Pin stage: case files as pytest items (``plugin``), the pin kinds (``declarative``), in-process
observations for pins (``cache``), and running a suite's pins in a child pytest (``run``)."""

__all__: list[str] = []
