"""The calculation memo: what a recalculated workbook computed, and why, for a reviewer.

:func:`build_memo` lays it out in the order a reviewer reads it:

- page 1, the summary: a boxed warning for each workbook whose master check is not TRUE
  (naming the checks that fail), the engagement (the defined names ``EngagementClient``
  ... ``EngagementDate`` of each template's Inputs; blank where absent), each workbook's
  master check and key figures (its Outputs, with the Form 313 part and line the template
  writes beside them: :func:`where_on_form`), the law versions modelled (from
  :mod:`nj_incentives.core.parameters`), the switches each workbook sets (the switches
  table of ``docs/interpretations.md``: :mod:`.summary`) and the sign-off block;
- the schedules, each workbook on a new page: the file (SHA-256, template, version,
  inputs hash, the checks' count when all pass), its failing checks, its inputs (not the
  engagement and sign-off fields page 1 shows; blank rows and columns named, not drawn),
  its outputs and the tables it computes;
- Appendix A, the steps: by default (``steps="summary"``) only the NJ_* results the
  page 1 figures are computed from (:mod:`.trace`), each function's results together; with
  ``steps="all"`` every NJ_* formula cell with the function's result and every step. The
  steps are the core's own: each NJ_* call's arguments are read back from the
  recalculated workbook (literals, cells, ranges and defined names, the values the engine
  passed) and given to ``functions.CATALOG[name].result``. A call whose result is not what its
  cell shows (the other branch of an ``IF``) is listed as not used; results of at most
  three steps are one table; a result of nothing but 0.00 is one line; the results
  those take as given whose steps ask the same questions of each employee (the average
  positions) are summarised, each yes/no question counted, then their totals;
- Appendix B, the interpretations of the law the functions applied, from
  ``docs/interpretations.md`` (a copy ships in the package, so an installed copy quotes
  them too): named by default, quoted in full with ``steps="all"``, rendered (bold,
  lists, code), not shown as raw Markdown.

One document (the blocks below), three formats: Markdown and HTML from the Jinja2
templates in ``nj_incentives/workpapers/memo/templates``, and a paginated PDF drawn from the same
blocks with fpdf2 (pure Python: a plain ``pip install`` on Windows, macOS and Linux; see
docs/install.md): US Letter, the engagement and the title on every page, "Page x of y",
the version, date, preparer and reviewer in the footer (each workbook's pages its own;
the summary and the interpretations every workbook's), table headers repeated on each
page; the HTML's print CSS does the same with ``@page`` margin boxes, one named page per
engagement (:meth:`Memo.sections`). A table wider than :data:`MAX_COLUMNS` (the
40-column hours of Form 313 Part II) is shown in parts that repeat its label columns:
wrapped, never cut.

Everything taken from a workbook is escaped: in HTML by ``html.escape``, in Markdown by
entity-escaping ``& < >`` and backslash-escaping the characters Markdown would act on, so
a cell's text can neither run as markup nor break a table; the PDF draws text, never
markup.

The package, by role: :mod:`.document` (the blocks), :mod:`.sheets` (cell values and the
sheets read), :mod:`.calls` (the NJ_* calls re-evaluated), :mod:`.interpretations`,
:mod:`.build` (the memo's content), :mod:`.summary` (law, switches, sign-off), :mod:`.trace`
(the results behind a figure), :mod:`.markup` (Markdown and HTML), :mod:`.pdf`, and
:mod:`.write` (to a file by extension). Every public name is importable from here.
"""

from __future__ import annotations

from nj_incentives.workpapers.memo.build import (
    MAX_COLUMNS,
    STEPS,
    WorkbookFacts,
    build_memo,
    facts,
    where_on_form,
    with_unit,
    wrapped,
)
from nj_incentives.workpapers.memo.calls import (
    Call,
    NJResult,
    cell_label,
    defined_names,
    formula_calls,
    nj_results,
)
from nj_incentives.workpapers.memo.document import (
    NUMBER_CELL,
    Block,
    Code,
    Heading,
    Items,
    Memo,
    PageBreak,
    Paragraph,
    Quote,
    Section,
    Table,
    is_numeric,
    padded,
)
from nj_incentives.workpapers.memo.interpretations import (
    INTERPRETATIONS,
    interpretation_sections,
    interpretations_text,
)
from nj_incentives.workpapers.memo.markup import to_html, to_markdown
from nj_incentives.workpapers.memo.pdf import to_pdf
from nj_incentives.workpapers.memo.sheets import (
    ENGAGEMENT_FIELDS,
    about,
    check_line,
    checks,
    display,
    engagement,
    input_sheets,
    inputs_blocks,
    labelled_values,
    master_check,
    number_formats,
    sha256,
    sheet_rows,
)
from nj_incentives.workpapers.memo.write import FORMATS, render, write_memo

__all__ = [
    "ENGAGEMENT_FIELDS",
    "FORMATS",
    "INTERPRETATIONS",
    "MAX_COLUMNS",
    "NUMBER_CELL",
    "STEPS",
    "Block",
    "Call",
    "Code",
    "Heading",
    "Items",
    "Memo",
    "NJResult",
    "PageBreak",
    "Paragraph",
    "Quote",
    "Section",
    "Table",
    "WorkbookFacts",
    "about",
    "build_memo",
    "cell_label",
    "check_line",
    "checks",
    "defined_names",
    "display",
    "engagement",
    "facts",
    "formula_calls",
    "input_sheets",
    "inputs_blocks",
    "interpretation_sections",
    "interpretations_text",
    "is_numeric",
    "labelled_values",
    "master_check",
    "nj_results",
    "number_formats",
    "padded",
    "render",
    "sha256",
    "sheet_rows",
    "to_html",
    "to_markdown",
    "to_pdf",
    "where_on_form",
    "with_unit",
    "wrapped",
    "write_memo",
]
