"""The ``nj-incentives`` command, on Click.

Each subcommand lives in its own module, which provides ``command`` (a Click command);
this file only wires them together, importing each lazily so that ``nj-incentives
explain`` does not pay for pandas or the formula engine (``nj-incentives --help`` imports
none of them).

Exit status, the same for the same outcome in every subcommand (:data:`EXIT_CODES`):

- 0: done, everything checked out;
- 1: done, but a check failed or rows had errors (a master check FALSE, a rejected input,
  scenarios with errors): what was written is there for inspection;
- 2: not done: wrong arguments (an unknown option, a value not in the expected format), a
  file missing, refused as unsafe or unreadable, an optional dependency not installed.

Every subcommand takes ``--json``: one JSON document on standard output for scripts
(messages still go to standard error).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

import click

from nj_incentives.support.status import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, needs_extra
from nj_incentives.version import LAW_CURRENT_TO, __version__

__all__ = [
    "EXIT_CODES",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "SUBCOMMANDS",
    "Fraction",
    "app",
    "cache_values_option",
    "force_option",
    "json_option",
    "main",
    "namespace_option",
    "needs_extra",
]

#: subcommand -> (module providing ``command``, one-line help, the extra it needs)
SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "calc": (
        "nj_incentives.cli.calc",
        "recalculate filled template workbooks without Excel (default: the bundled examples)",
        "calc",
    ),
    "explain": (
        "nj_incentives.cli.explain",
        "compute one result and print it with its steps and citations",
        "",
    ),
    "scenarios": (
        "nj_incentives.cli.scenarios",
        "run a table, grid or Monte Carlo draw of scenarios on the calculation core",
        "scenarios",
    ),
    "doctor": (
        "nj_incentives.cli.doctor",
        "check the setup of the Excel functions (and of a workbook); print the next step",
        "",
    ),
    "fill": (
        "nj_incentives.cli.fill",
        "fill a template from data (YAML, JSON or CSV; payroll hours for the ERTC roster)",
        "calc",
    ),
    "rollforward": (
        "nj_incentives.cli.rollforward",
        "roll a template workbook forward to its next period (sign-offs cleared)",
        "calc",
    ),
    "sign": (
        "nj_incentives.cli.sign",
        "sign a workbook as its preparer or reviewer (flagged when its inputs change after)",
        "calc",
    ),
    "diff": (
        "nj_incentives.cli.diff",
        "compare two workbooks (or one under two laws): each difference with its cause",
        "calc",
    ),
    "note": (
        "nj_incentives.cli.note",
        "review notes on a workbook's inputs and outputs: add, list, clear",
        "calc",
    ),
    "calendar": (
        "nj_incentives.cli.calendar",
        "write an award's compliance calendar (its dated obligations) as CSV and iCalendar",
        "",
    ),
    "templates": (
        "nj_incentives.cli.templates",
        "copy the blank template workbooks and their filled examples to a folder",
        "",
    ),
}

_EPILOG = "\b\nexit status:\n" + "\n".join(f"  {code}  {text}" for code, text in EXIT_CODES.items())


# --------------------------------------------------------------------------- shared parts


class Fraction(click.ParamType):  # type: ignore[type-arg]
    """A percentage as a fraction (``0.5``) or as a percent (``50%``, read as 0.5 exactly).

    The value is handed on as text, so the calculation core still checks it (range,
    citation) with its own message."""

    name = "fraction"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "FRACTION|PERCENT%"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text.endswith("%"):
            return text
        try:
            percent = Decimal(text[:-1].strip().replace(",", ""))
        except InvalidOperation:
            self.fail(f"{value!r}: expected a fraction (0.5) or a percent (50%)", param, ctx)
        if not percent.is_finite():
            self.fail(f"{value!r}: expected a finite percent such as 50%", param, ctx)
        return f"{(percent / 100).normalize():f}"


def json_option(function: Any) -> Any:
    """``--json``: the outcome as one JSON document on standard output."""
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        help="print one JSON document on standard output (for scripts) instead of text",
    )(function)


def force_option(output: str) -> Callable[[Any], Any]:
    """``--force``: replace the workbook the command writes (``output``, its metavar) if it
    exists (``fill``, ``rollforward``)."""
    return click.option("--force", is_flag=True, help=f"replace {output} if it exists")


def cache_values_option(function: Any) -> Any:
    """``--cache-values`` (the parameter ``cache``): recalculate the written workbook once
    and store its figures (``fill``, ``rollforward``)."""
    return click.option(
        "--cache-values",
        "cache",
        is_flag=True,
        help="recalculate once and store every figure in the file, so that a viewer that does "
        "not recalculate (a file preview, openpyxl) shows it, and LibreOffice prints it with "
        "its checks TRUE, without the NJ_* functions (as the shipped examples do: each NJ_* "
        "table is computed on a hidden sheet and shown by ordinary formulas, whose saved "
        "values LibreOffice keeps)",
    )(function)


def namespace_option(function: Any) -> Any:
    """``--namespace NS``: the written workbook's NJ_* functions spelled for an Office.js
    add-in (``fill``, ``rollforward``)."""
    return click.option(
        "--namespace",
        default="",
        metavar="NS",
        help="spell every NJ_* function NS.NJ_... for an Office.js add-in"
        " (xlwings Server: XLWINGS)",
    )(function)


# --------------------------------------------------------------------------- the group


class _LazyGroup(click.Group):
    """Subcommands imported only when run (their help from :data:`SUBCOMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in SUBCOMMANDS:
            return None
        module_name, help_text, extra = SUBCOMMANDS[cmd_name]
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as missing:  # an optional dependency not installed
            if not extra or (missing.name or "").startswith("nj_incentives"):
                raise
            message = needs_extra(cmd_name, extra, missing.name or "?")

            @click.command(
                cmd_name,
                help=help_text,
                context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
            )
            def unavailable() -> int:
                click.echo(message, err=True)
                return EXIT_USAGE

            return unavailable
        command: click.Command = module.command
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl(
                [(name, help_text) for name, (_m, help_text, _e) in SUBCOMMANDS.items()]
            )


@click.group(
    cls=_LazyGroup,
    help="New Jersey business-incentive calculations (BEIP, ERTC, CBT minimum tax).",
    epilog=_EPILOG,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(
    __version__,
    "--version",
    prog_name="nj-incentives",
    message=f"%(prog)s %(version)s; law current to: {LAW_CURRENT_TO}",
)
def app() -> None:
    """The ``nj-incentives`` group."""


def _printable_streams() -> None:
    """Standard output and error print any path: a file name's bytes that are not valid
    in the file system's encoding as ``\\xNN`` (:data:`nj_incentives.support.reading.SHOWN`),
    never a UnicodeEncodeError after the work is done."""
    import contextlib

    from nj_incentives.support.reading import SHOWN

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "") in (
            "strict",
            "backslashreplace",
        ):
            with contextlib.suppress(ValueError, OSError):  # one that cannot be
                reconfigure(errors=SHOWN)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status (see :data:`EXIT_CODES`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    # No command does linear algebra, and numpy's OpenBLAS starts a thread per core
    # beyond the first that spins for about 0.1 s before it sleeps: 0.08-0.1 CPU-s of
    # every command that imports numpy on the 2-core machine (docs/performance.md, the
    # Dask client). Set before any subcommand imports numpy; a value already set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    _printable_streams()
    from nj_incentives.support.files import exit_on_sigterm

    exit_on_sigterm()  # temporary files are removed when the run is terminated, too
    try:
        result = app.main(args=args, prog_name="nj-incentives", standalone_mode=False)
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.UsageError as error:
        error.show()
        return EXIT_USAGE
    except click.ClickException as error:
        error.show()
        return EXIT_USAGE
    except click.Abort:
        click.echo("Aborted.", err=True)
        return 130
    except ModuleNotFoundError as missing:  # imported on demand by the subcommand
        name = args[0] if args and args[0] in SUBCOMMANDS else ""
        extra = SUBCOMMANDS[name][2] if name else ""
        if not extra or (missing.name or "").startswith("nj_incentives"):
            raise
        click.echo(needs_extra(name, extra, missing.name or "?"), err=True)
        return EXIT_USAGE
    return result if isinstance(result, int) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
