"""The exit statuses every command shares, and the message for a missing extra: one
place, read by the commands (:mod:`nj_incentives.cli`) and by the libraries whose errors
carry a status (fill, roll forward, sign-off)."""

from __future__ import annotations

__all__ = ["EXIT_CODES", "EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "needs_extra"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_CODES = {
    EXIT_OK: "done; every check TRUE, no row with an error",
    EXIT_FAILED: "done, but a check failed or rows had errors (written for inspection)",
    EXIT_USAGE: "not done: wrong arguments, or a file missing, unsafe or unreadable, "
    "or an optional dependency not installed",
}


def needs_extra(command: str, extra: str, module: str) -> str:
    return (
        f"nj-incentives {command} needs the optional dependencies of the '{extra}' extra "
        f"({module} is not installed): pip install 'nj-incentives[{extra}]'"
    )
