"""Tiles on a polka-dot cloth: where the dots lie at a tile's pip spacing, a tile-sized patch of cloth looks like
a 5|5 or a 4|4. The pip readers learnt such patches on square lattices of dots (DOT_TRAIN_TABLES); the cloth here
is the probe kind in staggered rows, which no training frame draws."""

from models.evaluate_dominoes import SceneOptions, evaluation_spec, score_scene
from models.synth.dominoes import render_dominoes
from models.synth.tables import DOT_TRAIN_TABLES, PROBE_TABLES
from vision.dominoes import DominoRecognizer

SEED = 51_000_000  # the tuning seeds
SCENES = 12


def test_a_polka_dot_cloth_is_not_read_as_tiles() -> None:
    assert "polka" in PROBE_TABLES and "polka" not in DOT_TRAIN_TABLES
    reader = DominoRecognizer()
    tiles = right = false = 0
    for index in range(SCENES):
        _, spec = evaluation_spec(index, SEED, SceneOptions(table="polka"))
        scene = render_dominoes(SEED + index, spec)
        score = score_scene(scene, reader(scene.image))
        tiles, right, false = tiles + score.tiles, right + score.read_right, false + score.false_detections
    # Before the dotted block: 194 of 220 right, 45 readings on the cloth; after it 195 and 4.
    assert right >= 0.85 * tiles
    assert false <= 0.05 * tiles, f"{false} readings on the cloth, {tiles} tiles"
