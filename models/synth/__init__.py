"""Synthetic table scenes with ground truth, for training, evaluation and tests."""
