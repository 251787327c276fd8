"""How many names in a list would be refused beside another name of the list.

A name is refused when it collides with a registered name
(:func:`twenty48_replay.fairplay.names.claim_keys`).  For a list of real names (one
per line, or the first tab-separated column), this counts the names that
collide with some other name of the list by the folded key alone (the rule
before "AIice" was caught) and by any claimed key (the rule now), and prints
examples of pairs only the new keys join, by kind of key.  Names the rules
refuse outright (:func:`~twenty48_replay.fairplay.names.check_name`) are skipped.

    python tests/bench/bench_name_collisions.py FILE [FILE ...] [--examples 8]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

from twenty48_replay.fairplay.names import NameRefusedError, check_name, claim_keys, name_key

MAX_NAMES = 5_000_000


def read_names(paths: list[Path]) -> list[str]:
    """Distinct names from the files (a header line named ``name`` is skipped)."""
    names: dict[str, None] = {}
    for path in paths:
        with path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                name = line.rstrip("\n").split("\t", 1)[0]
                if name and name != "name":
                    names[name] = None
                if len(names) >= MAX_NAMES:
                    return list(names)
    return list(names)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--examples", type=int, default=8)
    options = parser.parse_args()
    started = time.perf_counter()
    names = []
    for name in read_names(options.files):
        try:
            names.append(check_name(name))
        except NameRefusedError:
            continue
    holders: dict[str, list[str]] = defaultdict(list)
    for name in names:
        for key in claim_keys(name):
            holders[key].append(name)
    folded = {name: name_key(name) for name in names}
    colliding_before = {name for group in holders.values() for name in group if len(group) > 1} & {
        name for name in names if len(holders[f"f:{folded[name]}"]) > 1
    }
    colliding_now = {name for group in holders.values() if len(group) > 1 for name in group}
    only_new: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key, group in holders.items():
        if len(group) < 2 or key.startswith("f:"):
            continue
        for other in group[1:]:
            if folded[other] != folded[group[0]]:
                only_new[key[:2]].append((group[0], other))
    elapsed = time.perf_counter() - started
    print(f"{len(names):,} names accepted by check_name ({elapsed:.1f} s)")
    print(f"collide with another by the folded key alone: {len(colliding_before):,}")
    print(f"collide with another by any claimed key:      {len(colliding_now):,}")
    for kind, pairs in sorted(only_new.items()):
        print(f"pairs only {kind} joins: {len(pairs):,}; e.g.")
        for first, second in pairs[: options.examples]:
            print(f"    {first!r} ~ {second!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
