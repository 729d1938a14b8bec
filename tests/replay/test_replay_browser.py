"""The web replay in a real browser: headless Chromium (Debian's package) driven by Playwright for Python.

The page of a recorded game must load without console errors and without any request but the page itself, step
with the right / left arrows and the buttons, show the final totals on its last frame and hide the hands on the
toggle. Without Chromium or Playwright these tests are skipped with the install command -- except under CI=true,
where they fail (``.ci/run`` installs Chromium, the ``[test]`` extra installs Playwright).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from rummy_env.replay import record_game, write_html

CHROMIUM = os.environ.get("RUMMY_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: the flags of a headless Chromium that makes no connection of its own on a closed network
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
INSTALL = (
    "install them with `apt-get install -y chromium` (Debian's package, /usr/bin/chromium; or set RUMMY_CHROMIUM "
    "to a Chromium binary) and `pip install -e '.[test]'` (Playwright for Python; no `playwright install` needed)"
)


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed"
    if not Path(CHROMIUM).is_file():
        return f"Chromium is not installed ({CHROMIUM} not found)"
    return None


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory):
    """A headless Chromium showing the replay page of a short recorded game, with the page's console errors and
    requests collected; yields (page, log, errors, requests)."""
    missing = _missing()
    if missing:
        message = f"browser test needs Chromium and Playwright: {missing}; {INSTALL}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    tmp = tmp_path_factory.mktemp("replay_browser")
    log = record_game("contract", ["heuristic", "random", "heuristic", "random"], seed=7, rounds=(1, 2))
    page_path = write_html(log, tmp / "game.html")
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp / "profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = context.new_page()
            page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_path.resolve().as_uri())
            page.wait_for_selector("#seats .seat")
            yield page, log, errors, requests
        finally:
            context.close()


def _shown(page) -> dict[str, str]:
    return {
        "step": page.inner_text("#step"),
        "move": page.inner_text("#move"),
        "seats": page.inner_text("#seats"),
        "status": page.inner_text("#status"),
    }


def test_page_loads_without_errors_or_requests(browser_page):
    page, log, errors, requests = browser_page
    assert errors == []
    assert requests == [page.url], f"the page must load nothing but itself: {requests}"
    assert page.inner_text("#step") == f"position 0 / {int(page.get_attribute('#slider', 'max'))}"
    assert page.locator("#seats .seat").count() == log["num_players"]
    assert "round 1 dealt" in page.inner_text("#move")


def test_stepping_changes_the_shown_state(browser_page):
    page, log, errors, _ = browser_page
    page.keyboard.press("Home")
    before = _shown(page)
    page.keyboard.press("ArrowRight")
    after_key = _shown(page)
    assert after_key["step"].startswith("position 1 /")
    assert after_key["move"] != before["move"] and after_key["seats"] != before["seats"]
    first = log["actions"][0]
    assert after_key["move"].startswith(f"P{first['seat']} {log['entrants'][first['seat']]}: ")
    page.click("#next")
    after_click = _shown(page)
    assert after_click["step"].startswith("position 2 /") and after_click != after_key
    page.keyboard.press("ArrowLeft")
    assert _shown(page) == after_key
    page.keyboard.press("PageDown")  # the next round's deal
    assert "round 2 dealt" in page.inner_text("#move") and page.get_attribute("body", "data-kind") == "deal"
    assert errors == []


def test_last_frame_shows_final_totals(browser_page):
    page, log, errors, _ = browser_page
    assert page.is_hidden("#final")
    page.keyboard.press("End")
    assert page.get_attribute("body", "data-kind") == "final"
    final = page.inner_text("#final")
    assert final.startswith("Final totals:")
    for seat, total in enumerate(log["totals"]):
        assert f"P{seat} {log['entrants'][seat]} {total}" in final
    cells = page.locator("#totals-row td").all_inner_texts()
    assert cells == ["final", *(str(t) for t in log["totals"])]
    rows = page.locator("#scores tr").count()
    assert rows == 1 + len(log["round_results"]) + 1  # header, one per round, totals
    assert errors == []


def test_toggle_hides_and_shows_hands(browser_page):
    page, log, errors, _ = browser_page
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    hands = page.locator("#seats .hand .card")
    faces = "#seats .hand .card:not(.back)"
    cards = hands.count()
    assert page.locator(faces).count() == cards > 0
    shown_text = page.inner_text("#seats")
    page.click("#toggle-hands")
    assert page.inner_text("#toggle-hands") == "show hands"
    backs = page.locator("#seats .hand .card.back").count()
    known = page.locator("#seats .hand .card.known").count()
    # every card is a back but the publicly known ones (taken from the discard pile, bought)
    assert backs > 0 and known > 0 and backs + known == cards  # position 1: a discard was taken (seed 7)
    assert page.locator("#seats .hand .card:not(.back):not(.known)").count() == 0
    # the known cards come first: their place in the sorted hand would tell something about the hidden ones
    for hand in page.locator("#seats .hand").all():
        classes = [c.get_attribute("class") for c in hand.locator(".card").all()]
        assert classes == sorted(classes, key=lambda c: "back" in c), classes
    assert page.inner_text("#seats") != shown_text
    page.keyboard.press("ArrowRight")  # stays hidden while stepping
    assert page.locator("#seats .hand .card:not(.back):not(.known)").count() == 0
    page.keyboard.press("h")
    assert page.locator("#seats .hand .card.back").count() == 0
    assert page.inner_text("#toggle-hands") == "hide hands"
    assert errors == []
