"""Tools > Dask cluster…: where statistics, the model scan and the model comparison run.

This machine (two threads, the default), the scheduler of an existing cluster
(``tcp://host:8786``), or a local cluster of N worker processes the window starts and stops.
*Connect* hands the choice to the window's :class:`~inspector.state.cluster_connection.ClusterConnection`
(in the background); the label under it says how that went, with the dashboard's link.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.scan.cluster import ClusterSpec
from inspector.state.cluster_connection import ClusterConnection

__all__ = ["ClusterDialog"]


class ClusterDialog(QDialog):
    """The three choices and the connection's state (module docstring)."""

    def __init__(self, connection: ClusterConnection, parent: QWidget | None = None, *,
                 scheduler: str = "", workers: int = 2) -> None:
        super().__init__(parent)
        self.setObjectName("cluster")
        self.setWindowTitle("Dask cluster")
        self._connection = connection
        self.here = QRadioButton("This machine (two threads)", self, objectName="cluster.here")
        self.remote = QRadioButton("Scheduler", self, objectName="cluster.useScheduler")
        self.local = QRadioButton("Local cluster of", self, objectName="cluster.useLocal")
        self.address = QLineEdit(scheduler, self, objectName="cluster.scheduler")
        self.address.setPlaceholderText("tcp://host:8786")
        self.workers = QSpinBox(self, objectName="cluster.workers")
        self.workers.setRange(1, 256)
        self.workers.setValue(workers)
        self.workers.setSuffix(" worker processes")
        group = QButtonGroup(self)
        for button in (self.here, self.remote, self.local):
            group.addButton(button)
        chosen = connection.cluster()
        if chosen is None:
            self.here.setChecked(True)
        elif chosen.spec.workers is not None:
            self.local.setChecked(True)
        else:
            self.remote.setChecked(True)
            self.address.setText(chosen.spec.scheduler or "")
        self.state = QLabel(self, objectName="cluster.state")
        self.state.setTextFormat(Qt.TextFormat.RichText)
        self.state.setOpenExternalLinks(True)
        self.state.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Close, self, objectName="cluster.buttons")
        buttons.button(QDialogButtonBox.Ok).setText("Connect")
        buttons.accepted.connect(self.apply)
        buttons.rejected.connect(self.close)
        grid = QGridLayout()
        grid.addWidget(self.here, 0, 0, 1, 2)
        grid.addWidget(self.remote, 1, 0)
        grid.addWidget(self.address, 1, 1)
        grid.addWidget(self.local, 2, 0)
        grid.addWidget(self.workers, 2, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Statistics, the model scan and the model comparison run on:", self))
        layout.addLayout(grid)
        layout.addWidget(self.state)
        layout.addWidget(buttons)
        connection.changed.connect(self._show_state)
        self._show_state()

    def spec(self) -> ClusterSpec | None:
        """The choice: None for this machine."""
        if self.remote.isChecked() and self.address.text().strip():
            return ClusterSpec(scheduler=self.address.text().strip())
        if self.local.isChecked():
            return ClusterSpec(workers=self.workers.value())
        return None

    def apply(self) -> None:
        """Connect to the choice (or let go of the cluster for this machine)."""
        spec = self.spec()
        if self.remote.isChecked() and spec is None:
            self.state.setText("type the scheduler's address, e.g. tcp://host:8786")
            return
        if spec is None:
            self._connection.disconnect()
        else:
            self._connection.connect_to(spec)
        self._show_state()

    def _show_state(self) -> None:
        connection = self._connection
        if connection.error:
            self.state.setText(_escape(connection.error))
            return
        text = connection.status_text() or "The work runs on this machine."
        link = connection.dashboard_link()
        self.state.setText(_escape(text) + (f' — <a href="{_escape(link)}">dashboard</a>' if link else ""))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
