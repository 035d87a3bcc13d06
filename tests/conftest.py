"""Property tests run the same examples on every run (the issue asks for deterministic tests); set
HYPOTHESIS_PROFILE=explore to let hypothesis search afresh, as a bug hunt. The longest test files are
collected first, so that the two test workers finish together."""

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


# The files that take longest, run first, longest first (per-file seconds from `pytest --durations=0`, 40 s
# and up on a 2-core AVX2-only host). Under `--dist loadfile` a file runs whole on one worker. xdist by
# default hands out the files with the most tests first, which put long files of few tests last, run by one
# worker while the other sat idle; with `--no-loadscope-reorder` (pyproject.toml) it keeps this order, and the
# short files fill the gaps.
LONGEST_FIRST = (
    "vision/test_cards.py",
    "server/test_decko_games.py",
    "vision/test_table.py",
    "vision/test_cards_second_looks.py",
    "server/test_seven_pis_turns_video.py",
    "server/test_dashboard.py",
    "vision/test_card_backs.py",
    "vision/test_dominoes_blurred.py",
    "vision/test_sticks.py",
    "vision/test_sticks_blurred.py",
    "server/test_dashboard_page.py",
    "server/test_sticks_cli.py",
    "server/test_cli.py",
    "vision/test_deblur.py",
    "vision/test_sticks_mirrored.py",
    "vision/test_dominoes.py",
    "server/test_tempus_lane_video.py",
    "models/test_stick_locator_training.py",
    "calibration/test_sweep.py",
    "rules/test_seven_pis.py",
    "vision/test_sticks_bodies.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(__file__).parent
    missing = [name for name in LONGEST_FIRST if not (root / name).is_file()]
    if missing:
        raise pytest.UsageError(f"tests/conftest.py LONGEST_FIRST names files that are gone: {missing}")
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(os.path.relpath(item.path, root).replace(os.sep, "/"), len(rank)))
