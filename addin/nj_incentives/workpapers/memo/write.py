"""The memo written to a file, its format chosen by the extension."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from nj_incentives.workpapers.memo.build import build_memo
from nj_incentives.workpapers.memo.document import Memo
from nj_incentives.workpapers.memo.markup import to_html, to_markdown
from nj_incentives.workpapers.memo.pdf import to_pdf
from nj_incentives.workpapers.recalc.engine import Recalculation

FORMATS: dict[str, Callable[[Memo], str | bytes]] = {
    ".md": to_markdown,
    ".markdown": to_markdown,
    ".html": to_html,
    ".htm": to_html,
    ".pdf": to_pdf,
}


def render(memo: Memo, suffix: str) -> str | bytes:
    """The memo as Markdown (``.md``), HTML (``.html``) or PDF (``.pdf``, bytes)."""
    try:
        renderer = FORMATS[suffix.lower()]
    except KeyError:
        raise ValueError(
            f"a memo is written as .pdf, .html or .md, not {suffix or 'no extension'!r}"
        ) from None
    return renderer(memo)


def write_memo(
    target: str | Path,
    recalcs: Sequence[Recalculation],
    *,
    protect: Iterable[Path] = (),
    generated: dt.datetime | None = None,
    steps: str = "summary",
    law_as_of: dt.date | None = None,
    tax_year: int | None = None,
) -> Path:
    """Write the memo covering ``recalcs`` to ``target`` (format by extension), atomically;
    never over one of ``protect`` (the input workbooks). ``steps``: "summary" (the steps
    behind the first page's figures) or "all" (:func:`~.build.build_memo`)."""
    from nj_incentives.support.files import atomic_path

    target = Path(target)
    content = render(
        build_memo(recalcs, generated, steps=steps, law_as_of=law_as_of, tax_year=tax_year),
        target.suffix,
    )
    with atomic_path(target, protect=list(protect)) as temporary:
        if isinstance(content, bytes):
            temporary.write_bytes(content)
        else:
            temporary.write_text(content, encoding="utf-8")
    return target
