"""The card recogniser on seeded held-out renders: fonts, designs and tables that training never used."""

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vision.cards.recognize as recognize
from models.evaluate import CardScore, Laid, evaluate_cards, score_scene
from models.synth.scenes import Camera, Scene, SceneSpec, TruthCard, render_scene
from models.train_cards import training_spec
from vision.cards.artwork import FACE_CLASSES, CardFace
from vision.cards.classify import Reading
from vision.cards.recognize import Card, CardRecognizer, select_cards

# The README's held-out set: read once per test run, judged three ways.
HELDOUT_SCENES, HELDOUT_FIRST_SEED = 120, 20_000_000
HELDOUT_SEED = 50_000_000  # other held-out renders for the focused tests below
READ_RIGHT_WHEN_FOUND = 0.98
RECALL_FLOOR = 0.92  # measured 94.0 % with the committed models
TOUCHING_SEED = 86_600_000  # held-out Tempus lines laid touching (models.evaluate.TOUCHING_GAP_MM) no evaluation reads
TOUCHING_FLOOR = 0.90  # measured 92.7 % of 438 cards with the committed models (91.8 % with the locator before)
WILDS_SEED = 83_500_000  # held-out scenes of Wilds printed every way, no evaluation or other test reads
WILDS_FLOOR = 0.9  # measured 93.8 % of 240 (75.0 % with the classifier before it trained on them)


@pytest.fixture(scope="module")
def recognizer() -> CardRecognizer:
    return CardRecognizer()


@pytest.fixture(scope="module")
def heldout(recognizer: CardRecognizer) -> CardScore:
    return evaluate_cards(HELDOUT_SCENES, HELDOUT_FIRST_SEED, recognizer, quiet=True)


def test_what_it_reports_is_right(heldout: CardScore) -> None:
    assert heldout.cards >= 300
    assert heldout.read_right / heldout.found >= READ_RIGHT_WHEN_FOUND, heldout.confusions
    assert heldout.false_rate < 0.01, heldout.confusions


def test_finds_at_least_what_it_found_when_last_measured(heldout: CardScore) -> None:
    assert heldout.found / heldout.cards >= RECALL_FLOOR, heldout.confusions


@pytest.mark.xfail(reason="93-95 % of held-out cards read right: far designs and unproposed cards (issue 2)")
def test_meets_the_issue_bar(heldout: CardScore) -> None:
    assert heldout.accuracy >= 0.995, heldout.confusions


def test_tempus_lines_laid_touching_are_read(recognizer: CardRecognizer) -> None:
    """Cards laid touching, or each over the one before, as players lay them in a race."""
    score = evaluate_cards(30, TOUCHING_SEED, recognizer, quiet=True, laid=Laid.TOUCHING)
    assert score.cards >= 300
    assert score.accuracy >= TOUCHING_FLOOR, score.confusions
    assert score.false_rate < 0.01, score.confusions


def test_wilds_printed_every_way_are_read(recognizer: CardRecognizer) -> None:
    """Wilds as other decks print them: "16" as one pair of numerals, or the high digit first ("6/1", "6 1")."""
    wilds = tuple(face for face in FACE_CLASSES if face.kind == "wild")
    score = CardScore()
    for seed in range(WILDS_SEED, WILDS_SEED + 24):
        scene = render_scene(seed, SceneSpec(split="heldout", faces=wilds * 2, varied_wilds=True))
        score.add(score_scene(scene, recognizer(scene.image)))
    assert score.cards == 240
    assert score.accuracy >= WILDS_FLOOR, score.confusions
    assert score.false_rate < 0.01, score.confusions


def test_six_and_nine_at_every_rotation(recognizer: CardRecognizer) -> None:
    """6s and 9s turned every which way: the underline or the top-left index decides. The hardest pair, so
    its floor is a little under the general one (measured 98 % of 209 found)."""
    faces = tuple(CardFace("digit", (d,)) for d in (6, 9, 6, 9, 9, 6, 6, 9))
    score = CardScore()
    for seed in range(30):
        scene = render_scene(HELDOUT_SEED + 1000 + seed, SceneSpec(split="heldout", faces=faces, card_px=(90, 160)))
        score.add(score_scene(scene, recognizer(scene.image)))
    assert score.found >= 120
    assert score.read_right / score.found >= 0.97, score.confusions


def test_six_and_nine_told_apart_by_corner_indices_alone(recognizer: CardRecognizer) -> None:
    """6s and 9s with no underline, told apart by an index top left or one in each of two opposite corners (the
    second turned half round): read upright, the top-left index is the card's own digit. The classifier alone
    read 179 of 236 found (75.8 %); with the index network (vision/cards/index.py), 228 (96.6 %) when written."""
    faces = tuple(CardFace("digit", (d,)) for d in (6, 9, 6, 9, 9, 6, 6, 9))
    score = CardScore()
    for seed in range(30):
        spec = SceneSpec(split="heldout", faces=faces, card_px=(90, 160), index_only=True)
        scene = render_scene(HELDOUT_SEED + 1000 + seed, spec)
        score.add(score_scene(scene, recognizer(scene.image)))
    assert score.found >= 120
    assert score.read_right / score.found >= 0.95, score.confusions


def test_empty_tables_seldom_show_a_card(recognizer: CardRecognizer) -> None:
    """Held-out tables with pens, coins and paper on them but no card: at most one in twenty shows one. When
    written, one of these 40 did (a marble ring outlined against a pen, read as a 0); 3 of 60 over seeds
    from HELDOUT_SEED + 2000."""
    shown = 0
    for seed in range(40):
        scene = render_scene(HELDOUT_SEED + 2000 + seed, SceneSpec(split="heldout", faces=(), distractors=True))
        shown += bool(recognizer(scene.image))
    assert shown <= 2


def _reading(face: CardFace, scale: float, confidence: float) -> Reading:
    quad = np.array([[-63, -88], [63, -88], [63, 88], [-63, 88]], np.float32) * scale / 2 + 500
    return Reading(face, quad, confidence)


def test_selection_prefers_the_outer_outline_of_one_card() -> None:
    seven = CardFace("digit", (7,))
    inner, outer = _reading(seven, 0.8, 0.99), _reading(seven, 1.0, 0.9)
    cards = select_cards([inner, outer])
    assert len(cards) == 1
    assert np.allclose(cards[0].corners, outer.corners)
    assert cards[0].confidence == pytest.approx(0.99)


@pytest.mark.parametrize("share", [0.5, 0.79, 0.81, 1.0])
def test_an_outer_outline_read_far_less_surely_does_not_take_the_cards_place(share: float) -> None:
    """A loose outline round a card, read alike but with under OUTER_CONFIDENCE_SHARE of the card's
    confidence, is the card grown onto the table; read about as surely, it is the card round a printed frame."""
    two = CardFace("digit", (2,))
    card = _reading(two, 0.8, 0.96)
    loose = _reading(two, 1.0, 0.96 * share)
    (chosen,) = select_cards([card, loose])
    taken = loose if share >= recognize.OUTER_CONFIDENCE_SHARE else card
    assert np.allclose(chosen.corners, taken.corners)
    assert chosen.confidence == pytest.approx(0.96)


@pytest.mark.parametrize("outer_more_sure", [False, True])
def test_selection_takes_the_outline_with_the_rim(outer_more_sure: bool) -> None:
    """Two outlines of one card read alike: the outer one is the card where a panel is printed inside it, but
    where the outer one only grows the card onto the table (its rim far weaker), the inner one is the card."""
    seven = CardFace("digit", (7,))
    card, grown, panel = _reading(seven, 1.0, 0.9), _reading(seven, 1.4, 0.9), _reading(seven, 0.7, 0.9)
    table = np.full((1000, 1000, 3), 40, np.uint8)
    cv2.fillConvexPoly(table, card.corners.astype(np.int32), (235, 235, 235))
    printed = table.copy()
    cv2.fillConvexPoly(printed, panel.corners.astype(np.int32), (160, 60, 20))
    sure, unsure = (0.99, 0.9) if outer_more_sure else (0.9, 0.99)

    def pick(image: np.ndarray | None, inner: Reading, outer: Reading) -> np.ndarray:
        readings = [replace(inner, confidence=unsure), replace(outer, confidence=sure)]
        (chosen,) = select_cards(readings, image)
        assert chosen.confidence == pytest.approx(0.99)  # the surer reading's confidence, either outline
        return chosen.corners

    assert np.allclose(pick(table, card, grown), card.corners)
    assert np.allclose(pick(printed, panel, card), card.corners)
    assert np.allclose(pick(None, card, grown), grown.corners)  # without the picture, the outer one


def test_selection_keeps_the_confident_reading_when_two_disagree() -> None:
    a, b = _reading(CardFace("digit", (1,)), 1.0, 0.7), _reading(CardFace("digit", (7,)), 1.0, 0.95)
    assert [c.face for c in select_cards([a, b])] == [b.face]


def test_an_unsure_reading_far_smaller_than_a_card_is_dropped(recognizer: CardRecognizer, monkeypatch) -> None:
    """Cards are 60 px long and up: an unsure reading 30 px long is the cloth's print, a sure one is kept,
    and so is an unsure one of a card's size."""
    one, two, three = (CardFace("digit", (d,)) for d in (1, 2, 3))
    small = 30 / 176  # _reading's outline is 176 px long at scale 1
    found = [
        Card(one, _reading(one, small, 0.6).corners, 0.6),
        Card(two, _reading(two, small, 0.97).corners + 300, 0.97),
        Card(three, _reading(three, 0.5, 0.6).corners - 300, 0.6),
    ]
    monkeypatch.setattr(recognizer, "_look", lambda image: (found, {}))
    monkeypatch.setattr(recognizer, "from_above", lambda image, cards: [])
    monkeypatch.setattr(recognizer, "face_down_check", None)  # the readings lie on a black frame, no card's face
    cards, _ = recognizer.timed(np.zeros((720, 1280, 3), np.uint8))
    assert [c.face for c in cards] == [two, three]


def _laid_cards(seed: int, tilt: float, scales: list[float]) -> np.ndarray:
    """Cards (63 x 88 mm, each `scales` times that) lying anyhow apart on a table a webcam sees `tilt` degrees
    from straight down, as outlines (n, 4, 2 px)."""
    rng = np.random.default_rng(seed)
    camera = Camera.looking_at((1280, 720), rng.uniform(70, 110), tilt, rng.uniform(-180, 180), 64)
    own = np.array([[-31.5, -44], [31.5, -44], [31.5, 44], [-31.5, 44]])
    outlines = []
    for i, scale in enumerate(scales):
        turn = rng.uniform(-np.pi, np.pi)
        rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        centre = np.array([(i % 4 - 1.5) * 120, (i // 4 - 0.5) * 130]) + rng.uniform(-10, 10, 2)
        outlines.append(camera.project(scale * own @ rotation.T + centre))
    return np.array(outlines, np.float32)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.integers(0, 10_000),
    st.floats(0, 60),
    st.integers(recognize.MIN_CARDS_FOR_SIZE, 8),
    st.sampled_from([0.4, 0.5, 0.63, 0.75, 1.0, 1.35, 1.55, 2.0, 3.0]),
    st.booleans(),
)
def test_an_unsure_reading_of_another_size_on_the_table_is_dropped(
    seed: int, tilt: float, count: int, odd_scale: float, odd_sure: bool
) -> None:
    """Seen under any tilt, cards keep their size on the table: an unsure reading 1.55 times a card's size or
    0.63 of it and further (an empty lane, a marker's corner, a loose outline across two cards) is dropped, and
    a sure one, or one nearer a card's size, stands."""
    outlines = _laid_cards(seed, tilt, [1.0] * (count - 1) + [odd_scale])
    face = CardFace("digit", (2,))
    cards = [Card(face, q, 0.8) for q in outlines[:-1]] + [Card(face, outlines[-1], 0.95 if odd_sure else 0.6)]
    alike = recognize.sized_alike(cards, (1280, 720))
    assert all(alike[:-1])
    assert alike[-1] == (odd_sure or odd_scale in (0.75, 1.0, 1.35))


def test_two_cards_of_different_sizes_both_stand() -> None:
    """Of two readings, neither says which size a card is."""
    outlines = _laid_cards(0, 30.0, [1.0, 3.0])
    face = CardFace("digit", (2,))
    assert recognize.sized_alike([Card(face, q, 0.5) for q in outlines], (1280, 720)) == [True, True]


def test_an_unsure_reading_twice_a_cards_size_is_read_again_at_its_neighbours_size(
    recognizer: CardRecognizer, monkeypatch
) -> None:
    """A Tempus line's end card read unsure on an outline twice its size, spilling onto the table beyond the
    line's end (seen on a checked cloth), is read again at its neighbours' size and comes out right."""
    monkeypatch.setattr(recognizer, "from_above", lambda image, cards: [])
    recovered = scenes = 0
    for seed in range(HELDOUT_SEED, HELDOUT_SEED + 60):
        spec = training_spec(seed, split="heldout")
        if spec.faces is None:  # Tempus lines: cards of one size side by side
            continue
        scene = render_scene(seed, spec)
        centres = np.array([t.corners.mean(axis=0) for t in scene.cards])
        end = int(np.argmax(np.linalg.norm(centres - centres.mean(axis=0), axis=1)))
        corners = scene.cards[end].corners
        away = centres[end] - np.delete(centres, end, axis=0).mean(axis=0)
        width = np.linalg.norm(corners[1] - corners[0])
        grown = (corners - centres[end]) * 2 + centres[end] + away / np.linalg.norm(away) * width / 4
        found = [Card(t.face, t.corners, 0.97) for i, t in enumerate(scene.cards) if i != end]
        found.append(Card(scene.cards[end].face, grown.astype(np.float32), 0.75))  # too sure to be polished
        monkeypatch.setattr(recognizer, "_look", lambda image, found=found: (found, {}))
        score = score_scene(scene, recognizer(scene.image))
        scenes += 1
        recovered += score.read_right == len(scene.cards) and score.false_detections == 0
        if scenes == 12:
            break
    assert scenes == 12 and recovered >= 10


def test_the_play_mat_alone_has_no_cards(recognizer: CardRecognizer) -> None:
    """People play on the mat: its ArUco markers and zone lines must never read as digits."""
    from calibration.evaluate import mat_views

    assert sum(len(recognizer(view.frame)) for view in mat_views(12, seed=90_000)) == 0


def _camera_homography(rng: np.random.Generator) -> np.ndarray:
    """A random plane-to-image homography with real perspective (the table seen from its edge)."""
    h = np.eye(3) + rng.normal(0, 0.15, (3, 3))
    h[2] = [rng.uniform(-0.002, 0.002), rng.uniform(0.0005, 0.003), 1.0]
    return h


@pytest.mark.parametrize("seed", range(20))
def test_neighbours_follow_the_tables_perspective(seed: int) -> None:
    """A card's neighbours are where equal cards one card and a gap away on the same table plane appear:
    under any perspective, the camera's own homography applied to the shifted card must agree."""
    import cv2

    from vision.cards.recognize import NEIGHBOUR_GAP, UNIT_SQUARE, Card, neighbour_quads

    rng = np.random.default_rng(seed)
    table_to_image = _camera_homography(rng) @ np.diag([120.0, 170.0, 1.0])  # a card 120 x 170 table units

    def project(square: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(square[None].astype(np.float64), table_to_image)[0]

    card = Card(CardFace("digit", (4,)), project(UNIT_SQUARE).astype(np.float32), 0.9)
    step = 1 + NEIGHBOUR_GAP
    expected = [project(UNIT_SQUARE + offset) for offset in ((step, 0), (-step, 0), (0, step), (0, -step))]
    for got, want in zip(neighbour_quads(card), expected, strict=True):
        assert np.allclose(got, want, atol=1e-2 * np.abs(want).max())


def test_a_portrait_frame_reads_as_well_as_its_landscape_original(recognizer: CardRecognizer) -> None:
    """Phones take portrait photos: the same picture turned a quarter must not lose cards to the locator's
    landscape input. Turned the other way round from the reader's own turn, so the test does not mirror it.
    Read by the landscape locator both ways: this is the turn's test, the portrait locator has its own
    (tests/vision/test_portrait_locator.py)."""
    r = recognizer
    turned_reader = CardRecognizer(
        r.classifier, r.locator, r.corners, r.focus, r.closer_locator, portrait_locator=r.locator
    )
    landscape_score, portrait_score = CardScore(), CardScore()
    for seed in range(HELDOUT_SEED + 100, HELDOUT_SEED + 112):
        scene = render_scene(seed, training_spec(seed, "heldout"))
        width = scene.image.shape[1]
        portrait = Scene(
            np.ascontiguousarray(np.rot90(scene.image)),  # (x, y) -> (y, width - 1 - x)
            [TruthCard(c.face, np.stack([c.corners[:, 1], width - 1 - c.corners[:, 0]], axis=1)) for c in scene.cards],
        )
        landscape_score.add(score_scene(scene, recognizer(scene.image)))
        portrait_score.add(score_scene(portrait, turned_reader(portrait.image)))
    assert landscape_score.cards >= 60
    assert portrait_score.read_right >= 0.93 * landscape_score.read_right
    assert portrait_score.false_detections <= landscape_score.false_detections + 1


def test_the_heat_map_is_read_at_image_points() -> None:
    from vision.cards.centres import HeatMap

    heat = np.zeros((10, 20), np.float32)
    heat[4, 7] = 0.8
    near = HeatMap(heat, cell=5.0)
    inside = np.array([[7 * 5 + 2, 4 * 5 + 2]], np.float32)  # a pixel inside cell (row 4, column 7)
    outside = np.array([[-50, 10], [10, 5000]], np.float32)
    assert near.at(inside).tolist() == pytest.approx([0.8])
    assert near.at(outside).tolist() == [0.0, 0.0]
    # The map of a portrait frame turned to landscape is read at the portrait frame's points.
    height = 200
    turned_back_point = np.array([[inside[0, 1], height - 1 - inside[0, 0]]], np.float32)
    assert HeatMap(heat, cell=5.0, portrait_height=height).at(turned_back_point).tolist() == pytest.approx([0.8])


def test_doubt_about_the_turn_is_not_doubt_about_the_face(recognizer: CardRecognizer, monkeypatch) -> None:
    """A face split between its upright and half-turned classes is still that face, with their summed
    confidence, turned the likelier way; a crop whose likeliest answer is "not a card" is dropped."""
    from vision.cards.classify import N_CLASSES, N_FACES, NOT_CARD

    classifier = recognizer.classifier
    face = 5
    split = np.zeros(N_CLASSES, np.float32)
    split[face], split[N_FACES + face], split[NOT_CARD] = 0.25, 0.35, 0.4
    rejected = np.zeros(N_CLASSES, np.float32)
    rejected[face], rejected[NOT_CARD] = 0.3, 0.7
    monkeypatch.setattr(classifier, "probabilities", lambda crops: np.stack([split, rejected][: len(crops)]))
    quad = np.array([[100, 100], [163, 100], [163, 188], [100, 188]], np.float32)  # portrait: one reading each
    kept, dropped = classifier.read(np.zeros((300, 300, 3), np.uint8), [quad, quad + 150])
    assert dropped is None
    assert kept.face == FACE_CLASSES[face]
    assert kept.confidence == pytest.approx(0.6)
    assert np.allclose(kept.corners, np.roll(quad, -2, axis=0))  # the half-turned class was the likelier


def test_a_doubted_outline_is_read_again_on_refined_corners(recognizer, monkeypatch) -> None:
    """A loose outline around a card is read again where the corner network puts it, so the card's own
    outline comes out; not over a card already read."""
    from vision.cards.recognize import Card

    truth = np.array([[300, 200], [363, 200], [363, 288], [300, 288]], np.float32)
    loose = (truth - truth.mean(axis=0)) * 1.2 + truth.mean(axis=0)
    face = CardFace("digit", (7,))

    def read(image, quads):  # a classifier that reads only the card's own outline
        return [Reading(face, q, 0.9) if np.abs(q - truth).max() < 1 else None for q in quads]

    def refine(image, quads):  # a corner network that knows where the card is
        return [truth if np.abs(q - loose).max() < 1 else q for q in quads]

    monkeypatch.setattr(recognizer.classifier, "read", read)
    monkeypatch.setattr(recognizer.corners, "refine", refine)
    image = np.zeros((480, 640, 3), np.uint8)
    (found,) = recognizer.reread(image, [loose], [])
    assert found.face == face and np.abs(found.corners - truth).max() < 1
    assert recognizer.reread(image, [loose], [Card(face, truth, 0.9)]) == []
    assert recognizer.reread(image, [loose + 100], []) == []  # refined nowhere near a card: nothing read


def test_near_misses_come_back_flagged_and_a_sure_reading_wins(recognizer: CardRecognizer, monkeypatch) -> None:
    from vision.cards.classify import N_CLASSES, NOT_CARD

    def probabilities(face_share: float) -> np.ndarray:
        p = np.zeros(N_CLASSES, np.float32)
        p[3], p[NOT_CARD] = face_share, 1 - face_share
        return p

    classifier = recognizer.classifier
    square = np.array([[100, 100], [170, 100], [170, 170], [100, 170]], np.float32)  # two readings: both turns
    cases = {(0.3, 0.2): (0.3, True), (0.3, 0.7): (0.7, False), (0.01, 0.02): None}
    for (first, second), expected in cases.items():
        monkeypatch.setattr(
            classifier, "probabilities", lambda crops, a=first, b=second: np.stack([probabilities(a), probabilities(b)])
        )
        (reading,) = classifier.read(np.zeros((300, 300, 3), np.uint8), [square], near_misses=0.05)
        got = None if reading is None else (round(reading.confidence, 2), reading.rejected)
        assert got == expected
        (plain,) = classifier.read(np.zeros((300, 300, 3), np.uint8), [square])
        assert (plain is None) == (expected is None or expected[1])


def test_cards_have_a_rim_and_bare_cloth_mostly_has_none() -> None:
    """The rim check that keeps unsure readings of patterned cloth out: nearly every true card outline steps in
    colour at its edge; the same outline moved onto bare table mostly does not (checks and seams do)."""
    from vision.cards.recognize import RIM_MIN
    from vision.cards.refine import rim_contrast
    from vision.geometry import quad_iou

    rng = np.random.default_rng(0)
    cards, cloth = [], []
    for seed in range(HELDOUT_SEED, HELDOUT_SEED + 20):
        scene = render_scene(seed, training_spec(seed, split="heldout"))
        h, w = scene.image.shape[:2]
        for truth in scene.cards:
            cards.append(rim_contrast(scene.image, truth.corners))
            moved = truth.corners - truth.corners.mean(axis=0) + rng.uniform((0, 0), (w, h))
            inside = (moved >= 0).all() and (moved[:, 0] < w).all() and (moved[:, 1] < h).all()
            if inside and all(quad_iou(moved, other.corners) == 0 for other in scene.cards):
                cloth.append(rim_contrast(scene.image, moved))
    assert len(cards) >= 150 and len(cloth) >= 50
    assert np.mean(np.array(cards) >= RIM_MIN) >= 0.98
    assert np.mean(np.array(cloth) >= RIM_MIN) <= 0.35


def test_a_card_at_a_faint_locator_peak_is_read(recognizer: CardRecognizer, monkeypatch) -> None:
    """Where neither the edges nor a clear locator peak outline a card, a faint peak is looked at too."""
    import vision.cards.recognize as recognize
    from vision.cards.centres import FAINT_THRESHOLD, PEAK_THRESHOLD, HeatMap

    spec = SceneSpec(split="heldout", n_cards=(1, 1), card_px=(150, 150), max_tilt=10, distractors=False)
    scene = render_scene(HELDOUT_SEED + 7, spec)
    (truth,) = scene.cards
    loose = (truth.corners - truth.corners.mean(axis=0)) * 1.1 + truth.corners.mean(axis=0)
    no_heat = HeatMap(np.zeros((1, 1), np.float32), 1e6)
    monkeypatch.setattr(recognize, "locate_card_quads", lambda image: [])
    faint = (PEAK_THRESHOLD + FAINT_THRESHOLD) / 2
    monkeypatch.setattr(recognizer.locator, "read", lambda image: ([(faint, loose)], no_heat))
    (card,) = recognizer(scene.image)
    assert score_scene(scene, [card]).read_right == 1


@pytest.mark.parametrize("grown", [0.5, 2.0])
def test_a_peak_outlined_the_wrong_size_is_read_at_its_neighbours_size(
    recognizer: CardRecognizer, monkeypatch, grown: float
) -> None:
    """With the corner network standing still, only the neighbour's size can put the outline on the card."""
    from vision.cards.centres import half_axes, outline
    from vision.cards.recognize import Card

    spec = SceneSpec(split="heldout", n_cards=(2, 2), card_px=(120, 120), max_tilt=10, distractors=False)
    scene = render_scene(HELDOUT_SEED + 3, spec)
    known, other = scene.cards
    center, u, v = half_axes(other.corners)
    wrong_size = outline(center, u * grown, v * grown)
    monkeypatch.setattr(recognizer.corners, "refine", lambda image, quads: quads)
    alone = Scene(scene.image, [other])
    assert score_scene(alone, recognizer.reread(scene.image, [wrong_size], [])).read_right == 0
    found = recognizer.read_resized(scene.image, [(0.9, wrong_size)], [Card(known.face, known.corners, 1.0)])
    assert score_scene(alone, found).read_right == 1


def test_a_peak_outlined_at_its_neighbours_size_is_read_as_it_is_where_refining_strays(
    recognizer: CardRecognizer, monkeypatch
) -> None:
    """A dark card crossed by a sash (seed 70000042 of the held-out set): the corner network and the rim search
    both move the outline the neighbour's size gives off the card, which it fits as it is; read so, only as
    surely as AS_GIVEN_SURE."""
    from vision.cards.centres import half_axes, outline

    spec = SceneSpec(split="heldout", n_cards=(2, 2), card_px=(120, 120), max_tilt=10, distractors=False)
    scene = render_scene(HELDOUT_SEED + 3, spec)
    known, other = scene.cards
    center, u, v = half_axes(other.corners)
    drift = (other.corners[1] - other.corners[0]) / 2
    monkeypatch.setattr(recognizer.corners, "refine", lambda image, quads: [q + drift for q in quads])
    monkeypatch.setattr(recognize, "refine_quad", lambda image, quad: quad - drift)
    alone = Scene(scene.image, [other])
    peak = [(0.9, outline(center, u * 0.5, v * 0.5))]
    found = recognizer.read_resized(scene.image, peak, [Card(known.face, known.corners, 1.0)])
    assert score_scene(alone, found).read_right == 1
    monkeypatch.setattr(recognize, "AS_GIVEN_SURE", 1.01)
    assert (
        score_scene(alone, recognizer.read_resized(scene.image, peak, [Card(known.face, known.corners, 1.0)])).found
        == 0
    )
