"""End-to-end tests of flask_api.py and notes_app.py.

Through the Flask test client wherever possible; the browsable page also in a
real headless Chromium. Runs on Python 3.6 + Flask 1.1 up to the newest.
"""

import os
import subprocess
import sys
import threading

import pytest
from flask import Flask, request

import flask_api
import notes_app
from flask_api import FlaskAPI, status


@pytest.fixture
def app():
    """A fresh, empty FlaskAPI app; tests add their own routes."""
    app = FlaskAPI(__name__)
    app.testing = True
    return app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def notes_client():
    """A test client for a notes API with a fresh store (keys 0, 1, 2)."""
    app = notes_app.create_app()
    app.testing = True
    return app.test_client()


def test_flaskapi_is_a_flask_app(app):
    assert isinstance(app, Flask)
    assert isinstance(status.HTTP_200_OK, int)
    assert request is not None and flask_api.__version__


# ---------------------------------------------------------------------------
# Notes app: helpers
# ---------------------------------------------------------------------------

INITIAL_TEXTS = ["do the shopping", "build the codez", "paint the door"]


def _notes_client_for(notes=None, propagate=True):
    """A client for a fresh notes app; ``propagate=False`` turns crashes into 500s."""
    app = notes_app.create_app(notes=notes)
    app.testing = propagate
    return app.test_client()


def _texts(client):
    resp = client.get("/")
    assert resp.status_code == 200
    return [note["text"] for note in resp.get_json()]


def _key_of(note):
    """The integer key at the end of a note's url (``.../<key>/``)."""
    return int(note["url"].rstrip("/").rsplit("/", 1)[1])


def _assert_api_error(resp, code):
    assert resp.status_code == code
    assert resp.mimetype == "application/json"
    detail = resp.get_json()["detail"]
    assert isinstance(detail, str) and detail


# ---------------------------------------------------------------------------
# Notes app: listing
# ---------------------------------------------------------------------------

def test_notes_list_starts_with_three_notes_ordered_by_key(notes_client):
    resp = notes_client.get("/")
    assert resp.status_code == 200
    assert resp.mimetype == "application/json"
    assert resp.get_json() == [
        {"url": "http://localhost/0/", "text": "do the shopping"},
        {"url": "http://localhost/1/", "text": "build the codez"},
        {"url": "http://localhost/2/", "text": "paint the door"},
    ]


def test_notes_list_orders_by_numeric_key_not_insertion_or_text(notes_client):
    notes_client.put("/10/", json={"text": "ten"})
    notes_client.put("/5/", json={"text": "five"})
    keys = [_key_of(note) for note in notes_client.get("/").get_json()]
    assert keys == [0, 1, 2, 5, 10]


def test_notes_list_of_an_empty_store_is_an_empty_array():
    resp = _notes_client_for(notes={}).get("/")
    assert resp.status_code == 200
    assert resp.get_json() == []


# ---------------------------------------------------------------------------
# Notes app: creating with POST
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    {"json": {"text": "water the plants"}},
    {"data": {"text": "water the plants"}},
    {"data": {"text": "water the plants"}, "content_type": "multipart/form-data"},
], ids=["json", "form", "multipart"])
def test_post_creates_a_note_from_json_form_or_multipart(notes_client, body):
    resp = notes_client.post("/", **body)
    assert resp.status_code == 201
    assert resp.get_json() == {"url": "http://localhost/3/", "text": "water the plants"}
    assert notes_client.get("/3/").get_json()["text"] == "water the plants"
    assert _texts(notes_client) == INITIAL_TEXTS + ["water the plants"]


def test_post_keys_count_up_from_the_largest_key(notes_client):
    urls = [notes_client.post("/", json={"text": str(n)}).get_json()["url"] for n in range(3)]
    assert urls == ["http://localhost/3/", "http://localhost/4/", "http://localhost/5/"]


def test_post_after_deleting_the_largest_key_reuses_it(notes_client):
    assert notes_client.delete("/2/").status_code == 204
    assert notes_client.post("/", json={"text": "new"}).get_json()["url"] == "http://localhost/2/"


def test_post_after_put_of_a_high_key_continues_above_it(notes_client):
    notes_client.put("/41/", json={"text": "far away"})
    resp = notes_client.post("/", json={"text": "next"})
    assert resp.get_json()["url"] == "http://localhost/42/"


def test_post_into_an_empty_store_gets_key_zero():
    client = _notes_client_for(notes={})
    resp = client.post("/", json={"text": "first"})
    assert resp.status_code == 201
    assert resp.get_json() == {"url": "http://localhost/0/", "text": "first"}


def test_post_after_deleting_every_note_starts_again_at_key_zero(notes_client):
    for key in range(3):
        notes_client.delete("/{}/".format(key))
    resp = notes_client.post("/", json={"text": "again"})
    assert resp.get_json()["url"] == "http://localhost/0/"


@pytest.mark.parametrize("body", [
    {"json": {}},
    {"json": {"other": "field"}},
    {"data": {}},
    {"data": {"other": "field"}},
    {},
], ids=["empty-json-object", "json-without-text", "empty-form", "form-without-text", "no-body"])
def test_post_without_text_stores_the_empty_string(notes_client, body):
    resp = notes_client.post("/", **body)
    assert resp.status_code == 201
    assert resp.get_json()["text"] == ""
    assert notes_client.get("/3/").get_json()["text"] == ""


@pytest.mark.parametrize("value, text", [
    (42, "42"),
    (1.5, "1.5"),
    (True, None),
    (["a", "b"], None),
    ({"nested": 1}, None),
], ids=["int", "float", "bool", "list", "object"])
def test_post_with_non_string_text_stores_it_as_a_string(notes_client, value, text):
    resp = notes_client.post("/", json={"text": value})
    assert resp.status_code == 201
    stored = resp.get_json()["text"]
    assert isinstance(stored, str) and stored
    if text is not None:
        assert stored == text
    assert notes_client.get("/3/").get_json()["text"] == stored


# ---------------------------------------------------------------------------
# Notes app: bad bodies are 4xx errors that leave the store alone
# ---------------------------------------------------------------------------

NOT_AN_OBJECT = [b"[1, 2]", b'"a string"', b"null", b"42", b"true"]

MALFORMED = [
    (b"{text: 1}", "application/json", 400),
    (b'{"text": NaN}', "application/json", 400),
    (b'{"text": "\xff"}', "application/json", 400),
    (b'{"text": "a"}', "application/json; charset=no-such-charset", 400),
    (b"[" * 100000, "application/json", 400),
    (b"garbage", "multipart/form-data; boundary=xyz", 400),
    (b"text=hello", "text/plain", 415),
]
MALFORMED_IDS = ["invalid-json", "nan", "invalid-utf8", "unknown-charset", "deeply-nested",
                 "broken-multipart", "unsupported-type"]


@pytest.mark.parametrize("body", NOT_AN_OBJECT)
def test_post_of_a_json_body_that_is_not_an_object_is_a_400_and_adds_nothing(body):
    client = _notes_client_for(propagate=False)
    resp = client.post("/", data=body, content_type="application/json")
    _assert_api_error(resp, 400)
    assert _texts(client) == INITIAL_TEXTS


@pytest.mark.parametrize("body", NOT_AN_OBJECT)
def test_put_of_a_json_body_that_is_not_an_object_is_a_400_and_changes_nothing(body):
    client = _notes_client_for(propagate=False)
    resp = client.put("/0/", data=body, content_type="application/json")
    _assert_api_error(resp, 400)
    resp = client.put("/7/", data=body, content_type="application/json")
    _assert_api_error(resp, 400)
    assert _texts(client) == INITIAL_TEXTS


@pytest.mark.parametrize("body, content_type, code", MALFORMED, ids=MALFORMED_IDS)
def test_post_of_a_malformed_body_is_a_4xx_with_detail_and_adds_nothing(body, content_type, code):
    client = _notes_client_for(propagate=False)
    _assert_api_error(client.post("/", data=body, content_type=content_type), code)
    assert _texts(client) == INITIAL_TEXTS


@pytest.mark.parametrize("body, content_type, code", MALFORMED, ids=MALFORMED_IDS)
def test_put_of_a_malformed_body_is_a_4xx_with_detail_and_changes_nothing(body, content_type,
                                                                           code):
    client = _notes_client_for(propagate=False)
    _assert_api_error(client.put("/1/", data=body, content_type=content_type), code)
    _assert_api_error(client.put("/9/", data=body, content_type=content_type), code)
    assert _texts(client) == INITIAL_TEXTS


# ---------------------------------------------------------------------------
# Notes app: one note (GET, PUT, DELETE)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("key", [0, 1, 2])
def test_get_note_returns_it(notes_client, key):
    resp = notes_client.get("/{}/".format(key))
    assert resp.status_code == 200
    assert resp.get_json() == {"url": "http://localhost/{}/".format(key),
                               "text": INITIAL_TEXTS[key]}


def test_get_missing_note_is_a_404_with_detail(notes_client):
    _assert_api_error(notes_client.get("/3/"), 404)


@pytest.mark.parametrize("body", [
    {"json": {"text": "buy milk"}},
    {"data": {"text": "buy milk"}},
    {"data": {"text": "buy milk"}, "content_type": "multipart/form-data"},
], ids=["json", "form", "multipart"])
def test_put_replaces_the_text_of_an_existing_note(notes_client, body):
    resp = notes_client.put("/1/", **body)
    assert resp.status_code == 200
    assert resp.get_json() == {"url": "http://localhost/1/", "text": "buy milk"}
    assert notes_client.get("/1/").get_json()["text"] == "buy milk"
    assert _texts(notes_client) == ["do the shopping", "buy milk", "paint the door"]


def test_put_creates_a_missing_note_under_that_key(notes_client):
    resp = notes_client.put("/7/", json={"text": "lucky"})
    assert resp.status_code == 200
    assert resp.get_json() == {"url": "http://localhost/7/", "text": "lucky"}
    assert notes_client.get("/7/").get_json() == {"url": "http://localhost/7/", "text": "lucky"}
    assert _texts(notes_client) == INITIAL_TEXTS + ["lucky"]


def test_put_without_text_stores_the_empty_string(notes_client):
    assert notes_client.put("/0/", json={}).get_json()["text"] == ""
    assert notes_client.get("/0/").get_json()["text"] == ""


def test_put_with_a_number_as_text_stores_it_as_a_string(notes_client):
    assert notes_client.put("/0/", json={"text": 7}).get_json()["text"] == "7"
    assert notes_client.get("/0/").get_json()["text"] == "7"


def test_delete_note_is_a_204_with_empty_body_and_later_get_is_404(notes_client):
    resp = notes_client.delete("/1/")
    assert resp.status_code == 204
    assert resp.data == b""
    _assert_api_error(notes_client.get("/1/"), 404)
    assert _texts(notes_client) == ["do the shopping", "paint the door"]


@pytest.mark.parametrize("key", ["3", "99", "1000000"])
def test_delete_missing_note_is_still_a_204_with_empty_body(notes_client, key):
    resp = notes_client.delete("/{}/".format(key))
    assert resp.status_code == 204
    assert resp.data == b""
    _assert_api_error(notes_client.get("/{}/".format(key)), 404)
    assert _texts(notes_client) == INITIAL_TEXTS


def test_delete_twice_is_a_204_both_times(notes_client):
    assert notes_client.delete("/0/").status_code == 204
    assert notes_client.delete("/0/").status_code == 204
    _assert_api_error(notes_client.get("/0/"), 404)


def test_note_views_have_docstrings_shown_on_the_browsable_page(notes_client):
    views = notes_client.application.view_functions
    for endpoint in ("notes_list", "notes_detail"):
        assert (views[endpoint].__doc__ or "").strip()
    resp = notes_client.get("/", headers={"Accept": "text/html"})
    assert resp.status_code == 200
    assert resp.mimetype == "text/html"
    assert "All notes, ordered by key." in resp.get_data(as_text=True)


# ---------------------------------------------------------------------------
# Notes app: keys that are not integers
# ---------------------------------------------------------------------------

NOT_INTEGER_KEYS = ["abc", "1.5", "-1", "+1", "0x1", "1e3", "%20", "%201", "1%0A",
                    "%EF%BC%91", "%D9%A3", "one"]


@pytest.mark.parametrize("key", NOT_INTEGER_KEYS)
def test_get_with_a_non_integer_key_is_a_404_with_detail(key):
    client = _notes_client_for(propagate=False)
    _assert_api_error(client.get("/{}/".format(key)), 404)


@pytest.mark.parametrize("key", NOT_INTEGER_KEYS)
def test_put_with_a_non_integer_key_is_a_404_and_stores_nothing(key):
    client = _notes_client_for(propagate=False)
    _assert_api_error(client.put("/{}/".format(key), json={"text": "sneaky"}), 404)
    assert _texts(client) == INITIAL_TEXTS


@pytest.mark.parametrize("key", NOT_INTEGER_KEYS)
def test_delete_with_a_non_integer_key_is_a_404_and_deletes_nothing(key):
    client = _notes_client_for(propagate=False)
    _assert_api_error(client.delete("/{}/".format(key)), 404)
    assert _texts(client) == INITIAL_TEXTS


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_very_long_numeric_key_is_never_a_server_error(method):
    client = _notes_client_for(propagate=False)
    resp = getattr(client, method)("/" + "9" * 5000 + "/", json={"text": "huge"})
    assert resp.status_code < 500
    if method == "get":
        _assert_api_error(resp, 404)


def test_put_of_a_very_long_key_does_not_break_listing_or_creating():
    client = _notes_client_for(propagate=False)
    resp = client.put("/" + "9" * 4300 + "/", json={"text": "huge"})
    assert resp.status_code < 500
    resp = client.post("/", json={"text": "after"})
    assert resp.status_code < 500
    resp = client.get("/")
    assert resp.status_code == 200
    assert resp.get_json()[:3] == [
        {"url": "http://localhost/{}/".format(k), "text": t} for k, t in enumerate(INITIAL_TEXTS)]


# ---------------------------------------------------------------------------
# Notes app: note urls follow the request's host and prefix
# ---------------------------------------------------------------------------

def test_note_url_is_absolute_and_leads_back_to_the_note(notes_client):
    created = notes_client.post("/", json={"text": "follow me"}).get_json()
    assert created["url"] == "http://localhost/3/"
    assert notes_client.get(created["url"]).get_json() == created


@pytest.mark.parametrize("kwargs, root", [
    ({"base_url": "http://example.com/api/"}, "http://example.com/api"),
    ({"environ_overrides": {"SCRIPT_NAME": "/api"}}, "http://localhost/api"),
    ({"headers": {"Host": "notes.example.org"}}, "http://notes.example.org"),
    ({"headers": {"Host": "notes.example.org:8080"}}, "http://notes.example.org:8080"),
    ({"base_url": "https://secure.example.com/"}, "https://secure.example.com"),
], ids=["base-url-prefix", "script-name", "host", "host-and-port", "https"])
def test_note_urls_follow_the_request_host_and_prefix(notes_client, kwargs, root):
    listed = notes_client.get("/", **kwargs).get_json()
    assert [note["url"] for note in listed] == [root + "/0/", root + "/1/", root + "/2/"]
    assert notes_client.get("/1/", **kwargs).get_json()["url"] == root + "/1/"
    assert notes_client.post("/", json={"text": "x"}, **kwargs).get_json()["url"] == root + "/3/"
    assert notes_client.put("/8/", json={"text": "y"}, **kwargs).get_json()["url"] == root + "/8/"


# ---------------------------------------------------------------------------
# Notes app: concurrent requests
# ---------------------------------------------------------------------------

def _run_threads(count, work):
    """Run ``work(index, barrier)`` in ``count`` threads; re-raise the first error.

    A tiny switch interval makes threads interleave inside the store's methods,
    so an unguarded read-modify-write shows up here instead of in production.
    """
    barrier = threading.Barrier(count)
    errors = []

    def target(index):
        try:
            work(index, barrier)
        except BaseException as exc:  # reported in the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=target, args=(n,)) for n in range(count)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        sys.setswitchinterval(interval)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    if errors:
        raise errors[0]


def test_concurrent_posts_never_lose_a_note_or_share_a_key():
    app = notes_app.create_app()
    app.testing = True
    threads, per_thread = 8, 50
    created = []  # list.append is atomic; every thread adds its own results

    def work(index, barrier):
        client = app.test_client()
        barrier.wait(30)
        for n in range(per_thread):
            resp = client.post("/", json={"text": "t{}-{}".format(index, n)})
            assert resp.status_code == 201
            created.append(resp.get_json())

    _run_threads(threads, work)
    total = threads * per_thread
    keys = [_key_of(note) for note in created]
    assert len(created) == total
    assert len(set(keys)) == total
    assert sorted(keys) == list(range(3, 3 + total))
    listed = app.test_client().get("/").get_json()
    assert len(listed) == 3 + total
    assert {(n["url"], n["text"]) for n in listed[3:]} == {(n["url"], n["text"]) for n in created}


def test_concurrent_puts_deletes_posts_and_reads_never_crash():
    app = notes_app.create_app()
    app.testing = True

    def work(index, barrier):
        client = app.test_client()
        barrier.wait(30)
        for n in range(30):
            key = "/{}/".format((index + n) % 5)
            assert client.put(key, json={"text": "v{}".format(n)}).status_code == 200
            assert client.delete("/{}/".format((index * 3 + n) % 5)).status_code == 204
            assert client.get(key).status_code in (200, 404)
            assert client.post("/", data={"text": "p"}).status_code == 201
            assert client.get("/").status_code == 200

    _run_threads(8, work)
    client = app.test_client()
    listed = client.get("/").get_json()
    keys = [_key_of(note) for note in listed]
    assert keys == sorted(set(keys))
    for note in listed:
        assert client.get(note["url"]).get_json() == note


# ---------------------------------------------------------------------------
# Notes app: command line
# ---------------------------------------------------------------------------

def test_notes_app_help_runs_as_a_script():
    result = subprocess.run(
        [sys.executable, "notes_app.py", "--help"],
        cwd=os.path.dirname(os.path.abspath(notes_app.__file__)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "--host" in result.stdout and "--port" in result.stdout


@pytest.mark.parametrize("argv, host, port", [
    ([], "127.0.0.1", 5000),
    (["--port", "8001"], "127.0.0.1", 8001),
    (["--host", "0.0.0.0", "--port", "9000"], "0.0.0.0", 9000),
])
def test_notes_app_main_passes_host_and_port_to_app_run(monkeypatch, argv, host, port):
    calls = []
    monkeypatch.setattr(notes_app.app, "run", lambda *a, **kw: calls.append((a, kw)))
    notes_app.main(argv)
    assert len(calls) == 1
    args, kwargs = calls[0]
    assert kwargs.get("host", args[0] if args else None) == host
    assert kwargs.get("port", args[1] if len(args) > 1 else None) == port


def test_notes_app_main_rejects_a_non_numeric_port(monkeypatch, capsys):
    monkeypatch.setattr(notes_app.app, "run", lambda *a, **kw: pytest.fail("app.run called"))
    with pytest.raises(SystemExit) as info:
        notes_app.main(["--port", "http"])
    assert info.value.code == 2
    assert "--port" in capsys.readouterr().err


def test_post_when_the_largest_key_is_taken_is_a_conflict_and_stores_nothing():
    largest = 10 ** notes_app.MAX_KEY_DIGITS - 1
    client = _notes_client_for({largest: "last"})
    resp = client.post("/", json={"text": "one too many"})
    _assert_api_error(resp, 409)
    assert _texts(client) == ["last"]
