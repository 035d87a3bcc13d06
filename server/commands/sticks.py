"""DIGIT, the stick game: its cards and, from photos, its layouts."""

from __future__ import annotations

import json

import typer

from server.app import fail, judge_app


@judge_app.command("digit")
def judge_digit(
    list_cards: bool = typer.Option(False, "--list", help="Print the 55 DIGIT cards: number, code and edges."),
    as_json: bool = typer.Option(False, "--json", help="As JSON, one object per card."),
) -> None:
    """DIGIT, the stick game. Reading a layout from a photo comes with the stick recogniser."""
    from rules.sticks import PENTASTICKS, shape_code, to_ascii

    if not list_cards:
        fail("reading stick layouts from photos is not built yet; use --list")
        raise typer.Exit(code=2)
    for number, shape in enumerate(PENTASTICKS, start=1):
        edges = sorted(shape)
        if as_json:
            typer.echo(json.dumps({"card": number, "code": shape_code(edges), "edges": [e.to_json() for e in edges]}))
        else:
            typer.echo(f"card {number}: {shape_code(edges)}\n{to_ascii(edges)}\n")
