"""`tableref serve`: the dashboard, a web page that shows the table live and the verdicts as they settle."""

from __future__ import annotations

import contextlib
import ipaddress
import secrets
import socket
from pathlib import Path

import typer

from rules.grid_digits import GRID_CARDS
from server.app import app, fail, load_calibration, output_file
from server.hand_games import HAND_GAMES

LOOPBACK_NAMES = {"localhost"}
WATCHED_GAMES = ("tempus", "append", "blocks", "grid", "flash", "digit", "seven-pis")
GAME_CHOICES = (*WATCHED_GAMES, *HAND_GAMES)
# What a calibration profile brings to each game: the zones it must hold.
CALIBRATED = {"tempus": "lane", "seven-pis": "hand"}
DEFAULT_PORT = 8765


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may well reach the network


def bound(host: str, port: int) -> socket.socket:
    """The listening socket, made here so that a port in use is one clear line, not a server's traceback."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        fail(f"cannot listen on {host}:{port} ({exc.strerror}); choose another port with --port")
        raise typer.Exit(code=2) from exc
    sock.listen(64)
    return sock


@app.command("serve")
def serve(
    source: str | None = typer.Argument(
        None,
        help="What to watch: a camera (0), a stream URL or a video file (played at its own pace). None for the "
        "hand games (bluff, pass), which are typed on the page turn by turn.",
        show_default=False,
    ),
    game: str = typer.Option(
        "tempus",
        "--game",
        help="tempus, append, blocks, grid or flash (Decko's appending and block games, Grid o' Digits, the "
        "flash-card drill), digit or seven-pis; or bluff or pass (Decko's bluffing and passing games, played in the "
        "hand and typed on the page).",
    ),
    bluff_worth: int = typer.Option(
        1, "--bluff-worth", min=1, help="The bluffing game: points for each bluff left standing (house rule: more)."
    ),
    beginner: int = typer.Option(
        50, "--beginner", help="Tempus Digit and flash cards: only the first N digits are in play."
    ),
    tile_set: str = typer.Option("auto", "--set", help="Seven Pis: six, nine, or auto (the tiles say)."),
    pips: bool = typer.Option(False, "--pips", help="Seven Pis: score the pips left instead of the tiles left."),
    rotations_only: bool = typer.Option(False, "--rotations-only", help="DIGIT: a mirror image is another card."),
    grid_cards: int = typer.Option(
        GRID_CARDS, "--cards", help="Grid o' Digits: the cards in the grid (a multiple of 5)."
    ),
    players: int = typer.Option(2, "--players", help="Grid o' Digits: the players taking turns."),
    learner: str | None = typer.Option(
        None,
        "--learner",
        help="Flash cards: draw each drill from this learner's memory in the results file (the decimals they have "
        "due, more in play as they learn) in place of --beginner.",
    ),
    calibration: Path | None = typer.Option(
        None,
        "--calibration",
        help="A profile from `tableref calibrate`. Tempus Digit: a race between the mat's lanes, a player each, "
        "ranked. Seven Pis: the tiles in its hand area are the hand, and each turn is judged.",
    ),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Where to listen. Anything but this machine (127.0.0.1) needs --token."
    ),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=0, max=65535, help="The port to listen on (0: any free one)."),
    token: str | None = typer.Option(
        None,
        "--token",
        envvar="TABLEREF_TOKEN",
        help="The access token that starting and stopping a watch need (and viewing, off this machine). "
        "Made up at random if not given on 127.0.0.1.",
    ),
    results: Path = typer.Option(
        Path("tableref-results.sqlite"),
        "--results",
        callback=output_file,
        help="The SQLite file that keeps every watch's verdicts the moment they settle; they survive a crash.",
    ),
) -> None:
    """Show the table live on a web page: the camera's picture, the verdict as it settles, every watch recorded.
    A hand game (bluff, pass) is typed on the page a turn at a time instead, each turn judged and recorded as it
    is typed; a server started again on the same results file takes an unfinished game up where it stopped.

    The page is at the printed link (the link carries the access token: keep it to yourself). A watch starts at
    once; the page starts a new one (a new race, a new game) or stops it. Ctrl-C stops the server."""
    import uvicorn

    from rules.flash_cards import FlashError
    from rules.grid_digits import GridError, new_game
    from rules.tempus import TempusError, TempusOptions
    from server.dashboard import dashboard_app
    from server.decko_games import learner_name
    from server.hand_table import HandTable
    from server.live import GameSetup, LiveTable
    from server.storage import StorageError, recorded
    from vision.sources import is_live

    problems = []
    if game not in GAME_CHOICES:
        problems.append(f"--game {game}: choose one of {', '.join(GAME_CHOICES)}")
    elif calibration is not None and game not in CALIBRATED:
        problems.append(f"--calibration: {game} is watched without one (it is for tempus and seven-pis)")
    if tile_set not in ("six", "nine", "auto"):
        problems.append(f"--set {tile_set}: choose six, nine or auto")
    try:
        TempusOptions(digits=beginner)
    except TempusError as exc:
        problems.append(str(exc))
    try:
        new_game(grid_cards, players)
    except GridError as exc:
        problems.append(str(exc))
    if learner is not None and game != "flash":
        problems.append(f"--learner: it is for the flash-card drill, not {game}")
    elif learner is not None:
        try:
            learner = learner_name(learner)
        except FlashError as exc:
            problems.append(f"--learner: {exc}")
    if game in HAND_GAMES and source is not None:
        problems.append(f"{source}: the {game} game is typed on the page turn by turn, not watched: leave SOURCE out")
    elif game not in HAND_GAMES and source is None:
        problems.append("give SOURCE, what to watch: a camera index (0), a video file or a stream URL")
    elif source is not None and not is_live(source) and not Path(source).is_file():
        problems.append(f"{source}: no such file; give a camera index (0), a video file or a stream URL")
    open_to_network = not _is_loopback(host)
    if open_to_network and not token:
        problems.append(
            f"--host {host} opens the dashboard to the network: give --token (or set TABLEREF_TOKEN) so that "
            "only those who have it can see the table and start or stop a watch"
        )
    try:
        if results.is_file():
            recorded(results)  # another program's file, or no SQLite file: refused before anything is served
    except StorageError as exc:
        problems.append(str(exc))
    for problem in problems:
        fail(problem)
    if problems:
        raise typer.Exit(code=2)

    profile = load_calibration(calibration, CALIBRATED[game]) if calibration is not None else None
    token = token or secrets.token_urlsafe(16)
    if source is None:
        live: LiveTable | HandTable = HandTable(game, results, bluff_worth)
    else:
        setup = GameSetup(
            game=game,
            beginner=beginner,
            tile_set=tile_set,
            pips=pips,
            rotations_only=rotations_only,
            grid_cards=grid_cards,
            players=players,
            learner=learner,
            profile=profile,
        )
        live = LiveTable(source, setup, results)
    sock = bound(host, port)
    shown_host = f"[{host}]" if ":" in host else host
    typer.echo(f"tableref: the dashboard is at http://{shown_host}:{sock.getsockname()[1]}/?token={token}")
    typer.echo(f"tableref: verdicts are recorded in {results}; Ctrl-C stops the server")
    config = uvicorn.Config(dashboard_app(live, token, open_to_network), log_level="warning")
    # uvicorn shuts down cleanly on Ctrl-C, then passes it on: for a server it is the way to stop, not a failure.
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[sock])
    typer.echo(f"tableref: the server stopped; every watch's verdicts are in {results}")
