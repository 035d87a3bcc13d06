"""Grid o' Digits as the camera sees it: the cards face up told from the backs over held-out tables, and the game
moved on by what changes between views of the grid (cards hidden by a hand, reveals seen together, cards turned
down and revealed again)."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from models.evaluate import Laid, evaluate_cards
from rules.grid_digits import new_game, play
from rules.pi import PI_DECIMALS
from vision.cards.grid import FaceUp, GridView

FIRST_SEED = 97_900_000  # held-out grid tables no other test renders
TABLES = 24


def _cell(k: int) -> FaceUp:
    """A card of a 5x5 grid of cards 100 px tall, at cell k."""
    return FaceUp(PI_DECIMALS[k], (100.0 + 80 * (k % 5), 100.0 + 110 * (k // 5)), 100.0)


def _shown(*decimals: int) -> tuple[FaceUp, ...]:
    return tuple(_cell(d) for d in decimals)


def test_reveals_turn_downs_and_a_card_revealed_again_follow_the_game() -> None:
    view = GridView(new_game())
    for shown in [(0,), (0, 1), (0, 1, 12), (), (0,), (0, 1, 2, 3, 4), (0, 1, 2, 3, 4, 5)]:
        view = view.seen(_shown(*shown))
    assert view.game == play([1, 4, 7, 1, 4, 1, 5, 9, 2])
    assert (view.game.kept, view.game.streak, view.game.player) == (5, (2,), 2)


def test_a_hand_over_cards_kept_face_up_changes_nothing() -> None:
    view = GridView(new_game()).seen(_shown(0, 1, 2, 3, 4, 5))
    hidden = view.seen(_shown(3, 5)).seen(_shown()).seen(_shown(0, 1, 2, 3, 4, 5))
    assert hidden.game == view.game and hidden.staying == view.staying


def test_a_wrong_turns_cards_must_be_turned_down_before_they_count_as_down() -> None:
    view = GridView(new_game()).seen(_shown(0, 1, 12))
    assert view.game.to_turn_down == (1, 4, 7) and view.game.player == 2
    view = view.seen(_shown(0, 1))
    assert view.game.to_turn_down == (1, 4) and not view.game.problems


@settings(max_examples=60, deadline=None)
@given(st.permutations(range(10)), st.integers(1, 10))
def test_cards_revealed_between_two_views_are_taken_in_the_order_that_fits_pi(order, n: int) -> None:
    shown = _shown(*order[:n])
    view = GridView(new_game()).seen(shown)
    digits = Counter(card.digit for card in shown)
    fitting = max(k for k in range(n + 1) if not Counter(PI_DECIMALS[:k]) - digits)
    assert [r.right for r in view.game.reveals[: fitting + 1]] == [True] * fitting + [False] * (fitting < n)
    assert len(view.game.reveals) == n


def test_cards_face_up_when_the_game_is_first_seen_are_credited_to_no_player() -> None:
    """A watch begun mid-game: the fives kept, a streak and a wrong turn's cards are found where they lie, no
    player revealed them, and the first reveal seen is the first player's."""
    view = GridView(new_game()).found(_shown(*range(7)))
    game = view.game
    assert (game.kept, game.streak, game.reveals, game.player, game.found) == (5, (2, 6), (), 1, 7)
    game = view.seen(_shown(*range(8))).game
    assert [(r.digit, r.player, r.right) for r in game.reveals] == [(5, 1, True)]
    waiting = GridView(new_game()).found(_shown(0, 1, 12)).game
    assert (waiting.to_turn_down, waiting.player, waiting.reveals) == ((1, 4, 7), 1, ())
    done = GridView(new_game()).found(_shown(*range(25))).game
    assert done.over and done.winner is None and done.found == 25
    assert GridView(new_game()).found(()) == GridView(new_game())


def test_a_misread_at_a_place_already_face_up_is_not_a_new_card() -> None:
    view = GridView(new_game()).seen(_shown(0, 1))
    misread = (_cell(0), FaceUp(7, _cell(1).centre, 100.0))
    assert view.seen(misread).game == view.game


def test_the_cards_face_up_are_read_and_the_backs_are_not_over_held_out_tables() -> None:
    """Held-out backs (patterns the face-down network never saw), fonts and tables."""
    score = evaluate_cards(TABLES, FIRST_SEED, quiet=True, laid=Laid.GRID)
    assert score.cards > 300
    assert score.accuracy >= 0.95, f"{score.accuracy:.3f} of {score.cards} cards face up read"
    assert score.false_rate <= 0.01, f"{score.false_detections} false readings, backs among them"
    assert score.lines_exact >= 0.75 * TABLES
