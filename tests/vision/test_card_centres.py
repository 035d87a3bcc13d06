"""The card locator's targets decode back to the cards they were made from."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.cards.centres import INPUT_SIZE, CardLocator, HeatMap, decode, encode_targets, half_axes, outline
from vision.cards.recognize import hottest


def _card(cx: float, cy: float, height: float, turn: float, skew: float) -> np.ndarray:
    """A card's corners in the face's order (top-left first), turned and slightly foreshortened."""
    w, h = height / 1.4 / 2, height / 2
    face = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) * np.array([[1 - skew], [1 - skew], [1], [1]])
    c, s = np.cos(turn), np.sin(turn)
    return face @ np.array([[c, s], [-s, c]]) + np.array([cx, cy])


def _logits(heat: np.ndarray) -> np.ndarray:
    p = np.clip(heat, 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


@settings(deadline=None, max_examples=60)
@given(
    st.floats(60, 420),
    st.floats(60, 210),
    st.floats(24, 120),
    st.floats(-np.pi, np.pi),
    st.floats(0, 0.2),
)
def test_a_card_decodes_to_its_own_outline(cx: float, cy: float, height: float, turn: float, skew: float) -> None:
    corners = _card(cx, cy, height, turn, skew)
    heat, reg, _ = encode_targets([corners])
    (score, quad), *rest = decode(np.concatenate([_logits(heat)[None], reg]))
    assert not rest and score > 0.99
    # The outline is the card's parallelogram, up to a half turn (the axes are known up to sign).
    center, u, v = half_axes(corners)
    expected = outline(center, u, v)
    assert min(np.abs(np.roll(quad, k, axis=0) - expected).max() for k in (0, 2)) < 1e-3
    # Clockwise in image coordinates (y down): the shoelace sum is positive.
    x, y = quad[:, 0], quad[:, 1]
    assert np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0


def test_cards_side_by_side_keep_their_own_peaks() -> None:
    cards = [_card(100 + 40 * i, 120, 50, 0.1, 0.0) for i in range(4)]
    heat, reg, _ = encode_targets(cards)
    found = sorted(q.mean(axis=0)[0] for _, q in decode(np.concatenate([_logits(heat)[None], reg])))
    assert np.allclose(found, sorted(c.mean(axis=0)[0] for c in cards), atol=0.5)


def test_a_closer_look_puts_its_outlines_back_in_the_frame() -> None:
    """Each card of seeded held-out scenes, looked at closer in a box round it away from the frame's corner:
    an outline comes back centred on the card in the frame's own pixels."""
    from models.synth.scenes import render_scene
    from models.train_cards import training_spec

    locator = CardLocator()
    found = cards = 0
    for seed in range(82_100_000, 82_100_006):
        scene = render_scene(seed, training_spec(seed, split="heldout"))
        h, w = scene.image.shape[:2]
        scale = 2 * locator.input_scale(scene.image)
        for card in scene.cards:
            height = float(np.linalg.norm(card.corners[3] - card.corners[0]))
            x0, y0 = np.maximum(card.corners.min(axis=0) - height, 0).astype(int)
            x1, y1 = np.minimum(card.corners.max(axis=0) + height, (w, h)).astype(int)
            centres = [q.mean(axis=0) for s, q in locator.read_closer(scene.image, (x0, y0, x1, y1), scale)]
            cards += 1
            found += any(np.linalg.norm(c - card.corners.mean(axis=0)) < 0.15 * height for c in centres)
    assert cards >= 30 and found >= 0.9 * cards, (found, cards)


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 40), st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_past_the_cap_the_outlines_kept_are_the_hottest_in_their_order(count: int, most: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    heat = HeatMap(rng.random((20, 30)).astype(np.float32), cell=4.0)
    quads = [_card(x, y, 8.0, 0.0, 0.0).astype(np.float32) for x, y in rng.uniform(0, 119, (count, 2))]
    kept = hottest(quads, heat, most)
    assert len(kept) == min(count, most)
    index = [next(i for i, q in enumerate(quads) if q is k) for k in kept]
    assert index == sorted(index)  # the proposers' order stays
    centre_heat = heat.at(np.array([q.mean(axis=0) for q in quads]).reshape(-1, 2))
    dropped = sorted(set(range(count)) - set(index))
    if kept and dropped:
        assert centre_heat[index].min() >= centre_heat[dropped].max()


@pytest.mark.parametrize("height", [720, 960, 1280])
def test_a_frame_is_read_at_the_scale_of_its_longer_side(height: int) -> None:
    """A 16:9 frame, a 4:3 one and a square one as wide, upright or turned: all read at one scale."""
    for shape in ((height, 1280, 3), (1280, height, 3)):
        assert CardLocator.input_scale(np.zeros(shape, np.uint8)) == INPUT_SIZE[0] / 1280
