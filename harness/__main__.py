"""``python -m harness``: the same as the ``harness`` console script."""

from harness._cli.main import main

main()
