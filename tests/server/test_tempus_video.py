"""A race timed from a film: where it ends, and what a camera that stops mid-race leaves."""

from pathlib import Path

import cv2
import numpy as np
import pytest
import typer

import server.tempus_video as tempus_video
from models.synth.samples import CLIP_FPS, FRAMES_PER_STEP, SAMPLE_SCENES, write_clip
from models.synth.scenes import render_scene
from rules.pi import PI_DECIMALS
from rules.tempus import TempusOptions
from tests.server.sources import unplug_after
from vision.cards.recognize import CardRecognizer
from vision.sources import frames

RACE = str(Path(__file__).resolve().parents[2] / "samples" / "tempus-race.mp4")
CARD_TURN = FRAMES_PER_STEP / CLIP_FPS  # seconds between cards laid in the sample race


def test_a_race_ends_when_its_line_is_complete() -> None:
    """A beginners' race of four digits: over once 1415 settles, the rest of the film unread."""
    race = tempus_video.watch_race(RACE, TempusOptions(digits=4))
    assert race.watched.ended_by == "complete"
    assert race.changes[-1].cards == PI_DECIMALS[:4]
    assert race.finished_at == pytest.approx(4 * CARD_TURN)
    assert race.watched.frames < 60


def test_the_line_on_the_table_when_time_runs_out_is_judged() -> None:
    """A limit of 2.6 s: the fifth card, laid at 2.5 s, has not settled by then."""
    options = TempusOptions(seconds_per_ten=0.52)
    race = tempus_video.watch_race(RACE, options)
    assert options.time_limit == pytest.approx(2.6)
    assert race.watched.ended_by == "time"
    assert race.changes[-1].cards == PI_DECIMALS[:4]


def test_a_camera_that_stops_mid_race_leaves_the_verdict_on_what_was_read(monkeypatch, capsys) -> None:
    """The source gives out after 30 frames: the sixth digit settled at 3.0 s, the seventh, seen in two frames
    only, not. The lines settled are judged, and then the user is told the camera stopped."""

    unplug_after(monkeypatch, 30)
    with pytest.raises(typer.Exit) as ended:
        tempus_video.run_video_race(RACE, TempusOptions(), as_json=False)
    assert ended.value.exit_code == 1
    out, err = capsys.readouterr()
    assert "3.141592\n" in out and "consecutive correct: 6 of 50" in out
    assert "the camera stopped after 30 frames" in err


def test_a_hand_over_the_finished_line_does_not_move_the_finish(tmp_path) -> None:
    """The finished line filmed still, with a hand over its last three cards for 2 frames (a glimpse: no
    change), then for 8 (the shorter line settles, and the whole line again once the hand is gone): the race
    is judged on the whole line and finished when it first settled."""
    seed, spec = SAMPLE_SCENES["tempus-row.jpg"]
    truth = render_scene(seed, spec).cards
    finished = list(frames(RACE, 1000))[-1]
    hand = finished.copy()
    covered = np.concatenate([card.corners for card in truth[-3:]])
    cv2.fillConvexPoly(hand, cv2.convexHull(covered.astype(np.int32)), (90, 140, 200))  # a palm's colour
    clip = tmp_path / "hand.mp4"
    write_clip(clip, iter([finished] * 6 + [hand] * 2 + [finished] * 6 + [hand] * 8 + [finished] * 6))
    race = tempus_video.watch_race(str(clip), TempusOptions())
    lines = [change.cards for change in race.changes]
    whole = lines[0]
    assert len(whole) == len(truth) - 1  # every card after the Starter
    assert len(lines) == 3 and len(lines[1]) < len(whole) and lines[2] == whole
    assert race.finished_at == 0.0


class _Counted:
    """A card reader that counts the frames it reads."""

    def __init__(self) -> None:
        self.reader = CardRecognizer()
        self.classifier = self.reader.classifier
        self.frames = 0

    def __call__(self, frame: np.ndarray) -> list:
        self.frames += 1
        return self.reader(frame)


def test_still_frames_are_not_read_again_and_the_race_is_timed_the_same(monkeypatch) -> None:
    """The sample race holds still three frames in four: two frames a card are read (the second agrees with the
    first), and each line settles at the same moment as where every frame is read."""
    remembering, counted = _Counted(), _Counted()
    race = tempus_video.watch_race(RACE, TempusOptions(), recognizer=remembering)
    monkeypatch.setattr(tempus_video, "Remembered", lambda read: read)
    every_frame = tempus_video.watch_race(RACE, TempusOptions(), recognizer=counted)
    assert counted.frames == race.watched.frames == 60
    assert remembering.frames == 2 * 60 // FRAMES_PER_STEP
    assert [(c.seconds, c.cards) for c in race.changes] == [(c.seconds, c.cards) for c in every_frame.changes]
