"""The browser side of twenty48-replay: spec v1 in JavaScript and the pages built on it.

``js/`` holds plain ES modules (no build step, no npm): the one JavaScript
implementation of schema/SPEC.md (rules, spawn RNG, record reading,
verification, fair play) plus the page code.  :mod:`.bundle` turns them into
one classic script for a self-contained page.  Nothing here imports anything
heavy: building a page must not slow down the verify path.
"""
