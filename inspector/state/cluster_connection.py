"""The window's connection to a Dask cluster (:mod:`core.scan.cluster`): one owner of it, so
the statistics, the model scan and the model comparison run there when it is connected.

Rules: connecting (an existing scheduler, or a local cluster of N worker processes that the
window starts and stops) runs on a thread of its own, so the window never waits for it;
:attr:`ClusterConnection.changed` says when it is done, failed or was let go. While connected,
:meth:`ClusterConnection.cluster` is the client; else None and the work runs on this machine's
two threads. The dialog's choice is remembered (settings ``cluster/scheduler`` and ``cluster/workers``) and
offered again, but never connected to at start-up; ``tensor-inspector --scheduler ADDRESS`` /
``--workers N`` (or ``DASK_SCHEDULER_ADDRESS``) connect at start, in the background.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal

from core.errors import describe_error
from core.scan.cluster import Cluster, ClusterSpec, connect

__all__ = ["ClusterConnection"]


class ClusterConnection(QObject):
    """Connected, connecting, or not (module rules)."""

    #: The state changed (connected, failed, let go).
    changed = Signal()
    _done = Signal(object, object)  # (cluster, error) from the connecting thread

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cluster: Cluster | None = None
        self._connecting: ClusterSpec | None = None
        self.error: str | None = None
        self._done.connect(self._on_done)

    def cluster(self) -> Cluster | None:
        """The connected cluster, or None (the work runs here)."""
        return self._cluster

    @property
    def connecting(self) -> bool:
        return self._connecting is not None

    def status_text(self) -> str:
        """What the status bar says: ``""`` when no cluster is used."""
        if self._connecting is not None:
            return f"cluster: connecting to {self._connecting.describe()}…"
        if self._cluster is not None:
            return f"cluster: {self._cluster.name}, {self._cluster.workers()} workers"
        return ""

    def dashboard_link(self) -> str | None:
        return None if self._cluster is None else self._cluster.dashboard_link

    def connect_to(self, spec: ClusterSpec) -> None:
        """Let go of the current cluster and connect to ``spec`` in the background."""
        self.disconnect()
        self._connecting, self.error = spec, None
        self.changed.emit()

        def run() -> None:
            try:
                self._done.emit(connect(spec), None)
            except Exception as error:  # the boundary of a thread: said, never lost
                self._done.emit(None, describe_error(error).message)

        threading.Thread(target=run, name="cluster-connect", daemon=True).start()

    def _on_done(self, cluster: Cluster | None, error: str | None) -> None:
        if self._connecting is None:  # let go meanwhile
            if cluster is not None:
                cluster.close()
            return
        self._connecting, self._cluster, self.error = None, cluster, error
        self.changed.emit()

    def disconnect(self) -> None:
        """Run on this machine again (a local cluster the window started stops)."""
        cluster, self._cluster, self._connecting = self._cluster, None, None
        if cluster is not None:
            cluster.close()
            self.changed.emit()

    def close(self) -> None:
        self.disconnect()
