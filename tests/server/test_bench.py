import shutil
from pathlib import Path

from server.bench import run_bench
from vision.table import KINDS

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_each_recogniser_is_timed_alone_with_its_own_focus_measure(tmp_path) -> None:
    """Read together, the readers share one focus measure and the first to ask pays for it. Alone, the stick
    reader measures the frame's focus itself (several ms at 1280x720), as a sticks-only game would."""
    shutil.copy(SAMPLES / "sticks-digit.jpg", tmp_path)
    result = run_bench(1, tmp_path)["sticks-digit"]
    assert result["found"]["sticks"] == 5
    assert result["stages_ms"]["sticks_sharpen_ms"] > 0.2
    assert set(result["kinds_ms"]) == set(KINDS)
    assert result["total_ms"] > 0
