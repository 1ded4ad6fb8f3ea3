"""The reference API on flask_api: short text notes, in memory, SQLite or PostgreSQL.

    python notes_app.py                 # http://127.0.0.1:5000/
    python notes_app.py --port 8000     # or: flask --app notes_app run
    python notes_app.py --db notes.db   # or: NOTES_DB=notes.db gunicorn -w 4 notes_app:app
    NOTES_DB=postgresql://user:password@host/db gunicorn -w 4 notes_app:app   # many machines

Open it in a browser for the browsable page, or use curl for JSON. Every change to the
notes streams from /changes as it is made (each open feed holds one of the server's
threads: give gunicorn --threads enough for them).
"""

import argparse
import contextlib
import logging
import os
import re
import sqlite3
import threading
import time
import weakref
from typing import (
    Any,
    Callable,
    Dict,
    Generator,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Set,
    Tuple,
    cast,
)

from flask import Flask, request, url_for
from werkzeug.wsgi import get_host

from flask_api import (
    APIException,
    APIRequest,
    FlaskAPI,
    NotFound,
    ParseError,
    ServerSentEvent,
    set_openapi,
    status,
)

INITIAL_NOTES = {0: "do the shopping", 1: "build the codez", 2: "paint the door"}
MAX_KEY_DIGITS = 18  # keeps keys far below Python's int/str conversion limit
KEY_PATTERN = re.compile(r"[0-9]{1,%d}" % MAX_KEY_DIGITS)
DEFAULT_MAX_BODY = 1024 * 1024  # bytes; a larger request body is a 413
BUSY_TIMEOUT = 10.0  # seconds a write waits for other writes, in all, before a 503
SQLITE_POLL = 0.02  # seconds between a process's looks for other processes' writes
APPLICATION_ID = 0x4E4F5445  # "NOTE": marks an SQLite file as this app's
CHANGES_KEPT = 10000  # the change log keeps the last 10,000 changes; an older position is a 410


class NoKeysLeft(APIException):
    status_code = status.HTTP_409_CONFLICT
    detail = "No keys left: the largest key is taken."


class StoreBusy(APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    detail = "The notes are busy with other writes: try again."

    def get_headers(self) -> Dict[str, str]:
        return {"Retry-After": "1"}


class StoreReadOnly(StoreBusy):
    detail = "The notes can be read but not written just now: their file is read-only."

    def get_headers(self) -> Dict[str, str]:
        return {"Retry-After": "30"}


class StoreFull(StoreReadOnly):
    status_code = status.HTTP_507_INSUFFICIENT_STORAGE
    detail = "The disk that holds the notes is full: nothing was changed; try again later."


def _write_error(exc: sqlite3.OperationalError) -> APIException:
    """A write SQLite refused, as the 503 or 507 that names why; nothing was changed."""
    message = str(exc).lower()
    if "full" in message:
        return StoreFull()
    if "readonly" in message or "read-only" in message or "unable to open" in message:
        return StoreReadOnly()
    return StoreBusy()  # locked or busy past the timeout; or an I/O error: try again


class ChangesGone(APIException):
    status_code = status.HTTP_410_GONE
    detail = "The changes after this position are no longer kept."


def _changes_gone(after: int, latest: Optional[int] = None) -> ChangesGone:
    """The 410 for a position the log cannot go on from: one whose next changes it has
    let go, or one past its latest change (from another database, or made up)."""
    if latest is not None:
        return ChangesGone("Position {} is past the latest change, {}: it is not one of "
                           "these notes' positions. Read the notes again (GET /) and follow "
                           "the changes from the position its Link gives.".format(after, latest))
    return ChangesGone("The changes after position {} are no longer kept (the log keeps the "
                       "last {:,}). Read the notes again (GET /) and follow the changes from the "
                       "position its Link gives.".format(after, CHANGES_KEPT))


class StoreError(Exception):
    """A database the notes app cannot use at all: another app's, a corrupt one, or one
    that cannot be reached as it starts."""


class StoreUnreachable(StoreBusy):
    detail = "The notes' database cannot be reached just now: try again shortly."


class Change(NamedTuple):
    """One write, as the change log keeps it: its position (1, 2, 3, ... with none
    skipped), the note's key, what happened ("created", "replaced" or "deleted"), and
    the note's text after it (None once deleted)."""
    position: int
    key: int
    change: str
    text: Optional[str]


def _following(after: int, changes: List[Change], latest: Optional[int]) -> List[Change]:
    """``changes``, read as those after ``after``, if none between is missing; `ChangesGone`
    if the log has let the next ones go. ``latest``, read after ``changes`` came back empty,
    tells a position past the log's end, which is gone too."""
    if changes and changes[0].position != after + 1:
        raise _changes_gone(after)
    if not changes and latest is not None and after > latest:
        raise _changes_gone(after, latest)
    return changes


class BaseNoteStore:
    """What the views need from a store: five operations, each atomic.

    A class with these five methods can keep the notes anywhere, a database
    server included: pass it to ``create_app(store=...)``. A store whose
    ``keeps_changes`` is True also keeps a log of its changes, which the app
    serves as a feed (``/changes``): each write records its change in the same
    transaction, and the four methods after the five read it.
    """

    keeps_changes = False
    #: Called after each write that logged a change; this process's `ChangeFeed` sets it.
    written = None  # type: Optional[Callable[[], None]]

    def items(self) -> List[Tuple[int, str]]:
        """Every note as a (key, text) pair, ordered by key."""
        raise NotImplementedError

    def get(self, key: int) -> Optional[str]:
        """The text of the note under ``key``, or None."""
        raise NotImplementedError

    def create(self, text: str) -> int:
        """Store under the largest key + 1 (0 when empty) and return that key."""
        raise NotImplementedError

    def put(self, key: int, text: str) -> None:
        """Store under ``key``, replacing the note there if there is one."""
        raise NotImplementedError

    def delete(self, key: int) -> None:
        """Remove the note under ``key``; a missing one is not an error."""
        raise NotImplementedError

    def snapshot(self) -> Tuple[List[Tuple[int, str]], int]:
        """``items()``, and the position of the last change they show, read together."""
        raise NotImplementedError

    def position(self) -> int:
        """The position of the latest change: 0 before the first."""
        raise NotImplementedError

    def changes(self, after: int, limit: int) -> List[Change]:
        """Up to ``limit`` changes after position ``after``, in order: see `_following`."""
        raise NotImplementedError

    def watch(self, changed: Callable[[], None], stop: threading.Event) -> None:
        """Call ``changed()`` whenever another process may have written, until ``stop`` is
        set. Run in a thread of its own while feeds are open; this process's writes call
        ``written`` themselves, so a store no other process shares has nothing to watch."""
        stop.wait()

    def _logged(self) -> None:
        if self.written is not None:
            self.written()


def _key_after(largest: Optional[int]) -> int:
    """The key for a new note: the largest + 1, or 0; NoKeysLeft past MAX_KEY_DIGITS."""
    key = 0 if largest is None else largest + 1
    if len(str(key)) > MAX_KEY_DIGITS:
        raise NoKeysLeft()
    return key


class NoteStore(BaseNoteStore):
    """Notes in this process's memory; a lock makes every operation safe across threads.

    Its change log is a list that keeps the last CHANGES_KEPT changes at least, and
    twice that at most: it is cut in one go when it reaches that.
    """

    keeps_changes = True

    def __init__(self, notes: Optional[Dict[int, str]] = None) -> None:
        self._notes = dict(INITIAL_NOTES if notes is None else notes)
        self._log = []  # type: List[Change]
        self._position = 0
        self._lock = threading.Lock()

    def items(self) -> List[Tuple[int, str]]:
        with self._lock:
            return sorted(self._notes.items())

    def get(self, key: int) -> Optional[str]:
        with self._lock:
            return self._notes.get(key)

    def create(self, text: str) -> int:
        with self._lock:
            key = _key_after(max(self._notes, default=None))
            self._notes[key] = text
            self._record(key, "created", text)
        self._logged()
        return key

    def put(self, key: int, text: str) -> None:
        with self._lock:
            change = "replaced" if key in self._notes else "created"
            self._notes[key] = text
            self._record(key, change, text)
        self._logged()

    def delete(self, key: int) -> None:
        with self._lock:
            if self._notes.pop(key, None) is None:
                return  # nothing was there, so nothing changed
            self._record(key, "deleted", None)
        self._logged()

    def _record(self, key: int, change: str, text: Optional[str]) -> None:
        self._position += 1
        self._log.append(Change(self._position, key, change, text))
        if len(self._log) >= 2 * CHANGES_KEPT:
            del self._log[:-CHANGES_KEPT]

    def snapshot(self) -> Tuple[List[Tuple[int, str]], int]:
        with self._lock:
            return sorted(self._notes.items()), self._position

    def position(self) -> int:
        return self._position

    def changes(self, after: int, limit: int) -> List[Change]:
        with self._lock:
            first = self._log[0].position if self._log else self._position + 1
            start = max(0, after + 1 - first)
            return _following(after, self._log[start:start + limit], self._position)


def _use_wal(db: sqlite3.Connection) -> None:
    """Put the file in WAL mode, which it keeps, retrying while other processes do too.

    Changing the journal mode does not always wait for SQLite's busy timeout:
    workers starting on a new file at once can find it locked.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _close_all(connections: List[sqlite3.Connection]) -> None:
    while connections:
        connections.pop().close()


class SQLiteNoteStore(BaseNoteStore):
    """Notes in an SQLite file that every thread and worker process shares.

    WAL mode lets reads go on while a write commits. Each write holds the file's
    write lock from ``BEGIN IMMEDIATE`` to ``COMMIT``, so finding the largest key
    and storing under the next one is a single step across processes. The file is
    marked as this app's (``PRAGMA application_id``); any other is refused. ``notes``
    are written only into a new database. Starting on a file that is set up writes
    nothing, so a worker starts while the file is read-only or another process
    holds its write lock; its writes answer 503 (507 for a full disk) meanwhile.

    Each write logs its change in the ``changes`` table, in its transaction, at the
    largest position + 1, and deletes the one CHANGES_KEPT positions before it. A
    file from before the log gets its table as the first worker starts on it.
    """

    keeps_changes = True

    def __init__(self, path: str, notes: Optional[Dict[int, str]] = None) -> None:
        self._path = path
        self._idle = []  # type: List[sqlite3.Connection]
        # This process's threads wait for each other here, in turn, rather than in
        # SQLite's busy handler, which polls; other processes wait in the latter.
        self._lock = threading.Lock()
        weakref.finalize(self, _close_all, self._idle)
        try:
            with self._connection() as db:
                ready = self._check(db)
        except sqlite3.DatabaseError as exc:
            raise StoreError("{} is not an SQLite database, or it is damaged ({}).".format(
                path, exc)) from exc
        if not ready:
            with self._write() as db:
                self._set_up(db, INITIAL_NOTES if notes is None else notes)
            with self._connection() as db:
                _use_wal(db)
        # Nothing stays open, so a worker forked after this (gunicorn --preload)
        # opens connections of its own.
        _close_all(self._idle)

    def _check(self, db: sqlite3.Connection) -> bool:
        """True if the file is set up as this app's; False if it is new (or from before
        the mark, or the change log). Anything else is a `StoreError`: the app must not
        write into it."""
        mark = db.execute("PRAGMA application_id").fetchone()[0]
        tables = {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        ours = {"notes", "meta"} <= tables <= {"notes", "meta", "changes"} and db.execute(
            "SELECT value FROM meta WHERE name = 'schema'").fetchone() == ("1",)
        if mark == APPLICATION_ID and ours:
            return "changes" in tables
        if mark == 0 and (ours or not tables):
            return False
        raise StoreError("{} is not a notes database (it has the tables: {}); give --db "
                         "or NOTES_DB a file of its own.".format(
                             self._path, ", ".join(sorted(tables)) or "none"))

    @staticmethod
    def _set_up(db: sqlite3.Connection, notes: Dict[int, str]) -> None:
        """Create the tables if missing, and add ``notes`` if this is a new database.

        In one write transaction: of several workers starting on a new file, the
        first creates and fills it, and the others find it done.
        """
        db.execute("CREATE TABLE IF NOT EXISTS notes"
                   " (key INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS changes (position INTEGER PRIMARY KEY,"
                   " key INTEGER NOT NULL, change TEXT NOT NULL, text TEXT)")
        cursor = db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', '1')")
        if cursor.rowcount == 1:
            db.executemany("INSERT INTO notes VALUES (?, ?)", sorted(notes.items()))
        db.execute("PRAGMA application_id = %d" % APPLICATION_ID)

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """An idle connection of this store, or a new one; one thread uses it at a time.

        A WAL file on a read-only disk cannot be opened for reading as usual (SQLite
        would create its shared-memory file): it is then read as immutable, as it is
        while the disk stays so, and such a connection is not kept.
        """
        try:
            db, keep = self._idle.pop(), True
        except IndexError:
            db, keep = self._connect()
        try:
            yield db
        finally:
            if db.in_transaction:  # a write that raised
                db.execute("ROLLBACK")
            if keep:
                self._idle.append(db)
            else:
                db.close()

    def _connect(self) -> Tuple[sqlite3.Connection, bool]:
        db = sqlite3.connect(self._path, timeout=BUSY_TIMEOUT, isolation_level=None,
                             check_same_thread=False)
        try:
            db.execute("PRAGMA application_id").fetchone()
            return db, True
        except sqlite3.OperationalError as exc:
            if "unable to open" not in str(exc) or os.access(
                    os.path.dirname(os.path.abspath(self._path)), os.W_OK):
                raise
            db.close()
        return sqlite3.connect("file:{}?immutable=1".format(os.path.abspath(self._path)),
                               uri=True, isolation_level=None, check_same_thread=False), False

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A connection in a write transaction, committed unless the block raises.

        It waits BUSY_TIMEOUT in all, for this process's other writes and then
        for other processes': past that, a 503.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT
        if not self._lock.acquire(timeout=BUSY_TIMEOUT):
            raise StoreBusy()
        try:
            with self._connection() as db:
                wait = max(0.0, deadline - time.monotonic())
                db.execute("PRAGMA busy_timeout = %d" % (wait * 1000))
                try:
                    db.execute("BEGIN IMMEDIATE")
                    yield db
                    db.execute("COMMIT")
                except sqlite3.OperationalError as exc:
                    raise _write_error(exc) from exc
                finally:
                    db.execute("PRAGMA busy_timeout = %d" % (BUSY_TIMEOUT * 1000))
        finally:
            self._lock.release()

    def items(self) -> List[Tuple[int, str]]:
        with self._connection() as db:
            return db.execute("SELECT key, text FROM notes ORDER BY key").fetchall()

    def get(self, key: int) -> Optional[str]:
        with self._connection() as db:
            row = db.execute("SELECT text FROM notes WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def create(self, text: str) -> int:
        with self._write() as db:
            key = _key_after(db.execute("SELECT MAX(key) FROM notes").fetchone()[0])
            db.execute("INSERT INTO notes VALUES (?, ?)", (key, text))
            self._log(db, key, "created", text)
        self._logged()
        return key

    def put(self, key: int, text: str) -> None:
        with self._write() as db:
            replaced = db.execute("UPDATE notes SET text = ? WHERE key = ?", (text, key)).rowcount
            if not replaced:
                db.execute("INSERT INTO notes VALUES (?, ?)", (key, text))
            self._log(db, key, "replaced" if replaced else "created", text)
        self._logged()

    def delete(self, key: int) -> None:
        with self._write() as db:
            if not db.execute("DELETE FROM notes WHERE key = ?", (key,)).rowcount:
                return  # nothing was there, so nothing changed
            self._log(db, key, "deleted", None)
        self._logged()

    @staticmethod
    def _log(db: sqlite3.Connection, key: int, change: str, text: Optional[str]) -> None:
        """Log a change in the write's transaction, and let go of the one the log no longer
        keeps. Writes hold the file's write lock, so positions follow each other."""
        db.execute("INSERT INTO changes SELECT COALESCE(MAX(position), 0) + 1, ?, ?, ?"
                   " FROM changes", (key, change, text))
        db.execute("DELETE FROM changes WHERE position <= last_insert_rowid() - ?",
                   (CHANGES_KEPT,))

    def snapshot(self) -> Tuple[List[Tuple[int, str]], int]:
        with self._connection() as db:
            db.execute("BEGIN")  # one read transaction: the notes as of that position
            items = db.execute("SELECT key, text FROM notes ORDER BY key").fetchall()
            position = db.execute("SELECT COALESCE(MAX(position), 0) FROM changes").fetchone()
            db.execute("COMMIT")
        return items, position[0]

    def position(self) -> int:
        with self._connection() as db:
            return db.execute("SELECT COALESCE(MAX(position), 0) FROM changes").fetchone()[0]

    def changes(self, after: int, limit: int) -> List[Change]:
        with self._connection() as db:
            found = [Change(*row) for row in db.execute(
                "SELECT position, key, change, text FROM changes WHERE position > ?"
                " ORDER BY position LIMIT ?", (after, limit))]
        return _following(after, found, None if found else self.position())

    def watch(self, changed: Callable[[], None], stop: threading.Event) -> None:
        """Ask the file every SQLITE_POLL seconds whether another connection has committed
        (``PRAGMA data_version``, which reads SQLite's shared memory, not a table)."""
        db = self._connect()[0]  # its own: the count is of other connections' commits
        try:
            seen = None
            while True:
                version = db.execute("PRAGMA data_version").fetchone()[0]
                if version != seen:
                    seen = version
                    changed()
                if stop.wait(SQLITE_POLL):
                    return
        finally:
            db.close()


_log = logging.getLogger(__name__)


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


#: Marks the notes table as this app's, where a PostgreSQL database holds other tables too.
POSTGRES_MARK = "flask_api notes, schema 1"
POSTGRES_POOL = 4  # connections a process keeps to PostgreSQL, at most
POSTGRES_CONNECT_TIMEOUT = 3  # seconds to reach the server, or to wait for a free connection
POSTGRES_CHANNEL = "note_changes"  # what each write NOTIFYs, with its position, as it commits
# The listening connection finds out that the server is gone within a minute, even where no
# packet says so (a machine or a network gone): TCP keepalives, and a round trip after quiet.
POSTGRES_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 20, "keepalives_interval": 5,
                       "keepalives_count": 3}  # type: Dict[str, Any]
POSTGRES_LISTEN_CHECK = 10.0  # seconds of quiet after which the listener checks its connection
POSTGRES_RELISTEN = 0.2  # seconds between the listener's tries to reach the server again
# seconds the pool tries to replace a connection lost, its tries a second apart, before it
# leaves it to the next request: its own backoff, at 1, 2, 4, 8 s..., would keep a restarted
# server waiting that long
POSTGRES_RECONNECT = 1.0


class PostgresNoteStore(BaseNoteStore):
    """Notes in a PostgreSQL database that any number of servers share (psycopg 3).

    Each process keeps a small pool of connections. Writes take one transaction-scoped
    advisory lock, so finding the largest key and storing under the next one is a
    single step across every server; reads take none. The server down, restarting or
    out of reach is a 503 within ``POSTGRES_CONNECT_TIMEOUT``, and the pool reconnects
    by itself. Out of reach at start, too: the store starts anyway, and a request tries
    again at most once a second. The table is created on first use; a ``notes`` table
    that is not this app's is refused.

    Each write logs its change in ``note_changes``, in its transaction (so under the
    lock, at the largest position + 1), and NOTIFYs POSTGRES_CHANNEL, which PostgreSQL
    delivers once it commits: `watch` LISTENs for it on a connection of its own.
    """

    LOCK = 0x4E4F5445  # the advisory lock every write of this app takes
    keeps_changes = True

    def __init__(self, url: str, notes: Optional[Dict[int, str]] = None) -> None:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise StoreError("a postgresql:// database needs psycopg 3 and psycopg_pool: "
                             "pip install -e '.[postgres]' ({})".format(exc)) from exc
        self._url, self._notes = url, INITIAL_NOTES if notes is None else notes
        self._errors = (psycopg.OperationalError, psycopg.InterfaceError)
        self._pool = ConnectionPool(
            url, min_size=1, max_size=POSTGRES_POOL, timeout=POSTGRES_CONNECT_TIMEOUT,
            reconnect_timeout=POSTGRES_RECONNECT,
            kwargs={"connect_timeout": POSTGRES_CONNECT_TIMEOUT, "autocommit": True},
            check=ConnectionPool.check_connection, open=False)
        weakref.finalize(self, self._pool.close)
        self._starting = threading.Lock()
        self._ready, self._said, self._next_try = False, False, 0.0
        with contextlib.suppress(StoreUnreachable):  # said in the log; requests get a 503
            self._start()

    def _start(self) -> None:
        """Set up the table and open the pool, or a `StoreUnreachable` while the server
        cannot be reached. The log says so at the first failure, not at each, and says
        when the server is reached after all: once each per process."""
        import psycopg
        with self._starting:
            if self._ready:
                return
            if time.monotonic() < self._next_try:
                raise StoreUnreachable()
            try:
                with psycopg.connect(self._url, connect_timeout=POSTGRES_CONNECT_TIMEOUT,
                                     autocommit=True) as db, db.transaction():
                    self._set_up(db, self._notes)
            except self._errors as exc:  # refused, out of reach, starting up, a wrong password
                self._next_try = time.monotonic() + 1
                if not self._said:
                    _log.warning("notes_app: cannot reach the PostgreSQL database (%s); "
                                 "answering 503 until it can", _first_line(exc))
                self._said = True
                raise StoreUnreachable() from exc
            except psycopg.Error as exc:  # no right to create the table, a malformed URL...
                raise StoreError("cannot use the PostgreSQL database: {}".format(
                    _first_line(exc))) from exc
            self._pool.open()
            self._ready = True
        if self._said:
            _log.warning("notes_app: reached the PostgreSQL database: serving the notes")

    def _set_up(self, db: Any, notes: Dict[int, str]) -> None:
        """Create the table, marked as this app's, and fill it if new; refuse another's."""
        db.execute("SELECT pg_advisory_xact_lock(%s)", (self.LOCK,))
        found = db.execute("SELECT obj_description(to_regclass('notes'), 'pg_class'),"
                           " to_regclass('notes') IS NOT NULL").fetchone()
        if found[1] and found[0] != POSTGRES_MARK:
            raise StoreError("the database has a table 'notes' that is not this app's; give "
                             "the notes a database of their own.")
        if not found[1]:
            db.execute("CREATE TABLE notes (key BIGINT PRIMARY KEY, text TEXT NOT NULL)")
            db.execute("COMMENT ON TABLE notes IS '{}'".format(POSTGRES_MARK))
            with db.cursor() as cursor:
                cursor.executemany("INSERT INTO notes VALUES (%s, %s)", sorted(notes.items()))
        self._set_up_log(db)

    @staticmethod
    def _set_up_log(db: Any) -> None:
        """Create the change log's table, marked as this app's, if missing (as in a database
        from before it); refuse one of that name that is another's."""
        found = db.execute("SELECT obj_description(to_regclass('note_changes'), 'pg_class'),"
                           " to_regclass('note_changes') IS NOT NULL").fetchone()
        if found[1] and found[0] != POSTGRES_MARK:
            raise StoreError("the database has a table 'note_changes' that is not this app's; "
                             "give the notes a database of their own.")
        if not found[1]:
            db.execute("CREATE TABLE note_changes (position BIGINT PRIMARY KEY, key BIGINT"
                       " NOT NULL, change TEXT NOT NULL, text TEXT)")
            db.execute("COMMENT ON TABLE note_changes IS '{}'".format(POSTGRES_MARK))

    @contextlib.contextmanager
    def _connection(self, write: bool = False) -> Iterator[Any]:
        """A pooled connection (in a locked transaction for a write); a 503 when the
        server cannot be reached or the pool has no connection free in time."""
        from psycopg_pool import PoolTimeout
        if not self._ready:
            self._start()
        try:
            with self._pool.connection() as db:
                if not write:
                    yield db
                    return
                with db.transaction():
                    db.execute("SELECT pg_advisory_xact_lock(%s)", (self.LOCK,))
                    yield db
        except PoolTimeout as exc:
            raise StoreUnreachable() from exc
        except self._errors as exc:
            if "disk full" in str(exc).lower() or "no space left" in str(exc).lower():
                raise StoreFull() from exc
            raise StoreUnreachable() from exc

    def items(self) -> List[Tuple[int, str]]:
        with self._connection() as db:
            return [tuple(row) for row in db.execute(
                "SELECT key, text FROM notes ORDER BY key").fetchall()]

    def get(self, key: int) -> Optional[str]:
        with self._connection() as db:
            row = db.execute("SELECT text FROM notes WHERE key = %s", (key,)).fetchone()
        return None if row is None else row[0]

    def create(self, text: str) -> int:
        with self._connection(write=True) as db:
            key = _key_after(db.execute("SELECT MAX(key) FROM notes").fetchone()[0])
            db.execute("INSERT INTO notes VALUES (%s, %s)", (key, text))
            self._log(db, key, "created", text)
        return key

    def put(self, key: int, text: str) -> None:
        with self._connection(write=True) as db:
            replaced = db.execute("UPDATE notes SET text = %s WHERE key = %s",
                                  (text, key)).rowcount
            if not replaced:
                db.execute("INSERT INTO notes VALUES (%s, %s)", (key, text))
            self._log(db, key, "replaced" if replaced else "created", text)

    def delete(self, key: int) -> None:
        with self._connection(write=True) as db:
            if db.execute("DELETE FROM notes WHERE key = %s", (key,)).rowcount:
                self._log(db, key, "deleted", None)

    @staticmethod
    def _log(db: Any, key: int, change: str, text: Optional[str]) -> None:
        """Log a change, let go of the one the log no longer keeps, and NOTIFY its position:
        one statement, in the write's transaction."""
        db.execute(
            "WITH logged AS (INSERT INTO note_changes SELECT COALESCE(MAX(position), 0) + 1,"
            " %s, %s, %s FROM note_changes RETURNING position), let_go AS (DELETE FROM"
            " note_changes WHERE position <= (SELECT position FROM logged) - %s)"
            " SELECT pg_notify(%s, position::text) FROM logged",
            (key, change, text, CHANGES_KEPT, POSTGRES_CHANNEL))

    def snapshot(self) -> Tuple[List[Tuple[int, str]], int]:
        with self._connection() as db:  # one statement, so one snapshot, empty notes or not
            rows = db.execute(
                "SELECT latest.position, notes.key, notes.text FROM (SELECT COALESCE("
                "MAX(position), 0) AS position FROM note_changes) AS latest LEFT JOIN notes"
                " ON true ORDER BY notes.key").fetchall()
        return [(key, text) for _, key, text in rows if key is not None], rows[0][0]

    def position(self) -> int:
        with self._connection() as db:
            return db.execute(
                "SELECT COALESCE(MAX(position), 0) FROM note_changes").fetchone()[0]

    def changes(self, after: int, limit: int) -> List[Change]:
        with self._connection() as db:
            found = [Change(*row) for row in db.execute(
                "SELECT position, key, change, text FROM note_changes WHERE position > %s"
                " ORDER BY position LIMIT %s", (after, limit))]
        return _following(after, found, None if found else self.position())

    def watch(self, changed: Callable[[], None], stop: threading.Event) -> None:
        """LISTEN on a connection of its own, and call ``changed()`` for each NOTIFY; and
        once each time it has (re)connected, for what was written while no one listened.
        Connects again every POSTGRES_RELISTEN seconds while the server is out of reach."""
        while not stop.is_set():
            try:
                self._listen(changed, stop)
            except self._errors as exc:
                _log.info("notes_app: the change feed's listener lost PostgreSQL (%s); "
                          "listening again", _first_line(exc))
                stop.wait(POSTGRES_RELISTEN)

    def _listen(self, changed: Callable[[], None], stop: threading.Event) -> None:
        import psycopg
        with psycopg.connect(self._url, autocommit=True, connect_timeout=
                             POSTGRES_CONNECT_TIMEOUT, **POSTGRES_KEEPALIVES) as db:
            db.execute("LISTEN " + POSTGRES_CHANNEL)
            if self._ready:  # the pool's connections may be from before a restart: those
                self._pool.check()  # that are gone are replaced now, not after its backoff
            changed()
            heard = time.monotonic()
            while not stop.is_set():  # looked at each second, so that it stops soon
                for _ in db.notifies(timeout=1.0, stop_after=1):
                    heard = time.monotonic()
                    changed()
                if time.monotonic() - heard > POSTGRES_LISTEN_CHECK:
                    db.execute("SELECT 1")  # a round trip finds a connection that is gone
                    heard = time.monotonic()


FEED_HEARTBEAT = 15.0  # seconds of quiet after which a feed sends its position again
FEED_RETRY = 1000  # milliseconds an EventSource waits to reconnect, as the first event says
FEED_WRITE_TIMEOUT = 60  # seconds a feed waits for its client to take a write, then ends
FEED_BATCH = 100  # changes a feed (or the reader) takes at a time, from memory or the store...
FEED_BATCH_TEXT = 256 * 1024  # ...and characters of their texts (one change, at least)
FEED_RECENT = 1000  # changes each process keeps in memory for its feeds, at most...
FEED_RECENT_TEXT = 16 * 1024 * 1024  # ...and characters of their texts, at most
# Feeds a process holds at once (NOTES_FEEDS); one more is answered at once with a 503. Each
# holds one of the server's threads, so a worker needs this many threads and more for the
# other requests: gunicorn --threads 320. Beyond its threads, gthread accepts a connection
# and leaves it unanswered until a thread is free, which a feed never makes one.
DEFAULT_FEEDS = 300


class FeedsFull(APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    detail = "This server holds all the change feeds it can: try again shortly."

    def get_headers(self) -> Dict[str, str]:
        return {"Retry-After": "1"}


class _Reading:
    """The feed's two threads, from the first feed opened to the last one closed."""

    def __init__(self) -> None:
        self.stop, self.wake = threading.Event(), threading.Event()


class _Known(NamedTuple):
    """What the reader has read, replaced whole each time: feeds read it without a lock."""
    latest: Optional[int]  # the position of the last change read; None: not known yet
    recent: List[Change]  # the last changes read, in order (never changed once published)
    recent_text: int  # characters of their texts
    resets: int  # times the reader has found the log not where it left it


_UNKNOWN = _Known(None, [], 0, 0)


class ChangeFeed:
    """A store's changes, as this process's feeds follow them.

    While any feed is open, one thread (the reader) reads what is new in the change
    log, once for all of them, keeps the latest changes in memory and wakes the feeds;
    this process's writes wake it, and so does a second thread, the store's `watch`,
    for other processes' writes. A waiting feed holds no database connection: it takes
    what follows its position from memory, or from the store once it has fallen behind
    what memory keeps, FEED_BATCH at a time. Both threads end with the last feed.

    Each feed waits on an event of its own, which the reader sets: a thousand feeds
    woken at once do not queue for one lock, as they would around a `Condition`.
    """

    def __init__(self, store: BaseNoteStore) -> None:
        self._store = store
        self._known = _UNKNOWN
        self._lock = threading.Lock()  # guards all below, and the replacing of _known
        self._waiting: Set[threading.Event] = set()  # the feeds waiting for news
        self._feeds = 0
        self._reading = None  # type: Optional[_Reading]
        store.written = self._wake

    def follow(self, after: Optional[int], seconds: float = 0.0, most: int = 0
               ) -> Generator[Any, None, None]:
        """The changes after position ``after`` (None: from now), then each as it is made:
        in order, each once. Where there is nothing to send it yields its position, an int:
        first, and after each FEED_HEARTBEAT of quiet. Ends after ``seconds`` (0: never).
        Its first step raises what the request answers: `ChangesGone`, `StoreBusy`, and
        `FeedsFull` while this process has ``most`` feeds open (0: no bound)."""
        woken = threading.Event()
        self._open(most)
        try:
            position, batch = self._first(after)
            resets, quiet, end = self._known.resets, time.monotonic(), _deadline(seconds)
            if not batch:
                yield position
            while True:
                for change in batch:
                    yield change
                    position, quiet = change.position, time.monotonic()
                batch = self._next(position, min(quiet + FEED_HEARTBEAT, end), resets, woken)
                resets, now = self._known.resets, time.monotonic()
                if now >= end:
                    return
                if not batch and now >= quiet + FEED_HEARTBEAT:
                    yield position
                    quiet = now
        finally:
            self._close(woken)

    def _first(self, after: Optional[int]) -> Tuple[int, List[Change]]:
        """Where a feed starts, and its first changes: the store checks a position given."""
        if after is None:
            latest = self._known.latest
            return (self._store.position() if latest is None else latest), []
        return after, self._after(after)

    def _next(self, position: int, until: float, resets: int,
              woken: threading.Event) -> List[Change]:
        """What follows ``position`` once there is any, or [] at ``until`` (a monotonic time).
        A store out of reach is waited out, a second at a time, its feed kept open."""
        woken.clear()
        with self._lock:
            known = self._known
            if known.resets == resets and (known.latest is None or known.latest <= position):
                self._waiting.add(woken)
            else:
                woken.set()
        woken.wait(max(0.0, until - time.monotonic()))
        try:
            return self._after(position)
        except StoreBusy:
            time.sleep(max(0.0, min(1.0, until - time.monotonic())))
            return []

    def _after(self, position: int) -> List[Change]:
        """Up to FEED_BATCH changes after ``position``: from memory where it has them, else
        from the store, which also says if the position is gone (`ChangesGone`)."""
        latest, recent = self._known.latest, self._known.recent
        if position == latest:
            return []
        if latest is not None and position < latest and recent and (
                recent[0].position <= position + 1):
            start = position + 1 - recent[0].position
            return _batch(recent[start:start + FEED_BATCH])
        return _batch(self._store.changes(position, FEED_BATCH))

    def _open(self, most: int) -> None:
        """Count a feed in, or refuse it past ``most``; the first starts the reader and the
        watcher."""
        with self._lock:
            if 0 < most <= self._feeds:
                raise FeedsFull()
            self._feeds += 1
            if self._reading is not None:
                return
            self._reading = reading = _Reading()
        reading.wake.set()  # the reader starts by reading where the log is
        for name, target in (("reader", self._read), ("watcher", self._watch)):
            threading.Thread(target=target, args=(reading,), daemon=True,
                             name="notes change feed: " + name).start()

    def _close(self, woken: threading.Event) -> None:
        """Count a feed out; the last stops the threads and lets go of what they read."""
        with self._lock:
            self._waiting.discard(woken)
            self._feeds -= 1
            if self._feeds or self._reading is None:
                return
            self._reading.stop.set()
            self._reading.wake.set()
            self._reading, self._known = None, _UNKNOWN

    def _wake(self) -> None:
        reading = self._reading
        if reading is not None:
            reading.wake.set()

    def _watch(self, reading: _Reading) -> None:
        """The watcher: the store's `watch`, started again a second after any failure."""
        while not reading.stop.is_set():
            try:
                self._store.watch(reading.wake.set, reading.stop)
            except Exception:  # noqa: BLE001 - logged; the feeds go on with this process's writes
                _log.exception("notes_app: the change feed cannot watch the store; trying again")
                reading.stop.wait(1.0)

    def _read(self, reading: _Reading) -> None:
        """The reader: on each wake, what is new, read once for every feed of this process."""
        failing = False
        while True:
            reading.wake.wait()
            reading.wake.clear()  # before reading: a write after the read wakes it again
            if reading.stop.is_set():
                return
            try:
                self._catch_up(reading)
                failing = False
            except Exception as exc:  # noqa: BLE001 - the store out of reach: again in a second
                if not failing:
                    _log.warning("notes_app: the change feed cannot read the changes (%s); "
                                 "trying again each second", _first_line(exc))
                failing = True
                reading.wake.set()
                reading.stop.wait(1.0)

    def _catch_up(self, reading: _Reading) -> None:
        """Read what follows the last change read, FEED_BATCH at a time, and publish it.
        A log that has let go of those (10,000 writes while the reader could not read), or
        that ends before them (another database), is taken up again from its end."""
        latest = self._known.latest
        if latest is None:
            latest = self._store.position()
            self._publish(reading, [], latest)
        while True:
            try:
                found = self._store.changes(latest, FEED_BATCH)
            except ChangesGone:
                self._publish(reading, [], self._store.position(), reset=True)
                return
            self._publish(reading, found, latest)
            if len(found) < FEED_BATCH:
                return
            latest = found[-1].position

    def _publish(self, reading: _Reading, found: List[Change], latest: int,
                 reset: bool = False) -> None:
        """Keep ``found`` (the changes after ``latest``) in memory, as much as it keeps, and
        wake the feeds waiting. Memory's changes are a new list, as feeds read the old one."""
        with self._lock:
            if reading is not self._reading:
                return  # the last feed has closed since this was read
            known = _Known(None, [], 0, self._known.resets + 1) if reset else self._known
            recent = known.recent + found
            text = known.recent_text + sum(len(change.text or "") for change in found)
            cut = 0
            while cut < len(recent) and (len(recent) - cut > FEED_RECENT
                                         or text > FEED_RECENT_TEXT):
                text -= len(recent[cut].text or "")
                cut += 1
            self._known = _Known(found[-1].position if found else latest, recent[cut:], text,
                                 known.resets)
            waiting, self._waiting = self._waiting, set()
        for woken in waiting:
            woken.set()


def _batch(changes: List[Change]) -> List[Change]:
    """The first of ``changes`` whose texts, all but the last, come to FEED_BATCH_TEXT
    characters at most: what a feed holds while its client is slow to read, big notes or not."""
    size = 0
    for count, change in enumerate(changes):
        if size > FEED_BATCH_TEXT:
            return changes[:count]
        size += len(change.text or "")
    return changes


def _deadline(seconds: float) -> float:
    return time.monotonic() + seconds if seconds > 0 else float("inf")


_FEEDS = weakref.WeakKeyDictionary()  # type: weakref.WeakKeyDictionary[BaseNoteStore, ChangeFeed]


def _feed_of(store: BaseNoteStore) -> ChangeFeed:
    """The store's one feed in this process, however many apps serve the store."""
    feed = _FEEDS.get(store)
    if feed is None:
        feed = _FEEDS[store] = ChangeFeed(store)
    return feed


def _store_for(db: str, notes: Optional[Dict[int, str]]) -> BaseNoteStore:
    """The store a ``--db``/``NOTES_DB`` value names: PostgreSQL by URL, else an SQLite file."""
    if re.match(r"postgres(ql)?://", db):
        return PostgresNoteStore(db, notes)
    return SQLiteNoteStore(db, notes)


def _key(text: str) -> int:
    """A URL's key as an int; anything but 1 to 18 digits is a note that does not exist."""
    if not KEY_PATTERN.fullmatch(text):
        raise NotFound()
    return int(text)


def _text_from_body() -> str:
    """The ``text`` field of a JSON object, form or multipart body; absent is ""."""
    data = request.data
    if not isinstance(data, dict):
        raise ParseError("Expected an object with a 'text' field.")
    text = data.get("text", "")
    return text if isinstance(text, str) else str(text)


def _note(key: int, text: str) -> Dict[str, Any]:
    return {"url": url_for("notes_detail", key=key, _external=True), "text": text}


def _changes_link(position: int) -> str:
    """The list's ``Link`` to the changes that follow it (the page shows it as a button),
    relative to the list's URL as RFC 8288 allows: a path, with the request's prefix."""
    return '<{}?after={}>; rel="changes"'.format(url_for("notes_changes"), position)


def _position_asked() -> Optional[int]:
    """Where a feed starts: after the ``Last-Event-ID`` an EventSource sends as it resumes,
    else after ``?after=``; None (neither) for from now. Both are checked, but for the id of
    the feed's own end (`ServerSentEvent.END_ID`, after a ``stream-error``), which is no
    position: the framework answers that reconnection with its 204 before the feed starts."""
    after = _position(request.args.get("after"))
    resumed = cast(APIRequest, request).last_event_id
    if resumed == ServerSentEvent.END_ID:
        return after
    return after if resumed is None else _position(resumed)


def _position(text: Optional[str]) -> Optional[int]:
    """A position a client sends: None for none, or a `ParseError` (400) for a bad one (an
    empty one too: EventSource sends no ``Last-Event-ID`` rather than an empty one)."""
    if text is None:
        return None
    if not KEY_PATTERN.fullmatch(text.strip()):
        raise ParseError("A position is a whole number from 0 to {}, as the feed's items and "
                         "the list's Link give it: not {!r}.".format("9" * MAX_KEY_DIGITS, text))
    return int(text)


def _feed_items(followed: Generator[Any, None, None], notes_url: str
                ) -> Iterator[ServerSentEvent]:
    """The feed's items as clients get them, each a server-sent event whose id is its
    position: each change, with its note's URL (``notes_url`` is the list's: the request is
    gone by the time they are made), and where the feed is when it has nothing to send,
    ``{"position": 7}``, an event of type ``position``. The first tells EventSource to
    reconnect after a second (its default is its own, 3 s in Chromium)."""
    retry = FEED_RETRY  # type: Optional[int]
    with contextlib.closing(followed):
        for item in followed:
            if isinstance(item, int):
                yield ServerSentEvent({"position": item}, item, "position", retry)
            else:
                yield ServerSentEvent({
                    "position": item.position, "change": item.change, "key": item.key,
                    "text": item.text, "url": "{}{}/".format(notes_url, item.key)},
                    item.position, None, retry)
            retry = None


def _seconds(text: str, source: str) -> float:
    """A duration from the environment: seconds, 0 or more."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise ValueError("{} must be a number of seconds, 0 or more, not {!r}".format(
            source, text))
    return seconds


def _byte_count(text: str, source: str, what: str = "bytes") -> int:
    """A body limit (or a count of ``what``) from the command line or the environment: a
    whole number, above 0."""
    if not re.fullmatch(r"\s*[0-9]+\s*", text) or int(text) == 0:
        raise ValueError("{} must be a whole number of {} above 0, not {!r}".format(
            source, what, text))
    return int(text)


def _hosts(text: str) -> List[str]:
    """``"example.com, .example.org"`` as a list; a leading dot allows the subdomains too."""
    return [host.strip() for host in text.split(",") if host.strip()]


def _trust_only(app: Flask, hosts: Sequence[str]) -> None:
    """Answer 400 to a request whose Host is not one of ``hosts``."""
    app.config["TRUSTED_HOSTS"] = list(hosts)
    if "TRUSTED_HOSTS" in Flask.default_config:
        return  # Flask 3.1+ checks the Host itself
    # Older Flask ignores the setting: check the header before any view, with
    # werkzeug's own matching (raises SecurityError, a 400).

    @app.before_request
    def check_host() -> None:
        get_host(request.environ, trusted_hosts=hosts)


# What the OpenAPI document cannot infer from the views: their bodies and answers. In JSON,
# "text" may be any value, kept as its string (see _text_from_body), so the schema says so.
_NOTE = {"type": "object", "required": ["url", "text"], "properties": {
    "url": {"type": "string", "format": "uri"}, "text": {"type": "string"}}}
_ERROR = {"$ref": "#/components/schemas/Error"}
_ANY_TEXT = {"description": "The note's text; another value is kept as its string.",
             "examples": ["buy milk"]}
_TEXT_BODY = {"content": {media_type: {"schema": {"type": "object", "properties": {
    "text": _ANY_TEXT if media_type == "application/json" else {"type": "string"}}}}
    for media_type in (
        "application/json", "application/x-www-form-urlencoded", "multipart/form-data")}}


def _answer(description: str, schema: Any) -> Dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_BUSY = _answer("The store is busy with other writes: try again.", _ERROR)
_CHANGES_LINK = {"Link": {"description": "The changes that follow the list: "
                          '`<.../changes?after=7>; rel="changes"`.',
                          "schema": {"type": "string"}}}
_POSITION = {"type": "integer", "minimum": 0, "maximum": 10 ** MAX_KEY_DIGITS - 1}
_CHANGE = {"type": "object", "required": ["position"], "properties": {
    "position": dict(_POSITION, description="Where the change is in the log: each is the one "
                     "before + 1. An item with nothing else says where the feed is."),
    "change": {"enum": ["created", "replaced", "deleted"]},
    "key": {"type": "integer", "minimum": 0},
    "text": {"type": ["string", "null"], "description": "The note's text; null once deleted."},
    "url": {"type": "string", "format": "uri"}}}
_START = "The feed starts after this position (the last one a client has); else from now."


def create_app(notes: Optional[Dict[int, str]] = None, max_body: Optional[int] = None,
               trusted_hosts: Optional[Sequence[str]] = None, db: Optional[str] = None,
               store: Optional[BaseNoteStore] = None,
               feed_seconds: Optional[float] = None, feeds: Optional[int] = None
               ) -> FlaskAPI:
    """A notes API with its own store (tests make a fresh one each).

    ``notes`` are the notes a new store starts with (the three reference notes by
    default). A setting left as None comes from the environment, else its default:
    ``NOTES_DB`` (an SQLite file; in memory), ``NOTES_MAX_BODY`` (1 MiB),
    ``NOTES_TRUSTED_HOSTS`` (comma-separated; any host), ``NOTES_FEED_SECONDS`` (how
    long a change feed stays open; 0, until its client goes), ``NOTES_FEEDS`` (the feeds
    a process holds at once, DEFAULT_FEEDS; one more is a 503).
    """
    env = os.environ
    if store is None:
        db = db or env.get("NOTES_DB")
        store = _store_for(db, notes) if db else NoteStore(notes)
    if max_body is None:
        max_body = _byte_count(env.get("NOTES_MAX_BODY", str(DEFAULT_MAX_BODY)),
                               "NOTES_MAX_BODY")
    if feed_seconds is None:
        feed_seconds = _seconds(env.get("NOTES_FEED_SECONDS", "0"), "NOTES_FEED_SECONDS")
    if feeds is None:
        feeds = _byte_count(env.get("NOTES_FEEDS", str(DEFAULT_FEEDS)), "NOTES_FEEDS", "feeds")
    if trusted_hosts is None and env.get("NOTES_TRUSTED_HOSTS", "").strip():
        trusted_hosts = _hosts(env["NOTES_TRUSTED_HOSTS"])
    app = FlaskAPI(__name__)
    app.config["MAX_CONTENT_LENGTH"] = max_body
    app.config["STREAM_WRITE_TIMEOUT"] = FEED_WRITE_TIMEOUT  # a client that stops reading
    if trusted_hosts is not None:
        _trust_only(app, trusted_hosts)

    @app.route("/", methods=["GET", "POST"])
    @set_openapi({
        "get": {"responses": {"200": dict(_answer("The notes.", {"type": "array", "items": _NOTE}),
                                          headers=_CHANGES_LINK)}},
        "post": {"requestBody": _TEXT_BODY, "responses": {
            "200": None, "201": _answer("The new note.", _NOTE),
            "409": _answer("No keys left.", _ERROR), "503": _BUSY}}})
    def notes_list() -> Any:
        """All notes, ordered by key.

        `POST` a `text` field, as JSON or a form, to add a note. The `changes`
        link follows the list with every change made after it.
        """
        if request.method == "POST":
            text = _text_from_body()
            key = store.create(text)
            return _note(key, text), status.HTTP_201_CREATED
        if not store.keeps_changes:
            return [_note(key, text) for key, text in store.items()]
        items, position = store.snapshot()
        return [_note(key, text) for key, text in items], {"Link": _changes_link(position)}

    @app.route("/<key>/", methods=["GET", "PUT", "DELETE"])
    @set_openapi({
        "responses": {"200": _answer("The note.", _NOTE)},
        "put": {"requestBody": _TEXT_BODY, "responses": {"503": _BUSY}},
        "delete": {"responses": {"200": None, "204": {"description": "Gone."}, "503": _BUSY}}})
    def notes_detail(key: str) -> Any:
        """One note.

        `PUT` a `text` field to replace it (or create it under this key);
        `DELETE` removes it.
        """
        number = _key(key)
        if request.method == "PUT":
            text = _text_from_body()
            store.put(number, text)
            return _note(number, text)
        if request.method == "DELETE":
            store.delete(number)
            return None, status.HTTP_204_NO_CONTENT
        stored = store.get(number)
        if stored is None:
            raise NotFound()
        return _note(number, stored)

    if store.keeps_changes:
        _add_feed(app, _feed_of(store), feed_seconds, feeds)
    return app


def _add_feed(app: FlaskAPI, feed: ChangeFeed, seconds: float, most: int) -> None:
    """``GET /changes``: the store's change feed, in each of the framework's streams; ``most``
    of them open at once in this process."""

    @app.route("/changes")
    @set_openapi({
        "parameters": [
            {"name": "after", "in": "query", "description": _START, "schema": _POSITION},
            {"name": "Last-Event-ID", "in": "header", "description": _START + " EventSource "
             "sends it as it resumes; it wins over `after`.", "schema": _POSITION}],
        "responses": {
            "200": {"description": "The changes, as they are made.", "content": {
                "application/jsonl": {"itemSchema": _CHANGE}}},
            "400": _answer("Not a position.", _ERROR),
            "410": _answer("The changes after that position are no longer kept.", _ERROR),
            "503": _answer("The notes' database cannot be reached just now, or this "
                           "server holds all the feeds it can.", _ERROR)}})
    def notes_changes() -> Any:
        """Every note created, replaced or deleted, as it happens.

        Each change comes with its `position` in the log; the feed starts after the
        position `?after=` (or `Last-Event-ID`) gives, or from now. Where it has
        nothing to send, an item says where it is: `{"position": 7}`. The log keeps
        the last 10,000 changes; a position older than those is a 410. A server that
        holds all the feeds it can answers 503 at once: try again after its `Retry-After`.
        """
        after = _position_asked()
        return _feed_items(feed.follow(after, seconds, most),
                           url_for("notes_list", _external=True))


try:
    app = create_app()
except StoreError as exc:  # gunicorn notes_app:app with NOTES_DB set to another app's file
    raise SystemExit("notes_app: {}".format(exc)) from None


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the notes API (development server).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument("--db", metavar="FILE_OR_URL",
                        help="keep the notes in this SQLite file, created if missing, or "
                             "in the PostgreSQL database of a postgresql:// URL "
                             "(default: $NOTES_DB, else in memory)")
    parser.add_argument("--max-body", metavar="BYTES",
                        help="answer 413 to a larger request body "
                             "(default: $NOTES_MAX_BODY, else 1 MiB)")
    args = parser.parse_args(argv)
    try:
        max_body = None if args.max_body is None else _byte_count(args.max_body, "--max-body")
        served = create_app(max_body=max_body, db=args.db)
    except ValueError as exc:  # a bad limit, here or in the environment
        parser.error(str(exc))
    except StoreError as exc:  # another app's database file, or a damaged one
        parser.exit(1, "notes_app: {}\n".format(exc))
    served.run(host=args.host, port=args.port, threaded=True)


if __name__ == "__main__":
    main()
