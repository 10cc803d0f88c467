"""``nj-incentives fill TEMPLATE DATA -o OUT.xlsx``: a template filled from data.

TEMPLATE is a template's id (``beip-grant-schedule``, ``beip-credit-conversion``,
``ertc-form-313``), its file name, or a workbook built from one (recognised as
:mod:`nj_incentives.workpapers.recalc.templates` recognises it, whoever saved it). DATA is YAML,
JSON or CSV keyed by the template's input names: the defined names of its input cells
and input-table columns (``AgreementDate``, ``Withholdings``, ``PeriodEnds``), or their
keys in the template's declaration (``agreement_date``); the engagement fields by their
names (``EngagementClient``) or under ``engagement``. A table column takes a list, one
value per row from the first; the ERTC roster takes ``employees`` (a list of ``name``,
``temporary``, ``excluded``, ``base``, ``year1``, ``year2``, the last three twelve
monthly hours each) or a payroll file (``--hours``, :mod:`nj_incentives.workpapers.payroll`).
A CSV has one input a row: its name, then its value (a table column: its values across
the row); a header row ``input,value`` is optional.

Every value is read by the rule of its kind in :mod:`nj_incentives.core.inputs` (the
rules the functions read their arguments by), within the bounds the template declares
from the law's constants (a term of 1 to 10 years, N.J.S.A. 34:1B-129c.), the roster's
hours by :data:`nj_incentives.programs.ertc.rules.HOURS_INPUT`; each refusal names the input, the
value, the rule and the citation of the NJ_* function that reads it. Nothing is written
when any value is refused, or when DATA names an input the template does not have.
The workbook is written by the template's own builder (the same code that builds the
shipped templates), so it is the template with the values in its input cells: Excel's
dynamic-array marking intact, validation, protection and print setup as shipped. A
roster of more than 250 employees continues on further roster sheets per period.

What the inputs mean together (a grant percentage above 50% without smart growth, a
period list out of order) is the functions' to judge, in the workbook: ``nj-incentives
calc OUT.xlsx`` then reports the failed checks with their rules.

Exit status: 0 written; 1 a value or a payroll row refused (each named; nothing
written); 2 not done: an unknown template or input name, a workbook that is not one of
ours, a file missing or unreadable, an output that exists (without ``--force``).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

from nj_incentives import programs
from nj_incentives.core.inputs import (
    InputError,
    InputKind,
    InputRule,
    control_character,
    is_blank,
)
from nj_incentives.core.workpaper import ROSTER_KEY, Roster
from nj_incentives.support.status import (
    EXIT_FAILED,
    EXIT_USAGE,
)

__all__ = [
    "SIGNED_ONLY",
    "TEMPLATE_IDS",
    "FillError",
    "Filled",
    "TemplateInput",
    "check_entries",
    "data_entries",
    "fill",
    "read_data",
    "refuse_open_in_excel",
    "refuse_thousands_in_lists",
    "template_inputs",
]

#: The shipped templates by id, in the registry's order (each program's ``templates``
#: part; :data:`nj_incentives.support.shipped.TEMPLATES` is the same list of files).
TEMPLATE_IDS = tuple(programs.templates())
#: The largest DATA file read (:data:`nj_incentives.workpapers.datafile.MAX_BYTES`).
MAX_DATA_BYTES = 16 * 1024 * 1024
#: Excel's limit for a cell's text that data validation enforces on the text inputs.
MAX_TEXT = 255


class FillError(ValueError):
    """Nothing was written: ``status`` 1 (values refused) or 2 (not done), each reason
    in ``messages``."""

    def __init__(self, messages: Sequence[str], status: int) -> None:
        self.messages = list(messages)
        self.status = status
        super().__init__("\n".join(self.messages))


@dataclass(frozen=True)
class TemplateInput:
    """One input of a template: its defined ``name`` (what DATA and messages use), its
    ``key`` in the builder's values, its rule, and ``rows`` (0: one cell; a table
    column: its rows)."""

    name: str
    key: str
    kind: str
    rule: InputRule | None
    rows: int = 0
    label: str = ""
    low: dt.date | None = None
    high: dt.date | None = None
    #: a table whose rows have keys (a year): DATA may give the column as key -> value
    row_keys: tuple[object, ...] = ()

    def read(self, value: object, shown: str) -> object:
        """The value as the builder writes it, or :class:`InputError` naming ``shown``."""
        if isinstance(value, (list, tuple, Mapping, set, bytes, bytearray)):
            raise InputError(shown, value, "takes one value here, not a list or mapping")
        if is_blank(value):
            return None
        if self.rule is None:  # text
            text = str(value) if isinstance(value, str) else _text(value)
            if len(text) > MAX_TEXT:
                raise InputError(shown, value, f"must be at most {MAX_TEXT} characters")
            if problem := control_character(text):
                raise InputError(shown, value, problem)
            return text
        parsed = self.rule.parse(value, shown)
        if self.rule.kind is InputKind.DATE:
            if (self.low and parsed < self.low) or (self.high and parsed > self.high):
                raise InputError(
                    shown, value, f"must be from {self.low} to {self.high}", self.rule.citation
                )
            return parsed
        if isinstance(parsed, Decimal):
            return int(parsed) if parsed == parsed.to_integral_value() else float(parsed)
        return parsed


@dataclass
class Filled:
    """What :func:`fill` wrote."""

    path: Path
    template: str
    inputs: list[str] = field(default_factory=list)
    employees: int = 0
    roster_sheets: int = 0
    #: what a person should know of what was written (a payroll file's missing flag
    #: column, its months outside the periods; a roster left empty)
    notes: list[str] = field(default_factory=list)
    #: the notes that make the command exit 1 (written, but a figure will be wrong
    #: unless completed: a template's roster left empty)
    incomplete: bool = False


def _text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


# --------------------------------------------------------------------------- templates


def _module(template: str) -> ModuleType:
    """The module declaring ``template`` (its program's ``templates`` part)."""
    return programs.template(template)


def _roster_of(module: ModuleType) -> Roster | None:
    """The template's payroll roster (its module's ``ROSTER``), None if it has none."""
    roster: Roster | None = getattr(module, "ROSTER", None)
    return roster


def _citations(items: Iterable[Any]) -> dict[str, str]:
    """Defined name -> the citation of the first NJ_* function whose formula reads it
    (:func:`nj_incentives.programs.template_inputs.citations`)."""
    from nj_incentives.programs import template_inputs as inputs

    return inputs.citations(items)


def _rule(kind: Any, citation: str, low: Any, high: Any, choices: Sequence[str]) -> Any:
    from nj_incentives.programs import template_inputs as inputs

    return inputs.input_rule(kind, citation, low, high, choices)


def template_inputs(template: str) -> dict[str, TemplateInput]:
    """The inputs of ``template`` (an id of :data:`TEMPLATE_IDS`), by defined name, in
    the order of the template: the engagement fields, then its declaration's inputs."""
    from nj_incentives.core.workpaper import ALL_ENGAGEMENT_FIELDS, InputTable, Item

    module = _module(template)
    items = module.workpaper().items
    roster = _roster_of(module)
    cites = _citations(items)
    found: dict[str, TemplateInput] = {}
    for engagement in ALL_ENGAGEMENT_FIELDS:
        found[engagement.name] = TemplateInput(
            engagement.name,
            f"engagement.{engagement.key}",
            engagement.kind.value,
            _rule(engagement.kind, "", None, None, ()),
            label=engagement.label,
        )
    for item in items:
        if isinstance(item, Item) and not item.formula and item.name and item.key:
            found[item.name] = _input(item.name, item.key, item, cites.get(item.name, ""), 0)
        elif isinstance(item, InputTable):
            spans = {span.name: span for span in item.spans}
            for column in item.columns:
                if not column.key:
                    continue
                if roster and re.search(r"_month_\d+$", column.key):  # the roster's hours
                    rule = roster.hours_rule
                    name = next(iter(spans), "") + "_" + column.key.rsplit("_", 1)[1]
                    found[name] = TemplateInput(
                        name, column.key, "number", rule, len(item.row_labels), column.header
                    )
                    continue
                name = column.name or column.key
                found[name] = _input(
                    name,
                    column.key,
                    column,
                    cites.get(name, ""),
                    len(item.row_labels),
                    item.row_keys,
                )
    if roster:
        found["Employees"] = TemplateInput(
            "Employees", ROSTER_KEY, "roster", None, label=roster.label
        )
    found.update(_source_inputs(items))
    return found


def _source_inputs(items: Sequence[Any]) -> dict[str, TemplateInput]:
    """The tickmark and source cells beside the inputs (``AgreementDateTick``,
    ``AgreementDateSource``; a table's, one per row: ``WithholdingsSource``), text."""
    from nj_incentives.core.workpaper import SOURCE_SUFFIX, TICK_SUFFIX, InputTable, Item
    from nj_incentives.workpapers.templates.builder import source_name

    found: dict[str, TemplateInput] = {}
    for item in items:
        keys: tuple[object, ...] = ()
        if isinstance(item, Item) and not item.formula and item.name:
            base, rows, label = item.name, 0, item.label
        elif isinstance(item, InputTable) and source_name(item):
            base, rows, label = source_name(item), len(item.row_labels), "the table's rows"
            keys = tuple(item.row_keys)  # keyed as its values are ({2012: ...})
        else:
            continue
        for suffix, what in ((TICK_SUFFIX, "tickmark"), (SOURCE_SUFFIX, "source")):
            name = base + suffix
            found[name] = TemplateInput(
                name,
                f"{_SOURCES_KEY}.{name}",
                "text",
                None,
                rows,
                f"{what} of {label}",
                row_keys=keys,
            )
    return found


#: Where the builder's values hold the tickmarks and sources, by their cells' names.
_SOURCES_KEY = "sources"


def _law_rules() -> dict[str, InputRule]:
    from nj_incentives.programs import template_inputs as inputs

    return inputs.law_rules()


def _input(
    name: str, key: str, declared: Any, citation: str, rows: int, row_keys: tuple[object, ...] = ()
) -> TemplateInput:
    low, high = declared.minimum, declared.maximum
    return TemplateInput(
        name,
        key,
        declared.kind.value,
        _law_rules().get(key) or _rule(declared.kind, citation, low, high, declared.choices),
        rows,
        getattr(declared, "label", "") or getattr(declared, "header", ""),
        low if isinstance(low, dt.date) else None,
        high if isinstance(high, dt.date) else None,
        tuple(row_keys),
    )


def resolve_template(template: str | Path) -> str:
    """The template id ``template`` names: an id, a shipped file name, or a workbook of
    ours. Raises :class:`FillError` (status 2) otherwise."""
    text = str(template)
    stem = Path(text).name.removesuffix(".xlsx")
    path = Path(text)
    if stem in TEMPLATE_IDS and not path.is_file():
        return stem
    if not path.exists():
        raise FillError(
            [
                f"{text}: not a template: give one of {', '.join(TEMPLATE_IDS)} or a workbook "
                "built from one"
            ],
            EXIT_USAGE,
        )
    from nj_incentives.workpapers.recalc.safety import UnsafeWorkbookError, vet_workbook
    from nj_incentives.workpapers.recalc.templates import recognise_template, template_id

    try:
        vetted = vet_workbook(path)
    except UnsafeWorkbookError as error:
        raise FillError([f"{path}: refused: {error}"], EXIT_USAGE) from error
    match = recognise_template(vetted)
    if match is None or match.template not in TEMPLATE_IDS:
        named = template_id(vetted)
        why = (
            f"its nj_incentives_template property (docProps/custom.xml) names {named!r}, "
            "which this version does not ship"
            if named
            else "it has no nj_incentives_template property (docProps/custom.xml) and its "
            "sheets and array formulas are none of the shipped templates'"
        )
        raise FillError([f"{path}: not one of the nj-incentives templates: {why}"], EXIT_USAGE)
    return match.template


# --------------------------------------------------------------------------- data


def read_data(path: str | Path) -> list[tuple[str, str, object]]:
    """DATA as (where, input name, value) in file order: ``where`` names the CSV row or
    the key. Read bounded and as typed (:mod:`nj_incentives.workpapers.datafile`: a
    regular file of at most :data:`MAX_DATA_BYTES`, no YAML aliases, no key twice, text
    kept as text). Raises :class:`FillError` (status 2) for a file it cannot read."""
    from nj_incentives.workpapers.datafile import DataError, read_document, read_text

    path = Path(path)
    try:
        suffix = path.suffix.lower()
        if suffix == ".csv":
            return _csv_data(path, read_text(path))
        text = read_text(path) if suffix in (".json", ".yaml", ".yml") else ""
        document = read_document(path, text)
    except DataError as error:
        raise FillError([str(error)], EXIT_USAGE) from error
    if suffix != ".json":
        refuse_thousands_in_lists(text, path)
    if document is None:
        return []
    if not isinstance(document, Mapping):
        raise FillError(
            [f"{path}: expected a mapping of input names to values at the top"], EXIT_USAGE
        )
    return _entries(document, path.name)


#: a number with thousands separators: 600,000 or 1,250,000.50
_THOUSANDS = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w.]|,\d{3}(?!\d))")


def refuse_thousands_in_lists(text: str, path: Path) -> None:
    """YAML reads ``[600,000, 600,000]`` as four numbers, 600, 0, 600, 0 (a comma
    separates a flow list's items, with or without a space): a comma that could be a
    thousands separator in a ``[...]`` list is refused, as ``explain`` refuses it
    (:mod:`nj_incentives.support.lists`), never read as two values."""
    found: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        plain = re.sub(r"'[^']*'|\"[^\"]*\"", "''", line.split(" #", 1)[0])
        if "[" not in plain:
            continue
        if len(found) >= MAX_MESSAGES:
            break
        for match in _THOUSANDS.finditer(plain[plain.index("[") :]):
            found.append(
                f"{path.name} line {number}: {match.group()} in a [...] list: a comma that "
                "could be a thousands separator is refused (YAML would read it as two "
                f"values); write {match.group().replace(',', '')}, or put a space after "
                "a comma that separates two values"
            )
    if found:
        raise FillError(found, EXIT_FAILED)


def refuse_open_in_excel(output: Path) -> None:
    """Refuse to write over a workbook that is open in Excel: Excel keeps an owner file
    beside it while it is open (``~$name.xlsx``; for a long name, ``~$`` in place of its
    first two characters), and overwriting it under Excel loses the user's work at the
    next save (or the user's unsaved work is kept, and ours lost)."""
    if not output.exists():
        return
    for owner in {output.with_name("~$" + output.name), output.with_name("~$" + output.name[2:])}:
        if owner.exists():
            raise FillError(
                [
                    f"{output}: open in Excel ({owner.name} is beside it): close it there, "
                    "then write it again"
                ],
                EXIT_USAGE,
            )


def _entries(document: Mapping[Any, Any], where: str) -> list[tuple[str, str, object]]:
    """A mapping of input names to values as (where, name, value); ``engagement`` may
    hold the engagement fields by their keys."""
    found: list[tuple[str, str, object]] = []
    for key, value in document.items():
        if str(key) == "engagement" and isinstance(value, Mapping):
            found += [(where, f"engagement.{k}", v) for k, v in value.items()]
        elif str(key) in ("sources", "ticks") and isinstance(value, Mapping):
            suffix = "Source" if str(key) == "sources" else "Tick"
            found += [(where, f"{k}{suffix}", v) for k, v in value.items()]
        else:
            found.append((where, str(key), value))
    return found


def data_entries(document: Mapping[Any, Any], where: str) -> list[tuple[str, str, object]]:
    """A mapping of input names to values as DATA's (where, input name, value) entries,
    each message about one to start with ``where`` (``nj_incentives.workpapers.rollforward`` names a
    workbook's cell there)."""
    return _entries(document, where)


def check_entries(
    template: str, entries: Sequence[tuple[str, str, object]]
) -> tuple[dict[str, Any], list[str], list[str], list[str]]:
    """Every entry read by its input's rule, as :func:`fill` reads DATA: (the builder's
    values, the inputs given, unknown names (status 2), refused values (status 1))."""
    return _values(template, entries)


def _csv_data(path: Path, text: str) -> list[tuple[str, str, object]]:
    from nj_incentives.workpapers.datafile import MAX_ITEMS, MAX_KEYS

    found: list[tuple[str, str, object]] = []
    rows = csv.reader(io.StringIO(text, newline=""))
    number = 0
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as error:
            raise FillError(
                [f"{path}: not CSV (row {rows.line_num}: {error})"], EXIT_USAGE
            ) from error
        number += 1
        if len(row) > MAX_ITEMS + 1:
            raise FillError(
                [f"{path} row {number}: more than {MAX_ITEMS:,} values in a row"], EXIT_USAGE
            )
        cells = [cell.strip() for cell in row]
        while cells and not cells[-1]:
            cells.pop()
        if not cells or not cells[0] or cells[0].startswith("#"):
            continue
        if number == 1 and cells[0].lower() in ("input", "name") and cells[1:2] == ["value"]:
            continue
        values: list[object] = [cell or None for cell in cells[1:]]
        found.append(
            (f"{path.name} row {number}", cells[0], values[0] if len(values) == 1 else values)
        )
        if len(found) > MAX_KEYS:
            raise FillError([f"{path}: more than {MAX_KEYS:,} inputs"], EXIT_USAGE)
    return found


# --------------------------------------------------------------------------- filling


def _lookup(inputs: Mapping[str, TemplateInput]) -> dict[str, TemplateInput]:
    """Every spelling DATA may use for an input: its name and key, in any case."""
    table: dict[str, TemplateInput] = {}
    for declared in inputs.values():
        for spelling in (declared.name, declared.key):
            table.setdefault(spelling.lower(), declared)
    return table


#: The sign-off fields DATA may not give (issue 36 item 2): only ``sign`` writes who
#: reviewed, when each signed and the inputs hash each signed. The preparer's name is an
#: engagement field DATA may give (who prepared the data); it is no sign-off until
#: ``sign --preparer`` stores its date and hash, and a reviewer cannot sign over it
#: before that (:func:`nj_incentives.workpapers.signoff.sign`).
SIGNED_ONLY = frozenset(
    {
        "EngagementReviewer",
        "EngagementReviewedOn",
        "EngagementReviewerHash",
        "EngagementPreparedOn",
        "EngagementPreparerHash",
    }
)


def _values(
    template: str, data: Sequence[tuple[str, str, object]]
) -> tuple[dict[str, Any], list[str], list[str], list[str]]:
    """The builder's values from DATA, the inputs given, and the messages: (values,
    given, unknown names (status 2), refused values (status 1))."""
    inputs = template_inputs(template)
    table = _lookup(inputs)
    values: dict[str, Any] = {}
    engagement: dict[str, Any] = {}
    given: list[str] = []
    unknown: list[str] = []
    refused: list[str] = []
    seen: dict[str, str] = {}
    for where, name, value in data:
        if len(unknown) + len(refused) >= MAX_MESSAGES:
            break
        declared = table.get(name.lower())
        if declared is None:
            close = [d.name for d in inputs.values() if d.name.lower().startswith(name.lower()[:4])]
            hint = f" (did you mean {', '.join(close[:3])}?)" if close and len(name) >= 4 else ""
            unknown.append(
                f"{where}: {_short(name)} is not an input of the {template} template{hint}"
            )
            continue
        if declared.name in SIGNED_ONLY:
            unknown.append(
                f"{where}: {declared.name} is a sign-off field, written only by nj-incentives "
                "sign (so that a workbook says it was reviewed only when someone signed it): "
                "remove it from DATA, then sign the filled workbook (nj-incentives sign "
                "WORKBOOK --preparer NAME, then --reviewer NAME)"
            )
            continue
        if declared.name in seen:
            unknown.append(
                f"{where}: {declared.name} is given twice (also at {seen[declared.name]})"
            )
            continue
        seen[declared.name] = where
        given.append(declared.name)
        if declared.kind == "roster":
            roster = _roster_of(_module(template))
            assert roster is not None  # the roster input is declared by a roster
            employees, problems = _roster(roster, value, where)
            refused += problems
            values[ROSTER_KEY] = employees
            continue
        if declared.rows and isinstance(value, Mapping):
            keyed, problems = _keyed_column(declared, value, where)
            refused += problems
            if declared.key.startswith(_SOURCES_KEY + "."):  # sources: one per row, in order
                column = [keyed.get(key) for key in declared.row_keys]
                values.setdefault(_SOURCES_KEY, {})[declared.name] = column
            else:
                values[declared.key] = keyed
            continue
        if declared.rows and declared.key.startswith(_SOURCES_KEY + "."):
            cells = list(value) if isinstance(value, (list, tuple)) else [value]
            try:
                texts = [declared.read(c, f"{declared.name}[{n}]") for n, c in enumerate(cells, 1)]
            except InputError as error:
                refused.append(f"{where}: {error}")
                continue
            if len(texts) > declared.rows:
                refused.append(
                    f"{where}: {declared.name} has {len(texts)} values; its table has "
                    f"{declared.rows} rows"
                )
                continue
            values.setdefault(_SOURCES_KEY, {})[declared.name] = texts
            continue
        if declared.rows:
            cells = list(value) if isinstance(value, (list, tuple)) else [value]
            if len(cells) > declared.rows:
                refused.append(
                    f"{where}: {declared.name} has {len(cells)} values; its table has "
                    f"{declared.rows} rows"
                )
                continue
            read = []
            for n, cell in enumerate(cells, 1):
                try:
                    read.append(declared.read(cell, f"{declared.name}[{n}]"))
                except InputError as error:
                    refused.append(f"{where}: {error}")
            values[declared.key] = read
            continue
        if isinstance(value, (list, tuple, Mapping)):
            refused.append(f"{where}: {declared.name} takes one value, not {type(value).__name__}")
            continue
        try:
            read_value = declared.read(value, declared.name)
        except InputError as error:
            refused.append(f"{where}: {error}")
            continue
        if declared.key.startswith("engagement."):
            engagement[declared.key.split(".", 1)[1]] = read_value
        elif declared.key.startswith(_SOURCES_KEY + "."):
            values.setdefault(_SOURCES_KEY, {})[declared.name] = read_value
        else:
            values[declared.key] = read_value
    if engagement:
        values["engagement"] = engagement
    if len(unknown) + len(refused) >= MAX_MESSAGES:
        (unknown or refused).append(
            f"... and perhaps more: the first {MAX_MESSAGES:,} refusals are shown; nothing "
            "further was read"
        )
    if any(" is not an input of the " in line for line in unknown):  # listed once
        unknown.append(f"the {template} template's inputs: {', '.join(inputs)}")
    return values, given, unknown, refused


#: The most refusals collected from one DATA (the rest are not read).
MAX_MESSAGES = 1_000


def _short(name: str) -> str:
    """An input name as a message shows it (a long one cut)."""
    from nj_incentives.workpapers.datafile import shown

    return shown(name, 60)


def _keyed_column(
    declared: TemplateInput, value: Mapping[Any, Any], where: str
) -> tuple[dict[object, object], list[str]]:
    """A table column given as row key -> value (a year -> an amount)."""
    if not declared.row_keys:
        return {}, [f"{where}: {declared.name} takes a list (one value per row), not a mapping"]
    rows = {str(key): key for key in declared.row_keys}
    keyed: dict[object, object] = {}
    problems = []
    for key, cell in value.items():
        row = rows.get(str(key).strip())
        if row is None:
            first, last = declared.row_keys[0], declared.row_keys[-1]
            problems.append(
                f"{where}: {declared.name}[{key}]: no such row (rows {first} to {last})"
            )
            continue
        try:
            keyed[row] = declared.read(cell, f"{declared.name}[{key}]")
        except InputError as error:
            problems.append(f"{where}: {error}")
    return keyed, problems


def _roster(roster: Roster, value: object, where: str) -> tuple[list[dict[str, Any]], list[str]]:
    """``employees`` from DATA: each a mapping of name, flags and each period's hours."""
    months = roster.months
    name, *flags = (key for key, _, _ in roster.fields)
    periods = list(roster.periods)
    fields = ", ".join([name, *periods])
    if not isinstance(value, (list, tuple)):
        return [], [f"{where}: Employees takes a list of employees ({fields})"]
    flag = InputRule(InputKind.BOOLEAN, roster.flag_citation)
    employees: list[dict[str, Any]] = []
    problems: list[str] = []
    for n, entry in enumerate(value, 1):
        if len(problems) >= MAX_MESSAGES:
            break
        shown = f"Employees[{n}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{where}: {shown} must be a mapping ({fields})")
            continue
        extra = sorted(set(map(str, entry)) - {name, *flags, *periods})
        if extra:
            problems.append(f"{where}: {shown}: unknown field(s) {', '.join(extra)}")
            continue
        employee: dict[str, Any] = {name: _text(entry.get(name) or "")}
        for key in flags:
            try:
                employee[key] = (
                    False
                    if is_blank(entry.get(key))
                    else flag.parse(entry.get(key), f"{shown}.{key}")
                )
            except InputError as error:
                problems.append(f"{where}: {error}")
        for period in periods:
            hours = entry.get(period) or []
            if not isinstance(hours, (list, tuple)) or len(hours) > months:
                problems.append(
                    f"{where}: {shown}.{period} must be a list of {months} monthly hours"
                )
                continue
            read: list[int | float | None] = []
            for m, cell in enumerate([*hours, *[None] * (months - len(hours))], 1):
                if is_blank(cell):
                    read.append(None)
                    continue
                try:
                    parsed = roster.hours_rule.parse(cell, f"{shown}.{period} month {m}")
                except InputError as error:
                    problems.append(f"{where}: {error}")
                    continue
                read.append(int(parsed) if parsed == parsed.to_integral_value() else float(parsed))
            employee[period] = read
        employees.append(employee)
    return employees, problems


def fill(
    template: str | Path,
    data: str | Path | Mapping[str, Any] | None,
    output: str | Path,
    *,
    hours: str | Path | None = None,
    force: bool = False,
    namespace: str = "",
    cache: bool = False,
) -> Filled:
    """Write ``template`` filled with ``data`` to ``output`` (an .xlsx path).

    ``template``: an id of :data:`TEMPLATE_IDS`, its file name, or a workbook built from
    one. ``data``: a DATA file (.yaml, .yml, .json, .csv) or a mapping of input names to
    values (as DATA). ``hours``: a payroll file for the ERTC roster
    (:func:`nj_incentives.workpapers.payroll.read_payroll`). ``force``: replace an existing output.
    ``namespace``: spell the NJ_* functions for an Office.js add-in (``XLWINGS``).
    ``cache``: recalculate it once and store every figure as its cells' cached result
    (as the shipped examples are), so that a viewer that does not recalculate (a file
    preview, LibreOffice, which has no NJ_* functions) shows them.

    Raises :class:`FillError` (nothing written): status 1 when a value or payroll row is
    refused, 2 when the template, an input name or a file is wrong. Example::

        from nj_incentives.workpapers.fill import fill
        fill("beip-grant-schedule", {"AgreementDate": "2010-01-01", "Term": 5,
             "GrantPercent": "50%", "Withholdings": [600000, 600000]}, "grant.xlsx")
    """
    for argument, passed, kinds in (
        ("template", template, (str, Path)),
        ("data", data, (str, Path, Mapping, type(None))),
        ("output", output, (str, Path)),
        ("hours", hours, (str, Path, type(None))),
    ):
        if not isinstance(passed, kinds):
            from nj_incentives.workpapers.datafile import shown

            expected = (
                "a DATA file's path or a mapping of input names to values"
                if argument == "data"
                else "a path"
            )
            raise FillError(
                [f"{argument} = {shown(passed)}: expected {expected}, not {type(passed).__name__}"],
                EXIT_USAGE,
            )
    output = Path(output)
    template_id = resolve_template(template)
    if output.suffix.lower() != ".xlsx":
        raise FillError([f"-o {output}: the filled workbook is written as .xlsx"], EXIT_USAGE)
    if output.exists() and not force:
        raise FillError([f"{output}: exists; not overwriting it (give --force)"], EXIT_USAGE)
    refuse_open_in_excel(output)
    sources = [Path(p) for p in (template, data, hours) if isinstance(p, (str, Path))]
    from nj_incentives.support.files import same_file

    for source in sources:
        if source.exists() and output.exists() and same_file(source, output):
            raise FillError([f"{output}: refusing to overwrite an input file"], EXIT_USAGE)
    if data is None:
        entries: list[tuple[str, str, object]] = []
    elif isinstance(data, Mapping):
        entries = _entries(data, "data")
    else:
        entries = read_data(data)
    values, given, unknown, refused = _values(template_id, entries)
    if unknown:
        raise FillError(unknown, EXIT_USAGE)
    module = _module(template_id)
    roster = _roster_of(module)
    notes: list[str] = []
    if hours is not None:
        if roster is None:
            rostered = [t for t in TEMPLATE_IDS if _roster_of(_module(t))]
            raise FillError(
                [
                    f"--hours: payroll hours fill the {' or '.join(rostered)} roster, not "
                    f"{template_id}"
                ],
                EXIT_USAGE,
            )
        columns = {key for _, _, key in roster.fields}
        if ROSTER_KEY in values or any("_month_" in k or k in columns for k in values):
            raise FillError(
                ["--hours and DATA both give the roster: give it in one place"], EXIT_USAGE
            )
        if not refused:
            from nj_incentives.workpapers.payroll import PayrollError, read_payroll

            start = values.get(roster.calendar_from) if roster.calendar_from else None
            try:
                payroll = read_payroll(hours, roster, start)
            except PayrollError as error:
                raise FillError(error.messages, error.status) from error
            values[ROSTER_KEY] = payroll.employees
            notes += payroll.notes
            given.append("Employees")
    if refused:
        raise FillError(refused, EXIT_FAILED)
    employees = len(values.get(ROSTER_KEY, ()))
    sheets = 0
    if roster:
        sheets = roster.sheets(employees)
        if sheets > roster.most_sheets:
            most = roster.most_sheets * roster.per_sheet
            raise FillError(
                [f"Employees: {employees:,} employees; a workbook holds at most {most:,}"],
                EXIT_FAILED,
            )
    from nj_incentives.support.files import atomic_path

    try:
        with atomic_path(output, protect=sources) as temporary:
            from nj_incentives.workpapers.templates.builder import build_template

            build_template(module, temporary, values, function_namespace=namespace)
            if cache:
                from nj_incentives.workpapers.templates.cached import cache_values

                cache_values(temporary)
    except (OSError, ValueError) as error:
        raise FillError([f"{output}: not written: {error}"], EXIT_USAGE) from error
    incomplete = bool(roster) and employees == 0
    if incomplete:
        notes.append(
            f"{output.name}: written with no roster (no employee, no hours: DATA gives no "
            "Employees and no --hours payroll file): every count of new positions is 0 and "
            "so is the credit until the roster is filled"
        )
    return Filled(output, template_id, given, employees, sheets, notes, incomplete)
