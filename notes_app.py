"""The reference API on flask_api: short text notes kept in memory.

    python notes_app.py                 # http://127.0.0.1:5000/
    python notes_app.py --port 8000     # or: flask --app notes_app run

Open it in a browser for the browsable page, or use curl for JSON.
"""

import argparse
import re
import threading
from typing import Any, Dict, List, Optional, Tuple

from flask import request, url_for

from flask_api import APIException, FlaskAPI, NotFound, ParseError, status

INITIAL_NOTES = {0: "do the shopping", 1: "build the codez", 2: "paint the door"}
MAX_KEY_DIGITS = 18  # keeps keys far below Python's int/str conversion limit
KEY_PATTERN = re.compile(r"[0-9]{1,%d}" % MAX_KEY_DIGITS)


class NoKeysLeft(APIException):
    status_code = status.HTTP_409_CONFLICT
    detail = "No keys left: the largest key is taken."


class NoteStore:
    """Notes under integer keys; a lock makes every operation safe across threads."""

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
        """Store under the largest key + 1 (0 when empty) and return that key."""
        with self._lock:
            key = max(self._notes, default=-1) + 1
            if len(str(key)) > MAX_KEY_DIGITS:
                raise NoKeysLeft()
            self._notes[key] = text
            return key

    def put(self, key: int, text: str) -> None:
        with self._lock:
            self._notes[key] = text

    def delete(self, key: int) -> None:
        with self._lock:
            self._notes.pop(key, None)


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


def create_app(notes: Optional[Dict[int, str]] = None) -> FlaskAPI:
    """A notes API with its own store (tests make a fresh one each)."""
    app = FlaskAPI(__name__)
    store = NoteStore(notes)

    @app.route("/", methods=["GET", "POST"])
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


app = create_app()


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the notes API (development server).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args(argv)
    app.run(host=args.host, port=args.port, threaded=True)


if __name__ == "__main__":
    main()
