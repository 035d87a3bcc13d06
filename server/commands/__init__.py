"""Subcommands of `tableref`, one module per game or area; importing a module registers its commands."""
