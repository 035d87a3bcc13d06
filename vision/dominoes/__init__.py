"""Domino tiles: locate each tile by its divider, read each half's pips, keep one reading per half."""

from vision.dominoes.detection import Domino, Half, InvalidDominoError
from vision.dominoes.recognize import DominoRecognizer

__all__ = ["Domino", "DominoRecognizer", "Half", "InvalidDominoError"]
