"""Decko Digits' bluffing game: players append digits of pi to the Starter face down, true or not; other players
may challenge, and a challenge is won by the strongest bluff or by a card revealed that fits. Whoever holds the
most cards won from challenges plus bluffs left standing in the line wins. (The sheet's heading for it was lost;
it is named after what players do.)

The cards lie face down by the game's design, so the game is refereed from what the players say happened (a
log, ``parse_log``), not from a photo. Readings taken where the sheet (``rulebooks/decko-digits.md``) is silent:

- A bluff's strength is the number of cards its player has placed in the challenge. After each strengthening
  round the player with strictly the most wins; after three rounds without one, the Reveal decides among the
  players tied for the most (the sheet names only the case of all tied). A round not written in the log is a
  round in which nobody strengthened.
- At the Reveal a card fits the digit needed if it is that digit's card, or its Wild.
- Tied winners each take an equal share of the challenge's cards other than their initial bluffs; the initial
  bluff appended is that of the tied winner first in turn order from the current player.
- A challenge nobody wins appends nothing: every card placed in it goes back into the Deck, and the next player
  states the same digit.
- Only the current player draws a replacement, one card, at the end of the turn (after the cards going back
  are shuffled in), as the sheet says; challengers play from their hands without drawing.
- The turn passes to the next player in seat order after every turn, challenged or not.
- A player with no card left cannot challenge or strengthen. The game is over once the fiftieth decimal is
  appended, or a player has no card left at the end of a turn; "no further progress" is the players' call
  (``end``).
- A bluff left standing scores ``bluff_worth`` points (1; the sheet's house rule makes it worth more), each
  card won in a challenge 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules.decko import DeckoCard, card_fits, card_text, checked, parse_card
from rules.game_log import Log, Replay, dealt, parse_log, replay
from rules.pi import PI_DECIMALS

HAND = 5
DECK = 55  # the fifty Digit cards and five Wilds; the Starter lies in the middle
ROUNDS = 3  # strengthening rounds at most


class BluffingError(ValueError):
    """A turn the rules do not allow, or a log that cannot be read; the message says which and why."""


@dataclass(frozen=True)
class Challenge:
    """What the log says of a challenge: who joined it, who placed another card in each strengthening round, and
    the initial bluffs turned up at the Reveal (only those the Reveal needs)."""

    challengers: tuple[str, ...]
    rounds: tuple[tuple[str, ...], ...] = ()
    revealed: Mapping[str, DeckoCard] = field(default_factory=dict)


@dataclass(frozen=True)
class Appended:
    owner: str
    card: DeckoCard | None  # None: face down


@dataclass(frozen=True)
class Turn:
    """One turn judged: the digit stated, how it was settled, and where its cards went."""

    player: str
    place: int  # the decimal needed, 0-based
    challenge: Challenge | None
    settled_by: str  # "no challenge", "strength" (after round `round`), "reveal" or "nobody"
    winners: tuple[str, ...]
    appended: Appended | None
    won: Mapping[str, int] = field(default_factory=dict)  # cards each winner takes (not their initial bluffs)
    to_deck: int = 0
    placed: Mapping[str, int] = field(default_factory=dict)  # cards each player placed in the turn
    round: int = 0  # the strengthening round that settled it

    @property
    def digit(self) -> int:
        return PI_DECIMALS[self.place]

    def to_json(self) -> dict[str, Any]:
        appended = None
        if self.appended is not None:
            shown = None if self.appended.card is None else card_text(self.appended.card)
            appended = {"owner": self.appended.owner, "face_up": shown}
        challenge = None
        if self.challenge is not None:
            challenge = {
                "challengers": list(self.challenge.challengers),
                "rounds": [list(r) for r in self.challenge.rounds],
                "revealed": {name: card_text(card) for name, card in self.challenge.revealed.items()},
                "placed": dict(self.placed),
            }
        return {
            "player": self.player,
            "decimal": self.place + 1,
            "digit": self.digit,
            "challenge": challenge,
            "settled_by": self.settled_by,
            "round": self.round or None,
            "winners": list(self.winners),
            "appended": appended,
            "won": dict(self.won),
            "to_deck": self.to_deck,
        }


@dataclass(frozen=True)
class BluffGame:
    players: tuple[str, ...]
    hands: tuple[int, ...]  # cards each player holds
    deck: int
    line: tuple[Appended, ...] = ()  # after the Starter
    won: tuple[int, ...] = ()  # cards each player has taken in challenges (set aside, not in hand)
    turn: int = 0  # whose turn, an index into players
    over: str | None = None  # why the game ended

    @property
    def place(self) -> int:
        """The decimal needed next, 0-based."""
        return len(self.line)

    @property
    def digit(self) -> int:
        """The digit needed next (the game is over once the fifty are appended)."""
        return PI_DECIMALS[self.place]

    @property
    def current(self) -> str:
        return self.players[self.turn]

    def seat(self, name: str) -> int:
        if name not in self.players:
            raise BluffingError(f"{name!r} is not at the table (players: {', '.join(self.players)})")
        return self.players.index(name)


@dataclass(frozen=True)
class Standing:
    player: str
    won: int
    bluffs: int
    score: int

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "won": self.won, "bluffs": self.bluffs, "score": self.score}


def new_game(players: Iterable[str], hand: int = HAND) -> BluffGame:
    """Hands of `hand` cards dealt to each player in seat order (the first is the current player); the rest is
    the Deck."""
    names, deck = dealt(players, hand, DECK, BluffingError)
    return BluffGame(names, (hand,) * len(names), deck, won=(0,) * len(names))


def end(game: BluffGame, reason: str) -> BluffGame:
    """The game ended by the players' word (no further progress is possible)."""
    return game if game.over else replace(game, over=reason)


def play(game: BluffGame, challenge: Challenge | None = None) -> tuple[BluffGame, Turn]:
    """The current player states the next digit and appends a card face down; `challenge` says what happened if
    others placed cards too. Returns the game after the turn and the turn judged."""
    if game.over:
        raise BluffingError(f"the game is over ({game.over})")
    player = game.current
    if challenge is None:
        turn = Turn(player, game.place, None, "no challenge", (player,), Appended(player, None), placed={player: 1})
    else:
        turn = _settle(game, player, challenge)
    return _after(game, turn), turn


def _settle(game: BluffGame, player: str, challenge: Challenge) -> Turn:
    joined = (player, *challenge.challengers)
    for name in challenge.challengers:
        game.seat(name)
    if not challenge.challengers or player in challenge.challengers or len(set(joined)) != len(joined):
        raise BluffingError(f"a challenge is joined by other players than {player}, each once")
    if len(challenge.rounds) > ROUNDS:
        raise BluffingError(f"a challenge has {ROUNDS} strengthening rounds at most, not {len(challenge.rounds)}")
    placed = dict.fromkeys(joined, 0)
    _place(game, placed, joined, "challenge")
    winner, decided = _strongest(placed), 0
    for number, round_ in enumerate(challenge.rounds, start=1):
        if winner is not None:
            raise BluffingError(f"{winner}'s bluff was the strongest after round {decided}; no round follows it")
        outsiders = [name for name in round_ if name not in placed]
        if outsiders or len(set(round_)) != len(round_):
            raise BluffingError(f"round {number}: only the challenge's players strengthen, each once a round")
        _place(game, placed, round_, f"strengthen in round {number}")
        winner, decided = _strongest(placed), number
    if winner is not None:
        won = {winner: sum(placed.values()) - 1}
        appended = Appended(winner, None)
        return Turn(player, game.place, challenge, "strength", (winner,), appended, won, placed=placed, round=decided)
    return _reveal(game, player, challenge, placed)


def _place(game: BluffGame, placed: dict[str, int], names: Iterable[str], doing: str) -> None:
    for name in names:
        if game.hands[game.seat(name)] <= placed[name]:
            raise BluffingError(f"{name} has no card left to {doing} with")
        placed[name] += 1


def _strongest(placed: Mapping[str, int]) -> str | None:
    most = max(placed.values())
    leaders = [name for name, n in placed.items() if n == most]
    return leaders[0] if len(leaders) == 1 else None


def _reveal(game: BluffGame, player: str, challenge: Challenge, placed: dict[str, int]) -> Turn:
    """The Reveal among the players tied strongest: the current player's card first, then the others' at once;
    a fitting Digit card goes before a fitting Wild."""
    digit = PI_DECIMALS[game.place]
    most = max(placed.values())
    revealing = [name for name in placed if placed[name] == most]  # the current player first, as joined
    needed = revealing[:1] if revealing[0] == player and _fits(challenge, player, digit) else revealing
    missing = [name for name in needed if name not in challenge.revealed]
    if missing:
        raise BluffingError(f"the Reveal needs the initial bluff of {' and '.join(missing)} (reveal: Name=card)")
    outsiders = [name for name in challenge.revealed if name not in placed]
    if outsiders:  # cards of the challenge's players the Reveal does not need are let be
        raise BluffingError(f"{' and '.join(outsiders)} did not join this challenge, so reveal nothing in it")
    fitting = [name for name in needed if card_fits(challenge.revealed[name], digit)]
    naturals = [name for name in fitting if isinstance(challenge.revealed[name], int)]
    seats = len(game.players)
    winners = tuple(sorted(naturals or fitting, key=lambda name: (game.seat(name) - game.turn) % seats))
    total = sum(placed.values())
    if not winners:
        return Turn(player, game.place, challenge, "nobody", (), None, to_deck=total, placed=placed)
    pool = total - len(winners)  # every card but the winners' initial bluffs
    share = pool // len(winners)
    appended = Appended(winners[0], challenge.revealed[winners[0]])
    to_deck = pool - share * len(winners) + len(winners) - 1
    won = dict.fromkeys(winners, share)
    return Turn(player, game.place, challenge, "reveal", winners, appended, won, to_deck, placed)


def _fits(challenge: Challenge, name: str, digit: int) -> bool:
    card = challenge.revealed.get(name)
    return card is not None and card_fits(card, digit)


def _after(game: BluffGame, turn: Turn) -> BluffGame:
    hands = list(game.hands)
    for name, n in turn.placed.items():
        hands[game.seat(name)] -= n
    won = list(game.won)
    for name, n in turn.won.items():
        won[game.seat(name)] += n
    deck = game.deck + turn.to_deck
    if deck:  # the current player's replacement
        hands[game.turn] += 1
        deck -= 1
    line = game.line if turn.appended is None else (*game.line, turn.appended)
    after = BluffGame(game.players, tuple(hands), deck, line, tuple(won), (game.turn + 1) % len(game.players))
    if len(line) == len(PI_DECIMALS):
        return replace(after, over="the fiftieth decimal is appended")
    out = [name for name, n in zip(game.players, hands, strict=True) if n == 0]
    return replace(after, over=f"{' and '.join(out)} ran out of cards") if out else after


def standings(game: BluffGame, bluff_worth: int = 1) -> list[Standing]:
    """Each player's cards won and bluffs standing (face-down cards of theirs in the line), scored, best first
    (ties in seat order)."""
    table = []
    for seat, name in enumerate(game.players):
        bluffs = sum(1 for card in game.line if card.owner == name and card.card is None)
        table.append(Standing(name, game.won[seat], bluffs, game.won[seat] + bluff_worth * bluffs))
    return sorted(table, key=lambda s: -s.score)


def leaders(table: list[Standing]) -> list[str]:
    """Who has the most points (all tied at the top)."""
    return [s.player for s in table if s.score == table[0].score]


def read_log(text: str) -> Log[Challenge | None]:
    """A game written down (rules/game_log.py), a turn a line: ``bluff`` for a turn nobody challenged, or

        challenge: Bob Cem; strengthen: Ann Bob; strengthen: Bob; reveal: Ann=7 Bob=2/7

    the challengers, then who placed another card in each strengthening round (none for nobody), then at the
    Reveal each initial bluff turned up."""
    return parse_log(text, _turn)


def replay_log(log: Log[Challenge | None]) -> Replay[BluffGame, Turn]:
    """The game played as `log` has it, up to a turn the rules do not allow."""
    return replay(log, new_game(log.players, HAND if log.hand is None else log.hand), play, end, BluffingError)


def _turn(line: str) -> Challenge | None:
    if line.lower() == "bluff":
        return None
    parts = [part.strip() for part in line.split(";")]
    fields = [(key.strip().lower(), rest.split()) for key, _, rest in (part.partition(":") for part in parts)]
    if fields[0][0] != "challenge":
        raise BluffingError(f"a turn is 'bluff' or 'challenge: NAMES; ...', not {line!r}")
    rounds, revealed = [], {}
    for key, words in fields[1:]:
        if key == "strengthen" and not revealed:
            rounds.append(tuple(words))
        elif key == "reveal" and not revealed:
            revealed = dict(_shown(word) for word in words)
        else:
            raise BluffingError(f"after 'challenge:' come 'strengthen:' rounds, then one 'reveal:', not {key!r}")
    return Challenge(tuple(fields[0][1]), tuple(rounds), revealed)


def _shown(word: str) -> tuple[str, DeckoCard]:
    name, equals, card = word.partition("=")
    if not equals or not name:
        raise BluffingError(f"a card revealed is written Name=card (Ann=7, Bob=2/7), not {word!r}")
    return name, checked(parse_card(card))
