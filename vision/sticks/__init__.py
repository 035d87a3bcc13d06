"""Sticks on the table: each stick's two ends, and the touching groups snapped to the square lattice."""

from vision.sticks.detections import DetectionError, Polystick, Stick
from vision.sticks.recognize import StickRecognizer, recognize_sticks

__all__ = ["DetectionError", "Polystick", "Stick", "StickRecognizer", "recognize_sticks"]
