"""Frames in, what lies on the table out: cards, dominoes, sticks."""
