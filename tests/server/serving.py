"""A dashboard served by a real uvicorn on a free port of 127.0.0.1, in a thread, for the tests (and the README's
screenshot, scripts/dashboard_screenshot.py) to talk to; and how they start Debian's chromium."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from server.commands.serve import bound
from server.dashboard import dashboard_app
from server.hand_table import HandTable
from server.live import LiveTable

TOKEN = "test-token"
CHROMIUM = "/usr/bin/chromium"
# Headless, and quiet on a machine with no network: no background fetches, no first-run pages.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def served(
    live: LiveTable | HandTable, viewing_needs_token: bool = False, start_watching: bool = True
) -> Iterator[str]:
    """The dashboard's address while the block runs; the server is shut down (its watch stopped) after."""
    sock = bound("127.0.0.1", 0)
    server = uvicorn.Server(
        uvicorn.Config(dashboard_app(live, TOKEN, viewing_needs_token, start_watching), log_level="warning")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    until(lambda: server.started, "the server to start")
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def call(url: str, method: str = "GET", token: str | None = None, body: Any = None) -> tuple[int, Any]:
    """The status and the decoded body (JSON, or bytes) of one request (sending `body` as JSON, if given)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, body, kind = response.status, response.read(), response.headers.get("content-type", "")
    except urllib.error.HTTPError as error:
        status, body, kind = error.code, error.read(), error.headers.get("content-type", "")
    return status, json.loads(body) if "json" in kind else body


def until(condition: Callable[[], Any], what: str, timeout_s: float = 90.0) -> Any:
    """Wait for `condition` to be true; its value, or a failure naming `what` was awaited."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what} after {timeout_s:g} s")


def watched_to_the_end(live: LiveTable) -> dict[str, Any]:
    """The live table's state once a watch started on it has ended (no server needed)."""
    live.start()
    until(lambda: not live.running, "the watch to end", timeout_s=300)
    return live.state()


def as_printed(events: list[dict[str, Any]]) -> list[str]:
    """The dashboard's verdicts as `tableref judge` prints them on a film: the seconds, then the first line;
    later lines under it."""
    return "\n".join(f"{e['seconds']:7.2f} s  " + "\n           ".join(e["lines"]) for e in events).splitlines()
