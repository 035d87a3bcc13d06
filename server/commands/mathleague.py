"""mathleague.org cards: a player's team, typed card by card, scored against the win number."""

from __future__ import annotations

import json

import typer

from rules.mathleague import (
    GroupScore,
    Level,
    MathleagueError,
    SchoolTeam,
    Student,
    Tableau,
    TeamScores,
    team_scores,
    win_number,
)
from server.app import fail, judge_app


def _fields(text: str, what: str) -> tuple[list[str], dict[str, str]]:
    """'ms 40 red school=Euler tools=10+5': the words before the first key=value, and the keys' values."""
    words, keys = [], {}
    for part in text.split():
        key, equals, value = part.partition("=")
        if equals:
            keys[key.lower()] = value
        elif keys:
            raise MathleagueError(f"{what} {text!r}: {part!r} after the key=value parts")
        else:
            words.append(part)
    return words, keys


def _numbers(text: str, what: str) -> tuple[int, ...]:
    parts = [p for p in text.split("+") if p]
    if not all(p.isdigit() for p in parts):
        raise MathleagueError(f"{what}: whole numbers joined by +, e.g. 10+5, got {text!r}")
    return tuple(int(p) for p in parts)


def parse_student(text: str) -> Student:
    """'LEVEL SCORE COLOUR [school=NAME] [tools=10+5] [teachers=red+blue]'."""
    words, keys = _fields(text, "--student")
    if len(words) != 3 or words[0].lower() not in {level.value for level in Level} or not words[1].isdigit():
        raise MathleagueError(f"--student {text!r}: give LEVEL (elem, ms, hs), SCORE and COLOUR, e.g. 'ms 40 red'")
    unknown = set(keys) - {"school", "tools", "teachers"}
    if unknown:
        raise MathleagueError(f"--student {text!r}: no such part {', '.join(sorted(unknown))}")
    return Student(
        Level(words[0].lower()),
        int(words[1]),
        words[2].lower(),
        keys.get("school"),
        _numbers(keys.get("tools", ""), "tools"),
        tuple(c.lower() for c in keys.get("teachers", "").split("+") if c),
    )


def parse_school(text: str) -> SchoolTeam:
    """'NAME [cards=3] [tools=20+10] [teachers=blue]'."""
    words, keys = _fields(text, "--school")
    unknown = set(keys) - {"cards", "tools", "teachers"}
    if len(words) != 1 or unknown:
        raise MathleagueError(f"--school {text!r}: give its NAME, then cards=N, tools=A+B, teachers=COLOUR+...")
    cards = _numbers(keys.get("cards", "1"), "cards")
    return SchoolTeam(
        words[0],
        cards[0] if len(cards) == 1 else 0,
        _numbers(keys.get("tools", ""), "tools"),
        tuple(c.lower() for c in keys.get("teachers", "").split("+") if c),
    )


def _group(group: GroupScore | None, what: str) -> str:
    if group is None:
        return f"{what}: fewer than four students"
    numbers = ", ".join(str(i + 1) for i in group.students)
    bonus = " with the colour bonus" if group.bonus else ""
    return f"{what}: {group.score:g} (students {numbers}{bonus})"


def score_lines(scores: TeamScores, target: int | None) -> list[str]:
    lines = [f"student {i}: {score:g}" for i, score in enumerate(scores.students, start=1)]
    lines.append(_group(scores.all_star, "all-star score"))
    lines += [_group(group, f"school {name}") for name, group in scores.schools.items()]
    if target is not None:
        reached = "reached: this team wins" if scores.best >= target else f"{target - scores.best:g} to go"
        lines.append(f"win number {target}: best {scores.best:g}, {reached}")
    return lines


@judge_app.command("mathleague")
def judge_mathleague(
    student: list[str] = typer.Option(
        [],
        "--student",
        help="A STUDENT card in front of the player (repeat): 'LEVEL SCORE COLOUR [school=NAME] [tools=10+5] "
        "[teachers=red]', LEVEL elem, ms or hs, SCORE its printed high score.",
    ),
    school: list[str] = typer.Option(
        [], "--school", help="A school team (repeat): 'NAME [cards=N] [tools=20+10] [teachers=blue]'."
    ),
    lowest: int | None = typer.Option(
        None, "--lowest", help="The lowest two-digit number showing at the start: the win number is 200 plus it."
    ),
    team_play: bool = typer.Option(
        False, "--team-play", help="The team-play variation: the win number is 300 plus it."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the scores as JSON."),
) -> None:
    """mathleague.org cards, typed (the camera does not read their printed names): each student's score, the
    best all-star score, each school team's score and, with --lowest, whether the win number is reached."""
    try:
        tableau = Tableau(tuple(map(parse_student, student)), tuple(map(parse_school, school)))
        target = win_number(lowest, team_play) if lowest is not None else None
    except MathleagueError as exc:
        fail(str(exc))
        raise typer.Exit(code=2) from exc
    scores = team_scores(tableau)
    if as_json:
        reached = None if target is None else scores.best >= target
        typer.echo(json.dumps({**scores.to_json(), "win_number": target, "reached": reached}))
        return
    for line in score_lines(scores, target):
        typer.echo(line)
