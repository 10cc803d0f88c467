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
from collections.abc import Callable, Sequence

from nj_incentives import LAW_CURRENT_TO, __version__

#: subcommand -> (module, one-line help, the extra that installs what it needs)
SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "calc": (
        "nj_incentives.calc",
        "recalculate filled template workbooks without Excel (default: the bundled examples)",
        "calc",
    ),
    "explain": (
        "nj_incentives.explain",
        "compute one result and print it with its steps and citations",
        "",
    ),
    "scenarios": (
        "nj_incentives.scenarios.cli",
        "run a table, grid or Monte Carlo draw of scenarios on the calculation core",
        "scenarios",
    ),
    "templates": (
        "nj_incentives.templates",
        "copy the blank template workbooks and their filled examples to a folder",
        "",
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
    for name, (module_name, help_text, extra) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as missing:  # an optional dependency not installed
            if not extra or (missing.name or "").startswith("nj_incentives"):
                raise
            sub.set_defaults(run=_needs_extra(name, extra, missing.name or "?"))
            continue
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def _needs_extra(command: str, extra: str, module: str) -> Callable[[argparse.Namespace], int]:
    def run(_args: argparse.Namespace) -> int:
        print(
            f"nj-incentives {command} needs the optional dependencies of the '{extra}' extra "
            f"({module} is not installed): pip install 'nj-incentives[{extra}]'",
            file=sys.stderr,
        )
        return 2

    return run


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    only = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    args = build_parser(only).parse_args(argv)
    try:
        status: int = args.run(args)
    except ModuleNotFoundError as missing:  # imported on demand by the subcommand
        extra = SUBCOMMANDS[args.command][2]
        if not extra or (missing.name or "").startswith("nj_incentives"):
            raise
        return _needs_extra(args.command, extra, missing.name or "?")(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
