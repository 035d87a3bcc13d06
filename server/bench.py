"""`tableref bench`: per-stage milliseconds on the project's sample pictures, pinned to one CPU core."""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import cv2
import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from vision.image_io import load_image
from vision.table import TableReader

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def pin_to_one_core() -> int:
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    cv2.setNumThreads(1)
    return core


def run_bench(repeat: int, samples: Path = SAMPLES) -> dict[str, dict[str, float]]:
    core = pin_to_one_core()
    reader = TableReader()
    pictures = sorted(p for p in samples.iterdir() if p.suffix.lower() in {".jpg", ".png"})
    results: dict[str, dict[str, float]] = {}
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("benchmarking", total=len(pictures) * (repeat + 2))
        for picture in pictures:
            image = load_image(picture)
            runs = []
            for i in range(repeat + 2):
                reading = reader.read(image, picture.name)
                if i >= 2:  # the first runs warm caches and the ONNX session
                    runs.append(reading.timings)
                progress.advance(task)
            stages = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            total = statistics.median(sum(r.values()) for r in runs)
            results[picture.name] = {
                **stages,
                "total_ms": total,
                "fps": 1000 / total,
                "cards": len(reading.cards),
                "sticks": len(reading.sticks),
                "dominoes": len(reading.dominoes),
                "size": f"{image.shape[1]}x{image.shape[0]}",
            }
    table = Table(title=f"tableref bench: milliseconds, median of {repeat} runs, one core (cpu {core})")
    columns = ["picture", "size", "cards", "sticks", "dominoes", *runs[0].keys(), "total_ms", "fps"]
    for c in columns:
        table.add_column(c.removesuffix("_ms"), justify="right")
    for name, r in results.items():
        table.add_row(name, *(f"{r[c]:.1f}" if isinstance(r[c], float) else str(r[c]) for c in columns[1:]))
    console = Console()
    console.width = max(console.width, 120)
    console.print(table)
    mat = samples / "mat-view.jpg"
    if mat.is_file():
        results["calibration"] = bench_calibration(load_image(mat), repeat)
        console.print(f"calibration ({mat.name}): {results['calibration']['total_ms']:.1f} ms per frame, one core")
    return results


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
