"""``python -m harness``: the same as the ``harness`` console script."""

from harness.cli.main import main

main()
