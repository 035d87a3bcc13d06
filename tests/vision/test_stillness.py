"""A still table answered from memory: the sensor's noise is no change, anything laid or moved is."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards.recognize import CardRecognizer
from vision.stillness import READ_AGAIN_AFTER, Remembered, grey_half, moved

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
    return not moved(grey_half(before), grey_half(after))


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


def _counted() -> tuple[Remembered, list[int]]:
    """A remembered reading that counts its reads; each reads the frame's mean grey, to the level."""
    calls: list[int] = []

    def read(frame: np.ndarray) -> list[int]:
        calls.append(len(calls))
        return [int(frame.mean())]

    return Remembered(read), calls


def test_a_still_table_is_answered_from_memory_once_two_readings_agree_and_read_again_every_few_frames() -> None:
    """The first two frames are read (and agree); then one frame in READ_AGAIN_AFTER + 1 is, so a change too faint
    to see is read a moment later."""
    rng = np.random.default_rng(5)
    remembered, _ = _counted()
    read = []
    for _ in range(2 + 2 * (READ_AGAIN_AFTER + 1)):
        before = remembered.read_count
        remembered(_filmed(TABLE, rng, 2, 90))
        read.append(remembered.read_count > before)
    assert [i for i, r in enumerate(read) if r] == [0, 1, 2 + READ_AGAIN_AFTER, 3 + 2 * READ_AGAIN_AFTER]


def test_a_table_just_changed_is_read_until_two_readings_agree() -> None:
    """A reading tipped by the noise in the frame after a change is not repeated: the frames after it are read
    until two readings agree."""
    rng = np.random.default_rng(6)
    readings = iter([["before"], ["before"], ["tipped"], ["laid"], ["laid"], ["never read"]])
    remembered = Remembered(lambda frame: next(readings))
    frames = [TABLE, TABLE, *([_stick_laid(TABLE, np.random.default_rng(1), darker=80)] * 4)]
    seen = [remembered(_filmed(frame, rng, 2, 90)) for frame in frames]
    assert seen == [["before"], ["before"], ["tipped"], ["laid"], ["laid"], ["laid"]]
    assert remembered.read_count == 5


def test_a_frame_of_another_size_is_read() -> None:
    remembered, calls = _counted()
    for frame in (TABLE, TABLE, TABLE, cv2.resize(TABLE, (640, 360))):
        remembered(frame)
    assert len(calls) == 3


def test_remembered_answers_a_still_frame_with_a_copy_and_reads_after_a_failed_read() -> None:
    """A caller's change to the reading is not remembered, and a read that fails leaves the next frame to be
    read."""
    rng = np.random.default_rng(9)
    fail = [False]

    def read(frame: np.ndarray) -> list[int]:
        if fail[0]:
            raise RuntimeError("a corrupt frame")
        return [int(frame.mean())]

    remembered = Remembered(read)
    remembered(_filmed(TABLE, rng, 2, 90))
    first = remembered(_filmed(TABLE, rng, 2, 90))
    first.append(-1)
    assert remembered(_filmed(TABLE, rng, 2, 90)) == first[:1] and remembered.read_count == 2
    fail[0] = True
    laid = _stick_laid(TABLE, rng, darker=80)
    with pytest.raises(RuntimeError):
        remembered(laid)
    fail[0] = False
    assert remembered(laid) == [int(laid.mean())] and remembered.read_count == 3
