"""End-to-end tests of flask_api.py and notes_app.py.

Through the Flask test client wherever possible; the browsable page also in a
real headless Chromium. Runs on Python 3.6 + Flask 1.1 up to the newest.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser

import pytest
from flask import Flask, request
from flask.views import MethodView

import flask_api
import notes_app
from flask_api import BrowsableAPIRenderer, FlaskAPI, JSONRenderer, set_renderers, status


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


# ===========================================================================
# The browsable page
# ===========================================================================




BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

HOSTILE_TEXTS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "javascript:alert(1)",
    "' onmouseover='alert(1)",
    "</pre><script>alert(1)</script>",
    "</textarea><svg onload=alert(1)>",
    "{{ 7 * 7 }} &lt;b&gt;",
]


class _Element:
    def __init__(self, tag, attrs, ancestors):
        self.tag, self.attrs, self.ancestors, self.text = tag, dict(attrs), ancestors, ""

    def has_class(self, name):
        return name in (self.attrs.get("class") or "").split()


class _PageParser(HTMLParser):
    """Every element of a page with its attributes, text (unescaped) and ancestors."""

    VOID = frozenset(["meta", "input", "br", "img", "link", "hr", "source", "wbr"])

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements, self._open = [], []

    def handle_starttag(self, tag, attrs):
        element = _Element(tag, attrs, list(self._open))
        self.elements.append(element)
        if tag not in self.VOID:
            self._open.append(element)

    def handle_endtag(self, tag):
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index].tag == tag:
                del self._open[index:]
                return

    def handle_data(self, data):
        for element in self._open:
            element.text += data


class _Page:
    """A browsable page as a user sees it: status, elements and their text."""

    def __init__(self, response):
        self.status_code = response.status_code
        self.content_type = response.headers.get("Content-Type", "")
        self.html = response.get_data(as_text=True)
        parser = _PageParser()
        parser.feed(self.html)
        self.elements = parser.elements

    def find(self, tag, within=None, class_=None, **attrs):
        return [el for el in self.elements if el.tag == tag
                and (within is None or within in el.ancestors)
                and (class_ is None or el.has_class(class_))
                and all(el.attrs.get(k) == v for k, v in attrs.items())]

    def one(self, tag, **kwargs):
        found = self.find(tag, **kwargs)
        assert len(found) == 1, "expected one <{}> {}, found {}".format(tag, kwargs, len(found))
        return found[0]

    @property
    def response_text(self):
        """The request line, status, headers and body shown in the response panel."""
        return self.one("pre", class_="response").text

    @property
    def body_json(self):
        """The response body in the panel, parsed back into data."""
        return json.loads(self.response_text.split("\n\n", 2)[2])

    @property
    def buttons(self):
        return {button.text.strip() for button in self.find("button")}


def _browse(client, url, method="GET", headers=None, **kwargs):
    """The page a browser gets for ``method url``."""
    headers = dict(headers or {}, Accept=BROWSER_ACCEPT)
    return _Page(client.open(url, method=method, headers=headers, **kwargs))


def _note_text(client, key):
    response = client.get("/{}/".format(key), headers={"Accept": "application/json"})
    return response.get_json()["text"] if response.status_code == 200 else response.status_code


def _store_notes(client, texts):
    for text in texts:
        response = client.post("/", data=json.dumps({"text": text}),
                               content_type="application/json")
        assert response.status_code == 201


# ---------------------------------------------------------------------------
# Page: title and description from the view
# ---------------------------------------------------------------------------

def _widget_views(app, style):
    if style == "function":
        def list_widgets():
            """Every widget we sell."""
            return {"widgets": []}
        app.add_url_rule("/widgets/", view_func=list_widgets)
    else:
        class ListWidgetsView(MethodView):
            """Every widget we sell."""

            def get(self):
                return {"widgets": []}
        app.add_url_rule("/widgets/", view_func=ListWidgetsView.as_view("widgets"))


@pytest.mark.parametrize("style", ["function", "methodview"])
def test_page_title_and_description_come_from_the_view(app, client, style):
    _widget_views(app, style)
    page = _browse(client, "/widgets/")
    assert page.one("h1").text == "List Widgets"
    assert page.one("title").text == "List Widgets · Flask API"
    assert "Every widget we sell." in page.one("main").text


def test_page_of_methodview_without_docstring_shows_no_inherited_docstring(app, client):
    class GadgetView(MethodView):
        def get(self):
            return {"gadgets": []}
    app.add_url_rule("/gadgets/", view_func=GadgetView.as_view("gadgets"))
    page = _browse(client, "/gadgets/")
    assert page.one("h1").text == "Gadget"
    assert not page.find("div", class_="description") and not page.find("pre", class_="description")
    assert "Dispatches request methods" not in page.html


def _view_with_markdown_docstring(app):
    @app.route("/docs/")
    def documented():
        """Lists **bold** things.

        Send `text` as <b>raw</b> & more.
        """
        return {"ok": True}


@pytest.mark.skipif(flask_api._markdown_lib is None, reason="markdown is not installed")
def test_page_renders_docstring_markdown_as_html(app, client):
    _view_with_markdown_docstring(app)
    page = _browse(client, "/docs/")
    description = page.one("div", class_="description")
    assert page.find("strong", within=description)[0].text == "bold"
    assert page.find("code", within=description)[0].text == "text"


@pytest.fixture
def without_markdown(monkeypatch):
    monkeypatch.setattr(flask_api, "_markdown_lib", None)
    flask_api._markdown.cache_clear()
    yield
    flask_api._markdown.cache_clear()  # before monkeypatch restores markdown


def test_page_without_markdown_shows_docstring_escaped_and_preformatted(
        app, client, without_markdown):
    _view_with_markdown_docstring(app)
    page = _browse(client, "/docs/")
    description = page.one("pre", class_="description")
    assert description.text == "Lists **bold** things.\n\nSend `text` as <b>raw</b> & more."
    assert not page.find("strong") and not page.find("b")
    assert "&lt;b&gt;raw&lt;/b&gt;" in page.html


# ---------------------------------------------------------------------------
# Page: breadcrumbs, request line, status, headers and body
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("path, crumbs", [
    ("/", [("Home", "/")]),
    ("/shop/", [("Home", "/"), ("shop", "/shop/")]),
    ("/shop/7/reviews/", [("Home", "/"), ("shop", "/shop/"), ("7", "/shop/7/"),
                          ("reviews", "/shop/7/reviews/")]),
    ("/api/v1/things/", [("Home", "/"), ("things", "/api/v1/things/")]),  # no route at /api/
])
def test_page_breadcrumbs_link_each_routable_prefix_of_the_path(app, client, path, crumbs):
    for rule in ("/", "/shop/", "/shop/<int:item>/", "/shop/<int:item>/reviews/",
                 "/api/v1/things/"):
        app.add_url_rule(rule, rule, lambda **kwargs: {"ok": True})
    page = _browse(client, path)
    links = page.find("a", within=page.one("nav"))
    assert [(a.text, a.attrs["href"]) for a in links] == crumbs
    assert links[-1].attrs.get("aria-current") == "page"


def test_page_shows_request_line_status_and_api_headers(notes_client):
    page = _browse(notes_client, "/1/?verbose=1")
    lines = page.response_text.splitlines()
    assert lines[0] == "GET /1/?verbose=1"
    assert "HTTP 200 OK" in lines
    assert not page.one("span", class_="status").has_class("error")
    assert "Allow: DELETE, GET, HEAD, OPTIONS, PUT" in lines
    assert "Content-Type: application/json" in lines
    assert "Vary: Accept" in lines


def test_page_body_is_indented_json_with_only_urls_linked(app, client):
    data = {"home": "https://example.com/a?b=1&c=2", "note": "see http://x.test/ and <b>hi</b>",
            "n": [1, 2]}
    app.add_url_rule("/", "data", lambda: data)
    page = _browse(client, "/")
    panel = page.one("pre", class_="response")
    assert page.body_json == data
    assert '\n    "n": [\n        1,' in panel.text
    links = page.find("a", within=panel)
    assert sorted((a.attrs["href"], a.text) for a in links) == [
        ("http://x.test/", "http://x.test/"),
        ("https://example.com/a?b=1&c=2", "https://example.com/a?b=1&c=2")]
    assert {el.tag for el in page.elements if panel in el.ancestors} == {"span", "a"}


# ---------------------------------------------------------------------------
# Page: controls for the allowed methods
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("path, buttons", [
    ("/", {"OPTIONS", "POST"}),
    ("/1/", {"OPTIONS", "PUT", "DELETE"}),
])
def test_page_offers_buttons_for_exactly_the_allowed_methods(notes_client, path, buttons):
    page = _browse(notes_client, path)
    assert page.buttons == buttons
    assert page.find("a", href=path)[-1].text == "GET"


def test_page_of_get_only_view_has_no_request_form(app, client):
    app.add_url_rule("/", "ro", lambda: {"read": "only"})
    page = _browse(client, "/")
    assert page.buttons == {"OPTIONS"}
    assert not page.find("textarea")


def test_page_view_as_json_link_returns_json(notes_client):
    link = _browse(notes_client, "/1/").one("a", href="/1/?format=json")
    assert link.text == "View as JSON"
    response = notes_client.get(link.attrs["href"], headers={"Accept": BROWSER_ACCEPT})
    assert response.headers["Content-Type"] == "application/json"
    assert response.get_json() == {"url": "http://localhost/1/", "text": "build the codez"}


def test_page_view_as_json_link_keeps_other_query_arguments(app, client):
    app.add_url_rule("/search/", "search", lambda: dict(request.args.items()))
    page = _browse(client, "/search/?q=rock%20%26%20roll&page=2")
    href = [a for a in page.find("a") if a.text == "View as JSON"][0].attrs["href"]
    response = client.get(href, headers={"Accept": BROWSER_ACCEPT})
    assert response.get_json() == {"q": "rock & roll", "page": "2", "format": "json"}


def test_page_request_form_has_media_types_and_labelled_fields(notes_client):
    page = _browse(notes_client, "/1/")
    select, textarea = page.one("select"), page.one("textarea")
    assert [option.text for option in page.find("option", within=select)] == [
        "application/json", "application/x-www-form-urlencoded", "multipart/form-data"]
    labels = {label.attrs.get("for"): label.text for label in page.find("label")}
    assert labels[select.attrs["id"]] == "Media type"
    assert labels[textarea.attrs["id"]] == "Content"
    assert json.loads(textarea.text) == {"url": "http://localhost/1/", "text": "build the codez"}


# ---------------------------------------------------------------------------
# Page: errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("method, path, body, code, shown", [
    ("GET", "/nope/", None, 404, "HTTP 404 Not Found"),
    ("GET", "/99/", None, 404, "This resource does not exist."),
    ("POST", "/1/", '{"text": "x"}', 405, "Allow: "),
    ("POST", "/", '{"text": ', 400, "Malformed request."),
])
def test_page_renders_errors_with_their_status(notes_client, method, path, body, code, shown):
    page = _browse(notes_client, path, method=method, data=body, content_type="application/json")
    assert page.status_code == code
    assert page.content_type == "text/html; charset=utf-8"
    status_line = page.one("span", class_="status")
    assert status_line.has_class("error") and status_line.text.startswith("HTTP {} ".format(code))
    assert shown in page.response_text
    assert "detail" in page.body_json


# ---------------------------------------------------------------------------
# Page: hostile data is shown as text, never markup
# ---------------------------------------------------------------------------

def _assert_inert(page):
    """Nothing on the page but the template's own markup could run script."""
    assert [el.tag for el in page.elements if el.tag in ("script", "img", "svg", "iframe")] \
        == ["script"]
    assert not page.find("script")[0].attrs
    handlers = [(el.tag, name) for el in page.elements for name in el.attrs
                if name.lower().startswith("on")]
    assert handlers == []
    hrefs = [(a.attrs.get("href") or "").strip().lower() for a in page.find("a")]
    assert not [href for href in hrefs if href.startswith(("javascript:", "data:"))]
    assert 'href="javascript:' not in page.html.lower()


def _assert_shown_as_text(page, texts):
    for text in texts:
        assert json.dumps(text) in page.response_text  # the user reads it literally
        if re.search("[<>\"']", text):
            assert text not in page.html


def test_page_escapes_stored_script_in_note_text(notes_client):
    _store_notes(notes_client, HOSTILE_TEXTS)
    page = _browse(notes_client, "/")
    _assert_inert(page)
    _assert_shown_as_text(page, HOSTILE_TEXTS)


@pytest.mark.parametrize("index", range(len(HOSTILE_TEXTS)))
def test_page_escapes_stored_hostile_text_on_detail_page_and_in_form(notes_client, index):
    _store_notes(notes_client, HOSTILE_TEXTS)
    page = _browse(notes_client, "/{}/".format(3 + index))
    _assert_inert(page)
    _assert_shown_as_text(page, [HOSTILE_TEXTS[index]])
    assert json.loads(page.one("textarea").text)["text"] == HOSTILE_TEXTS[index]


@pytest.mark.parametrize("url", [
    '/?x="><script>alert(1)</script>',
    "/?q='onmouseover='alert(1)",
    "/%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E/",
    "/%3Cscript%3Ealert(1)%3C/script%3E/",
])
def test_page_escapes_hostile_request_urls(notes_client, url):
    page = _browse(notes_client, url)
    _assert_inert(page)
    assert "<script>alert" not in page.html and "<img" not in page.html


def test_page_escapes_hostile_response_headers(app, client):
    @app.route("/")
    def hostile_headers():
        return {"ok": True}, 200, {"X-<img src=x onerror=alert(1)>": '"><script>alert(1)</script>',
                                   "X-Quote": "' onmouseover='alert(1)"}
    page = _browse(client, "/")
    _assert_inert(page)
    assert "X-<img src=x onerror=alert(1)>: \"><script>alert(1)</script>" in page.response_text
    assert "X-Quote: ' onmouseover='alert(1)" in page.response_text


# ---------------------------------------------------------------------------
# Page: served as UTF-8 HTML, self-contained
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", "/1/", "/nope/"])
def test_page_is_utf8_html_that_loads_nothing_from_elsewhere(notes_client, path):
    page = _browse(notes_client, path)
    assert page.content_type == "text/html; charset=utf-8"
    assert not [link for link in page.find("link") if "stylesheet" in link.attrs.get("rel", "")]
    assert not [el for el in page.elements if "src" in el.attrs]  # no script, image or frame
    style = page.one("style").text
    assert "url(" not in style and "@import" not in style
    absolute = [el.attrs["href"] for el in page.elements
                if re.match(r"(?i)\s*(https?:)?//", el.attrs.get("href") or "")]
    assert all(re.match(r"http://localhost/\d+/$", href) for href in absolute)
    assert len(absolute) == (3 if path == "/" else 1 if path == "/1/" else 0)


# ---------------------------------------------------------------------------
# Page: customisation
# ---------------------------------------------------------------------------

class _AcmeRenderer(BrowsableAPIRenderer):
    template = "{% extends base %}{% block branding %}ACME API{% endblock %}"


@pytest.mark.parametrize("how", ["set_renderers", "DEFAULT_RENDERERS"])
def test_page_renderer_subclass_template_overrides_a_block(app, client, how):
    def acme_widgets():
        return {"widgets": ["<b>anvil</b>"]}
    if how == "DEFAULT_RENDERERS":
        app.config["DEFAULT_RENDERERS"] = [JSONRenderer, _AcmeRenderer]
    else:
        acme_widgets = set_renderers(JSONRenderer, _AcmeRenderer)(acme_widgets)
    app.add_url_rule("/", view_func=acme_widgets)
    page = _browse(client, "/")
    assert page.one("a", class_="brand").text == "ACME API"
    assert page.one("h1").text == "Acme Widgets"
    assert page.body_json == {"widgets": ["<b>anvil</b>"]}
    _assert_inert(page)


def test_page_branding_config_changes_header_text(app, client):
    app.config["BROWSABLE_API_BRANDING"] = "Widgets <Inc>"
    app.add_url_rule("/", "widgets", lambda: {"widgets": []})
    page = _browse(client, "/")
    assert page.one("a", class_="brand").text == "Widgets <Inc>"
    assert page.one("title").text.endswith(" · Widgets <Inc>")


def test_page_template_named_in_config_extends_the_base_page(tmp_path):
    (tmp_path / "api.html").write_text(
        "{% extends base %}{% block branding %}Templated API{% endblock %}"
        "{% block content %}{{ super() }}<footer>{{ title }} by {{ branding }}</footer>"
        "{% endblock %}")
    app = FlaskAPI(__name__, template_folder=str(tmp_path))
    app.config.update(BROWSABLE_API_TEMPLATE="api.html", BROWSABLE_API_BRANDING="<Acme>")

    @app.route("/")
    def gizmos():
        return {"gizmos": 1}
    page = _browse(app.test_client(), "/")
    assert page.one("a", class_="brand").text == "Templated API"
    assert page.one("footer").text == "Gizmos by <Acme>"
    assert page.body_json == {"gizmos": 1}


# ---------------------------------------------------------------------------
# Page: plain HTML forms send any method (the override middleware)
# ---------------------------------------------------------------------------

SAME_ORIGIN_HEADERS = [
    {},
    {"Origin": "http://localhost"},
    {"Sec-Fetch-Site": "same-origin"},
    {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"},
]
CROSS_SITE_HEADERS = [
    {"Origin": "https://evil.example"},
    {"Origin": "http://localhost.evil.example"},
    {"Origin": "http://localhost:8080"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
    {"Origin": "http://localhost", "Sec-Fetch-Site": "cross-site"},
]


def _form_submit(client, path, fields, headers=None):
    """POST the page's plain HTML form (no JavaScript), as a browser does."""
    headers = dict(headers or {}, Accept=BROWSER_ACCEPT)
    return client.post(path, headers=headers, data=fields)


def _form_put(client, headers, content='{"text": "x"}', content_type="application/json"):
    return _form_submit(client, "/1/", {
        "_method": "PUT", "_content": content, "_content_type": content_type}, headers)


@pytest.mark.parametrize("headers", SAME_ORIGIN_HEADERS)
def test_form_override_same_origin_put_updates_note(notes_client, headers):
    response = _form_put(notes_client, headers)
    assert response.status_code == 200
    assert _note_text(notes_client, 1) == "x"


@pytest.mark.parametrize("headers", CROSS_SITE_HEADERS)
def test_form_override_from_another_site_is_refused(notes_client, headers):
    response = _form_put(notes_client, headers)
    assert response.status_code == 405  # the detail route saw a plain POST
    assert _note_text(notes_client, 1) == "build the codez"


def test_form_override_delete_removes_note(notes_client):
    response = _form_submit(notes_client, "/1/", {"_method": "DELETE"},
                            {"Origin": "http://localhost"})
    assert response.status_code < 400
    assert _note_text(notes_client, 1) == 404


@pytest.mark.parametrize("content_type", [
    "application/x-www-form-urlencoded", "multipart/form-data"])
def test_form_override_sends_form_media_types(notes_client, content_type):
    response = _form_put(notes_client, {}, content="text=hello+there&x=1",
                         content_type=content_type)
    assert response.status_code == 200
    assert _note_text(notes_client, 1) == "hello there"


def test_form_override_post_on_list_creates_note(notes_client):
    response = _form_submit(notes_client, "/", {
        "_method": "POST", "_content": '{"text": "new"}', "_content_type": "application/json"})
    assert response.status_code == 201
    assert _note_text(notes_client, 3) == "new"


def test_form_override_result_is_shown_as_page(notes_client):
    page = _Page(_form_submit(notes_client, "/1/", {
        "_method": "PUT", "_content": '{"text": "shown"}', "_content_type": "application/json"},
        {"Sec-Fetch-Site": "same-origin"}))
    assert page.status_code == 200
    assert page.response_text.startswith("PUT /1/\n")
    assert page.body_json == {"url": "http://localhost/1/", "text": "shown"}


@pytest.mark.parametrize("accept", [BROWSER_ACCEPT, "application/json"])
def test_plain_form_post_without_method_field_is_left_alone(notes_client, accept):
    response = notes_client.post("/", data={"text": "plain form"},
                                 headers={"Origin": "http://localhost", "Accept": accept})
    assert response.status_code == 201
    assert _note_text(notes_client, 3) == "plain form"


def test_api_client_form_with_a_method_field_is_not_overridden(notes_client):
    response = notes_client.post("/1/", headers={"Accept": "application/json"}, data={
        "_method": "PUT", "_content": '{"text": "x"}', "_content_type": "application/json"})
    assert response.status_code == 405
    assert _note_text(notes_client, 1) == "build the codez"


# ---------------------------------------------------------------------------
# Page in a real browser: headless Chromium (Playwright) against a live server
# ---------------------------------------------------------------------------

def _find_chromium():
    """CHROMIUM_PATH first, then the Debian/Ubuntu names; None if none is usable."""
    env = os.environ.get("CHROMIUM_PATH")
    for candidate in ([env] if env else []) + ["/usr/bin/chromium", "chromium",
                                               "chromium-browser"]:
        path = shutil.which(candidate)
        if path:
            return path
    return None


def _no_browser(reason):
    """Skip, except where REQUIRE_BROWSER is set (CI): there a missing browser fails."""
    if os.environ.get("REQUIRE_BROWSER"):
        pytest.fail("REQUIRE_BROWSER is set, but " + reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def chromium():
    try:  # not importorskip: pytest 9 only skips on ModuleNotFoundError
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        _no_browser("browser tests need playwright ({})".format(exc))
    executable = _find_chromium()
    if executable is None:
        _no_browser("browser tests need chromium: set CHROMIUM_PATH or install chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield browser
        browser.close()


class _LiveSite:
    """A threaded WSGI server on 127.0.0.1:<free port>; ``serve`` swaps the app it runs."""

    def __init__(self):
        from werkzeug.serving import make_server
        self.app = None
        self.server = make_server("127.0.0.1", 0, self._dispatch, threaded=True)
        self.url = "http://127.0.0.1:{}".format(self.server.server_port)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _dispatch(self, environ, start_response):
        return self.app(environ, start_response)

    def serve(self, app):
        self.app = app
        return self.url

    def close(self):
        self.server.shutdown()
        self.thread.join(timeout=5)
        self.server.server_close()


@pytest.fixture(scope="module")
def live_site(chromium):
    site = _LiveSite()
    yield site
    site.close()


@pytest.fixture
def notes_site(live_site):
    """The base URL of a live notes API with a fresh store (keys 0, 1, 2)."""
    return live_site.serve(notes_app.create_app())


def _new_tab(chromium, base_url, **options):
    context = chromium.new_context(base_url=base_url, color_scheme="light", **options)
    tab = context.new_page()
    tab.set_default_timeout(10000)
    return tab


@pytest.fixture
def tab(chromium, notes_site):
    """A page in its own browser context, so no cookies or listeners leak between tests."""
    tab = _new_tab(chromium, notes_site)
    yield tab
    tab.context.close()


def _expect(locator):
    from playwright.sync_api import expect
    return expect(locator)


def _api(base_url, path, method="GET", data=None):
    """(status, JSON data) from the live API, as a non-browser client sees it."""
    body = None if data is None else json.dumps(data).encode("utf-8")
    req = urllib.request.Request(base_url + path, data=body, method=method, headers={
        "Accept": "application/json", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, json.loads(response.read() or "null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or "null")


def test_browser_follows_note_link_from_list_to_detail(tab, notes_site):
    tab.goto("/")
    _expect(tab.locator("h1")).to_have_text("Notes List")
    tab.get_by_role("link", name=notes_site + "/1/").click()
    tab.wait_for_url(notes_site + "/1/")
    _expect(tab.locator("h1")).to_have_text("Notes Detail")
    _expect(tab.locator("pre.response")).to_contain_text('"text": "build the codez"')


@pytest.mark.parametrize("media_type, content", [
    ("application/json", '{"text": "repainted"}'),
    ("application/x-www-form-urlencoded", "text=repainted"),
    ("multipart/form-data", "text=repainted"),
])
def test_browser_put_from_page_form_updates_note(tab, notes_site, media_type, content):
    tab.goto("/1/")
    tab.get_by_label("Media type").select_option(media_type)
    tab.get_by_label("Content").fill(content)
    tab.get_by_role("button", name="PUT").click()
    panel = tab.locator("pre.response")
    _expect(panel).to_contain_text("PUT /1/")
    _expect(panel).to_contain_text('"text": "repainted"')
    assert _api(notes_site, "/1/") == (200, {"url": notes_site + "/1/", "text": "repainted"})


def test_browser_post_from_list_page_creates_note(tab, notes_site):
    tab.goto("/")
    tab.get_by_label("Content").fill('{"text": "water the plants"}')
    tab.get_by_role("button", name="POST").click()
    panel = tab.locator("pre.response")
    _expect(panel).to_contain_text("HTTP 201 Created")
    _expect(tab.get_by_role("link", name=notes_site + "/3/")).to_be_visible()
    assert _api(notes_site, "/3/")[1]["text"] == "water the plants"


@pytest.mark.parametrize("confirm", [True, False])
def test_browser_delete_asks_first_and_removes_note_only_when_confirmed(
        tab, notes_site, confirm):
    dialogs = []

    def answer(dialog):
        dialogs.append((dialog.type, dialog.message))
        if confirm:
            dialog.accept()
        else:
            dialog.dismiss()
    tab.on("dialog", answer)
    tab.goto("/2/")
    tab.get_by_role("button", name="DELETE").click()
    if confirm:
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 204")
        assert _api(notes_site, "/2/")[0] == 404
    else:
        _expect(tab.locator("pre.response")).to_contain_text("GET /2/")
        assert _api(notes_site, "/2/")[1]["text"] == "paint the door"
    assert dialogs == [("confirm", "Delete this resource?")]


XSS_PAYLOADS = ["<script>window.__xss=1</script>", '<img src=x onerror="window.__xss=1">',
                "<svg onload=window.__xss=1>", "</textarea><img src=x onerror=window.__xss=1>"]


def test_browser_stored_xss_payloads_do_not_run(tab, notes_site):
    for text in XSS_PAYLOADS:
        assert _api(notes_site, "/", "POST", {"text": text})[0] == 201
    dialogs = []
    tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    tab.goto("/")  # waits for "load", which comes after any <img> error event
    _expect(tab.locator("pre.response")).to_contain_text(XSS_PAYLOADS[0])
    assert tab.evaluate("typeof window.__xss") == "undefined"
    for key, text in enumerate(XSS_PAYLOADS, 3):
        tab.goto("/{}/".format(key))
        assert json.loads(tab.get_by_label("Content").input_value())["text"] == text
        assert tab.evaluate("typeof window.__xss") == "undefined"
    # all of them at once, through the page's own fetch-and-swap path
    tab.get_by_label("Content").fill(json.dumps({"text": " ".join(XSS_PAYLOADS)}))
    tab.get_by_role("button", name="PUT").click()
    _expect(tab.locator("pre.response")).to_contain_text("PUT /6/")
    tab.wait_for_load_state("networkidle")
    assert tab.evaluate("typeof window.__xss") == "undefined"
    assert dialogs == []


@pytest.mark.parametrize("button, api_after", [
    ("PUT", (200, "offline edit")),
    ("DELETE", (404, None)),
])
def test_browser_without_javascript_plain_form_still_works(
        chromium, notes_site, button, api_after):
    tab = _new_tab(chromium, notes_site, java_script_enabled=False)
    try:
        tab.goto("/1/")
        tab.get_by_label("Content").fill('{"text": "offline edit"}')
        tab.get_by_role("button", name=button).click()
        # the page the user is left on reflects the change, not the old note
        _expect(tab.locator("pre.response")).not_to_contain_text("build the codez")
    finally:
        tab.context.close()
    code, data = _api(notes_site, "/1/")
    assert (code, data.get("text")) == api_after
