"""A camera's motion blur, found and taken out: a webcam moved during the exposure smears every pip, numeral
and stick end into a streak as long as the movement, and the networks lose them.

The blur is found in the frame's cepstrum (`motion_blur`): a straight streak of L pixels multiplies the
frame's spectrum by a sinc whose zeros lie every 1/L along the streak's direction, so the log spectrum holds
a ripple that the cepstrum shows as a deep trough L pixels from its origin, in that direction. The frame's
own content gives troughs too (a pip grid's spacing), so the finding is only asked for where a reader has
already read the frame mostly in doubt. `deblurred` then divides the streak out (a Wiener filter).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

MIN_LENGTH = 4  # px: a shorter streak is the frame's own detail as often as a blur
MAX_LENGTH = 25  # px: a longer one leaves too little to restore
TILE = 512  # the spectrum is averaged over tiles of this size (Welch), so noise averages out
# How much of the signal the Wiener filter gives up where the streak's spectrum is weak, against the noise it
# would amplify there (the noise-to-signal power ratio taken as flat).
NOISE_TO_SIGNAL = 0.01
SAMPLES = 16  # points per pixel along a streak drawn as a kernel
# A trough standing out this far is a moving camera's streak, not the frame's content: of 30 held-out stick
# frames, 2 sharp ones stood out 8 or more (10.5, 12.7; the renders streak a frame in seven themselves), and 24
# of the same frames streaked 11 px (4.6-52.7). Tile frames' pip grids stand out as far as a streak does.
CLEAR_STREAK = 8.0


@dataclass(frozen=True)
class MotionBlur:
    """A straight streak: `length` px at `degrees` from the image's x axis toward its y axis (down), and how far
    its trough in the cepstrum stands out of the others as far from the origin (`prominence`, in median
    absolute deviations): a frame's own content, such as a pip grid, gives troughs of a few."""

    length: float
    degrees: float
    prominence: float = float("inf")

    @property
    def clear(self) -> bool:
        """Whether the trough stands out as a camera's streak does (CLEAR_STREAK)."""
        return self.prominence >= CLEAR_STREAK

    def kernel(self) -> np.ndarray:
        """The streak as a normalised point-spread function, odd-sized, centred: points about every 1/SAMPLES px
        along it, each shared among its four nearest pixels."""
        size = 2 * int(np.ceil(self.length / 2)) + 3
        count = max(1, int(np.ceil(self.length * SAMPLES)))
        t = ((np.arange(count) + 0.5) / count * self.length - self.length / 2)[:, None]  # mid-points
        points = size // 2 + t * [np.cos(np.radians(self.degrees)), np.sin(np.radians(self.degrees))]
        low = np.floor(points).astype(int)
        fx, fy = (points - low).T
        kernel = np.zeros((size, size), np.float64)
        for dx, dy, weight in (
            (0, 0, (1 - fx) * (1 - fy)),
            (1, 0, fx * (1 - fy)),
            (0, 1, (1 - fx) * fy),
            (1, 1, fx * fy),
        ):
            np.add.at(kernel, (low[:, 1] + dy, low[:, 0] + dx), weight)
        return (kernel / kernel.sum()).astype(np.float32)


def motion_blur(image: np.ndarray) -> MotionBlur | None:
    """The streak the frame's cepstrum shows deepest between MIN_LENGTH and MAX_LENGTH px from its origin; None
    for a frame too small or too flat to tell."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    grey = grey.astype(np.float32)
    h, w = grey.shape
    n = min(TILE, h, w)
    if n < 4 * MAX_LENGTH:
        return None
    window = cv2.createHanningWindow((n, n), cv2.CV_32F)
    power = np.zeros((n, n), np.float32)
    for y in np.linspace(0, h - n, int(np.ceil(h / n)) + 1).astype(int):
        for x in np.linspace(0, w - n, int(np.ceil(w / n)) + 1).astype(int):
            tile = grey[y : y + n, x : x + n]
            spectrum = cv2.dft((tile - tile.mean()) * window, flags=cv2.DFT_COMPLEX_OUTPUT)
            power += cv2.magnitude(spectrum[..., 0], spectrum[..., 1]) ** 2
    if not power.any():
        return None  # a flat frame (a covered lens) shows nothing
    log_power = np.log(power + 1e-3 * float(power.mean()))
    # The log power spectrum is even, so its forward transform is its inverse one (scaled), and real.
    cepstrum = np.fft.fftshift(cv2.dft(log_power, flags=cv2.DFT_COMPLEX_OUTPUT | cv2.DFT_SCALE)[..., 0])
    c = n // 2
    reach = MAX_LENGTH
    dy, dx = np.mgrid[-reach : reach + 1, -reach : reach + 1]
    radius = np.hypot(dx, dy)
    near = cepstrum[c - reach : c + reach + 1, c - reach : c + reach + 1]
    near = np.where((radius >= MIN_LENGTH) & (radius <= MAX_LENGTH), near, np.inf)
    row, col = np.unravel_index(int(np.argmin(near)), near.shape)
    # The trough's centre between pixels, from a parabola through it and its neighbours either way.
    y, x = c - reach + row, c - reach + col
    offset_y = _vertex(cepstrum[y - 1, x], cepstrum[y, x], cepstrum[y + 1, x])
    offset_x = _vertex(cepstrum[y, x - 1], cepstrum[y, x], cepstrum[y, x + 1])
    ty, tx = dy[row, col] + offset_y, dx[row, col] + offset_x
    ring = near[np.isfinite(near) & (np.abs(radius - radius[row, col]) <= 1.5)]
    spread = float(np.median(np.abs(ring - np.median(ring)))) + 1e-12
    prominence = float((np.median(ring) - near[row, col]) / spread)
    return MotionBlur(float(np.hypot(tx, ty)), float(np.degrees(np.arctan2(ty, tx)) % 180), prominence)


def _vertex(before: float, at: float, after: float) -> float:
    """Where a parabola through three values one apart has its vertex, from the middle one (within half)."""
    curve = before - 2 * at + after
    return float(np.clip((before - after) / (2 * curve), -0.5, 0.5)) if curve > 0 else 0.0


def clear_streak(image: np.ndarray) -> MotionBlur | None:
    """The frame's streak (`motion_blur`) where it stands out as a camera's does (`MotionBlur.clear`)."""
    blur = motion_blur(image)
    return blur if blur is not None and blur.clear else None


def deblurred(image: np.ndarray, blur: MotionBlur) -> np.ndarray:
    """`image` (uint8) with the streak divided out by a Wiener filter; its border mirrored out first, so the
    filter's wrap-around does not ring at the edges."""
    kernel = blur.kernel()
    k = kernel.shape[0]
    h0, w0 = image.shape[:2]
    h, w = cv2.getOptimalDFTSize(h0 + 4 * k), cv2.getOptimalDFTSize(w0 + 4 * k)
    top, left = (h - h0) // 2, (w - w0) // 2
    padded = cv2.copyMakeBorder(image, top, h - h0 - top, left, w - w0 - left, cv2.BORDER_REFLECT)
    psf = np.zeros((h, w), np.float32)
    psf[:k, :k] = kernel
    spectrum = cv2.dft(np.roll(psf, (-(k // 2), -(k // 2)), axis=(0, 1)), flags=cv2.DFT_COMPLEX_OUTPUT)
    re, im = spectrum[..., 0], spectrum[..., 1]
    gain = 1 / (re * re + im * im + NOISE_TO_SIGNAL)
    wiener = np.dstack([re * gain, -im * gain])  # the spectrum's conjugate over its power plus the noise's
    channels = padded.reshape(h, w, -1)
    out = np.empty((h0, w0, channels.shape[2]), np.uint8)
    for i in range(channels.shape[2]):
        restored = cv2.mulSpectrums(
            cv2.dft(channels[..., i].astype(np.float32), flags=cv2.DFT_COMPLEX_OUTPUT), wiener, 0
        )
        restored = cv2.dft(restored, flags=cv2.DFT_INVERSE | cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)
        out[..., i] = np.clip(restored[top : top + h0, left : left + w0], 0, 255)
    return out.reshape(image.shape)
