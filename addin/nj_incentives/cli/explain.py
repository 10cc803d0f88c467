"""``nj-incentives explain``: one result from the command line, with its steps and citations.

Each topic is one calculation of the catalog (:mod:`nj_incentives.functions.catalog`), whose
arguments, help and required ones it takes from there, and the core function that
computes it; each program declares its topics (``TOPICS`` of ``programs/<key>/functions.py``,
:class:`~nj_incentives.core.declarations.ExplainTopic`) and the command has those of every
registered program. It prints what the function returns: the result (a table where the result is
a schedule), then the numbered steps, each with its arithmetic and the subsection of law
behind it (``--json``: the same as one JSON document, amounts as exact decimal text).
Percentages are taken as fractions (0.5) or percents (50%). Values one per year follow the
command line's one list rule (:mod:`nj_incentives.support.lists`): commas, or semicolons when a
value has thousands separators; ``1,250,000`` as a list is refused, never read as three
years. A value its rule refuses prints the core's message (argument, value, rule,
citation) and exits with 1, as ``fill`` does for the same value; a value not in the
expected format (``fifty%``, a malformed list) is a usage error, exit 2.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import click
from pydantic import BaseModel

from nj_incentives.cli import EXIT_FAILED, EXIT_OK, Fraction, json_option
from nj_incentives.core.common import Explained, InputError
from nj_incentives.core.declarations import ExplainTopic, ItemsOption
from nj_incentives.functions.catalog import CALCULATIONS, Calculation
from nj_incentives.programs import PROGRAMS
from nj_incentives.support.lists import HELP as LIST_HELP
from nj_incentives.support.lists import ListError, split_values
from nj_incentives.version import LAW_CURRENT_TO, __version__

__all__ = ["TOPICS", "command", "render"]


class _List(click.ParamType):  # type: ignore[type-arg]
    """Values one per year, by the command line's one list rule (:mod:`nj_incentives.support.lists`:
    commas, or semicolons when a value has thousands separators; blanks kept)."""

    name = "list"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "V1,V2,..."

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return split_values(value, "years")
        except ListError as error:
            self.fail(str(error), param, ctx)


class _Items(click.ParamType):  # type: ignore[type-arg]
    """A program's :class:`~nj_incentives.core.declarations.ItemsOption` (``explain ertc
    --periods END:LIABILITY:OTHER:MINIMUM,...``): a list of items, each read by the
    program's ``parse`` (validated by the core)."""

    def __init__(self, option: ItemsOption) -> None:
        self.option = option
        self.name = option.name

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return ":".join(self.option.fields) + ",..."

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        option = self.option
        found: list[Any] = []
        try:
            items = split_values(value, option.name)
        except ListError as error:
            self.fail(str(error), param, ctx)
        for number, item in enumerate(items, 1):
            fields = item.split(":")
            if len(fields) != len(option.fields):
                self.fail(
                    f"{option.item} {number} {item!r} has {len(fields)} field(s); expected "
                    f"{option.format}, e.g. {option.example}",
                    param,
                    ctx,
                )
            try:
                found.extend(option.parse(*fields))
            except InputError as error:
                self.fail(
                    f"{option.item} {number} {item!r}: {error} (expected {option.format})",
                    param,
                    ctx,
                )
        return found


FRACTION = Fraction()
LIST = _List()


@dataclass(frozen=True)
class Topic:
    """One ``nj-incentives explain`` topic: a catalog calculation and the core function
    that computes it. The arguments (names, help, which are required) are the catalog's
    (:data:`nj_incentives.functions.catalog.CALCULATIONS`); the topic says only how the command line
    spells them: which are given in order (``positional``; the others are ``--options``),
    and ``replaced``: catalog arguments given together by one custom option (``custom``,
    whose value the core takes under the option's name)."""

    calculation: str
    compute: Callable[..., Explained]
    positional: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    custom: tuple[click.Parameter, ...] = ()

    @property
    def entry(self) -> Calculation:
        return CALCULATIONS[self.calculation]

    def parameters(self) -> list[click.Parameter]:
        """The command's parameters, from the catalog's arguments (their order and help):
        a one-per-year (or period) argument takes comma-separated values; an argument
        documented as "a fraction" also takes a percent (50%); an optional yes/no
        argument documented "TRUE ...; blank = FALSE" is a flag."""
        params: list[click.Parameter] = []
        for argument in self.entry.arguments:
            if argument.name in self.replaced:
                continue
            kind: Any = LIST if argument.kind in {"vector", "dates"} else None
            if _FRACTION_DOC.search(argument.doc):
                kind = FRACTION
            if argument.name in self.positional:
                param = click.Argument([argument.name], type=kind, metavar=argument.name.upper())
                param.help = argument.doc
                params.append(param)
                continue
            option = "--" + argument.name.replace("_", "-")
            flag = argument.optional and argument.doc.startswith("TRUE")
            if flag and "blank = FALSE" in argument.doc:
                params.append(
                    click.Option([option, argument.name], is_flag=True, help=argument.doc)
                )
            else:
                params.append(
                    click.Option(
                        [option, argument.name],
                        type=kind,
                        required=not argument.optional,
                        help=argument.doc,
                    )
                )
        return [*params, *self.custom]

    def run(self, values: dict[str, Any]) -> Explained:
        """The core's result for the parsed values (an argument left out: the core's
        default, as a blank cell is in Excel)."""
        given = {
            name: value
            for name, value in values.items()
            if value is not None and value is not False
        }
        return self.compute(**given)


#: "a fraction" in a catalog argument's help: a percentage given as 0.5 or 50%.
_FRACTION_DOC = re.compile(r"\ba fraction\b")


def _compute(path: str) -> Callable[..., Explained]:
    """A topic's core function, from its ``"module:function"``."""
    module, _, name = path.partition(":")
    found: Callable[..., Explained] = getattr(importlib.import_module(module), name)
    return found


def _declared_topic(declared: ExplainTopic) -> Topic:
    return Topic(
        declared.calculation,
        _compute(declared.compute),
        positional=declared.positional,
        replaced=declared.replaced,
        custom=tuple(
            click.Option(
                [f"--{option.name.replace('_', '-')}", option.name],
                required=True,
                type=_Items(option),
                help=option.help,
            )
            for option in declared.custom
        ),
    )


#: Every topic, by its command's name: each registered program's (``TOPICS`` of its
#: ``functions.py``), in the registry's order.
TOPICS: dict[str, Topic] = {
    declared.name: _declared_topic(declared)
    for found in PROGRAMS
    if found.has("functions")
    for declared in getattr(found.part("functions"), "TOPICS", ())
}


def _topic_command(name: str, topic: Topic) -> click.Command:
    description = topic.entry.description

    def callback(as_json: bool, **values: Any) -> int:
        return _run(name, topic, values, as_json)

    params = topic.parameters()
    lists = any(isinstance(getattr(p, "type", None), (_List, _Items)) for p in params)
    command = click.Command(
        name,
        callback=callback,
        params=params,
        help=description,
        epilog=f"One value per year (or period): {LIST_HELP}" if lists else None,
        short_help=f"{topic.calculation}: {topic.entry.citation}",
    )
    return json_option(command)  # type: ignore[no-any-return]


@click.group(
    "explain",
    help="Compute one result and print it with its steps and citations. Percentages are "
    "fractions (0.5) or percents (50%). Values one per year: " + LIST_HELP,
)
def command() -> None:
    """``nj-incentives explain TOPIC``."""


for _name, _topic in TOPICS.items():
    command.add_command(_topic_command(_name, _topic))


def _run(topic: str, entry: Topic, values: dict[str, Any], as_json: bool) -> int:
    """Compute the topic's result and print it; exit 1 with the message when a value is
    refused by its rule (as ``fill`` exits for the same value)."""
    try:
        result = entry.run(values)
    except InputError as error:
        print(f"nj-incentives explain {topic}: {error}", file=sys.stderr)
        if as_json:
            print(json.dumps({"topic": topic, "ok": False, "error": str(error)}))
        return EXIT_FAILED
    applied = _law_applied(values.get("law_as_of"))
    if as_json:
        document = {
            "topic": topic,
            "ok": True,
            "result": result.model_dump(mode="json"),
            "version": __version__,
            "law_current_to": LAW_CURRENT_TO,
        }
        if applied is not None:
            document["law_applied"] = applied
        print(json.dumps(document, indent=2))
    else:
        print(render(result, applied))
    return EXIT_OK


def _law_applied(law_as_of: object) -> str | None:
    """``--law-as-of`` given (the core accepted it): which law that is, per statute."""
    if law_as_of is None:
        return None
    from nj_incentives.core import parameters as P
    from nj_incentives.core.inputs import as_date

    return P.law_as_of_text(as_date(law_as_of, "law_as_of"))


def _cell(value: object) -> str:
    if isinstance(value, BaseModel):
        fields = (name for name in type(value).model_fields if name != "steps")
        return ", ".join(
            f"{name.replace('_', ' ')} {_cell(getattr(value, name))}" for name in fields
        )
    if isinstance(value, Decimal):
        return f"{value:,.2f}" if value == value.quantize(Decimal("0.01")) else f"{value:f}"
    if value is None:
        return "-"
    return str(value)


def _table(rows: Sequence[Any]) -> list[str]:
    names = [name for name in type(rows[0]).model_fields if name != "note"]
    cells = [[_cell(getattr(row, name)) for name in names] for row in rows]
    widths = [max(len(name), *(len(line[i]) for line in cells)) for i, name in enumerate(names)]
    header = [name.replace("_", " ") for name in names]
    return [
        "  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True))
        for line in [header, *cells]
    ]


def render(result: Explained, law_applied: str | None = None) -> str:
    """The result as text: its figures (a table for schedules; a versioned result's
    ``version``, the act whose version of the law it applied), then its numbered steps,
    and the package and the law (``law_applied``: the law of ``--law-as-of``)."""
    lines: list[str] = []
    rows = getattr(result, "rows", None)
    for name in type(result).model_fields:
        if name in {"steps", "rows"}:
            continue
        value = getattr(result, name)
        if name == "allowed_later":  # a schedule's credits allowed after its last period
            value = "; ".join(result.later_texts()) or None  # type: ignore[attr-defined]
        lines.append(f"{name.replace('_', ' ')}: {_cell(value)}")
    if rows:
        lines += ["", *_table(rows)]
    lines += ["", "Steps:", result.explain(), "", f"nj-incentives {__version__}; {LAW_CURRENT_TO}"]
    if law_applied is not None:
        lines.append(f"Law applied (--law-as-of): {law_applied}")
    return "\n".join(lines)
