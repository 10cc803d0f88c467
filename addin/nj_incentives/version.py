"""The package's version and the law it is current to (imported by the package itself,
the functions, the CLIs, the memo and the workbooks' run stamps)."""

from __future__ import annotations

__all__ = ["LAW_CURRENT_TO", "__version__"]

__version__ = "0.1.0"

#: The amendments the implemented statute texts include (see docs/interpretations.md).
LAW_CURRENT_TO = (
    "N.J.S.A. 34:1B-129 as amended through P.L.2022, c.134 (P.L.2024, c.40 not modelled); "
    "N.J.S.A. 52:27BBB-55 as amended through P.L.2003, c.194; "
    "CBT minimum tax, N.J.S.A. 54:10A-5(e), for periods beginning in 2012 and after"
)
