"""The map page in a real browser (Playwright + Debian's chromium): slider, add a text, click, read the decoding."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.serving import API_KEY
from tests.paths import REPO

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "test-artifacts"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent: `make browser` installs it")
def test_map_page_in_chromium(apps: dict[str, str], sample_records: list[dict]) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS)
        try:
            context = browser.new_context(
                viewport={"width": 1100, "height": 700}, extra_http_headers={"X-API-Key": API_KEY}
            )
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{apps['map']}/")
            status = page.locator("#status")
            expect(status).to_contain_text("layout ready", timeout=60_000)

            slider = page.locator("#weights input").first
            slider.fill("0.5")  # fires `change` → POST /map/layout
            expect(status).to_contain_text("layout ready", timeout=60_000)

            page.fill("#text", sample_records[0]["abstract"])
            page.click("#add")
            expect(status).to_contain_text("placed at", timeout=60_000)

            page.locator("#plot").click(position={"x": 20, "y": 20})  # a corner: no paper there
            description = page.locator("#description")
            expect(description).to_have_attribute("data-ready", "1", timeout=60_000)
            assert description.inner_text().startswith("description:")
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "map-explorer.png"))
            assert errors == []
        finally:
            browser.close()
