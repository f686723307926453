"""Command-line interface: ``python -m explorer COMMAND ...``.

Every command uses the same library code as the UI. Commands are registered in
:data:`COMMANDS` as ``name -> (configure(parser), run(args) -> exit code)``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

Configure = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]

COMMANDS: dict[str, tuple[str, Configure, Run]] = {}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m explorer",
        description="The Entailment Alignment Explorer's command line.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, configure, run) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        configure(command)
        command.set_defaults(run=run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
