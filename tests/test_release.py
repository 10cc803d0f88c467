"""The release artifact (issue 9, item 1): ``python -m build`` makes an sdist and a wheel
whose metadata is complete and passes ``twine check``; the wheel carries the blank
templates and the filled examples; an installed package copies them out
(``nj-incentives templates DIR``) and never has workbooks written into it.

"Installed" here is the wheel unpacked into a folder put first on ``PYTHONPATH``: the
same files ``pip install`` puts in site-packages, without a second environment.
"""

from __future__ import annotations

import email
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from email.message import Message
from pathlib import Path

import pytest

from nj_incentives.support.shipped import SCENARIO_EXAMPLES
from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY, EXAMPLES, TEMPLATES

REPOSITORY = DEFAULT_DIRECTORY.parent

pytestmark = [pytest.mark.slow, pytest.mark.wheel]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    "out",
    "node_modules",
    ".ci-*",
)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sdist and wheel, built as a release is (the wheel from the sdist), from a private
    copy of the sources: a build writes build/ and *.egg-info into its source folder, and
    two test workers may build at once."""
    sources = tmp_path_factory.mktemp("sources") / "nj-incentives"
    shutil.copytree(REPOSITORY, sources, ignore=_NOT_SOURCES)
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(sources)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    (found,) = dist.glob("nj_incentives-*-py3-none-any.whl")
    return found


@pytest.fixture(scope="module")
def metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(archive.read(name))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site-packages")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def run_installed(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=environment, cwd=cwd
    )


def test_sdist_and_wheel_pass_twine_check(dist: Path) -> None:
    files = sorted(dist.iterdir())
    assert sorted(f.suffix for f in files) == [".gz", ".whl"]
    check = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, files)],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASSED") == 2


def test_the_metadata_is_complete(metadata: Message) -> None:
    assert metadata["Name"] == "nj-incentives"
    assert metadata["License-Expression"] == "LicenseRef-Proprietary"
    assert metadata["License-File"] == "docs/LICENSE"
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload().strip() == (REPOSITORY / "README.md").read_text().strip()
    classifiers = metadata.get_all("Classifier") or []
    assert "Topic :: Office/Business :: Financial :: Spreadsheet" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    requires = metadata.get_all("Requires-Dist") or []
    assert {r.split(">")[0].split("<")[0] for r in requires if "extra" not in r} == {
        "xlwings",
        "pandas",
        "pydantic",
        "click",  # the nj-incentives command
    }


def test_the_build_reads_the_shipped_names_without_the_dependencies() -> None:
    """setuptools loads nj_incentives.support.wheel_data before the package is installed,
    in an environment that may hold setuptools only: the shipped files' names (one pair
    per template in the program registry) load from the source tree on the standard
    library alone (-S: no site-packages, so no pydantic, no xlsxwriter)."""
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "from nj_incentives.support import shipped; "
        "print(repr((shipped.TEMPLATES, shipped.EXAMPLES)))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(REPOSITORY / "addin")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr((tuple(TEMPLATES), tuple(EXAMPLES)))


def test_the_wheel_ships_every_template_and_example(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for name in TEMPLATES:
            packaged = archive.read(f"nj_incentives/data/{name}")
            assert packaged == (DEFAULT_DIRECTORY / name).read_bytes(), name
        for name in EXAMPLES:
            packaged = archive.read(f"nj_incentives/data/{name}")
            assert packaged == (DEFAULT_DIRECTORY / "examples" / name).read_bytes(), name
        for name in SCENARIO_EXAMPLES:  # the scenario runner's example inputs (issue 20)
            packaged = archive.read(f"nj_incentives/data/{name}")
            assert packaged == (DEFAULT_DIRECTORY / "examples" / name).read_bytes(), name
        # copied by the build from their one home each (nj_incentives.support.wheel_data)
        interpretations = archive.read("nj_incentives/data/interpretations.md")
        assert interpretations == (REPOSITORY / "docs" / "interpretations.md").read_bytes()
        reference = archive.read("nj_incentives/data/functions.md")  # the help links' page
        assert reference == (REPOSITORY / "docs" / "functions.md").read_bytes()
    assert "nj_incentives/data/interpretations.md" in names
    assert "nj_incentives/py.typed" in names


def test_the_wheel_ships_the_prebuilt_forms_and_calc_uses_them(
    wheel: Path, installed: Path, tmp_path: Path
) -> None:
    # issue 23: each template's prebuilt form is package data, the committed copy, and an
    # installed package recalculates its bundled examples from them (no model compiled)
    from nj_incentives.workpapers.recalc import prebuilt

    with zipfile.ZipFile(wheel) as archive:
        for name in TEMPLATES:
            form = prebuilt.form_path(name)
            packaged = archive.read(f"nj_incentives/workpapers/recalc/forms/{form.name}")
            assert packaged == form.read_bytes(), name
    code = (
        "from nj_incentives.cli import calc; from nj_incentives.workpapers.recalc import prebuilt;"
        "import pathlib, sys; status = calc.run([], pathlib.Path('out'));"
        "print(status, prebuilt.STATS['prebuilt'], len(prebuilt.load_forms()))"
    )
    ran = run_installed(installed, "-c", code, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip().splitlines()[-1] == f"0 {len(TEMPLATES)} {len(TEMPLATES)}", ran.stdout


def test_the_installed_package_is_the_one_imported(installed: Path, tmp_path: Path) -> None:
    where = run_installed(
        installed, "-c", "import nj_incentives; print(nj_incentives.__file__)", cwd=tmp_path
    )
    assert Path(where.stdout.strip()).is_relative_to(installed)


def test_rebuilding_never_writes_into_the_installed_package(
    installed: Path, tmp_path: Path
) -> None:
    data = installed / "nj_incentives" / "data"
    before = {path.name: sha256(path) for path in data.iterdir()}

    no_directory = run_installed(
        installed, "-m", "nj_incentives.workpapers.templates.build", cwd=tmp_path
    )
    assert no_directory.returncode == 2
    assert "give the directory" in no_directory.stderr
    assert "nj-incentives templates DIR" in no_directory.stderr

    inside = run_installed(
        installed, "-m", "nj_incentives.workpapers.templates.build", str(data / "x"), cwd=tmp_path
    )
    assert inside.returncode == 2
    assert "inside the installed package" in inside.stderr

    elsewhere = run_installed(
        installed,
        "-m",
        "nj_incentives.workpapers.templates.build",
        str(tmp_path / "wb"),
        cwd=tmp_path,
    )
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert len(elsewhere.stdout.split()) == len(TEMPLATES) + len(EXAMPLES)  # 3 + 3, no data
    assert {path.name: sha256(path) for path in data.iterdir()} == before
    for name in TEMPLATES:  # the same build as the repository's
        assert sha256(tmp_path / "wb" / name) == sha256(DEFAULT_DIRECTORY / name)


def test_templates_copies_them_out_and_never_overwrites(installed: Path, tmp_path: Path) -> None:
    target = tmp_path / "mine"
    first = run_installed(
        installed, "-m", "nj_incentives.cli", "templates", str(target), cwd=tmp_path
    )
    assert first.returncode == 0, first.stderr
    for name in TEMPLATES:
        assert sha256(target / name) == sha256(DEFAULT_DIRECTORY / name)
    for name in (*EXAMPLES, *SCENARIO_EXAMPLES):
        assert sha256(target / "examples" / name) == sha256(DEFAULT_DIRECTORY / "examples" / name)

    (target / "beip-grant-schedule.xlsx").write_bytes(b"an accountant's filled copy")
    again = run_installed(
        installed, "-m", "nj_incentives.cli", "templates", str(target), cwd=tmp_path
    )
    assert again.returncode == 2
    assert "not overwriting" in again.stderr
    assert "--force" in again.stderr
    assert (target / "beip-grant-schedule.xlsx").read_bytes() == b"an accountant's filled copy"

    forced = run_installed(
        installed, "-m", "nj_incentives.cli", "templates", str(target), "--force", cwd=tmp_path
    )
    assert forced.returncode == 0
    assert sha256(target / "beip-grant-schedule.xlsx") == sha256(
        DEFAULT_DIRECTORY / "beip-grant-schedule.xlsx"
    )
