"""LoadedSession.with_hashes_checked: loading without hashes, then checking them (a window's
worker), gives what loading with hashes gives; progress counts the bytes hashed; a progress
callback that raises stops it."""

from __future__ import annotations

import pytest

from core.errors import Cancelled
from core.pipeline.pipeline import DecodeParams
from core.session.loading import load_session
from core.session.records import Session, capture_file
from core.session.session_file import save_session


def saved(tmp_path, contents):
    paths = []
    for i, data in enumerate(contents):
        paths.append(str(tmp_path / f"f{i}.bin"))
        with open(paths[-1], "wb") as file:
            file.write(data)
    session = Session(files=tuple(capture_file(p, hash=True) for p in paths), params=DecodeParams(dtype="uint8"))
    path = str(tmp_path / "s.json")
    save_session(session, path)
    return path, paths


def test_checking_later_gives_the_notes_of_checking_at_once(tmp_path):
    session, (a, b, c) = saved(tmp_path, [b"a" * 10, b"b" * 20, b"c" * 30])
    with open(b, "wb") as file:
        file.write(b"B" * 20)  # same size, other content
    with open(c, "wb") as file:
        file.write(b"c" * 31)  # other size: nothing to hash
    quick = load_session(session, check_hashes=False)
    assert quick.hashes_to_check() == (2, 30)  # a and b
    assert [n.what for n in quick.changed] == ["mtime", "size"]  # b by its time only, so far
    seen = []
    checked = quick.with_hashes_checked(lambda done, total: seen.append((done, total)))
    assert [(n.index, n.what, n.message) for n in checked.changed] == \
           [(n.index, n.what, n.message) for n in load_session(session).changed]
    assert [n.what for n in checked.changed] == ["hash", "size"]
    assert seen == [(10, 30), (30, 30)] and checked.hashes_to_check() == (0, 0)


def test_a_progress_callback_that_raises_stops_the_check(tmp_path):
    session, _paths = saved(tmp_path, [b"a" * 10])

    def stop(_done, _total):
        raise Cancelled()

    with pytest.raises(Cancelled):
        load_session(session, check_hashes=False).with_hashes_checked(stop)
