"""Command-line interface: ``entailment-explorer COMMAND ...`` or ``python -m explorer COMMAND ...``.

Every command uses the same library code as the UI. Commands are one
:class:`explorer.api.Registry` (:data:`COMMANDS`): a name, a help line and the module
holding its ``configure_NAME(parser)`` and ``run_NAME(args) -> exit code`` (``-`` in the
name becomes ``_``), one module per command family (:mod:`~explorer.cli.evaluate`, :mod:`~explorer.cli.mt`,
:mod:`~explorer.cli.combined`, :mod:`~explorer.cli.align`, :mod:`~explorer.cli.train`,
:mod:`~explorer.cli.batch`, :mod:`~explorer.cli.slices`, :mod:`~explorer.cli.rewrite`,
:mod:`~explorer.cli.lesson`); a module is imported only when its command is used.

Every command takes ``--format text|json`` (``--json`` is ``--format json``) and prints
one record (:class:`explorer.api.Report`) through :func:`explorer.cli.output.emit`: the
text comes from the record's ``format()``, never from the command. Commands that run a
method take the per-pair limits (``--max-tokens`` ...). An option a command would not
use is refused, not ignored.

Errors are caught once, here: any :class:`explorer.errors.ExplorerError` or
unreadable/unwritable file prints ``error: MESSAGE`` on stderr with exit status 2, never
a traceback. Whatever the CLI echoes of a name or path goes through
:func:`explorer.api.shown`, so control characters in a file name never reach the
terminal raw.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from explorer.api import Registry, import_attr
from explorer.errors import ExplorerError


@dataclass(frozen=True)
class CommandInfo:
    """A command: ``module.configure_NAME(parser)`` adds its arguments,
    ``module.run_NAME(args)`` runs it; ``limits``: it runs methods on pairs, so it takes
    the per-pair limit options."""

    name: str
    help: str
    module: str
    limits: bool = True

    @property
    def configure(self) -> str:
        return f"{self.module}:configure_{self.name.replace('-', '_')}"

    @property
    def run(self) -> str:
        return f"{self.module}:run_{self.name.replace('-', '_')}"


COMMANDS: Registry[CommandInfo] = Registry("command", [
    CommandInfo("evaluate", "evaluate scorers as entailment classifiers on a dataset", "explorer.cli.evaluate"),
    CommandInfo("score", "score one text/hypothesis pair with every scorer", "explorer.cli.evaluate"),
    CommandInfo("resources", "list (and download) the NLTK resources the explorer uses", "explorer.cli.evaluate",
                limits=False),
    CommandInfo("classify", "train an SVM on MT-metric features (Finch et al. 2005) and report accuracy", "explorer.cli.mt"),
    CommandInfo("combined", "train the combined entailment classifier (logistic regression over scorers and "
                "alignment features), report on test data, save the model", "explorer.cli.combined"),
    CommandInfo("corpus-stats", "lengths, length difference ratio and edit distance per task (Finch et al. Table 1)",
                "explorer.cli.mt", limits=False),
    CommandInfo("align-eval", "evaluate an aligner against gold alignments (P/R/F1, exact match)", "explorer.cli.align"),
    CommandInfo("train", "train a method's model on gold data (e.g. MANLI weights on gold alignments)", "explorer.cli.train"),
    CommandInfo("batch", "score a whole corpus on Dask into resumable Parquet chunks", "explorer.cli.batch"),
    CommandInfo("slices", "each scorer's accuracy on groups of pairs (slices), with 95%% intervals against the "
                "whole set", "explorer.cli.slices"),
    CommandInfo("rewrite", "what-if rewrites: rewrite every pair (of a slice) by a rule and count the verdicts "
                "each scorer flips", "explorer.cli.rewrite"),
    CommandInfo("lesson", "write a pair's Teach lessons (one method, or a deck of several) as one self-contained "
                "HTML file that opens from disk with no network", "explorer.cli.lesson"),
])


class _Parser(argparse.ArgumentParser):
    """argparse, but a refused command line is one line on stderr (status 2), not the usage."""

    def error(self, message: str) -> NoReturn:
        from explorer.api import shown

        self.exit(2, f"{self.prog}: error: {shown(message)} (see {self.prog} --help)\n")


def build_parser(prog: str = "python -m explorer") -> argparse.ArgumentParser:
    from explorer import __version__

    parser = _Parser(prog=prog, description="The Entailment Alignment Explorer's command line.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, info in COMMANDS.items():
        command = sub.add_parser(name, help=info.help, description=info.help)
        import_attr(info.configure)(command)
        _add_format_option(command)
        if info.limits:
            _add_limit_options(command)
        command.set_defaults(run=info.run)
    return parser


def _add_format_option(parser: argparse.ArgumentParser) -> None:
    """``--format text|json`` and its alias ``--json``: every command's output."""
    from explorer.cli.output import FORMATS

    group = parser.add_argument_group("output")
    group.add_argument("--format", choices=FORMATS, default="text",
                       help="text (default) or json: one JSON object on stdout")
    group.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")


def _positive(kind: type) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive number, not {text!r}") from None
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(f"expected a positive finite number, not {text!r}")
        return value  # type: ignore[no-any-return]

    return parse


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """The cost limits of every method (:mod:`explorer.limits`), one option each."""
    from explorer.limits import CLI_OPTIONS, DEFAULT_LIMITS

    group = parser.add_argument_group("limits", "what one pair may cost a method (explorer/limits.py)")
    for field, option in CLI_OPTIONS.items():
        default = getattr(DEFAULT_LIMITS, field)
        group.add_argument(option, dest=f"limit_{field}", metavar="N", type=_positive(type(default)),
                           help=f"default {default:,}")


def _limits_of(args: argparse.Namespace) -> dict[str, float]:
    return {k.removeprefix("limit_"): v for k, v in vars(args).items() if k.startswith("limit_") and v is not None}


def main(argv: list[str] | None = None) -> int:
    import os

    prog = "python -m explorer" if os.path.basename(sys.argv[0]) in ("__main__.py", "-m") else "entailment-explorer"
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version, or a refused command line (already said)
        return int(done.code or 0) if not isinstance(done.code, str) else 2
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 2
    from explorer.cli.output import fail

    try:
        from explorer import limits

        with limits.using(limits.current().replace(**_limits_of(args))):
            return int(import_attr(args.run)(args))
    except ExplorerError as err:
        return fail(str(err))
    except BrokenPipeError:
        # The reader (e.g. `head`) closed the pipe: not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:  # an input or output file the command could not open
        where = f"{err.filename}: " if err.filename else ""
        return fail(f"{where}{err.strerror or err}")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (MemoryError, RecursionError) as err:
        print(f"error: the input is too large or too deeply nested to process ({type(err).__name__})", file=sys.stderr)
        return 2
    except Exception as err:  # a bug of ours: still one line, never a traceback
        if os.environ.get("EXPLORER_DEBUG"):
            raise
        return fail(f"unexpected {type(err).__name__}: {err} (a bug in the explorer; "
                    "set EXPLORER_DEBUG=1 to see where, and please report it)")
