"""Build the template workbooks and their filled examples.

``python -m nj_incentives.workbooks.build [DIRECTORY]`` writes each template to
DIRECTORY (default: the repository's ``workbooks/``) and its filled example to
DIRECTORY/examples/. The build is deterministic: the test suite rebuilds every workbook
and compares it with the committed one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from nj_incentives.workbooks import beip_grant

__all__ = ["EXAMPLES", "TEMPLATES", "build_all", "main"]

#: file name -> builder(path) for each blank template
TEMPLATES: dict[str, Callable[[Path], Path]] = {
    "beip-grant-schedule.xlsx": lambda path: beip_grant.build(path),
}

#: file name (under examples/) -> builder(path) for each filled example
EXAMPLES: dict[str, Callable[[Path], Path]] = {
    "beip-grant-schedule-example.xlsx": lambda path: beip_grant.build(path, beip_grant.EXAMPLE),
}

#: The repository's workbooks/ folder (when running from a checkout).
DEFAULT_DIRECTORY = Path(__file__).resolve().parents[3] / "workbooks"


def build_all(directory: Path = DEFAULT_DIRECTORY) -> list[Path]:
    """Write every template and example under ``directory``; returns their paths."""
    written = []
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "examples").mkdir(exist_ok=True)
    for name, build in TEMPLATES.items():
        written.append(build(directory / name))
    for name, build in EXAMPLES.items():
        written.append(build(directory / "examples" / name))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    directory = Path(args[0]) if args else DEFAULT_DIRECTORY
    for path in build_all(directory):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
