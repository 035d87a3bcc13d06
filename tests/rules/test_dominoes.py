import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dominoes import Domino, InvalidDominoError, double_set

ends = st.integers(0, 9)
# Timing is not what these tests judge; a loaded machine must not fail them.
UNTIMED = settings(deadline=None)


@pytest.mark.parametrize(("top", "tiles", "pips"), [(6, 28, 168), (9, 55, 495)])
def test_set_sizes_and_pip_totals(top: int, tiles: int, pips: int) -> None:
    tiles_of_set = double_set(top)
    assert len(tiles_of_set) == tiles
    assert len(set(tiles_of_set)) == tiles
    assert sum(tile.pips for tile in tiles_of_set) == pips


@pytest.mark.parametrize("top", range(10))
def test_every_pair_once_and_each_number_on_top_plus_two_ends(top: int) -> None:
    tiles = double_set(top)
    assert {tile.key for tile in tiles} == {(a, b) for a in range(top + 1) for b in range(top + 1) if a <= b}
    for number in range(top + 1):
        assert sum(number in tile.ends for tile in tiles) == top + 1
        assert sum(tile.ends.count(number) for tile in tiles) == top + 2
    assert sum(tile.is_double for tile in tiles) == top + 1


@UNTIMED
@given(ends, ends)
def test_parse_str_repr_round_trip_keeps_the_written_order(a: int, b: int) -> None:
    tile = Domino(a, b)
    assert str(tile) == f"{a}|{b}"
    assert Domino.parse(str(tile)).ends == (a, b)
    again = eval(repr(tile), {"Domino": Domino})
    assert again == tile
    assert again.ends == (a, b)
    assert repr(tile) == f"Domino.parse('{a}|{b}')"
    assert tile.to_json() == [a, b]


@UNTIMED
@given(ends, ends)
def test_equality_and_hash_ignore_orientation(a: int, b: int) -> None:
    tile, turned = Domino(a, b), Domino(b, a)
    assert tile == turned
    assert hash(tile) == hash(turned)
    assert len({tile, turned}) == 1
    assert tile.turned().ends == (b, a)
    assert tile.pips == a + b
    assert tile.is_double == (a == b)
    assert tile.key == (min(a, b), max(a, b))


@UNTIMED
@given(ends, ends, ends, ends)
def test_tiles_differ_when_their_ends_differ(a: int, b: int, c: int, d: int) -> None:
    assert (Domino(a, b) == Domino(c, d)) == (sorted((a, b)) == sorted((c, d)))


def test_parse_accepts_spaces() -> None:
    assert Domino.parse(" 3 | 5 ").ends == (3, 5)


@pytest.mark.parametrize("text", ["", "3", "3|", "|5", "3-5", "35", "10|2", "3|5|1", "a|b", "-1|2", "3||5"])
def test_bad_syntax_is_an_invalid_domino(text: str) -> None:
    with pytest.raises(InvalidDominoError):
        Domino.parse(text)


@pytest.mark.parametrize("pips", [(10, 1), (1, -1), (True, 2), (2.0, 3), ("3", 4)])
def test_impossible_pips_are_refused(pips: tuple[object, object]) -> None:
    with pytest.raises(InvalidDominoError):
        Domino(*pips)  # type: ignore[arg-type]


def test_invalid_domino_is_a_value_error_and_bad_sets_are_refused() -> None:
    assert issubclass(InvalidDominoError, ValueError)
    for top in (-1, 10):
        with pytest.raises(InvalidDominoError):
            double_set(top)


def test_a_domino_is_not_equal_to_its_pair_of_ends() -> None:
    assert Domino(3, 5) != (3, 5)
