"""Digit cards: artwork, locating, classifying and reading order."""
