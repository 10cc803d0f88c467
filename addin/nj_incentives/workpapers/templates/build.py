"""Build the template workbooks and their filled examples.

``python -m nj_incentives.workpapers.templates.build [DIRECTORY] [--namespace NS]`` writes each
template to DIRECTORY and its filled example to DIRECTORY/examples/. In a checkout of the
repository DIRECTORY defaults to its ``workbooks/``; in an installed package there is no
default (give one, or use ``nj-incentives templates DIR`` to copy the shipped files), and
nothing is ever written inside the installed package. The build is deterministic: the
test suite rebuilds every workbook and compares it with the committed one.

``--namespace`` spells every NJ_* function for an Office.js add-in (``XLWINGS`` for
xlwings Server's default manifest: ``=XLWINGS.NJ_BEIP_GRANT(...)``); the default, no
namespace, is the classic add-in's spelling and the one the committed files use.

Building into the repository's ``workbooks/`` also writes each template's prebuilt form
(``nj_incentives/workpapers/recalc/forms/``, :mod:`nj_incentives.workpapers.recalc.prebuilt`): the
formulas
parsed once, which ``nj-incentives calc`` walks instead of compiling the template again.

The files built into the repository's ``workbooks/`` are the only copies it keeps: the
wheel's build copies them, with ``docs/interpretations.md``, into the package's
``nj_incentives/data/`` (:mod:`nj_incentives.support.wheel_data`), and
:mod:`nj_incentives.support.shipped`
finds them there when installed, in ``workbooks/`` and ``docs/`` in a checkout
(``nj-incentives templates`` copies them out; ``nj-incentives calc`` runs the examples when
given no workbook; the memo quotes the interpretations).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from nj_incentives import programs
from nj_incentives.support import shipped
from nj_incentives.workpapers.templates.builder import build_template

__all__ = [
    "DEFAULT_DIRECTORY",
    "EXAMPLES",
    "EXAMPLE_PREPARED",
    "INTERPRETATIONS",
    "IN_CHECKOUT",
    "TEMPLATES",
    "InstalledPackageError",
    "build_all",
    "main",
    "signed_example",
]

#: A builder: (path, function namespace) -> the path written.
Builder = Callable[..., Path]

#: The day the shipped examples' preparer signs them (the reviewer signs on the
#: engagement's date, 2026-12-01): fixed dates, so that the build is reproducible.
EXAMPLE_PREPARED = dt.date(2026, 11, 25)


def signed_example(path: Path, engagement: Mapping[str, Any]) -> Path:
    """A built example signed by its engagement's preparer (on :data:`EXAMPLE_PREPARED`)
    and reviewer (on the engagement's date), through ``nj-incentives sign``'s own code
    path (:func:`nj_incentives.workpapers.signoff.sign`): names, dates and the inputs hash each
    signed, so that ``calc`` and the memo show two current sign-offs."""
    from nj_incentives.workpapers.signoff import sign

    sign(path, preparer=engagement["preparer"], date=EXAMPLE_PREPARED)
    sign(path, reviewer=engagement["reviewer"], date=engagement["date"])
    return path


def _blank(template_id: str) -> Builder:
    def build(path: Path, namespace: str = "") -> Path:
        return build_template(programs.template(template_id), path, function_namespace=namespace)

    return build


def _example(template_id: str) -> Builder:
    def build(path: Path, namespace: str = "") -> Path:
        template = programs.template(template_id)
        built = build_template(template, path, template.EXAMPLE, function_namespace=namespace)
        return signed_example(built, template.EXAMPLE["engagement"])

    return build


#: file name -> builder(path, namespace="") for each blank template, one per template
#: of the program registry (:data:`nj_incentives.support.shipped.TEMPLATES`)
TEMPLATES: dict[str, Builder] = {
    f"{template_id}.xlsx": _blank(template_id) for template_id in programs.templates()
}

#: file name (under examples/) -> builder(path, namespace="") for each filled example
#: (the template's ``EXAMPLE``); each is signed by its preparer and reviewer
#: (:func:`signed_example`), and each signature saves the recalculated values cached in
#: every formula cell (cached.py), as ``nj-incentives sign`` does (no separate caching
#: pass before: the files are byte for byte those it made)
EXAMPLES: dict[str, Builder] = {
    f"{template_id}-example.xlsx": _example(template_id) for template_id in programs.templates()
}

_PACKAGE = Path(__file__).resolve().parents[2]
#: True when this package is the ``addin/nj_incentives`` of a repository checkout
#: (an editable install included); False in an installed wheel's site-packages.
IN_CHECKOUT = shipped.in_checkout()
#: The repository's workbooks/ folder (when running from a checkout).
DEFAULT_DIRECTORY = shipped.home(shipped.TEMPLATES[0]).parent
#: Where the readings of the law are recorded, in the repository.
INTERPRETATIONS = shipped.home(shipped.INTERPRETATIONS)


class InstalledPackageError(RuntimeError):
    """A build would write into the installed package (or needs a directory)."""


def _inside_package(directory: Path) -> bool:
    resolved = directory.resolve()
    return resolved == _PACKAGE or _PACKAGE in resolved.parents


def build_all(directory: Path | None = None, namespace: str = "") -> list[Path]:
    """Write every template and example under ``directory``; returns their paths.

    ``directory`` defaults to the repository's ``workbooks/`` in a checkout; an installed
    package has no default and refuses any directory inside itself. Building the default
    files (no namespace) into the repository's ``workbooks/`` rewrites the copies the wheel
    ships."""
    if directory is None:
        if not IN_CHECKOUT:
            raise InstalledPackageError(
                "nj-incentives is installed, not run from a checkout of its repository: "
                "give the directory to build into "
                "(python -m nj_incentives.workpapers.templates.build DIR), "
                "or copy the shipped templates with: nj-incentives templates DIR"
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
        # the shipped templates changed: so do their prebuilt forms (recalc/forms/)
        from nj_incentives.workpapers.recalc.prebuilt import write_forms

        written += write_forms()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nj_incentives.workpapers.templates.build",
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
