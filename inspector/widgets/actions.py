"""Menu and key actions that run a command: :func:`command_action`.

Rule: a command run by an action is called with no argument. Qt's ``triggered`` signal carries a
``checked`` flag, and PySide passes it to any callable that can take a positional argument, so a
command with an optional first parameter (``open_sample(params=None)``) would receive ``False``
as its parameter. Every action of the window that runs a command is made here, so none can.

A bound method is held weakly (its object may be a window): the connection never keeps a closed
window alive, and a command whose object is gone does nothing.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

__all__ = ["command_action", "without_arguments"]


def without_arguments(command: Callable[[], object]) -> Callable[..., None]:
    """A slot that ignores whatever a signal passes (``checked``) and calls ``command()``."""
    owner_object = getattr(command, "__self__", None)
    name = getattr(command, "__name__", None)
    if owner_object is not None and name is not None and not inspect.ismodule(owner_object):
        try:
            owner = weakref.ref(owner_object)
        except TypeError:  # an object without weak references: held as it is
            owner = None
        if owner is not None:
            function = getattr(command, "__func__", None)

            def run_method(*_ignored: object) -> None:
                target = owner()
                if target is None:
                    return
                if function is not None:
                    function(target)
                else:  # a method of a Qt class (window.close): looked up on the live object
                    getattr(target, name)()

            return run_method

    def run(*_ignored: object) -> None:
        command()

    return run


def command_action(text: str, parent: QObject, command: Callable[[], object], *,
                   shortcut: object = None) -> QAction:
    """A ``QAction`` labelled ``text`` (owned by ``parent``) that runs ``command()`` when
    triggered, with the key ``shortcut`` (a string, a ``QKeySequence`` or a standard key) if given."""
    action = QAction(text, parent)
    if shortcut is not None:
        action.setShortcut(shortcut if isinstance(shortcut, QKeySequence) else QKeySequence(shortcut))
    action.triggered.connect(without_arguments(command))
    return action
