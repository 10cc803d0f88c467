"""Build the template workbooks and their filled examples.

``python -m nj_incentives.workbooks.build [DIRECTORY]`` writes each template to
DIRECTORY (default: the repository's ``workbooks/``) and its filled example to
DIRECTORY/examples/. The build is deterministic: the test suite rebuilds every workbook
and compares it with the committed one.

Building into the repository's ``workbooks/`` also refreshes the package data that
``nj-incentives calc`` needs when installed without the repository
(``addin/nj_incentives/data/``): a copy of each filled example, which ``calc`` runs when
given no workbook, and of ``docs/interpretations.md``, which the calculation memo quotes.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from nj_incentives.workbooks import beip_conversion, beip_grant, ertc_credit

__all__ = [
    "DATA_DIRECTORY",
    "DEFAULT_DIRECTORY",
    "EXAMPLES",
    "INTERPRETATIONS",
    "TEMPLATES",
    "build_all",
    "main",
    "refresh_package_data",
]

#: file name -> builder(path) for each blank template
TEMPLATES: dict[str, Callable[[Path], Path]] = {
    "beip-grant-schedule.xlsx": lambda path: beip_grant.build(path),
    "beip-credit-conversion.xlsx": lambda path: beip_conversion.build(path),
    "ertc-form-313.xlsx": lambda path: ertc_credit.build(path),
}

#: file name (under examples/) -> builder(path) for each filled example
EXAMPLES: dict[str, Callable[[Path], Path]] = {
    "beip-grant-schedule-example.xlsx": lambda path: beip_grant.build(path, beip_grant.EXAMPLE),
    "beip-credit-conversion-example.xlsx": lambda path: beip_conversion.build(
        path, beip_conversion.EXAMPLE
    ),
    "ertc-form-313-example.xlsx": lambda path: ertc_credit.build(path, ertc_credit.EXAMPLE),
}

_REPOSITORY = Path(__file__).resolve().parents[3]
#: The repository's workbooks/ folder (when running from a checkout).
DEFAULT_DIRECTORY = _REPOSITORY / "workbooks"
#: The package's data folder (shipped by ``pip install``: package-data ``data/*``).
DATA_DIRECTORY = Path(__file__).resolve().parents[1] / "data"
#: The interpretations the memo quotes, in the repository.
INTERPRETATIONS = _REPOSITORY / "docs" / "interpretations.md"


def build_all(directory: Path = DEFAULT_DIRECTORY) -> list[Path]:
    """Write every template and example under ``directory``; returns their paths. Into
    the repository's ``workbooks/``, also refresh the package data."""
    written = []
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "examples").mkdir(exist_ok=True)
    for name, build in TEMPLATES.items():
        written.append(build(directory / name))
    for name, build in EXAMPLES.items():
        written.append(build(directory / "examples" / name))
    if directory.resolve() == DEFAULT_DIRECTORY.resolve():
        written += refresh_package_data(directory / "examples")
    return written


def refresh_package_data(examples: Path = DEFAULT_DIRECTORY / "examples") -> list[Path]:
    """Copy the filled examples and docs/interpretations.md into the package's data/."""
    DATA_DIRECTORY.mkdir(exist_ok=True)
    copied = []
    for name in EXAMPLES:
        copied.append(Path(shutil.copyfile(examples / name, DATA_DIRECTORY / name)))
    if INTERPRETATIONS.exists():
        target = DATA_DIRECTORY / INTERPRETATIONS.name
        copied.append(Path(shutil.copyfile(INTERPRETATIONS, target)))
    return copied


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    directory = Path(args[0]) if args else DEFAULT_DIRECTORY
    for path in build_all(directory):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
