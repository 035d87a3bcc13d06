"""Seven Pis draws from a pile of tiles lying face down beside the pis: the reader leaves them out (each would
read as a blank 0|0) and reads the tiles face up as it does without them."""

import numpy as np

from models.evaluate_dominoes import evaluation_spec, score_scene
from models.synth.dominoes import render_dominoes
from vision.dominoes import DominoRecognizer
from vision.geometry import points_in_quads

SEED = 51_000_000
# The scenes of the tuning set where ten tiles face down beside the rest had one or more read as 0|0 with no divider
# at all, before such a blank was taken for a tile face down (NO_DIVIDER in vision/dominoes/blanks.py).
PILE_SCENES = (15, 28, 37, 43, 48, 83, 96, 101, 106, 121, 172, 175, 199)
PILE = 10


def test_tiles_lying_face_down_beside_the_rest_are_not_read() -> None:
    reader = DominoRecognizer()
    on_pile = piled = right_with = right_without = tiles = 0
    for index in PILE_SCENES:
        _, spec = evaluation_spec(index, SEED, face_down=PILE)
        scene = render_dominoes(SEED + index, spec)
        piled += len(scene.face_down)  # a crowded table leaves room for fewer
        read = reader(scene.image)
        centres = np.array([d.corners.mean(axis=0) for d in read]).reshape(-1, 2)
        on_pile += int(points_in_quads(centres, scene.face_down).any(axis=1).sum())
        right_with += score_scene(scene, read).read_right
        _, bare = evaluation_spec(index, SEED)
        bare_scene = render_dominoes(SEED + index, bare)
        right_without += score_scene(bare_scene, reader(bare_scene.image)).read_right
        tiles += len(scene.tiles)
    assert piled >= 0.6 * PILE * len(PILE_SCENES)
    assert on_pile <= 2, f"{on_pile} tiles read on the {piled} face down"
    assert right_with >= right_without - 2 and right_with >= 0.9 * tiles
