"""Browser figures of the HTML export (issue 11): time to verdict, time to jump.

Usage:
    python tests/bench/bench_web.py [--record tests/data/long-20000.json] [--runs 7] [--jumps 50]

Builds the self-verifying page of the record (``twenty48_replay.web.page``, what
``twenty48 export --format html`` writes), then in headless system Chromium
(tests/support/browser.py's launch, never a downloaded browser):

- opens it from ``file://`` ``--runs`` times, each in a fresh browser context,
  and prints the median and worst time from navigation to the verdict: wall
  clock from ``page.goto`` until ``#verdict[data-valid]`` exists, and in-page
  (the ``t48-verdict`` performance mark, milliseconds since navigation start);
- jumps to ``--jumps`` random steps through the slider (set value, dispatch
  ``input``, exactly what dragging does) and prints the median and max time
  per jump, measured in the page with ``performance.now()`` around the jump
  and a forced layout (``offsetHeight`` after the DOM update).

Goals (issue 11): verdict under 1 s, any jump under 50 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))

from support.browser import launch_chromium  # noqa: E402

from twenty48_replay.core.record import Record  # noqa: E402
from twenty48_replay.web.page import replay_page  # noqa: E402

JUMP_JS = """(n) => {
  const slider = document.getElementById('slider');
  const t0 = performance.now();
  slider.value = String(n);
  slider.dispatchEvent(new Event('input'));
  void document.getElementById('board').offsetHeight;  // force style + layout
  const t1 = performance.now();
  return [t1 - t0, Number(slider.value)];
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--record", type=Path, default=TESTS / "data" / "long-20000.json")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--jumps", type=int, default=50)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    record = Record.from_json(args.record.read_text(encoding="utf-8"))
    moves = len(record.moves)
    with tempfile.TemporaryDirectory() as folder:
        page_file = Path(folder) / "replay.html"
        page_file.write_text(replay_page(record), encoding="utf-8")
        size = page_file.stat().st_size
        url = page_file.as_uri()
        walls: list[float] = []
        marks: list[float] = []
        jumps: list[float] = []
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            for _run in range(args.runs):
                context = browser.new_context()
                page = context.new_page()
                started = time.perf_counter()
                page.goto(url, wait_until="commit")
                page.wait_for_selector("#verdict[data-valid]", state="attached", timeout=60_000)
                walls.append((time.perf_counter() - started) * 1000)
                marks.append(
                    page.evaluate("performance.getEntriesByName('t48-verdict')[0].startTime")
                )
                valid = page.locator("#verdict").get_attribute("data-valid")
                if not jumps:
                    rng = random.Random(48)
                    for step in (rng.randrange(moves + 1) for _ in range(args.jumps)):
                        elapsed, shown = page.evaluate(JUMP_JS, step)
                        assert shown == step, (shown, step)
                        jumps.append(elapsed)
                context.close()
            version = browser.version
            browser.close()
    print(
        f"record: {args.record.name}, {moves:,} moves; page {size:,} bytes; verdict valid={valid}"
    )
    print(f"Chromium {version} headless, {args.runs} runs")
    print(
        f"navigation -> verdict (wall clock): median {statistics.median(walls):.0f} ms, "
        f"max {max(walls):.0f} ms"
    )
    print(
        f"navigation -> verdict (in page):    median {statistics.median(marks):.0f} ms, "
        f"max {max(marks):.0f} ms"
    )
    print(
        f"jump to a random step ({len(jumps)} jumps, DOM update + layout): "
        f"median {statistics.median(jumps):.2f} ms, max {max(jumps):.2f} ms"
    )


if __name__ == "__main__":
    main()
