"""What the judges keep in a results file: every turn the moment it is judged, so that a crash mid-game loses
nothing already judged; and what `tableref results` says of it."""

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import server.cli  # noqa: F401  (registers the commands)
import server.digit_video as digit_video
from rules.sticks import Symmetry
from server.app import app
from server.storage import Recording, StorageError, edit_events, recorded

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
GAME = str(SAMPLES / "digit-game.mp4")


def test_a_recorded_game_is_read_back_as_it_was_judged(tmp_path) -> None:
    results = tmp_path / "results.sqlite"
    judged = CliRunner().invoke(app, ["judge", "digit-moves", GAME, "--json", "--record", str(results)])
    assert judged.exit_code == 0, judged.output
    game = json.loads(judged.stdout)
    read = CliRunner().invoke(app, ["results", str(results), "--json"])
    assert read.exit_code == 0, read.output
    (watch,) = [json.loads(line) for line in read.stdout.splitlines()]
    assert (watch["game"], watch["source"], watch["ended_by"], watch["frames"]) == ("digit", GAME, "film", 12)
    assert [e["layout"] for e in watch["events"]] == game["layouts"]
    assert [e["move"] for e in watch["events"] if e["move"]] == game["moves"]
    text = CliRunner().invoke(app, ["results", str(results)]).stdout
    assert text.startswith(f"1. digit on {GAME}") and "3 judged, ended by film after 12 frames" in text


def test_a_crash_mid_game_leaves_what_was_judged(tmp_path, monkeypatch) -> None:
    """The reader dies on its fifth read (the ninth frame: a still table is read until two readings agree), after
    two layouts settled: both are in the file, the watch open."""
    real = digit_video.StickRecognizer

    class DiesOnTheFifthRead(real):
        frames = 0

        def __call__(self, frame):
            DiesOnTheFifthRead.frames += 1
            if DiesOnTheFifthRead.frames == 5:
                raise MemoryError("the machine ran out of memory")
            return super().__call__(frame)

    monkeypatch.setattr(digit_video, "StickRecognizer", DiesOnTheFifthRead)
    results = tmp_path / "results.sqlite"
    with pytest.raises(MemoryError):
        digit_video.run_digit_moves(GAME, Symmetry.ALL_EIGHT, as_json=False, record=results)
    read = CliRunner().invoke(app, ["results", str(results)])
    assert "2 judged, stopped mid-way" in read.stdout
    (watch,) = [
        json.loads(line) for line in CliRunner().invoke(app, ["results", str(results), "--json"]).stdout.splitlines()
    ]
    assert watch["ended_by"] is None and [e["seconds"] for e in watch["events"]] == [0.0, 0.5]


def test_bad_results_files_and_a_photo_to_record_get_one_clear_line(tmp_path) -> None:
    missing = CliRunner().invoke(app, ["results", str(tmp_path / "none.sqlite")])
    assert missing.exit_code == 1 and "no such results file" in missing.output
    notes = tmp_path / "notes.sqlite"
    notes.write_text("shopping list: eggs, milk, dominoes\n" * 40)
    garbled = CliRunner().invoke(app, ["results", str(notes)])
    assert garbled.exit_code == 1 and "cannot be" in garbled.output and "Traceback" not in garbled.output
    photo = CliRunner().invoke(app, ["judge", "seven-pis", str(SAMPLES / "dominoes-28.jpg"), "--record", str(notes)])
    assert photo.exit_code == 2 and "--record keeps what a film" in photo.output


def test_another_programs_database_is_neither_read_nor_written_as_results(tmp_path) -> None:
    other = tmp_path / "scores.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE scores (player TEXT, points INTEGER)")
        db.execute("INSERT INTO scores VALUES ('Ada', 31)")
    db.close()
    kept = other.read_bytes()
    for args in (["results", str(other)], ["judge", "digit-moves", GAME, "--record", str(other)]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code in (1, 2) and "another program's SQLite file" in result.output, args
        assert other.read_bytes() == kept and sorted(p.name for p in tmp_path.iterdir()) == ["scores.sqlite"]


def test_an_empty_results_file_reads_as_no_watches_and_is_left_as_it_was(tmp_path) -> None:
    empty = tmp_path / "results.sqlite"
    sqlite3.connect(empty).close()
    result = CliRunner().invoke(app, ["results", str(empty)])
    assert result.exit_code == 0 and result.output == "" and empty.stat().st_size == 0


def test_what_a_watch_judges_as_it_ends_is_recorded_before_the_file_closes(tmp_path) -> None:
    """A game's last turn is judged once the film ends (the quiet after it cut short): it is kept, and the watch
    is still recorded as ended by the film."""
    from server.storage import Recording, recorded
    from server.watching import watch

    results = tmp_path / "results.sqlite"
    keep = Recording(results, "seven-pis", GAME)
    watched = watch(GAME, lambda seconds, frame: None, keep, at_end=lambda: keep.add(9.5, {"turn": 3}))
    (watch_read,) = recorded(results)
    assert watched.ended_by == watch_read.ended_by == "film"
    assert [e["turn"] for e in watch_read.events] == [3]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(st.integers(0, 4), min_size=1, max_size=5), ended=st.lists(st.booleans(), min_size=5))
def test_summaries_and_one_watch_read_by_number_agree_with_reading_them_all(tmp_path, events, ended) -> None:
    """The dashboard's list (each watch with its count of events) and its one watch by number, read with their
    own queries, say what reading the whole file says."""
    from server.storage import Recording, recorded, summaries
    from server.watching import Watched

    results = tmp_path / f"results-{len(list(tmp_path.iterdir()))}.sqlite"
    for n, (count, ends) in enumerate(zip(events, ended, strict=False)):
        keep = Recording(results, "tempus", f"film-{n}.mp4")
        for i in range(count):
            keep.add(i / 2, {"cards": [i]})
        if ends:
            keep.end(Watched(10 * n, "film"))
    every = recorded(results)
    assert summaries(results) == [{**w.to_json(), "events": len(w.events)} for w in every]
    for watch in every:
        assert recorded(results, watch.id) == [watch]
    assert recorded(results, len(every) + 1) == []


def test_a_results_file_from_before_the_index_gets_it_when_next_recorded_into(tmp_path) -> None:
    from server.storage import APPLICATION_ID, SCHEMA, Recording

    results = tmp_path / "results.sqlite"
    with sqlite3.connect(results) as old:
        old.executescript(SCHEMA)
        old.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    indexed = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'"
    with sqlite3.connect(results) as db:
        assert db.execute(indexed).fetchall() == []
    Recording(results, "digit", GAME).add(1.0, {"card": 3})
    with sqlite3.connect(results) as db:
        assert db.execute(indexed).fetchall() == [("events_by_watch",)]


def test_events_are_edited_all_or_none(tmp_path) -> None:
    """An edit that fails part way leaves every event as it was; one that goes through changes only the game's
    events it gives back."""
    results = tmp_path / "results.sqlite"
    for game, n in (("flash", 1), ("flash", 2), ("digit", 3)):
        Recording(results, game, "typed").add(0.0, {"n": n})

    def failing(event: dict) -> dict:
        if event["n"] == 2:
            raise ValueError("an edit that breaks")
        return {"n": -event["n"]}

    with pytest.raises(ValueError):
        edit_events(results, "flash", failing)
    assert [w.events[0]["n"] for w in recorded(results)] == [1, 2, 3]
    assert edit_events(results, "flash", lambda e: {"n": 10 * e["n"]} if e["n"] == 2 else None) == 1
    assert [w.events[0]["n"] for w in recorded(results)] == [1, 20, 3]
    with pytest.raises(StorageError, match="no such results file"):
        edit_events(tmp_path / "missing.sqlite", "flash", lambda e: None)
