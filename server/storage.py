"""Results kept in a SQLite file as they happen, so that a race or a game already refereed survives a crash,
a pulled plug or a closed terminal.

Each watch (a film, a camera or a stream refereed by `judge ... --record FILE`) is a row of `watches`; each
thing it settles (a line, a table, a layout) a row of `events`, written and committed the moment it is judged.
A watch whose end was never written stopped mid-way: what it recorded until then stands.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer

from server.app import fail
from server.watching import Watched

SCHEMA = """
CREATE TABLE IF NOT EXISTS watches (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    source TEXT NOT NULL,
    started TEXT NOT NULL,
    ended_by TEXT,
    frames INTEGER
);
CREATE TABLE IF NOT EXISTS events (
    watch INTEGER NOT NULL REFERENCES watches(id),
    seconds REAL NOT NULL,
    event TEXT NOT NULL
);
"""
# A watch's events found without reading every other watch's; made in older files the next time one records.
EVENTS_INDEX = "CREATE INDEX IF NOT EXISTS events_by_watch ON events(watch)"


class StorageError(Exception):
    """A results file that cannot be opened or is not one; the message says which and why."""


@dataclass(frozen=True)
class RecordedWatch:
    id: int
    game: str
    source: str
    started: str
    ended_by: str | None  # None: the watch stopped before its end was written
    frames: int | None
    events: list[dict[str, Any]]  # each with its "seconds"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "source": self.source,
            "started": self.started,
            "ended_by": self.ended_by,
            "frames": self.frames,
            "events": self.events,
        }


# Marks a SQLite file as tableref's results ("tblr"), so that no other program's database is written into.
APPLICATION_ID = 0x74626C72


def _connected(path: Path, write: bool = True) -> sqlite3.Connection:
    """The results file, opened to record into (made if new) or only to read; another program's SQLite file,
    or a file that is no SQLite file, is a StorageError and is left as it was."""
    try:
        target, as_uri = (path, False) if write else (f"{path.resolve().as_uri()}?mode=ro", True)
        connection = sqlite3.connect(target, uri=as_uri)
        owner = _owner(connection)
        if owner == "other":
            connection.close()
            raise StorageError(
                f"{path}: another program's SQLite file, not tableref's results; left untouched (record to a new file)"
            )
        if write:
            connection.execute("PRAGMA journal_mode=WAL")  # each event lands whole, even if the process dies
            if owner == "nobody":
                connection.executescript(SCHEMA)
                connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            connection.execute(EVENTS_INDEX)
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"{path}: cannot be used as a results file ({exc})") from exc
    return connection


def _owner(connection: sqlite3.Connection) -> str:
    """ "tableref", "nobody" (no tables yet) or "other". Results files from before the mark have its two tables."""
    (application,) = connection.execute("PRAGMA application_id").fetchone()
    tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if application == APPLICATION_ID or (application == 0 and tables == {"watches", "events"}):
        return "tableref"
    return "nobody" if application == 0 and not tables else "other"


class Recording:
    """One watch being recorded in `path`: `add` each event as it is judged, `end` when the watch ends. Each write
    opens the file for itself, so that any thread may record (the dashboard's typed games write from the web
    server's threads) and no connection is left open by a watch that never ends."""

    def __init__(self, path: Path, game: str, source: str) -> None:
        self.path = path
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        with _writing(path) as db:
            cursor = db.execute(
                "INSERT INTO watches (game, source, started) VALUES (?, ?, ?)", (game, source, self.started)
            )
        self.id = int(cursor.lastrowid or 0)

    @classmethod
    def continued(cls, path: Path, watch_id: int, started: str) -> Recording:
        """The watch numbered `watch_id`, begun at `started` and already in `path`, recorded on (one a crash cut
        off, taken up again)."""
        recording = object.__new__(cls)
        recording.path, recording.id, recording.started = path, watch_id, started
        return recording

    def add(self, seconds: float, event: dict[str, Any]) -> None:
        with _writing(self.path) as db:
            db.execute("INSERT INTO events VALUES (?, ?, ?)", (self.id, seconds, json.dumps(event)))

    def end(self, watched: Watched) -> None:
        with _writing(self.path) as db:
            db.execute(
                "UPDATE watches SET ended_by = ?, frames = ? WHERE id = ?", (watched.ended_by, watched.frames, self.id)
            )


@contextmanager
def _writing(path: Path) -> Iterator[sqlite3.Connection]:
    """The results file opened to write one thing, committed whole (or not at all) and closed."""
    db = _connected(path)
    try:
        with db:
            yield db
    finally:
        db.close()


class NotRecorded:
    """A watch not asked to be recorded."""

    def add(self, seconds: float, event: dict[str, Any]) -> None:
        pass

    def end(self, watched: Watched) -> None:
        pass


def recording(path: Path | None, game: str, source: str) -> Recording | NotRecorded:
    """The watch of `game` on `source` recorded in `path` (None: not recorded); a file that cannot hold results
    is one line saying why and exit code 2, before any frame is read."""
    if path is None:
        return NotRecorded()
    try:
        return Recording(path, game, source)
    except StorageError as exc:
        fail(str(exc))
        raise typer.Exit(code=2) from exc


WATCH_COLUMNS = "id, game, source, started, ended_by, frames"


def recorded(path: Path, watch_id: int | None = None) -> list[RecordedWatch]:
    """Every watch in the results file (or only the one numbered `watch_id`), oldest first, with its events in
    the order they happened."""
    with _reading(path) as db:
        if db is None:
            return []
        only, args = ("WHERE id = ?", (watch_id,)) if watch_id is not None else ("", ())
        watches = db.execute(f"SELECT {WATCH_COLUMNS} FROM watches {only} ORDER BY id", args).fetchall()
        out = []
        for row in watches:
            events = db.execute("SELECT seconds, event FROM events WHERE watch = ? ORDER BY rowid", (row[0],))
            out.append(RecordedWatch(*row, [{"seconds": s, **json.loads(e)} for s, e in events]))
        return out


def summaries(path: Path) -> list[dict[str, Any]]:
    """Every watch in the results file, oldest first, as `RecordedWatch.to_json` gives it but with the count of
    its events in place of the events: a list to choose from, read without reading every event."""
    with _reading(path) as db:
        if db is None:
            return []
        rows = db.execute(
            f"SELECT {WATCH_COLUMNS}, (SELECT COUNT(*) FROM events WHERE watch = watches.id) FROM watches ORDER BY id"
        ).fetchall()
        names = [*WATCH_COLUMNS.split(", "), "events"]
        return [dict(zip(names, row, strict=True)) for row in rows]


def last_events(path: Path, game: str) -> list[dict[str, Any]]:
    """The last event of each watch of `game` in the results file, oldest watch first (none where the file is
    not made yet): where each watch left its game, a watch cut off by a crash included."""
    if not path.exists():
        return []
    with _reading(path) as db:
        if db is None:
            return []
        rows = db.execute(
            "SELECT event FROM events WHERE rowid IN (SELECT MAX(events.rowid) FROM events JOIN watches"
            " ON watches.id = events.watch WHERE watches.game = ? GROUP BY events.watch) ORDER BY watch",
            (game,),
        )
        return [json.loads(event) for (event,) in rows]


def edit_events(path: Path, game: str, edit: Callable[[dict[str, Any]], dict[str, Any] | None]) -> int:
    """Each event of `game`'s watches in the results file given to `edit`, and each it gives back written in the
    event's place, all in one transaction: the file is edited whole or not at all. How many events changed."""
    must_exist(path)
    try:
        with _writing(path) as db:
            rows = db.execute(
                "SELECT events.rowid, event FROM events JOIN watches ON watches.id = events.watch"
                " WHERE watches.game = ?",
                (game,),
            ).fetchall()
            changed = [(json.dumps(new), row) for row, event in rows if (new := edit(json.loads(event))) is not None]
            db.executemany("UPDATE events SET event = ? WHERE rowid = ?", changed)
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"{path}: cannot be written as a results file ({exc})") from exc
    return len(changed)


def must_exist(path: Path) -> None:
    """A StorageError where no results file is at `path`."""
    if not path.is_file():
        raise StorageError(f"{path}: no such results file; record one with `tableref judge ... --record {path}`")


@contextmanager
def _reading(path: Path) -> Iterator[sqlite3.Connection | None]:
    """The results file opened only to read (None: a file with no tables yet); a missing file or one that is
    not results is a StorageError."""
    must_exist(path)
    db = _connected(path, write=False)
    try:
        yield None if _owner(db) == "nobody" else db
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"{path}: cannot be read as a results file ({exc})") from exc
    finally:
        db.close()
