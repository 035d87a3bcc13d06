"""Loading pictures from disk without trusting them."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

# 64 megapixels: any phone photo passes, a decompression bomb does not.
MAX_PIXELS = 64_000_000


class ImageLoadError(Exception):
    """A picture that cannot be read; the message says what to do about it."""


def load_image(path: str | Path, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Read an image file as BGR uint8, checking its header before decoding a single pixel."""
    path = Path(path)
    try:
        is_folder, exists = path.is_dir(), path.exists()
    except PermissionError as exc:  # a folder on the way that may be listed but not entered
        raise ImageLoadError(f"{path}: cannot be reached ({exc.strerror}); check its folder's permissions") from exc
    if is_folder:
        if not os.access(path, os.R_OK | os.X_OK):
            raise ImageLoadError(f"{path}: a folder that cannot be opened (permission denied); check its permissions")
        raise ImageLoadError(f"{path}: is a folder, not an image; pass the image files inside it")
    if not exists:
        raise ImageLoadError(f"{path}: no such file; check the path")
    try:
        with warnings.catch_warnings():  # Pillow warns of big pictures; the limit below says it better
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as probe:  # reads the header only
                width, height = probe.size
                kind = probe.format
    except Image.DecompressionBombError as exc:
        raise ImageLoadError(_too_big(path, "the picture", max_pixels)) from exc
    except PermissionError as exc:
        raise ImageLoadError(f"{path}: cannot be read ({exc.strerror}); check its permissions") from exc
    except (UnidentifiedImageError, OSError) as exc:
        if _is_heif(path):
            raise ImageLoadError(
                f"{path}: a HEIC photo (an iPhone's own format), which is not read here; export it as JPEG, or "
                "set the phone to take JPEGs (on an iPhone: Settings, Camera, Formats, Most Compatible)"
            ) from exc
        raise ImageLoadError(f"{path}: not an image OpenCV or Pillow can read (JPEG, PNG, BMP, WebP...)") from exc
    if width * height > max_pixels:
        raise ImageLoadError(_too_big(path, f"{width}x{height}", max_pixels))
    data = np.fromfile(path, dtype=np.uint8)
    # OpenCV fills a cut-off JPEG with grey and says nothing: check the end marker first.
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if _complete(data.tobytes(), kind) else None
    if image is None:
        raise ImageLoadError(f"{path}: the image data is damaged or truncated; export or copy it again")
    return image


# The ISO media file's major brands of HEIF pictures (HEVC-coded images and image sequences), after "ftyp".
HEIF_BRANDS = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1")


def _is_heif(path: Path) -> bool:
    try:
        with open(path, "rb") as file:
            head = file.read(12)
    except OSError:  # the file that Pillow could not read: say only that
        return False
    return head[4:8] == b"ftyp" and head[8:12] in HEIF_BRANDS


def _too_big(path: Path, size: str, max_pixels: int) -> str:
    return f"{path}: {size} is over the {max_pixels // 1_000_000} megapixel limit; scale it down first"


def _complete(data: bytes, kind: str | None) -> bool:
    """Whether the file ends the way its format ends (JPEG: EOI marker; PNG: IEND chunk)."""
    tail = data.rstrip(b"\x00\r\n")[-12:]
    if kind == "JPEG":
        return tail.endswith(b"\xff\xd9")
    if kind == "PNG":
        return b"IEND" in tail
    return True
