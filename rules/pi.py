"""The first fifty decimals of pi as a Decko Digits deck knows them."""

from collections import Counter

PI_DECIMALS: tuple[int, ...] = tuple(int(c) for c in "14159265358979323846264338327950288419716939937510")

# The Reference card shows the fifty in ten five-digit blocks; the block game collects them.
BLOCKS: tuple[tuple[int, ...], ...] = tuple(PI_DECIMALS[i : i + 5] for i in range(0, 50, 5))

DIGIT_COUNTS: dict[int, int] = dict(sorted(Counter(PI_DECIMALS).items()))

# Digits that differ by five share a colour and a Wild card.
WILD_PAIRS: tuple[tuple[int, int], ...] = tuple((d, d + 5) for d in range(5))

STARTER_DIGIT = 3


def wild_pair(digit: int) -> tuple[int, int]:
    """The Wild card that matches `digit`."""
    if not 0 <= digit <= 9:
        raise ValueError(f"not a digit: {digit!r}")
    low = digit % 5
    return (low, low + 5)


def occurrence_marks() -> tuple[int, ...]:
    """Dots under each of the fifty cards: 1 on a digit's last occurrence, 2 on its next-to-last, else 0."""
    marks = [0] * len(PI_DECIMALS)
    for digit in set(PI_DECIMALS):
        positions = [i for i, d in enumerate(PI_DECIMALS) if d == digit]
        marks[positions[-1]] = 1
        if len(positions) > 1:
            marks[positions[-2]] = 2
    return tuple(marks)
