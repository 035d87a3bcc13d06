"""`tableref bench`: per-stage milliseconds on the project's sample pictures, and frames per second on its
clips read through the camera path, pinned to one CPU core."""

from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path

import cv2
import numpy as np
from rich.console import Console
from rich.table import Table

from server.app import progress_bar
from vision.image_io import load_image
from vision.sources import VIDEO_SUFFIXES, frames
from vision.stillness import Remembered
from vision.table import KINDS, TableReader, TableReading

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
# A sample clip is read by the recogniser its game needs, as the game's live loop reads; any other by all three.
CLIP_READERS = {"tempus-race": "cards", "seven-pis": "dominoes", "digit-game": "sticks"}
MOST_CLIP_FRAMES = 1000


def pin_to_one_core() -> int:
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    cv2.setNumThreads(1)
    return core


def cpu_summary(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU's model and whether it has VNNI: without it the 8-bit networks run in onnxruntime's slower exact
    kernels (vision.onnx_session.EXACT_8_BIT), so speed figures compare only between hosts alike in this."""
    try:
        first = cpuinfo.read_text().split("\n\n")[0]
    except OSError:
        return platform.processor() or platform.machine()
    fields = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in first.splitlines())}
    vnni = bool(set(fields.get("flags", "").split()) & {"avx512_vnni", "avx_vnni"})
    return f"{fields.get('model name', platform.machine())}; " + ("VNNI" if vnni else "no VNNI")


def run_bench(repeat: int, samples: Path = SAMPLES, clips: tuple[Path, ...] = ()) -> dict[str, dict]:
    """Each sample picture read `repeat` times by all the recognisers together and by each one alone;
    medians per recogniser and per stage. Then each of the samples' clips and the `clips` given, read once
    frame by frame (`bench_clip`), under "clips".

    Each recogniser has its own speed bar, so each is timed alone, as a game's live loop that runs only the
    recognisers it needs pays for it: read together, they share the focus measure and the sharpened frame
    (`vision.sharpen.FocusGauge`), and whichever reader asks first would be charged for all three."""
    core = pin_to_one_core()
    readers = {"all": TableReader(), **{kind: TableReader((kind,)) for kind in KINDS}}
    pictures = sorted(p for p in samples.iterdir() if p.suffix.lower() in {".jpg", ".png"})
    results: dict[str, dict] = {}
    with progress_bar() as progress:
        task = progress.add_task("benchmarking", total=len(pictures) * len(readers) * (repeat + 2))
        for picture in pictures:
            image = load_image(picture)
            timings: dict[str, list[dict[str, float]]] = {name: [] for name in readers}
            last: dict[str, TableReading] = {}  # each reader's latest reading
            for name, reader in readers.items():
                for i in range(repeat + 2):
                    last[name] = reader.read(image, picture.name)
                    if i >= 2:  # the first runs warm caches and the ONNX sessions
                        timings[name].append(last[name].timings)
                    progress.advance(task)
            # One run of each reader alone, stage by stage (their stage names differ by their kind's prefix).
            runs_alone = zip(*(timings[kind] for kind in KINDS), strict=True)
            alone = [{stage: ms for r in runs for stage, ms in r.items()} for runs in runs_alone]
            results[picture.stem] = {
                "size": f"{image.shape[1]}x{image.shape[0]}",
                "found": {kind: len(getattr(last["all"], kind)) for kind in KINDS},
                "kinds_ms": {kind: statistics.median(_kind_ms(r, kind) for r in alone) for kind in KINDS},
                "stages_ms": {stage: statistics.median(r[stage] for r in alone) for stage in alone[0]},
                "total_ms": statistics.median(sum(r.values()) for r in timings["all"]),
            }
    console = Console()
    console.width = max(console.width, 120)
    if results:
        console.print(f"CPU: {cpu_summary()}")
        console.print(_summary_table(results, repeat, core))
        for kind in KINDS:
            console.print(_stage_table(results, kind))
    mat = samples / "mat-view.jpg"
    if mat.is_file():
        results["calibration"] = bench_calibration(load_image(mat), repeat)
        console.print(f"calibration ({mat.name}): {results['calibration']['total_ms']:.1f} ms per frame, one core")
    own = sorted(p for p in samples.iterdir() if p.suffix.lower() in VIDEO_SUFFIXES)
    videos = [(video, CLIP_READERS.get(video.stem, "all")) for video in own] + [(video, "all") for video in clips]
    if videos:
        with progress_bar() as progress:
            task = progress.add_task("reading the clips", total=len(videos))
            results["clips"] = {}
            for video, name in videos:
                kinds = KINDS if name == "all" else (name,)
                results["clips"][video.name] = bench_clip(video, readers[name], kinds)
                progress.advance(task)
        console.print(_clip_table(results["clips"], core))
    return results


def bench_clip(video: Path, reader: TableReader, kinds: tuple[str, ...]) -> dict:
    """The clip read frame by frame as a live loop reads a camera: decoded by OpenCV (`vision.sources`), each
    frame read by `reader`, which reads `kinds`. Medians of decoding and reading, the slowest frame read,
    frames per second over both, and what the last frame held. Every frame is read; the frames a watch would
    read (it answers a still table from memory once two readings agree: `vision/stillness.py`) and its frames
    per second, counting the comparisons, are worked out alongside."""
    decode_ms, read_ms, watch_ms, reading = [], [], [], None
    # What a watch makes of the same frames: the reading just timed, unless it answers from memory.
    watching = Remembered(lambda frame: reading, _found)
    tick = time.perf_counter()
    for frame in frames(str(video), MOST_CLIP_FRAMES):
        decoded = time.perf_counter()
        if reading is None:
            reader.read(frame, video.name)  # warms the ONNX sessions and working arrays; not counted
        start = time.perf_counter()
        reading = reader.read(frame, video.name)
        done = time.perf_counter()
        reads = watching.read_count
        watching(frame)
        compared = time.perf_counter()
        decode_ms.append((decoded - tick) * 1000)
        read_ms.append((done - start) * 1000)
        watch_ms.append(read_ms[-1] if watching.read_count > reads else (compared - done) * 1000)
        tick = time.perf_counter()
    count = len(read_ms)
    return {
        "frames": count,
        "kinds": list(kinds),
        "decode_ms": statistics.median(decode_ms) if count else 0.0,
        "read_ms": statistics.median(read_ms) if count else 0.0,
        "slowest_ms": max(read_ms, default=0.0),
        "fps": 1000 * count / (sum(decode_ms) + sum(read_ms)) if count else 0.0,
        "watch_read": watching.read_count,
        "watch_fps": 1000 * count / (sum(decode_ms) + sum(watch_ms)) if count else 0.0,
        "found": {kind: len(getattr(reading, kind)) for kind in kinds} if reading else {},
    }


def _found(reading: TableReading | None) -> tuple:
    """What a reading found, to tell two readings of a still table apart."""
    if reading is None:
        return ()
    return (
        sorted(card.face.label for card in reading.cards),
        sorted(domino.pips for domino in reading.dominoes),
        len(reading.sticks),
    )


def _clip_table(clips: dict[str, dict], core: int) -> Table:
    table = Table(
        title=f"clips through the camera path (OpenCV decoding), one core (cpu {core})",
        caption="read by the recognisers the clip's game needs; fps over decoding and reading every frame; "
        "watched: as a watch reads, a frame showing the table as the last one read did answered from memory, "
        "the frames read and fps; found: the last frame",
    )
    columns = ("clip", "frames", "read by", "decode ms", "read ms", "slowest ms", "fps", "watched", "found")
    for column in columns:
        table.add_column(column, justify="right")
    for name, c in clips.items():
        found = ", ".join(f"{n} {kind}" for kind, n in c["found"].items())
        table.add_row(
            name,
            str(c["frames"]),
            " ".join(c["kinds"]),
            f"{c['decode_ms']:.1f}",
            f"{c['read_ms']:.1f}",
            f"{c['slowest_ms']:.1f}",
            f"{c['fps']:.0f}",
            f"{c['watch_read']} read, {c['watch_fps']:.0f} fps",
            found,
        )
    return table


def _kind_ms(timings: dict[str, float], kind: str) -> float:
    return sum(ms for stage, ms in timings.items() if stage.startswith(f"{kind}_"))


def _summary_table(results: dict[str, dict], repeat: int, core: int) -> Table:
    sizes = ", ".join(sorted({r["size"] for r in results.values()}))
    table = Table(
        title=f"tableref bench ({sizes}): ms per picture, median of {repeat} runs, one core (cpu {core})",
        caption="each recogniser's ms: read alone, as a game that needs only it reads; all ms: the three together",
    )
    for column in ("picture", *KINDS, *(f"{kind} ms" for kind in KINDS), "all ms", "fps"):
        table.add_column(column, justify="right")
    for name, r in results.items():
        found = [str(r["found"][kind]) for kind in KINDS]
        kinds = [f"{r['kinds_ms'][kind]:.1f}" for kind in KINDS]
        table.add_row(name, *found, *kinds, f"{r['total_ms']:.1f}", f"{1000 / r['total_ms']:.0f}")
    return table


def _stage_table(results: dict[str, dict], kind: str) -> Table:
    stages = [s for s in next(iter(results.values()))["stages_ms"] if s.startswith(f"{kind}_")]
    table = Table(title=f"{kind}: milliseconds per stage")
    table.add_column("picture", justify="right")
    for stage in stages:
        table.add_column(stage.removeprefix(f"{kind}_").removesuffix("_ms"), justify="right")
    for name, r in results.items():
        table.add_row(name, *(f"{r['stages_ms'][stage]:.1f}" for stage in stages))
    return table


def bench_calibration(frame: np.ndarray, repeat: int) -> dict[str, float]:
    """Marker detection and homography on one frame of the mat."""
    from calibration.homography import estimate_homography

    runs = []
    for i in range(repeat + 2):
        t = time.perf_counter()
        estimate_homography(frame)
        if i >= 2:
            runs.append((time.perf_counter() - t) * 1000)
    return {"total_ms": statistics.median(runs)}
