import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.lanes import Lane, lanes_of, read_lanes
from calibration.zones import Zone, Zones, mat_zones

CARD_W, CARD_H = 63.0, 88.0


def lane_zone(name: str, start, angle: float, length: float, width: float, player: int | None = 1) -> Zone:
    """A rectangular lane drawn from its starting end (its first vertex lies there)."""
    along = np.array([math.cos(angle), math.sin(angle)])
    across = np.array([-along[1], along[0]])
    s = np.asarray(start, dtype=float)
    pts = [s - across * width / 2, s + along * length - across * width / 2]
    pts += [s + along * length + across * width / 2, s + across * width / 2]
    return Zone(name, tuple((float(x), float(y)) for x, y in pts), "lane", player)


def test_printed_lanes_read_left_to_right_and_by_player():
    lanes = lanes_of(mat_zones())
    assert [lane.zone.name for lane in lanes] == ["lane-1", "lane-2", "lane-3", "lane-4"]
    for lane in lanes:
        (x0, y0), _, (x1, y1), _ = lane.zone.polygon
        assert np.allclose(lane.along, [1, 0]) and np.allclose(lane.across, [0, 1])
        assert np.allclose(lane.start, [x0, (y0 + y1) / 2])
        assert lane.length == pytest.approx(x1 - x0) and lane.width == pytest.approx(y1 - y0)


def test_a_lane_drawn_from_its_other_end_reads_the_other_way():
    zone = Zone("lane-1", ((300, 0), (0, 0), (0, 50), (300, 50)), "lane", 1)
    lane = Lane.from_zone(zone)
    assert np.allclose(lane.along, [-1, 0])
    assert lane.local((290, 25))[0] == pytest.approx(10)


@settings(max_examples=80, deadline=None)
@given(
    angle=st.floats(-math.pi, math.pi),
    start=st.tuples(st.floats(-500, 500), st.floats(-500, 500)),
    n=st.integers(0, 9),
    before=st.integers(0, 2),
    seed=st.integers(0, 2**16),
)
def test_a_shuffled_line_comes_back_in_order_from_its_starter(angle, start, n, before, seed):
    rng = random.Random(seed)
    length = (before + n + 1) * (CARD_W + 10) + 20
    zone = lane_zone("lane-1", start, angle, length, CARD_H + 10)
    lane = Lane.from_zone(zone)
    # Cards before the Starter (strays), the Starter, then the line, with a hand's jitter.
    along = [10 + CARD_W / 2 + k * (CARD_W + rng.uniform(5, 10)) for k in range(before + 1 + n)]
    points = [lane.start + lane.along * a + lane.across * rng.gauss(0, 3) for a in along]
    order = list(range(len(points)))
    rng.shuffle(order)
    positions = [tuple(points[k]) for k in order]
    starters = [k == before for k in order]
    line = read_lanes(positions, starters, Zones([zone])).lines[0]
    assert order[line.starter] == before
    assert [order[i] for i in line.cards] == list(range(before + 1, before + 1 + n))
    assert sorted(order[i] for i in line.stray) == list(range(before))


@settings(max_examples=40, deadline=None)
@given(angle=st.floats(-math.pi, math.pi), rows=st.integers(2, 4), per_row=st.integers(1, 5))
def test_a_wide_lane_reads_row_by_row_away_from_the_starter(angle, rows, per_row):
    width = rows * (CARD_H + 8)
    zone = lane_zone("lane-1", (100, 100), angle, (per_row + 1) * (CARD_W + 8), width)
    lane = Lane.from_zone(zone)
    first_across = -width / 2 + CARD_H / 2 + 4
    expected, positions, starters = [], [], []
    for r in range(rows):
        for c in range(per_row + (r == 0)):
            p = lane.start + lane.along * (5 + CARD_W / 2 + c * (CARD_W + 8)) + lane.across * (first_across + r * 96)
            positions.append(tuple(p))
            starters.append(r == 0 and c == 0)
            if not starters[-1]:
                expected.append(len(positions) - 1)
    line = read_lanes(positions[::-1], starters[::-1], Zones([zone])).lines[0]
    back = len(positions) - 1
    assert [back - i for i in line.cards] == expected
    assert [len(r) for r in line.rows] == [per_row] * rows


def test_cards_go_to_their_own_lane_and_past_its_far_end():
    zones = Zones([lane_zone(f"lane-{k}", (0, 100 * k), 0.0, 300, 95, k) for k in (1, 2)])
    positions = [(40, 100), (110, 102), (40, 200), (420, 198), (150, 150), (-60, 100), (420, 400)]
    starters = [True, False, True, False, False, False, False]
    reading = read_lanes(positions, starters, zones)
    one, two = reading.lines
    assert (one.starter, one.cards, one.stray) == (0, (1,), ())
    assert (two.starter, two.cards) == (2, (3,))  # 420 mm: on past lane-2's far end
    assert reading.outside == (4, 5, 6)  # between the lanes; before lane-1's start; far from any


def test_the_most_confident_of_two_starters_starts_the_lane():
    zones = Zones([lane_zone("lane-1", (0, 0), 0.0, 400, 95)])
    positions = [(40, 0), (110, 0), (180, 0), (250, 0)]
    reading = read_lanes(positions, [True, False, True, False], zones, confidences=[0.6, 0.9, 0.95, 0.9])
    line = reading.lines[0]
    assert (line.starter, line.cards, line.stray) == (2, (3,), (0, 1))


def test_a_lane_without_a_starter_keeps_its_cards_as_strays():
    zones = Zones([lane_zone("lane-1", (0, 0), 0.0, 400, 95)])
    line = read_lanes([(110, 0), (40, 0)], [False, False], zones).lines[0]
    assert line.starter is None and line.stray == (1, 0) and not line.empty
    assert read_lanes([], [], zones).lines[0].empty


@pytest.mark.parametrize("seed", range(20))
def test_in_a_lane_without_a_starter_a_stand_in_first_along_starts_the_line(seed):
    """A card flagged as a stand-in (a 3, where the Starter was misread) starts a lane with no Starter when it
    comes first along the lane; not when another card comes before it, nor where a Starter was read."""
    rng = random.Random(seed)
    zones = Zones([lane_zone("lane-1", (0, 0), 0.0, 400, 95)])
    positions = [(40 + 70 * k, rng.uniform(-2, 2)) for k in range(5)]
    order = list(range(5))
    rng.shuffle(order)
    shuffled = [positions[i] for i in order]
    first = order.index(0)
    flags = [i == first for i in range(5)]
    line = read_lanes(shuffled, [False] * 5, zones, stand_ins=flags).lines[0]
    assert line.stand_in and line.starter == first
    assert [order[i] for i in line.cards] == [1, 2, 3, 4]
    second = order.index(1)
    line = read_lanes(shuffled, [False] * 5, zones, stand_ins=[i == second for i in range(5)]).lines[0]
    assert line.starter is None and not line.stand_in
    starters = [i == order.index(2) for i in range(5)]
    line = read_lanes(shuffled, starters, zones, stand_ins=flags).lines[0]
    assert line.starter == order.index(2) and not line.stand_in


def test_the_topmost_zone_decides_as_recognize_reports_it():
    printed = lane_zone("lane-1", (0, 0), 0.0, 400, 30)
    drawn = lane_zone("wide", (0, 0), 0.0, 400, 95, 2)
    note = Zone("notes", ((300, -50), (400, -50), (400, 50), (300, 50)))
    reading = read_lanes([(40, 0), (110, 30), (350, 0)], [True, False, False], Zones([printed, drawn, note]))
    by_name = {line.lane.zone.name: line for line in reading.lines}
    assert by_name["lane-1"].empty
    assert (by_name["wide"].starter, by_name["wide"].cards) == (0, (1,))
    assert reading.outside == (2,)  # on the notes zone drawn over the lane's end


def test_flags_must_match_positions():
    with pytest.raises(ValueError, match="starters"):
        read_lanes([(0, 0)], [], Zones())
