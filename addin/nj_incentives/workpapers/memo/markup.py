"""The memo as Markdown and HTML, from the Jinja2 templates in
``nj_incentives/workpapers/memo/templates``."""

from __future__ import annotations

import html
import importlib.resources
import re
from typing import Any

from nj_incentives.workpapers.memo.document import Memo, is_numeric, padded

_MD_SPECIAL = re.compile(r"([\\`*\[\]|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
_MD_BLOCK_START = re.compile(r"^(?:[#+>=-]|\d+[.)])")


#: The invisible characters that reorder the text around them (bidirectional embeddings,
#: overrides and isolates, the marks): a U+202E in a client's name showed the rest of the
#: line reversed, so in Markdown each is written as its code point.
_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(text: str) -> str:
    return _BIDI_CONTROLS.sub(lambda found: f"[U+{ord(found.group()):04X}]", text)


def _md(text: str, block: bool = False) -> str:
    """Text for Markdown, on one line: entities for & < >, a backslash before each
    character Markdown would act on (emphasis, code, links, tables, strikethrough), and
    (``block``: text that starts a line) before a leading character that would start a
    heading, list or quote."""
    text = html.escape(_visible(" ".join(str(text).split())), quote=False)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return "\\" + text if block and _MD_BLOCK_START.match(text) else text


def _md_quote_line(line: str) -> str:
    """A line of docs/interpretations.md (project text, already Markdown): only < > &
    escaped."""
    return html.escape(_visible(line), quote=False)


def _md_code(text: str) -> str:
    text = _visible(" ".join(text.split()))
    fence = "`"
    while fence in text:
        fence += "`"
    return f"{fence} {text} {fence}"


class _Safe(str):
    """Markup built by a template (not escaped again)."""


def _environment(kind: str) -> Any:
    import jinja2

    def load(name: str) -> str:
        return (
            importlib.resources.files("nj_incentives")
            .joinpath("workpapers", "memo", "templates", name)
            .read_text(encoding="utf-8")
        )

    if kind == "html":
        env = jinja2.Environment(
            loader=jinja2.FunctionLoader(load),
            autoescape=False,  # every {{ }} is escaped by finalize instead (quotes too)
            finalize=lambda value: (
                value
                if isinstance(value, _Safe)
                else html.escape("" if value is None else str(value))
            ),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters["safe"] = lambda value: _Safe(str(value))
        env.filters["css"] = lambda value: _Safe(
            re.sub(r'["\\<>\n\r]', " ", str(value))  # inside a CSS string in <style>
        )
    else:
        env = jinja2.Environment(
            loader=jinja2.FunctionLoader(load),
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters["md"] = _md
        env.filters["mdb"] = lambda text: _md(text, block=True)
        env.filters["mdcode"] = _md_code
        env.filters["mdquote"] = _md_quote_line
        env.filters["trim_right"] = lambda text: str(text).rstrip()
    env.globals.update(padded=padded, numeric=is_numeric)
    return env


def to_markdown(memo: Memo) -> str:
    text: str = _environment("md").get_template("memo.md.j2").render(memo=memo)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def to_html(memo: Memo) -> str:
    template = _environment("html").get_template("memo.html.j2")
    text: str = template.render(memo=memo, sections=memo.sections())
    return text.strip() + "\n"
