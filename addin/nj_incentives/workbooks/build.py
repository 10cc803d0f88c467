"""Build the template workbooks and their filled examples.

``python -m nj_incentives.workbooks.build [DIRECTORY] [--namespace NS]`` writes each
template to DIRECTORY and its filled example to DIRECTORY/examples/. In a checkout of the
repository DIRECTORY defaults to its ``workbooks/``; in an installed package there is no
default (give one, or use ``nj-incentives templates DIR`` to copy the shipped files), and
nothing is ever written inside the installed package. The build is deterministic: the
test suite rebuilds every workbook and compares it with the committed one.

``--namespace`` spells every NJ_* function for an Office.js add-in (``XLWINGS`` for
xlwings Server's default manifest: ``=XLWINGS.NJ_BEIP_GRANT(...)``); the default, no
namespace, is the classic add-in's spelling and the one the committed files use.

Building the default files into the repository's ``workbooks/`` also refreshes the
package data (``addin/nj_incentives/data/``), which the wheel ships: a copy of each blank
template and filled example (``nj-incentives templates`` copies them out; ``nj-incentives
calc`` runs the examples when given no workbook) and of ``docs/interpretations.md``,
which the calculation memo quotes.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from nj_incentives.workbooks import beip_conversion, beip_grant, ertc_credit
from nj_incentives.workbooks.cached import cache_values

__all__ = [
    "DATA_DIRECTORY",
    "DEFAULT_DIRECTORY",
    "EXAMPLES",
    "INTERPRETATIONS",
    "IN_CHECKOUT",
    "TEMPLATES",
    "InstalledPackageError",
    "build_all",
    "main",
    "refresh_package_data",
]

#: A builder: (path, function namespace) -> the path written.
Builder = Callable[..., Path]

#: file name -> builder(path, namespace="") for each blank template
TEMPLATES: dict[str, Builder] = {
    "beip-grant-schedule.xlsx": lambda path, namespace="": beip_grant.build(
        path, function_namespace=namespace
    ),
    "beip-credit-conversion.xlsx": lambda path, namespace="": beip_conversion.build(
        path, function_namespace=namespace
    ),
    "ertc-form-313.xlsx": lambda path, namespace="": ertc_credit.build(
        path, function_namespace=namespace
    ),
}

#: file name (under examples/) -> builder(path, namespace="") for each filled example;
#: each is saved with its recalculated values cached in every formula cell (cached.py)
EXAMPLES: dict[str, Builder] = {
    "beip-grant-schedule-example.xlsx": lambda path, namespace="": cache_values(
        beip_grant.build(path, beip_grant.EXAMPLE, function_namespace=namespace)
    ),
    "beip-credit-conversion-example.xlsx": lambda path, namespace="": cache_values(
        beip_conversion.build(path, beip_conversion.EXAMPLE, function_namespace=namespace)
    ),
    "ertc-form-313-example.xlsx": lambda path, namespace="": cache_values(
        ertc_credit.build(path, ertc_credit.EXAMPLE, function_namespace=namespace)
    ),
}

_PACKAGE = Path(__file__).resolve().parents[1]
_REPOSITORY = _PACKAGE.parents[1]
#: True when this package is the ``addin/nj_incentives`` of a repository checkout
#: (an editable install included); False in an installed wheel's site-packages.
IN_CHECKOUT = (_REPOSITORY / "pyproject.toml").is_file() and _PACKAGE == (
    _REPOSITORY / "addin" / "nj_incentives"
)
#: The repository's workbooks/ folder (when running from a checkout).
DEFAULT_DIRECTORY = _REPOSITORY / "workbooks"
#: The package's data folder (shipped by ``pip install``: package-data ``data/*``).
DATA_DIRECTORY = _PACKAGE / "data"
#: The interpretations the memo quotes, in the repository.
INTERPRETATIONS = _REPOSITORY / "docs" / "interpretations.md"


class InstalledPackageError(RuntimeError):
    """A build would write into the installed package (or needs a directory)."""


def _inside_package(directory: Path) -> bool:
    resolved = directory.resolve()
    return resolved == _PACKAGE or _PACKAGE in resolved.parents


def build_all(directory: Path | None = None, namespace: str = "") -> list[Path]:
    """Write every template and example under ``directory``; returns their paths.

    ``directory`` defaults to the repository's ``workbooks/`` in a checkout; an installed
    package has no default and refuses any directory inside itself. Building the default
    files (no namespace) into the repository's ``workbooks/`` also refreshes the package
    data."""
    if directory is None:
        if not IN_CHECKOUT:
            raise InstalledPackageError(
                "nj-incentives is installed, not run from a checkout of its repository: "
                "give the directory to build into (python -m nj_incentives.workbooks.build "
                "DIR), or copy the shipped templates with: nj-incentives templates DIR"
            )
        directory = DEFAULT_DIRECTORY
    if not IN_CHECKOUT and _inside_package(directory):
        raise InstalledPackageError(
            f"{directory} is inside the installed package ({_PACKAGE}); build elsewhere"
        )
    written = []
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "examples").mkdir(exist_ok=True)
    for name, build in TEMPLATES.items():
        written.append(build(directory / name, namespace))
    for name, build in EXAMPLES.items():
        written.append(build(directory / "examples" / name, namespace))
    if IN_CHECKOUT and not namespace and directory.resolve() == DEFAULT_DIRECTORY.resolve():
        written += refresh_package_data(directory)
    return written


def refresh_package_data(workbooks: Path = DEFAULT_DIRECTORY) -> list[Path]:
    """Copy the blank templates, the filled examples and docs/interpretations.md into
    the package's data/ (in a checkout only)."""
    if not IN_CHECKOUT:
        raise InstalledPackageError("the package data is refreshed from a checkout only")
    DATA_DIRECTORY.mkdir(exist_ok=True)
    copied = []
    for name in TEMPLATES:
        copied.append(Path(shutil.copyfile(workbooks / name, DATA_DIRECTORY / name)))
    for name in EXAMPLES:
        source = workbooks / "examples" / name
        copied.append(Path(shutil.copyfile(source, DATA_DIRECTORY / name)))
    if INTERPRETATIONS.exists():
        target = DATA_DIRECTORY / INTERPRETATIONS.name
        copied.append(Path(shutil.copyfile(INTERPRETATIONS, target)))
    return copied


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nj_incentives.workbooks.build",
        description="Build the template workbooks and their filled examples.",
    )
    parser.add_argument(
        "directory",
        nargs="?",
        type=Path,
        help="where to write (default in a checkout: the repository's workbooks/)",
    )
    parser.add_argument(
        "--namespace",
        default="",
        help="spell the NJ_* functions for an Office.js add-in, e.g. XLWINGS "
        "(=XLWINGS.NJ_BEIP_GRANT(...)); default: none, the classic add-in's spelling",
    )
    args = parser.parse_args(argv)
    try:
        for path in build_all(args.directory, args.namespace):
            print(path)
    except InstalledPackageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
