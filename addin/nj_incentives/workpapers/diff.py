"""Two versions of a workpaper side by side: ``nj-incentives diff A.xlsx B.xlsx``.

Last year's workpaper against this year's (its rolled-forward successor), a workbook
before and after a change, or one workbook computed under two ``--law-as-of`` dates:
each is recalculated as ``calc`` recalculates it (:func:`nj_incentives.workpapers.api.calc`),
and compared section by section, each difference with its cause:

- **inputs** (each input of the template, a table column row by row), the rows of a
  period table aligned by their period: by the table's row keys (the conversion's
  years), by its period ends (the ERTC's ``PeriodEnds``: a roll forward that dropped the
  oldest period moved every row up), else by row number; a row only one side has is
  "added in B" / "not in B";
- **switches**: the inputs that set a reading of the law (docs/interpretations.md,
  "Switches"), with the reading's section;
- **the law applied**: ``--law-as-of`` of each side and the acts it names;
- **outputs** (by defined name, else label): each changed figure's cause is what else
  changed: the law applied, a switch (a reading), the inputs (named), or, when nothing
  else did, the package (a different version computed it);
- **the return** (the template's ``RETURN``, as ``calc --return YEAR`` prints it): for
  each tax year both workbooks cover (or the one asked for), each return line (form,
  edition, line, label) side by side with B - A and the cause (as an output's); a
  changed line is also a difference (section "return line");
- **engagement** and **sign-offs** (who signed, when, whether stale).

:func:`compare` returns a :class:`Comparison`; :func:`text`, :func:`as_json` and
:func:`html` render it (the HTML a memo-style report, printable to PDF by a browser).
"""

from __future__ import annotations

import datetime as dt
import html as html_escape
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nj_incentives.core.workpaper import column_values

__all__ = ["Comparison", "Difference", "ReturnRow", "as_json", "compare", "html", "text"]

#: The tax years looked for in a workbook's return when no ``tax_year`` is asked for
#: (CBT-100 numbering): a template's ``RETURN`` gives None for a year it holds no
#: period of, so the years a workbook covers are those it answers for.
TAX_YEARS_LOOKED_FOR = range(1990, 2101)


@dataclass(frozen=True)
class Difference:
    """One difference: its section, what (an input, an output, a switch ...), the two
    values (None: absent on that side) and its cause."""

    section: str
    name: str
    a: Any
    b: Any
    cause: str


@dataclass(frozen=True)
class ReturnRow:
    """One return line of one tax year, side by side: where it goes (``form``,
    ``edition``, ``part``, ``line``, ``where``: None for a figure no form line holds),
    its ``label``, the two amounts in dollars (None: not computed, or not on that side),
    ``difference`` B - A (None unless both are computed) and the ``cause`` ("" the same)."""

    tax_year: int
    label: str
    form: str | None
    edition: int | None
    part: str | None
    line: str | None
    where: str | None
    a: float | None
    b: float | None
    difference: float | None
    cause: str

    @property
    def changed(self) -> bool:
        return bool(self.cause)


@dataclass
class Comparison:
    """Two workbooks (or one under two laws) compared (:func:`compare`)."""

    a: dict[str, Any]
    b: dict[str, Any]
    differences: list[Difference] = field(default_factory=list)
    #: how each period table's rows were aligned ("PeriodEnds: by period end")
    aligned: list[str] = field(default_factory=list)
    #: the return lines of each tax year compared (:class:`ReturnRow`), by year
    returns: list[ReturnRow] = field(default_factory=list)
    #: the return's tax years one side covers and the other not, and why none compared
    return_notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> int:
        """0 the same, 1 they differ (as ``diff``)."""
        return 1 if self.differences else 0


def _plain(value: object, kind: str = "") -> Any:
    """A cell's value for comparison and JSON: a date as ISO text, an integral float as
    an int, money to the cent, blank as None."""
    from nj_incentives.core.cells import date_from_serial

    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, dt.date):
        return value.isoformat()
    if kind == "date" and isinstance(value, (int, float)) and not isinstance(value, bool):
        day = date_from_serial(float(value))
        return day.isoformat() if day is not None else value
    if isinstance(value, float):
        return int(value) if value.is_integer() else round(value, 10)
    if isinstance(value, str):
        return value.strip()
    return value


def _inputs(result: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(template, name -> value or column, name -> its TemplateInput) of a workbook."""
    from nj_incentives.workpapers.fill import FillError, resolve_template, template_inputs

    recalc = result.recalculation
    try:
        template = resolve_template(result.path)  # its property, or its sheets
        declared = template_inputs(template)
    except FillError:  # not one of the shipped templates: no inputs to compare
        return "", {}, {}
    values: dict[str, Any] = {}
    for name, item in declared.items():
        if item.kind == "roster" or name.startswith("Engagement"):
            continue
        raw = recalc.names.get(name)
        if item.rows:
            values[name] = [_plain(v, item.kind) for v in column_values(raw)]
        else:
            values[name] = _plain(raw[0][0] if isinstance(raw, list) and raw else raw, item.kind)
    return template, values, declared


def _row_keys(
    values: Mapping[str, Any], declared: Mapping[str, Any]
) -> tuple[dict[int, str], dict[int, list[Any]]]:
    """For each table size (rows), how its rows are aligned: its name, and each row's key."""
    how: dict[int, str] = {}
    keys: dict[int, list[Any]] = {}
    for item in declared.values():
        if not item.rows or item.rows in how:
            continue
        if item.row_keys:
            how[item.rows] = "by year"
            keys[item.rows] = list(item.row_keys)
    for name, item in declared.items():
        if item.rows and item.rows not in how and item.kind == "date" and name.endswith("Ends"):
            how[item.rows] = f"{name}: by period end"
            keys[item.rows] = list(values.get(name) or [])
    return how, keys


def _rows(
    column: Sequence[Any], rows: int, how: Mapping[int, str], keys: Mapping[int, list[Any]]
) -> dict[str, Any]:
    """A table column as row key -> value (blank rows left out)."""
    found: dict[str, Any] = {}
    row_keys = keys.get(rows)
    for n, value in enumerate(column):
        if value is None:
            continue
        key = row_keys[n] if row_keys is not None and n < len(row_keys) else None
        label = str(key) if key is not None and how.get(rows) else f"row {n + 1}"
        found[label] = value
    return found


def _switch_names(result: Any) -> dict[str, str]:
    """Each input that sets a switch -> the section of docs/interpretations.md."""
    from nj_incentives.workpapers.memo.interpretations import interpretations_text
    from nj_incentives.workpapers.memo.summary import switches

    try:
        table = switches(interpretations_text())
    except (OSError, ValueError):
        return {}
    return {name: switch.section for switch in table for name in switch.names}


def _side(result: Any, template: str, law_as_of: dt.date | None) -> dict[str, Any]:
    from nj_incentives.core import parameters as P

    return {
        "workbook": str(result.path),
        "template": template,
        "law_as_of": None if law_as_of is None else law_as_of.isoformat(),
        "law_applied": P.law_as_of_text(law_as_of),
        "master_check": result.master_check,
        "engagement": result.engagement,
    }


def compare(
    a: str | Path,
    b: str | Path | None = None,
    *,
    law_as_of_a: dt.date | None = None,
    law_as_of_b: dt.date | None = None,
    tax_year: int | None = None,
) -> Comparison:
    """Compare workbook ``a`` with ``b`` (None: ``a`` itself, under ``law_as_of_b``);
    each recalculated under its ``law_as_of`` (None: each call's own law). The return
    lines: of ``tax_year`` (None: each tax year both cover). Raises
    :class:`nj_incentives.workpapers.api.CalcError` when one cannot be recalculated."""
    from nj_incentives.workpapers.api import calc

    first = calc(a, law_as_of=law_as_of_a)
    second = calc(b if b is not None else a, law_as_of=law_as_of_b)
    template_a, inputs_a, declared = _inputs(first)
    template_b, inputs_b, declared_b = _inputs(second)
    found = Comparison(
        _side(first, template_a, law_as_of_a), _side(second, template_b, law_as_of_b)
    )
    differences = found.differences
    if template_a != template_b:
        differences.append(
            Difference("input", "template", template_a, template_b, "a different template")
        )
    how_a, keys_a = _row_keys(inputs_a, declared)
    how_b, keys_b = _row_keys(inputs_b, declared_b)
    found.aligned = sorted(set(how_a.values()) | set(how_b.values()))
    switches = _switch_names(first)
    changed_inputs: list[str] = []
    changed_switches: list[str] = []
    for name in dict.fromkeys([*inputs_a, *inputs_b]):
        item = declared.get(name) or declared_b.get(name)
        left, right = inputs_a.get(name), inputs_b.get(name)
        if item is not None and item.rows:
            rows_a = _rows(left or [], item.rows, how_a, keys_a)
            rows_b = _rows(right or [], item.rows, how_b, keys_b)
            for key in dict.fromkeys([*rows_a, *rows_b]):
                x, y = rows_a.get(key), rows_b.get(key)
                if x == y:
                    continue
                in_b = key in {str(k) for k in keys_b.get(item.rows, [])} or key.startswith("row ")
                if x is None:
                    cause = "added in B"
                elif y is None:
                    cause = "blank in B" if in_b else "not in B (its period not kept)"
                else:
                    cause = "an input changed"
                differences.append(Difference("input", f"{name}[{key}]", x, y, cause))
                if not name.endswith(("Tick", "Source")):
                    changed_inputs.append(f"{name}[{key}]")
            continue
        if left == right:
            continue
        if name in switches:
            differences.append(
                Difference("switch", name, left, right, f"a reading: {switches[name]}")
            )
            changed_switches.append(name)
        else:
            differences.append(Difference("input", name, left, right, "an input changed"))
            if not name.endswith(("Tick", "Source")):
                changed_inputs.append(name)
    law_changed = found.a["law_applied"] != found.b["law_applied"]
    if law_changed:
        differences.append(
            Difference(
                "law",
                "law applied (--law-as-of)",
                _law(law_as_of_a),
                _law(law_as_of_b),
                "the law version applied",
            )
        )
    causes = []
    if law_changed:
        causes.append(f"the law version applied ({_law(law_as_of_a)} -> {_law(law_as_of_b)})")
    if changed_switches:
        causes.append("a reading: " + ", ".join(changed_switches))
    if changed_inputs:
        shown = ", ".join(changed_inputs[:6])
        more = f" and {len(changed_inputs) - 6} more" if len(changed_inputs) > 6 else ""
        causes.append(f"inputs changed: {shown}{more}")
    cause = "; ".join(causes) or "no input, switch or law changed: the package that computed it"
    outputs_b = {(o["name"] or o["label"]): o for o in second.outputs}
    seen = set()
    for record in first.outputs:
        key = record["name"] or record["label"]
        seen.add(key)
        other = outputs_b.get(key)
        x = record["value"] if record.get("error") is None else f"error: {record['error']}"
        y = None if other is None else other["value"]
        if other is not None and other.get("error") is not None:
            y = f"error: {other['error']}"
        if x != y:
            label = f"{key} ({record['label']})" if record["name"] else key
            differences.append(Difference("output", label, x, y, cause if other else "not in B"))
    for key, other in outputs_b.items():
        if key not in seen:
            differences.append(Difference("output", key, None, other["value"], "added in B"))
    _compare_returns(found, first, second, template_a, template_b, tax_year, cause)
    for label in dict.fromkeys([*first.engagement, *second.engagement]):
        x, y = first.engagement.get(label) or None, second.engagement.get(label) or None
        if x != y:
            differences.append(Difference("engagement", label, x, y, "the engagement changed"))
    signed_a = {s["role"]: s for s in first.signoffs}
    signed_b = {s["role"]: s for s in second.signoffs}
    for role in dict.fromkeys([*signed_a, *signed_b]):
        x, y = _signed(signed_a.get(role)), _signed(signed_b.get(role))
        if x != y:
            why = (
                "cleared (a roll forward signs anew)"
                if y == "not signed"
                else "inputs changed since it was signed"
                if "stale" in str(y)
                else "signed again"
            )
            differences.append(Difference("sign-off", role, x, y, why))
    return found


def _return_of(result: Any, template: str) -> Any:
    """``year -> ReturnBlock | None`` of a recalculated workbook (its template's
    ``RETURN``, through the registry, as ``calc --return``), or None: it declares none."""
    import contextlib

    from nj_incentives import programs

    declared = None
    if template:
        with contextlib.suppress(LookupError):
            declared = getattr(programs.template(template), "RETURN", None)
    recalc = result.recalculation
    if declared is None or recalc is None:
        return None

    def read(name: str) -> Any:
        try:
            return recalc.value(name)
        except (KeyError, LookupError, ValueError):
            return None

    return lambda year: declared(read, year)


def _compare_returns(
    found: Comparison,
    first: Any,
    second: Any,
    template_a: str,
    template_b: str,
    tax_year: int | None,
    cause: str,
) -> None:
    """The return lines of each tax year both sides cover (or ``tax_year``), side by
    side, into ``found.returns``; a changed line also into its differences."""
    of_a, of_b = _return_of(first, template_a), _return_of(second, template_b)
    if of_a is None or of_b is None:
        if tax_year is not None or of_a is not None or of_b is not None:
            which = (
                "neither template declares one"
                if of_a is None and of_b is None
                else f"{'A' if of_a is None else 'B'}'s template declares none"
            )
            found.return_notes.append(f"no return compared: {which}")
        return
    years = [tax_year] if tax_year is not None else list(TAX_YEARS_LOOKED_FOR)
    for year in years:
        block_a, block_b = of_a(year), of_b(year)
        if block_a is None and block_b is None:
            if tax_year is not None:
                found.return_notes.append(f"tax year {year}: neither workbook holds a period of it")
            continue
        if block_a is None or block_b is None:
            side = "A" if block_a is None else "B"
            found.return_notes.append(
                f"tax year {year}: not compared ({side} holds no period of it)"
            )
            continue
        lines_a = {(line["label"], line["where"]): line for line in block_a.as_dict()["lines"]}
        lines_b = {(line["label"], line["where"]): line for line in block_b.as_dict()["lines"]}
        for key in dict.fromkeys([*lines_a, *lines_b]):
            left, right = lines_a.get(key), lines_b.get(key)
            line = left or right
            assert line is not None
            x = None if left is None else left["amount"]
            y = None if right is None else right["amount"]
            why = (
                "not in B"
                if right is None
                else "added in B"
                if left is None
                else ""
                if x == y
                else cause
            )
            difference = None if x is None or y is None else round(y - x, 2)
            row = ReturnRow(
                year,
                line["label"],
                line["form"],
                line["edition"],
                line["part"],
                line["line"],
                line["where"],
                x,
                y,
                difference,
                why,
            )
            found.returns.append(row)
            if row.changed:
                where = f" ({row.where})" if row.where else ""
                found.differences.append(
                    Difference("return line", f"{year} {row.label}{where}", x, y, why)
                )


def _law(day: dt.date | None) -> str:
    return f"the law as of {day.isoformat()}" if day else "each period's own law"


def _signed(signoff: Mapping[str, Any] | None) -> str:
    if not signoff or not signoff.get("name"):
        return "not signed"
    stale = " (stale)" if signoff.get("stale") else ""
    return f"{signoff['name']}, {signoff.get('date') or 'no date'}{stale}"


def _shown(value: Any) -> str:
    if value is None:
        return "(blank)"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def as_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison as ``diff --json`` gives it (the JSON Schema's ``diff``)."""
    return {
        "status": comparison.status,
        "a": comparison.a,
        "b": comparison.b,
        "aligned": comparison.aligned,
        "differences": [
            {"section": d.section, "name": d.name, "a": d.a, "b": d.b, "cause": d.cause}
            for d in comparison.differences
        ],
        "return": [
            {
                "tax_year": r.tax_year,
                "label": r.label,
                "form": r.form,
                "edition": r.edition,
                "part": r.part,
                "line": r.line,
                "where": r.where,
                "a": r.a,
                "b": r.b,
                "difference": r.difference,
                "cause": r.cause,
            }
            for r in comparison.returns
        ],
        "return_notes": comparison.return_notes,
    }


def _by_year(rows: Sequence[ReturnRow]) -> dict[int, list[ReturnRow]]:
    years: dict[int, list[ReturnRow]] = {}
    for row in rows:
        years.setdefault(row.tax_year, []).append(row)
    return years


def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def _return_text(comparison: Comparison) -> list[str]:
    """The return section: a year with a changed line side by side, one line each; a
    year without one named in a line."""
    lines: list[str] = []
    years = _by_year(comparison.returns)
    if years or comparison.return_notes:
        lines.append("Return lines (A, B, B - A):")
    quiet: list[tuple[int, int]] = []  # consecutive years without a difference

    def said() -> None:
        if quiet:
            first, count = quiet[0][0], quiet[-1][1]
            years_ = f"tax year {first}" if len(quiet) == 1 else f"tax years {first}-{quiet[-1][0]}"
            each = "" if len(quiet) == 1 else " each"
            lines.append(f"  {years_}: {count} lines{each}, no difference")
            quiet.clear()

    for year, rows in years.items():
        changed = [r for r in rows if r.changed]
        if not changed:
            if quiet and (quiet[-1][0] != year - 1 or quiet[-1][1] != len(rows)):
                said()
            quiet.append((year, len(rows)))
            continue
        said()
        lines.append(f"  tax year {year}: {len(changed)} of {len(rows)} lines differ")
        width = min(60, max(len(r.label) for r in rows))
        for r in rows:
            mark = "*" if r.changed else " "
            lines.append(
                f"  {mark} {r.label:<{width}} {_money(r.a):>16} {_money(r.b):>16} "
                f"{_money(r.difference):>14}" + (f"  [{r.cause}]" if r.changed else "")
            )
            if r.where:
                lines.append(f"      {r.where}")
    said()
    lines += [f"  {note}" for note in comparison.return_notes]
    return lines


def _heading(side: Mapping[str, Any]) -> str:
    law = side["law_applied"]
    return f"{side['workbook']} ({side['template'] or 'not a template'}; law: {law})"


def text(comparison: Comparison) -> str:
    """The comparison as ``diff`` prints it: both sides, then one line a difference."""
    lines = [f"A: {_heading(comparison.a)}", f"B: {_heading(comparison.b)}"]
    if comparison.aligned:
        lines.append("Period rows aligned: " + "; ".join(comparison.aligned))
    if not comparison.differences:
        lines.append("No differences.")
        return "\n".join([*lines, *_return_text(comparison)])
    lines.append(f"{len(comparison.differences)} difference(s):")
    width = min(48, max(len(d.name) for d in comparison.differences))
    for d in comparison.differences:
        lines.append(
            f"  {d.section:<10} {d.name:<{width}}  {_shown(d.a)} -> {_shown(d.b)}  [{d.cause}]"
        )
    return "\n".join([*lines, *_return_text(comparison)])


_STYLE = """
body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 10pt; margin: 2em; }
h1 { font-size: 15pt; margin-bottom: 0.2em; } h2 { font-size: 12pt; margin-top: 1.4em; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #ccc; padding: 3px 6px; text-align: left;
  vertical-align: top; }
th { background: #1f3864; color: white; } td.n { text-align: right; white-space: nowrap; }
.meta td { border: none; padding: 1px 6px; } .none { color: #555; }
.law { font-size: 8pt; color: #333; } td { overflow-wrap: anywhere; }
tr.changed td { background: #fff2cc; } .where { font-size: 8pt; color: #333; }
@page { size: letter; margin: 0.6in; }
"""


def html(comparison: Comparison) -> str:
    """The comparison as a memo-style HTML report: both workbooks, then each section's
    differences with their causes (print it to PDF from a browser)."""

    def esc(value: Any) -> str:
        return html_escape.escape(_shown(value))

    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        "<title>nj-incentives diff</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>Two versions compared</h1>",
        "<table class='meta'>",
    ]
    for side, label in ((comparison.a, "A"), (comparison.b, "B")):
        client = side["engagement"].get("Client", "")
        period = side["engagement"].get("Tax period(s)", "")
        out.append(
            f"<tr><td><b>{label}</b></td>"
            f"<td>{html_escape.escape(Path(side['workbook']).name)}</td>"
            f"<td>{html_escape.escape(side['template'])}</td>"
            f"<td>{html_escape.escape(client)}</td><td>{html_escape.escape(period)}</td></tr>"
        )
        out.append(
            f"<tr><td></td><td colspan='4' class='law'>Master check "
            f"{esc(side['master_check'])}. Law: {html_escape.escape(side['law_applied'])}</td></tr>"
        )
    out.append("</table>")
    if comparison.aligned:
        out.append(
            "<p>Period rows aligned: " + html_escape.escape("; ".join(comparison.aligned)) + "</p>"
        )
    titles = {
        "output": "Outputs",
        "input": "Inputs",
        "switch": "Switches (readings of the law)",
        "law": "The law applied",
        "engagement": "Engagement",
        "sign-off": "Sign-offs",
    }
    for section, title in titles.items():
        rows = [d for d in comparison.differences if d.section == section]
        out.append(f"<h2>{title}</h2>")
        if not rows:
            out.append("<p class='none'>No differences.</p>")
            continue
        out.append("<table><tr><th>What</th><th>A</th><th>B</th><th>Cause</th></tr>")
        for d in rows:
            a, b = (
                f"<td class='n'>{esc(v)}</td>"
                if isinstance(v, (int, float)) and not isinstance(v, bool)
                else f"<td>{esc(v)}</td>"
                for v in (d.a, d.b)
            )
            out.append(
                f"<tr><td>{html_escape.escape(d.name)}</td>{a}{b}"
                f"<td>{html_escape.escape(d.cause)}</td></tr>"
            )
        out.append("</table>")
    out += _return_html(comparison)
    out.append("</body></html>")
    return "\n".join(out)


def _return_html(comparison: Comparison) -> list[str]:
    """The return section of the HTML report: a table per tax year with a changed line
    (every line, the changed ones shaded), a sentence for a year without one."""
    out = ["<h2>The return</h2>"]
    years = _by_year(comparison.returns)
    if not years and not comparison.return_notes:
        out.append("<p class='none'>No return lines (the templates declare none).</p>")
    same = [
        f"{year} ({len(rows)} lines)"
        for year, rows in years.items()
        if not any(r.changed for r in rows)
    ]
    for year, rows in years.items():
        if not any(r.changed for r in rows):
            continue
        out.append(f"<h3>Tax year {year}</h3>")
        out.append("<table><tr><th>Line</th><th>A</th><th>B</th><th>B - A</th><th>Cause</th></tr>")
        for r in rows:
            where = (
                f"<br><span class='where'>{html_escape.escape(r.where)}</span>" if r.where else ""
            )
            out.append(
                f"<tr{' class=changed' if r.changed else ''}>"
                f"<td>{html_escape.escape(r.label)}{where}</td>"
                f"<td class='n'>{_money(r.a)}</td><td class='n'>{_money(r.b)}</td>"
                f"<td class='n'>{_money(r.difference)}</td>"
                f"<td>{html_escape.escape(r.cause)}</td></tr>"
            )
        out.append("</table>")
    if same:
        out.append("<p class='none'>No difference in tax year(s) " + ", ".join(same) + ".</p>")
    out += [f"<p class='none'>{html_escape.escape(note)}</p>" for note in comparison.return_notes]
    return out
