"""``python -m twenty48_cli`` runs the same program as the ``twenty48`` script."""

from .app import main

main()
