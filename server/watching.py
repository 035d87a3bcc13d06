"""Watching a table: a video file, a camera or a stream read frame by frame, as a referee's live loop reads.

One loop for every game that judges a table over time: a progress bar on stderr, times from the first frame,
and the ways a watch ends (the film ends, the game says it is over, Ctrl-C, the camera stops, or a frame comes
at a size the calibration cannot place: what was judged until then stands).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import cv2
import numpy as np
import typer

from server.app import counted, fail, progress_bar
from vision.advice import Advice, Adviser
from vision.sources import FrameCounts, SourceError, is_live, timed_frames

if TYPE_CHECKING:
    from server.storage import NotRecorded, Recording

T = TypeVar("T")

MOST_FRAMES = 1_000_000  # over nine hours at 30 fps


@dataclass(frozen=True)
class Onlooker:
    """Watches beside the referee (the dashboard's live table): `see` gets each frame and its seconds before the
    game judges it, and may end the watch by returning a reason; `counts` tallies what the source gave;
    `advised` hears what the player could fix about the frames each time the watch looks (vision/advice.py)."""

    see: Callable[[float, np.ndarray], str | None]
    counts: FrameCounts = field(default_factory=FrameCounts)
    advised: Callable[[list[Advice]], None] = lambda advice: None


@dataclass(frozen=True)
class Watched:
    frames: int  # frames judged
    # "film", "stopped" (Ctrl-C), "camera" (the source stopped mid-way), "frame size" (a frame the calibration
    # cannot place) or the game's reason
    ended_by: str
    why: str = ""  # with "camera" or "frame size": what happened

    def to_json(self) -> dict:
        return {"frames": self.frames, "ended_by": self.ended_by, **({"why": self.why} if self.why else {})}


def watch(
    source: str,
    on_frame: Callable[[float, np.ndarray], str | None],
    recording: Recording | NotRecorded | None = None,
    at_end: Callable[[], None] = lambda: None,
    size_problem: Callable[[tuple[int, int]], str | None] = lambda size: None,
    onlooker: Onlooker | None = None,
) -> Watched:
    """Each frame of `source` given to `on_frame` with its seconds since the first frame, until it returns a
    reason to stop or the watch ends otherwise; then `at_end` (which may still record), and the recording
    (server/storage.py) is told how it ended. A frame whose (width, height) has a `size_problem` ends the watch
    unjudged (a calibration maps one camera size only). The `onlooker` sees each frame before it is judged
    (the dashboard shows it) and may end the watch. Now and then a frame is looked at for what the player could
    fix (too dark, out of focus: vision/advice.py); a problem is told on stderr as it appears, and the onlooker
    hears every look. A source that gives no frame at all raises SourceError (the recording ends with no
    frames)."""
    total = None if is_live(source) else _frame_count(source)
    frames, ended_by, why, started = 0, "film", "", None
    adviser, told = Adviser(), set()
    with progress_bar() as progress:
        task = progress.add_task(f"watching {source}", total=total)
        try:
            counts = onlooker.counts if onlooker is not None else None
            for seconds, frame in timed_frames(source, MOST_FRAMES, counts=counts):
                if problem := size_problem(frame.shape[1::-1]):
                    ended_by, why = "frame size", f"frame {frames + 1} {problem}"
                    break
                started = seconds if started is None else started
                frames += 1
                progress.advance(task)
                if (advice := adviser(frame)) is not None:
                    for new in (a for a in advice if a.problem not in told):
                        progress.console.print(
                            f"tableref: {source}: {new.message}", markup=False, highlight=False, soft_wrap=True
                        )
                    told = {a.problem for a in advice}
                    if onlooker is not None:
                        onlooker.advised(advice)
                reason = onlooker.see(seconds - started, frame) if onlooker is not None else None
                reason = reason or on_frame(seconds - started, frame)
                if reason is not None:
                    ended_by = reason
                    break
        except KeyboardInterrupt:
            ended_by = "stopped"
        except SourceError as exc:
            if started is None:
                if recording is not None:
                    recording.end(Watched(0, "no frames"))
                raise
            ended_by, why = "camera", str(exc).removeprefix(f"{source}: ")
    watched = Watched(frames, ended_by, why)
    at_end()
    if recording is not None:
        recording.end(watched)
    return watched


def watched_or_exit(watching: Callable[[], T]) -> T:
    """What `watching` (a game's watch) gives; if its source gives no frame at all, one line saying why and
    exit code 1."""
    try:
        return watching()
    except SourceError as exc:
        fail(str(exc))
        raise typer.Exit(code=1) from exc


def exit_if_nothing_held(source: str, watched: Watched, held: bool, what: str, advice: str) -> None:
    """Where nothing the game judges held still over the whole watch: one line saying what to film (or what
    was wrong with the frames), and exit code 1."""
    if not held:
        seen = counted(watched.frames, "frame")
        fail(f"{source}: {watched.why or f'{what} held still in {seen}; {advice}'}")
        raise typer.Exit(code=1)


def exit_if_cut_short(source: str, watched: Watched, what_stands: str) -> None:
    """Where the camera stopped mid-watch or sent a frame the calibration cannot place (after what was judged
    was printed): one line saying so, and exit code 1."""
    stands = what_stands[:1].upper() + what_stands[1:]
    if watched.ended_by == "camera":
        fail(f"{source}: the camera stopped after {counted(watched.frames, 'frame')}: {watched.why}. {stands}")
        raise typer.Exit(code=1)
    if watched.ended_by == "frame size":
        fail(f"{source}: {watched.why}. {stands}")
        raise typer.Exit(code=1)


def _frame_count(video: str) -> int | None:
    capture = cv2.VideoCapture(video)
    total = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    capture.release()
    return total or None
