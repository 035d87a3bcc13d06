"""The card locator's network on held-out renders of the cards it misses most."""

from models.synth.scenes import render_scene
from models.train_card_locator import inked_spec
from tests.vision.peaks import peaked_cards
from vision.cards.centres import CardLocator


def test_the_locator_puts_peaks_on_dark_cards_crossed_by_bands_in_their_ink() -> None:
    """Dark cards were a fifth of the held-out cards and three fifths of those missed. On held-out scenes with
    half the designs on dark paper and most cards crossed by a band in the numeral's colour, the locator before
    it learnt such scenes put first-look peaks on 304 of 355 cards; since, on 315."""
    locator = CardLocator()
    peaked = total = 0
    for seed in range(64_000_000, 64_000_040):  # tuned on no such seeds
        scene = render_scene(seed, inked_spec(seed, "heldout"))
        cards = [c.corners for c in scene.cards]
        peaked += peaked_cards(locator, scene.image, cards)
        total += len(cards)
    assert total >= 300 and peaked >= 0.87 * total, (peaked, total)
