"""Dominoes and Seven Pis: the solitaire's simulator and, from photos, its pis."""

from __future__ import annotations

import json

import typer

from server.app import app, fail


@app.command()
def simulate(
    game: str = typer.Argument(..., help="The game: seven-pis."),
    strategy: list[str] = typer.Option(
        ["many", "one-at-a-time", "advisor"], "--strategy", help="many, one-at-a-time or advisor; repeat to compare."
    ),
    games: int = typer.Option(10_000, help="Games per strategy."),
    seed: int = typer.Option(2026, help="The same seed plays the same deals."),
    double_nine: bool = typer.Option(False, "--double-nine", help="11 pis of 5 tiles from a double-nine set."),
    as_json: bool = typer.Option(False, "--json", help="One JSON summary per strategy."),
) -> None:
    """Settle the Seven Pis sheet's open question by simulation: which way of playing leaves fewest tiles."""
    from rich.console import Console
    from rich.progress import Progress

    from rules.seven_pis import DOUBLE_NINE, DOUBLE_SIX
    from rules.seven_pis_play import STRATEGIES
    from rules.seven_pis_play import simulate as run

    if game != "seven-pis":
        fail(f"no simulator for {game!r}; choose: seven-pis")
        raise typer.Exit(code=2)
    unknown = [s for s in strategy if s not in STRATEGIES]
    if unknown or games < 1:
        fail(f"unknown strategy {unknown[0]!r}; choose: {', '.join(STRATEGIES)}" if unknown else "--games must be >= 1")
        raise typer.Exit(code=2)
    setup = DOUBLE_NINE if double_nine else DOUBLE_SIX
    summaries = []
    with Progress(console=Console(stderr=True), transient=True) as progress:
        for name in strategy:
            task = progress.add_task(name, total=games)
            summaries.append(
                run(name, games, seed, setup, lambda done, _total, t=task: progress.update(t, completed=done))
            )
    for summary in summaries:
        if as_json:
            typer.echo(json.dumps(summary.to_json()))
        else:
            typer.echo(
                f"{summary.strategy:>14}: mean score {summary.mean_score:.2f} tiles left, "
                f"went out in {summary.went_out:.2%} of {summary.games} games, "
                f"{summary.mean_completed_pis:.2f} pis completed on average"
            )
