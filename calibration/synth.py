"""Synthetic camera views of a flat printed sheet, with ground truth, for measuring calibration.

The camera is a pinhole looking at the table from a random direction up to a given tilt off vertical,
at any roll, from a distance that makes the sheet fill a random share of the frame. Lighting, shadow,
sensor noise, blur, JPEG and skin-coloured occluders over chosen markers make the views hard in the
ways a real table is.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.lanes import Lane
from calibration.lens import LensModel
from calibration.mat import MatLayout, render_mat
from models.synth.scenes import _paste_card, card_outline_mm, split_fonts
from vision.cards.artwork import CARD_MM, CardFace, random_style

FRAME_SIZE = (1280, 720)
SHEET_PX_PER_MM = 5.0  # finer than any camera sees the mat, so the render adds no blur of its own


@dataclass(frozen=True, eq=False)
class View:
    """A rendered frame and its true table->pixel homography (table mm -> frame pixels)."""

    frame: np.ndarray
    mm_to_px: np.ndarray
    covered: tuple[int, ...]


def camera_homography(
    rng: np.random.Generator,
    sheet_mm: tuple[float, float],
    frame_size: tuple[int, int] = FRAME_SIZE,
    max_tilt_deg: float = 45.0,
    fill: tuple[float, float] = (0.6, 0.95),
    focal: float | None = None,
) -> np.ndarray:
    """A table mm -> pixel homography K [r1 r2 t] of a random pinhole camera that sees the whole sheet.

    The principal point is the frame centre; the focal length (px) is random unless given.
    """
    w, h = frame_size
    corners = np.array([[0, 0], [sheet_mm[0], 0], [sheet_mm[0], sheet_mm[1]], [0, sheet_mm[1]]], dtype=float)
    while True:
        f = focal or w / 2 / np.tan(np.radians(rng.uniform(25, 40)))  # 50..80 degree horizontal field of view
        k = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
        tilt = np.radians(max_tilt_deg) * np.sqrt(rng.uniform())  # uniform over the spherical cap
        azimuth, roll = rng.uniform(0, 2 * np.pi, size=2)
        target = np.array([sheet_mm[0] / 2, sheet_mm[1] / 2, 0]) + np.append(rng.uniform(-0.1, 0.1, 2) * sheet_mm, 0)
        # Table frame: x right, y down the sheet, z into the table; the camera is above, at negative z.
        back = np.array([np.sin(tilt) * np.cos(azimuth), np.sin(tilt) * np.sin(azimuth), -np.cos(tilt)])
        forward = -back
        side = np.cross(forward, [np.cos(roll), np.sin(roll), 0])
        x_axis = side / np.linalg.norm(side)
        y_axis = np.cross(forward, x_axis)
        rotation = np.stack([x_axis, y_axis, forward])
        share = rng.uniform(*fill)
        lo, hi = 50.0, 20000.0
        for _ in range(40):  # distance by bisection: the sheet's bounding box fills `share` of the frame
            dist = (lo + hi) / 2
            hom = _plane_homography(k, rotation, target + dist * back)
            pts = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), hom).reshape(-1, 2)
            extent = max(np.ptp(pts[:, 0]) / w, np.ptp(pts[:, 1]) / h)
            lo, hi = (dist, hi) if extent > share else (lo, dist)
        inside = (pts.min() >= 4) and (pts[:, 0].max() <= w - 5) and (pts[:, 1].max() <= h - 5)
        if inside:
            return hom


def _plane_homography(k: np.ndarray, rotation: np.ndarray, centre: np.ndarray) -> np.ndarray:
    t = -rotation @ centre
    return k @ np.column_stack([rotation[:, 0], rotation[:, 1], t])


def render_view(
    rng: np.random.Generator,
    sheet: np.ndarray,
    px_per_mm: float,
    mm_to_px: np.ndarray,
    occluders: list[np.ndarray] | None = None,
    frame_size: tuple[int, int] = FRAME_SIZE,
    lens: LensModel | None = None,
) -> np.ndarray:
    """Warp a BGR sheet image (pixel edge x*px_per_mm is x mm) into a lit, noisy camera frame.

    `occluders` are quadrilaterals in table mm; each gets covered by a skin-coloured blob. With a
    `lens`, `mm_to_px` gives undistorted pixels and the frame shows the lens's distortion.
    """
    to_sheet = np.array([[px_per_mm, 0, -0.5], [0, px_per_mm, -0.5], [0, 0, 1]])
    warp = mm_to_px @ np.linalg.inv(to_sheet)
    frame = _table_surface(rng, frame_size)
    to_frame = _warper(warp, frame_size, lens)
    flat = to_frame(sheet)
    alpha = to_frame(np.ones(sheet.shape[:2], np.float32))
    frame = cv2.blendLinear(flat.astype(np.float32), frame, alpha, 1 - alpha)
    for quad in occluders or []:
        pixels = cv2.perspectiveTransform(quad.reshape(-1, 1, 2).astype(float), mm_to_px).reshape(-1, 2)
        _draw_hand(rng, frame, lens.distort_points(pixels) if lens else pixels)
    frame = _light(rng, frame)
    if rng.uniform() < 0.8:
        frame = cv2.GaussianBlur(frame, (0, 0), rng.uniform(0.3, 1.3))
    frame += rng.standard_normal(frame.shape, dtype=np.float32) * np.float32(rng.uniform(1, 6))
    frame = np.clip(frame, 0, 255).astype(np.uint8)
    if rng.uniform() < 0.5:
        _, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 95))])
        frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return frame


def _warper(
    warp: np.ndarray, frame_size: tuple[int, int], lens: LensModel | None
) -> Callable[[np.ndarray], np.ndarray]:
    """A function that warps sheet-sized images into the frame (through the lens, if any)."""
    w, h = frame_size
    if lens is None:
        return lambda image: cv2.warpPerspective(image, warp, (w, h), flags=cv2.INTER_LINEAR)
    # Per frame pixel: where an ideal camera would have seen it, then back onto the sheet.
    grid = np.stack(np.meshgrid(np.arange(w), np.arange(h)), axis=-1).reshape(-1, 2)
    ideal = lens.undistort_points(grid).reshape(-1, 1, 2)
    source = cv2.perspectiveTransform(ideal, np.linalg.inv(warp)).reshape(h, w, 2).astype(np.float32)
    return lambda image: cv2.remap(image, source[..., 0], source[..., 1], cv2.INTER_LINEAR)


def _table_surface(rng: np.random.Generator, frame_size: tuple[int, int]) -> np.ndarray:
    w, h = frame_size
    base = rng.uniform(40, 200, 3).astype(np.float32)
    grain = rng.standard_normal((h // 16 + 1, w // 4 + 1), dtype=np.float32)
    grain = cv2.resize(grain, (w, h), interpolation=cv2.INTER_CUBIC)
    return base + grain[..., None] * (rng.uniform(5, 30) * rng.uniform(0.6, 1.0, 3)).astype(np.float32)


def _draw_hand(rng: np.random.Generator, frame: np.ndarray, quad: np.ndarray) -> None:
    pts = quad.reshape(-1, 2)
    centre = pts.mean(axis=0) + rng.uniform(-0.15, 0.15, 2) * np.ptp(pts, axis=0)
    radius = 0.5 * np.linalg.norm(np.ptp(pts, axis=0)) * rng.uniform(0.9, 1.3)
    axes = (int(radius * rng.uniform(1.0, 1.6)), int(radius * rng.uniform(0.8, 1.1)))
    skin = np.array([rng.uniform(60, 150), rng.uniform(90, 180), rng.uniform(140, 230)])
    cv2.ellipse(frame, tuple(int(v) for v in centre), axes, rng.uniform(0, 180), 0, 360, skin.tolist(), -1)


def _light(rng: np.random.Generator, frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    step = 4  # light varies smoothly: compute it on a coarse grid, then resize
    ys, xs = np.mgrid[0:h:step, 0:w:step].astype(np.float32) + step / 2
    direction = rng.uniform(-1, 1, 2)
    gain = 1 + rng.uniform(0, 0.35) * (direction[0] * (xs / w - 0.5) + direction[1] * (ys / h - 0.5))
    spot = rng.uniform([0, 0], [w, h])
    gain *= 1 + rng.uniform(0, 0.3) * np.exp(-((xs - spot[0]) ** 2 + (ys - spot[1]) ** 2) / (2 * (0.3 * w) ** 2))
    if rng.uniform() < 0.5:  # a soft shadow edge across the frame
        normal = rng.normal(size=2)
        normal /= np.linalg.norm(normal)
        side = (xs - rng.uniform(0, w)) * normal[0] + (ys - rng.uniform(0, h)) * normal[1]
        gain *= 1 - rng.uniform(0.15, 0.45) / (1 + np.exp(-side / rng.uniform(5, 40)))
    gain = cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    tint = (rng.uniform(0.8, 1.15, 3) * rng.uniform(0.45, 1.1)).astype(np.float32)
    return frame * gain[..., None] * tint + np.float32(rng.uniform(-10, 20))


@dataclass(frozen=True)
class LaidCard:
    """A card laid on the mat: its face and its own TL, TR, BR, BL corners in table mm and frame pixels."""

    face: CardFace
    corners_mm: np.ndarray
    corners_px: np.ndarray


@dataclass(frozen=True, eq=False)
class RaceView(View):
    """A mat view with cards on it; `lines` holds each lane's cards, Starter first, in laying order."""

    lines: tuple[tuple[LaidCard, ...], ...] = ()


def race_view(
    seed: int,
    layout: MatLayout,
    lanes: list[Lane],
    lines: list[list[CardFace]],
    max_tilt_deg: float = 45.0,
    heldout: bool = True,
    sloppiness: float = 1.0,
    laid: tuple[int, ...] | None = None,
) -> RaceView:
    """The mat with each lane's cards laid along it from its start, photographed by a random camera.

    Each lane gets its own deck design (every player brings a deck), cards a finger or so apart with a
    hand's jitter (turned by 1.7 degrees and off the lane's centre line by 1.5 mm, times `sloppiness`, at one
    standard deviation), all facing along the lane. Lines must fit their lanes; no marker is covered by a hand.
    With `laid`, only each lane's first so many cards lie there, the view otherwise the same: a race filmed as
    the players lay their lines.
    """
    rng = np.random.default_rng([seed, 1])
    prng = random.Random(seed)
    sheet = cv2.cvtColor(np.asarray(render_mat(layout, dpi=SHEET_PX_PER_MM * 25.4)), cv2.COLOR_RGB2BGR)
    sheet = sheet.astype(np.float32)
    fonts = split_fonts("heldout" if heldout else "train")
    placed: list[list[tuple[CardFace, np.ndarray]]] = []
    for lane, faces in zip(lanes, lines, strict=True):
        style = random_style(prng, fonts, heldout)
        angle = float(np.arctan2(lane.along[1], lane.along[0]))
        gap = prng.uniform(4, 10)
        at = prng.uniform(2, 6) + CARD_MM[0] / 2
        row = []
        for face in faces:
            center = lane.start + lane.along * at + lane.across * prng.gauss(0, 1.5 * sloppiness)
            row.append((face, card_outline_mm(center, angle + prng.gauss(0, 0.03 * sloppiness))))
            at += CARD_MM[0] + gap + prng.gauss(0, 1.0)
        if at - gap - CARD_MM[0] / 2 > lane.length:
            raise ValueError(f"{len(faces)} cards do not fit {lane.zone.name} ({lane.length:.0f} mm long)")
        row = row[: None if laid is None else laid[len(placed)]]
        for face, corners in row:
            _paste_card(sheet, face, style, corners * SHEET_PX_PER_MM - 0.5)
        placed.append(row)
    mm_to_px = camera_homography(rng, (layout.width_mm, layout.height_mm), max_tilt_deg=max_tilt_deg)
    frame = render_view(rng, np.clip(sheet, 0, 255).astype(np.uint8), SHEET_PX_PER_MM, mm_to_px)
    laid = tuple(
        tuple(
            LaidCard(face.reading, corners, cv2.perspectiveTransform(corners.reshape(-1, 1, 2), mm_to_px).reshape(4, 2))
            for face, corners in row
        )
        for row in placed
    )
    return RaceView(frame, mm_to_px, (), laid)
