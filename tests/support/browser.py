"""Headless Chromium for tests: pytest fixtures driving Debian's chromium through Playwright.

The browser is the SYSTEM one (``/usr/bin/chromium``, or ``TWENTY48_CHROMIUM``):
``playwright install`` is never run, so the tests download nothing.  Without a
browser (or without the ``playwright`` package) the tests skip with that reason,
unless ``TWENTY48_REQUIRE_BROWSER`` is set (``.ci/run`` sets it), in which case
they fail: CI must really run them.

conftest.py registers this module as a plugin, so any test can ask for:

- ``chromium``: one launched Browser per test module (closed after the module,
  so Playwright's private event loop never outlives the tests that used it);
- ``browser_page``: a fresh context + page (desktop size) as a :class:`BrowserPage`,
  which records every request the page makes and every JavaScript error;
- ``new_browser_page``: a factory for more pages, e.g. phone-sized ones.

Playwright is imported lazily, inside the fixtures, so collecting the other
tests never pays for it.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

REQUIRE_VAR = "TWENTY48_REQUIRE_BROWSER"
PATH_VAR = "TWENTY48_CHROMIUM"
DEFAULT_CHROMIUM = "/usr/bin/chromium"

# Flags from the house rules: no GPU, no sandbox (containers), and nothing that
# phones home (background networking, component updates, sync), so that a
# "no network request" assertion only sees what the page itself asks for.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# How long a page may take to show its verdict in a test (the benchmark, not
# this limit, measures speed: tests never assert timings).
VERDICT_TIMEOUT_MS = 30_000


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_VAR):
        pytest.fail(f"{reason}, but {REQUIRE_VAR} is set")
    pytest.skip(reason)


def chromium_path() -> str:
    """The system Chromium to drive, or skip/fail the test when there is none."""
    wanted = os.environ.get(PATH_VAR) or DEFAULT_CHROMIUM
    found = shutil.which(wanted)
    if found is None:
        _unavailable(f"no Chromium at {wanted} (install Debian's chromium, or set {PATH_VAR})")
    assert found is not None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -e '.[test]')")
    return found


def launch_chromium(playwright: Any) -> Browser:
    """Launch the system Chromium headless with the house flags (also used by bench scripts)."""
    browser: Browser = playwright.chromium.launch(
        executable_path=chromium_path(), headless=True, args=list(CHROMIUM_FLAGS)
    )
    return browser


@dataclass
class BrowserPage:
    """A page plus what it did: every request URL, console errors and uncaught exceptions."""

    page: Page
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def open(self, target: Path | str) -> None:
        """Navigate to a local file (Path) or a URL (str) and wait for the load event."""
        url = target.resolve().as_uri() if isinstance(target, Path) else target
        self.page.goto(url, wait_until="load")

    def verdict(self, timeout_ms: float = VERDICT_TIMEOUT_MS) -> dict[str, str | None]:
        """Wait until ``#verdict`` has ``data-valid``, then return its data-* fields and text."""
        self.page.wait_for_selector("#verdict[data-valid]", state="attached", timeout=timeout_ms)
        element = self.page.locator("#verdict")
        return {
            "valid": element.get_attribute("data-valid"),
            "score": element.get_attribute("data-score"),
            "max_tile": element.get_attribute("data-max-tile"),
            "moves": element.get_attribute("data-moves"),
            "text": element.text_content(),
        }

    def wait_for(self, expression: str, timeout_ms: float = VERDICT_TIMEOUT_MS) -> Any:
        """Poll a JavaScript expression until it is truthy; returns its value.

        Playwright's ``wait_for_function`` evaluates its predicate with
        ``new Function``, which a strict Content-Security-Policy (no
        'unsafe-eval', as our pages have) refuses; ``page.evaluate`` goes
        through the DevTools protocol, which the policy does not govern.
        """
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            value = self.page.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"not true within {timeout_ms:.0f} ms: {expression}")
            self.page.wait_for_timeout(20)

    def screenshot(self, path: Path | str, *, full_page: bool = True) -> Path:
        """Save a PNG (for a person to look at); returns its path."""
        target = Path(path)
        self.page.screenshot(path=str(target), full_page=full_page)
        return target


def _watch(page: Page) -> BrowserPage:
    watched = BrowserPage(page)
    page.on("request", lambda request: watched.requests.append(request.url))
    page.on("pageerror", lambda error: watched.errors.append(f"pageerror: {error}"))
    page.on(
        "console",
        lambda message: (
            watched.errors.append(f"console.{message.type}: {message.text}")
            if message.type == "error"
            else None
        ),
    )
    return watched


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """One headless system Chromium for the tests of a module."""
    chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def new_browser_page(chromium: Browser) -> Iterator[Callable[..., BrowserPage]]:
    """Factory: ``new_browser_page(viewport=PHONE)`` gives a fresh context + watched page."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int] | None = None, **context_options: Any) -> BrowserPage:
        context = chromium.new_context(viewport=viewport or DESKTOP, **context_options)  # type: ignore[arg-type]
        contexts.append(context)
        return _watch(context.new_page())

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def browser_page(new_browser_page: Callable[..., BrowserPage]) -> BrowserPage:
    """A fresh desktop-sized page in its own context (no cookies or storage shared)."""
    return new_browser_page()
