"""A game played in the hand, typed turn by turn on the dashboard (server/hand_games.py tells it): each line the
rules allow is recorded in the results file the moment it is typed, and a server started again on that file takes
an unfinished game up where it stopped. It answers the web app as the live table does (state, start, stop), so
one page and one set of routes serve both.
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rules.game_log import Replay
from server.hand_games import hand_game
from server.storage import Recording, StorageError, recorded
from server.watching import Watched

SOURCE = "typed at the table"
LONGEST_LINE = 500  # characters: a turn takes a line of a few dozen


class HandTable:
    """One hand game (bluff or pass) typed at a time; every game is a watch of the results file, each line typed
    an event of it."""

    def __init__(self, game: str, results: Path, bluff_worth: int = 1) -> None:
        self.game, self.results, self.source = game, results, SOURCE
        self._told = hand_game(game, bluff_worth)
        self._lock = threading.Lock()
        self._kept: Recording | None = None  # the game being typed; None: none
        self._watch: dict[str, Any] | None = None
        self._lines: list[str] = []
        self._events: list[dict[str, Any]] = []
        self._played: Replay | None = None
        self._take_up()

    @property
    def running(self) -> bool:
        return self._kept is not None

    def start(self) -> bool:
        """A new game; False where one is being typed. A StorageError says why the results file could not take
        a new game (none is started)."""
        with self._lock:
            if self._kept is not None:
                return False
            try:
                self._kept = Recording(self.results, self.game, SOURCE)
            except (sqlite3.Error, StorageError) as exc:
                raise StorageError(
                    f"a new game could not be recorded in {self.results} ({exc}); none was started: free the disk or "
                    "mend the file, or start the server again with another --results"
                ) from exc
            self._watch = {"id": self._kept.id, "started": self._kept.started, "ended_by": None, "why": ""}
            self._lines, self._events, self._played = [], [], None
            return True

    def stop(self) -> bool:
        """End the game typed (what was kept stands); False where none is."""
        with self._lock:
            return self._ended("stopped")

    def close(self) -> None:
        """The server stops: the game stays open in the results file, to be taken up again."""

    def typed(self, line: str) -> str | None:
        """Judge a line typed: None where the rules allow it (it is kept and recorded), else why not."""
        if len(line) > LONGEST_LINE or "\n" in line:
            return f"a turn is one line of at most {LONGEST_LINE} characters"
        with self._lock:
            if self._kept is None:
                return "no game is being typed: start a new game"
            trial, refused = self._told.tried(self._lines, line)
            if refused:
                return refused
            turns, said = self._told.news(self._played, trial, line)
            event = {"typed": line, "lines": said, "turns": [turn.to_json() for turn in turns]}
            seconds = self._seconds()
            try:  # recorded first: a turn the file does not hold is not taken as played
                self._kept.add(seconds, event)
            except (sqlite3.Error, StorageError) as exc:
                return f"the turn could not be recorded in {self.results} ({exc}); nothing was kept, type it again"
            self._lines.append(line)
            self._events.append({"seconds": seconds, **event})
            self._played = trial if trial is not None else self._played
            if self._played is not None and self._played.game.over:
                self._ended("game over")
            return None

    def state(self) -> dict[str, Any]:
        """What the page shows: the game, whether one is being typed, its watch, each line kept with what it
        settled, and where the game stands (the whole game as `tableref judge bluff|pass --json` prints it)."""
        with self._lock:
            played = self._played
            watch = None if self._watch is None else {**self._watch, "frames": len(self._lines)}
            hand = {
                "syntax": self._told.syntax,
                "lines": list(self._lines),
                "standing": self._told.standing(played) if played is not None else [],
                "upcoming": self._told.upcoming(played) if played is not None else "",
                "game": self._told.as_json(played) if played is not None else None,
            }
            return {
                "game": self.game,
                "source": SOURCE,
                "running": self.running,
                "watch": watch,
                "events": list(self._events),
                "hand": hand,
            }

    def frame_jpeg(self) -> None:
        return None  # nothing is filmed

    def _seconds(self) -> float:
        assert self._watch is not None
        started = datetime.fromisoformat(self._watch["started"])
        return round((datetime.now(UTC) - started).total_seconds(), 3)

    def _ended(self, why: str) -> bool:
        if self._kept is None or self._watch is None:
            return False
        self._kept.end(Watched(len(self._lines), why))
        self._kept = None
        self._watch.update(ended_by=why)
        return True

    def _take_up(self) -> None:
        """The last game of this kind the results file holds unfinished (a server stopped, or cut off, while it
        was typed), taken up where it stopped."""
        if not self.results.is_file():
            return
        open_games = [
            w for w in recorded(self.results) if w.game == self.game and w.source == SOURCE and w.ended_by is None
        ]
        if not open_games:
            return
        last = open_games[-1]
        kept = Recording.continued(self.results, last.id, last.started)
        lines = [event["typed"] for event in last.events]
        try:
            played = self._told.judged(lines)
        except ValueError:
            played = None
        if played is not None and played.error:  # rules read otherwise since: the game stands as recorded
            kept.end(Watched(len(lines), "not taken up", played.error))
            return
        self._kept, self._lines, self._events, self._played = kept, lines, last.events, played
        self._watch = {"id": last.id, "started": last.started, "ended_by": None, "why": "taken up where it stopped"}
