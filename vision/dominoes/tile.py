"""A tile's frame in the picture: its centre and two half-axes, and the upright crop they define.

A tile seen through a webcam is close to a parallelogram: centre `c`, `u` from the centre to the middle of
the second half's end, `v` from the centre to the middle of a long side. Its halves sit at c -/+ u/2.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import HALF_TURN, mirrored_points, points_in_quads, rectangle_tilt, to_plane, turned_back

CROP_SIZE = (32, 64)  # width, height: an upright tile, first half on top
CROP_MARGIN = 64 / 56  # the crop shows a rim of table round the tile, so the tile's own edges are seen
CUT_SAMPLES = 65  # points along a frame's axis where `cut_at` looks for the other tile's edge
MIN_CUT = 0.5  # least share of a frame's length `cut_at` keeps


@dataclass(frozen=True, slots=True)
class TileFrame:
    center: np.ndarray
    u: np.ndarray
    v: np.ndarray

    @staticmethod
    def from_corners(corners: np.ndarray) -> TileFrame:
        """From the tile's own TL, TR, BR, BL (the first half at the top edge)."""
        tl, tr, br, bl = np.asarray(corners, np.float64)
        return TileFrame((tl + tr + br + bl) / 4, (bl + br - tl - tr) / 4, (tr + br - tl - bl) / 4)

    def corners(self) -> np.ndarray:
        """TL, TR, BR, BL running clockwise on screen, the first half at the top edge."""
        c, u, v = self.center, self.u, self.v
        if u[0] * v[1] - u[1] * v[0] > 0:  # keep the outline clockwise in image coordinates (y down)
            v = -v
        return np.array([c - u - v, c - u + v, c + u + v, c + u - v], np.float32)

    def halves(self) -> np.ndarray:
        return np.array([self.center - self.u / 2, self.center + self.u / 2], np.float32)

    def turned(self) -> TileFrame:
        """The same tile read from the other end."""
        return TileFrame(self.center, -self.u, -self.v)

    def scaled(self, factor: float) -> TileFrame:
        return TileFrame(self.center * factor, self.u * factor, self.v * factor)

    def shifted(self, offset: np.ndarray) -> TileFrame:
        """The frame read in a window of a picture, in the picture: moved by the window's corner."""
        return TileFrame(self.center + offset, self.u, self.v)

    def cut_at(self, outline: np.ndarray) -> TileFrame | None:
        """The frame cut back to where its axis enters `outline` (another tile's), keeping the end outside
        it: a frame that ran on into a touching tile. None if neither end alone lies inside, or if less than
        MIN_CUT of the frame would be left."""
        ts = np.linspace(-1, 1, CUT_SAMPLES)
        inside = points_in_quads(self.center + ts[:, None] * self.u, [outline])[:, 0]
        if inside[0] == inside[-1]:
            return None
        if inside[0]:  # walk from the outside end, so `ts` runs from it
            ts, inside = ts[::-1], inside[::-1]
        edge = ts[np.argmax(inside)]  # the first sample inside
        far = ts[0]
        if abs(edge - far) < 2 * MIN_CUT:
            return None
        return TileFrame(self.center + (far + edge) / 2 * self.u, self.u * abs(edge - far) / 2, self.v)

    def nudged(self, step: float) -> list[TileFrame]:
        """Ten frames one small step away, one change each: shifted along either axis, lengthened or
        shortened along either axis, turned either way. `step` 1 shifts by 0.12 of the spacing of the halves
        along the tile and 0.12 of its width across, scales by 15 % and turns by 0.12 radians; smaller steps
        scale these down."""
        c, u, v = self.center, self.u, self.v
        shift, grow, turn = 0.12 * step, 1 + 0.15 * step, 0.12 * step
        cos, sin = np.cos(turn), np.sin(turn)
        spin = np.array([[cos, -sin], [sin, cos]])
        return [
            *(TileFrame(c + sign * shift * axis, u, v) for axis in (u, 2 * v) for sign in (1, -1)),
            *(TileFrame(c, u * f, v) for f in (grow, 1 / grow)),
            *(TileFrame(c, u, v * f) for f in (grow, 1 / grow)),
            *(TileFrame(c, r @ u, r @ v) for r in (spin, spin.T)),
        ]

    def half_turned(self, size: tuple[int, int]) -> TileFrame:
        """The frame in a picture of `size` turned half round (and back)."""
        return TileFrame(mirrored_points(self.center, size, HALF_TURN), -self.u, -self.v)

    def turned_back(self, height: int) -> TileFrame:
        """From a frame `vision.geometry.landscape` turned back to the portrait original of `height` rows."""
        return TileFrame(
            turned_back(self.center, height), np.array([self.u[1], -self.u[0]]), np.array([self.v[1], -self.v[0]])
        )


def on_table(outlines: np.ndarray, size: tuple[int, int]) -> tuple[float, np.ndarray, list[TileFrame], float]:
    """Tile outlines (n, 4, 2 image px of a picture of `size`) on the table plane as the camera's tilt gives it
    (`rectangle_tilt`: the tilt under which they are most nearly 2:1 rectangles): that tilt (degrees; negative
    with the far side at the top), the image -> plane matrix, each tile's frame there, and the median tile's
    cell (the spacing of its halves), one size all over the table."""
    tilt, plane = rectangle_tilt(outlines, size, 2.0)
    frames = [TileFrame.from_corners(corners) for corners in to_plane(plane, outlines)]
    cell = float(np.median([np.linalg.norm(f.u) + np.linalg.norm(2 * f.v) for f in frames])) / 2
    return tilt, plane, frames, cell


def crop_matrices(frames: list[TileFrame]) -> np.ndarray:
    """The affine maps (n, 2, 3) from image pixels to the upright CROP_SIZE crops of the frames: the tile's
    TL, TR and BL corners, pulled out by CROP_MARGIN, go to the crop's. All at once, as a search reads
    hundreds of frames a picture and solving them one by one cost more than warping them."""
    w, h = CROP_SIZE
    c, u, v = (np.array([getattr(f, axis) for f in frames], np.float64).reshape(-1, 2) for axis in ("center", "u", "v"))
    v = np.where((u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0] > 0)[:, None], -v, v)  # clockwise, as `corners` runs
    corners = np.stack([c - u - v, c - u + v, c + u - v], axis=1).astype(np.float32)  # TL, TR, BL
    src = (c[:, None] + (corners - c[:, None]) * CROP_MARGIN).astype(np.float32).astype(np.float64)
    homogeneous = np.concatenate([src.transpose(0, 2, 1), np.ones((len(src), 1, 3))], axis=1)
    return np.array([[0, w, 0], [0, 0, h]], np.float64) @ np.linalg.inv(homogeneous)


def crop_tiles(
    image: np.ndarray, frames: list[TileFrame], smaller: tuple[np.ndarray, float] | None = None
) -> list[np.ndarray]:
    """The tiles warped upright. A tile still larger than the crop in `smaller` (that image and its scale)
    is taken from there: a bilinear warp from a much larger picture would alias the pips."""
    frames, sources = list(frames), [image] * len(frames)
    if smaller is not None and frames:
        widths = 2 * np.hypot(*np.array([f.v for f in frames], np.float64).reshape(-1, 2).T)
        for i in np.flatnonzero(widths * smaller[1] >= CROP_SIZE[0]):
            sources[i], frames[i] = smaller[0], frames[i].scaled(smaller[1])
    return [
        cv2.warpAffine(source, matrix, CROP_SIZE, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        for source, matrix in zip(sources, crop_matrices(frames), strict=True)
    ]


def crop_tile(image: np.ndarray, frame: TileFrame, smaller: tuple[np.ndarray, float] | None = None) -> np.ndarray:
    """One tile warped upright (see crop_tiles)."""
    return crop_tiles(image, [frame], smaller)[0]
