"""Optional lens calibration from views of a printed ChArUco board.

Webcams with wide lenses bend straight table edges; a homography alone cannot model that, so the
residual shows up as millimetres of error near the frame border. Calibrating once removes it: the
homography is then fitted on undistorted pixel coordinates.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

# A different dictionary from the mat's, so a board lying on the mat cannot be mistaken for mat markers.
BOARD_DICTIONARY = cv2.aruco.DICT_5X5_100
BOARD_SQUARES = (9, 6)
SQUARE_MM = 28.0
MARKER_MM = 21.0
PAGE_MM = (297.0, 210.0)  # A4 landscape


class LensError(ValueError):
    """Too few usable board views to calibrate."""


@dataclass(frozen=True, eq=False)
class LensModel:
    """Camera matrix and distortion coefficients for frames of one size (OpenCV's model)."""

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]
    rms_px: float = 0.0

    @cached_property
    def _maps(self) -> tuple[np.ndarray, np.ndarray]:
        return cv2.initUndistortRectifyMap(
            self.camera_matrix, self.dist_coeffs, None, self.camera_matrix, self.image_size, cv2.CV_16SC2
        )

    def undistort(self, frame: np.ndarray) -> np.ndarray:
        """The frame as a distortion-free camera with the same camera matrix would see it."""
        h, w = frame.shape[:2]
        if (w, h) != tuple(self.image_size):
            raise ValueError(f"lens calibrated for {self.image_size[0]}x{self.image_size[1]}, frame is {w}x{h}")
        return cv2.remap(frame, *self._maps, cv2.INTER_LINEAR)

    def undistort_points(self, points: np.ndarray) -> np.ndarray:
        """Pixel positions in the raw frame -> positions in the undistorted frame, shape (n, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        if not len(pts):  # OpenCV answers no points with None
            return np.zeros((0, 2))
        # OpenCV's default five iterations leave ~0.05 px near the frame corners under strong barrel
        # distortion; iterate to convergence instead.
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-10)
        k, dist = self.camera_matrix, self.dist_coeffs
        out = cv2.undistortPointsIter(pts, k, dist, None, k, criteria)
        return out.reshape(-1, 2)

    def distort_points(self, points: np.ndarray) -> np.ndarray:
        """Positions in the undistorted frame -> pixel positions in the raw frame, shape (n, 2)."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if not len(pts):
            return np.zeros((0, 2))
        rays = cv2.convertPointsToHomogeneous(pts).reshape(-1, 3) @ np.linalg.inv(self.camera_matrix).T
        zero = np.zeros(3)
        out, _ = cv2.projectPoints(rays, zero, zero, self.camera_matrix, self.dist_coeffs)
        return out.reshape(-1, 2)


def charuco_board(
    squares: tuple[int, int] = BOARD_SQUARES, square_mm: float = SQUARE_MM, marker_mm: float = MARKER_MM
) -> cv2.aruco.CharucoBoard:
    """The calibration board; its printed scale does not matter for the intrinsics."""
    dictionary = cv2.aruco.getPredefinedDictionary(BOARD_DICTIONARY)
    return cv2.aruco.CharucoBoard(squares, square_mm, marker_mm, dictionary)


def render_board(board: cv2.aruco.CharucoBoard | None = None, dpi: float = 300) -> Image.Image:
    """The board centred on an A4 landscape page, for printing at 100% scale."""
    board = board or charuco_board()
    scale = dpi / 25.4
    cols, rows = board.getChessboardSize()
    square = board.getSquareLength()
    size = (round(cols * square * scale), round(rows * square * scale))
    pattern = Image.fromarray(board.generateImage(size, marginSize=0, borderBits=1)).convert("RGB")
    page = Image.new("RGB", (round(PAGE_MM[0] * scale), round(PAGE_MM[1] * scale)), "white")
    left, top = (page.width - size[0]) // 2, (page.height - size[1]) // 2
    page.paste(pattern, (left, top))
    font = ImageFont.load_default(size=max(8, round(4 * scale)))
    caption = f"tableref lens board: ChArUco {cols}x{rows}, squares {square:g} mm. Keep it flat."
    ImageDraw.Draw(page).text((left, top + size[1] + round(3 * scale)), caption, fill=(120, 120, 120), font=font)
    return page


def board_points(
    frame: np.ndarray, board: cv2.aruco.CharucoBoard, min_corners: int = 8
) -> tuple[np.ndarray, np.ndarray] | None:
    """Board-frame 3D points and their pixels in one view, or None when the view is unusable."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(gray)
    if ids is None or len(ids) < min_corners or board.checkCharucoCornersCollinear(ids):
        return None
    objects, pixels = board.matchImagePoints(corners, ids)
    return objects.reshape(-1, 3).astype(np.float32), pixels.reshape(-1, 2).astype(np.float32)


def calibrate_lens(
    frames: Iterable[np.ndarray], board: cv2.aruco.CharucoBoard | None = None, min_views: int = 5
) -> LensModel:
    """Camera matrix and distortion from views of the board taken at varied tilts and positions.

    Tilted views matter: the focal length is only observable through perspective foreshortening.
    """
    board = board or charuco_board()
    objects, pixels, size = [], [], None
    for frame in frames:
        h, w = frame.shape[:2]
        if size is not None and size != (w, h):
            raise LensError(f"frames differ in size: {size[0]}x{size[1]} and {w}x{h}")
        size = (w, h)
        found = board_points(frame, board)
        if found is not None:
            objects.append(found[0])
            pixels.append(found[1])
    if len(objects) < min_views or size is None:
        raise LensError(f"board found in {len(objects)} views, need at least {min_views}")
    rms, matrix, dist, _, _ = cv2.calibrateCamera(objects, pixels, size, None, None)
    return LensModel(matrix, dist.reshape(-1), size, float(rms))
