"""Command-line interface: ``main.py`` is the group, each other module one subcommand."""

__all__: list[str] = []
