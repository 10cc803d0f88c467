"""Payroll hours from a file, for a template's payroll roster (``nj-incentives fill
--hours``): Form 313's Part II, the one template that declares a roster today
(:class:`nj_incentives.core.workpaper.Roster`, ``ROSTER`` in its module). Everything
statute-specific (the periods, their names and calendar, the months, the hours' rule and
the flags' citation) is the roster's; this module reads files.

Two export shapes, told apart by their header row (names in any case; spaces, dashes
and dots count as underscores):

- **one row per employee and month** (long): ``employee``, ``month`` and ``hours``,
  optionally ``period`` and the flags ``temporary`` and ``excluded``. Several rows of one
  employee and month (pay periods, departments) are summed.
- **one row per employee** (wide): ``employee``, twelve month columns ``1`` ... ``12``
  (or ``month 1`` ... ``month 12``) with a ``period`` column, or calendar-month columns
  (``2023-04``, ``2023-05`` ...), optionally the flags.

A month is either the number 1-12 of a ``period`` (Form 313's: ``base``, ``year1``,
``year2``; also ``base year``, ``credit year one``, ``year one``, ``1``/``2`` for the
credit years: the roster's ``period_names``), or a calendar month (``2023-05``, or any
date in it, ``2023-05-31``), placed by the roster's ``calendar`` from the date its
``calendar_from`` names (Form 313: the operations start; the base year is the twelve
months before credit year one, and credit years one and two follow it). Hours are read
by the roster's own rule (``hours_rule``; Form 313's: a number, not negative, at most 744
in a month), the flags as the functions read yes/no.

Every refused row is named with its reason (an unknown month or period, a month in none
of the three periods, hours that are not a number or over 744, a month whose rows sum to
more than 744, a row without an employee); :func:`read_payroll` returns the roster only
when no row is refused. Files are bounded: :data:`MAX_BYTES`, :data:`MAX_ROWS`.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from nj_incentives.core.inputs import InputError, InputKind, InputRule, is_blank
from nj_incentives.core.workpaper import Roster

__all__ = [
    "MAX_BYTES",
    "MAX_ROWS",
    "Payroll",
    "PayrollError",
    "read_payroll",
]

#: The largest payroll file read (CSV or .xlsx).
MAX_BYTES = 64 * 1024 * 1024
#: The most data rows read.
MAX_ROWS = 1_000_000
_COLUMNS = {
    "employee": ("employee", "employee_id", "employee_name", "name", "emp_id", "worker", "id"),
    "period": ("period", "credit_period"),
    "month": ("month", "pay_month", "calendar_month", "date", "pay_date"),
    "hours": ("hours", "hours_worked", "total_hours"),
    "temporary": ("temporary", "seasonal", "temporary_or_seasonal"),
    "excluded": ("excluded", "owner", "owner_or_relative", "owner_or_owner_s_relative"),
}
_MONTH_NUMBER = re.compile(r"^(?:month_?)?(\d{1,2})$")
#: a calendar month or a date, and at most a time of day after it (a spreadsheet's
#: "2023-05-31 00:00:00"): nothing else, so that "2023-04 junk" is no month
_CALENDAR = re.compile(
    r"^(\d{4})-(\d{1,2})(?:-(\d{1,2})(?:[ t]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?)?$"
)


class PayrollError(ValueError):
    """The file cannot be read as payroll hours (status 2), or rows were refused
    (status 1): ``messages`` names each."""

    def __init__(self, messages: Sequence[str], status: int) -> None:
        self.messages = list(messages)
        self.status = status
        super().__init__("\n".join(self.messages))


@dataclass
class Payroll:
    """The roster read from a payroll file: one entry per employee, in the order first
    met (``name``, ``temporary``, ``excluded`` and twelve hours per period, None for a
    month with no row), and how many data rows were read."""

    employees: list[dict[str, Any]] = field(default_factory=list)
    rows: int = 0
    #: what was read as it is but a person should know (``fill`` prints them): a flag
    #: column missing (everyone taken as permanent / not excluded), months outside the
    #: periods left out
    notes: list[str] = field(default_factory=list)


#: what :meth:`_Calendar.place` returns for a month outside every period: left out (and
#: named in :attr:`Payroll.notes`), not a refused row
_OUTSIDE = "outside the periods"


def _normal(header: object) -> str:
    return re.sub(r"[\s\-./']+", "_", str(header or "").strip().lower()).strip("_")


def _rows_of(path: Path) -> Iterator[list[object]]:
    """The rows of a CSV or .xlsx (its first visible sheet) file, header first, bounded:
    a regular file of at most :data:`MAX_BYTES`."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".txt", ".xlsx", ".xlsm"):
        raise PayrollError([f"{path}: expected a .csv or .xlsx payroll file"], 2)
    from nj_incentives.support.reading import NotReadable, read_regular

    try:
        data = read_regular(path, MAX_BYTES)
    except NotReadable as error:
        raise PayrollError([f"{path}: {error}"], 2) from error
    if suffix in (".xlsx", ".xlsm"):
        yield from _xlsx_rows(path, data)
        return
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", "replace")
    rows = csv.reader(io.StringIO(text, newline=""))
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as error:
            raise PayrollError(
                [f"{path} line {rows.line_num}: not read as CSV: {error}"], 2
            ) from None
        yield list[object](row)


class Uncached:
    """A cell whose formula has no saved value (as openpyxl or a script writes one): what
    it computes is unknown until Excel recalculates and saves the workbook."""

    def __init__(self, formula: str) -> None:
        self.formula = formula

    def __str__(self) -> str:
        return self.formula


def _payroll_limits() -> Any:
    """The bounds a payroll workbook is vetted by: :data:`MAX_BYTES`, :data:`MAX_ROWS`
    rows (a long export of a million rows, as its CSV), saved values only."""
    from nj_incentives.workpapers.recalc.safety import DEFAULT_LIMITS

    return DEFAULT_LIMITS.with_overrides(
        max_file_bytes=MAX_BYTES,
        max_member_bytes=1024 * 1024 * 1024,
        max_total_bytes=1024 * 1024 * 1024,
        max_rows=MAX_ROWS + 1,
        max_columns=200,
        max_area=(MAX_ROWS + 1) * 40,
        max_cells=(MAX_ROWS + 1) * 40,
        max_formulas=(MAX_ROWS + 1) * 40,
        max_formula_characters=100_000_000,
        recalculating=False,
        max_seconds=None,
        max_memory_bytes=None,
    )


def _xlsx_rows(path: Path, data: bytes) -> Iterator[list[object]]:
    from nj_incentives.workpapers.recalc.safety import UnsafeWorkbookError, vet_bytes

    try:
        vetted = vet_bytes(path, data, _payroll_limits())
    except UnsafeWorkbookError as error:
        # the limits are this reader's own, not the calc options the message names
        reason = re.sub(r" \(--max-[a-z-]+(?:, --max-[a-z-]+)*\)", "", str(error))
        raise PayrollError([f"{path}: refused: {reason}"], 2) from error
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(vetted.data), read_only=True, data_only=True)
    visible = [sheet for sheet in book.worksheets if sheet.sheet_state == "visible"]
    if not visible:
        book.close()
        raise PayrollError([f"{path}: no visible sheet"], 2)
    sheet = visible[0]
    formulas = None
    if _has_formulas(vetted.data):
        formulas = openpyxl.load_workbook(io.BytesIO(vetted.data), read_only=True)
    try:
        if formulas is None:
            for row in sheet.iter_rows(values_only=True):
                yield list(row)
            return
        written = formulas[sheet.title].iter_rows(values_only=True)
        for row in sheet.iter_rows(values_only=True):
            typed = next(written, ())
            cells = list(row)
            for j, cell in enumerate(cells):
                text = typed[j] if j < len(typed) else None
                if cell is None and isinstance(text, str) and text.startswith("="):
                    cells[j] = Uncached(text)
            yield cells
    finally:
        book.close()
        if formulas is not None:
            formulas.close()


def _has_formulas(data: bytes) -> bool:
    """Whether any sheet of the workbook holds a formula (``<f>`` in its XML)."""
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            if info.filename.lower().startswith("xl/worksheets/") and info.filename.endswith(
                ".xml"
            ):
                with archive.open(info) as part:
                    carry = b""
                    while chunk := part.read(1 << 20):
                        if re.search(rb"<(?:\w+:)?f[ >/]", carry + chunk):
                            return True
                        carry = chunk[-16:]
    return False


def _month_of(value: object) -> tuple[int, int] | None:
    """(year, month) of a calendar month or a date; None if it is neither."""
    if isinstance(value, dt.datetime):
        return value.year, value.month
    if isinstance(value, dt.date):
        return value.year, value.month
    found = _CALENDAR.match(str(value).strip().lower())
    if not found:
        return None
    year, month = int(found.group(1)), int(found.group(2))
    if not 1 <= month <= 12:
        return None
    if found.group(3):
        try:
            dt.date(year, month, int(found.group(3)))
        except ValueError:
            return None
    return year, month


def _camel(key: str) -> str:
    """``operations_start`` -> ``OperationsStart`` (DATA's spelling)."""
    return "".join(part.title() for part in key.split("_"))


def _labels(roster: Roster) -> str:
    return ", ".join(roster.period_labels or roster.periods)


class _Calendar:
    """Calendar months -> (period, month number), placed by the roster's calendar from
    the date its ``calendar_from`` names (Form 313: the operations start)."""

    def __init__(self, roster: Roster, start: dt.date | None) -> None:
        self.roster = roster
        self.start = start if roster.calendar is not None else None
        self.months = roster.months
        self.outside: dict[tuple[int, int], int] = {}  # (year, month) -> cells left out
        if self.start is not None and roster.calendar is not None:
            spans = roster.calendar(self.start)
            first = spans[0][0]
            self.first = first.year * 12 + first.month - 1
            labels = roster.period_labels or roster.periods
            self.shown = ", ".join(
                f"{label} {a:%Y-%m} to {b:%Y-%m}"
                for label, (a, b) in zip(labels, spans, strict=False)
            )

    def needs(self) -> str:
        """What placing a calendar month needs, when it cannot be placed."""
        if self.roster.calendar is None:
            return "give each period's months 1-12 with its period"
        return (
            f"give the {self.roster.calendar_from.replace('_', ' ')} "
            f"({_camel(self.roster.calendar_from)} in DATA) to place it in a period "
            f"({_labels(self.roster)})"
        )

    def place(self, year: int, month: int) -> tuple[str, int] | str:
        """(period, month 1-12), or why not."""
        if self.start is None:
            return f"{year:04d}-{month:02d} is a calendar month: {self.needs()}"
        periods = self.roster.periods
        index = year * 12 + month - 1 - self.first
        if not 0 <= index < len(periods) * self.months:
            self.outside[(year, month)] = self.outside.get((year, month), 0) + 1
            return _OUTSIDE
        return periods[index // self.months], index % self.months + 1


def _count(n: int) -> str:
    return {2: "two", 3: "three", 4: "four"}.get(n, str(n))


@dataclass
class _Employee:
    name: str
    temporary: bool = False
    excluded: bool = False
    hours: dict[tuple[str, int], Decimal] = field(default_factory=dict)
    rows: dict[tuple[str, int], list[int]] = field(default_factory=dict)


def read_payroll(path: str | Path, roster: Roster, start: dt.date | None = None) -> Payroll:
    """``roster``'s employees in ``path`` (module docstring); ``start``: the date the
    roster's calendar places calendar months from (its ``calendar_from``: Form 313's
    operations start), if given. Raises :class:`PayrollError` naming every refused row
    (status 1) or why the file cannot be read (status 2)."""
    path = Path(path)
    months = roster.months
    names_of_periods = ", ".join(roster.periods)
    rows = _rows_of(path)
    try:
        header = next(rows)
    except StopIteration:
        raise PayrollError([f"{path}: empty file (expected a header row)"], 2) from None
    except (csv.Error, OSError, ValueError) as error:
        raise PayrollError([f"{path}: cannot be read: {error}"], 2) from error
    names = [_normal(h) for h in header]
    where = {}
    for role, aliases in _COLUMNS.items():
        given = [j for j, name in enumerate(names) if name in aliases]
        if len(given) > 1:
            shown = ", ".join(f"{header[j]!s} (column {j + 1})" for j in given)
            raise PayrollError(
                [f"{path}: {shown}: one {role} column, given {len(given)} times: keep one"], 2
            )
        if given:
            where[role] = given[0]
    repeated = _repeated_months(header, names, set(where.values()), months)
    if repeated:
        raise PayrollError([f"{path}: {repeated}"], 2)
    numbered = {
        int(found.group(1)): j
        for j, h in enumerate(names)
        if (found := _MONTH_NUMBER.match(h)) and 1 <= int(found.group(1)) <= months
    }
    calendar_columns = {
        j: month
        for j, h in enumerate(header)
        if j not in where.values() and (month := _month_of(h)) is not None and _normal(h)
    }
    if "employee" not in where:
        raise PayrollError(
            [f"{path}: no employee column (one of: {', '.join(_COLUMNS['employee'])})"], 2
        )
    long = "hours" in where and "month" in where
    if not long and len(numbered) == months and "period" not in where:
        raise PayrollError(
            [f"{path}: month columns 1-{months} need a period column ({names_of_periods})"], 2
        )
    if not long and len(numbered) != months and not calendar_columns:
        raise PayrollError(
            [
                f"{path}: expected one row per employee and month (columns employee, month, "
                f"hours) or one row per employee with {months} month columns (1 ... {months} "
                "with a period column, or calendar months such as 2023-04); found columns: "
                + ", ".join(str(h) for h in header)
            ],
            2,
        )
    calendar = _Calendar(roster, start)
    if not long and not numbered and calendar.start is None:
        needs = calendar.needs()
        raise PayrollError([f"{path}: its month columns are calendar months: {needs}"], 2)
    employees: dict[str, _Employee] = {}
    refused: list[str] = []
    count = 0
    for number, row in enumerate(rows, 2):
        if count >= MAX_ROWS:
            raise PayrollError([f"{path}: more than {MAX_ROWS:,} rows"], 2)
        if all(is_blank(cell) for cell in row):
            continue
        count += 1
        problems = _read_row(
            row, number, where, numbered, calendar_columns, long, calendar, employees, roster
        )
        if len(refused) < MAX_REFUSED:
            refused += [f"{path.name} row {number}: {problem}" for problem in problems]
    refused += _lookalikes(employees, path.name)
    for employee in employees.values():
        for (period, m), total in employee.hours.items():
            try:
                roster.hours_rule.parse(total, "hours")
            except InputError:
                lines = ", ".join(map(str, employee.rows[(period, m)]))
                refused.append(
                    f"{path.name} rows {lines}: {employee.name}, {period} month {m}: the "
                    f"hours sum to {_plain(total)}: {roster.hours_rule.rule} "
                    f"({roster.hours_rule.citation})"
                )
    if refused:
        raise PayrollError(refused, 1)
    if not employees:
        raise PayrollError([f"{path}: no payroll rows"], 1)
    notes = [
        f"{path.name}: no {flag} column: no employee is taken as {flag}; mark them in a "
        f"{flag} column (yes/no), or they count as new positions ({roster.flag_citation})"
        for flag in ("temporary", "excluded")
        if flag not in where
    ]
    if calendar.outside:
        left = sorted(calendar.outside)
        shown = ", ".join(f"{y:04d}-{m:02d}" for y, m in left[:12])
        more = f" and {len(left) - 12} more" if len(left) > 12 else ""
        notes.append(
            f"{path.name}: {len(left)} calendar month(s) outside the "
            f"{_count(len(roster.periods))} periods ({calendar.shown}) left out: {shown}{more}"
        )
    return Payroll([_entry(e, roster) for e in employees.values()], count, notes)


#: The most refused rows named (the rest are counted, not kept).
MAX_REFUSED = 1_000


def _repeated_months(
    header: Sequence[object], names: Sequence[str], taken: set[int], months: int
) -> str:
    """Why the month columns are ambiguous (one month given by two columns), or ""."""
    seen: dict[object, int] = {}
    for j, (cell, name) in enumerate(zip(header, names, strict=False)):
        if j in taken or not name:
            continue
        found = _MONTH_NUMBER.match(name)
        month: object = (
            int(found.group(1)) if found and 1 <= int(found.group(1)) <= months else None
        )
        if month is None:
            month = _month_of(cell)
        if month is None:
            continue
        if month in seen:
            return (
                f"columns {seen[month] + 1} and {j + 1} ({header[seen[month]]!s}, {cell!s}) "
                "give the same month: keep one"
            )
        seen[month] = j
    return ""


def _same_name(name: str) -> str:
    """A name as a person reads it: its compatibility form (fullwidth letters as
    letters), without format characters (zero-width spaces, direction marks), spaces
    collapsed, case folded."""
    import unicodedata

    text = unicodedata.normalize("NFKC", name)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(text.split()).casefold()


def _lookalikes(employees: dict[str, _Employee], where: str) -> list[str]:
    """Each set of names that differ only in case, width, spacing or invisible
    characters: counted as different employees, they would be one person counted twice."""
    groups: dict[str, list[_Employee]] = {}
    for employee in employees.values():
        groups.setdefault(_same_name(employee.name), []).append(employee)
    found = []
    for group in groups.values():
        if len(group) > 1:
            shown = ", ".join(
                f"{e.name!r} (row {min(r for rows in e.rows.values() for r in rows)})"
                if e.rows
                else f"{e.name!r}"
                for e in group
            )
            found.append(
                f"{where}: {shown}: one name spelled {len(group)} ways (case, width, spacing "
                "or invisible characters): spell each employee one way"
            )
    return found


def _plain(number: Decimal) -> str:
    return f"{number.normalize():f}"


def _cell(row: Sequence[object], j: int | None) -> object:
    return row[j] if j is not None and j < len(row) else None


def _read_row(
    row: Sequence[object],
    number: int,
    where: dict[str, int],
    numbered: dict[int, int],
    calendar_columns: dict[int, tuple[int, int]],
    long: bool,
    calendar: _Calendar,
    employees: dict[str, _Employee],
    roster: Roster,
) -> list[str]:
    """Add one row's hours to its employee; the reasons it is refused (then nothing of
    it is added)."""
    uncached = [
        f"column {j + 1}: the formula {cell.formula[:40]} has no saved value (the file was "
        "written by a program that does not calculate): open and save it in Excel, or "
        "give the number"
        for j, cell in enumerate(row)
        if isinstance(cell, Uncached)
    ]
    if uncached:
        return uncached
    name = _cell(row, where["employee"])
    if is_blank(name):
        return ["no employee (the employee column is blank)"]
    shown = str(name).strip()
    if len(shown) > 255:
        return [f"employee {shown[:40]!r}...: a name of at most 255 characters"]
    problems: list[str] = []
    flags = {}
    for flag in ("temporary", "excluded"):
        value = _cell(row, where.get(flag))
        if is_blank(value):
            continue
        try:
            flags[flag] = InputRule(InputKind.BOOLEAN, roster.flag_citation).parse(value, flag)
        except InputError as error:
            problems.append(str(error))
    period_text = _cell(row, where.get("period"))
    period = None
    if not is_blank(period_text):
        period = _period_named(roster, _normal(period_text))
        if period is None:
            problems.append(
                f"period {str(period_text)!r}: not one of {', '.join(roster.periods)} "
                f"({_labels(roster)})"
            )
    found: list[tuple[str, int, object]] = []
    if long:
        month = _cell(row, where["month"])
        placed = _place(month, period, calendar, roster)
        if placed is _OUTSIDE:
            pass  # left out, named in the notes
        elif isinstance(placed, str):
            problems.append(placed)
        else:
            found.append((*placed, _cell(row, where["hours"])))
    elif numbered and len(numbered) == roster.months:
        if period is None and not problems:
            problems.append(
                f"no period ({', '.join(roster.periods)}) for its month columns 1-{roster.months}"
            )
        for m, j in sorted(numbered.items()):
            found.append((period or "", m, _cell(row, j)))
    else:
        for j, (year, month) in sorted(calendar_columns.items()):
            value = _cell(row, j)
            if is_blank(value):
                continue
            placed = calendar.place(year, month)
            if placed is _OUTSIDE:
                continue  # left out, named in the notes
            if isinstance(placed, str):
                problems.append(placed)
            else:
                found.append((*placed, value))
    hours: list[tuple[str, int, Decimal]] = []
    for period_key, m, value in found:
        if is_blank(value):
            continue
        try:
            hours.append((period_key, m, roster.hours_rule.parse(value, "hours")))
        except InputError as error:
            problems.append(f"{shown}, {period_key} month {m}: {error}")
    if problems:
        return problems
    if not found and calendar.outside and shown not in employees:
        return []  # only months outside the periods (so far): no employee of the roster
    employee = employees.setdefault(shown, _Employee(shown))
    employee.temporary = employee.temporary or flags.get("temporary", False)
    employee.excluded = employee.excluded or flags.get("excluded", False)
    for period_key, m, value in hours:
        key = (period_key, m)
        employee.hours[key] = employee.hours.get(key, Decimal(0)) + value
        employee.rows.setdefault(key, []).append(number)
    return []


def _period_named(roster: Roster, name: str) -> str | None:
    """The period ``name`` (normalized) names: its key, or one of its other names."""
    if name in roster.periods:
        return name
    return roster.period_names.get(name)


def _place(
    month: object, period: str | None, calendar: _Calendar, roster: Roster
) -> tuple[str, int] | str:
    """A long row's month as (period, month number), or why not."""
    if is_blank(month):
        return "no month"
    text = str(month).strip()
    if isinstance(month, bool):
        return f"month {text}: not a month (1-{roster.months} of a period, YYYY-MM or a date)"
    if isinstance(month, (int, float, Decimal)) or re.fullmatch(r"\d{1,2}(?:\.0*)?", text):
        number = float(month) if isinstance(month, (int, float, Decimal)) else float(text)
        if not number.is_integer():
            return (
                f"month {text}: not a whole month (1-{roster.months} of a period, YYYY-MM "
                "or a date)"
            )
        m = int(number)
        if not 1 <= m <= roster.months:
            return f"month {text!r}: not a month (1-{roster.months} of a period, YYYY-MM or a date)"
        if period is None:
            return f"month {m} needs a period ({', '.join(roster.periods)})"
        return period, m
    calendar_month = _month_of(month)
    if calendar_month is None:
        return f"month {text!r}: not a month (1-12 of a period, YYYY-MM or a date)"
    placed = calendar.place(*calendar_month)
    if isinstance(placed, tuple) and period is not None and placed[0] != period:
        return f"month {text} is in the {placed[0]} period, not in {period}"
    return placed


def _entry(employee: _Employee, roster: Roster) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": employee.name,
        "temporary": employee.temporary,
        "excluded": employee.excluded,
    }
    for period in roster.periods:
        entry[period] = [
            _number(employee.hours.get((period, m))) for m in range(1, roster.months + 1)
        ]
    return entry


def _number(value: Decimal | None) -> int | float | None:
    if value is None:
        return None
    return int(value) if value == value.to_integral_value() else float(value)


def employees_text(employees: Iterable[dict[str, Any]]) -> str:
    """``12 employees`` (for messages)."""
    count = sum(1 for _ in employees)
    return f"{count:,} employee{'s' if count != 1 else ''}"
