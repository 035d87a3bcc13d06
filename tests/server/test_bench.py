import shutil

from server.bench import SAMPLES, run_bench
from vision.table import KINDS


def test_each_recogniser_is_timed_alone_with_its_own_focus_measure(tmp_path) -> None:
    """Read together, the readers share one focus measure and the first to ask pays for it. Alone, the stick
    reader measures the frame's focus itself (several ms at 1280x720), as a sticks-only game would, where its
    first reading is not settled: on the close-up of cards, not on the DIGIT layout it reads surely."""
    for picture in ("sticks-digit.jpg", "close-up.jpg"):
        shutil.copy(SAMPLES / picture, tmp_path)
    results = run_bench(1, tmp_path)
    layout, cards = results["sticks-digit"], results["close-up"]
    assert layout["found"]["sticks"] == 5 and cards["found"]["sticks"] == 0
    assert cards["stages_ms"]["sticks_sharpen_ms"] > 0.2
    assert layout["stages_ms"]["sticks_sharpen_ms"] < 0.2
    assert set(layout["kinds_ms"]) == set(KINDS)
    assert layout["total_ms"] > 0
