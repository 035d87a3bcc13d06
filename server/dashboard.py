"""The dashboard: a FastAPI app over one live table (server/live.py), or one hand game typed turn by turn
(server/hand_table.py), and its results file.

Everything that changes the table's watch or the game (start, stop, a turn typed) needs the access token.
Viewing needs it too where the server is opened to the network; on the machine itself (127.0.0.1) anyone at the
keyboard may look. The token is taken from an `Authorization: Bearer` header or, for links and pictures, a
`token` query.
"""

from __future__ import annotations

import io
import json
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any, TypeVar

from fastapi import Body, Depends, FastAPI, HTTPException, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse

from rules.flash_cards import FlashError
from rules.sticks import PENTASTICKS
from server.decko_games import learners
from server.hand_table import HandTable
from server.live import LiveTable
from server.storage import StorageError, recorded, summaries

T = TypeVar("T")

CARD_PX = 180  # a DIGIT card's height on the page
MOST_START_BYTES = 1000
NO_TOKEN = "this needs the access token that `tableref serve` printed: open the link it gave, token included"


def dashboard_app(
    live: LiveTable | HandTable, token: str, viewing_needs_token: bool, start_watching: bool = True
) -> FastAPI:
    """The web app for `live` (a table watched, or a hand game typed); `start_watching` begins the first watch
    (or game) as the server starts."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if start_watching:
            live.start()
        yield
        live.close()

    def has_token(request: Request) -> bool:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        given = given or request.query_params.get("token", "")
        return secrets.compare_digest(given.encode(), token.encode())

    def viewer(request: Request) -> None:
        if viewing_needs_token and not has_token(request):
            raise HTTPException(status_code=401, detail=NO_TOKEN)

    def controller(request: Request) -> None:
        if not has_token(request):
            raise HTTPException(status_code=401, detail=NO_TOKEN)

    app = FastAPI(title="tableref", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    page = files("server").joinpath("pages/dashboard.html").read_text(encoding="utf-8")

    @app.get("/", response_class=HTMLResponse)
    def dashboard_page() -> str:
        return page  # the page holds no results: it asks for them, token in hand

    @app.get("/api/state", dependencies=[Depends(viewer)])
    def state() -> dict[str, Any]:
        return live.state()

    @app.get("/api/frame.jpg", dependencies=[Depends(viewer)])
    def frame() -> Response:
        picture = live.frame_jpeg()
        if picture is None:
            raise HTTPException(status_code=404, detail="no frame yet: the watch has not read one")
        return Response(picture, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.post("/api/watch/start", dependencies=[Depends(controller)])
    async def start(request: Request) -> dict[str, Any]:
        """A new watch; for the flash-card drill, drawn for the learner a JSON body names ({"learner": "Ann"};
        "" for nobody's drill; no body or no name: the learner as before)."""
        learner = _learner_asked(await request.body())
        try:
            if learner is None:
                started = await run_in_threadpool(live.start)  # a hand game's start writes the results file
            elif isinstance(live, LiveTable):
                started = await run_in_threadpool(live.start, learner)
            else:
                raise FlashError("a learner is for the flash-card drill, not a hand game")
        except FlashError as exc:
            raise HTTPException(status_code=422, detail=str(exc)) from exc
        except StorageError as exc:
            raise HTTPException(status_code=503, detail=str(exc)) from exc
        if not started:
            raise HTTPException(status_code=409, detail="a watch is running: stop it first")
        return live.state()

    @app.post("/api/watch/stop", dependencies=[Depends(controller)])
    def stop() -> dict[str, Any]:
        if not live.stop():
            raise HTTPException(status_code=409, detail="no watch is running")
        return live.state()

    @app.post("/api/hand/line", dependencies=[Depends(controller)])
    def hand_line(line: str = Body(..., embed=True)) -> dict[str, Any]:
        """A turn of a hand game typed: kept where the rules allow it, else refused with why (422)."""
        if not isinstance(live, HandTable):
            raise HTTPException(status_code=404, detail="turns are typed for the hand games (--game bluff or pass)")
        refused = live.typed(line)
        if refused is not None:
            raise HTTPException(status_code=422, detail=refused)
        return live.state()

    @app.get("/api/learners", dependencies=[Depends(viewer)])
    def known_learners() -> list[str]:
        """The learners whose flash-card drills the results file holds: the names the page offers."""
        return _from_results(live, learners)

    @app.get("/api/digit-cards/{number}.png")
    def digit_card(number: int) -> Response:
        """A DIGIT card's face, as the kit prints it: artwork, no table data, so no token (an <img> sends none)."""
        if not 1 <= number <= len(PENTASTICKS):
            raise HTTPException(status_code=404, detail=f"DIGIT cards are numbered 1..{len(PENTASTICKS)}")
        return Response(_card_png(number), media_type="image/png", headers={"Cache-Control": "max-age=86400"})

    @app.get("/api/watches", dependencies=[Depends(viewer)])
    def watches() -> list[dict[str, Any]]:
        """Every watch in the results file, newest first, with the count of its events."""
        return list(reversed(_from_results(live, summaries)))

    @app.get("/api/watches/{watch_id}", dependencies=[Depends(viewer)])
    def watch(watch_id: int) -> dict[str, Any]:
        for recorded_watch in _from_results(live, lambda path: recorded(path, watch_id)):
            return recorded_watch.to_json()
        raise HTTPException(status_code=404, detail=f"no watch {watch_id} in {live.results}")

    return app


@cache
def _card_png(number: int) -> bytes:
    from vision.sticks.artwork import draw_stick_card

    out = io.BytesIO()
    draw_stick_card(number, CARD_PX).save(out, format="PNG")
    return out.getvalue()


def _learner_asked(body: bytes) -> str | None:
    """The learner a Start's body names (None where it names none). A body that is not a JSON object, or a
    learner that is not text, is refused (422) rather than taken for none: the drill would go to the last learner."""
    if not body.strip():
        return None
    if len(body) > MOST_START_BYTES:
        raise HTTPException(status_code=413, detail=f"a Start's body holds at most {MOST_START_BYTES} bytes")
    try:
        asked = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HTTPException(status_code=422, detail='send JSON: {"learner": "Ann"}') from exc
    if not isinstance(asked, dict) or not isinstance(asked.get("learner", ""), str | None):
        raise HTTPException(status_code=422, detail='send JSON: {"learner": "Ann"}')
    return asked.get("learner")


def _from_results(live: LiveTable, read: Callable[[Path], list[T]]) -> list[T]:
    """What `read` gives from the live table's results file (nothing before its first watch is recorded)."""
    if not live.results.is_file():
        return []
    try:
        return read(live.results)
    except StorageError as exc:
        raise HTTPException(status_code=500, detail=str(exc)) from exc
