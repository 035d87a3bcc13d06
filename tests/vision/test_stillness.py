"""A still table answered from memory: the sensor's noise is no change, anything laid or moved is."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards.recognize import CardRecognizer
from vision.stillness import READ_AGAIN_AFTER, Remembered, StillTable

TABLE = cv2.imread(str(Path(__file__).resolve().parents[2] / "samples" / "table-12-cards.jpg"))


def _filmed(frame: np.ndarray, rng: np.random.Generator, noise: float, quality: int) -> np.ndarray:
    """The frame as a webcam gives it: sensor noise of `noise` grey levels, then JPEG at `quality`."""
    noisy = np.clip(frame + rng.normal(0, noise, frame.shape), 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)


def _stick_laid(frame: np.ndarray, rng: np.random.Generator, darker: int = 25) -> np.ndarray:
    """A thin stick (2 px wide, 120 long, `darker` levels under what it lies on) at a random place and angle."""
    h, w = frame.shape[:2]
    centre = rng.uniform([80, 80], [w - 80, h - 80])
    angle = rng.uniform(0, np.pi)
    half = 60 * np.array([np.cos(angle), np.sin(angle)])
    mask = np.zeros((h, w), np.uint8)
    cv2.line(mask, tuple((centre - half).astype(int)), tuple((centre + half).astype(int)), 255, 2)
    laid = frame.astype(np.int16)
    laid[mask > 0] -= darker
    return np.clip(laid, 0, 255).astype(np.uint8)


def _unchanged(before: np.ndarray, after: np.ndarray) -> bool:
    still = StillTable()
    assert not still.unchanged(before)  # the first frame is always read
    return still.unchanged(after)


@pytest.mark.parametrize(("noise", "quality"), [(0, 95), (4, 90), (8, 75), (12, 60)])
def test_a_webcams_noise_is_no_change(noise: float, quality: int) -> None:
    """Two frames of one still table, each with its own noise: answered from memory, 20 pairs of 20."""
    rng = np.random.default_rng(int(noise))
    pairs = [(_filmed(TABLE, rng, noise, quality), _filmed(TABLE, rng, noise, quality)) for _ in range(20)]
    assert sum(_unchanged(a, b) for a, b in pairs) == 20


@pytest.mark.parametrize(("noise", "quality"), [(0, 95), (4, 90), (8, 75)])
def test_a_thin_stick_laid_is_a_change(noise: float, quality: int) -> None:
    """A matchstick laid anywhere at any angle, 25 levels darker than the cloth: read, 20 of 20."""
    rng = np.random.default_rng(100 + int(noise))
    seen = [
        not _unchanged(_filmed(TABLE, rng, noise, quality), _filmed(_stick_laid(TABLE, rng), rng, noise, quality))
        for _ in range(20)
    ]
    assert sum(seen) == 20


def test_a_card_taken_away_is_a_change() -> None:
    """Each of the sample's cards painted over in the cloth's colour: read every time."""
    rng = np.random.default_rng(7)
    before = _filmed(TABLE, rng, 4, 90)
    cloth = np.median(TABLE.reshape(-1, 3), axis=0).tolist()
    cards = CardRecognizer()(TABLE)
    assert len(cards) == 12
    for card in cards:
        gone = cv2.fillConvexPoly(TABLE.copy(), card.corners.astype(np.int32), cloth)
        assert not _unchanged(before, _filmed(gone, rng, 4, 90))


def test_light_stepping_over_the_whole_table_is_no_change() -> None:
    """A camera's exposure stepping brighter by 8 levels everywhere moves nothing on the table."""
    rng = np.random.default_rng(3)
    brighter = np.clip(TABLE.astype(np.int16) + 8, 0, 255).astype(np.uint8)
    assert _unchanged(_filmed(TABLE, rng, 4, 90), _filmed(brighter, rng, 4, 90))


def test_a_still_table_is_read_again_every_few_frames() -> None:
    """However long the table holds still, one frame in READ_AGAIN_AFTER + 1 is read: a change too faint to
    see is read a moment later."""
    rng = np.random.default_rng(5)
    still = StillTable()
    read = [not still.unchanged(_filmed(TABLE, rng, 2, 90)) for _ in range(3 * (READ_AGAIN_AFTER + 1))]
    assert [i for i, r in enumerate(read) if r] == [0, READ_AGAIN_AFTER + 1, 2 * (READ_AGAIN_AFTER + 1)]


def test_a_frame_of_another_size_is_read() -> None:
    still = StillTable()
    assert not still.unchanged(TABLE)
    assert not still.unchanged(cv2.resize(TABLE, (640, 360)))


def test_remembered_answers_a_still_frame_with_the_last_reading() -> None:
    """The reading is the one read, a copy each time (a caller's change to it is not remembered), and a read
    that fails leaves the next frame to be read."""
    rng = np.random.default_rng(9)
    calls: list[int] = []

    def read(frame: np.ndarray) -> list[int]:
        calls.append(len(calls))
        if len(calls) == 2:
            raise RuntimeError("a corrupt frame")
        return [int(frame.mean())]

    remembered = Remembered(read)
    first = remembered(_filmed(TABLE, rng, 2, 90))
    first.append(-1)
    assert remembered(_filmed(TABLE, rng, 2, 90)) == first[:1]
    assert len(calls) == 1 and remembered.read_count == 1
    laid = _stick_laid(TABLE, rng, darker=80)
    with pytest.raises(RuntimeError):
        remembered(laid)
    assert remembered(laid) == [int(laid.mean())]
    assert len(calls) == 3 and remembered.read_count == 2
