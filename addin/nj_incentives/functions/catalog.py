"""The catalog: every NJ_* calculation's name, description, citation, arguments (with
their help text and how their cells are read), example and result columns, declared once.

Each program declares its own in its folder (``programs/<key>/functions.py``, in the
vocabulary of :mod:`nj_incentives.core.declarations`); this module joins them in the
registry's order (:data:`nj_incentives.programs.PROGRAMS`), then declares the functions
that belong to no program (``NJ_INPUT``, ``NJ_SCENARIOS``, ``NJ_EXPLAIN`` ...). A program
registered is in the catalog: nothing here names one, except the result columns kept
under their old names for the modules that import them from here.

Everything that shows or checks a calculation's shape reads it from here: the function
table (:mod:`nj_incentives.functions`, which serves each calculation with its adapter:
:data:`ADAPTERS`, declared beside it), the Excel module that decorates that table,
``NJ_EXPLAIN`` and the memo (through the table), the
function reference (:mod:`nj_incentives.functions.reference` -> ``docs/functions.md``), the
scenario runner's per-period result columns (:mod:`nj_incentives.scenarios.columns`) and the
templates' tables. Pure data: no xlwings.
"""

from __future__ import annotations

from nj_incentives.core.declarations import (
    Adapter,
    Argument,
    Calculation,
    Catalog,
    ResultColumn,
    a_date,
    each,
    each_date,
    grid,
    headers,
    joined,
    law_date,
    listed,
    raw,
    result_table,
    single,
    switch,
)
from nj_incentives.programs import PROGRAMS, program

__all__ = [
    "ADAPTERS",
    "BASE_YEAR_COLUMNS",
    "BEIP_LAW",
    "CALCULATIONS",
    "CBT_FORM",
    "CONVERSION_SCHEDULE_COLUMNS",
    "CONVERSION_YEAR_COLUMNS",
    "CREDIT_YEARS_COLUMNS",
    "ERTC_LAW",
    "ERTC_PERIOD_COLUMNS",
    "ERTC_SCHEDULE_COLUMNS",
    "EXPLAIN_COLUMNS",
    "GENERAL",
    "GRANT_SCHEDULE_COLUMNS",
    "GRANT_YEAR_COLUMNS",
    "Argument",
    "Calculation",
    "ResultColumn",
    "a_date",
    "calculation",
    "each",
    "each_date",
    "grid",
    "headers",
    "law_date",
    "raw",
    "result_table",
    "single",
]

# The programs' result columns and citations, under the names the rest of the package
# imports them by (each declared in its program's functions.py).
_BEIP = program("beip").part("functions")
_ERTC = program("ertc").part("functions")
_CBT = program("cbt").part("functions")
BEIP_LAW: str = _BEIP.BEIP_LAW
ERTC_LAW: str = _ERTC.ERTC_LAW
CBT_FORM: str = _CBT.CBT_FORM
GRANT_SCHEDULE_COLUMNS: tuple[ResultColumn, ...] = _BEIP.GRANT_SCHEDULE_COLUMNS
CONVERSION_SCHEDULE_COLUMNS: tuple[ResultColumn, ...] = _BEIP.CONVERSION_SCHEDULE_COLUMNS
GRANT_YEAR_COLUMNS: tuple[ResultColumn, ...] = _BEIP.GRANT_YEAR_COLUMNS
CONVERSION_YEAR_COLUMNS: tuple[ResultColumn, ...] = _BEIP.CONVERSION_YEAR_COLUMNS
ERTC_SCHEDULE_COLUMNS: tuple[ResultColumn, ...] = _ERTC.ERTC_SCHEDULE_COLUMNS
ERTC_PERIOD_COLUMNS: tuple[ResultColumn, ...] = _ERTC.ERTC_PERIOD_COLUMNS
CREDIT_YEARS_COLUMNS: tuple[ResultColumn, ...] = _ERTC.CREDIT_YEARS_COLUMNS
BASE_YEAR_COLUMNS: tuple[ResultColumn, ...] = _ERTC.BASE_YEAR_COLUMNS

EXPLAIN_COLUMNS = (
    ResultColumn("Step", "label", "text", "What the step computes"),
    ResultColumn("Value", "value", "value", "The step's figure"),
    ResultColumn("Arithmetic", "arithmetic", "text", "How it was computed"),
    ResultColumn("Citation", "citation", "text", "The law it applies"),
)

#: The functions of no program (input reading, version, hash, scenarios, explanations).
GENERAL = Catalog()
calculation = GENERAL.calculation


#: The kinds NJ_INPUT reads (nj_incentives.core.inputs.InputKind's values; a test checks).
_INPUT_KINDS = ("money", "fraction", "count", "number", "quantity", "date", "boolean", "choice")


calculation(
    "NJ_INPUT",
    cite="",
    description=(
        "An input read as every NJ_ function reads its kind (money, fraction, count, number, "
        'quantity, date, boolean, choice): "40%" is 0.4, "320,000.00" is 320000; a range '
        "cell by cell; a refused value is the error naming the input, the rule and citation."
    ),
    example=("fraction", "pct", "40%", 0, 0.8),
    optional=("value", "low", "high", "citation", "rule", "choices"),
    kind=switch(
        'How the value is read: "money", "fraction", "count", "number", "quantity", '
        '"date", "boolean" or "choice"',
        _INPUT_KINDS,
    ),
    input_name=single('The input\'s name, for the message (e.g. "Term")'),
    value=raw("The input: a cell or a range (read cell by cell); blank cells stay blank"),
    low=single("Lowest value allowed; blank = none beyond the kind's own"),
    high=single("Highest value allowed; blank = none beyond the kind's own"),
    citation=single(
        "What a refusal cites (the law or the reading); blank = NJ_INPUT's own reference"
    ),
    rule=single("The rule as a refusal states it; blank = the bounds in words"),
    choices=single('A choice\'s allowed words, separated by "|"'),
)


calculation(
    "NJ_INPUT_REFUSED",
    cite="",
    description=(
        "The first cell of an input range that NJ_INPUT would refuse, as its message: the "
        "cell (by the range's address), the value, the rule and citation; blank when every "
        "cell is blank or read. One call checks a whole range (a roster of 250 x 12)."
    ),
    example=("quantity", "'Hours'!B2:M3", [[160, 160], [-5, 0]], 0, 744),
    optional=("value", "low", "high", "citation", "rule", "choices"),
    kind=switch(
        'How each cell is read: "money", "fraction", "count", "number", "quantity", '
        '"date", "boolean" or "choice"',
        _INPUT_KINDS,
    ),
    input_name=single(
        "The range's address as text (\"'Sheet'!D6:O255\"): a refused cell is named by "
        "its own address; other text names cells name[1], name[2] ... along the rows"
    ),
    value=raw("The range, read cell by cell; blank cells are accepted"),
    low=single("Lowest value allowed; blank = none beyond the kind's own"),
    high=single("Highest value allowed; blank = none beyond the kind's own"),
    citation=single(
        "What a refusal cites (the law or the reading); blank = NJ_INPUT's own reference"
    ),
    rule=single("The rule as a refusal states it; blank = the bounds in words"),
    choices=single('A choice\'s allowed words, separated by "|"'),
)


calculation(
    "NJ_INCENTIVES_VERSION",
    cite="",
    description=(
        "Version of nj-incentives and the statutes as amended that it implements (the law it is "
        "current to)."
    ),
    example=(),
    optional=("part",),
    part=switch(
        'Blank = both; "version" = the package version; "law" = the law current to',
        ("version", "law"),
    ),
)


calculation(
    "NJ_INPUTS_HASH",
    cite="",
    description=(
        "Hash of a workbook's inputs as the input rules read them (a reformat leaves it "
        "unchanged): a sign-off stores it, the Checks sheet compares it (docs/filling.md)."
    ),
    example=("mp", 600000, 0.5),
    vararg="inputs",
    kinds=single(
        "One letter per range, its kind: t text, m money, p percent, d date, c count, y year, "
        'n number, b yes/no, h choice (e.g. "mpd")'
    ),
    inputs=single("The input ranges, in the order of the letters"),
)


calculation(
    "NJ_SCENARIOS",
    cite="",
    description=(
        "Runs a scenario table on the calculation core (N.J.S.A. 34:1B-129, 52:27BBB-55) and "
        "spills the results with a header row; a bad row's message is in its error column."
    ),
    example=([["id", "accrual_year", "conversion_amount"], ["A", 2012, 1250000]],),
    table=raw(
        "Scenario table: a header row of column names (docs/scenarios.md), then one "
        "scenario per row"
    ),
)


calculation(
    "NJ_EXPLAIN",
    cite="",
    description=(
        f"Steps behind an NJ_ function's result: {listed(EXPLAIN_COLUMNS)}; each step with"
        " its citation."
    ),
    columns=EXPLAIN_COLUMNS,
    example=("NJ_BEIP_GRANT", 1250000, 0.2),
    vararg="args",
    function_name=single('Name of the NJ_ function to explain, e.g. "NJ_BEIP_GRANT"'),
    args=single("That function's arguments, in its order"),
)


#: Each registered program's catalog (in the registry's order), then :data:`GENERAL`.
_CATALOGS = [
    *(found.part("functions").FUNCTIONS for found in PROGRAMS if found.has("functions")),
    GENERAL,
]

#: Every calculation, by Excel name, in catalog order: each registered program's (in the
#: registry's order), then :data:`GENERAL`.
CALCULATIONS: dict[str, Calculation] = joined(_CATALOGS)

#: The adapters the programs declare beside their calculations (``@FUNCTIONS.adapter``), by
#: Excel name, in catalog order: the function table serves each (those of the functions
#: of no program are the table's own).
ADAPTERS: dict[str, Adapter] = {
    name: adapter for catalog in _CATALOGS for name, adapter in catalog.adapters.items()
}
