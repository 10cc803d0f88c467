"""Progress bars on standard error (tqdm), the same in every subcommand.

By default a bar appears when standard error is a terminal and the run has lasted
:data:`PROGRESS_DELAY` seconds, whatever its size (``calc`` over workbooks, ``scenarios``
over rows); ``--progress`` draws it at once (also when standard error is not a terminal),
``--no-progress`` never. tqdm draws a delayed bar only when it is updated, so a long
first step would hide it: a timer draws it when the delay has passed, mid-step too.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

__all__ = ["LINE_SECONDS", "PROGRESS_DELAY", "bar", "reporter", "settings", "write"]

#: Seconds a run lasts before its progress bar appears (unless --progress is given).
PROGRESS_DELAY = 2.0


def settings(wanted: bool | None) -> tuple[bool, float]:
    """Whether to draw a bar, and after how many seconds: ``--progress`` (True) at once;
    ``--no-progress`` (False) never; the default (None) on a terminal, after
    :data:`PROGRESS_DELAY` seconds."""
    if wanted is None:
        return sys.stderr.isatty(), PROGRESS_DELAY
    return wanted, 0.0


def bar(total: int, delay: float = 0.0, **options: Any) -> Any:
    """A tqdm bar on standard error that appears after ``delay`` seconds (None when tqdm
    is not installed)."""
    try:
        from tqdm import tqdm
    except ModuleNotFoundError:
        return None
    shown: Any = tqdm(
        total=total, file=sys.stderr, dynamic_ncols=True, leave=False, delay=delay, **options
    )
    if delay > 0:
        timer = threading.Timer(delay, _draw, (shown,))
        timer.daemon = True
        timer.start()
        close = shown.close

        def closing() -> None:
            timer.cancel()
            close()

        shown.close = closing
    return shown


def write(shown: Any, text: str, file: Any = None) -> None:
    """Print ``text`` without breaking the bar ``shown``; before the bar's delay has
    passed, plainly (tqdm's ``write`` would draw the hidden bar)."""
    if shown is None or getattr(shown, "disable", True) or time.time() < _due(shown):
        print(text, file=file or sys.stdout)
    else:
        shown.write(text, file=file or sys.stdout)


def _due(shown: Any) -> float:
    return float(getattr(shown, "start_t", 0.0)) + float(getattr(shown, "delay", 0.0))


def _draw(shown: Any) -> None:
    """Draw a bar whose delay has passed, unless it was closed meanwhile."""
    if not getattr(shown, "disable", True):
        shown.refresh()


#: Seconds between two progress lines when standard error is not a terminal (a log).
LINE_SECONDS = 10.0


def reporter(total: int, what: str, wanted: bool | None) -> tuple[Any, Any]:
    """(report, close) for a long step of ``total`` rows: ``report(done)`` draws a bar on
    a terminal (as :func:`bar`), and where standard error is not a terminal (a log, a
    scheduled job) prints a plain line ``what: N of M rows (P%)`` at most every
    :data:`LINE_SECONDS` seconds and when done; ``--no-progress`` (False) neither."""
    if wanted is False:
        return None, lambda: None
    if sys.stderr.isatty() or wanted:
        shown = bar(total, 0.0 if wanted else PROGRESS_DELAY, desc=what, unit=" rows")
        if shown is None:
            return None, lambda: None
        seen = [0]

        def update(done: int) -> None:
            shown.update(done - seen[0])
            seen[0] = done

        return update, shown.close
    last = [time.monotonic()]

    def line(done: int) -> None:
        now = time.monotonic()
        if now - last[0] >= LINE_SECONDS or done >= total:
            last[0] = now
            share = 100 * done // max(total, 1)
            print(f"{what}: {done:,} of {total:,} rows ({share}%)", file=sys.stderr, flush=True)

    return line, lambda: None
