"""The `tableref` command: the apps from server.app with every command module registered."""

from __future__ import annotations

import sys

from server.app import app
from server.commands import (  # noqa: F401  (registers the commands)
    appending,
    blocks,
    cards,
    death_by_digits,
    dominoes,
    flash,
    grid,
    hand_games,
    mathleague,
    serve,
    sticks,
    table,
)
from vision.memory import keep_freed_memory


def main() -> None:
    keep_freed_memory()
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
