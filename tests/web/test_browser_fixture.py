"""The browser fixtures themselves: a local page loads, runs script, and its requests are seen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from support.browser import PHONE, BrowserPage


def test_file_page_runs_script_and_records_its_only_request(
    browser_page: BrowserPage, tmp_path: Path
) -> None:
    page_file = tmp_path / "p.html"
    page_file.write_text(
        "<!doctype html><p id=verdict>x</p>"
        "<script>document.getElementById('verdict').dataset.valid = 'true'</script>",
        encoding="utf-8",
    )
    browser_page.open(page_file)
    assert browser_page.verdict()["valid"] == "true"
    assert browser_page.requests == [page_file.resolve().as_uri()]
    assert browser_page.errors == []


def test_phone_page_has_phone_width(
    new_browser_page: Callable[..., BrowserPage], tmp_path: Path
) -> None:
    page_file = tmp_path / "p.html"
    page_file.write_text("<!doctype html><p>x</p><script>throw new Error('boom')</script>")
    phone = new_browser_page(viewport=PHONE)
    phone.open(page_file)
    assert phone.page.evaluate("window.innerWidth") == PHONE["width"]
    assert any("boom" in error for error in phone.errors)
