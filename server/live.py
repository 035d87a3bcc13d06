"""A table watched live for the dashboard: one game's watch (server/watching.py) run in its own thread over a
camera, a stream or a film, its verdicts kept as they settle and recorded in the results file.

The web app (server/dashboard.py) only asks: the state, the newest frame, start and stop. A film is played at
its own pace, so that a race on it is watched as it was laid; a camera or a stream gives its newest frame.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from rules.flash_cards import FlashError
from rules.grid_digits import GRID_CARDS
from rules.tempus import TempusOptions
from server.decko_games import (
    APPENDING,
    BLOCK_GAME,
    DeckoGame,
    Settled,
    flash_game,
    grid_game,
    learner_name,
    planned_drill,
    watch_game,
)
from server.storage import Recording
from server.watching import Onlooker, Watched
from vision.sources import FrameCounts, Rate, SourceError, is_live

if TYPE_CHECKING:
    from calibration.profile import CalibrationProfile
    from vision.advice import Advice

PAGE_WIDTH = 960  # frames are sent to the page no wider than this: a dashboard tile, not a print
# A game's camera that stopped is watched again after these waits, doubling (vision/sources.py has already
# tried to open it again for its own timeout before the watch ended).
RETRY_FIRST_S, RETRY_MOST_S = 2.0, 30.0


@dataclass(frozen=True)
class GameSetup:
    """The game watched and its options, as `tableref serve` takes them."""

    game: str = "tempus"
    _: KW_ONLY  # the options by name: several share a type, and one passed in another's place went unnoticed
    beginner: int = 50  # Tempus Digit and the flash-card drill: the digits in play
    tile_set: str = "auto"  # Seven Pis: six, nine or auto
    pips: bool = False  # Seven Pis: score the pips left, not the tiles
    rotations_only: bool = False  # DIGIT: a mirror image is another card
    grid_cards: int = GRID_CARDS  # Grid o' Digits: the cards in the grid
    players: int = 2  # Grid o' Digits: the players taking turns
    flash_seed: int | None = None  # the flash-card drill: its order of questions (None: a new one each watch)
    learner: str | None = None  # the flash-card drill: drawn from this learner's memory in the results file
    # Tempus Digit: the mat's lanes, a player each; Seven Pis: the hand area, so that each turn is judged.
    profile: CalibrationProfile | None = None

    @property
    def tempus(self) -> TempusOptions:
        """A Tempus Digit race's options: the digits in play and, from them, the time limit."""
        return TempusOptions(digits=self.beginner)

    @property
    def kind(self) -> str:
        """The watch run: a game's, or a race between the lanes of a calibrated mat."""
        return "tempus-lanes" if self.game == "tempus" and self.profile is not None else self.game


# Tells the live table of a verdict: its seconds, the lines the page shows, the verdict's JSON.
Said = Callable[[float, list[str], dict[str, Any]], None]


class Seeing:
    """A game's recogniser that keeps the last camera frame it read and what it read there: the page's
    picture. Only readings of the `frame` the watch last looked at are kept, not of views made from it (a
    calibrated race also reads the table seen from above)."""

    def __init__(self, recognizer: Any) -> None:
        self._recognizer = recognizer
        self.frame: np.ndarray | None = None
        self.seen: tuple[np.ndarray, Any] | None = None

    def __call__(self, frame: np.ndarray, *args: Any, **kwargs: Any) -> Any:
        reading = self._recognizer(frame, *args, **kwargs)
        if frame is self.frame:
            self.seen = (frame, reading)
        return reading

    def __getattr__(self, name: str) -> Any:  # the recogniser's own parts (a card reader's classifier)
        return getattr(self._recognizer, name)


@dataclass(frozen=True)
class Game:
    """How the live table watches one game: its recogniser (made once, as the server starts), how a reading
    is drawn on its frame, and the watch (source, setup, recogniser, said, recording, onlooker -> how it ended)."""

    recognizer: Callable[[], Any]
    draw: Callable[[np.ndarray, Any], np.ndarray]
    run: Callable[[str, GameSetup, Any, Said, Recording, Onlooker], Watched]


def _card_reader() -> Any:
    from vision.cards.recognize import CardRecognizer

    return CardRecognizer()


def _draw_cards(frame: np.ndarray, cards: Any) -> np.ndarray:
    from vision.annotate import annotate_cards

    return annotate_cards(frame, cards)


def _draw_face_up(frame: np.ndarray, cards: Any) -> np.ndarray:
    """A grid's cards as its game reads them: a card it takes for a back is not drawn as a digit."""
    from vision.cards.grid import face_up

    return _draw_cards(frame, face_up(cards))


def _watch_tempus(
    source: str, setup: GameSetup, reader: Any, said: Said, kept: Recording, onlooker: Onlooker
) -> Watched:
    from rules.tempus import LineChange, finish_time, judge
    from server.tempus_video import verdict_lines, watch_race

    options = setup.tempus
    laid: list[LineChange] = []

    def on_change(change: LineChange) -> None:
        laid.append(change)
        verdict = judge(change.cards, options)
        finished_at = finish_time(laid)
        timing = {"finished_at": round(finished_at, 3), "within_time": finished_at <= options.time_limit}
        said(change.seconds, verdict_lines(verdict, options), {**verdict.to_json(), **timing})

    return watch_race(source, options, reader, on_change, kept, onlooker).watched


def _watch_tempus_lanes(
    source: str, setup: GameSetup, reader: Any, said: Said, kept: Recording, onlooker: Onlooker
) -> Watched:
    from rules.tempus import LineChange, rank
    from server.tempus_lane_video import lane_entries, lane_text, watch_lane_race
    from server.tempus_lanes import print_ranking

    assert setup.profile is not None
    options = setup.tempus
    laid: dict[str, list[LineChange]] = {}

    def on_change(lane: str, change: LineChange) -> None:
        laid.setdefault(lane, []).append(change)
        entries = lane_entries(laid, options)
        result = rank(entries, options)
        lines = [lane_text(lane, change)]
        print_ranking(result, lines.append)
        lanes = {entry.player: entry.verdict.to_json() for entry in entries}
        said(change.seconds, lines, {"lane": lane, "lanes": lanes, **result.to_json()})

    return watch_lane_race(source, setup.profile, options, on_change, kept, onlooker, reader).watched


def _watch_decko(
    game_for: Callable[[GameSetup, Recording], DeckoGame],
) -> Callable[[str, GameSetup, Any, Said, Recording, Onlooker], Watched]:
    """The watch of one of Decko Digits' appending, block or grid games or the flash-card drill
    (server/decko_games.py) as the setup has it (and the drill as the results file remembers its learner), in
    the words its `judge` command prints."""

    def run(source: str, setup: GameSetup, reader: Any, said: Said, kept: Recording, onlooker: Onlooker) -> Watched:
        game = game_for(setup, kept)

        def on_change(settled: Settled) -> None:
            said(settled.seconds, game.said(settled.verdict), settled.verdict.to_json())

        return watch_game(source, game, reader, on_change, kept, onlooker).watched

    return run


def _seed(setup: GameSetup) -> int:
    """The drill's order of questions: the setup's, else a new one each watch."""
    return random.SystemRandom().randrange(2**32) if setup.flash_seed is None else setup.flash_seed


def _stick_reader() -> Any:
    from vision.sticks import StickRecognizer

    return StickRecognizer()


def _draw_sticks(frame: np.ndarray, reading: Any) -> np.ndarray:
    from vision.sticks.annotate import annotate_sticks

    return annotate_sticks(frame, *reading)


def _watch_digit(
    source: str, setup: GameSetup, reader: Any, said: Said, kept: Recording, onlooker: Onlooker
) -> Watched:
    from rules.digit_game import one_move_away
    from rules.sticks import Symmetry, shape_for_card
    from server.digit_video import settled_text, watch_game

    symmetry = Symmetry.ROTATIONS_ONLY if setup.rotations_only else Symmetry.ALL_EIGHT

    def on_settled(layout: dict[str, Any], move: dict[str, Any] | None) -> None:
        # The card's own shape stands for the sticks as they lie: a move turned or mirrored with them forms
        # the same card. The card itself may be among them (a move that lays it again another way round).
        card = layout["card"]
        away = sorted({n for n, _ in one_move_away(shape_for_card(card), symmetry)}) if card is not None else []
        said(layout["seconds"], [settled_text(layout, move)], {"layout": layout, "move": move, "one_move_away": away})

    return watch_game(source, symmetry, on_settled, kept, onlooker=onlooker, recognizer=reader).watched


def _domino_reader() -> Any:
    from vision.dominoes.recognize import DominoRecognizer

    return DominoRecognizer()


def _draw_dominoes(frame: np.ndarray, dominoes: Any) -> np.ndarray:
    from vision.dominoes.annotate import annotate_dominoes

    return annotate_dominoes(frame, dominoes)


def _watch_seven_pis(
    source: str, setup: GameSetup, reader: Any, said: Said, kept: Recording, onlooker: Onlooker
) -> Watched:
    from rules.seven_pis import Scoring
    from server.seven_pis_video import table_text, turn_text, watch_pis

    scoring = Scoring.PIPS if setup.pips else Scoring.TILES

    def on_table(table: dict[str, Any]) -> None:
        said(table["seconds"], [table_text(table)], table)

    def on_turn(turn: dict[str, Any]) -> None:
        said(turn["seconds"], turn_text(turn).split("\n"), turn)

    watched = watch_pis(
        source, setup.tile_set, scoring, on_table, kept, setup.profile, on_turn, onlooker=onlooker, recognizer=reader
    )
    return watched.watched


# The watches by GameSetup.kind; `tableref serve --game` takes the games (a calibration makes tempus a lane race).
GAMES: dict[str, Game] = {
    "tempus": Game(_card_reader, _draw_cards, _watch_tempus),
    "tempus-lanes": Game(_card_reader, _draw_cards, _watch_tempus_lanes),
    "append": Game(_card_reader, _draw_cards, _watch_decko(lambda setup, kept: APPENDING)),
    "blocks": Game(_card_reader, _draw_cards, _watch_decko(lambda setup, kept: BLOCK_GAME)),
    "grid": Game(
        _card_reader, _draw_face_up, _watch_decko(lambda setup, kept: grid_game(setup.grid_cards, setup.players))
    ),
    "flash": Game(
        _card_reader,
        _draw_cards,
        _watch_decko(
            lambda setup, kept: flash_game(planned_drill(setup.beginner, _seed(setup), setup.learner, kept.path))
        ),
    ),
    "digit": Game(_stick_reader, _draw_sticks, _watch_digit),
    "seven-pis": Game(_domino_reader, _draw_dominoes, _watch_seven_pis),
}


class LiveTable:
    """One source watched for one game, a watch at a time; every watch is recorded in `results`."""

    def __init__(self, source: str, setup: GameSetup, results: Path, pace: bool = True) -> None:
        self.source, self.setup, self.results = source, setup, results
        self._game = GAMES[setup.kind]
        self._reader = Seeing(self._game.recognizer())
        self.pace = pace and not is_live(source)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._frame: np.ndarray | None = None
        self._watch: dict[str, Any] | None = None  # the running or last watch, as the page shows it
        self._events: list[dict[str, Any]] = []
        self._judged = Rate()
        self._counts = FrameCounts()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, learner: str | None = None) -> bool:
        """Begin a new watch (a new race, a new game); False where one is running. A flash-card drill is drawn
        for `learner` where one is named ("" for nobody's: the first decimals, remembered for no one); FlashError
        for a name that will not do or a game that is no drill."""
        with self._lock:
            if self.running:
                return False
            if learner is not None:
                if self.setup.game != "flash":
                    raise FlashError(f"a learner is for the flash-card drill, not {self.setup.game}")
                self.setup = replace(self.setup, learner=learner_name(learner) if learner.strip() else None)
            self._stop.clear()
            self._fresh_watch()
            self._thread = threading.Thread(target=self._run, name="tableref-watch", daemon=True)
            self._thread.start()
            return True

    def stop(self, wait_s: float = 10.0) -> bool:
        """End the running watch (what it judged stands); False where none runs."""
        thread = self._thread
        if thread is None or not thread.is_alive():
            return False
        self._stop.set()
        thread.join(wait_s)
        return True

    def close(self) -> None:
        """The server stops: so does the watch."""
        self.stop()

    def state(self) -> dict[str, Any]:
        """What the page shows: the game (a race's time limit), the source, the watch (the seconds of its last
        frame since its first, the frames judged a second, a live source's frames read a second and dropped,
        what the player could fix about the frames as last looked at) and every verdict it has said."""
        with self._lock:  # a start may give the setup another learner
            race = {"time_limit": self.setup.tempus.time_limit} if self.setup.game == "tempus" else {}
            drill = {"learner": self.setup.learner} if self.setup.game == "flash" else {}
            watch = dict(self._watch) if self._watch else None
            if watch is not None:
                watch["fps"] = round(self._judged.per_second(), 1)
                if is_live(self.source):
                    counts = self._counts
                    watch["capture"] = {"fps": round(counts.rate.per_second(), 1), "dropped": counts.dropped}
            return {
                "game": self.setup.kind,
                **race,
                **drill,
                "source": self.source,
                "running": self.running,
                "watch": watch,
                "events": list(self._events),
            }

    def frame_jpeg(self) -> bytes | None:
        """The frame last read with what was read drawn on it (before the first reading, the newest frame), as
        a JPEG no wider than PAGE_WIDTH; None before the first frame."""
        seen, frame = self._reader.seen, self._frame
        if seen is not None:
            frame = self._game.draw(*seen)
        if frame is None:
            return None
        if frame.shape[1] > PAGE_WIDTH:
            height = round(frame.shape[0] * PAGE_WIDTH / frame.shape[1])
            frame = cv2.resize(frame, (PAGE_WIDTH, height), interpolation=cv2.INTER_AREA)
        ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return encoded.tobytes() if ok else None

    @property
    def retries(self) -> bool:
        """Whether a watch that a camera or a stream cut short starts again by itself once it comes back: a
        game's table is read anew where it stands; a race is not (its clock would start again), nor Grid o' Digits
        (whose turn it is cannot be read off the table)."""
        return is_live(self.source) and self.setup.game not in ("tempus", "grid")

    def _fresh_watch(self) -> None:
        self._events, self._frame, self._reader.seen = [], None, None
        self._judged.clear()
        self._counts = FrameCounts()
        started = datetime.now(UTC).isoformat(timespec="seconds")
        self._watch = {
            "id": None, "started": started, "frames": 0, "seconds": 0.0, "ended_by": None, "why": "", "advice": [],
        }  # fmt: skip

    def _run(self) -> None:
        """One watch; where `retries`, another after a camera that stopped, waiting RETRY_FIRST_S, then twice as
        long each time up to RETRY_MOST_S, until it gives frames again or Stop is pressed."""
        wait = RETRY_FIRST_S
        while True:
            ended = self._watched()
            cut = ended["ended_by"] in ("camera", "no frames")
            if not (cut and self.retries) or self._stop.is_set():
                break
            with self._lock:
                assert self._watch is not None
                self._watch["why"] = f"{ended.get('why', '')}; trying again in {wait:g} s"
            if self._stop.wait(wait):
                break
            wait = min(2 * wait, RETRY_MOST_S)
            with self._lock:
                self._fresh_watch()

    def _watched(self) -> dict[str, Any]:
        """Run one watch to its end; how it ended (as `Watched.to_json` says it)."""
        clock_start = time.monotonic()

        def see(seconds: float, frame: np.ndarray) -> str | None:
            if self.pace:  # a film at its own pace; stopping cuts the wait short
                self._stop.wait(max(0.0, clock_start + seconds - time.monotonic()))
            self._reader.frame = frame
            with self._lock:
                self._frame = frame
                self._judged.tick()
                assert self._watch is not None
                self._watch["frames"] += 1
                self._watch["seconds"] = round(seconds, 2)
            return "stopped" if self._stop.is_set() else None

        def said(seconds: float, lines: list[str], verdict: dict[str, Any]) -> None:
            with self._lock:
                self._events.append({"seconds": round(seconds, 3), "lines": lines, "verdict": verdict})

        def advised(advice: list[Advice]) -> None:
            with self._lock:
                assert self._watch is not None
                self._watch["advice"] = [asdict(a) for a in advice]

        ended: dict[str, Any]
        try:
            # Made in this thread: a SQLite connection stays with the thread that opened it.
            kept = Recording(self.results, self.setup.kind, self.source)
            with self._lock:
                assert self._watch is not None
                self._watch["id"] = kept.id
            onlooker = Onlooker(see, self._counts, advised)
            ended = self._game.run(self.source, self.setup, self._reader, said, kept, onlooker).to_json()
        except SourceError as exc:
            ended = {"ended_by": "no frames", "why": str(exc)}
        except Exception as exc:  # the server stays up and the page says what broke; the recording stands
            ended = {"ended_by": "error", "why": f"{type(exc).__name__}: {exc}"}
        with self._lock:
            assert self._watch is not None
            self._watch.update(ended_by=ended["ended_by"], why=ended.get("why", ""))
        return ended
