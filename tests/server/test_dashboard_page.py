"""The dashboard page in Debian's chromium, driven by Playwright: what a player at the table sees and presses."""

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from rules.flash_cards import new_drill, remembered_drill
from rules.flash_memory import Memory
from rules.pi import PI_DECIMALS
from server.hand_table import HandTable
from server.live import GameSetup, LiveTable
from tests.server.serving import CHROMIUM, CHROMIUM_ARGS, TOKEN, call, served
from tests.server.sources import appending_film, camera_filming, darkened, flash_film, grid_film

pytestmark = pytest.mark.browser

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
RACE = str(SAMPLES / "tempus-race.mp4")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if shutil.which(CHROMIUM) is None:
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium (scripts/system-packages.sh)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    yield context.new_page()
    context.close()


def test_a_race_is_shown_as_it_was_judged_and_can_be_run_again(page: Page, tmp_path) -> None:
    """The sample race: twelve right digits, then two swapped. The page shows the line with the twelve in
    green and the first error marked, each line as it settled, and the recorded watch; Start runs a new race
    and Stop ends it, both with the token the link carried."""
    live = LiveTable(RACE, GameSetup("tempus"), tmp_path / "results.sqlite", pace=False)
    with served(live) as base:
        page.goto(f"{base}/?token={TOKEN}")
        expect(page).to_have_url(f"{base}/")  # the token is kept for the tab, not left in the address bar
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=90_000)
        line = page.locator("#verdict .line")
        expect(line).to_have_text("3." + "".join(map(str, [*PI_DECIMALS[:12], PI_DECIMALS[13], PI_DECIMALS[12]])))
        expect(line.locator(".ok")).to_have_count(12)
        expect(line.locator(".wrong")).to_have_text(str(PI_DECIMALS[13]))
        expect(page.locator("#verdict")).to_contain_text("first error: card 13 after the Starter is 9, expected 7")
        events = call(f"{base}/api/state")[1]["events"]
        expect(page.locator("#events li")).to_have_count(len(events))
        expect(page.locator("#watches tr")).to_have_count(1)
        assert page.locator("#frame").evaluate("img => img.naturalWidth") == 960
        expect(page.locator("#stats")).not_to_contain_text("camera")  # a film waits for its referee
        expect(page.locator("#advice div")).to_have_count(0)  # a good picture: nothing to fix
        state = call(f"{base}/api/state")[1]
        seconds, finished = state["watch"]["seconds"], events[-1]["verdict"]["finished_at"]
        expect(page.locator("#race-time")).to_have_text(re.compile(r"^0:\d\d\.\d$"))
        assert abs(float(page.locator("#race-time").inner_text()[2:]) - seconds) <= 0.05
        expect(page.locator("#race-limit")).to_have_text("of 2:30.0")  # 30 s for each ten of the fifty digits
        expect(page.locator("#race-finish")).to_have_text(f"last card laid at {finished:.2f} s, within the limit")

        expect(page.locator("#stop")).to_be_disabled()
        live.pace = True  # the second race at the film's own pace, so that it can be stopped mid-way
        page.locator("#start").click()
        expect(page.locator("#status")).to_have_text("watching")
        expect(page.locator("#watches tr")).to_have_count(2)
        page.locator("#stop").click()
        expect(page.locator("#status")).to_have_text("ended: stopped")
        expect(page.locator("#watches tr").first).to_contain_text("stopped")


def test_a_live_cameras_rate_and_dropped_frames_are_shown_beside_the_judging_rate(
    page: Page, tmp_path, monkeypatch
) -> None:
    camera_filming(monkeypatch, RACE, fps=60)
    with served(LiveTable("0", GameSetup("tempus"), tmp_path / "results.sqlite")) as base:
        page.goto(f"{base}/?token={TOKEN}")
        shown = re.compile(r"\d+ frames judged a second · camera [1-9]\d*\.\d frames a second, [1-9]\d* dropped")
        expect(page.locator("#stats")).to_have_text(shown, timeout=30_000)
        page.locator("#stop").click()
        expect(page.locator("#status")).to_have_text("ended: stopped")


def test_a_picture_too_dark_is_shown_with_what_to_fix(page: Page, tmp_path) -> None:
    """The sample DIGIT game filmed in an unlit room: under the picture, the page says it is dark and what to do,
    as the terminal says it."""
    dark = darkened(str(SAMPLES / "digit-game.mp4"), tmp_path / "dark.mp4")
    with served(LiveTable(str(dark), GameSetup("digit"), tmp_path / "results.sqlite", pace=False)) as base:
        page.goto(f"{base}/?token={TOKEN}")
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=90_000)
        (advice,) = call(f"{base}/api/state")[1]["watch"]["advice"]
        expect(page.locator("#advice div.dark")).to_have_text(advice["message"])
        assert "light the table" in advice["message"]


# The browser's audio, recorded: each tone's pitch as it starts.
RECORDED_AUDIO = """
window.tones = [];
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.destination = {}; }
  createOscillator() {
    const tone = { frequency: { value: 0 }, connect: (next) => next, stop() {} };
    tone.start = () => window.tones.push(tone.frequency.value);
    return tone;
  }
  createGain() { return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (next) => next }; }
  close() {}
};
"""


def test_with_sound_on_each_verdict_settling_chimes_low_where_it_says_something_went_wrong(
    page: Page, tmp_path
) -> None:
    """The sample DIGIT game ends on two sticks moved at once. Opening the page replays nothing; with Sound on, a
    new watch's last verdict chimes low and the verdict's border flashes red; with Sound off again, none chimes."""
    page.add_init_script(RECORDED_AUDIO)
    live = LiveTable(str(SAMPLES / "digit-game.mp4"), GameSetup("digit"), tmp_path / "results.sqlite", pace=False)
    with served(live) as base:
        page.goto(f"{base}/?token={TOKEN}")
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=90_000)
        page.locator("#sound").click()
        expect(page.locator("#sound")).to_have_attribute("aria-pressed", "true")
        assert page.evaluate("window.tones") == []
        page.locator("#start").click()
        expect(page.locator("#watches tr")).to_have_count(2)
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=90_000)
        expect(page.locator("#events li")).to_have_count(3)
        tones = page.evaluate("window.tones")
        assert tones and tones[-1] == 220 and set(tones) <= {220, 550, 880}, tones
        expect(page.locator("#verdict")).to_have_class("bad")
        page.locator("#sound").click()
        page.locator("#start").click()
        expect(page.locator("#watches tr")).to_have_count(3)
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=90_000)
        assert page.evaluate("window.tones") == tones


def test_an_appending_line_is_shown_with_its_wilds_in_place(page: Page, tmp_path) -> None:
    film = tmp_path / "line.mp4"
    laid = appending_film(film, 97_400_000, cards=(5, 7), wilds=1)
    with served(LiveTable(str(film), GameSetup("append"), tmp_path / "results.sqlite", pace=False)) as base:
        page.goto(f"{base}/")
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=90_000)
        line = page.locator("#verdict .line")
        expect(line).to_have_text("3." + "".join(f"[{card}]" if "/" in card else card for card in laid))
        expect(line.locator(".ok")).to_have_count(len(laid))
        expect(page.locator("#verdict")).to_contain_text(f"right: {len(laid)} card(s) in order after the Starter")
        expect(page.locator("#clock")).to_be_hidden()  # no race, no clock


def test_a_grid_game_shows_the_fives_kept_face_up_and_whose_turn_it_is(page: Page, tmp_path) -> None:
    film = tmp_path / "grid.mp4"
    grid_film(film, 97_850_000, states=10)  # a wrong turn turned back down, then the first five kept
    with served(LiveTable(str(film), GameSetup("grid"), tmp_path / "results.sqlite", pace=False)) as base:
        page.goto(f"{base}/")
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=90_000)
        expect(page.locator("#game")).to_have_text("Grid o' Digits")
        line = page.locator("#verdict .line")
        expect(line).to_have_text("3.14159 ····· ····· ····· ·····")
        expect(line.locator(".ok")).to_have_count(5)
        expect(page.locator("#verdict")).to_contain_text("player 2 to reveal: a 2 (decimal 6)")


def test_the_flash_card_drill_shows_the_answer_judged_and_its_tally(page: Page, tmp_path) -> None:
    film = tmp_path / "drill.mp4"
    (place,) = new_drill(1, 5).order
    flash_film(film, 97_950_000, [(PI_DECIMALS[place] + 1) % 10, PI_DECIMALS[place]])  # wrong, then right
    setup = GameSetup("flash", beginner=1, flash_seed=5)
    with served(LiveTable(str(film), setup, tmp_path / "results.sqlite", pace=False)) as base:
        page.goto(f"{base}/")
        expect(page.locator("#status")).to_have_text("ended: every decimal answered right", timeout=90_000)
        expect(page.locator("#game")).to_have_text("flash cards")
        line = page.locator("#verdict .line")
        expect(line).to_have_text("decimal 1 is 1: 1")
        expect(line.locator(".ok")).to_have_count(1)
        expect(page.locator("#verdict")).to_contain_text("1 of 2 answers right, best run 1")
        expect(page.locator("#events li").last).to_contain_text("decimal 1? lay its card")


def test_a_learners_drill_shows_their_memory_decimal_by_decimal(page: Page, tmp_path) -> None:
    """A new learner's first drill, one decimal answered right: the strip shows it right once, the nine others in
    play not asked yet, the forty beyond not in play; no digit of pi is shown on it."""
    film = tmp_path / "drill.mp4"
    first = remembered_drill("Ann", Memory(), 5).order[0]
    flash_film(film, 97_950_000, [PI_DECIMALS[first]])
    setup = GameSetup("flash", flash_seed=5, learner="Ann")
    with served(LiveTable(str(film), setup, tmp_path / "results.sqlite", pace=False)) as base:
        page.goto(f"{base}/")
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=90_000)
        strip = page.locator("#verdict .memory")
        expect(strip.locator(".box1")).to_have_count(1)
        expect(strip.locator(".new")).to_have_count(9)
        expect(strip.locator(".out")).to_have_count(40)
        expect(strip.locator(".box1")).to_have_attribute("title", f"decimal {first + 1}: box 1")
        expect(strip).to_have_text("")
        expect(page.locator("#verdict")).to_contain_text("Ann: 0 of the first 10 decimals learnt (1 drill with")


def test_the_page_starts_a_drill_for_the_learner_typed_and_says_why_a_name_is_refused(page: Page, tmp_path) -> None:
    film = tmp_path / "drill.mp4"
    flash_film(film, 97_950_000, [])
    live = LiveTable(str(film), GameSetup("flash", flash_seed=5), tmp_path / "results.sqlite", pace=False)
    with served(live) as base:
        page.goto(f"{base}/?token={TOKEN}")
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=90_000)
        learner = page.locator("#learner")
        expect(learner).to_be_visible()
        expect(learner).to_have_value("")
        learner.evaluate("box => { box.value = 'x'.repeat(41); box.dispatchEvent(new Event('input')); }")
        page.locator("#start").click()
        notice = page.locator("#notice")
        expect(notice).to_have_text("a learner's name is 1 to 40 characters, not 41")
        page.wait_for_timeout(1500)  # three refreshes of the page: the reason stays until a start goes through
        expect(notice).to_have_text("a learner's name is 1 to 40 characters, not 41")
        learner.fill("Ann")
        learner.press("Enter")
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=90_000)
        expect(page.locator("#verdict")).to_contain_text("Ann: 0 of the first 10 decimals learnt")
        expect(page.locator("#verdict .memory .block")).to_have_count(10)
        expect(notice).to_have_text("")
        expect(learner).to_have_value("Ann")
        expect(page.locator("#learners option")).to_have_count(1)  # offered for the next drill
        expect(page.locator("#learners option")).to_have_attribute("value", "Ann")
        assert call(f"{base}/api/state")[1]["learner"] == "Ann"


def test_a_hand_game_is_typed_turn_by_turn_and_a_refused_turn_stays_to_be_mended(page: Page, tmp_path) -> None:
    """The bluffing game typed on the page: each turn judged as it is typed, the scores and who plays next shown;
    a turn the rules refuse is said why and left in the box; End the game ends it and the recorded game says so."""
    with served(HandTable("bluff", tmp_path / "results.sqlite")) as base:
        page.goto(f"{base}/?token={TOKEN}")
        expect(page.locator("#status")).to_have_text("playing")
        expect(page.locator("#camera")).to_be_hidden()
        turn = page.locator("#turn")
        turn.fill("players: Ann Bob")
        turn.press("Enter")
        expect(turn).to_have_value("")
        page.locator("#unchallenged").click()  # Ann's turn: 'bluff' in one press
        expect(page.locator("#verdict .next")).to_have_text("next: Bob states the 2nd decimal (4)")
        turn.fill("challenge: Bob")
        page.locator("#judge").click()
        expect(page.locator("#refusal")).to_have_text(
            "line 3: a challenge is joined by other players than Bob, each once"
        )
        expect(turn).to_have_value("challenge: Bob")
        turn.fill("challenge: Ann; reveal: Bob=9 Ann=4")  # Bob meant to reveal his 4: take it back
        turn.press("Enter")
        expect(page.locator("#verdict .next")).to_have_text("next: Ann states the 3rd decimal (1)")
        page.locator("#undo").click()
        expect(page.locator("#verdict .next")).to_have_text("next: Bob states the 2nd decimal (4)")
        turn.fill("challenge: Ann; reveal: Bob=4 Ann=9")
        turn.press("Enter")
        expect(page.locator("#refusal")).to_have_text("")
        expect(page.locator("#verdict .next")).to_have_text("next: Ann states the 3rd decimal (1)")
        expect(page.locator("#verdict")).to_contain_text("Bob: 1 (1 card won, 0 bluffs standing)")
        expect(page.locator("#events li")).to_have_count(5)
        expect(page.locator("#events li").first).to_contain_text("› challenge: Ann; reveal: Bob=4 Ann=9")
        expect(page.locator("#watches tr")).to_contain_text("going on")
        page.locator("#stop").click()
        expect(page.locator("#status")).to_have_text("ended: stopped")
        expect(turn).to_be_disabled()
        expect(page.locator("#watches tr")).to_contain_text("stopped")


def test_without_the_token_the_page_shows_the_table_but_cannot_control_it(page: Page, tmp_path) -> None:
    live = LiveTable(RACE, GameSetup("tempus", beginner=3), tmp_path / "results.sqlite", pace=False)
    with served(live) as base:
        page.goto(f"{base}/")
        expect(page.locator("#status")).to_have_text("ended: the line is complete", timeout=90_000)
        expect(page.locator("#verdict")).to_contain_text("consecutive correct: 3 of 3")
        expect(page.locator("#start")).to_be_disabled()
        expect(page.locator("#notice")).to_contain_text("open the link")


def test_opened_to_the_network_a_page_without_the_token_is_told_what_it_needs(page: Page, tmp_path) -> None:
    live = LiveTable(RACE, GameSetup("tempus", beginner=2), tmp_path / "results.sqlite", pace=False)
    with served(live, viewing_needs_token=True) as base:
        page.goto(f"{base}/")
        expect(page.locator("#status")).to_contain_text("needs the access token")
        expect(page.locator("#verdict")).to_contain_text("nothing has settled")


def test_a_race_between_lanes_shows_each_player_ranked(page: Page, tmp_path) -> None:
    """Two players on the race mat: the page lists both lanes, best first, each line coloured as it reads."""
    from calibration.homography import estimate_homography
    from calibration.profile import CalibrationProfile
    from calibration.synth import race_view
    from tests.server.test_tempus_lane_video import LAYOUT, RACE_LANES, SEED, USER_LANES, filmed_race

    clip, lines = filmed_race(str(tmp_path / "race.mp4"))
    profile = CalibrationProfile(
        estimate_homography(race_view(SEED, LAYOUT, RACE_LANES, lines).frame, LAYOUT), USER_LANES
    )
    live = LiveTable(clip, GameSetup("tempus", profile=profile), tmp_path / "results.sqlite", pace=False)
    with served(live) as base:
        page.goto(f"{base}/?token={TOKEN}")
        expect(page.locator("#status")).to_have_text("ended: the film ended", timeout=120_000)
        expect(page.locator("#game")).to_have_text("Tempus Digit race")
        standings = call(f"{base}/api/state")[1]["events"][-1]["verdict"]["standings"]
        shown = page.locator("#verdict .standing")
        expect(shown).to_have_count(len(RACE_LANES))
        for row, standing in zip(shown.all(), standings, strict=True):
            expect(row.locator(".player")).to_have_text(f"{standing['rank']}. {standing['player']}")
            expect(row.locator(".line .ok")).to_have_count(standing["consecutive_correct"])
