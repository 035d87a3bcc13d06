"""Everything read from one picture of the table: the `tableref recognize --json` contract."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.profile import CalibrationProfile
from vision.cards.recognize import Card, CardRecognizer


@dataclass
class TableReading:
    source: str
    width: int
    height: int
    cards: list[Card] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self, profile: CalibrationProfile | None = None) -> dict:
        """The contract's object; with a calibration profile each card also gets `table_mm` and `zone`."""
        cards = [c.to_json() for c in self.cards]
        if profile and self.cards:
            for card, (mm, zone) in zip(cards, profile.place(np.array([c.center for c in self.cards])), strict=True):
                card["table_mm"] = [round(float(v), 1) for v in mm]
                card["zone"] = zone.name if zone else None
        # Dominoes, sticks and polysticks have their own recognisers to come; the keys are part of the contract.
        return {
            "source": self.source,
            "width": self.width,
            "height": self.height,
            "cards": cards,
            "dominoes": [],
            "sticks": [],
            "polysticks": [],
        }


class TableReader:
    """All recognisers, loaded once."""

    def __init__(self) -> None:
        self.cards = CardRecognizer()

    def read(self, image: np.ndarray, source: str = "") -> TableReading:
        cards, timings = self.cards.timed(image)
        h, w = image.shape[:2]
        return TableReading(source, w, h, cards, timings)
