"""The `tableref` command: the apps from server.app with every command module registered."""

from __future__ import annotations

import sys

from server.app import app
from server.commands import cards, dominoes, sticks, table  # noqa: F401  (registers the commands)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
