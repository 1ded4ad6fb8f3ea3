"""The reference API on flask_api: short text notes, in memory, SQLite or PostgreSQL.

    python notes_app.py                 # http://127.0.0.1:5000/
    python notes_app.py --port 8000     # or: flask --app notes_app run
    python notes_app.py --db notes.db   # or: NOTES_DB=notes.db gunicorn -w 4 notes_app:app
    NOTES_DB=postgresql://user:password@host/db gunicorn -w 4 notes_app:app   # many machines

Open it in a browser for the browsable page, or use curl for JSON.
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
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from flask import Flask, request, url_for
from werkzeug.wsgi import get_host

from flask_api import APIException, FlaskAPI, NotFound, ParseError, set_openapi, status

INITIAL_NOTES = {0: "do the shopping", 1: "build the codez", 2: "paint the door"}
MAX_KEY_DIGITS = 18  # keeps keys far below Python's int/str conversion limit
KEY_PATTERN = re.compile(r"[0-9]{1,%d}" % MAX_KEY_DIGITS)
DEFAULT_MAX_BODY = 1024 * 1024  # bytes; a larger request body is a 413
BUSY_TIMEOUT = 10.0  # seconds a write waits for other writes, in all, before a 503
APPLICATION_ID = 0x4E4F5445  # "NOTE": marks an SQLite file as this app's


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


class StoreError(Exception):
    """A database the notes app cannot use at all: another app's, a corrupt one, or one
    that cannot be reached as it starts."""


class StoreUnreachable(StoreBusy):
    detail = "The notes' database cannot be reached just now: try again shortly."


class BaseNoteStore:
    """What the views need from a store: five operations, each atomic.

    A class with these five methods can keep the notes anywhere, a database
    server included: pass it to ``create_app(store=...)``.
    """

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


def _key_after(largest: Optional[int]) -> int:
    """The key for a new note: the largest + 1, or 0; NoKeysLeft past MAX_KEY_DIGITS."""
    key = 0 if largest is None else largest + 1
    if len(str(key)) > MAX_KEY_DIGITS:
        raise NoKeysLeft()
    return key


class NoteStore(BaseNoteStore):
    """Notes in this process's memory; a lock makes every operation safe across threads."""

    def __init__(self, notes: Optional[Dict[int, str]] = None) -> None:
        self._notes = dict(INITIAL_NOTES if notes is None else notes)
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
            return key

    def put(self, key: int, text: str) -> None:
        with self._lock:
            self._notes[key] = text

    def delete(self, key: int) -> None:
        with self._lock:
            self._notes.pop(key, None)


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
    """

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
        the mark). Anything else is a `StoreError`: the app must not write into it."""
        mark = db.execute("PRAGMA application_id").fetchone()[0]
        tables = {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        ours = tables == {"notes", "meta"} and db.execute(
            "SELECT value FROM meta WHERE name = 'schema'").fetchone() == ("1",)
        if mark == APPLICATION_ID and ours:
            return True
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
        return key

    def put(self, key: int, text: str) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO notes VALUES (?, ?)", (key, text))

    def delete(self, key: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM notes WHERE key = ?", (key,))


_log = logging.getLogger(__name__)


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


#: Marks the notes table as this app's, where a PostgreSQL database holds other tables too.
POSTGRES_MARK = "flask_api notes, schema 1"
POSTGRES_POOL = 4  # connections a process keeps to PostgreSQL, at most
POSTGRES_CONNECT_TIMEOUT = 3  # seconds to reach the server, or to wait for a free connection


class PostgresNoteStore(BaseNoteStore):
    """Notes in a PostgreSQL database that any number of servers share (psycopg 3).

    Each process keeps a small pool of connections. Writes take one transaction-scoped
    advisory lock, so finding the largest key and storing under the next one is a
    single step across every server; reads take none. The server down, restarting or
    out of reach is a 503 within ``POSTGRES_CONNECT_TIMEOUT``, and the pool reconnects
    by itself. Out of reach at start, too: the store starts anyway, and a request tries
    again at most once a second. The table is created on first use; a ``notes`` table
    that is not this app's is refused.
    """

    LOCK = 0x4E4F5445  # the advisory lock every write of this app takes

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
        return key

    def put(self, key: int, text: str) -> None:
        with self._connection(write=True) as db:
            db.execute("INSERT INTO notes VALUES (%s, %s) ON CONFLICT (key)"
                       " DO UPDATE SET text = excluded.text", (key, text))

    def delete(self, key: int) -> None:
        with self._connection(write=True) as db:
            db.execute("DELETE FROM notes WHERE key = %s", (key,))


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


def _byte_count(text: str, source: str) -> int:
    """A body limit from the command line or the environment: whole bytes, above 0."""
    if not re.fullmatch(r"\s*[0-9]+\s*", text) or int(text) == 0:
        raise ValueError("{} must be a whole number of bytes above 0, not {!r}".format(
            source, text))
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


def create_app(notes: Optional[Dict[int, str]] = None, max_body: Optional[int] = None,
               trusted_hosts: Optional[Sequence[str]] = None, db: Optional[str] = None,
               store: Optional[BaseNoteStore] = None) -> FlaskAPI:
    """A notes API with its own store (tests make a fresh one each).

    ``notes`` are the notes a new store starts with (the three reference notes by
    default). A setting left as None comes from the environment, else its default:
    ``NOTES_DB`` (an SQLite file; in memory), ``NOTES_MAX_BODY`` (1 MiB),
    ``NOTES_TRUSTED_HOSTS`` (comma-separated; any host).
    """
    env = os.environ
    if store is None:
        db = db or env.get("NOTES_DB")
        store = _store_for(db, notes) if db else NoteStore(notes)
    if max_body is None:
        max_body = _byte_count(env.get("NOTES_MAX_BODY", str(DEFAULT_MAX_BODY)),
                               "NOTES_MAX_BODY")
    if trusted_hosts is None and env.get("NOTES_TRUSTED_HOSTS", "").strip():
        trusted_hosts = _hosts(env["NOTES_TRUSTED_HOSTS"])
    app = FlaskAPI(__name__)
    app.config["MAX_CONTENT_LENGTH"] = max_body
    if trusted_hosts is not None:
        _trust_only(app, trusted_hosts)

    @app.route("/", methods=["GET", "POST"])
    @set_openapi({
        "get": {"responses": {"200": _answer("The notes.", {"type": "array", "items": _NOTE})}},
        "post": {"requestBody": _TEXT_BODY, "responses": {
            "200": None, "201": _answer("The new note.", _NOTE),
            "409": _answer("No keys left.", _ERROR), "503": _BUSY}}})
    def notes_list() -> Any:
        """All notes, ordered by key.

        `POST` a `text` field, as JSON or a form, to add a note.
        """
        if request.method == "POST":
            text = _text_from_body()
            key = store.create(text)
            return _note(key, text), status.HTTP_201_CREATED
        return [_note(key, text) for key, text in store.items()]

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

    return app


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
