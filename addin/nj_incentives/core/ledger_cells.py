"""The cells side of a credit ledger (:mod:`nj_incentives.core.ledger`), light to import
(the NJ_* declarations read it when the catalog loads): the events table's columns, an
events range as rows, and a schedule's result columns."""

from __future__ import annotations

from nj_incentives.core.declarations import ResultColumn

__all__ = ["EVENT_COLUMNS", "event_cells", "ledger_columns"]

#: The columns of an events table, in order (a header row naming them is skipped).
EVENT_COLUMNS = ("kind", "date", "period", "amount", "price", "issued")


def ledger_columns() -> tuple[ResultColumn, ...]:
    """The result columns of a credit schedule (a program's ``functions.py`` declares its
    schedule with them)."""
    return (
        ResultColumn("Period", "period", "int", "Number of the privilege period, from 1"),
        ResultColumn("Period end", "period_end", "date", "Last day of the privilege period"),
        ResultColumn("New credit", "new_credit", "money", "Credit allowed in the period"),
        ResultColumn("Carried in", "carried_in", "money", "Unused credit carried into it"),
        ResultColumn("Limit", "limit", "money", "The liability the credit may be used against"),
        ResultColumn("Used", "used", "money", "Credit used in the period, oldest first"),
        ResultColumn("Transferred", "transferred", "money", "Credit sold by transfer certificate"),
        ResultColumn("Sold to State", "sold", "money", "Credit sold or surrendered to the State"),
        ResultColumn("Proceeds", "proceeds", "money", "Consideration and State price received"),
        ResultColumn("Expired", "expired", "money", "Credit lost at the end of its carryforward"),
        ResultColumn("Carried out", "carried_out", "money", "Unused credit after the period"),
    )


def event_cells(events: object) -> list[list[object]] | None:
    """An events range (Excel cells) as rows, its date columns (date, issued) read as date
    cells (a serial number a date)."""
    from nj_incentives.core.cells import as_date_cell, as_rows

    if events is None:
        return None
    dates = (EVENT_COLUMNS.index("date"), EVENT_COLUMNS.index("issued"))
    return [
        [
            as_date_cell(cell, f"events {EVENT_COLUMNS[i]}", "")
            if i in dates and not isinstance(cell, str)
            else cell
            for i, cell in enumerate(row)
        ]
        for row in as_rows(events)
    ]
