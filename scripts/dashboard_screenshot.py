"""Draw the README's picture of the dashboard (docs/dashboard.png): the sample race watched to its end, as
`make demo` shows it. Run from the checkout: `.venv/bin/python scripts/dashboard_screenshot.py`."""

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from server.live import GameSetup, LiveTable  # noqa: E402
from tests.server.serving import CHROMIUM, CHROMIUM_ARGS, TOKEN, served  # noqa: E402


def main(out: Path = ROOT / "docs" / "dashboard.png") -> None:
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(ROOT)  # the source shown as `make demo` names it
        live = LiveTable("samples/tempus-race.mp4", GameSetup("tempus"), Path(scratch) / "results.sqlite")
        with served(live) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/?token={TOKEN}")
            expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=120_000)
            page.wait_for_timeout(1000)  # the last frame and the recorded watch drawn
            # The last verdict's flash over: a page in the background may hold an animation where it was.
            page.wait_for_function("document.getAnimations().every((a) => a.playState === 'finished')")
            page.screenshot(path=str(out), full_page=True)
            browser.close()
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
