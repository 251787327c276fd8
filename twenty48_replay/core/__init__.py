"""The rules and the record: everything ``schema/SPEC.md`` specifies, and nothing else.

Floor by floor, from the bottom (each module imports only from the floors
below it; ``pyproject.toml`` holds the contract that ``lint-imports`` checks):

* ``i18n``, ``text``, ``rows``, ``timestamps``, ``workers``: languages,
  escaping for terminals, the packed rows and their tables, clock readings,
  worker processes;
* ``reasons`` and ``errors``: why a record fails, as codes and as text;
* ``native`` (which engine runs: the compiled ``_core`` or pure Python) and
  ``fair`` (commitment, seed derivation, canonical bytes, times);
* ``board`` and ``rng``: slides and merges, the spawn RNG;
* ``game``, then ``engine`` (the fast replay loop) and ``record`` (the format);
* ``fair_check`` (the fair-play verdict), ``replay`` (replay and verify),
  ``timeline`` (random access to a replay's steps).

The public names are re-exported by :mod:`twenty48_replay` itself.
"""
