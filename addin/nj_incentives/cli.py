"""The ``nj-incentives`` command.

Each subcommand lives in its own module, which provides ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status); this file only wires them together, importing
each lazily so that ``nj-incentives explain`` does not pay for pandas or the formula
engine.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from nj_incentives import LAW_CURRENT_TO, __version__

#: subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "calc": (
        "nj_incentives.calc",
        "recalculate filled template workbooks without Excel (default: the bundled examples)",
    ),
    "explain": (
        "nj_incentives.explain",
        "compute one result and print it with its steps and citations",
    ),
    "scenarios": (
        "nj_incentives.scenarios.cli",
        "run a table, grid or Monte Carlo draw of scenarios on the calculation core",
    ),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser; with ``only``, import just that subcommand's module."""
    parser = argparse.ArgumentParser(
        prog="nj-incentives",
        description="New Jersey business-incentive calculations (BEIP, ERTC, CBT minimum tax).",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"nj-incentives {__version__}; law current to: {LAW_CURRENT_TO}",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as missing:  # a subcommand not built into this copy
            if missing.name is None or not module_name.startswith(missing.name):
                raise
            sub.set_defaults(run=_unavailable)
            continue
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def _unavailable(args: argparse.Namespace) -> int:
    print(f"nj-incentives {args.command}: not installed in this copy", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    only = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    args = build_parser(only).parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
