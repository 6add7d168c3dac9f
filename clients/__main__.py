"""``python -m clients`` is the ``refinery`` command."""

from clients.cli import main

main()
