"""The card evaluation names the fonts it rendered with: its figures depend on them."""

from pathlib import Path

import models.evaluate as evaluate


def test_the_fingerprint_changes_with_the_font_files(tmp_path: Path, monkeypatch) -> None:
    fonts = [tmp_path / "A-Bold.ttf", tmp_path / "B.otf"]
    for f in fonts:
        f.write_bytes(b"glyphs")
    monkeypatch.setattr(evaluate, "split_fonts", lambda split: tuple(str(f) for f in fonts))
    first = evaluate.heldout_fonts()
    assert first.startswith("2 held-out font files") and first == evaluate.heldout_fonts()
    fonts[1].write_bytes(b"other glyphs")  # a package update
    assert evaluate.heldout_fonts() != first
