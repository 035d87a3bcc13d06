"""The games: pure Python, no cv2, no numpy, no I/O. State in, verdicts out."""
