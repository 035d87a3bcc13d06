"""The picture `tableref calibrate` saves: what was found, drawn over the frame, so a user can see why."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.homography import Markers, TableHomography
from calibration.mat import MatLayout
from calibration.zones import Zones

FOUND = (0, 200, 0)
OUTLINE = (255, 160, 0)
ZONE = (0, 200, 255)


def draw_calibration(
    frame: np.ndarray,
    markers: Markers,
    table: TableHomography | None = None,
    zones: Zones | None = None,
    layout: MatLayout | None = None,
) -> np.ndarray:
    """A copy of the frame with the detected markers, the mapped mat outline and the zones drawn on it."""
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    thick = max(1, round(max(out.shape[:2]) / 640))
    for marker_id, corners in zip(markers.ids, markers.corners, strict=True):
        cv2.polylines(out, [np.round(corners).astype(np.int32)], True, FOUND, thick, cv2.LINE_AA)
        cv2.putText(out, str(int(marker_id)), _int(corners[0]), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * thick, FOUND, thick)
    if table is None:
        return out
    outline = table.mm_to_pixel(_densify((layout or MatLayout()).outline))
    cv2.polylines(out, [np.round(outline).astype(np.int32)], True, OUTLINE, thick, cv2.LINE_AA)
    for zone in zones or ():
        polygon = table.mm_to_pixel(_densify(np.array(zone.polygon)))
        cv2.polylines(out, [np.round(polygon).astype(np.int32)], True, ZONE, thick, cv2.LINE_AA)
        label = table.mm_to_pixel(np.array([zone.center]))[0]
        cv2.putText(out, zone.name, _int(label), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * thick, ZONE, thick, cv2.LINE_AA)
    text = f"{len(table.marker_ids)} markers, error {table.error_mm:.2f} mm"
    cv2.putText(out, text, (10, 30 * thick), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * thick, OUTLINE, thick, cv2.LINE_AA)
    return out


def _int(point: np.ndarray) -> tuple[int, int]:
    return round(float(point[0])), round(float(point[1]))


def _densify(polygon: np.ndarray, step_mm: float = 10.0) -> np.ndarray:
    """Points every `step_mm` along the polygon, so lens distortion bends the drawn edges as it should."""
    points = []
    for a, b in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / step_mm)))
        points.extend(a + (b - a) * t for t in np.arange(n) / n)
    return np.array(points, dtype=np.float64)
