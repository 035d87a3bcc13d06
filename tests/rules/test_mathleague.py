"""mathleague.org scoring: students, all-star and school scores against the sheet's rules, as properties over
random tableaux and on worked examples."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.mathleague import (
    COLOURS,
    Level,
    MathleagueError,
    SchoolTeam,
    Student,
    Tableau,
    student_score,
    team_scores,
    win_number,
)

students = st.builds(
    Student,
    level=st.sampled_from(Level),
    score=st.integers(0, 120),
    colour=st.sampled_from(COLOURS[:2]),
    school=st.sampled_from([None, "Euler"]),
    tools=st.lists(st.integers(0, 30), max_size=3).map(tuple),
    teachers=st.lists(st.sampled_from(COLOURS[:2]), max_size=1).map(tuple),
)


def test_the_sheets_multipliers_cap_and_doubled_tools() -> None:
    school = SchoolTeam("Euler", cards=3, teachers=("blue",))
    tableau = Tableau((), (school,))
    assert student_score(Student(Level.MS, 40, "red"), tableau) == 200  # x5 middle school
    assert student_score(Student(Level.HS, 40, "red", tools=(10,)), tableau) == 70  # x1.5 high school, +10
    assert student_score(Student(Level.ELEM, 40, "red", tools=(10,), teachers=("red",)), tableau) == 60
    assert student_score(Student(Level.ELEM, 40, "red", school="Euler", tools=(10,)), tableau) == 60  # its school's
    assert student_score(Student(Level.MS, 70, "red", tools=(25,)), tableau) == 300  # capped


@given(st.lists(students, max_size=6), st.lists(st.integers(0, 60), max_size=3), st.sampled_from(COLOURS[:2]))
def test_the_scores_are_the_best_groups_of_four(team: list, school_tools: list, school_teacher: str) -> None:
    tableau = Tableau(tuple(team), (SchoolTeam("Euler", 3, tuple(school_tools), (school_teacher,)),))
    scores = team_scores(tableau)
    each = [student_score(s, tableau) for s in team]
    assert list(scores.students) == each and all(0 <= score <= 300 for score in each)

    def best(among: list[int], extra: float, teachers: set[str]) -> float | None:
        totals = []
        for group in itertools.combinations(among, 4):
            colours = {team[i].colour for i in group}
            taught = teachers | {c for i in group for c in team[i].teachers}
            bonus = 50 if len(colours) == 1 and colours <= taught else 0
            totals.append(sum(each[i] for i in group) / 4 + bonus + extra)
        return max(totals, default=None)

    all_star = scores.all_star.score if scores.all_star else None
    assert all_star == best(list(range(len(team))), 0, set())
    attached = [i for i, s in enumerate(team) if s.school == "Euler"]
    school = scores.schools["Euler"]
    assert (school.score if school else None) == best(attached, min(100, sum(school_tools)), {school_teacher})


def test_what_the_sheet_does_not_allow_is_refused() -> None:
    with pytest.raises(MathleagueError, match="TOOL cards attach to 3 SCHOOL cards or more"):
        SchoolTeam("Euler", cards=2, tools=(10,))
    with pytest.raises(MathleagueError, match="no colour of the game"):
        Student(Level.MS, 40, "pink")
    with pytest.raises(MathleagueError, match="no SCHOOL card here"):
        Tableau((Student(Level.MS, 40, "red", school="Gauss"),))
    assert (win_number(63), win_number(63, team_play=True)) == (263, 363)
    with pytest.raises(MathleagueError):
        win_number(100)
