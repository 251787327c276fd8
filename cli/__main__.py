"""``python -m twenty48_cli`` runs the same program as the ``twenty48`` script."""

from twenty48_cli.app import main

main()
