"""Where a Seven Pis turn ends, told from a filmed table: the tiles in the hand area and the tiles laid.

The rules say a turn lays at least one tile from the hand and then refills the hand (3 tiles) from the draw pile,
so the film shows each turn as tiles laid on the table, then tiles drawn into the hand. Plain values in and out
(`TurnEnds.change` each time the tiles counted change, `TurnEnds.boundary` every frame), as every game's rules
take. The readings taken:

- The table is steady when every tile counted is in sight (no hand over one, none taken away and not yet
  forgotten) and nothing has come, gone or been read again for `steady` seconds.
- The first boundary, the game's start as the film sees it, is the first steady moment with a full hand: as
  many tiles as a hand holds, or every tile left when the draw pile holds none.
- After it, a turn ends at the first steady moment after a tile was drawn (a tile the hand did not hold since
  the last boundary came into the hand area, in a place of its own or where a tile laid lay) since a tile was
  last laid: laid, then refilled. A tile read again (its pips misread at first) is not drawn. With the draw
  pile empty nothing is drawn, so a turn then ends at the first steady moment after a tile was laid from a
  hand that still holds fewer tiles than at the last boundary: a tile laid and taken back lays nothing.
- A refill short of a full hand ends the turn only after `short_draw` seconds of quiet, so a player drawing
  one tile at a time is not cut off after the first; the short draw is then judged as one.
- A tile drawn with nothing laid is a turn too (nothing played; a hand tile swapped for one from the pile is
  such a turn, and a bad draw). Laid first, then drawn: a draw before the tiles are laid waits for the next
  refill, and the two turns are judged as one.
- A set holds one of each tile, so a tile the hand held since the last boundary that comes into the hand
  area again is no draw (`Draws`): a hand tile moved within the area (the hand tidied), two swapped, a tile
  laid and taken back. A tile that came reading as one the hand held and is read again as one it did not
  (a draw first misread, a hand over its pips) is drawn then.
- The pile is what neither the table nor the hand shows, as the player knows it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rules.dominoes import Domino
from rules.seven_pis import HAND_SIZE

STEADY_SECONDS = 1.5
SHORT_DRAW_SECONDS = 5.0


@dataclass
class TurnEnds:
    """The table's changes in (`change`), each frame asked whether a turn ends there (`boundary`)."""

    hand_size: int = HAND_SIZE
    steady: float = STEADY_SECONDS
    short_draw: float = SHORT_DRAW_SECONDS
    started: bool = False  # the first boundary (the hand as dealt) was taken
    _last_change: float | None = None
    _hand: int = 0
    _pile: int = 0
    _laid: bool = False  # a tile was laid since the last boundary
    _refilled: bool = False  # a tile was drawn since a tile was last laid, or since the last boundary
    _hand_then: int = 0  # the tiles in the hand at the last boundary

    def change(self, seconds: float, laid: int, drawn: int, hand: int, pile: int) -> None:
        """The frame at `seconds` changed the tiles counted: `laid` tiles came onto the table and `drawn` were
        drawn into the hand area (`Draws`), which now holds `hand` tiles; the draw pile holds `pile`."""
        if laid:
            self._laid, self._refilled = True, False
        if drawn:
            self._refilled = True
        self._hand, self._pile = hand, pile
        self._last_change = seconds

    def boundary(self, seconds: float, all_seen: bool) -> bool:
        """Whether a turn ends (or, the first time, the game starts) at the frame at `seconds`, every tile
        counted in sight in it or not."""
        if not all_seen or self._last_change is None:
            return False
        full = self._hand >= self.hand_size or self._pile == 0
        quiet = seconds - self._last_change
        if not self.started:
            ends = full and self._hand > 0 and quiet >= self.steady
        else:
            ends = self._ready and quiet >= (self.steady if full else self.short_draw)
        if ends:
            self.started, self._laid, self._refilled, self._hand_then = True, False, False, self._hand
        return ends

    def closes_at_end(self) -> bool:
        """Whether the watch ending now ends a turn: one refilled, or one laid with the pile empty (nothing to
        draw), that the quiet after it was cut short of. A turn laid and not yet refilled is left unjudged."""
        ends = self.started and self._ready
        if ends:
            self._laid, self._refilled = False, False
        return ends

    @property
    def _ready(self) -> bool:
        """Refilled since tiles were laid, or, with nothing to draw, tiles laid and not all taken back."""
        return self._refilled or (self._laid and self._pile == 0 and self._hand < self._hand_then)

    @property
    def mid_turn(self) -> bool:
        """Tiles were laid since the last boundary, not all taken back, and the turn has not ended."""
        return self.started and self._laid and (self._refilled or self._hand < self._hand_then)


@dataclass
class Draws:
    """Which tiles coming into the hand area are drawn, by the ids a tracker gives the tiles it counts: those the
    hand did not hold since the last boundary (`boundary`)."""

    _held: set[Domino] = field(default_factory=set)
    _unsure: set[int] = field(default_factory=set)  # came as a tile held: a tidy, or a draw misread at first

    def count(self, came: Mapping[int, Domino], reread: Mapping[int, Domino], hand: Iterable[Domino]) -> int:
        """How many tiles were drawn by a change: `came` the tiles counted anew in the hand area, `reread` the
        hand's tiles read again with other pips, `hand` every tile in the hand area now."""
        drawn = {i for i, tile in came.items() if tile not in self._held}
        self._unsure |= came.keys() - drawn
        misread = {i for i, tile in reread.items() if i in self._unsure and tile not in self._held}
        self._unsure -= misread
        self._held.update(hand)
        return len(drawn) + len(misread)

    def boundary(self, hand: Iterable[Domino]) -> None:
        """A turn ended (or the game started) with `hand` in the hand area."""
        self._held = set(hand)
        self._unsure.clear()
