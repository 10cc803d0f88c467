"""The law as dated data (issue 19, items 1 and 3): the model (core/parameters.py), the
programs' figures (programs/<key>/figures.py) and their registries, the lookup under the
three evaluators, ``law_as_of``, and the amendment drill."""

from __future__ import annotations

import ast
import dataclasses
import datetime as dt
import io
import re
import tokenize
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nj_incentives.core import parameters as P
from nj_incentives.core.common import InputError, as_law_as_of
from nj_incentives.core.rules import EXACT, Int64, explain
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import figures as ERTC

D = Decimal

#: A made-up amendment for the drill (no such act exists): the average cap $60,000 for
#: agreements entered into from 2025-01-01, enacted 2024-12-01.
DRILL_ACT = P.Act("beip", "P.L.2024, c.999 (drill)", dt.date(2024, 12, 1), source="test fixture")
DRILL = P.Version(
    D(60000),
    DRILL_ACT,
    applies_from=dt.date(2025, 1, 1),
    change="average cap raised to $60,000",
    modelled="by the agreement date",
)


@pytest.fixture
def cap_60000() -> Iterator[P.Parameter[Decimal]]:
    with P.amended(BEIP.AVERAGE_CAP, DRILL) as param:
        yield param


# --------------------------------------------------------------------------- the model


def test_every_figure_is_registered_with_its_sources() -> None:
    assert P.PARAMETERS["beip.average_cap"] is BEIP.AVERAGE_CAP
    for param in P.PARAMETERS.values():
        assert param.citation, param
        assert param.versions, param
        for version in param.versions:
            assert version.act in P.STATUTES[param.statute].acts or version.act in P.SOURCES
            assert version.act.source, param


def test_the_registries_hold_every_programs_figures_and_nothing_else() -> None:
    """STATUTES, ACTS and PARAMETERS are what the registered programs' figures modules
    declare (collected from the registry, not a list), in the registry's order, and a
    fresh interpreter that imports only the model sees them all (the package's
    ``__init__`` loads the registry)."""
    import subprocess
    import sys

    from nj_incentives.programs import PROGRAMS
    from nj_incentives.programs.remote_work.figures import SubsectionH

    declared: list[str] = []
    acts: list[P.Act] = []
    for program in PROGRAMS:
        if program.has("figures"):
            names = list(vars(program.part("figures")).values())
            # a program's remote-work subsection holds its figures and acts
            for h in [v for v in names if isinstance(v, SubsectionH)]:
                names += [getattr(h, f.name) for f in dataclasses.fields(h)]
            declared += [v.key for v in names if isinstance(v, P.Parameter)]
            for v in names:
                if isinstance(v, P.Act) and v not in P.SOURCES and v not in acts:
                    acts.append(v)
    # every figure and act, once (a program's figures may import a shared provision's,
    # which registers its own first; the statutes' records are in the registry's order)
    assert sorted(declared) == sorted(P.PARAMETERS)
    assert len(declared) == len(P.PARAMETERS)
    assert set(acts) == set(P.ACTS)
    assert len(acts) == len(P.ACTS)
    keys = [p.key for p in PROGRAMS]
    assert [key for key in P.STATUTES if key in keys] == [key for key in keys if key in P.STATUTES]
    assert {"beip", "remote_work", "ertc", "cbt"} <= {p.key for p in PROGRAMS if p.has("figures")}
    fresh = subprocess.run(
        [
            sys.executable,
            "-c",
            "import nj_incentives.core.parameters as P;"
            " print(len(P.PARAMETERS), len(P.ACTS), len(P.STATUTES))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert fresh.stdout.split() == [str(len(P.PARAMETERS)), str(len(P.ACTS)), str(len(P.STATUTES))]


def test_lookup_by_date_and_law_as_of(cap_60000: P.Parameter[Decimal]) -> None:
    # agreements before 2025: the figure of the text; from 2025-01-01: the amendment's
    assert cap_60000.at(dt.date(2024, 12, 31)) == D(50000)
    assert cap_60000.at(dt.date(2025, 1, 1)) == D(60000)
    # the law as it stood before the act was enacted (2024-12-01): the old figure
    assert cap_60000.at(dt.date(2025, 6, 1), as_of=dt.date(2024, 11, 30)) == D(50000)
    assert cap_60000.at(dt.date(2025, 6, 1), as_of=dt.date(2024, 12, 1)) == D(60000)
    assert cap_60000.version(dt.date(2025, 6, 1)).act is DRILL_ACT
    assert cap_60000.version(dt.date(2020, 6, 1)).act is BEIP.P_L_2003_C_166
    assert cap_60000.summary() == (
        "$50,000; $60,000 for agreement dates from 2025-01-01"
        " (P.L.2024, c.999 (drill) (2024-12-01))"
    )
    # the fixture leaves the figure as it was
    assert DRILL_ACT in P.STATUTES["beip"].acts


def test_amended_restores() -> None:
    with P.amended(BEIP.AVERAGE_CAP, DRILL):
        pass
    assert BEIP.AVERAGE_CAP.versions == (P.Version(D(50000), BEIP.P_L_2003_C_166),)
    assert DRILL_ACT not in P.STATUTES["beip"].acts


def test_show() -> None:
    assert BEIP.AVERAGE_CAP.text() == "$50,000"
    assert P.show(D("562.50"), "money") == "$562.50"
    assert BEIP.MINIMUM_GRANT_PCT.text() == "10%"
    assert BEIP.CAP_AGREEMENTS_FROM.text() == "July 1, 2003"
    assert ERTC.FULL_TIME_HOURS_PER_MONTH.text() == "140 hours"


# --------------------------------------------------------------------------- law_as_of


def test_law_as_of_input() -> None:
    assert as_law_as_of(None, "beip") is None
    assert as_law_as_of("", "beip") is None
    assert as_law_as_of("2024-07-10", "beip") == dt.date(2024, 7, 10)
    with pytest.raises(InputError) as error:
        as_law_as_of("2003-06-30", "beip")
    text = str(error.value)
    assert "law_as_of" in text
    assert "2003-06-30" in text
    assert "versions available: P.L.2003, c.166 (2003-07-01)" in text
    # the figures a calculation reads set the first date (issue 34): h.'s from 2022-07-01
    h = (BEIP.H.waiver_start,)
    assert as_law_as_of("2010-01-01", "beip") == dt.date(2010, 1, 1)
    with pytest.raises(InputError, match="is before 2022-07-01, the first version modelled"):
        as_law_as_of("2010-01-01", "beip", h)
    with pytest.raises(InputError) as error:
        as_law_as_of("soon", "ertc")
    text = str(error.value)
    assert "law_as_of" in text
    assert "soon" in text
    assert "versions available: P.L.2003, c.194 (2003-01-01)" in text


def test_grant_schedule_under_two_versions(cap_60000: P.Parameter[Decimal]) -> None:
    # 2025 agreement, one year, 1 new employee, 1,000,000 withholdings at 10%:
    # 100,000.00 before the cap; cap 60,000 x 1 under the amendment, 50,000 x 1 before it
    args = ([1000000], [1], "0.1", "2025-03-01")
    now = beip.grant_schedule(*args)
    then = beip.grant_schedule(*args, law_as_of="2024-06-30")
    assert now.total == D("60000.00")
    assert then.total == D("50000.00")


# --------------------------------------------------------------------------- the drill


def _schedule(date: str, method: str = "per_year") -> beip.GrantSchedule:
    # two years of 1,000,000.00 withholdings at 50% (500,000.00 before the cap) with 5 new
    # employees each: per year, cap room 5 x cap - paid before
    return beip.grant_schedule([1000000, 1000000], [5, 5], "0.5", date, cap_method=method)


def test_amendment_drill_labels_notes_whole_term(cap_60000: P.Parameter[Decimal]) -> None:
    new, old = _schedule("2025-01-01"), _schedule("2024-12-31")
    # per year: year 1 room 60,000 x 5 = 300,000 (old 50,000 x 5 = 250,000)
    assert new.rows[0].grant == D("300000.00")
    assert old.rows[0].grant == D("250000.00")
    assert new.rows[0].note.startswith("cap room max(0, 60,000.00 x 5 - 0.00) = 300,000.00")
    assert old.rows[0].note.startswith("cap room max(0, 50,000.00 x 5 - 0.00) = 250,000.00")
    labels_new = " ".join(step.label for step in new.steps)
    labels_old = " ".join(step.label for step in old.steps)
    assert "$60,000 average cap" in labels_new
    assert "$50,000" not in labels_new
    assert "$50,000 average cap" in labels_old
    assert "$60,000" not in labels_old
    # whole term: 60,000 x 10 / 2 = 300,000 (old 250,000), paid in order: 300,000 + 0
    whole_new, whole_old = (
        _schedule("2025-01-01", "whole_term"),
        _schedule("2024-12-31", "whole_term"),
    )
    assert whole_new.total == D("300000.00")
    assert whole_old.total == D("250000.00")
    whole_labels = " ".join(step.label for step in whole_new.steps)
    assert "($60,000 x the average new employees)" in whole_labels
    cap = beip.explain_cap_applies("2025-01-01").steps[0].label
    assert cap.startswith("The $60,000 average cap applies")


def test_amendment_drill_vectorized(cap_60000: P.Parameter[Decimal]) -> None:
    # the int64 evaluator picks the figure per row by the row's agreement date
    days = np.array(
        [(d - dt.date(1970, 1, 1)).days for d in (dt.date(2024, 12, 31), dt.date(2025, 1, 1))]
    )
    cap = Int64().law(BEIP.AVERAGE_CAP, days)
    assert cap.tolist() == [5_000_000, 6_000_000]  # cents
    known = np.array([(dt.date(2024, 11, 30) - dt.date(1970, 1, 1)).days] * 2)
    assert Int64().law(BEIP.AVERAGE_CAP, days, known).tolist() == [5_000_000, 5_000_000]
    w = [np.array([100_000_000, 100_000_000])] * 2  # 1,000,000.00 in cents, each year
    zero = [np.array([0, 0])] * 2
    e = [np.array([5, 5])] * 2
    half = D("0.5")
    _, total = beip.grant_years(Int64(), w, zero, e, half, D(0), days)
    # per year, 500,000 before the cap each year, 5 new employees each year: the 2024 row
    # 250,000 (room 50,000 x 5) + 0 (room 50,000 x 5 - 250,000) = 250,000; the 2025 row
    # 300,000 (60,000 x 5) + 0 (60,000 x 5 - 300,000) = 300,000
    assert total.tolist() == [25_000_000, 30_000_000]


@given(st.dates(dt.date(1990, 1, 1), dt.date(2040, 12, 31)))
def test_vectorized_lookup_is_the_exact_lookup(day: dt.date) -> None:
    with P.amended(BEIP.AVERAGE_CAP, DRILL):
        days = np.array([(day - dt.date(1970, 1, 1)).days])
        assert Int64().law(BEIP.AVERAGE_CAP, days)[0] == int(BEIP.AVERAGE_CAP.at(day) * 100)
        assert EXACT.law(BEIP.AVERAGE_CAP, day) == BEIP.AVERAGE_CAP.at(day)
        value, _ = explain(lambda r, d: r.law(BEIP.AVERAGE_CAP, d), day)
        assert value == BEIP.AVERAGE_CAP.at(day)


# --------------------------------------------------------------------------- no literal
# A figure of law is written once, in its program's figures.py. The scan below finds the textual
# forms of every figure in every module of the package (string and number tokens and
# code; comments and docstrings, which no user sees, excluded):
# - every money figure written with its dollar sign ("$100,000", "$562.50");
# - the distinctive amounts (the average cap, the ERTC amounts, the group payroll) also
#   with thousands separators and as number literals (50000, 50_000);
# - hours ("140 hours"; 140 as a number), dates (long, ISO and ``date(y, m, d)``), and
#   fractions written "N percent".
# Not scanned: bare small numbers, years, counts and "N%" (indistinguishable from the
# examples and bounds that are not law); the templates are code (workpapers/) and scanned.


def _money_values(param):
    for v in param.versions:
        if param.kind == "money":
            yield Decimal(v.value)
        elif param.kind == "table" and param.statute == "cbt":
            for row in v.value:
                for x in row[1:]:
                    if isinstance(x, Decimal) and x:
                        yield x


DISTINCTIVE = {
    "beip.average_cap",
    "ertc.credit_year_one_amount",
    "ertc.credit_year_two_amount",
    "cbt.group_payroll_threshold",
}


def forms():
    """(figure key, form, regex over string text, numeric literal value or None)."""
    out = []
    for param in P.PARAMETERS.values():
        if param.kind in ("money", "table") and param.statute in ("beip", "ertc", "cbt"):
            for m in _money_values(param):
                if m != m.to_integral_value():
                    text = f"{m:,.2f}"
                    out.append((param.key, f"${text}", re.escape(f"${text}"), None))
                    continue
                n = int(m)
                comma = f"{n:,}"
                if param.key not in DISTINCTIVE:
                    out.append(
                        (param.key, f"${comma}", rf"\${re.escape(comma)}(?![\d]|,\d|\.\d)", None)
                    )
                    continue
                out.append((param.key, comma, rf"(?<![\d,.]){re.escape(comma)}(?![\d]|,\d)", n))
        elif param.kind == "hours":
            for v in param.versions:
                value = v.value
                if isinstance(value, Fraction):
                    continue
                out.append(
                    (
                        param.key,
                        f"{value} hours",
                        rf"(?<![\d.]){value} hours",
                        value if value >= 100 else None,
                    )
                )
        elif param.kind == "date":
            for v in param.versions:
                d: dt.date = v.value
                long = f"{d:%B} {d.day}, {d.year}"
                out.append((param.key, long, re.escape(long), None))
                out.append((param.key, d.isoformat(), re.escape(d.isoformat()), None))
                out.append(
                    (
                        param.key,
                        f"date({d.year}, {d.month}, {d.day})",
                        rf"date\({d.year},{d.month},{d.day}\)",
                        None,
                    )
                )
        elif param.kind == "fraction":
            for v in param.versions:
                pct = Fraction(v.value) * 100
                if pct.denominator != 1:
                    continue
                n = int(pct)
                out.append((param.key, f"{n} percent", rf"(?<![\d.]){n} percent", None))
    return out


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                lines.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    return lines


def scan_forms():
    """:func:`forms` with each regex compiled and the text every match of it contains (each
    pattern is that text, escaped, between lookarounds; a ``date(...)`` call's without
    its spaces, as the pattern reads the line's tokens joined): a file whose text lacks
    it cannot match, so :func:`hits` tries the regex only on files that have it."""
    out = []
    for key, form, pattern, number in forms():
        literal = form.replace(" ", "") if form.startswith("date(") else form
        rx = re.compile(pattern)
        assert rx.search(literal), (key, form, pattern)  # the text is the pattern's
        out.append((key, form, rx, number, literal))
    return out


def _may_hit(source: str, patterns: list) -> bool:
    """False only for a source no form can match, before tokenizing it (most files): a
    string token's text is in the source as it is; a number token, or a ``date(...)``
    form's year (a number token after its parenthesis), is a run of digits and
    underscores in it."""
    if any(literal in source for _, form, _, _, literal in patterns if form[:5] != "date("):
        return True
    wanted = {number for *_, number, _ in patterns if number is not None}
    calls = [literal for _, form, _, _, literal in patterns if form[:5] == "date("]
    wanted |= {int(call[5:].split(",")[0]) for call in calls}
    return any(int(run.replace("_", "")) in wanted for run in re.findall(r"\d[\d_]*", source))


def hits(path: Path, patterns: list | None = None):
    """(line, figure key, form) of each retyped figure in ``path``: a string token (an
    f-string's text too) a form's regex matches, a number token equal to a form's value,
    or a line whose tokens joined match a ``date(...)`` form. ``patterns``: scan_forms(),
    made once for many files."""
    patterns = scan_forms() if patterns is None else patterns
    source = path.read_text(encoding="utf-8")
    if not _may_hit(source, patterns):
        return []
    doc = _docstring_lines(ast.parse(source))
    strings = []  # (line, text) of string tokens outside docstrings
    numbers: dict[int, list[int]] = {}  # integer literal -> its lines
    by_line: dict[int, list[str]] = {}  # the code tokens of each line (comments left out)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT or tok.start[0] in doc:
            continue
        line = tok.start[0]
        if tok.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER):
            digits = tok.string.replace("_", "")
            if tok.type == tokenize.NUMBER and digits.isdigit():
                numbers.setdefault(int(digits), []).append(line)
        elif tok.type in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)):
            strings.append((line, tok.string))
        else:
            continue
        by_line.setdefault(line, []).append(tok.string)
    joined = {line: "".join(texts) for line, texts in by_line.items()}
    all_strings = "\n".join(text for _, text in strings)
    all_lines = "\n".join(joined.values())
    found = []
    for key, form, rx, number, literal in patterns:
        if number is not None:
            found.extend((line, key, form) for line in numbers.get(number, ()))
        if literal in all_strings:
            found.extend((line, key, form) for line, text in strings if rx.search(text))
        if form.startswith("date(") and literal in all_lines:
            found.extend((line, key, form) for line, text in joined.items() if rx.search(text))
    return sorted(set(found))


PACKAGE = Path(__file__).resolve().parents[2] / "addin" / "nj_incentives"

#: (module, figure) -> how many hits are not the figure, and why (each checked by hand).
NOT_LAW = {
    ("cli/calc.py", "beip.average_cap"): (1, "--max-formulas help: 50,000 formulas"),
    ("cli/calc.py", "cbt.group_payroll_threshold"): (1, "--max-area help: 5,000,000 cells"),
    ("workpapers/recalc/safety.py", "beip.average_cap"): (1, "max_formulas = 50_000"),
    ("workpapers/recalc/safety.py", "cbt.group_payroll_threshold"): (1, "max_area = 5_000_000"),
    ("scenarios/analysis.py", "beip.average_cap"): (1, "SAMPLE_ROWS = 50_000"),
    ("functions/reference.py", "cbt.transit_fee_first_period_begin"): (
        1,
        'the docs\' example of ISO date text, "2024-01-01"',
    ),
    ("scenarios/io.py", "beip.average_cap"): (1, "XLSX_WARN_ROWS = 50_000 (rows)"),
    ("programs/beip/functions.py", "beip.average_cap"): (
        1,
        "example input: a 50,000 transfer amount",
    ),
    ("programs/ertc/functions.py", "beip.average_cap"): (1, "example input: a 50,000 liability"),
    ("programs/beip/templates/grant.py", "beip.average_cap"): (1, "example input: other grants"),
    ("programs/grow_nj/templates/schedule.py", "beip.average_cap"): (
        1,
        "example input: a 50,000 transfer",
    ),
    **{
        (module, f"{program}.remote_work.{name}"): (count, why)
        for program in ("beip", "brrag", "uth", "grow_nj")
        for module, name, count, why in (
            ("programs/ertc/functions.py", "election_before", 1, "example period end 2023-12-31"),
            ("programs/ertc/functions.py", "waiver_end", 1, "example period end 2023-12-31"),
            ("programs/ertc/templates/form_313.py", "election_before", 2, "example period end"),
            ("programs/ertc/templates/form_313.py", "waiver_end", 2, "example period end"),
            ("programs/emerge/templates/schedule.py", "election_before", 1, "example period end"),
            ("programs/emerge/templates/schedule.py", "waiver_end", 1, "example period end"),
        )
    },
    **{
        (module, f"{program}.remote_work.reduce_statewide_before"): (count, why)
        for program in ("uth", "grow_nj")
        for module, count, why in (
            ("programs/ertc/functions.py", 2, "example period ends 2024-12-31"),
            ("programs/ertc/templates/form_313.py", 1, "example period end"),
            ("programs/beip/functions.py", 1, "example date 2024-12-31"),
            ("programs/portfolio/functions.py", 1, "example period end 2024-12-31"),
            ("programs/portfolio/templates/portfolio.py", 1, "example period end 2024-12-31"),
        )
    },
}
#: Subsection h.: moved to the parameters with its three versions (issue 19, item 2).
PENDING_H: dict[tuple[str, str], int] = {}


def _found() -> dict[tuple[str, str], list[tuple[int, str]]]:
    found: dict[tuple[str, str], list[tuple[int, str]]] = {}
    patterns = scan_forms()
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if re.fullmatch(r"programs/[^/]+/figures\.py", name):
            continue
        for line, key, form in hits(path, patterns):
            found.setdefault((name, key), []).append((line, form))
    return found


def test_no_statutory_literal_outside_parameters() -> None:
    found = _found()
    allowed = {key: count for key, (count, _) in NOT_LAW.items()}
    for key, count in PENDING_H.items():
        allowed[key] = allowed.get(key, 0) + count
    extra = {key: lines for key, lines in found.items() if len(lines) > allowed.get(key, 0)}
    assert not extra, f"a figure of law retyped: read it from programs/*/figures.py: {extra}"
    # the lists shrink as figures move: an entry that no longer matches is removed
    stale = {key: count for key, count in allowed.items() if len(found.get(key, ())) < count}
    assert not stale, f"allow-list entries no longer found: {stale}"


def test_the_scan_finds_a_retyped_figure(tmp_path: Path) -> None:
    module = tmp_path / "retyped.py"
    module.write_text(
        '''"""A docstring may say $50,000."""
import datetime as dt
# a comment may say 140 hours
CAP = 50_000
TEXT = "the $2,500 credit, at least 140 hours, from July 1, 2003"
START = dt.date(2003, 7, 1)
SHARE = "75 percent"
''',
        encoding="utf-8",
    )
    found = {(key, form) for _, key, form in hits(module)}
    expected = {
        ("beip.average_cap", "50,000"),
        ("ertc.credit_year_one_amount", "2,500"),
        ("ertc.full_time_hours_per_month", "140 hours"),
        ("beip.cap_agreements_from", "July 1, 2003"),
        ("beip.cap_agreements_from", "date(2003, 7, 1)"),
        ("beip.minimum_consideration_share", "75 percent"),
    }
    # each retyped literal is found; one may match several figures of the same value
    # (75% is also Grow NJ's transfer consideration and the State's largest share)
    assert expected <= found
    assert {form for _, form in found} == {form for _, form in expected}


def test_memo_headings_are_the_interpretations_headings() -> None:
    from nj_incentives.programs.beip import memo

    text = (PACKAGE.parent.parent / "docs" / "interpretations.md").read_text(encoding="utf-8")
    for heading in (memo.CAP_PER_YEAR, memo.CAP_WHOLE_TERM):
        assert f"### {heading}\n" in text


# --------------------------------------------------------------------------- before a change


def test_every_dated_figure_before_its_change_is_its_first_version() -> None:
    # the figures of this versions and the drill: a date before a version's first
    # date (or a law_as_of before its act) reads what the figure was before the change
    with P.amended(BEIP.AVERAGE_CAP, DRILL):
        dated = [p for p in P.PARAMETERS.values() if p.dated]
        assert BEIP.AVERAGE_CAP in dated
        for param in dated:
            for version in param.versions[1:]:
                before = param.version(
                    None
                    if version.applies_from is None
                    else version.applies_from - dt.timedelta(days=1),
                    version.act.date - dt.timedelta(days=1),
                )
                assert before is not version
                assert before.act.date < version.act.date or (
                    version.applies_from is not None
                    and (before.applies_from or dt.date.min) < version.applies_from
                )


_money = st.integers(0, 10**8).map(lambda cents: D(cents) / 100)


@given(
    withholdings=st.lists(_money, min_size=1, max_size=10),
    employees=st.lists(st.integers(0, 40), min_size=10, max_size=10),
    day=st.dates(dt.date(2003, 1, 1), dt.date(2024, 12, 31)),
    method=st.sampled_from(beip.CAP_METHODS),
)
def test_a_grant_before_the_change_is_what_it_was(
    withholdings: list[Decimal], employees: list[int], day: dt.date, method: str
) -> None:
    counts = employees[: len(withholdings)]
    before = beip.grant_schedule(withholdings, counts, "0.5", day, cap_method=method)
    with P.amended(BEIP.AVERAGE_CAP, DRILL):
        after = beip.grant_schedule(withholdings, counts, "0.5", day, cap_method=method)
        assert after == before
        assert after.steps == before.steps
        assert [row.note for row in after.rows] == [row.note for row in before.rows]


def test_amendment_drill_scenario_runner(
    cap_60000: P.Parameter[Decimal], monkeypatch: pytest.MonkeyPatch
) -> None:
    import pandas as pd

    from nj_incentives.scenarios import scalar
    from nj_incentives.scenarios.runner import _run_frame, plan_layout

    # one year, 1,000,000.00 withholdings at 50% (500,000.00 before the cap), 5 new
    # employees: 2024-12-31 agreement 50,000 x 5 = 250,000.00; 2025-01-01: 60,000 x 5
    frame = pd.DataFrame(
        {
            "id": [0, 1],
            "agreement_date": ["2024-12-31", "2025-01-01"],
            "pct": [0.5, 0.5],
            "withholdings_1": [1000000.0, 1000000.0],
            "new_employees_1": [5, 5],
        }
    )
    layout = plan_layout(frame)
    slow = _run_frame(frame, layout, money="cents", force_scalar=True)

    def no_scalar(*args: object) -> object:
        raise AssertionError("the kernel left a row to the scalar path")

    monkeypatch.setattr(scalar, "run_row", no_scalar)
    fast = _run_frame(frame, layout, money="cents")
    for result in (fast, slow):
        assert result["grant_total"].tolist() == [25_000_000, 30_000_000]
        assert result["error"].isna().all()


# --------------------------------------------------------------------------- law currency


def test_law_currency_texts_are_generated_and_current() -> None:
    from nj_incentives import LAW_CURRENT_TO
    from nj_incentives.support import law_currency

    root = PACKAGE.parent.parent
    for name in law_currency.FILES:
        text = (root / name).read_text(encoding="utf-8")
        assert "<!-- law-currency:law-current-to -->" in text, name
        assert law_currency.render(text) == text, f"stale: run `{law_currency.COMMAND}`"
    assert P.law_current_to() == LAW_CURRENT_TO
    assert LAW_CURRENT_TO.startswith("N.J.S.A. 34:1B-129: P.L.2003, c.166 (2003-07-01)")
    interpretations = (root / "docs" / "interpretations.md").read_text(encoding="utf-8")
    for statute in P.STATUTES.values():
        assert f"### Amendments: {statute.citation}\n" in interpretations


def test_what_is_not_modelled_names_no_modelled_act() -> None:
    for statute in P.STATUTES.values():
        for act in statute.acts:
            for item in statute.not_modelled:
                assert not item.startswith(act.name.split(" (")[0]), (act.name, item)


def test_an_amendment_shows_in_the_law_currency(cap_60000: P.Parameter[Decimal]) -> None:
    assert "P.L.2024, c.999 (drill) (2024-12-01)" in P.law_current_to()
    table = P.amendments_table("beip")
    row = next(line for line in table.splitlines() if "c.999" in line)
    assert row.startswith("| 2024-12-01 | P.L.2024, c.999 (drill) |")
    assert "average cap raised to $60,000" in row
    assert "by the agreement date" in row
    assert "$50,000; $60,000 for agreement dates from 2025-01-01" in P.figures_table("beip")
    # law_as_of: the amendment is a version available
    with pytest.raises(InputError) as error:
        as_law_as_of("2000-01-01", "beip")
    assert "P.L.2024, c.999 (drill) (2024-12-01)" in str(error.value)


def test_law_as_of_column_in_the_scenario_runner(
    cap_60000: P.Parameter[Decimal], monkeypatch: pytest.MonkeyPatch
) -> None:
    import pandas as pd

    from nj_incentives.scenarios import scalar
    from nj_incentives.scenarios.runner import _run_frame, plan_layout, run_scenarios

    # a 2025 agreement, 5 new employees, 500,000.00 before the cap: 60,000 x 5 under the
    # amendment (blank law_as_of, or one on or after its 2024-12-01 enactment), 50,000 x 5
    # under the law as of 2024-11-30, one row each, side by side
    rows = {
        "id": [0, 1, 2],
        "agreement_date": ["2025-01-01"] * 3,
        "pct": [0.5] * 3,
        "withholdings_1": [1000000.0] * 3,
        "new_employees_1": [5] * 3,
        "law_as_of": [None, "2024-12-01", "2024-11-30"],
    }
    frame = pd.DataFrame(rows)
    layout = plan_layout(frame)
    slow = _run_frame(frame, layout, money="cents", force_scalar=True)

    def no_scalar(*args: object) -> object:
        raise AssertionError("the kernel left a row to the scalar path")

    with monkeypatch.context() as patch:
        patch.setattr(scalar, "run_row", no_scalar)
        fast = _run_frame(frame, layout, money="cents")
    for result in (fast, slow):
        assert result["grant_total"].tolist() == [30_000_000, 30_000_000, 25_000_000]
    # before the first version modelled: the row's error names the argument and versions
    bad = run_scenarios(frame.assign(law_as_of=["2003-06-30", None, None]))
    assert "law_as_of" in bad["error"].iloc[0]
    assert "versions available" in bad["error"].iloc[0]
    assert bad["error"].iloc[1:].isna().all()


def test_law_as_of_excel_functions_side_by_side(cap_60000: P.Parameter[Decimal]) -> None:
    from nj_incentives.runtimes import xlwings_classic as excel

    args = ([[1000000]], [[5]], 0.5, dt.date(2025, 1, 1))
    now = excel.NJ_BEIP_GRANT_SCHEDULE(*args)
    then = excel.NJ_BEIP_GRANT_SCHEDULE(*args, law_as_of=dt.date(2024, 11, 30))
    assert now != then
    with pytest.raises(InputError, match="law_as_of = '2003-06-30'"):
        beip.explain_cap_applies(dt.date(2010, 1, 1), "2003-06-30")
    assert excel.NJ_BEIP_CAP_APPLIES(dt.date(2010, 1, 1), dt.date(2024, 1, 1)) == "Yes"


def test_amendment_drill_catalog_and_templates_texts() -> None:
    """The catalog, scenario columns and template help are built at import: under the
    amendment (made before they are imported, in a fresh process) they show both figures,
    within Excel's 255 characters a description may have."""
    import subprocess
    import sys

    script = """
import datetime as dt
from decimal import Decimal
from nj_incentives.core import parameters as P
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.ertc import figures as ERTC
act = P.Act("beip", "P.L.2024, c.999 (drill)", dt.date(2024, 12, 1), source="test")
cap = BEIP.AVERAGE_CAP
cap._set((*cap.versions, P.Version(Decimal(60000), act, dt.date(2025, 1, 1))))
from nj_incentives.functions import catalog
from nj_incentives.scenarios.columns import input_spec
from nj_incentives.programs.beip.templates import grant as beip_grant
text = catalog.CALCULATIONS["NJ_BEIP_CAP_APPLIES"].description
assert "$50,000; $60,000 from 2025-01-01" in text, text
assert "$60,000 for agreement dates from 2025-01-01" in input_spec("agreement_date")[0].doc
assert "$60,000" in beip_grant._CAP
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
