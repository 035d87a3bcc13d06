"""Decko Digits' passing game: the digits of pi passed around the table, each card given by the player who holds
the last one to any other player; the fewest cards in hand wins. (The sheet's heading for it was lost; it is
named after what players do.)

The cards go from hand to hand, so the game is refereed from what the players write down (rules/game_log.py),
one try a line. Readings taken where the sheet (``rulebooks/decko-digits.md``) is silent:

- The first seat of the log is the First Player, who gives the Starter. A card passed fits the decimal it is
  called for if it is that digit's card, or its Wild.
- A player who cannot match draws before anything else, three cards unless the Deck runs out first; a trade
  comes only after those draws, and so does failing (returning the card received).
- A failed player returns the card they received; it goes back into its giver's hand, and the giver tries that
  decimal again (the Starter goes back to the First Player). Cards drawn stay in the hand that drew them.
- Each card passed is set aside by its receiver and counts in no hand; the passer draws one replacement.
- The game is over once the fiftieth decimal is passed, or once a player's hand is empty and the last card they
  passed can no longer come back (its receiver has passed a card on); "no further progress" is the players'
  call (``end``). Cards in hand are counted then, and the fewest wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from rules.decko import DeckoCard, card_fits, card_text, parse_card
from rules.game_log import Log, Replay, dealt, parse_log, replay
from rules.pi import PI_DECIMALS

HAND = 5
DECK = 55  # the fifty Digit cards and five Wilds; the Starter goes first
DRAWS = 3  # a try's draws at most
STARTER = "3."


class PassingError(ValueError):
    """A try the rules do not allow; the message says which and why."""


@dataclass(frozen=True)
class Try:
    """What a player holding the last card did: drew, traded, then passed a card (None: the Starter) to a
    player, or failed and returned the card they hold (`to` None)."""

    draws: int = 0
    trade: str | None = None
    card: DeckoCard | None = None
    to: str | None = None


@dataclass(frozen=True)
class Passed:
    giver: str
    card: DeckoCard | None  # None: the Starter
    to: str


@dataclass(frozen=True)
class Tried:
    """A try judged: who made it, what it did, and the decimal it was for."""

    player: str
    move: Try
    place: int | None  # the decimal (0-based) the card passed or returned stood for; None: the Starter
    returned: Passed | None = None  # what went back, on a failed try
    replacement: bool = False  # a card drawn for the one passed

    def to_json(self) -> dict[str, Any]:
        card = None if self.move.card is None else card_text(self.move.card)
        back = None
        if self.returned is not None:
            shown = STARTER if self.returned.card is None else card_text(self.returned.card)
            back = {"card": shown, "to": self.returned.giver}
        return {
            "player": self.player,
            "draws": self.move.draws,
            "trade": self.move.trade,
            "passed": None if self.move.to is None else {"card": card or STARTER, "to": self.move.to},
            "returned": back,
            "decimal": None if self.place is None else self.place + 1,
            "replacement": self.replacement,
        }


@dataclass(frozen=True)
class PassingGame:
    players: tuple[str, ...]
    hands: tuple[int, ...]
    deck: int
    chain: tuple[Passed, ...] = ()  # every card passed and set aside, the Starter first
    over: str | None = None

    @property
    def holder(self) -> str:
        """Who passes next: the receiver of the last card, or the First Player with the Starter."""
        return self.chain[-1].to if self.chain else self.players[0]

    @property
    def recited(self) -> int:
        """Decimals passed so far."""
        return max(len(self.chain) - 1, 0)

    def seat(self, name: str) -> int:
        if name not in self.players:
            raise PassingError(f"{name!r} is not at the table (players: {', '.join(self.players)})")
        return self.players.index(name)

    def winners(self) -> list[str]:
        """The players holding the fewest cards."""
        fewest = min(self.hands)
        return [name for name, n in zip(self.players, self.hands, strict=True) if n == fewest]


def new_game(players: Iterable[str], hand: int = HAND) -> PassingGame:
    names, deck = dealt(players, hand, DECK, PassingError)
    return PassingGame(names, (hand,) * len(names), deck)


def end(game: PassingGame, reason: str) -> PassingGame:
    return game if game.over else replace(game, over=reason)


def play(game: PassingGame, move: Try) -> tuple[PassingGame, Tried]:
    """The holder's try: its draws, trade and pass (or return) checked against the rules, and the game after."""
    if game.over:
        raise PassingError(f"the game is over ({game.over})")
    player, hands = game.holder, list(game.hands)
    seat = game.seat(player)
    if not game.chain:
        if move.to is None or move.card is not None or move.draws or move.trade:
            raise PassingError(f'{player} calls "Three point!" and gives the Starter ({STARTER} -> NAME) first')
        _receiver(game, player, move.to)
        return replace(game, chain=(Passed(player, None, move.to),)), Tried(player, move, None)
    if not 0 <= move.draws <= min(DRAWS, game.deck):
        raise PassingError(f"{player} draws 0 to {DRAWS} cards, and the Deck holds {game.deck}")
    hands[seat] += move.draws
    deck = game.deck - move.draws
    searched = move.draws == DRAWS or deck == 0
    if move.trade is not None:
        if not searched:
            raise PassingError(f"{player} trades only after drawing {DRAWS} (or the Deck running out)")
        partner = game.seat(move.trade)
        if partner == seat or not hands[seat] or not hands[partner]:
            raise PassingError(f"{player} trades a card for a card with another player who holds one")
    place = len(game.chain) - 1
    if move.to is None:
        if not searched:
            raise PassingError(f"{player} draws {DRAWS} (or the Deck runs out) before failing")
        back = game.chain[-1]
        if back.card is not None:
            hands[game.seat(back.giver)] += 1
        failed = replace(game, hands=tuple(hands), deck=deck, chain=game.chain[:-1])
        return failed, Tried(player, move, place - 1 if back.card is not None else None, returned=back)
    _receiver(game, player, move.to)
    if move.card is None:
        raise PassingError(f"the Starter was given already; {player} passes a card for decimal {place + 1}")
    if not card_fits(move.card, PI_DECIMALS[place]):
        raise PassingError(f"{card_text(move.card)} does not fit decimal {place + 1}, a {PI_DECIMALS[place]}")
    if hands[seat] == 0:
        raise PassingError(f"{player} has no card to pass")
    hands[seat] -= 1
    replacement = deck > 0
    hands[seat] += replacement
    deck -= replacement
    after = replace(game, hands=tuple(hands), deck=deck, chain=(*game.chain, Passed(player, move.card, move.to)))
    return _ended(after), Tried(player, move, place, replacement=replacement)


def _receiver(game: PassingGame, player: str, to: str) -> None:
    if game.seat(to) == game.seat(player):
        raise PassingError(f"{player} passes to another player")


def _ended(game: PassingGame) -> PassingGame:
    if game.recited == len(PI_DECIMALS):
        return replace(game, over="the fiftieth decimal is passed")
    last = game.chain[-1].giver
    out = [name for name, n in zip(game.players, game.hands, strict=True) if n == 0 and name != last]
    return replace(game, over=f"{' and '.join(out)} emptied their hand") if out else game


def read_log(text: str) -> Log[Try]:
    """A game written down (rules/game_log.py), a try a line:

    3. -> Cem                        # the First Player gives the Starter
    1 -> Bob                         # the holder passes a 1 to Bob
    draws 2; 4 -> Ann                # drew two, then passed a 4
    draws 3; trade Dee; 1/6 -> Cem   # drew three, traded with Dee, passed the Wild
    draws 3; return                  # drew three, failed: the card received goes back
    """
    return parse_log(text, _try)


def replay_log(log: Log[Try]) -> Replay[PassingGame, Tried]:
    return replay(log, new_game(log.players, HAND if log.hand is None else log.hand), play, end, PassingError)


def _try(line: str) -> Try:
    *before, last = [part.strip() for part in line.split(";")]
    draws, trade = 0, None
    for part in before:
        word, _, rest = part.partition(" ")
        if word.lower() in ("draw", "draws") and rest.strip().isdigit() and not draws and trade is None:
            draws = int(rest)
        elif word.lower() == "trade" and rest.strip() and trade is None:
            trade = rest.strip()
        else:
            raise PassingError(f"a try is '[draws N;] [trade NAME;] CARD -> NAME' or '... return', not {line!r}")
    if last.lower() == "return":
        return Try(draws, trade)
    card, arrow, to = (part.strip() for part in last.partition("->"))
    if not arrow or not to or " " in to:
        raise PassingError(f"a card passed is written CARD -> NAME (7 -> Bob, 3. -> Cem), not {last!r}")
    return Try(draws, trade, None if card == STARTER else parse_card(card), to)
