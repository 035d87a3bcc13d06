import shutil

from models.synth.samples import FRAMES_PER_STEP, SAMPLE_SCENES, STICK_SCENES, filmed, write_clip
from models.synth.scenes import render_scene
from models.synth.sticks import render_stick_scene
from server.bench import SAMPLES, cpu_summary, run_bench
from vision.cards.recognize import CardRecognizer
from vision.sources import frames
from vision.table import KINDS


def test_each_recogniser_is_timed_alone_with_its_own_focus_measure(tmp_path) -> None:
    """Read together, the readers share one focus measure and the first to ask pays for it. Alone, the tile
    reader measures every frame's focus itself (several ms at 1280x720), and the stick reader, as a sticks-only
    game would, only where it reads sticks but not surely: on neither the close-up of cards (no stick) nor the
    DIGIT layout it reads surely."""
    for picture in ("sticks-digit.jpg", "close-up.jpg"):
        shutil.copy(SAMPLES / picture, tmp_path)
    results = run_bench(1, tmp_path)
    layout, cards = results["sticks-digit"], results["close-up"]
    assert layout["found"]["sticks"] == 5 and cards["found"]["sticks"] == 0
    assert cards["stages_ms"]["dominoes_sharpen_ms"] > 0.2
    assert cards["stages_ms"]["sticks_sharpen_ms"] < 0.2
    assert layout["stages_ms"]["sticks_sharpen_ms"] < 0.2
    assert set(layout["kinds_ms"]) == set(KINDS)
    assert layout["total_ms"] > 0


def test_a_clip_is_read_frame_by_frame_by_its_games_recogniser_and_any_other_by_all_three(tmp_path) -> None:
    """A DIGIT table filmed: every frame decoded and read by the stick reader alone, as the game's live loop
    reads; the same video under a name of the user's own is read by all three recognisers. A watch would read
    the still film's first two frames only."""
    seed, spec = STICK_SCENES["sticks-digit.jpg"]
    samples = tmp_path / "samples"
    samples.mkdir()
    assert write_clip(samples / "digit-game.mp4", filmed(render_stick_scene(seed, spec).image, 6, 0)) == 6
    mine = shutil.copy(samples / "digit-game.mp4", tmp_path / "my-table.mp4")
    clips = run_bench(1, samples, clips=(mine,))["clips"]
    sticks, everything = clips["digit-game.mp4"], clips["my-table.mp4"]
    assert sticks["frames"] == everything["frames"] == 6
    assert sticks["kinds"] == ["sticks"] and sticks["found"] == {"sticks": 5}
    assert everything["kinds"] == list(KINDS) and everything["found"]["sticks"] == 5
    assert sticks["fps"] > 0 and sticks["read_ms"] <= sticks["slowest_ms"]
    assert everything["read_ms"] > sticks["read_ms"]  # three recognisers cost more than one
    # A watch reads the still table's first two frames, which agree, and answers the other four from memory.
    assert sticks["watch_read"] == everything["watch_read"] == 2 and sticks["watch_fps"] > sticks["fps"]


def test_the_race_clip_shows_each_card_from_the_frame_it_is_laid_in() -> None:
    """The bench's race clip read through the camera path: the cards laid so far, and only they, are read in
    the last frame of each card's turn (one frame in fifteen may miss or misread one)."""
    seed, spec = SAMPLE_SCENES["tempus-row.jpg"]
    truth = [card.face.label for card in render_scene(seed, spec).cards]
    clip = list(frames(str(SAMPLES / "tempus-race.mp4"), 1000))
    assert len(clip) == len(truth) * FRAMES_PER_STEP
    reader = CardRecognizer()
    right = 0
    for laid in range(1, len(truth) + 1):
        read = sorted(card.face.label for card in reader(clip[laid * FRAMES_PER_STEP - 1]))
        right += read == sorted(truth[:laid])
    assert right >= len(truth) - 1


def test_the_cpu_line_says_whether_the_cpu_has_vnni(tmp_path) -> None:
    """Without VNNI the 8-bit networks run slower exact kernels: speed figures compare only between hosts alike."""
    info = tmp_path / "cpuinfo"
    info.write_text(
        "processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu avx2 fma\n\nprocessor\t: 1\nflags\t: avx_vnni\n"
    )
    assert cpu_summary(info) == "Some CPU; no VNNI"
    info.write_text("model name\t: Some CPU\nflags\t\t: avx2 avx512f avx512_vnni\n")
    assert cpu_summary(info) == "Some CPU; VNNI"
    assert cpu_summary(tmp_path / "missing")  # a host without /proc still gets a line
