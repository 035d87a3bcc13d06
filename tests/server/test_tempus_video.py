"""A race timed from a film: where it ends, and what a camera that stops mid-race leaves."""

from pathlib import Path

import pytest
import typer

import server.tempus_video as tempus_video
import server.watching as watching
from models.synth.samples import CLIP_FPS, FRAMES_PER_STEP
from rules.pi import PI_DECIMALS
from rules.tempus import TempusOptions
from vision.sources import SourceError, timed_frames

RACE = str(Path(__file__).resolve().parents[2] / "samples" / "tempus-race.mp4")
CARD_TURN = FRAMES_PER_STEP / CLIP_FPS  # seconds between cards laid in the sample race


def test_a_race_ends_when_its_line_is_complete() -> None:
    """A beginners' race of four digits: over once 1415 settles, the rest of the film unread."""
    race = tempus_video.watch_race(RACE, TempusOptions(digits=4))
    assert race.ended_by == "complete"
    assert race.changes[-1].cards == PI_DECIMALS[:4]
    assert race.finished_at == pytest.approx(4 * CARD_TURN)
    assert race.frames < 60


def test_the_line_on_the_table_when_time_runs_out_is_judged() -> None:
    """A limit of 2.6 s: the fifth card, laid at 2.5 s, has not settled by then."""
    options = TempusOptions(seconds_per_ten=0.52)
    race = tempus_video.watch_race(RACE, options)
    assert options.time_limit == pytest.approx(2.6)
    assert race.ended_by == "time"
    assert race.changes[-1].cards == PI_DECIMALS[:4]


def test_a_camera_that_stops_mid_race_leaves_the_verdict_on_what_was_read(monkeypatch, capsys) -> None:
    """The source gives out after 30 frames: the sixth digit settled at 3.0 s, the seventh, seen in two frames
    only, not. The lines settled are judged, and then the user is told the camera stopped."""

    def stops_after_half(source: str, count: int):
        for n, frame in enumerate(timed_frames(source, count)):
            if n == 30:
                raise SourceError("camera 0: no frame for 10 s; the camera or stream stopped")
            yield frame

    monkeypatch.setattr(watching, "timed_frames", stops_after_half)
    with pytest.raises(typer.Exit) as ended:
        tempus_video.run_video_race(RACE, TempusOptions(), as_json=False)
    assert ended.value.exit_code == 1
    out, err = capsys.readouterr()
    assert "3.141592\n" in out and "consecutive correct: 6 of 50" in out
    assert "the camera stopped after 30 frames" in err
