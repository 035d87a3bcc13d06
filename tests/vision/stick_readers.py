"""Stick readers for tests that need the recogniser without one of its looks."""

from vision.sticks.recognize import StickRecognizer


class WithoutHeapLook(StickRecognizer):
    """The reader with every other look it takes, but not the heap's closer one."""

    def _heap_closer(self, image, homography, ignore, sticks):
        return sticks, self._snapped(sticks, image.shape[1::-1], homography)
