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



def _lazy(module: str, configure: str, run: str) -> tuple[Configure, Run]:
    """Import a command's module only when the command is used."""
    import importlib

    def do_configure(parser: argparse.ArgumentParser) -> None:
        getattr(importlib.import_module(module), configure)(parser)

    def do_run(args: argparse.Namespace) -> int:
        return int(getattr(importlib.import_module(module), run)(args))

    return do_configure, do_run


COMMANDS: dict[str, tuple[str, Configure, Run]] = {
    "evaluate": ("evaluate scorers as entailment classifiers on a dataset", *_lazy("explorer.commands", "configure_evaluate", "run_evaluate")),
    "score": ("score one text/hypothesis pair with every scorer", *_lazy("explorer.commands", "configure_score", "run_score")),
    "resources": ("list (and download) the NLTK resources the explorer uses", *_lazy("explorer.commands", "configure_resources", "run_resources")),
    "classify": ("train an SVM on MT-metric features (Finch et al. 2005) and report accuracy", *_lazy("explorer.mtcommands", "configure_classify", "run_classify")),
    "corpus-stats": ("lengths, length difference ratio and edit distance per task (Finch et al. Table 1)", *_lazy("explorer.mtcommands", "configure_corpus_stats", "run_corpus_stats")),
    "align-eval": ("evaluate an aligner against gold alignments (P/R/F1, exact match)", *_lazy("explorer.alignment_eval", "configure", "run")),
    "train": ("train a method's model on gold data (e.g. MANLI weights on gold alignments)", *_lazy("explorer.training", "configure_train", "run_train")),
    "batch": ("score a whole corpus on Dask into resumable Parquet chunks", *_lazy("explorer.batch.cli", "configure", "run")),
}


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
    except BrokenPipeError:
        # The reader (e.g. `head`) closed the pipe: not an error of ours.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
