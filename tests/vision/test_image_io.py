import warnings

import numpy as np
import pytest
from PIL import Image

from vision.image_io import ImageLoadError, load_image


def test_reads_a_png(tmp_path) -> None:
    path = tmp_path / "ok.png"
    Image.fromarray(np.full((20, 30, 3), 200, np.uint8)).save(path)
    image = load_image(path)
    assert image.shape == (20, 30, 3)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.write_text("hello, not a picture"), "not an image"),
        (lambda p: p.write_bytes(b""), "not an image"),
        (lambda p: p.mkdir(), "is a folder"),
        # The head of an iPhone's HEIC photo: a box of type ftyp, major brand heic.
        (lambda p: p.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64)), "export it as JPEG"),
    ],
)
def test_bad_inputs_name_the_file_and_the_remedy(tmp_path, make, message) -> None:
    path = tmp_path / "input.jpg"
    make(path)
    with pytest.raises(ImageLoadError) as info:
        load_image(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


# 100 and 225 megapixels: Pillow warns at the first and refuses the second.
@pytest.mark.parametrize("side", [10000, 15000])
def test_a_decompression_bomb_is_refused_before_decoding(tmp_path, side) -> None:
    path = tmp_path / "bomb.png"
    Image.new("1", (side, side)).save(path)  # a few kilobytes on disk
    assert path.stat().st_size < 100_000
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the user gets one line, not Pillow's warning as well
        with pytest.raises(ImageLoadError, match=f"{path}: .* over the 64 megapixel limit"):
            load_image(path)


def test_a_truncated_jpeg_is_refused(tmp_path) -> None:
    whole = tmp_path / "whole.jpg"
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (200, 200, 3), np.uint8)).save(whole)
    cut = tmp_path / "cut.jpg"
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) * 6 // 10])
    with pytest.raises(ImageLoadError, match="damaged or truncated"):
        load_image(cut)


def test_a_phone_photo_stored_sideways_is_read_the_way_it_is_shown(tmp_path) -> None:
    """Phones store a portrait photo's pixels sideways and tag it (EXIF Orientation 6: turn a quarter
    clockwise to show it). The reader must see it as shown, or portrait frames would reach it sideways."""
    shown = np.zeros((64, 32, 3), np.uint8)
    shown[:16, :16] = 255  # a white block at the top left as shown
    photo = Image.fromarray(np.ascontiguousarray(np.rot90(shown)))  # stored a quarter anticlockwise
    exif = photo.getexif()
    exif[0x0112] = 6
    path = tmp_path / "phone.jpg"
    photo.save(path, exif=exif.tobytes(), quality=95)
    image = load_image(path)
    assert image.shape == shown.shape
    assert image[:16, :16].mean() > 200 and image[16:, :].mean() < 40 and image[:, 16:].mean() < 40
