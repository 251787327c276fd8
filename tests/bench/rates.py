"""Rates measured on a finite number of games, with their 95% intervals.

Shared by the solver's benchmarks (bench_solver.py, bench_ntuple.py): a goal
such as "16384 in 95% of games" is read against the interval, not the point.
"""

from __future__ import annotations

import math

Z95 = 1.959964


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate ``k`` of ``n`` (0 to 1 when ``n`` is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate_text(k: int, n: int) -> str:
    """``"74 / 87 (85%; 95% interval 76-91%)"``."""
    low, high = wilson(k, n)
    share = 100 * k / n if n else 0.0
    return f"{k} / {n} ({share:.0f}%; 95% interval {100 * low:.0f}-{100 * high:.0f}%)"
