"""Pin stage: case files as pytest items (``plugin``), the pin kinds (``declarative``), what an
item checks (``check``), observations for pins (``cache``), and the stage of ``harness run``
(``run``): case-file items evaluated in-process (``collect``, ``inproc``), Python pins in a pytest
fork (``child``)."""

__all__: list[str] = []
