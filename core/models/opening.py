"""Opening the tensors of an inventory, each as ``--tensor NAME`` opens it, with one open file per
container however many of its tensors are open.

Rule: a tensor of a container is :func:`core.formats.values.open_entry`'s (a view of its file,
or its format's budget-checked copy or computed values); a raw file is decoded with its
:class:`~core.pipeline.params.DecodeParams`. A container's file stays open while any of its
tensors is (:class:`TensorOpener` counts them); after its last it is kept open, idle, while
it is one of the :data:`KEEP_IDLE` containers used last (the next tensor of the same file then
costs no new open and map), and closed when more are idle or by :meth:`TensorOpener.close_all`.
A file changed meanwhile is found by the check each read makes (``check_unchanged``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.errors import CoreError, describe_error
from core.formats.entry import find_entry
from core.formats.registry import list_file
from core.formats.values import open_entry
from core.models.inventory import ModelTensor
from core.pipeline.pipeline import Pipeline
from core.scan.blocks import BlockReader

__all__ = ["KEEP_IDLE", "OpenedTensor", "TensorOpener", "open_error", "storage_of"]

#: Containers kept open with no tensor of theirs open (the ones used last).
KEEP_IDLE = 4


def storage_of(tensor: ModelTensor) -> str:
    """How the tensor's values are had: ``view``, ``copy``, ``computed``, or ``raw`` for a raw file."""
    return "raw" if tensor.entry is None else tensor.entry.storage.value


@dataclass(frozen=True)
class OpenedTensor:
    """An open tensor: its values (a view of its file or an array), a block reader over them
    (``new_reader`` makes another, one per thread), the check that its file is unchanged;
    :meth:`TensorOpener.close` releases it."""

    tensor: ModelTensor
    view: np.ndarray
    reader: BlockReader
    new_reader: Callable[[], BlockReader]
    check: Callable[[], None]
    owned: Pipeline | None

    @property
    def dtype(self) -> str:
        return str(self.view.dtype.name)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.view.shape)


class TensorOpener:
    """Opens tensors (module rule); :meth:`close_all` closes whatever is still open."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[Pipeline, int]] = {}
        self._idle: dict[str, Pipeline] = {}  # oldest first

    def open(self, tensor: ModelTensor) -> OpenedTensor:
        """The tensor open.

        Raises
        ------
        CoreError
            It cannot be opened (its message says why); nothing stays open.
        """
        owned = None
        pipeline = self._get(tensor.path)
        try:
            entry = tensor.entry
            if entry is None:
                shown, params = pipeline, tensor.params
            else:
                opened = open_entry(pipeline.source, tensor.listing, entry)
                shown = pipeline
                if opened.owned:
                    shown = owned = Pipeline(opened.source)
                params = opened.params
            result = shown.run(params)
            return OpenedTensor(tensor, result.view, result.block_reader(), result.block_reader,
                                shown.source.check_unchanged, owned)
        except MemoryError:
            self._undo(tensor, owned)
            raise CoreError("out of memory while opening it (a copy too large for this machine)") from None
        except BaseException:
            self._undo(tensor, owned)
            raise

    def close(self, opened: OpenedTensor) -> None:
        """Release ``opened`` (its own copy, and its container once its last tensor is closed)."""
        if opened.owned is not None:
            opened.owned.close()
        self._release(opened.tensor.path)

    def close_all(self) -> None:
        for pipeline, _users in self._open.values():
            pipeline.close()
        self._open.clear()
        for pipeline in self._idle.values():
            pipeline.close()
        self._idle.clear()

    def _undo(self, tensor: ModelTensor, owned: Pipeline | None) -> None:
        if owned is not None:
            owned.close()
        self._release(tensor.path)

    def _get(self, path: str) -> Pipeline:
        pipeline, users = self._open.get(path, (None, 0))
        if pipeline is None:
            pipeline = self._idle.pop(path, None)
            if pipeline is None:
                pipeline = Pipeline(path)
        self._open[path] = (pipeline, users + 1)
        return pipeline

    def _release(self, path: str) -> None:
        found = self._open.get(path)
        if found is None:
            return
        pipeline, users = found
        if users <= 1:
            del self._open[path]
            self._idle[path] = pipeline
            while len(self._idle) > KEEP_IDLE:
                self._idle.pop(next(iter(self._idle))).close()
        else:
            self._open[path] = (pipeline, users - 1)


def open_error(error: BaseException) -> str:
    """The message of an error opening or reading a tensor."""
    return describe_error(error).message if isinstance(error, CoreError) else str(error)


def tensor_ref(tensor: ModelTensor) -> tuple:
    """What names ``tensor`` to another process (a cluster worker): path, name, label, decode
    parameters and whether it is a container's entry; :func:`tensor_from_ref` makes it again."""
    return (tensor.path, tensor.name, tensor.label, tensor.params, tensor.entry is not None)


def tensor_from_ref(ref: tuple, listings: dict) -> ModelTensor:
    """The :class:`ModelTensor` a :func:`tensor_ref` names, its container listed here (once per
    ``listings``: a task's own cache, never kept, since files change).

    Raises
    ------
    CoreError
        The file is no container here, or has no entry of that name.
    """
    path, name, label, params, in_container = ref
    if not in_container:
        return ModelTensor(path, name, label, None, None, params)
    if path not in listings:
        listing = list_file(path)
        if listing is None:
            raise CoreError(f"'{path}' is not a container on the worker (is it the same file there?)",
                            field="files")
        listings[path] = listing
    listing = listings[path]
    return ModelTensor(path, name, label, find_entry(listing, name), listing, params)
