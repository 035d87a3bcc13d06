"""mathleague.org cards: a player's team scored, and whether it reaches the win number.

The cards are read by their printed names and scores, which the camera does not read; the player types what lies
in front of them (``Student``, ``SchoolTeam``). Readings taken where the sheet (``rulebooks/mathleague-cards.md``)
is silent:

- A student's TOOL values are doubled when a TEACHER is attached to the student or to its school team, once
  however many teachers there are; the 300-point cap applies after.
- The all-star score is the best group of four students in front of the player; a school score the best four
  students attached to that school team. Fewer than four students make no such score.
- The 50-point colour bonus needs all four students of one colour and a TEACHER of that colour attached to one of
  them (or, for a school score, to the school team).
- TOOL cards attach to a school team only when it holds three SCHOOL cards or more; the team counts at most 100
  of their points.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

COLOURS = ("blue", "orange", "red", "green", "purple")
STUDENT_CAP = 300
COLOUR_BONUS = 50
SCHOOL_TOOLS_CAP = 100
TEAM_SIZE = 4
TOOLS_ON_SCHOOLS_FROM = 3  # SCHOOL cards a team needs before TOOL cards attach to it
BASE_WIN = 200
TEAM_PLAY_BASE_WIN = 300


class MathleagueError(ValueError):
    """A tableau the rules do not allow, or a card that is no card of the game."""


class Level(enum.Enum):
    ELEM = "elem"
    MS = "ms"
    HS = "hs"

    @property
    def multiplier(self) -> float:
        return {Level.ELEM: 1.0, Level.MS: 5.0, Level.HS: 1.5}[self]


@dataclass(frozen=True)
class Student:
    level: Level
    score: int  # the high score printed on the card
    colour: str
    school: str | None = None  # the school team it is attached to
    tools: tuple[int, ...] = ()  # values of the TOOL cards attached to it
    teachers: tuple[str, ...] = ()  # colours of the TEACHER cards attached to it

    def __post_init__(self) -> None:
        _check_colour(self.colour)
        for colour in self.teachers:
            _check_colour(colour)
        if self.score < 0 or any(tool < 0 for tool in self.tools):
            raise MathleagueError("scores and TOOL values are not negative")


@dataclass(frozen=True)
class SchoolTeam:
    name: str
    cards: int = 1  # SCHOOL cards of this name attached to each other
    tools: tuple[int, ...] = ()
    teachers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for colour in self.teachers:
            _check_colour(colour)
        if self.cards < 1:
            raise MathleagueError(f"school team {self.name}: it holds one SCHOOL card at least")
        if self.tools and self.cards < TOOLS_ON_SCHOOLS_FROM:
            raise MathleagueError(
                f"school team {self.name}: TOOL cards attach to {TOOLS_ON_SCHOOLS_FROM} SCHOOL cards or more, "
                f"it has {self.cards}"
            )


@dataclass(frozen=True)
class Tableau:
    """What lies in front of one player."""

    students: tuple[Student, ...]
    schools: tuple[SchoolTeam, ...] = ()

    def __post_init__(self) -> None:
        names = [school.name for school in self.schools]
        if len(set(names)) < len(names):
            raise MathleagueError("a school's SCHOOL cards form one team: name each school once")
        for student in self.students:
            if student.school is not None and student.school not in names:
                raise MathleagueError(f"a student is attached to {student.school}, which has no SCHOOL card here")

    def school(self, name: str | None) -> SchoolTeam | None:
        return next((school for school in self.schools if school.name == name), None)


def student_score(student: Student, tableau: Tableau) -> float:
    """The printed score times its level's multiplier plus its TOOLs (doubled where a TEACHER is attached to it or
    its school team), capped at 300."""
    team = tableau.school(student.school)
    taught = bool(student.teachers) or (team is not None and bool(team.teachers))
    tools = sum(student.tools) * (2 if taught else 1)
    return min(STUDENT_CAP, student.score * student.level.multiplier + tools)


@dataclass(frozen=True)
class GroupScore:
    students: tuple[int, ...]  # indices into the tableau's students
    score: float
    bonus: bool  # the colour bonus counted

    def to_json(self) -> dict[str, Any]:
        return {"students": list(self.students), "score": self.score, "colour_bonus": self.bonus}


def _best_four(
    tableau: Tableau, among: Sequence[int], extra: float = 0.0, team_teachers: tuple[str, ...] = ()
) -> GroupScore | None:
    scores = [student_score(student, tableau) for student in tableau.students]
    best: GroupScore | None = None
    for group in itertools.combinations(among, TEAM_SIZE):
        colours = {tableau.students[i].colour for i in group}
        taught = {c for i in group for c in tableau.students[i].teachers} | set(team_teachers)
        bonus = len(colours) == 1 and colours <= taught
        total = sum(scores[i] for i in group) / TEAM_SIZE + (COLOUR_BONUS if bonus else 0) + extra
        if best is None or total > best.score:
            best = GroupScore(group, total, bonus)
    return best


@dataclass(frozen=True)
class TeamScores:
    students: tuple[float, ...]
    all_star: GroupScore | None
    schools: dict[str, GroupScore | None] = field(default_factory=dict)

    @property
    def best(self) -> float:
        scores = [s.score for s in (self.all_star, *self.schools.values()) if s is not None]
        return max(scores, default=0.0)

    def to_json(self) -> dict[str, Any]:
        return {
            "students": list(self.students),
            "all_star": self.all_star.to_json() if self.all_star else None,
            "schools": {name: s.to_json() if s else None for name, s in self.schools.items()},
            "best": self.best,
        }


def team_scores(tableau: Tableau) -> TeamScores:
    """Each student's score, the best all-star score and each school team's score."""
    everyone = range(len(tableau.students))
    schools = {}
    for school in tableau.schools:
        attached = [i for i in everyone if tableau.students[i].school == school.name]
        tools = min(SCHOOL_TOOLS_CAP, sum(school.tools))
        schools[school.name] = _best_four(tableau, attached, tools, school.teachers)
    students = tuple(student_score(student, tableau) for student in tableau.students)
    return TeamScores(students, _best_four(tableau, everyone), schools)


def win_number(lowest_showing: int, team_play: bool = False) -> int:
    """The score that wins: 200 (300 in team play) plus the lowest two-digit number showing at the start."""
    if not 0 <= lowest_showing <= 99:
        raise MathleagueError(f"the domino digits read as a number 00-99, got {lowest_showing}")
    return (TEAM_PLAY_BASE_WIN if team_play else BASE_WIN) + lowest_showing


def _check_colour(colour: str) -> None:
    if colour not in COLOURS:
        raise MathleagueError(f"{colour!r} is no colour of the game: {', '.join(COLOURS)}")
