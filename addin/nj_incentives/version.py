"""The package's version and the law it is current to (imported by the package itself,
the functions, the CLIs, the memo and the workbooks' run stamps)."""

from __future__ import annotations

import nj_incentives.programs  # noqa: F401  (the registry: every program's figures registered)
from nj_incentives.core.parameters import law_current_to

__all__ = ["LAW_CURRENT_TO", "__version__"]

__version__ = "0.1.0"

#: The versions of the law modelled, per statute (generated from the programs' figures).
LAW_CURRENT_TO = law_current_to()
