"""Programs the tests need beyond pip (LibreOffice, pdftoppm, Node ...).

A test that needs one calls :func:`need`: where the program is missing it skips with a
visible reason, and under ``CI=true`` it fails instead, so that CI can never pass by
skipping (``.ci/install-system`` installs them there).
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


def need(program: str, why: str) -> str:
    """The path of ``program``; skip (fail under CI=true) where it is not installed."""
    path = shutil.which(program)
    if path is None:
        message = f"{program} is not installed ({why}); .ci/install-system installs it"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return path


def need_module(module: str, why: str) -> None:
    """Import ``module``; skip (fail under CI=true) where it is not installed."""
    try:
        __import__(module)
    except ImportError as missing:
        message = f"Python module {module} is not installed ({why}): {missing}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


def missing(what: str, why: str) -> None:
    """Skip (fail under CI=true) because ``what`` is not there; say how to get it."""
    message = f"{what} ({why})"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


#: The fonts the templates are set in, and the families LibreOffice may print each with
#: and still paginate as Excel does (same glyph widths). ``.ci/install-system`` installs
#: and checks the same (Debian ``fonts-liberation2``).
METRIC_TWINS: dict[str, tuple[str, ...]] = {"Arial": ("Arial", "Liberation Sans", "Arimo")}


def resolved_font(family: str) -> str:
    """The family fontconfig resolves ``family`` to (what LibreOffice prints with)."""
    fc_match = need("fc-match", "tells which font LibreOffice will print with")
    return subprocess.run(
        [fc_match, "-f", "%{family}", family],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout


def need_font(family: str, why: str) -> None:
    """Skip (fail under CI=true) unless fontconfig resolves ``family`` to a metric twin.

    Checked by what fontconfig resolves, not by a file path: that is what LibreOffice
    prints with, wherever the font is installed (or hidden by a FONTCONFIG_FILE)."""
    twins = METRIC_TWINS.get(family, (family,))
    got = resolved_font(family)
    if not set(got.split(",")) & set(twins):
        missing(
            f"fontconfig resolves {family} to {got!r}, not an {family}-metric font "
            f"({' or '.join(twins)}); .ci/install-system installs fonts-liberation2",
            why,
        )


def once_per_run(factory: pytest.TempPathFactory, name: str, compute: Callable[[Path], Any]) -> Any:
    """``compute(folder)`` once per test run, shared by the xdist workers (JSON result).

    The first worker to get the lock computes and stores the result in the run's
    temporary folder; the others wait for it and read it. Outside xdist, the session's
    own temporary folder."""
    base = factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    result = shared / f"{name}.json"
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not result.exists():
            folder = shared / name
            folder.mkdir(exist_ok=True)
            result.write_text(json.dumps(compute(folder)))
    return json.loads(result.read_text())


def libreoffice_convert(
    soffice: str,
    sources: Iterable[Path],
    outdir: Path,
    profile: Path,
    to: str,
    *,
    norestore: bool = False,
    timeout: int = 600,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``soffice --headless --convert-to TO`` of each of ``sources`` into ``outdir``, in
    its own profile ``profile``; what LibreOffice said (``check``: raise on its failure)."""
    return subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            *(["--norestore"] if norestore else []),
            "--convert-to",
            to,
            "--outdir",
            str(outdir),
            *map(str, sources),
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=check,
    )


def libreoffice_save(soffice: str, sources: Iterable[Path], outdir: Path, profile: Path) -> None:
    """Open each of ``sources`` in LibreOffice headless and save it as XLSX into ``outdir``
    (its own profile ``profile``), as a LibreOffice user opening and saving would; what
    it could not save is missing from ``outdir`` for the caller's assertions."""
    libreoffice_convert(soffice, sources, outdir, profile, "xlsx:Calc MS Excel 2007 XML")


def libreoffice_saved_examples(factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The shipped filled examples after a LibreOffice open-and-save (one soffice run for
    the three, once per test run, shared by the xdist workers): example name -> its copy.
    Read them, never change them (copy one to change it). test_libreoffice_roundtrip,
    test_recalc_prebuilt and test_charts each ran this same conversion before."""
    from nj_incentives.support import shipped

    def save(folder: Path) -> dict[str, str]:
        soffice = need("soffice", "opens and saves the examples as a LibreOffice user would")
        sources = [shipped.home(name) for name in shipped.EXAMPLES]
        done = libreoffice_convert(
            soffice, sources, folder / "saved", folder / "profile", "xlsx:Calc MS Excel 2007 XML"
        )
        copies = {name: folder / "saved" / name for name in shipped.EXAMPLES}
        missing = [name for name, path in copies.items() if not path.exists()]
        assert not missing, f"soffice saved no {missing}: {done.stdout}\n{done.stderr}"
        return {name: str(path) for name, path in copies.items()}

    return {name: Path(path) for name, path in once_per_run(factory, "lo-examples", save).items()}


def openpyxl_saved(source: Path, target: Path) -> Path:
    """What a script that opens and saves a workbook with openpyxl writes."""
    import openpyxl

    openpyxl.load_workbook(source).save(target)
    return target


def pandas_saved(source: Path, target: Path) -> Path:
    """What a finance team's script does: pandas writes one (unchanged) value into the
    Inputs sheet of a copy, through openpyxl, and saves."""
    import openpyxl
    import pandas as pd

    target.write_bytes(source.read_bytes())
    title = openpyxl.load_workbook(source)["Inputs"]["A1"].value
    with pd.ExcelWriter(target, engine="openpyxl", mode="a", if_sheet_exists="overlay") as out:
        pd.DataFrame([[title]]).to_excel(
            out, sheet_name="Inputs", header=False, index=False, startrow=0, startcol=0
        )
    return target


#: the other tools a workbook is saved by (test_any_saver, test_recalc_prebuilt)
SAVERS: dict[str, Callable[[Path, Path], Path]] = {
    "openpyxl": openpyxl_saved,
    "pandas": pandas_saved,
}


def saved_copies(factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """(saver, example name) -> the shipped example saved by that saver, made once per test
    run and shared by the xdist workers (test_any_saver and test_recalc_prebuilt each made
    the same six copies). Read them, never change them."""
    from nj_incentives.support import shipped

    def save(folder: Path) -> dict[str, str]:
        return {
            f"{saver}/{name}": str(SAVERS[saver](shipped.home(name), folder / f"{saver}-{name}"))
            for saver in SAVERS
            for name in shipped.EXAMPLES
        }

    made = once_per_run(factory, "saved-copies", save)
    return {
        (saver, name): Path(path)
        for key, path in made.items()
        for saver, name in [key.split("/", 1)]
    }


def recalculated_once(path: Path) -> Any:
    """The full recalculation (``recalc.recalculate``) of a file no test changes (a shipped
    template or example, a saved copy of :func:`saved_copies`), once per process for every
    test that compares against it (test_any_saver, test_libreoffice_roundtrip,
    test_recalc_prebuilt, test_examples_cached, test_lite): seconds a workbook. Keyed by
    the file's path, size and modification time; read the result, never change it."""
    stat = Path(path).stat()
    return _recalculated(Path(path).resolve(), stat.st_size, stat.st_mtime_ns)


@functools.cache
def _recalculated(path: Path, size: int, mtime_ns: int) -> Any:
    from nj_incentives.workpapers.recalc import recalculate

    return recalculate(path)


def recalculate_as_calc(path: Path) -> Any:
    """``path`` recalculated as ``nj-incentives calc`` does it: vetted, then from its
    template's prebuilt form where it is a filled template (a full recalculation with a
    note otherwise). The prebuilt path equals the full recalculation on every example,
    saved copies and random inputs (tests/workpapers/recalc/test_recalc_prebuilt.py); a template's
    behaviour is tested on the path a user's workbook takes, in a fraction of the time
    of compiling the generic model for each workbook (6-7 s a workbook on a slow
    machine)."""
    from nj_incentives.workpapers.recalc import DEFAULT_LIMITS, vet_workbook
    from nj_incentives.workpapers.recalc.prebuilt import recalculate_template

    return recalculate_template(vet_workbook(Path(path), DEFAULT_LIMITS))
