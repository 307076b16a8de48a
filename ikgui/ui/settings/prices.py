"""The Settings dialog's Prices page: dollars per million input and output tokens, per
model name (the names the providers report, e.g. ``gpt-4o-mini``)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.settings import Price, Settings
from ikgui.ui.settings.common import (
    Issue,
    add_remove_buttons,
    label,
    named,
    number_problem,
)

MODEL, INPUT, OUTPUT = range(3)


def _number(value: float) -> str:
    return f"{value:g}"


class PricesPage(QWidget):
    """A table of model → input/output price, with add and remove buttons."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pricesPage")
        self.table = named(QTableWidget(0, 3), "pricesTable", "Prices per million tokens")
        self.table.setHorizontalHeaderLabels(["Model", "Input $ / M tokens", "Output $ / M tokens"])
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(MODEL, QHeaderView.ResizeMode.Stretch)
        for column in (INPUT, OUTPUT):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for column in (INPUT, OUTPUT):
            header_item = self.table.horizontalHeaderItem(column)
            if header_item is not None:
                header_item.setTextAlignment(
                    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                )
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.verticalHeader().setDefaultSectionSize(30)
        for model, price in settings.prices.items():
            self.add_row(model, price.input, price.output, edit=False)

        self.add_button, self.remove_button, buttons = add_remove_buttons("pricesTable", "price")
        self.add_button.clicked.connect(lambda: self.add_row())
        self.remove_button.clicked.connect(self.remove_row)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.setSpacing(8)
        layout.addWidget(
            label(
                "Dollars per million tokens, used to show what each reply cost. The model "
                "name must match the one the provider reports.",
                "hint",
            )
        )
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self._selection_changed()

    def add_row(
        self, model: str = "", input: float = 0.0, output: float = 0.0, edit: bool = True
    ) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        model_item = QTableWidgetItem(model)
        self.table.setItem(row, MODEL, model_item)
        for column, value in ((INPUT, input), (OUTPUT, output)):
            item = QTableWidgetItem(_number(value))
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, column, item)
        if edit:
            self.table.setCurrentCell(row, MODEL)
            self.table.editItem(model_item)
        return row

    def remove_row(self) -> None:
        row = self.table.currentRow()
        if row >= 0:
            self.table.removeRow(row)
        self._selection_changed()

    def _selection_changed(self) -> None:
        self.remove_button.setEnabled(bool(self.table.selectionModel().selectedRows()))

    def _text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text() if item is not None else ""

    def issues(self) -> list[Issue]:
        found: list[Issue] = []
        models = [self._text(row, MODEL).strip() for row in range(self.table.rowCount())]
        for row, model in enumerate(models):
            where = f"Prices, row {row + 1}"
            if not model:
                found.append(Issue("prices", f"{where}: enter the model name.", self.table, row))
            elif models.count(model) > 1:
                message = f"{where}: “{model}” has two prices; keep one."
                found.append(Issue("prices", message, self.table, row))
            for column, what in ((INPUT, "input"), (OUTPUT, "output")):
                text = self._text(row, column)
                if number_problem(text):
                    message = f"{where}: the {what} price must be a number ≥ 0, not “{text}”."
                    found.append(Issue("prices", message, self.table, row))
        return found

    def prices(self) -> dict[str, Price]:
        return {
            self._text(row, MODEL).strip(): Price(
                float(self._text(row, INPUT)), float(self._text(row, OUTPUT))
            )
            for row in range(self.table.rowCount())
        }
