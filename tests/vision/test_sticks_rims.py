"""A reading along the rim of an outline the stick reader ignores is the object's edge, not a stick."""

import numpy as np

from vision.sticks.rims import RIM_BAND, along_rims


def _tile(x: float, y: float, w: float = 40.0, h: float = 80.0) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)


def test_rims_and_the_gaps_between_tiles_are_along_and_sticks_beside_them_are_not() -> None:
    tiles = [_tile(0, 0), _tile(0, 90)]  # two tiles in a row, a 10 px gap between them
    face = 0.8 * RIM_BAND * 40  # a tile's side face, just outside its long edge
    readings = {
        "side face of the row": ([[-face, 5], [-face, 165]], True),
        "along the top edge": ([[0, -6], [40, -6]], True),
        "in the gap between the tiles": ([[0, 85], [40, 85]], True),
        "parallel, a tile's width off": ([[80, 10], [80, 70]], False),
        "across the edge": ([[-30, 40], [30, 40]], False),
        "diagonal past a corner": ([[-5, -5], [45, 45]], False),
        "in line with the edge, mostly beyond it": ([[-face, 150], [-face, 290]], False),
    }
    along = along_rims(np.array([ends for ends, _ in readings.values()], np.float64), tiles)
    assert dict(zip(readings, along.tolist(), strict=True)) == {name: rim for name, (_, rim) in readings.items()}


def test_no_outlines_no_rims() -> None:
    assert not along_rims(np.array([[[0.0, 0.0], [50.0, 0.0]]]), []).any()


def test_a_stick_laid_beside_a_card_is_no_rim() -> None:
    """A DIGIT card (63 x 88 mm at 2 px a mm) and sticks (48 mm) along its long side: its shadowed edge is the
    card's, a stick a centimetre and a half off it is a stick, though within RIM_BAND of the card's width."""
    card = [_tile(0, 0, 126, 176)]
    off = 30.0
    assert off < RIM_BAND * 126
    along = along_rims(np.array([[[-4, 40], [-4, 136]], [[-off, 40], [-off, 136]]], np.float64), card)
    assert along.tolist() == [True, False]
