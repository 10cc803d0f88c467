"""Subsection h. as its own program (issue 30, item 2): the shared provision
``remote_work`` holds its figures (keyed ``remote_work.*``) and its rules, and the programs
that apply it are registered users of it."""

from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

import pytest

from nj_incentives.core import parameters as P
from nj_incentives.programs import KEYS, PROGRAMS, program, users
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.remote_work import figures as RW
from nj_incentives.programs.remote_work import rules as remote_work

PACKAGE = Path(__file__).resolve().parents[2] / "addin" / "nj_incentives"


def test_the_four_programs_that_share_subsection_h_use_remote_work() -> None:
    assert [found.key for found in users("remote_work")] == ["beip", "brrag", "uth", "grow_nj"]
    assert users("beip") == ()
    with pytest.raises(LookupError, match="no program 'aspire'"):
        users("aspire")


def test_every_program_used_is_registered() -> None:
    for found in PROGRAMS:
        for used in found.uses:
            assert used in KEYS, (found.key, used)
            assert used != found.key


def test_each_figure_is_keyed_by_the_program_that_declares_it() -> None:
    for found in PROGRAMS:
        if not found.has("figures"):
            continue
        module = found.part("figures")
        declared = [v for v in vars(module).values() if isinstance(v, P.Parameter)]
        assert declared, found.key
        for param in declared:
            assert param.key.startswith(f"{found.key}."), (found.key, param.key)
    # the provision's own figures: the emergency its election follows, on its own record
    own = [p for p in vars(RW).values() if isinstance(p, P.Parameter)]
    assert {p.key for p in own} == {
        "remote_work.emergency_declared",
        "remote_work.emergency_ended",
        "remote_work.emergency_orders_expired",
    }
    assert {p.statute for p in own} == {"remote_work"}
    # each user's subsection: its figures keyed by it, filed on its own statute's record,
    # whose acts list the three versions of the text
    for found in users("remote_work"):
        h = RW.SUBSECTIONS[found.key]
        assert h is found.part("figures").H
        figures = [v for v in vars(h).values() if isinstance(v, P.Parameter)]
        assert {p.key.split(".remote_work.")[0] for p in figures} == {found.key}
        assert {p.statute for p in figures} == {found.key}
        versions = {act.name: act.date for act in P.STATUTES[found.key].acts}
        assert versions["P.L.2022, c.134"] == dt.date(2022, 7, 1)
        assert versions["January 2024 act (A-5840/S-4217)"] == dt.date(2024, 1, 12)
        assert versions["P.L.2024, c.40"] == dt.date(2024, 7, 10)
    # no act of the provision is filed on BEIP's record but BEIP's own
    assert all(act.statute == "beip" for act in P.STATUTES["beip"].acts)


def _defined(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_subsection_h_is_written_once_in_its_program() -> None:
    h = _defined(PACKAGE / "programs" / "remote_work" / "rules.py")
    a_to_g = _defined(PACKAGE / "programs" / "beip" / "rules.py")
    for name in ("remote_work_check", "remote_work_payment", "remote_work_commitment_end"):
        assert name in h
        assert name not in a_to_g
    # no rule of h. left in BEIP's module, and BEIP's rules do not reach into h.
    assert not {n for n in h & a_to_g if not n.startswith("_")} - {"SECTION"}
    assert program("remote_work").has("rules")
    assert program("remote_work").part("rules") is remote_work
    assert not hasattr(beip, "remote_work_check")


def test_beip_function_names_are_unchanged() -> None:
    from nj_incentives.functions.catalog import CALCULATIONS

    for name in (
        "NJ_BEIP_REMOTE_WORK_PAYMENT",
        "NJ_BEIP_REMOTE_WORK_CHECK",
        "NJ_BEIP_REMOTE_WORK_COMMITMENT_END",
    ):
        assert name in CALCULATIONS
        assert CALCULATIONS[name].citation.startswith("N.J.S.A. 34:1B-129h.")
