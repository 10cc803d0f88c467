"""``law_as_of`` on every function whose result depends on a version of the law, and
every versioned result naming the version it applied (issue 19, items 2 and 3).

Each function is called twice with the same inputs, once under the law in force (blank
``law_as_of``) and once under the law as it stood on an earlier date, one call each,
side by side; a bad ``law_as_of`` gets the same message in process and through every
Excel dispatch path."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest

from nj_incentives.core import parameters as P
from nj_incentives.core.common import InputError
from nj_incentives.functions.catalog import CALCULATIONS
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.ertc import figures as ERTC
from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.remote_work import rules as remote_work
from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives.workpapers.templates.builder import build_template

D = Decimal

#: A made-up amendment (as tests/core/test_parameters.py's drill): the average cap $60,000
#: for agreements entered into from 2025-01-01, enacted 2024-12-01.
DRILL_ACT = P.Act("beip", "P.L.2024, c.999 (drill)", dt.date(2024, 12, 1), source="test fixture")
DRILL = P.Version(D(60000), DRILL_ACT, applies_from=dt.date(2025, 1, 1))


@pytest.fixture
def cap_60000() -> Iterator[P.Parameter[Decimal]]:
    with P.amended(BEIP.AVERAGE_CAP, DRILL) as param:
        yield param


def takes_law_as_of() -> set[str]:
    return {
        name
        for name, entry in CALCULATIONS.items()
        if any(argument.name == "law_as_of" for argument in entry.arguments)
    }


#: The core function behind each Excel function that takes ``law_as_of`` (in process).
CORE: dict[str, Callable[..., Any]] = {
    "NJ_BEIP_CAP_APPLIES": beip.explain_cap_applies,
    "NJ_BEIP_GRANT_SCHEDULE": beip.grant_schedule,
    "NJ_BEIP_REMOTE_WORK_PAYMENT": remote_work.remote_work_payment,
    "NJ_BEIP_REMOTE_WORK_CHECK": remote_work.remote_work_check,
    "NJ_BEIP_REMOTE_WORK_COMMITMENT_END": remote_work.remote_work_commitment_end,
    # the program first (its example's: BRRAG, UTH)
    "NJ_REMOTE_WORK_PAYMENT": lambda program, *a, **k: remote_work.remote_work_payment(
        *a, program=program, **k
    ),
    "NJ_REMOTE_WORK_CHECK": lambda program, *a, **k: remote_work.remote_work_check(
        *a, program=program, **k
    ),
    "NJ_REMOTE_WORK_COMMITMENT_END": lambda program, *a, **k: (
        remote_work.remote_work_commitment_end(*a, program=program, **k)
    ),
    "NJ_ERTC_FTE": ertc.explain_fte,
    "NJ_ERTC_AVG_POSITIONS": lambda hours, law_as_of=None: ertc.average_positions(
        ertc.roster(hours), law_as_of=law_as_of
    ),
}

#: The statute whose versions each function's ``law_as_of`` names (its citation's).
STATUTE = {
    name: "ertc" if CALCULATIONS[name].citation.startswith("N.J.S.A. 52:27BBB") else "beip"
    for name in CORE
} | {  # the program of the example: its statute's versions
    name: CALCULATIONS[name].example[0] for name in CORE if name.startswith("NJ_REMOTE_WORK_")
}


# --------------------------------------------------------------------------- which functions


def _dated_reads(
    monkeypatch: pytest.MonkeyPatch, calls: dict[str, tuple[Any, ...]] | None = None
) -> dict[str, set[str]]:
    """Run every catalog example (or ``calls``: the cells for some functions), recording
    the dated figures each function reads."""
    found: dict[str, set[str]] = {}
    current: list[str] = []
    at, version = P.Parameter.at, P.Parameter.version

    def record(param: P.Parameter[Any]) -> None:
        if param.dated and current:
            found.setdefault(current[0], set()).add(param.key)

    def at_recorded(self: P.Parameter[Any], *args: Any) -> Any:
        record(self)
        return at(self, *args)

    def version_recorded(self: P.Parameter[Any], *args: Any) -> Any:
        record(self)
        return version(self, *args)

    monkeypatch.setattr(P.Parameter, "at", at_recorded)
    monkeypatch.setattr(P.Parameter, "version", version_recorded)
    if calls is None:
        calls = {name: e.example for name, e in excel.CATALOG.items() if name != "NJ_EXPLAIN"}
    for name, cells in calls.items():
        current[:] = [name]
        excel.FUNCTIONS[name](*cells)
    current.clear()
    return found


def test_every_function_reading_a_dated_figure_takes_law_as_of(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # at run time: a function whose rules read a figure with more than one version
    reading = _dated_reads(monkeypatch)
    assert set(reading) <= takes_law_as_of(), reading
    # a function of the subsection of a dated figure (h. reads its figures once, at import)
    for param in P.PARAMETERS.values():
        if not param.dated:
            continue
        subsection = param.citation.split(" as amended")[0].split(";")[0].rstrip(".")
        subsection = subsection.split("(")[0].strip().rstrip(".")  # "N.J.S.A. 34:1B-129h"
        # a function of the four sections of the remote-work text cites each of them
        short = subsection.removeprefix("N.J.S.A. ")
        citing = {
            n
            for n, c in CALCULATIONS.items()
            if c.citation.startswith(subsection) or f"; {short}" in c.citation
        }
        if ".remote_work." in param.key:  # read by the remote-work functions only (UTH's
            # and Grow NJ's are cited by their section, which other functions cite too)
            citing = {n for n in citing if "REMOTE_WORK" in n}
        assert citing, param
        assert citing <= takes_law_as_of(), (param, citing - takes_law_as_of())
    assert set(CORE) == takes_law_as_of()


def test_an_amended_figure_is_read_only_by_functions_taking_law_as_of(
    cap_60000: P.Parameter[Decimal], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the drill makes the average cap dated: the functions reading it take law_as_of
    reading = _dated_reads(monkeypatch)
    assert {"NJ_BEIP_CAP_APPLIES", "NJ_BEIP_GRANT_SCHEDULE"} <= set(reading)
    assert set(reading) <= takes_law_as_of(), reading


def test_a_dated_full_time_month_is_read_by_functions_taking_law_as_of(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # tests/programs/test_ertc_months.py's drill (150 hours a month from July 2027) makes the
    # full-time month dated: NJ_ERTC_FTE and NJ_ERTC_AVG_POSITIONS over a dated period
    # read it, and take law_as_of
    drill = P.Act("ertc", "P.L.2027, c.999 (drill)", dt.date(2027, 5, 1), source="test fixture")
    full_150 = P.Version(150, drill, applies_from=dt.date(2027, 7, 1))
    january = dt.date(2027, 1, 1)
    calls = {
        "NJ_ERTC_FTE": (2100, None, january),
        "NJ_ERTC_AVG_POSITIONS": ([[145] * 12, [150] * 12], None, None, None, january),
    }
    with P.amended(ERTC.FULL_TIME_HOURS_PER_MONTH, full_150):
        reading = _dated_reads(monkeypatch, calls)
    assert reading == {name: {"ertc.full_time_hours_per_month"} for name in calls}
    assert set(reading) <= takes_law_as_of()


# --------------------------------------------------------------------------- side by side


def test_cap_applies_under_two_versions(cap_60000: P.Parameter[Decimal]) -> None:
    # a 2025 agreement: the cap binds under both; the figure and the version differ
    now = beip.explain_cap_applies(dt.date(2025, 1, 1))
    then = beip.explain_cap_applies(dt.date(2025, 1, 1), law_as_of=dt.date(2024, 11, 30))
    assert (now.applies, now.version) == (True, "P.L.2024, c.999 (drill)")
    assert (then.applies, then.version) == (True, "P.L.2003, c.166")
    assert "$60,000" in now.steps[0].label
    assert "$50,000" in then.steps[0].label
    # the cell the accountant sees is "Yes" under both
    assert excel.NJ_BEIP_CAP_APPLIES(dt.date(2025, 1, 1)) == "Yes"
    assert excel.NJ_BEIP_CAP_APPLIES(dt.date(2025, 1, 1), dt.date(2024, 11, 30)) == "Yes"


def test_grant_schedule_names_its_version(cap_60000: P.Parameter[Decimal]) -> None:
    # 1,000,000 x 50% = 500,000 before the cap, 5 new employees: 60,000 x 5 = 300,000
    # under the amendment, 50,000 x 5 = 250,000 under the law as of 2024-11-30
    args = ([1000000], [5], 0.5, dt.date(2025, 1, 1))
    now = beip.grant_schedule(*args)
    then = beip.grant_schedule(*args, law_as_of=dt.date(2024, 11, 30))
    assert (now.total, now.version) == (D("300000.00"), "P.L.2024, c.999 (drill)")
    assert (then.total, then.version) == (D("250000.00"), "P.L.2003, c.166")
    # an agreement before the amendment's 2025-01-01: the text's figure under both
    early = beip.grant_schedule([1000000], [5], 0.5, dt.date(2024, 12, 31))
    assert (early.total, early.version) == (D("250000.00"), "P.L.2003, c.166")


def test_remote_work_check_under_two_versions() -> None:
    # a tax period from 2024-04-01, 45% on site, outside an enhanced area, election
    # 2024-05-01: P.L.2024, c.40 (45% >= 40%) waives; the law as of 2024-07-09 (before
    # c.40, approved 2024-07-10) is the January 2024 act: its waiver ends 2024-03-31, and
    # the election is not before 2023-12-31 (c.40's payment made, the commitment extended)
    args = (dt.date(2024, 5, 1), 0.45, None, dt.date(2024, 4, 1), False)
    now = excel.NJ_BEIP_REMOTE_WORK_CHECK(*args, None, None, None, True, True)
    then = excel.NJ_BEIP_REMOTE_WORK_CHECK(*args, None, None, dt.date(2024, 7, 9))
    assert now == "OK"
    assert "outside the waiver period" in then
    assert "2024-03-31" in then
    core = {"period_start": dt.date(2024, 4, 1), "enhanced_area": False}
    core_now = remote_work.remote_work_check(dt.date(2024, 5, 1), 0.45, **core)
    core_then = remote_work.remote_work_check(
        dt.date(2024, 5, 1), 0.45, **core, law_as_of="2024-07-09"
    )
    assert core_now.version == "P.L.2024, c.40"
    assert core_then.version == "January 2024 act (A-5840/S-4217)"


def test_remote_work_payment_under_two_versions() -> None:
    # a calendar 2024 period, maximum credit 412,345.67: 10% under P.L.2024, c.40 =
    # 41,234.567 -> 41,234.56 (rounded down); under the law as of 2024-07-09 only the
    # 2022 tax period pays (5%): this period owes nothing, and is refused
    now = excel.NJ_BEIP_REMOTE_WORK_PAYMENT(412345.67, dt.date(2024, 12, 31))
    then = _cell_text(
        excel.NJ_BEIP_REMOTE_WORK_PAYMENT,
        *(412345.67, dt.date(2024, 12, 31), None, None, dt.date(2024, 7, 9)),
    )
    assert now == 41234.56
    assert "for a tax period from 2024-04-01; this period is one, but law_as_of 2024-07-09" in then
    assert "is before P.L.2024, c.40 (2024-07-10)" in then
    # the 2022 tax period: 5% under both, 412,345.67 x 5% = 20,617.2835 -> 20,617.28
    for law_as_of in (None, dt.date(2022, 7, 1)):
        paid = remote_work.remote_work_payment(
            412345.67, dt.date(2022, 12, 31), law_as_of=law_as_of
        )
        assert (paid.amount, paid.version) == (D("20617.28"), "P.L.2022, c.134")


def test_commitment_end_under_two_versions() -> None:
    # 2026-06-30 + 24 months = 2028-06-30 under P.L.2024, c.40; the law as of 2024-07-09
    # knew no extension: the commitment period ends 2026-06-30
    now = remote_work.remote_work_commitment_end(dt.date(2026, 6, 30))
    then = remote_work.remote_work_commitment_end(
        dt.date(2026, 6, 30), law_as_of=dt.date(2024, 7, 9)
    )
    assert (now.extended_end, now.version) == (dt.date(2028, 6, 30), "P.L.2024, c.40")
    assert (then.extended_end, then.version) == (
        dt.date(2026, 6, 30),
        "January 2024 act (A-5840/S-4217)",
    )
    assert "extends no commitment period" in then.steps[0].arithmetic
    # in the cell: serial numbers, 2026-06-30 = 46203 and 2028-06-30 = 46203 + 365 + 366
    # = 46934; law_as_of 45482 = 2024-01-01's 45292 + 190 days = 2024-07-09
    assert excel.FUNCTIONS["NJ_BEIP_REMOTE_WORK_COMMITMENT_END"](dt.date(2026, 6, 30)) == 46934
    assert (
        excel.FUNCTIONS["NJ_BEIP_REMOTE_WORK_COMMITMENT_END"](dt.date(2026, 6, 30), 45482) == 46203
    )


@pytest.mark.parametrize("name", sorted(CORE))
def test_default_is_the_law_in_force(name: str) -> None:
    # blank law_as_of: every version modelled, the same as the law as of today's date
    example = CALCULATIONS[name].example
    function = excel.FUNCTIONS[name]
    index = [a.name for a in CALCULATIONS[name].arguments].index("law_as_of")
    padded = list(example) + [None] * (index - len(example))
    assert function(*example) == function(*padded, dt.date(2026, 12, 1))


# --------------------------------------------------------------------------- bad input

BAD = ["soon", True, -5, 1e9]
#: Days before the first version modelled of the figures each function reads (issue 34):
#: the cap and the grant's figures P.L.2003, c.166 (2003-07-01), subsection h. P.L.2022,
#: c.134 (2022-07-01), the ERTC's 2003-01-01; as text, as a cell's serial number and as a
#: date.
BEFORE = {
    "grant": ["2002-01-01", 37802, dt.date(2003, 6, 30)],
    "beip": ["2010-01-01", 40000, dt.date(2022, 6, 30)],
    "ertc": ["2002-12-31", 37621, dt.date(2002, 12, 31)],
}
#: The functions whose figures are a.-c.'s (the others of BEIP read subsection h.'s).
FIRST = {"NJ_BEIP_CAP_APPLIES": "grant", "NJ_BEIP_GRANT_SCHEDULE": "grant"}
#: The serial numbers' dates (1899-12-30 + the serial): 40000 is 2009-07-06, 37621
#: 2002-12-31, 37802 2003-06-30.
SERIALS = {40000: dt.date(2009, 7, 6), 37621: dt.date(2002, 12, 31), 37802: dt.date(2003, 6, 30)}
BEFORE["brrag"] = BEFORE["uth"] = BEFORE["beip"]  # their first version: 2022-07-01 too


def _cell_text(function: Callable[..., Any], *cells: object) -> str:
    """What the cell shows: the classic add-in's returned text, or the Office.js error's
    message (the runtime xlwings was imported for decides, excel.RUNTIME)."""
    try:
        shown = function(*cells)
    except Exception as error:  # xlwings.XlwingsError under Office.js
        return str(error)
    assert isinstance(shown, str), shown
    return shown


def _expect(message: str, value: object, statute: str = "beip") -> None:
    assert "law_as_of = " in message, message
    assert f"versions available: {P.versions_text(statute)}" in message, message
    assert 'docs/interpretations.md "Law as of"' in message, message
    if isinstance(value, str):
        assert repr(value) in message, message


@pytest.mark.parametrize(
    ("name", "value"),
    [
        (name, value)
        for name in sorted(CORE)
        for value in BAD + BEFORE[FIRST.get(name, STATUTE[name])]
    ],
    ids=repr,
)
def test_bad_law_as_of_everywhere(name: str, value: object) -> None:
    statute = STATUTE[name]
    example = list(CALCULATIONS[name].example)
    index = [a.name for a in CALCULATIONS[name].arguments].index("law_as_of")
    cells = example + [None] * (index - len(example)) + [value]
    # through the Excel dispatch: the classic add-in's text, the headless callables, NJ_EXPLAIN
    _expect(_cell_text(getattr(excel, name), *cells), value, statute)
    with pytest.raises(InputError) as raised:
        excel.FUNCTIONS[name](*cells)
    _expect(str(raised.value), value, statute)
    _expect(_cell_text(excel.NJ_EXPLAIN, name, *cells), value, statute)
    # in process: the core function (a serial number is a cell convention: its date here)
    if isinstance(value, int) and not isinstance(value, bool):
        value = SERIALS.get(value, value)
    args = excel.CATALOG[name].convert(example, {})
    with pytest.raises(InputError) as raised:
        CORE[name](*[a for a in args if a is not None][: len(example)], law_as_of=value)
    _expect(str(raised.value), value, statute)


# --------------------------------------------------------------------------- calc --law-as-of


def _calc(*args: str) -> int:
    from nj_incentives import cli

    return cli.main(["calc", *args])


def _stamp_and_properties(results: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    import json

    import openpyxl

    book = openpyxl.load_workbook(results)
    properties = {p.name: p.value for p in book.custom_doc_props.props}
    return json.loads(results.with_suffix(".json").read_text()), properties


def test_calc_law_as_of_applies_to_every_call_and_is_recorded(tmp_path: Any, capsys: Any) -> None:
    from nj_incentives.workpapers.templates.build import DEFAULT_DIRECTORY

    example = DEFAULT_DIRECTORY / "examples" / "beip-credit-conversion-example.xlsx"
    # the law in force: the example's waiver from 2024-04-01 holds under P.L.2024, c.40
    assert _calc(str(example), "-o", str(tmp_path / "now")) == 0
    stamp, properties = _stamp_and_properties(
        tmp_path / "now" / "beip-credit-conversion-example-results.xlsx"
    )
    assert stamp["law_as_of"] is None
    assert stamp["law_applied"].startswith("every version modelled")
    assert properties["Law as of"] == "blank: the law in force for each period computed"
    # the law as of 2024-07-09, the day before c.40's approval: the same workbook's check
    # of the waiver from 2024-04-01 fails (the January 2024 act's waiver ends 2024-03-31)
    capsys.readouterr()
    assert _calc(str(example), "-o", str(tmp_path / "then"), "--law-as-of", "2024-07-09") == 1
    out = capsys.readouterr().out
    assert "Law applied: the law as of 2024-07-09 (N.J.S.A. 34:1B-129: P.L.2003, c.166" in out
    stamp, properties = _stamp_and_properties(
        tmp_path / "then" / "beip-credit-conversion-example-results.xlsx"
    )
    assert stamp["law_as_of"] == "2024-07-09"
    beip_part = stamp["law_applied"].split("; N.J.S.A. 52")[0]
    assert "January 2024 act (A-5840/S-4217) (2024-01-12)" in beip_part
    assert "P.L.2024, c.40" not in beip_part
    assert properties["Law as of"] == "2024-07-09 (calc --law-as-of)"
    assert any("waiver from 2024-04-01" in check["check"] for check in stamp["failed_checks"])


def test_calc_law_as_of_replaces_a_workbooks_own(tmp_path: Any, capsys: Any) -> None:
    from nj_incentives.programs.beip.templates import grant as beip_grant

    source = build_template(
        beip_grant, tmp_path / "own.xlsx", dict(beip_grant.EXAMPLE, law_as_of=dt.date(2023, 1, 1))
    )
    capsys.readouterr()
    assert _calc(str(source), "-o", str(tmp_path / "out"), "--law-as-of", "2024-07-10") == 0
    err = capsys.readouterr().err
    assert "--law-as-of 2024-07-10 replaced the workbook's own law_as_of in" in err
    assert "NJ_BEIP_GRANT_SCHEDULE (2023-01-01, 1 call(s))" in err
    stamp, _ = _stamp_and_properties(tmp_path / "out" / "own-results.xlsx")
    replaced = {item["function"]: item["value"] for item in stamp["law_as_of_replaced"]}
    assert replaced == {"NJ_BEIP_GRANT_SCHEDULE": "2023-01-01", "NJ_BEIP_CAP_APPLIES": "2023-01-01"}


@pytest.mark.parametrize("value", ["soon", "2003-06-30", "2024-13-01"])
def test_calc_bad_law_as_of_exits_2(value: str, tmp_path: Any, capsys: Any) -> None:
    assert _calc("--law-as-of", value, "-o", str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert f"--law-as-of: law_as_of = {value!r}" in err
    assert f"versions available: {P.versions_text('beip')}" in err
    assert not list(tmp_path.iterdir())  # nothing recalculated, nothing written


# --------------------------------------------------------------------------- explain


def test_explain_names_the_version_and_the_law_applied(capsys: Any) -> None:
    import json

    from nj_incentives import cli

    args = ["explain", "grant-schedule", "--withholdings", "100000", "--new-employees", "2"]
    args += ["--pct", "0.5", "--agreement-date", "2024-01-01"]
    # 100,000 x 50% = 50,000, within 50,000 x 2 = 100,000 of the cap
    assert cli.main([*args, "--law-as-of", "2024-07-09"]) == 0
    out = capsys.readouterr().out
    assert "total: 50,000.00" in out
    assert "version: P.L.2003, c.166" in out
    assert "Law applied (--law-as-of): the law as of 2024-07-09 (N.J.S.A. 34:1B-129:" in out
    assert cli.main([*args, "--law-as-of", "2024-07-09", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["result"]["version"] == "P.L.2003, c.166"
    assert document["law_applied"].startswith("the law as of 2024-07-09")
    # without it: the law in force, no "law applied" line
    assert cli.main(args) == 0
    assert "Law applied" not in capsys.readouterr().out
    # a date its rule refuses: exit 1 as fill's refusals (a value refused, issue 32 item
    # 8); the message names the argument, the value and the versions
    assert cli.main([*args, "--law-as-of", "2003-06-30"]) == 1
    err = capsys.readouterr().err
    assert "law_as_of = '2003-06-30'" in err
    assert f"versions available: {P.versions_text('beip')}" in err
