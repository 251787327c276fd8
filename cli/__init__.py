"""The ``twenty48`` command line, installed as the ``twenty48_cli`` package.

It sits on top of the ``twenty48_replay`` library and is the only place
that imports Typer; heavy dependencies are imported inside the commands
that need them, so ``twenty48 verify`` starts fast.
"""
