"""End-to-end tests of flask_api.py and notes_app.py.

Through the Flask test client wherever possible; the browsable page also in a
real headless Chromium. Runs on Python 3.6 + Flask 1.1 up to the newest.

The file, part by part: in flask_api.py's sections, in its order and under its names, each a
class whose own fixtures and helpers come before it, and in each, the tests through the test
client (and real servers) first, then those in Chromium. One section's tests run with one
selector: ``pytest test_all.py::TestStreams``.

    (shared parts)               what more than one section uses: apps and the test client,
                                 reading the page, one small API with each library, Chromium
                                 and its sites, real servers
    TestStatusCodes              HTTP_* and is_success() and friends
    TestExceptions               APIException and each error as {"detail": ...}
    TestNegotiation              media types, Accept and ?format=, the caches' bounds
    TestParsers                  request bodies by Content-Type
    TestRenderers                JSON by the app's settings, HTML, renderers per view
    TestRequestAndResponse       request.data, malformed bodies, body limits
    TestRoutes                   the routes' one description
    TestPageBodyAndLinks         the body as the page shows it, its links; the JSON tree
    TestPageContext              what the page shows of the exchange and the view
    TestPageResponses            the template and CSP, the page's script and style as files
                                 a browser keeps (and their budgets, in Chromium), JSON
                                 responses as the page, late headers, the route index
    TestStreams                  a view's generator in each format; its page, and it live
    TestApplication              FlaskAPI: results, settings, HEAD, OPTIONS, errors
    TestPlainForms               the page's forms without JavaScript
    TestAnyFlaskApp              BrowsableAPI(app) on each library
    TestOpenAPI                  the document, its answers, fragments, libraries' documents
    TestSchemaForm               the schemas the page embeds, and the form they make
    TestSigningIn                what the API asks for, for the page; real sign-in servers;
                                 the page's sign-in panel in Chromium
    TestFlaskAPI3Compatibility   code written for Flask-API 3.x
    TestPageTemplate             the page template: page/ and flask_api.py's copy equal, the
                                 script that ships (its lint: test_page_lint.py)
    TestRequestHeaders ...       the script's sections without Python of their own, in its
      TestRequests,              order: request headers, requests, coming back, the query
      TestComingBack,            form, the response panel, the form tab, copy as curl, the
      TestQueryForm,             request as code (and an answer as a test), the history,
      TestResponsePanel,         compare (the body as data and as a tree, the form from the
      TestFormTab,               schema and a stream, live are in their sections' classes
      TestCopyAsCurl,            above)
      TestRequestAsCode,
      TestHistory, TestCompare
    TestAccessibility            the page for everyone: what spans its parts
    TestNotesAPI ...             notes_app.py: the API, TestNotesLimitsAndHosts,
                                 TestNotesSQLite, TestNotesPostgres, TestNotesCommandLine,
                                 TestNotesFuzz, TestNotesOnGunicorn, TestNotesChangeFeed
    TestDocs                     README.md, CHANGELOG.md and docs/: every example runs and
                                 gives what it shows; the screenshots are what the tool makes
"""

import ast
import base64
import contextlib
import datetime
import functools
import gc
import glob
import gzip
import hashlib
import hmac
import html
import http.client
import io
import itertools
import json
import logging
import os
import random
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tarfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref
from html.parser import HTMLParser

import flask
import markupsafe
import pytest
import werkzeug.test
from flask import Blueprint, Flask, abort, jsonify, make_response, request, url_for
from flask.views import MethodView
from werkzeug.datastructures import FileStorage, MultiDict
from werkzeug.exceptions import NotFound as WerkzeugNotFound
from werkzeug.exceptions import RequestEntityTooLarge as WerkzeugRequestEntityTooLarge
from werkzeug.exceptions import default_exceptions
from werkzeug.http import parse_list_header
from werkzeug.middleware.dispatcher import DispatcherMiddleware

import flask_api
import notes_app
from flask_api import (
    APIException,
    AuthenticationFailed,
    BaseParser,
    BaseRenderer,
    BrowsableAPI,
    BrowsableAPIRenderer,
    FlaskAPI,
    HTMLRenderer,
    JSONParser,
    JSONRenderer,
    MediaType,
    MethodNotAllowed,
    NotAcceptable,
    NotAuthenticated,
    NotFound,
    ParseError,
    PermissionDenied,
    Throttled,
    UnsupportedMediaType,
    URLEncodedParser,
    openapi_document,
    set_openapi,
    set_parsers,
    set_renderers,
    status,
)
from tools.postgres import Postgres

# ---------------------------------------------------------------------------
# Shared fixtures and helpers: apps, the notes app and the Flask test client
# What more than one section uses is defined once, in these shared parts; a
# section's own fixtures and helpers open that section, before its class.
# ---------------------------------------------------------------------------

@pytest.fixture
def app():
    """A fresh, empty FlaskAPI app; tests add their own routes."""
    app = FlaskAPI(__name__)
    app.testing = True
    return app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(params=["memory", "sqlite"])
def notes_db(request, tmp_path):
    """Where the notes app under test keeps its notes: None for memory, or an SQLite file."""
    return None if request.param == "memory" else str(tmp_path / "notes.db")


@pytest.fixture
def make_notes_client(notes_db):
    """Makes a client for a notes app with a fresh store of ``notes`` (keys 0, 1, 2 if None).

    ``propagate=False`` turns crashes into 500s.
    """
    def make(notes=None, propagate=True):
        app = notes_app.create_app(notes=notes, db=notes_db)
        app.testing = propagate
        return app.test_client()

    return make


@pytest.fixture
def notes_client(make_notes_client):
    """A test client for a notes API with a fresh store (keys 0, 1, 2)."""
    return make_notes_client()


@pytest.fixture
def notes_main(monkeypatch):
    """Run notes_app.main without serving; returns the (app, host, port) it would serve."""
    served = []

    def run(self, host=None, port=None, **kwargs):
        served.append((self, host, port))

    monkeypatch.setattr(notes_app.FlaskAPI, "run", run)
    monkeypatch.delenv("NOTES_MAX_BODY", raising=False)
    monkeypatch.delenv("NOTES_DB", raising=False)

    def main(argv):
        notes_app.main(argv)
        assert len(served) == 1
        return served.pop()

    return main


INITIAL_TEXTS = ["do the shopping", "build the codez", "paint the door"]


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


def _put(client, key, text):
    return client.put("/{}/".format(key), json={"text": text},
                      headers={"Accept": "application/json"})


def _run_threads(count, work, interleave=True):
    """Run ``work(index, barrier)`` in ``count`` threads; re-raise the first error.

    A tiny switch interval makes threads interleave inside the store's methods,
    so an unguarded read-modify-write shows up here instead of in production;
    ``interleave=False`` keeps the usual one, for threads that wait on a server.
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
    sys.setswitchinterval(1e-6 if interleave else interval)
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


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
HTML_TYPE = "text/html; charset=utf-8"
JSON_TYPE = "application/json"


def _json(response):
    """The response body as JSON, on every Flask version."""
    return json.loads(response.data.decode("utf-8"))


def _accept(accept):
    return {"Accept": accept} if accept else {}


def _add_data_view(app):
    """/data: returns {"a": 1} (GET) or echoes the parsed body (POST)."""
    @app.route("/data", methods=["GET", "POST"])
    def data():
        if flask.request.method == "POST":
            return {"data": flask.request.data}
        return {"a": 1}


def _raiser(exception):
    """A view function that raises ``exception``."""
    def view():
        raise exception
    return view


def _raising_view(app, exception):
    app.add_url_rule("/raise", "raise", _raiser(exception))


def _missing(required, reason):
    """Skip for a missing browser or server, except where the environment variable
    ``required`` is set (CI sets REQUIRE_BROWSER and REQUIRE_POSTGRES): there, fail."""
    if os.environ.get(required):
        pytest.fail("{} is set, but {}".format(required, reason))
    pytest.skip(reason)


JSON = {"Accept": "application/json"}


def _validated(document):
    """The document, checked against the OpenAPI 3.1 schema where the validator is installed;
    the tests that call this pin the document's shape either way."""
    try:
        from openapi_spec_validator import validate
    except ImportError:  # the matrix's old Pythons: the shape is still tested
        return document
    validate(document)
    return document


# ---------------------------------------------------------------------------
# Shared helpers: reading the browsable page
# The page parsed as a user's browser would meet it, and the forms it sends.
# ---------------------------------------------------------------------------

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


def _assert_inert(page):
    """Nothing on the page but the template's own markup could run script."""
    assert [el.tag for el in page.elements if el.tag in ("img", "svg", "iframe")] == []
    assert list(page.find("script")[0].attrs) == ["src"]  # the page's own file, no inline code
    assert _ASSET_URL.match(page.find("script")[0].attrs["src"])
    data_blocks = [data.attrs.get("id") for data in page.find("script")[1:]]
    assert sorted(data_blocks) in ([], ["api-schemas"], ["api-auth"], ["api-auth", "api-schemas"])
    for data in page.find("script")[1:]:  # the form's schema (#31) and the sign-in's (#40)
        assert data.attrs == {"type": "application/json", "id": data.attrs["id"]}
        json.loads(data.text)
    handlers = [(el.tag, name) for el in page.elements for name in el.attrs
                if name.lower().startswith("on")]
    assert handlers == []
    hrefs = [(a.attrs.get("href") or "").strip().lower() for a in page.find("a")]
    assert not [href for href in hrefs if href.startswith(("javascript:", "data:"))]
    assert 'href="javascript:' not in page.html.lower()


def _form_submit(client, path, fields, headers=None):
    """POST the page's plain HTML form (no JavaScript), as a browser does."""
    headers = dict(headers or {}, Accept=BROWSER_ACCEPT)
    return client.post(path, headers=headers, data=fields)


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


# ---------------------------------------------------------------------------
# Shared helpers: one small API written with each library
# The same things API in FlaskAPI, plain Flask, flask-restful and flask-smorest.
# ---------------------------------------------------------------------------

THINGS = {1: "kettle", 2: "teapot"}
THING_BODY = {"required": True, "content": {"application/json": {"schema": {
    "type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}}}


def _optional(name):
    """A module the test needs but the project does not; skip where it is missing."""
    try:  # not importorskip: pytest 9 only skips on ModuleNotFoundError
        return __import__(name)
    except ImportError as exc:
        pytest.skip("needs {} ({})".format(name, exc))


def _plain_things(browsable=True):
    """A small JSON API written on plain Flask with jsonify."""
    app = Flask(__name__)
    things = dict(THINGS)

    def thing(key):
        return {"key": key, "name": things[key],
                "url": url_for("thing_detail", key=key, _external=True)}

    @app.route("/things/", methods=["GET", "POST"])
    def thing_list():
        """All things. POST a name to add one."""
        if request.method == "POST":
            key = max(things, default=0) + 1
            things[key] = request.get_json()["name"]
            return jsonify(thing(key)), 201
        return jsonify([thing(key) for key in sorted(things)])

    @app.route("/things/<int:key>", methods=["GET", "PUT", "DELETE"])
    def thing_detail(key):
        """One thing."""
        if key not in things:
            return jsonify(detail="No such thing."), 404
        if request.method == "DELETE":
            del things[key]
            return "", 204
        if request.method == "PUT":
            things[key] = request.get_json()["name"]
        return jsonify(thing(key))

    return _finish(app, browsable)


def _restful_things(browsable=True):
    """The same API with Flask-RESTful's Resource classes."""
    flask_restful = _optional("flask_restful")
    app = Flask(__name__)
    api = flask_restful.Api(app)
    things = dict(THINGS)

    def thing(key):
        return {"key": key, "name": things[key],
                "url": url_for("thingdetail", key=key, _external=True)}

    def name():
        """The body's name, or a 400: as its document says (Flask-RESTful writes none)."""
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            flask_restful.abort(400, message='Send a JSON object with a string "name".')
        return body["name"]

    @set_openapi({"post": {"requestBody": THING_BODY}})
    class ThingList(flask_restful.Resource):
        """All things. POST a name to add one."""

        def get(self):
            return [thing(key) for key in sorted(things)]

        def post(self):
            key = max(things, default=0) + 1
            things[key] = name()
            return thing(key), 201

    @set_openapi({"put": {"requestBody": THING_BODY}})
    class ThingDetail(flask_restful.Resource):
        """One thing."""

        def get(self, key):
            if key not in things:
                flask_restful.abort(404, message="No such thing.")
            return thing(key)

        def put(self, key):
            things[key] = name()
            return thing(key)

        def delete(self, key):
            things.pop(key, None)
            return "", 204

    api.add_resource(ThingList, "/things/")
    api.add_resource(ThingDetail, "/things/<int:key>")
    return _finish(app, browsable)


def _smorest_things(browsable=True):
    """The same API as a flask-smorest Blueprint with marshmallow schemas."""
    flask_smorest = _optional("flask_smorest")
    ma = _optional("marshmallow")
    app = Flask(__name__)
    app.config.update(API_TITLE="Things", API_VERSION="1", OPENAPI_VERSION="3.0.3")
    api = flask_smorest.Api(app)
    blp = flask_smorest.Blueprint("things", __name__, url_prefix="/things")
    things = dict(THINGS)

    class ThingSchema(ma.Schema):
        key = ma.fields.Int(dump_only=True)
        name = ma.fields.Str(required=True)
        url = ma.fields.Function(
            lambda thing: url_for("things.ThingDetail", key=thing["key"], _external=True),
            dump_only=True)

    @blp.route("/")
    class ThingList(MethodView):
        """All things. POST a name to add one."""

        @blp.response(200, ThingSchema(many=True))
        def get(self):
            return [{"key": key, "name": name} for key, name in sorted(things.items())]

        @blp.arguments(ThingSchema)
        @blp.response(201, ThingSchema)
        def post(self, data):
            key = max(things, default=0) + 1
            things[key] = data["name"]
            return {"key": key, "name": things[key]}

    @blp.route("/<int:key>")
    class ThingDetail(MethodView):
        """One thing."""

        @blp.response(200, ThingSchema)
        def get(self, key):
            if key not in things:
                flask_smorest.abort(404, message="No such thing.")
            return {"key": key, "name": things[key]}

        @blp.arguments(ThingSchema)
        @blp.response(200, ThingSchema)
        def put(self, data, key):
            things[key] = data["name"]
            return {"key": key, "name": things[key]}

        @blp.response(204)
        def delete(self, key):
            things.pop(key, None)

    api.register_blueprint(blp)
    return _finish(app, browsable)


def _finish(app, browsable):
    app.testing = True
    if browsable:
        BrowsableAPI(app)
    return app


THING_APPS = {"flask": _plain_things, "flask-restful": _restful_things,
              "flask-smorest": _smorest_things}


@functools.lru_cache(maxsize=None)
def _library_handles_errors(library):
    """False where the library alone, without BrowsableAPI, turns any error into an exception:
    Flask-RESTful 0.3.10 on Flask 3.2, whose error_router takes no app context."""
    client = THING_APPS[library](browsable=False).test_client()
    try:
        return client.get("/no/such/thing").status_code == 404
    except TypeError:  # raised from the library's own handler of every error
        return False


def _skip_where_the_library_breaks_errors(library):
    if library in THING_APPS and not _library_handles_errors(library):
        pytest.skip("{} itself fails on every error with this Flask ({})".format(
            library, "its error_router takes no app context"))


def _flaskapi_things():
    """The things API on FlaskAPI: its views return a list, a dict, or ``"", 204``."""
    app = FlaskAPI(__name__)
    things = dict(THINGS)

    @app.route("/things/")
    def thing_list():
        """All things."""
        return [{"key": key, "name": name} for key, name in sorted(things.items())]

    @app.route("/things/<int:key>", methods=["GET", "DELETE"])
    def thing_detail(key):
        """One thing."""
        if key not in things:
            return {"detail": "No such thing."}, 404
        if request.method == "DELETE":
            del things[key]
            return "", 204
        return {"key": key, "name": things[key]}
    app.testing = True
    return app


# ---------------------------------------------------------------------------
# Shared fixtures: headless Chromium (Playwright) against a live server
# A module's tests share one browser and one server; each test gets its own tab.
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
    _missing("REQUIRE_BROWSER", reason)


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


@contextlib.contextmanager
def _open_tab(chromium, base_url, **options):
    """A page in its own browser context, so no cookies or listeners leak between tests; the
    context is closed however the ``with`` block ends."""
    context = chromium.new_context(base_url=base_url, color_scheme="light", **options)
    try:
        tab = context.new_page()
        tab.set_default_timeout(10000)
        yield tab
    finally:
        context.close()


@pytest.fixture
def tab(chromium, notes_site):
    """A tab on the live notes API (see `_open_tab`)."""
    with _open_tab(chromium, notes_site) as tab:
        yield tab


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


def _raw_tab(tab):
    """Switch the request form to its raw content box (the HTML form is the default)."""
    tab.get_by_role("tab", name="Raw").click()


def _send_without_javascript(chromium, site, path, content, button, shown=None, gone=None):
    """Fill the page's content box at ``path`` with JavaScript off and press ``button``;
    the page the browser is left on must show ``shown`` and no longer show ``gone``."""
    with _open_tab(chromium, site, java_script_enabled=False) as tab:
        tab.goto(path)
        tab.get_by_label("Content").fill(content)
        tab.get_by_role("button", name=button).click()
        if shown is not None:
            _expect(tab.locator("pre.response")).to_contain_text(shown)
        if gone is not None:
            _expect(tab.locator("pre.response")).not_to_contain_text(gone)


def _guarded_app():
    """/, /things/ and /things/<n>/, each a 401 without ``Authorization: Bearer s3cret``."""
    app = FlaskAPI(__name__)

    @app.before_request
    def need_token():
        if request.headers.get("Authorization") != "Bearer s3cret":
            raise flask_api.NotAuthenticated()

    @app.route("/")
    def guarded_root():
        return {"things": url_for("guarded_things", _external=True)}

    @app.route("/things/")
    def guarded_things():
        return [url_for("guarded_thing", key=key, _external=True) for key in (1, 2)]

    @app.route("/things/<int:key>/")
    def guarded_thing(key):
        return {"key": key}
    return app


def _add_header(tab, name, value):
    """Add a header in the panel, and wait for the page it reloads with it: a field filled
    before that would be replaced by the reloaded page's."""
    tab.locator("#api-headers summary").click()
    tab.get_by_label("Header name").fill(name)
    tab.get_by_label("Header value").fill(value)
    tab.get_by_role("button", name="Add header").click()
    _expect(tab.locator("#api-headers summary")).to_contain_text(name)


def _choose(tab, way):
    """Open the sign-in panel if it is closed, and choose a way to sign in (its label)."""
    if tab.locator("#api-signin details[open]").count() == 0:
        tab.locator("#api-signin summary").click()
    folded = tab.locator('#api-signin .signin-again[aria-expanded="false"]')  # signed in
    if folded.count():
        folded.click()
    tab.get_by_label("Sign in with").select_option(label=way)


def _sign_in_with(tab, way, fields, button="Sign in"):
    """Sign in from the panel: choose the way, fill its fields ({label: value}), press its
    button, and wait for the page shown again."""
    _choose(tab, way)
    for label, value in fields.items():
        tab.get_by_label(label, exact=True).fill(value)
    tab.get_by_role("button", name=button, exact=True).click()
    _expect(tab.locator("#api-signin-status")).to_contain_text("Signed in with ")


def _big_items(count):
    """``count`` dicts of five fields: a string, a URL, a number, a nested dict, a list."""
    return [{"id": i, "name": "item {}".format(i), "url": "http://localhost/items/{}/".format(i),
             "owner": {"id": i % 97, "name": "user {}".format(i % 97)},
             "tags": ["red", "green", "blue"][:i % 3 + 1]} for i in range(count)]


def _things_app():
    """/thing/: one JSON object, replaced by PUT and merged by PATCH; /items/?page=&size=:
    a paginated list with Link headers."""
    app = FlaskAPI(__name__)
    store = {"thing": {"name": "lamp", "count": 2, "price": 9.5, "lit": False, "note": None,
                       "tags": ["old"], "size": {"w": 1}}}

    @app.route("/thing/", methods=["GET", "PUT", "PATCH"])
    def thing():
        if request.method == "PUT":
            store["thing"] = request.data
        elif request.method == "PATCH":
            store["thing"].update(request.data)
        return store["thing"]

    @app.route("/items/")
    def items():
        page, size = int(request.args.get("page", 1)), int(request.args.get("size", 2))
        keys = list(range((page - 1) * size, page * size))
        link = '</items/?page={}&size={}>; rel="next"'.format(page + 1, size)
        return {"page": page, "keys": keys}, 200, {"Link": link}
    app.config["things"] = store
    return app


class _Recorder:
    """Another origin (a server on another port) that records the headers it is sent."""

    def __init__(self):
        from werkzeug.serving import make_server
        self.seen = []
        self.server = make_server("127.0.0.1", 0, self._app, threaded=True)
        self.url = "http://127.0.0.1:{}".format(self.server.server_port)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _app(self, environ, start_response):
        self.seen.append({k: v for k, v in environ.items() if k.startswith("HTTP_")})
        start_response("200 OK", [("Content-Type", "text/html")])
        return [b"<h1>elsewhere</h1>"]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def elsewhere():
    recorder = _Recorder()
    yield recorder
    recorder.close()


# What JavaScript's own numbers and objects would lose: digits past 2**53, a float's ".0",
# a "__proto__" key; and text that JSON escapes.
LOSSY = {"big": 9007199254740993, "ratio": 2.0, "__proto__": "kept", "note": None,
         "name": "lamp \"Ω\" \\ \n", "lit": True, "see": "http://x.test/a", "size": {"w": 1}}


def _tree_app(count=20000):
    """/thing/ (GET, PUT: LOSSY, recording each raw body), /items/ (``count`` items, a Link
    header, GET and POST), /page/ (a paginated wrapper, GET and POST)."""
    app = FlaskAPI(__name__)
    app.config.update(things=dict(LOSSY), bodies=[])
    items = _big_items(count)

    @app.route("/thing/", methods=["GET", "PUT"])
    def tree_thing():
        if request.method == "PUT":
            app.config["bodies"].append(request.get_data())
            app.config["things"] = request.data
        return app.config["things"]

    @app.route("/items/", methods=["GET", "POST"])
    def tree_items():
        if request.method == "POST":
            app.config["bodies"].append(request.get_data())
            return {"made": True}, 201
        return items, 200, {"Link": '</items/?page=2>; rel="next"'}

    @app.route("/links/")
    def tree_links():
        return {"thing": url_for("tree_thing", _external=True)}

    @app.route("/page/", methods=["GET", "POST"])
    def tree_page():
        if request.method == "POST":
            app.config["bodies"].append(request.get_data())
            return {"made": True}, 201
        return {"count": 2, "next": None, "results": [{"name": "a", "size": 1},
                                                      {"name": "b", "size": 2}]}
    return app


@pytest.fixture
def tree_site(live_site):
    app = _tree_app()
    return app, live_site.serve(app)


CSP_MODES = ["csp", "csp-bypassed"]


def _attack_tab(chromium, site, csp):
    """A tab on ``site``, under the page's CSP or without it (as a proxy that drops the
    header would leave the page: Playwright's bypass_csp), for a ``with`` block."""
    return _open_tab(chromium, site, bypass_csp=csp == "csp-bypassed")


@pytest.fixture
def other_site():
    """Another origin (another port): a site the user visits, which the API does not trust."""
    site = _LiveSite()
    yield site
    site.close()


@pytest.fixture(scope="module")
def script_parts(chromium, live_site):
    """A real page in Chromium, its script's pure parts at ``window.parts``, for
    ``script_parts.evaluate("(args) => parts.f(...)", args)``: one page load, many cases.

    The script keeps all in one scope, and the page's script hands nothing out. The tests'
    build of it (tools/page.py: the same sections, then page/test/hand-over.js) is served in
    its place: as it starts, it hands its pure parts to the listeners of a "flask-api:script"
    event on the document, which a test adds from an init script."""
    site = live_site.serve(notes_app.create_app())
    with _open_tab(chromium, site) as tab:
        _take_parts(tab)
        tab.goto("/1/")
        yield tab


def _take_parts(tab):
    """Have ``tab`` load the tests' build of the page's script in place of the page's (the
    same sections, then page/test/hand-over.js: see tools/page.py), whose pure parts it then
    keeps at ``window.parts``."""
    from tools import page
    tests_build = page.script(tests=True)
    tab.route("**/_flask_api/page.*.js", lambda route: route.fulfill(
        body=tests_build, content_type="text/javascript; charset=utf-8"))
    tab.add_init_script("document.addEventListener('flask-api:script', "
                        "(event) => { window.parts = event.detail; }, {once: true});")


def _js(page, function, *args):
    """What ``function``, JavaScript that may use the script's ``parts``, gives for ``args``."""
    return page.evaluate("(args) => (" + function + ")(...args)", list(args))


_AXE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node_modules", "axe-core",
                    "axe.min.js")
_AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def _a11y_app():
    """Things to list, read, send every method to (DELETE answers 204), a POST-only URL for a
    405, and 5,000 items for a big list."""
    app = FlaskAPI(__name__)
    things = {key: {"key": key, "text": "thing {}".format(key), "done": key == 1}
              for key in range(3)}
    big = _big_items(5000)

    @app.route("/", methods=["GET", "POST"])
    def a11y_list():
        """The things. `POST` one."""
        if request.method == "POST":
            things[len(things)] = dict(request.data, key=len(things))
            return things[len(things) - 1], 201
        return [dict(thing, url=url_for("a11y_thing", key=key, _external=True))
                for key, thing in things.items()]

    @app.route("/<int:key>/", methods=["GET", "PUT", "PATCH", "DELETE"])
    def a11y_thing(key):
        """One thing."""
        if request.method == "DELETE":
            things.pop(key, None)
            return None, 204
        if key not in things:
            raise flask_api.NotFound()
        if request.method in ("PUT", "PATCH"):
            things[key].update(request.data)
        return things[key]

    app.add_url_rule("/post-only/", "post_only", lambda: {"ok": True}, methods=["POST"])
    app.add_url_rule("/big/", "big", lambda: big)
    return app


@pytest.fixture
def a11y_site(live_site):
    return live_site.serve(_a11y_app())


def _axe_script():
    """axe-core's script: npm's, pinned in package.json, where ``npm ci`` has run (CI); else the
    copy the axe-playwright-python package ships (pip's, in the test extra), so that the test
    command alone runs every accessibility test."""
    if os.path.exists(_AXE):
        return _AXE
    try:
        import axe_playwright_python
    except ImportError:
        _missing("REQUIRE_BROWSER", "the accessibility tests need axe-core: the test extra")
    return os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js")


def _axe(tab):
    """axe-core's violations on the page as it is now, at any impact: [(rule, [targets])]."""
    if not tab.evaluate("typeof axe !== 'undefined'"):
        tab.evaluate(_read(_axe_script()))  # CDP evaluation: the page's CSP stays
    return tab.evaluate("""(tags) => axe.run(document, {runOnly: {type: "tag", values: tags},
        resultTypes: ["violations"]}).then((result) => result.violations.map((rule) =>
        [rule.id, rule.nodes.map((node) => node.target.join(" ")).slice(0, 5)]))""", _AXE_TAGS)


# ---------------------------------------------------------------------------
# Shared fixtures: real servers (gunicorn, werkzeug's) and PostgreSQL
# Processes the tests start themselves, on free ports, and stop.
# ---------------------------------------------------------------------------

NOTES_DIR = os.path.dirname(os.path.abspath(notes_app.__file__))


GUNICORN = os.path.join(os.path.dirname(sys.executable), "gunicorn")


def _wait_for_gunicorn(proc, log, workers=4):
    """The port gunicorn listens on, once its ``workers`` have booted and / answers."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(log) as lines:
            text = lines.read()
        assert proc.poll() is None, "gunicorn exited:\n" + text
        port = re.search(r"Listening at: http://127\.0\.0\.1:([0-9]+)", text)
        if port and text.count("Booting worker") >= workers:
            try:
                if _http(int(port.group(1)), "GET", "/")[0] == 200:
                    return int(port.group(1))
            except OSError:
                pass
        time.sleep(0.05)
    pytest.fail("gunicorn did not answer within 60 s:\n" + text)


def _http(port, method, path, note=None):
    """One request on a connection of its own, so any worker may answer: (status, JSON)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        body = None if note is None else json.dumps(note)
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
    finally:
        conn.close()
    return resp.status, json.loads(data.decode("utf-8")) if data else None


def _stop(proc):
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _read(path):
    with open(path) as text:
        return text.read()


def _no_postgres(reason):
    _missing("REQUIRE_POSTGRES", reason)


@pytest.fixture(scope="module")
def postgres():
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        _no_postgres("the PostgreSQL tests need psycopg 3 and psycopg_pool ({})".format(exc))
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        _no_postgres("the PostgreSQL tests need its server (Debian: apt-get install postgresql)")
    server = Postgres(os.path.dirname(found[-1]))
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            server.stop("immediate")
        shutil.rmtree(server.root, ignore_errors=True)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A Redis server of its own, on a Unix socket in a temporary folder, stopped after."""
    server = shutil.which("redis-server")
    if not server:
        _missing("REQUIRE_REDIS", "the Redis test needs its server (Debian: apt-get install "
                 "redis-server)")
    _optional("redis")
    folder = tmp_path_factory.mktemp("redis")
    socket_path = str(folder / "redis.sock")
    proc = subprocess.Popen([server, "--port", "0", "--unixsocket", socket_path, "--save", "",
                             "--dir", str(folder)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(socket_path):
            assert proc.poll() is None and time.monotonic() < deadline, "redis did not start"
            time.sleep(0.05)
        yield "unix://" + socket_path
    finally:
        _stop(proc)


# ---------------------------------------------------------------------------
# Status codes
# ---------------------------------------------------------------------------

STATUS_CODES = [
    100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226,
    300, 301, 302, 303, 304, 305, 306, 307, 308,
    400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417,
    418, 421, 422, 423, 424, 425, 426, 428, 429, 431, 451,
    500, 501, 502, 503, 504, 505, 506, 507, 508, 509, 510, 511,
]


class TestStatusCodes:
    """A constant for every code, and is_success() and friends at exact boundaries."""

    def test_status_has_a_constant_for_every_code_named_after_it(self):
        names = [name for name in dir(status) if re.match(r"HTTP_\d{3}_[A-Z_]+$", name)]
        assert sorted(getattr(status, name) for name in names) == STATUS_CODES
        for name in names:
            assert getattr(status, name) == int(name.split("_")[1])
        assert status.HTTP_100_CONTINUE == 100
        assert status.HTTP_418_IM_A_TEAPOT == 418
        assert status.HTTP_511_NETWORK_AUTHENTICATION_REQUIRED == 511

    @pytest.mark.parametrize("check, inside, outside", [
        ("is_informational", [100, 199], [99, 200]),
        ("is_success", [200, 299], [199, 300]),
        ("is_redirect", [300, 399], [299, 400]),
        ("is_client_error", [400, 499], [399, 500]),
        ("is_server_error", [500, 599], [499, 600]),
    ])
    def test_status_class_checks_have_exact_boundaries(self, check, inside, outside):
        function = getattr(status, check)
        assert [function(code) for code in inside] == [True, True]
        assert [function(code) for code in outside] == [False, False]


# ---------------------------------------------------------------------------
# Exceptions
# ---------------------------------------------------------------------------

API_EXCEPTIONS = [
    (ParseError, 400), (AuthenticationFailed, 401), (NotAuthenticated, 401),
    (PermissionDenied, 403), (NotFound, 404), (MethodNotAllowed, 405), (NotAcceptable, 406),
    (UnsupportedMediaType, 415), (Throttled, 429),
]


class TestExceptions:
    """Each error as {"detail": ...} with its status, and headers where it has some."""

    @pytest.mark.parametrize("exc_class, code", API_EXCEPTIONS)
    def test_api_exception_renders_default_detail_with_its_status(self, app, client, exc_class,
                                                                  code):
        _raising_view(app, exc_class())
        response = client.get("/raise")
        assert response.status_code == code == exc_class.status_code
        assert response.headers["Content-Type"] == JSON_TYPE
        assert response.headers["Vary"] == "Accept"
        assert _json(response) == {"detail": exc_class.detail}
        assert str(exc_class()) == exc_class.detail

    @pytest.mark.parametrize("exc_class, code", API_EXCEPTIONS)
    def test_api_exception_takes_optional_detail(self, app, client, exc_class, code):
        exception = exc_class("Custom detail.")
        _raising_view(app, exception)
        response = client.get("/raise")
        assert response.status_code == code
        assert _json(response) == {"detail": "Custom detail."}
        assert str(exception) == "Custom detail."

    def test_api_exception_detail_may_be_structured(self, app, client):
        _raising_view(app, ParseError({"text": ["This field is required."]}))
        assert _json(client.get("/raise")) == {"detail": {"text": ["This field is required."]}}

    def test_throttled_with_wait_sets_retry_after(self, app, client):
        _raising_view(app, Throttled(wait=30))
        response = client.get("/raise")
        assert response.status_code == 429
        assert response.headers["Retry-After"] == "30"
        assert "30" in _json(response)["detail"]

    def test_throttled_without_wait_has_no_retry_after(self, app, client):
        _raising_view(app, Throttled())
        response = client.get("/raise")
        assert response.status_code == 429 and "Retry-After" not in response.headers

    def test_api_exception_subclass_takes_status_and_detail_from_class_attributes(self, app,
                                                                                  client):
        class PaymentRequired(APIException):
            status_code = 402
            detail = "Pay first."

        _raising_view(app, PaymentRequired())
        response = client.get("/raise")
        assert response.status_code == 402
        assert _json(response) == {"detail": "Pay first."}
        assert str(PaymentRequired()) == "Pay first."

    def test_api_exception_renders_as_html_page_for_browsers(self, app, client):
        _raising_view(app, PermissionDenied())
        response = client.get("/raise", headers={"Accept": BROWSER_ACCEPT})
        assert response.status_code == 403
        assert response.headers["Content-Type"] == HTML_TYPE
        assert PermissionDenied.detail in response.data.decode("utf-8")

    @pytest.mark.parametrize("testing", [True, False], ids=["testing", "production"])
    @pytest.mark.parametrize("path", ["/raise", "/data"])
    def test_not_acceptable_renders_with_first_renderer_as_406(self, app, client, testing, path):
        app.testing = testing
        _raising_view(app, NotAcceptable())
        _add_data_view(app)
        response = client.get(path, headers={"Accept": "application/xml"})
        assert response.status_code == 406
        assert response.headers["Content-Type"] == JSON_TYPE
        assert _json(response) == {"detail": NotAcceptable.detail}


# ---------------------------------------------------------------------------
# Media types and content negotiation
# ---------------------------------------------------------------------------

class VersionedJSONRenderer(JSONRenderer):
    """JSON for clients that ask for api-version 1.0: the payload is wrapped."""

    media_type = 'application/json; api-version="1.0"'

    def render(self, data, media_type, **options):
        return super().render({"version": "1.0", "data": data}, media_type, **options)


class CharsetHTMLRenderer(HTMLRenderer):
    media_type = 'text/html; charset="UTF-8"'


class VersionOneJSON(JSONRenderer):
    media_type = 'application/json; api-version="1.0"'


class VersionTwoJSON(JSONRenderer):
    media_type = 'application/json; api-version="2.0"'


def _huge_accept(seed):
    """About 700 KiB of media ranges, as gunicorn joins repeated Accept lines."""
    ranges = ["application/x-{}-{}; q=0.{}".format(seed, n, n % 9 + 1) for n in range(24000)]
    return "text/html, " + ", ".join(ranges)


def _gunicorn_worker_rss(pid):
    status = _read("/proc/{}/status".format(pid))
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) * 1024


class TestNegotiation:
    """Accept by quality, specificity and server order; ?format=; caches bounded in bytes."""

    @pytest.mark.parametrize("accept, content_type", [
        (None, JSON_TYPE),
        ("*/*", JSON_TYPE),
        ("application/json", JSON_TYPE),
        ("text/html", HTML_TYPE),
        (BROWSER_ACCEPT, HTML_TYPE),
        # quality first
        ("application/json;q=0.5, text/html", HTML_TYPE),
        ("application/*;q=0.2, text/*;q=0.1", JSON_TYPE),
        # q=0 means "not acceptable", even when a wildcard would allow it
        ("application/json;q=0, */*", HTML_TYPE),
        ("text/html;q=0, */*", JSON_TYPE),
        # the most specific matching range gives an offer its quality
        ("application/json;q=0.5, */*;q=0.9", HTML_TYPE),
        # then specificity
        ("*/*, text/html", HTML_TYPE),
        ("text/*", HTML_TYPE),
        # then the server's renderer order, whatever the client's order
        ("text/html, application/json", JSON_TYPE),
        ("image/png, */*;q=0.1", JSON_TYPE),
    ])
    def test_accept_header_picks_renderer_by_quality_specificity_then_server_order(
            self, app, client, accept, content_type):
        _add_data_view(app)
        response = client.get("/data", headers=_accept(accept))
        assert response.status_code == 200
        assert response.headers["Content-Type"] == content_type
        assert response.headers["Vary"] == "Accept"

    @pytest.mark.parametrize("accept", [
        "application/xml", "image/*", "application/json;q=0, text/html;q=0", "*/*;q=0"])
    def test_accept_nothing_renderable_gives_406_rendered_as_json(self, app, client, accept):
        _add_data_view(app)
        response = client.get("/data", headers={"Accept": accept})
        assert response.status_code == 406
        assert response.headers["Content-Type"] == JSON_TYPE
        assert _json(response) == {"detail": NotAcceptable.detail}

    @pytest.mark.parametrize("param, body", [
        ("", b'{"a": 1}'),
        ("; indent=4", b'{\n    "a": 1\n}'),
        ("; indent=0", b'{\n"a": 1\n}'),
        ("; indent=-3", b'{\n"a": 1\n}'),
        ("; indent=100", b'{\n        "a": 1\n}'),
        ("; indent=lots", b'{"a": 1}'),
    ])
    def test_accept_with_indent_param_renders_indented_json_clamped_0_to_8(self, app, client, param,
                                                                           body):
        _add_data_view(app)
        response = client.get("/data", headers={"Accept": "application/json" + param})
        assert response.headers["Content-Type"] == JSON_TYPE
        assert response.data == body

    @pytest.mark.parametrize("accept, body", [
        ('application/json; api-version="1.0"', {"version": "1.0", "data": {"a": 1}}),
        ("application/json; api-version=1.0", {"version": "1.0", "data": {"a": 1}}),
        ("application/json", {"a": 1}),
        (None, {"a": 1}),
    ])
    def test_accept_media_type_param_picks_renderer_declaring_it(self, app, client, accept, body):
        @app.route("/")
        @set_renderers(JSONRenderer, VersionedJSONRenderer)
        def versioned():
            return {"a": 1}

        assert _json(client.get("/", headers=_accept(accept))) == body

    @pytest.mark.parametrize("accept, renderer, media_type", [
        (None, "JSONRenderer", "application/json"),
        ("application/json; indent=2", "JSONRenderer", 'application/json; indent="2"'),
        (BROWSER_ACCEPT, "BrowsableAPIRenderer", "text/html"),
    ])
    def test_request_exposes_accepted_renderer_and_media_type(self, app, client, accept, renderer,
                                                              media_type):
        _add_data_view(app)

        @app.after_request
        def expose_negotiation(response):
            response.headers["X-Renderer"] = type(flask.request.accepted_renderer).__name__
            response.headers["X-Media-Type"] = str(flask.request.accepted_media_type)
            return response

        response = client.get("/data", headers=_accept(accept))
        assert response.headers["X-Renderer"] == renderer
        assert response.headers["X-Media-Type"] == media_type

    def test_accepted_media_type_is_a_media_type_object_inside_the_renderer(self, app, client):
        class EchoNegotiationRenderer(BaseRenderer):
            media_type = "text/plain"

            def render(self, data, media_type, **options):
                request = flask.request
                return "{} {} {}".format(type(request.accepted_renderer).__name__,
                                         request.accepted_media_type,
                                         request.accepted_media_type is media_type)

        @app.route("/")
        @set_renderers(EchoNegotiationRenderer)
        def echo():
            return {}

        response = client.get("/", headers={"Accept": "text/plain"})
        assert response.data == b"EchoNegotiationRenderer text/plain True"
        assert response.headers["Content-Type"] == "text/plain; charset=utf-8"

    @pytest.mark.parametrize("query, accept, code, content_type", [
        ("?format=json", BROWSER_ACCEPT, 200, JSON_TYPE),
        ("?format=json", "text/html", 200, JSON_TYPE),
        ("?format=api", "application/json", 200, HTML_TYPE),
        ("?format=xml", None, 406, JSON_TYPE),
    ])
    def test_format_query_param_overrides_accept(self, app, client, query, accept, code,
                                                 content_type):
        _add_data_view(app)
        response = client.get("/data" + query, headers=_accept(accept))
        assert response.status_code == code
        assert response.headers["Content-Type"] == content_type

    def test_parse_accept_header_gives_flask_api_3s_sets_most_specific_first(self):
        parsed = flask_api.mediatypes.parse_accept_header(
            "application/xml; schema=foo, application/json; q=0.9, application/xml, */*")
        assert parsed == [{MediaType("application/xml; schema=foo")},
                          {MediaType("application/json; q=0.9"), MediaType("application/xml")},
                          {MediaType("*/*")}]

    @pytest.mark.parametrize("text, full_type, params, precedence, canonical", [
        ("application/json", "application/json", {}, 2, "application/json"),
        ("Application/JSON;Indent=4", "application/json", {"indent": "4"}, 3,
         'application/json; indent="4"'),
        ('application/json; api-version=1.0', "application/json", {"api-version": "1.0"}, 3,
         'application/json; api-version="1.0"'),
        ("text/html; q=0.5; level=1", "text/html", {"q": "0.5", "level": "1"}, 3,
         'text/html; level="1"; q=0.5'),
        ('a/b; x="y z"', "a/b", {"x": "y z"}, 3, 'a/b; x="y z"'),
        ("text/html; q=0.5", "text/html", {"q": "0.5"}, 2, "text/html; q=0.5"),
        ("text/*", "text/*", {}, 1, "text/*"),
        ("*/*", "*/*", {}, 0, "*/*"),
    ])
    def test_media_type_parses_parts_params_precedence_and_canonical_str(
            self, text, full_type, params, precedence, canonical):
        media_type = MediaType(text)
        assert (media_type.main_type, media_type.sub_type) == tuple(full_type.split("/"))
        assert media_type.full_type == full_type
        assert media_type.params == params
        assert media_type.precedence == precedence
        assert str(media_type) == canonical
        assert MediaType(canonical) == media_type and hash(MediaType(canonical)) == hash(media_type)

    @pytest.mark.parametrize("offer, accepted, expected", [
        ("application/json", "*/*", True),
        ("application/json", "application/*", True),
        ("application/json", "application/json; indent=4", True),
        ("application/json", "text/*", False),
        ("text/html", "text/plain", False),
        ("application/json; indent=4", "application/json", False),
        ("application/json; api-version=1.0", 'application/json; api-version="1.0"', True),
        ("application/json; api-version=1.0", "application/json; api-version=2.0", False),
    ])
    def test_media_type_satisfies_matches_wildcards_and_params(self, offer, accepted, expected):
        assert MediaType(offer).satisfies(MediaType(accepted)) is expected

    def test_accepted_media_type_keeps_the_clients_parameters_but_not_its_quality(self, app,
                                                                                  client):
        @app.route("/")
        def view():
            return {"x": 1}

        @app.after_request
        def record(response):
            response.headers["X-Accepted"] = str(flask.request.accepted_media_type)
            return response

        accept = "text/html; q=0.5, application/json; q=0.9; indent=2"
        resp = client.get("/", headers={"Accept": accept})
        assert resp.headers["X-Accepted"] == 'application/json; indent="2"'
        assert resp.get_data(as_text=True) == '{\n  "x": 1\n}'

    def test_format_override_turned_off_ignores_format_and_drops_the_json_link(self, app, client):
        app.config["URL_FORMAT_OVERRIDE"] = None

        @app.route("/")
        def view():
            return {"x": 1}

        browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
        page = client.get("/?format=json", headers=browser)
        assert page.mimetype == "text/html"
        assert "View as JSON" not in page.get_data(as_text=True)
        assert client.get("/?format=api").mimetype == "application/json"

    @pytest.mark.parametrize("method, path", [("POST", "/"), ("PUT", "/1/"), ("PUT", "/9/"),
                                              ("DELETE", "/2/")])
    def test_write_with_nothing_acceptable_is_a_406_before_anything_is_stored(self, notes_client,
                                                                              method, path):
        before = _json(notes_client.get("/"))
        response = notes_client.open(path, method=method, json={"text": "x"},
                                     headers={"Accept": "image/png"})
        assert response.status_code == 406
        assert "detail" in _json(response)
        assert _json(notes_client.get("/")) == before

    def test_get_of_a_non_api_view_with_its_own_accept_still_works_as_in_flask(self, app, client):
        @app.route("/logo.png")
        def logo():
            return flask.Response(b"\x89PNG", mimetype="image/png")

        response = client.get("/logo.png", headers={"Accept": "image/png"})
        assert response.status_code == 200 and response.data == b"\x89PNG"

    @pytest.mark.parametrize("accept", ["text/html", BROWSER_ACCEPT])
    def test_renderer_whose_media_type_has_a_charset_is_chosen_by_browsers(self, app, client,
                                                                           accept):
        @app.route("/")
        @set_renderers(JSONRenderer, CharsetHTMLRenderer)
        def view():
            return "<p>hello</p>"

        response = client.get("/", headers={"Accept": accept})
        assert response.data == b"<p>hello</p>"
        assert response.headers["Content-Type"].lower().count("charset") == 1

    @pytest.mark.parametrize("accept, chosen", [
        (None, "2.0"),  # server order: a parameter only the renderer names does not block
        ("application/json", "2.0"),
        ('application/json; api-version="1.0"', "1.0"),  # named both sides: must agree
        ("application/json; api-version=1.0", "1.0"),
        ("application/json; indent=2", "2.0"),  # only in Accept: no bar either
    ])
    def test_media_type_parameters_named_on_one_side_only_do_not_block_a_match(
            self, app, client, accept, chosen):
        @app.route("/")
        @set_renderers(VersionTwoJSON, VersionOneJSON)
        def view():
            return {"version": flask.request.accepted_media_type.params["api-version"]}

        assert _json(client.get("/", headers=_accept(accept))) == {"version": chosen}

    def test_a_parameter_both_sides_name_with_different_values_is_not_acceptable(self, app, client):
        @app.route("/")
        @set_renderers(VersionOneJSON)
        def view():
            return {}

        response = client.get("/", headers={"Accept": "application/json; api-version=3.0"})
        assert response.status_code == 406

    def test_more_agreeing_parameters_rank_higher_than_server_order(self, app, client):
        class Compact(JSONRenderer):
            media_type = 'application/json; api-version="1.0"; style=compact'

        @app.route("/")
        @set_renderers(VersionOneJSON, Compact)
        def view():
            return {"renderer": type(flask.request.accepted_renderer).__name__}

        accept = "application/json; api-version=1.0; style=compact"
        assert _json(client.get("/", headers={"Accept": accept})) == {"renderer": "Compact"}

    def test_versioning_by_accepted_media_type_params_works_as_in_3x(self, app, client):
        @app.route("/")
        def view():
            return {"version": flask.request.accepted_media_type.params.get("api-version", "1")}

        assert _json(client.get("/")) == {"version": "1"}
        accept = "application/json; api-version=2"
        assert _json(client.get("/", headers={"Accept": accept})) == {"version": "2"}

    def test_accepted_renderer_is_readable_in_a_view_and_negotiated_once(self, app, client,
                                                                         monkeypatch):
        calls = []
        lookup = flask_api._route_negotiation

        class Counted(dict):
            def __getitem__(self, key):
                calls.append(1)
                return lookup[key]
        monkeypatch.setattr(flask_api, "_route_negotiation", Counted())

        @app.route("/", methods=["PUT"])
        def view():
            return {"in_view": type(flask.request.accepted_renderer).__name__}

        response = client.put("/", json={})
        assert _json(response) == {"in_view": "JSONRenderer"}
        assert len(calls) == 1  # the early 406 check, the view and rendering share one

    def test_a_406_raised_by_reading_accepted_renderer_is_an_ordinary_api_error(self, app, client):
        @app.route("/")
        def view():
            assert flask.request.accepted_renderer  # raises NotAcceptable here
            return flask.Response(b"image", mimetype="image/png")

        response = client.get("/", headers={"Accept": "image/png"})
        assert response.status_code == 406
        assert _json(response) == {"detail": NotAcceptable.detail}

    def test_a_huge_accept_header_is_read_only_so_far_and_costs_no_lasting_memory(self, app,
                                                                                  client):
        import gc
        import tracemalloc
        _add_data_view(app)
        client.get("/data", headers={"Accept": _huge_accept("warm")})
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for seed in range(4):
                response = client.get("/data", headers={"Accept": _huge_accept(seed)})
                assert response.status_code == 200 and response.mimetype == "text/html"
            gc.collect()
            kept = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert kept < 4 * 1024 * 1024, "{} bytes kept for 4 distinct 700 KiB headers".format(kept)

    def test_negotiation_caches_keep_no_long_text_and_no_more_than_their_size(self, app, client):
        _add_data_view(app)
        caches = [flask_api._negotiate, flask_api._accepted, flask_api._query_value,
                  flask_api._route_negotiation]
        for cache in caches:
            cache.clear()
        long_accept = "application/json, " + ", ".join("x/y{}".format(n) for n in range(60))
        for query in ["", "?format=json&pad=" + "p" * 300]:
            assert client.get("/data" + query, headers={"Accept": long_accept}).status_code == 200
        assert not any(len(key[0]) > 256 for cache in caches for key in cache)
        for n in range(2100):  # distinct short headers: at most maxsize kept at any time
            client.get("/data", headers={"Accept": "application/json, x/y{}".format(n)})
            assert len(flask_api._negotiate) <= 1024 and len(flask_api._accepted) <= 64
            assert len(flask_api._route_negotiation) <= 1024
        assert client.get("/data", headers={"Accept": "application/json"}).status_code == 200

    def test_a_huge_content_type_is_a_415_not_a_cache_entry(self, app, client):
        _add_data_view(app)
        flask_api._route_parser.clear()
        response = client.post("/data", data=b"{}",
                               content_type="application/json; x=" + "y" * 5000)
        assert response.status_code == 415 and "detail" in _json(response)
        assert not flask_api._route_parser and not any(
            len(key[0]) > 64 for key in flask_api._parser_for)

    def test_content_types_a_route_parses_are_kept_short_and_no_more_than_256(self, app, client):
        _add_data_view(app)
        flask_api._route_parser.clear()
        for n in range(600):  # a multipart boundary makes most headers unique
            response = client.post("/data", data=b'{"n": 1}',
                                   content_type="application/json; b={}".format(n) + "x" * n)
            assert response.status_code == 200
            assert len(flask_api._route_parser) <= 256
        assert not any(len(key[0]) > 64 for key in flask_api._route_parser)

    def test_renderers_changed_in_place_in_the_config_apply_to_the_next_request(self, app,
                                                                                 client):
        _add_data_view(app)
        browser = {"Accept": BROWSER_ACCEPT}
        assert client.get("/data", headers=browser).headers["Content-Type"] == HTML_TYPE
        app.config["DEFAULT_RENDERERS"].remove(BrowsableAPIRenderer)
        assert client.get("/data", headers=browser).headers["Content-Type"] == JSON_TYPE
        app.config["DEFAULT_RENDERERS"].insert(0, "flask_api.HTMLRenderer")
        assert client.get("/data", headers=browser).headers["Content-Type"] == HTML_TYPE
        app.config["DEFAULT_RENDERERS"] = "flask_api.JSONRenderer"  # one, alone
        assert client.get("/data", headers=browser).headers["Content-Type"] == JSON_TYPE

    def test_parsers_changed_in_place_in_the_config_apply_to_the_next_request(self, app, client):
        _add_data_view(app)
        form = {"data": b"a=1", "content_type": "application/x-www-form-urlencoded"}
        assert _json(client.post("/data", **form)) == {"data": {"a": "1"}}
        app.config["DEFAULT_PARSERS"].remove(URLEncodedParser)
        assert client.post("/data", **form).status_code == 415
        app.config["DEFAULT_PARSERS"] = "flask_api.URLEncodedParser"  # one, alone
        assert _json(client.post("/data", **form)) == {"data": {"a": "1"}}
        assert client.post("/data", json={"a": 1}).status_code == 415

    def test_classes_a_hook_sets_on_some_requests_apply_to_those_alone(self, app, client):
        _add_data_view(app)

        @app.before_request
        def narrower_when_asked():
            if "html" in flask.request.args:
                flask.request.renderer_classes = [HTMLRenderer]
            if "strict" in flask.request.args:
                flask.request.parser_classes = [URLEncodedParser]

        for _ in range(2):
            assert client.get("/data?html").headers["Content-Type"] == HTML_TYPE
            assert client.get("/data").headers["Content-Type"] == JSON_TYPE
            assert client.post("/data?strict", json={"a": 1}).status_code == 415
            assert _json(client.post("/data", json={"a": 1})) == {"data": {"a": 1}}

    def test_a_view_replaced_by_the_app_negotiates_and_parses_with_its_own_classes(self, app,
                                                                                    client):
        _add_data_view(app)
        assert client.get("/data", headers={"Accept": "text/html"}).headers[
            "Content-Type"] == HTML_TYPE
        assert client.post("/data", json={"a": 1}).status_code == 200

        @set_parsers(URLEncodedParser)
        @set_renderers(JSONRenderer)
        def json_only():
            return {"data": flask.request.data}

        app.view_functions["data"] = json_only
        assert client.get("/data", headers={"Accept": "text/html"}).status_code == 406
        assert client.post("/data", json={"a": 1}).status_code == 415

    def test_distinct_long_headers_and_queries_grow_a_gunicorn_worker_by_under_20_mib(self,
                                                                                      tmp_path):
        """1,000 requests, each with its own 1 KiB Accept, Content-Type and query: the caches
        that hold parsed headers are bounded in bytes, not only in entries."""
        if not os.path.exists(GUNICORN):
            pytest.skip("gunicorn is not installed")
        env = {name: value for name, value in os.environ.items() if not name.startswith("NOTES_")}
        env["XDG_RUNTIME_DIR"] = str(tmp_path)
        log = str(tmp_path / "gunicorn.log")
        with open(log, "w") as out:
            proc = subprocess.Popen([GUNICORN, "--workers", "1", "--bind", "127.0.0.1:0",
                                     "notes_app:app"], cwd=NOTES_DIR, env=env, stdout=out,
                                    stderr=subprocess.STDOUT)
        try:
            deadline, port = time.monotonic() + 60, None
            while port is None and time.monotonic() < deadline:
                found = re.search(r"Listening at: http://127\.0\.0\.1:([0-9]+)", _read(log))
                port = found and int(found.group(1))
                time.sleep(0.05)
            assert port, _read(log)

            def send(n):
                ranges = "x/{},".format(n) + ",".join("a/{}".format(i) for i in range(180))
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("PUT", "/1/?x{}={}".format(n, "y" * 1000), body=b"{}", headers={
                    "Accept": ranges + ",application/json",
                    "Content-Type": "application/json; v=" + str(n) * (900 // len(str(n)))})
                status = conn.getresponse().status
                conn.close()
                assert status < 500
            for n in range(100):  # warm up: imports, first renders, the allocator's arenas
                send(-n)
            worker = int(_read("/proc/{0}/task/{0}/children".format(proc.pid)).split()[0])
            before = _gunicorn_worker_rss(worker)
            for n in range(1000):
                send(n)
            grown = _gunicorn_worker_rss(worker) - before
            assert grown < 20 * 1024 * 1024, "the worker grew by {:.1f} MiB".format(grown / 2 ** 20)
        finally:
            proc.terminate()
            proc.wait(30)


# ---------------------------------------------------------------------------
# Parsers
# ---------------------------------------------------------------------------

class LazyParser(BaseParser):
    media_type = "text/plain"


class TestParsers:
    """Request bodies by Content-Type, per view or app."""

    @pytest.mark.parametrize("decorator", [
        set_parsers(JSONParser), set_parsers([JSONParser]), set_parsers("flask_api.JSONParser")],
        ids=["class", "list", "dotted-string"])
    def test_view_with_only_json_parser_rejects_form_body_with_415(self, app, client, decorator):
        app.add_url_rule("/", "view", decorator(lambda: {"data": flask.request.data}),
                         methods=["POST"])
        form = client.post("/", data={"text": "x"})
        assert form.status_code == 415
        assert "detail" in _json(form)
        assert _json(client.post("/", json={"text": "x"})) == {"data": {"text": "x"}}

    def test_set_parsers_with_two_parsers_accepts_exactly_those(self, app, client):
        @app.route("/", methods=["POST"])
        @set_parsers(JSONParser, URLEncodedParser)
        def two_parsers():
            return {"data": flask.request.data}

        assert client.post("/", data={"a": "1"}).status_code == 200
        assert client.post("/", json={"a": 1}).status_code == 200
        assert client.post("/", data={"a": "1"},
                           content_type="multipart/form-data").status_code == 415

    @pytest.mark.parametrize("form_flag", [True, False])
    def test_parser_flags_decide_what_request_form_and_files_hold(self, app, client, form_flag):
        class Lines(BaseParser):
            media_type = "text/plain"
            handles_form_data = form_flag
            handles_file_uploads = True

            def parse(self, stream, media_type, content_length=None):
                lines = stream.read().decode("utf-8").splitlines()
                upload = FileStorage(io.BytesIO(b"x"), "f.txt")
                return MultiDict([("line", line) for line in lines]), MultiDict([("f", upload)])

        @app.route("/", methods=["POST"])
        @set_parsers(Lines)
        def view():
            request = flask.request
            return {"data": request.data.getlist("line"), "form": request.form.getlist("line"),
                    "files": list(request.files)}

        response = client.post("/", data="a\nb", content_type="text/plain")
        expected_form = ["a", "b"] if form_flag else []
        assert _json(response) == {"data": ["a", "b"], "form": expected_form, "files": ["f"]}

    @pytest.mark.parametrize("media_type", ["application/json", MediaType("application/json")])
    def test_parsers_work_on_their_own_outside_any_request(self, media_type):
        assert not flask.has_app_context()
        assert JSONParser().parse(io.BytesIO(b'{"a": 1}'), media_type) == {"a": 1}
        with pytest.raises(ParseError):
            JSONParser().parse(io.BytesIO(b"{"), media_type)
        form = flask_api.URLEncodedParser().parse(io.BytesIO(b"a=1&a=2"),
                                                  "application/x-www-form-urlencoded",
                                                  content_length=7)
        assert form.getlist("a") == ["1", "2"]
        with pytest.raises(ParseError, match="missing boundary"):
            flask_api.MultiPartParser().parse(io.BytesIO(b"x"), "multipart/form-data")

    def test_parser_without_parse_raises_not_implemented_naming_the_class(self, app, client):
        app.add_url_rule("/", "view", set_parsers(LazyParser)(lambda: {"data": flask.request.data}),
                         methods=["POST"])
        message = r'`parse\(\)` method must be implemented for class "LazyParser"'
        with pytest.raises(NotImplementedError, match=message):
            client.post("/", data="x", content_type="text/plain")


# ---------------------------------------------------------------------------
# Renderers
# ---------------------------------------------------------------------------

class UpperTextParser(BaseParser):
    """text/plain bodies, upper-cased (shows the parse() signature in use)."""

    media_type = "text/plain"

    def parse(self, stream, media_type, **options):
        return stream.read().decode(media_type.params.get("charset", "utf-8")).upper()


class CSVRenderer(BaseRenderer):
    """Rows of a list as comma-separated lines."""

    media_type = "text/csv"
    format = "csv"

    def render(self, data, media_type, **options):
        return "\n".join(",".join(str(cell) for cell in row) for row in data)


class LazyRenderer(BaseRenderer):
    media_type = "text/plain"


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class TestRenderers:
    """JSON by the app's JSON settings, HTML passed through, renderers per view."""

    def test_view_with_only_json_renderer_sends_json_to_browsers(self, app, client):
        @app.route("/")
        @set_renderers(JSONRenderer)
        def json_only():
            return {"a": 1}

        response = client.get("/", headers={"Accept": BROWSER_ACCEPT})
        assert response.headers["Content-Type"] == JSON_TYPE
        assert _json(response) == {"a": 1}

    def test_view_with_only_browsable_renderer_renders_406_as_html(self, app, client):
        @app.route("/")
        @set_renderers([BrowsableAPIRenderer])
        def html_only():
            return {"a": 1}

        assert client.get("/").headers["Content-Type"] == HTML_TYPE
        response = client.get("/", headers={"Accept": "application/json"})
        assert response.status_code == 406
        assert response.headers["Content-Type"] == HTML_TYPE

    def test_view_with_only_html_renderer_passes_its_html_string_through(self, app, client):
        @app.route("/")
        @set_renderers(HTMLRenderer)
        def page():
            return "<p>Hello</p>"

        response = client.get("/", headers={"Accept": "application/json"})
        assert response.status_code == 200
        assert response.headers["Content-Type"] == HTML_TYPE
        assert response.data == b"<p>Hello</p>"

    @pytest.mark.parametrize("testing", [True, False], ids=["testing", "production"])
    @pytest.mark.parametrize("path, accept, code, detail", [
        ("/dict", "application/json", 406, NotAcceptable.detail),
        ("/denied", "text/html", 403, PermissionDenied.detail),
    ], ids=["not-acceptable", "api-exception"])
    def test_view_with_only_html_renderer_still_renders_its_errors(
            self, app, client, testing, path, accept, code, detail):
        app.testing = testing
        html_only = set_renderers(HTMLRenderer)
        app.add_url_rule("/dict", "dict", html_only(lambda: {"a": 1}))
        app.add_url_rule("/denied", "denied", html_only(
            _raiser(PermissionDenied())))
        response = client.get(path, headers={"Accept": accept})
        assert response.status_code == code
        assert response.headers["Content-Type"] == HTML_TYPE
        assert detail in response.data.decode("utf-8")

    def test_custom_parser_and_renderer_subclasses_are_used(self, app, client):
        @app.route("/", methods=["GET", "POST"])
        @set_parsers(UpperTextParser)
        @set_renderers(JSONRenderer, CSVRenderer)
        def table():
            return [["text", flask.request.data or "-"], [1, 2]]

        posted = client.post("/", data="é ok", content_type="text/plain; charset=utf-8",
                             headers={"Accept": "text/csv"})
        assert posted.headers["Content-Type"] == "text/csv; charset=utf-8"
        assert posted.data.decode("utf-8") == "text,É OK\n1,2"
        assert client.get("/?format=csv").data == b"text,-\n1,2"
        assert _json(client.get("/")) == [["text", "-"], [1, 2]]

    def test_renderers_set_on_a_method_view_method_decide_how_a_write_renders(self, app, client):
        class TableView(MethodView):
            @set_renderers(JSONRenderer, CSVRenderer)
            def put(self):
                return [["saved", 1]]

        app.add_url_rule("/table", view_func=TableView.as_view("table"))
        # The app's renderers accept this too (JSON, at q=0.5), before the view runs;
        # the method's own list, seen once it runs, prefers CSV.
        response = client.put("/table", headers={"Accept": "text/csv, application/json;q=0.5"})
        assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
        assert response.data == b"saved,1"

    @pytest.mark.parametrize("accept, code", [("text/csv", 200), ("application/json", 406)])
    def test_write_to_a_method_with_its_own_renderers_negotiates_with_them_first(
            self, app, client, accept, code):
        saved = []

        class TableView(MethodView):
            @set_renderers(CSVRenderer)
            def put(self):
                saved.append(True)
                return [["saved", 1]]

        app.add_url_rule("/table", view_func=TableView.as_view("table"))
        response = client.put("/table", headers={"Accept": accept})
        assert response.status_code == code
        assert saved == ([True] if code == 200 else [])  # a 406 comes before the write
        if code == 200:
            assert response.data == b"saved,1"

    def test_write_to_a_method_view_takes_the_methods_renderers_over_the_classs(self, app, client):
        class TableView(MethodView):
            decorators = [set_renderers(JSONRenderer)]

            @set_renderers(CSVRenderer)
            def put(self):
                return [["saved", 1]]

        app.add_url_rule("/table", view_func=TableView.as_view("table"))
        response = client.put("/table", headers={"Accept": "text/csv"})
        assert (response.status_code, response.data) == (200, b"saved,1")

    def test_renderer_without_render_raises_not_implemented_naming_the_class(self, app, client):
        app.add_url_rule("/", "view", set_renderers(LazyRenderer)(lambda: {"a": 1}))
        message = r'`render\(\)` method must be implemented for class "LazyRenderer"'
        with pytest.raises(NotImplementedError, match=message):
            client.get("/", headers={"Accept": "text/plain"})

    def test_json_renderer_uses_the_apps_json_provider(self, app, client):
        if not hasattr(app, "json"):
            pytest.skip("JSON providers (app.json) need Flask >= 2.2")
        from flask.json.provider import DefaultJSONProvider

        class PointJSONProvider(DefaultJSONProvider):
            @staticmethod
            def default(o):
                if isinstance(o, Point):
                    return [o.x, o.y]
                return DefaultJSONProvider.default(o)

        app.json = PointJSONProvider(app)
        app.add_url_rule("/", "view", lambda: {"at": Point(1, 2)})
        assert _json(client.get("/")) == {"at": [1, 2]}

    def test_json_renderer_follows_the_apps_json_settings_as_they_change(self, app, client):
        if not hasattr(app, "json"):
            pytest.skip("JSON providers (app.json) need Flask >= 2.2")
        app.add_url_rule("/", "view", lambda: {"b": Point(1, 2), "a": 1})
        app.json.default = lambda o: [o.x, o.y]
        assert client.get("/").data == b'{"a": 1, "b": [1, 2]}'  # sorted, as Flask sorts
        app.json.sort_keys = False
        assert client.get("/").data == b'{"b": [1, 2], "a": 1}'
        app.json.default = lambda o: "point"
        assert client.get("/").data == b'{"b": "point", "a": 1}'

    def test_json_renderer_takes_an_unhashable_callable_as_the_providers_default(self, app, client):
        if not hasattr(app, "json"):
            pytest.skip("JSON providers (app.json) need Flask >= 2.2")

        class PointsAsLists:
            __hash__ = None  # as for any class that defines __eq__ alone

            def __call__(self, o):
                return [o.x, o.y]

        app.json.default = PointsAsLists()
        app.add_url_rule("/", "view", lambda: {"at": Point(1, 2)})
        assert _json(client.get("/")) == {"at": [1, 2]}

    def test_json_renderer_uses_a_json_provider_that_overrides_dumps(self, app, client):
        if not hasattr(app, "json"):
            pytest.skip("JSON providers (app.json) need Flask >= 2.2")
        from flask.json.provider import DefaultJSONProvider

        class StampingJSONProvider(DefaultJSONProvider):
            def dumps(self, obj, **kwargs):
                return super().dumps({"stamped": True, **obj}, **kwargs)

        app.json = StampingJSONProvider(app)
        app.add_url_rule("/", "view", lambda: {"a": 1})
        assert _json(client.get("/")) == {"stamped": True, "a": 1}

    def test_json_renderer_uses_the_apps_json_encoder_on_older_flask(self, app, client):
        if hasattr(app, "json"):
            pytest.skip("Flask >= 2.2 serializes through app.json, not app.json_encoder")

        class PointJSONEncoder(flask.json.JSONEncoder):
            def default(self, o):
                if isinstance(o, Point):
                    return [o.x, o.y]
                return super().default(o)

        app.json_encoder = PointJSONEncoder
        app.add_url_rule("/", "view", lambda: {"at": Point(1, 2)})
        assert _json(client.get("/")) == {"at": [1, 2]}

    @pytest.mark.parametrize("accept", [None, "application/json; indent=2"])
    def test_json_renderer_keeps_non_ascii_as_utf8(self, app, client, accept):
        app.add_url_rule("/", "view", lambda: {"text": "café ☃ 東京"})
        response = client.get("/", headers=_accept(accept))
        assert "café ☃ 東京".encode() in response.data
        assert b"\\u" not in response.data

    def test_html_renderer_returns_html_strings_unchanged(self):
        html = "<p>Caf\u00e9 &amp; <b>bold</b></p>"
        assert HTMLRenderer().render(html, MediaType("text/html")) == html
        assert HTMLRenderer().content_type == HTML_TYPE

    def test_json_renderer_returns_the_text_app_json_dumps_writes(self, app):
        data = {"b": ["é", 1.5, None], "a": {"n": True}}
        with app.app_context():
            text = JSONRenderer().render(data, MediaType("application/json"))
            assert isinstance(text, str)
            if hasattr(app, "json"):
                assert text == app.json.dumps(data, ensure_ascii=False)
            assert text == json.dumps(data, ensure_ascii=False, sort_keys=True)

    def test_renderers_get_status_status_code_and_headers_in_their_options(self, app, client):
        class OptionsRenderer(BaseRenderer):
            media_type = "text/plain"

            def render(self, data, media_type, **options):
                return "{status} {status_code} {location}".format(
                    location=dict(options["headers"])["Location"], **options)

        @app.route("/")
        @set_renderers(OptionsRenderer)
        def view():
            return {}, 201, {"Location": "/there"}

        assert client.get("/").data == b"201 CREATED 201 /there"

    @pytest.mark.parametrize("media_type, content_type", [
        ("text/plain", "text/plain; charset=utf-8"),
        ("application/xml", "application/xml"),
        ("image/svg+xml", "image/svg+xml"),
    ])
    def test_a_charset_goes_on_content_type_for_text_types_only(self, app, client, media_type,
                                                                 content_type):
        class Renderer(BaseRenderer):
            def render(self, data, media_type, **options):
                return "x"

        Renderer.media_type = media_type

        @app.route("/")
        @set_renderers(Renderer)
        def view():
            return {}

        assert client.get("/").headers["Content-Type"] == content_type


# ---------------------------------------------------------------------------
# Request and response
# ---------------------------------------------------------------------------

def _raw_request(port, head, body):
    """Send bytes over a real socket and return the status code and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head + body)
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while True:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


@pytest.fixture
def dev_server():
    """The notes app on werkzeug's development server, in this process, on a free port."""
    from werkzeug.serving import make_server
    server = make_server("127.0.0.1", 0, notes_app.create_app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port
    server.shutdown()
    thread.join(10)


def _add_echo_view(app):
    """/echo: what the request's data, form and files look like to a view."""
    @app.route("/echo", methods=["POST", "PUT"])
    def echo():
        data = flask.request.data
        return {
            "multidict": isinstance(data, MultiDict),
            "data": data.to_dict(flat=False) if isinstance(data, MultiDict) else data,
            "form": flask.request.form.to_dict(flat=False),
            "files": {name: [upload.filename, upload.read().decode("utf-8")]
                      for name, upload in flask.request.files.items()},
        }


MULTIPART_FIELD = b'--x\r\nContent-Disposition: form-data; name="text"\r\n\r\nhi'

MALFORMED_BODIES = [
    pytest.param(JSON_TYPE, b"{'text': 'single quotes'}", id="json-single-quotes"),
    pytest.param(JSON_TYPE, b'{"text": "x"} trailing', id="json-trailing-garbage"),
    pytest.param(JSON_TYPE, b'{"text": NaN}', id="json-nan"),
    pytest.param(JSON_TYPE, b'{"text": Infinity}', id="json-infinity"),
    pytest.param(JSON_TYPE, b'{"text": -Infinity}', id="json-minus-infinity"),
    pytest.param(JSON_TYPE, b'{"text": "\xff\xfe"}', id="json-invalid-utf8"),
    pytest.param(JSON_TYPE, b"[" * 100000, id="json-100000-deep"),
    pytest.param("application/json; charset=nope", b'{"text": "x"}', id="unknown-charset"),
    pytest.param("multipart/form-data", MULTIPART_FIELD + b"\r\n--x--\r\n",
                 id="multipart-without-boundary"),
    pytest.param("multipart/form-data; boundary=x", MULTIPART_FIELD, id="multipart-truncated"),
    pytest.param("multipart/form-data; boundary=x", b"--x\r\ngarbage\r\n--x--\r\n",
                 id="multipart-broken-part"),
]
NOTE_WRITES = [("POST", "/"), ("PUT", "/1/"), ("PUT", "/9/")]


def _send_bad_body(notes_client, method, path, content_type, body):
    """The response to a bad write, after checking the stored notes did not change."""
    before = _json(notes_client.get("/"))
    response = notes_client.open(path, method=method, data=body, content_type=content_type)
    assert _json(notes_client.get("/")) == before
    return response


LONE_SURROGATE_BODIES = [
    pytest.param(JSON_TYPE, b'{"text": "\\ud800"}', id="json-escape"),
    pytest.param(JSON_TYPE, b'{"text": "a\\udfffb"}', id="json-low-escape"),
    pytest.param(JSON_TYPE, b'{"\\ud800": "key"}', id="json-key-escape"),
    pytest.param("application/json; charset=utf-7", b'{"text": "+2AA-"}', id="utf-7"),
    pytest.param("application/json; charset=unicode_escape", b'{"text": "\\ud800"}',
                 id="unicode-escape"),
    pytest.param("application/json; charset=latin-1", b'{"text": "caf\xe9"}', id="latin-1"),
    pytest.param("application/json; charset=utf-16", '{"text": "\\ud800"}'.encode("utf-16"),
                 id="utf-16-escape"),
]


class _BrokenInput(io.RawIOBase):
    """A WSGI input whose read fails as a server's does on a broken chunked body."""

    def __init__(self, error):
        super().__init__()
        self.error = error

    def readable(self):
        return True

    def readinto(self, buffer):
        raise self.error


CHUNKED_HEAD = (b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")


def _too_large_bodies():
    big = "x" * 200
    return {
        "json": {"data": json.dumps({"text": big}), "content_type": JSON_TYPE},
        "urlencoded": {"data": {"text": big}},
        "multipart": {"data": {"text": big}, "content_type": "multipart/form-data"},
    }


def _flask_reads_config(attribute):
    """Flask >= 3.1 reads MAX_FORM_MEMORY_SIZE / MAX_FORM_PARTS from config via properties."""
    return isinstance(getattr(flask.Request, attribute, None), property)


FLASK_READS_FORM_LIMITS = _flask_reads_config("max_form_memory_size")


def _werkzeug_limits_urlencoded_forms():
    """werkzeug 3.2's own form parser refuses an urlencoded body longer than the form memory
    limit; before it, an urlencoded body was read whole, under MAX_CONTENT_LENGTH only."""
    from werkzeug.formparser import FormDataParser
    parser = FormDataParser(max_form_memory_size=1)
    try:
        parser.parse(io.BytesIO(b"a=bb"), "application/x-www-form-urlencoded", 4)
    except WerkzeugRequestEntityTooLarge:
        return True
    return False


def _werkzeug_default_max_form_parts():
    return getattr(flask.Request, "max_form_parts", None)


class TestRequestAndResponse:
    """request.data and friends, malformed bodies, Flask's body limits, APIResponse."""

    @pytest.mark.parametrize("body", ['{"text": "hi"}', "[1, 2]", '"text"', "3.5", "null", "true"])
    def test_request_data_parses_any_json_value(self, app, client, body):
        _add_echo_view(app)
        result = _json(client.post("/echo", data=body, content_type="application/json"))
        assert result["data"] == json.loads(body)
        assert result["multidict"] is False and result["form"] == {}

    @pytest.mark.parametrize("content_type", [
        "application/x-www-form-urlencoded", "multipart/form-data"])
    def test_request_data_is_a_multidict_for_forms_keeping_repeated_keys(self, app, client,
                                                                         content_type):
        _add_echo_view(app)
        response = client.post("/echo", data=MultiDict([("tag", "a"), ("tag", "b"), ("x", "1")]),
                               content_type=content_type)
        result = _json(response)
        assert result["multidict"] is True
        assert result["data"] == {"tag": ["a", "b"], "x": ["1"]}
        assert result["form"] == result["data"]

    def test_multipart_files_land_in_request_files_and_fields_in_data_and_form(self, app, client):
        _add_echo_view(app)
        response = client.post("/echo", content_type="multipart/form-data", data={
            "title": "notes", "upload": (io.BytesIO(b"file body"), "notes.txt")})
        result = _json(response)
        assert result["files"] == {"upload": ["notes.txt", "file body"]}
        assert result["data"] == {"title": ["notes"]} and result["form"] == {"title": ["notes"]}

    @pytest.mark.parametrize("content_type", [None, "application/json", "multipart/form-data"])
    def test_empty_body_gives_empty_data(self, app, client, content_type):
        _add_echo_view(app)
        result = _json(client.post("/echo", data=b"", content_type=content_type))
        assert result["multidict"] is True
        assert result["data"] == {} and result["files"] == {}

    def test_request_data_is_parsed_lazily_and_only_once(self, app, client):
        calls = []

        class CountingJSONParser(JSONParser):
            def parse(self, stream, media_type, **options):
                calls.append(media_type.full_type)
                return super().parse(stream, media_type, **options)

        @app.route("/ignore", methods=["POST"])
        @set_parsers(CountingJSONParser)
        def ignore_body():
            return {"ignored": True}

        @app.route("/twice", methods=["POST"])
        @set_parsers(CountingJSONParser)
        def read_twice():
            request = flask.request
            same = request.data is request.data
            return {"same": same, "raw": request.get_data(as_text=True), "form": len(request.form)}

        assert client.post("/ignore", data="{bad json", content_type=JSON_TYPE).status_code == 200
        assert calls == []
        response = client.post("/twice", data='{"a": [1]}', content_type=JSON_TYPE)
        assert _json(response) == {"same": True, "raw": '{"a": [1]}', "form": 0}
        assert calls == ["application/json"]

    def test_request_form_is_empty_for_other_bodies_while_data_still_refuses_them(self, app,
                                                                                  client):
        @app.route("/", methods=["POST"])
        def view():
            form = flask.request.form
            try:
                assert flask.request.data is not None
            except UnsupportedMediaType:
                return {"form": form.to_dict(), "data": 415}
            return {"form": form.to_dict(), "data": "parsed"}

        assert _json(client.post("/", data=b"\x00\x01", content_type="application/octet-stream")
                     ) == {"form": {}, "data": 415}
        assert _json(client.post("/", data={"a": "1"})) == {"form": {"a": "1"}, "data": "parsed"}

    def test_csrf_protect_lets_a_raw_body_reach_a_view_that_reads_get_data(self, app, client):
        flask_wtf = pytest.importorskip("flask_wtf.csrf")
        app.config["SECRET_KEY"] = "test"
        flask_wtf.CSRFProtect(app)

        @app.route("/token")
        def new_token():
            return {"token": flask_wtf.generate_csrf()}

        @app.route("/raw", methods=["POST"])
        def raw():
            return {"length": len(flask.request.get_data())}

        token = _json(client.get("/token"))["token"]
        response = client.post("/raw", data=b"\x00" * 10, content_type="application/octet-stream",
                               headers={"X-CSRFToken": token})
        assert response.status_code == 200 and _json(response) == {"length": 10}
        refused = client.post("/raw", data=b"\x00", content_type="application/octet-stream")
        assert refused.status_code == 400

    @pytest.mark.parametrize("testing", [True, False], ids=["testing", "production"])
    @pytest.mark.parametrize("method, path", NOTE_WRITES)
    @pytest.mark.parametrize("content_type, body", MALFORMED_BODIES)
    def test_malformed_body_gives_400_malformed_request_and_changes_nothing(
            self, notes_client, testing, method, path, content_type, body):
        notes_client.application.testing = testing
        response = _send_bad_body(notes_client, method, path, content_type, body)
        assert response.status_code == 400
        assert _json(response) == {"detail": "Malformed request."}

    @pytest.mark.parametrize("testing", [True, False], ids=["testing", "production"])
    @pytest.mark.parametrize("method, path", NOTE_WRITES)
    @pytest.mark.parametrize("content_type", ["text/plain", "application/xml", "image/png"])
    def test_unknown_content_type_gives_415_and_changes_nothing(
            self, notes_client, testing, method, path, content_type):
        notes_client.application.testing = testing
        response = _send_bad_body(notes_client, method, path, content_type, b'{"text": "x"}')
        assert response.status_code == 415
        assert "detail" in _json(response)

    @pytest.mark.parametrize("content_type", ["multipart/form-data; boundary=",
                                              "multipart/form-data; boundary=\"\""])
    def test_multipart_with_an_empty_boundary_is_malformed_not_a_crash(self, notes_client,
                                                                       content_type):
        response = _send_bad_body(notes_client, "PUT", "/1/", content_type, b"--\r\n\r\n--")
        assert response.status_code == 400
        assert _json(response) == {"detail": "Malformed request."}

    @pytest.mark.parametrize("method, path", NOTE_WRITES)
    @pytest.mark.parametrize("content_type, body", LONE_SURROGATE_BODIES)
    def test_lone_surrogates_and_non_utf_charsets_are_malformed_and_store_nothing(
            self, notes_client, method, path, content_type, body):
        response = _send_bad_body(notes_client, method, path, content_type, body)
        assert response.status_code == 400
        assert response.data == b'{"detail": "Malformed request."}'
        for accept in ("application/json", BROWSER_ACCEPT):
            assert notes_client.get("/", headers={"Accept": accept}).status_code == 200

    @pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf8", "utf-16", "utf-16-le", "utf-32"])
    def test_json_in_any_utf_charset_is_parsed(self, notes_client, charset):
        body = '{"text": "caf\u00e9 \U0001f600"}'.encode(charset)
        response = notes_client.post("/", data=body,
                                     content_type="application/json; charset=" + charset)
        assert response.status_code == 201
        assert _json(response)["text"] == "caf\u00e9 \U0001f600"

    def test_a_surrogate_pair_escape_is_one_character_not_a_lone_surrogate(self, notes_client):
        response = notes_client.post("/", data=b'{"text": "\\ud83d\\ude00"}',
                                     content_type=JSON_TYPE)
        assert response.status_code == 201 and _json(response)["text"] == "\U0001f600"

    def test_the_pages_content_field_with_a_lone_surrogate_stores_nothing(self, notes_client):
        before = _json(notes_client.get("/"))
        response = notes_client.post("/1/", data={
            "_method": "PUT", "_content": '{"text": "\\ud800"}', "_content_type": JSON_TYPE},
            headers={"Accept": BROWSER_ACCEPT})
        assert response.status_code == 400
        assert _json(notes_client.get("/")) == before

    @pytest.mark.parametrize("accept", [None, BROWSER_ACCEPT])
    def test_a_lone_surrogate_the_app_returns_goes_out_escaped_not_as_a_500(self, app, client,
                                                                            accept):
        @app.route("/")
        def view():
            return {"text": "bad \ud800 text"}

        response = client.get("/", headers=_accept(accept))
        assert response.status_code == 200
        if accept is None:
            assert response.data == b'{"text": "bad \\ud800 text"}'
            assert json.loads(response.data.decode("utf-8")) == {"text": "bad \ud800 text"}
        else:
            assert "\\ud800" in response.get_data(as_text=True)

    @pytest.mark.parametrize("error", [OSError("Invalid chunk header"), ValueError("bad size"),
                                       EOFError(), ConnectionResetError()])
    @pytest.mark.parametrize("content_type", [JSON_TYPE, "application/x-www-form-urlencoded"])
    def test_a_chunked_body_that_fails_to_read_is_a_400_with_detail(self, notes_client, error,
                                                                     content_type):
        before = _json(notes_client.get("/"))
        response = notes_client.post("/", content_type=content_type, environ_overrides={
            "wsgi.input": _BrokenInput(error), "HTTP_TRANSFER_ENCODING": "chunked",
            "wsgi.input_terminated": True})
        assert response.status_code == 400
        assert _json(response) == {"detail": "Malformed request."}
        assert _json(notes_client.get("/")) == before

    def test_a_view_reading_get_data_of_a_broken_chunked_body_gets_a_400(self, app, client):
        @app.route("/", methods=["POST"])
        def raw():
            return {"length": len(flask.request.get_data())}

        response = client.post("/", content_type="application/octet-stream", environ_overrides={
            "wsgi.input": _BrokenInput(OSError("Invalid chunk header")),
            "HTTP_TRANSFER_ENCODING": "chunked", "wsgi.input_terminated": True})
        assert response.status_code == 400 and "detail" in _json(response)

    @pytest.mark.parametrize("encoding", ["chunked", "Chunked", "CHUNKED"])
    def test_a_chunked_body_is_parsed_whatever_the_case_of_transfer_encoding(self, app, client,
                                                                             encoding):
        _add_data_view(app)
        response = client.post("/data", content_type=JSON_TYPE, environ_overrides={
            "wsgi.input": io.BytesIO(b'{"a": 2}'), "HTTP_TRANSFER_ENCODING": encoding,
            "wsgi.input_terminated": True})
        assert _json(response) == {"data": {"a": 2}}

    @pytest.mark.parametrize("body", [
        pytest.param(b"zz\r\n{}\r\n0\r\n\r\n", id="bad-chunk-size"),
        pytest.param(b"2\r\n{}\r\n", id="no-last-chunk"),
        pytest.param(b"5\r\n{}", id="truncated"),
        pytest.param(b"2\r\n{}XX0\r\n\r\n", id="no-chunk-terminator"),
    ])
    def test_broken_chunked_bodies_over_a_real_socket_are_400s(self, dev_server, body):
        code, answer = _raw_request(dev_server, CHUNKED_HEAD, body)
        assert code == 400
        assert json.loads(answer.decode("utf-8"))["detail"]

    @pytest.mark.parametrize("kind", sorted(_too_large_bodies()))
    def test_body_over_max_content_length_gives_413_with_detail(self, app, client, kind):
        app.config["MAX_CONTENT_LENGTH"] = 100
        _add_echo_view(app)
        response = client.post("/echo", **_too_large_bodies()[kind])
        assert response.status_code == 413
        assert response.headers["Content-Type"] == JSON_TYPE
        assert _json(response) == {"detail": default_exceptions[413].description}

    @pytest.mark.skipif(not _flask_reads_config("max_form_memory_size"),
                        reason="this Flask does not read MAX_FORM_MEMORY_SIZE from config")
    def test_multipart_field_over_max_form_memory_size_gives_413(self, app, client):
        app.config["MAX_FORM_MEMORY_SIZE"] = 500
        _add_echo_view(app)
        small = client.post("/echo", data={"text": "x" * 10}, content_type="multipart/form-data")
        large = client.post("/echo", data={"text": "x" * 1000}, content_type="multipart/form-data")
        assert small.status_code == 200
        assert large.status_code == 413 and "detail" in _json(large)

    @pytest.mark.skipif(not _flask_reads_config("max_form_parts"),
                        reason="this Flask does not read MAX_FORM_PARTS from config")
    def test_multipart_with_more_than_max_form_parts_gives_413(self, app, client):
        app.config["MAX_FORM_PARTS"] = 2
        _add_echo_view(app)
        two = client.post("/echo", data={"a": "1", "b": "2"}, content_type="multipart/form-data")
        three = client.post("/echo", data={"a": "1", "b": "2", "c": "3"},
                            content_type="multipart/form-data")
        assert two.status_code == 200
        assert three.status_code == 413 and "detail" in _json(three)

    def test_a_declared_huge_chunk_costs_no_more_than_the_body_limit(self, dev_server):
        import tracemalloc
        tracemalloc.start()
        try:
            code, answer = _raw_request(dev_server, CHUNKED_HEAD, b"4000000\r\n{}")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert code in (400, 413) and json.loads(answer.decode("utf-8"))["detail"]
        assert peak < 16 * 1024 * 1024, "peak {} bytes for a 64 MiB chunk declared".format(peak)

    # Which of Flask's body limits apply to which body, on which Flask: each README row, tested.

    @pytest.mark.parametrize("kind", sorted(_too_large_bodies()))
    def test_a_chunked_body_over_max_content_length_is_a_413_on_every_flask(self, app, client,
                                                                            kind):
        from werkzeug.test import EnvironBuilder
        app.config["MAX_CONTENT_LENGTH"] = 100
        _add_echo_view(app)
        body = _too_large_bodies()[kind]
        builder = EnvironBuilder(path="/echo", method="POST", **body)
        data, content_type = builder.get_environ()["wsgi.input"].read(), builder.content_type
        response = client.post("/echo", content_type=content_type, environ_overrides={
            "wsgi.input": io.BytesIO(data), "HTTP_TRANSFER_ENCODING": "chunked",
            "wsgi.input_terminated": True})
        assert response.status_code == 413 and "detail" in _json(response)
        small = client.post("/echo", content_type=JSON_TYPE, environ_overrides={
            "wsgi.input": io.BytesIO(b'{"a": 1}'), "HTTP_TRANSFER_ENCODING": "chunked",
            "wsgi.input_terminated": True})
        assert _json(small)["data"] == {"a": 1}

    @pytest.mark.parametrize("size, code", [(100, 200), (101, 413)])
    def test_a_chunked_form_of_exactly_max_content_length_is_whole_and_one_more_byte_is_413(
            self, app, client, size, code):
        app.config["MAX_CONTENT_LENGTH"] = 100
        _add_echo_view(app)
        body = b"text=" + b"x" * (size - 5)
        response = client.post("/echo", content_type="application/x-www-form-urlencoded",
                               environ_overrides={"wsgi.input": io.BytesIO(body),
                                                  "HTTP_TRANSFER_ENCODING": "chunked",
                                                  "wsgi.input_terminated": True})
        assert response.status_code == code
        if code == 200:
            assert _json(response)["form"] == {"text": ["x" * 95]}

    @pytest.mark.parametrize("kind, limited", [
        ("multipart", FLASK_READS_FORM_LIMITS),  # Flask 3.1+ only: a text part over the limit
        ("urlencoded", FLASK_READS_FORM_LIMITS and _werkzeug_limits_urlencoded_forms()),
        ("json", False),  # no other body: MAX_CONTENT_LENGTH is theirs
    ])
    def test_max_form_memory_size_applies_to_multipart_text_and_on_werkzeug_3_2_urlencoded(
            self, app, client, kind, limited):
        app.config["MAX_FORM_MEMORY_SIZE"] = 100
        _add_echo_view(app)
        response = client.post("/echo", **_too_large_bodies()[kind])
        assert response.status_code == (413 if limited else 200)

    @pytest.mark.parametrize("kind", ["multipart", "urlencoded"])
    def test_max_form_parts_applies_to_multipart_on_flask_3_1_and_werkzeug_default_before(
            self, app, client, kind):
        app.config["MAX_FORM_PARTS"] = 2
        _add_echo_view(app)
        fields = {"f{}".format(n): "x" for n in range(3)}
        content_type = "multipart/form-data" if kind == "multipart" else None
        response = client.post("/echo", data=fields, content_type=content_type)
        limited = kind == "multipart" and FLASK_READS_FORM_LIMITS
        assert response.status_code == (413 if limited else 200)
        if kind == "multipart" and not FLASK_READS_FORM_LIMITS:  # the config key is not read...
            many = {"f{}".format(n): "x" for n in range(1001)}
            response = client.post("/echo", data=many, content_type=content_type)
            # ... but werkzeug 2.2.3+ has a default of its own: 1,000 parts.
            assert response.status_code == (413 if _werkzeug_default_max_form_parts() else 200)


# ---------------------------------------------------------------------------
# The app's routes
# ---------------------------------------------------------------------------

class TestRoutes:
    """One description of the routes: one view's broken settings break only its requests."""

    def test_a_view_naming_a_class_that_cannot_be_imported_breaks_only_its_own_requests(self):
        """The routes' description resolves every view's parsers; one typo must not take the
        other views' pages, the index and the document down with it."""
        app = FlaskAPI(__name__)

        @app.route("/typo", methods=["GET", "POST"])
        @set_parsers("no_such_module.Parser")
        @set_renderers("flask_api.renderers.NoSuchRenderer")
        def typo():
            return {}

        @app.route("/fine/")
        def fine():
            return {"fine": True}
        client = app.test_client()
        page = _browse(client, "/fine/")
        assert page.status_code == 200 and page.body_json == {"fine": True}
        assert _browse(client, "/").status_code == 200  # the index
        assert "/fine/" in _validated(client.get("/openapi.json", headers=JSON).get_json())["paths"]
        with pytest.raises(ImportError):  # the view itself still says what is wrong
            client.post("/typo", json={})


# ---------------------------------------------------------------------------
# The page's body and links
# ---------------------------------------------------------------------------

# (url, environ overrides): a "//" path goes through PATH_INFO, since the test client would
# read "//evil.test/" as a host; SCRIPT_NAME is what a proxy or gunicorn passes on as prefix.
CRAFTED_PATHS = [
    ("/%5Cevil.test/", {}), ("/%5C%5Cevil.test/", {}), ("/%09/evil.test/x", {}),
    ("/%0A/evil.test/", {}), ("/%0D%0A/evil.test/", {}), ("/%2F%2Fevil.test/", {}),
    ("/%00/", {}), ("/%20/evil.test/", {}), ("/%E3%80%80evil.test/", {}),
    ("/caf%C3%A9/%E2%80%AE/", {}), ("/1/?x=%5C%5Cevil.test", {}),
    ("/", {"PATH_INFO": "//evil.test/"}), ("/", {"PATH_INFO": "/\\evil.test/"}),
    ("/1/", {"SCRIPT_NAME": "//evil.test"}), ("/1/", {"SCRIPT_NAME": "/\\evil.test"}),
]


def _browser_resolves(href, base="http://localhost/"):
    """Where a browser goes for ``href``: it drops tabs and newlines and reads "\\" as "/"."""
    cleaned = re.sub("[\t\n\r]", "", href).strip("\x00- ").replace("\\", "/")
    return urllib.parse.urljoin(base, cleaned)


def _assert_shown_as_text(page, texts):
    """Each text reads literally, and makes no markup: in the body's <pre> only "<", ">"
    and "&" are escaped (quotes are inert in an element's content; _assert_inert checks
    that no attribute or handler came of them)."""
    for text in texts:
        assert json.dumps(text) in page.response_text  # the user reads it literally
        if re.search("[<>]", text):
            assert text not in page.html


def _store_notes(client, texts):
    for text in texts:
        response = client.post("/", data=json.dumps({"text": text}),
                               content_type="application/json")
        assert response.status_code == 201


def _big_app(data):
    app = FlaskAPI(__name__)
    app.add_url_rule("/items/", "items", lambda: data, methods=["GET", "POST"])
    return app


XSS_PAYLOADS = ["<script>window.__xss=1</script>", '<img src=x onerror="window.__xss=1">',
                "<svg onload=window.__xss=1>", "</textarea><img src=x onerror=window.__xss=1>"]


def _line(tab, key):
    """The tree's line for ``key``."""
    return tab.locator(".tree .line").filter(
        has=tab.locator(":scope > .k", has_text=json.dumps(key))).first


def _clipboard(tab):
    return tab.evaluate("navigator.clipboard.readText()")


@pytest.fixture
def clip_tab(chromium, tree_site):
    with _open_tab(chromium, tree_site[1]) as tab:
        tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=tree_site[1])
        yield tab


CYCLIC_APP = """
import flask_api
from flask.json.provider import DefaultJSONProvider


class AppProvider(DefaultJSONProvider):
    '''The app's own JSON provider: the page's fast path is for Flask's only.'''


app = flask_api.FlaskAPI("cyclic")
app.json = AppProvider(app)


@app.route("/")
def cyclic():
    data = {"name": "loop"}
    data["self"] = data  # no JSON for it
    return data


for accept in ("application/json", "text/html"):
    print(app.test_client().get("/", headers={"Accept": accept}).status_code, flush=True)
"""


# (JSON text, as the page writes it back): what JavaScript's own values would lose.
LOSSLESS_JSON = [
    ("9007199254740993", "9007199254740993"),  # 2**53 + 1: JSON.parse gives ...992
    ("-12345678901234567890", "-12345678901234567890"),
    ("2.0", "2.0"), ("-0", "-0"), ("1e400", "1e400"), ("1E-7", "1E-7"), ("0.10", "0.10"),
    ('{"b": 1, "a": 2, "10": 3, "2": 4}', '{"b": 1, "a": 2, "10": 3, "2": 4}'),  # key order
    ('{"a": 1, "a": 2}', '{"a": 1, "a": 2}'),  # duplicate keys: both
    ('{"__proto__": {"polluted": true}}', '{"__proto__": {"polluted": true}}'),
    ('{"constructor": {"prototype": 1}}', '{"constructor": {"prototype": 1}}'),
    (' [ 1 ,\t2 ,\r\n{ } , [ ] , "" ] ', '[1, 2, {}, [], ""]'),
    ('"\\u00e9\\n\\"\\\\\\/\\b\\f\\r\\t"', '"\u00e9\\n\\"\\\\/\\b\\f\\r\\t"'),  # escapes undone
    ('"\\ud83d\\ude00 \U0001f600"', '"\U0001f600 \U0001f600"'),  # a surrogate pair, escaped or not
    ('"\\ud800"', '"\\ud800"'), ('"\\udfff x"', '"\\udfff x"'),  # lone surrogates, kept
    ('"<script>&amp;</script>"', '"<script>&amp;</script>"'),
    ("[" * 2000 + "]" * 2000, "[" * 2000 + "]" * 2000),  # deep nesting
    ('{"a":[true,false,null,{"b":{"c":[]}}]}', '{"a": [true, false, null, {"b": {"c": []}}]}'),
]


# Text around URLs: the server links them in the body's text (_URL_RE, on the escaped text),
# the script in the tree's strings (URL_IN_TEXT, on the text); both must find the same.
URL_TEXTS = [
    "see http://x.test/a.", "(http://x.test/wiki/A_(b))", "http://x.test/wiki/A_(b)_c",
    "http://x.test/a)", "http://x.test/(a", "[http://x.test/a]", "http://x.test/a?!",
    "http://x.test/a?b=1&c=2", "http://x.test/a&amp;b", "x&amp;http://x.test/&lt;a&gt;",
    "'http://x.test/a'", 'say "http://x.test/a" then', "http://x.test/it's",
    "<http://x.test/a>", "http://x.test/a<b>c", "http://x.test/a\\b",
    "http://例え.テスト/パス?q=値&r=é", "https://x.test/a, and http://y.test/b!",
    "http://x.test/a\tb\nhttps://y.test/", "http://", "ftp://x.test/ javascript:alert(1)",
    "http://x.test/a;b:c,d.e", "http://x.test/%20(x)(y)z.",
]


class TestPageBodyAndLinks:
    """The body as the page shows it, links on this site; in Chromium, the JSON tree."""

    @pytest.mark.parametrize("path, crumbs", [
        ("/", [("Home", "/")]),
        ("/shop/", [("Home", "/"), ("shop", "/shop/")]),
        ("/shop/7/reviews/", [("Home", "/"), ("shop", "/shop/"), ("7", "/shop/7/"),
                              ("reviews", "/shop/7/reviews/")]),
        ("/api/v1/things/", [("Home", "/"), ("things", "/api/v1/things/")]),  # no route at /api/
        ("/tools/3", [("Home", "/"), ("tools", "/tools"), ("3", "/tools/3")]),  # no trailing slash
    ])
    def test_page_breadcrumbs_link_each_routable_prefix_of_the_path(self, app, client, path,
                                                                    crumbs):
        for rule in ("/", "/shop/", "/shop/<int:item>/", "/shop/<int:item>/reviews/",
                     "/api/v1/things/", "/tools", "/tools/<int:key>"):
            app.add_url_rule(rule, rule, lambda **kwargs: {"ok": True})
        page = _browse(client, path)
        links = page.find("a", within=page.one("nav"))
        assert [(a.text, a.attrs["href"]) for a in links] == crumbs
        assert links[-1].attrs.get("aria-current") == "page"

    def test_page_body_is_indented_json_with_only_urls_linked(self, app, client):
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

    @pytest.mark.parametrize("sort_keys", [True, False])
    @pytest.mark.parametrize("data", [
        [], {}, [1, 2.5, True, None, "caf\u00e9 \"q\"\n", {"b": [], "a": {}}],
        {"z": 1, "a": [1, [2, [3]]], "m": {"n": {"o": None}}}, (1, 2), [[[]]], [{}],
        {"when": datetime.date(2020, 1, 2)}, {1: "an int key"}, "text", 5,
    ], ids=repr)
    def test_the_pages_indented_json_is_what_the_apps_json_provider_writes(self, app, data,
                                                                           sort_keys):
        if not hasattr(app, "json"):
            pytest.skip("JSON providers (app.json) need Flask >= 2.2")
        app.json.sort_keys = sort_keys
        with app.app_context():
            assert flask_api._page_json(data) == app.json.dumps(data, ensure_ascii=False, indent=4)

    def test_page_links_urls_of_location_and_link_headers_and_shows_relations(self, app, client):
        @app.route("/things/")
        def things():
            return [], 200, [
                ("Location", "/things/7/"), ("Content-Location", "javascript:alert(1)"),
                ("Link", '</things/?page=3>; rel="next", <https://api.test/things/?page=9>; '
                         'rel=last, </things/?page=1>; rel="prev first", <javascript:x>; rel="up"')]
        page = _browse(client, "/things/")
        _assert_inert(page)
        links = [(a.text, a.attrs["href"]) for a in page.find("a", within=page.one(
            "pre", class_="response"))]
        assert links == [("/things/7/", "/things/7/"), ("/things/?page=3", "/things/?page=3"),
                         ("https://api.test/things/?page=9", "https://api.test/things/?page=9"),
                         ("/things/?page=1", "/things/?page=1")]
        assert "Content-Location: javascript:alert(1)" in page.response_text
        assert "<javascript:x>; rel=\"up\"" in page.response_text
        relations = page.one("div", role="navigation")
        assert [(a.attrs["rel"], a.attrs["href"]) for a in page.find("a", within=relations)] == [
            ("first", "/things/?page=1"), ("prev", "/things/?page=1"), ("next", "/things/?page=3"),
            ("last", "https://api.test/things/?page=9")]

    @pytest.mark.parametrize("url, environ", CRAFTED_PATHS)
    def test_page_links_built_from_a_crafted_path_stay_on_this_site(self, notes_client, url,
                                                                    environ):
        response = notes_client.get(url, headers={"Accept": BROWSER_ACCEPT},
                                    environ_overrides=environ)
        page = _Page(response)
        hrefs = [a.attrs["href"] for a in page.find("a")]
        assert len(hrefs) >= 3  # the brand, the breadcrumbs, at least "Home"
        for href in hrefs:
            assert urllib.parse.urlsplit(_browser_resolves(href)).hostname == "localhost", href
            assert re.fullmatch(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+", href), href
        assert not [href for href in hrefs if href.startswith("//")]

    @pytest.mark.parametrize("url", ["/%5Cevil.test/", "/caf%C3%A9%E2%80%AE/", "/a%20b/?q=%5C",
                                     "/%2525/", "/1/?verbose=1"])
    def test_page_get_link_and_request_line_give_the_requested_path_back(self, notes_client, url):
        page = _browse(notes_client, url)
        get = [a for a in page.find("a") if a.text == "GET"][0].attrs["href"]
        assert page.response_text.splitlines()[0] == "GET " + get
        again = _browse(notes_client, get)
        assert again.status_code == page.status_code
        assert again.response_text.splitlines()[0] == "GET " + get

    def test_page_under_a_path_prefix_keeps_it_in_links_and_request_line(self, notes_client):
        page = _Page(notes_client.get("/1/?verbose=1", headers={"Accept": BROWSER_ACCEPT},
                                      environ_overrides={"SCRIPT_NAME": "/api"}))
        assert page.response_text.splitlines()[0] == "GET /api/1/?verbose=1"
        assert page.one("a", class_="brand").attrs["href"] == "/api/"
        crumbs = [(a.text, a.attrs["href"]) for a in page.find("a", within=page.one("nav"))]
        assert crumbs == [("Home", "/api/"), ("1", "/api/1/")]
        buttons = {a.text: a.attrs["href"] for a in page.find("a", class_="button")}
        assert buttons == {"GET": "/api/1/?verbose=1",
                           "View as JSON": "/api/1/?verbose=1&format=json"}

    def test_page_view_as_json_link_returns_json(self, notes_client):
        link = _browse(notes_client, "/1/").one("a", href="/1/?format=json")
        assert link.text == "View as JSON"
        response = notes_client.get(link.attrs["href"], headers={"Accept": BROWSER_ACCEPT})
        assert response.headers["Content-Type"] == "application/json"
        assert response.get_json() == {"url": "http://localhost/1/", "text": "build the codez"}

    def test_page_view_as_json_link_keeps_other_query_arguments(self, app, client):
        app.add_url_rule("/search/", "search", lambda: dict(request.args.items()))
        page = _browse(client, "/search/?q=rock%20%26%20roll&page=2")
        href = [a for a in page.find("a") if a.text == "View as JSON"][0].attrs["href"]
        response = client.get(href, headers={"Accept": BROWSER_ACCEPT})
        assert response.get_json() == {"q": "rock & roll", "page": "2", "format": "json"}

    def test_page_escapes_stored_script_in_note_text(self, notes_client):
        _store_notes(notes_client, HOSTILE_TEXTS)
        page = _browse(notes_client, "/")
        _assert_inert(page)
        _assert_shown_as_text(page, HOSTILE_TEXTS)

    @pytest.mark.parametrize("index", range(len(HOSTILE_TEXTS)))
    def test_page_escapes_stored_hostile_text_on_detail_page_and_in_form(self, notes_client, index):
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
    def test_page_escapes_hostile_request_urls(self, notes_client, url):
        page = _browse(notes_client, url)
        _assert_inert(page)
        assert "<script>alert" not in page.html and "<img" not in page.html

    def test_page_escapes_hostile_response_headers(self, app, client):
        @app.route("/")
        def hostile_headers():
            return {"ok": True}, 200, {
                "X-<img src=x onerror=alert(1)>": '"><script>alert(1)</script>',
                "X-Quote": "' onmouseover='alert(1)"}
        page = _browse(client, "/")
        _assert_inert(page)
        assert "X-<img src=x onerror=alert(1)>: \"><script>alert(1)</script>" in page.response_text
        assert "X-Quote: ' onmouseover='alert(1)" in page.response_text

    def test_big_body_page_is_at_most_half_again_the_jsons_bytes(self):
        client = _big_app(_big_items(20000)).test_client()
        raw = client.get("/items/", headers={"Accept": "application/json"}).get_data()
        page = client.get("/items/", headers={"Accept": BROWSER_ACCEPT}).get_data()
        assert len(page) <= 1.5 * len(raw)

    def test_big_body_page_shows_the_whole_body_one_item_a_line_with_its_urls_linked(self):
        data = {"count": 3000, "next": None, "results": _big_items(3000)}
        page = _browse(_big_app(data).test_client(), "/items/")
        assert page.body_json == data  # nothing left out
        lines = page.response_text.split("\n\n", 2)[2].splitlines()
        assert lines[:4] == ["{", '    "count": 3000,', '    "next": null,', '    "results": [']
        assert json.loads(lines[4].rstrip(",")) == data["results"][0]  # an item a line
        assert len(lines) == 3000 + 6
        hrefs = [a.attrs["href"] for a in page.find("a", within=page.one("pre", class_="response"))]
        assert hrefs == [item["url"] for item in data["results"]]

    def test_big_dict_body_leaves_the_raw_form_box_empty_but_a_small_one_fills_it(self):
        big = {"count": 3000, "results": _big_items(3000)}
        assert _browse(_big_app(big).test_client(), "/items/").one("textarea").text == ""
        small = {"count": 1, "results": _big_items(1)}
        box = _browse(_big_app(small).test_client(), "/items/").one("textarea").text
        assert json.loads(box) == small

    @pytest.mark.parametrize("sort_keys", [True, False])
    @pytest.mark.parametrize("data", [
        _big_items(11000), {"z": 0, "results": _big_items(3000), "a": [None] * 200},
        [{"when": datetime.date(2020, 1, 2), "n": i} for i in range(11000)],
        {str(i): [i, 2.5] for i in range(11000)},
    ], ids=["list", "wrapper", "app-encoded", "long-object"])
    def test_a_big_bodys_page_text_is_the_apps_json_with_long_lists_a_line_an_item(
            self, app, data, sort_keys):
        if not hasattr(app, "json"):
            pytest.skip("JSON providers (app.json) need Flask >= 2.2")
        app.json.sort_keys = sort_keys
        with app.app_context():
            text, compact = flask_api._page_json(data), app.json.dumps(data, ensure_ascii=False)
            in_order = functools.partial(json.loads, object_pairs_hook=list)
            assert in_order(text) == in_order(compact)  # the same values, keys in the same order
            assert len(text.splitlines()) < 2 * 11000  # an item a line, not a value a line

    @pytest.mark.parametrize("text, url", [
        ("(see 'http://x.test/a')", "http://x.test/a"),
        ("read http://x.test/a.", "http://x.test/a"),
        ("at http://x.test/a, or http://x.test/b;", "http://x.test/a"),
        ("[http://x.test/y]", "http://x.test/y"),
        ("http://x.test/wiki/A_(b) is linked whole", "http://x.test/wiki/A_(b)"),
        ("(http://x.test/wiki/A_(b))", "http://x.test/wiki/A_(b)"),
        ("http://x.test/?a=1&b=2!", "http://x.test/?a=1&b=2"),
    ])
    def test_a_url_in_text_is_linked_without_the_punctuation_around_it(self, app, client, text,
                                                                       url):
        app.add_url_rule("/", "text", lambda: {"text": text})
        page = _browse(client, "/")
        links = page.find("a", within=page.one("pre", class_="response"))
        assert (links[0].attrs["href"], links[0].text) == (url, url)
        assert page.body_json == {"text": text}

    def test_cyclic_data_is_a_500_at_once_for_a_browser_as_for_a_json_client(self):
        if flask_api.DefaultJSONProvider is None:
            pytest.skip("JSON providers need Flask >= 2.2")
        try:  # in a process of its own, which a request that never ends cannot keep
            run = subprocess.run([sys.executable, "-c", CYCLIC_APP], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, timeout=20,
                                 cwd=os.path.dirname(os.path.abspath(__file__)))
        except subprocess.TimeoutExpired as expired:
            pytest.fail("no answer in 20 s; answered: {!r}".format(expired.stdout))
        assert run.stdout.split() == [b"500", b"500"], run.stderr.decode()[-2000:]
        assert run.stderr.count(b"ValueError: Circular reference detected") == 2

    def test_browser_follows_note_link_from_list_to_detail(self, tab, notes_site):
        tab.goto("/")
        _expect(tab.locator("h1")).to_have_text("Notes List")
        tab.get_by_role("link", name=notes_site + "/1/").click()
        tab.wait_for_url(notes_site + "/1/")
        _expect(tab.locator("h1")).to_have_text("Notes Detail")
        _expect(tab.locator("pre.response")).to_contain_text('"text": "build the codez"')

    @pytest.mark.parametrize("path", ["/%5Cevil.test/", "/%09/evil.test/x", "/%0A/evil.test/",
                                      "//evil.test/", "/%2F%2Fevil.test/", "/%5C%5Cevil.test/x/"])
    def test_browser_every_link_on_a_crafted_path_page_stays_on_this_site(self, tab, notes_site,
                                                                          path):
        tab.goto(notes_site + path)  # not base_url: "//evil.test/" would resolve to evil.test
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 404")
        hrefs = tab.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.href)")
        assert len(hrefs) >= 3
        assert [href for href in hrefs if not href.startswith(notes_site + "/")] == []

    def test_browser_stored_xss_payloads_do_not_run(self, tab, notes_site):
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
        _raw_tab(tab)
        tab.get_by_label("Content").fill(json.dumps({"text": " ".join(XSS_PAYLOADS)}))
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("PUT /6/")
        tab.wait_for_load_state("networkidle")
        assert tab.evaluate("typeof window.__xss") == "undefined"
        assert dialogs == []

    def test_browser_tree_folds_and_unfolds_any_value_and_all_of_them(self, tab, tree_site):
        tab.goto(tree_site[1] + "/thing/")
        size = _line(tab, "size")
        _expect(size).to_contain_text('"w": 1')
        size.locator(":scope > button.fold").click()
        _expect(_line(tab, "w")).to_be_hidden()
        _expect(size.locator(":scope > .more")).to_have_attribute("data-more", "… 1 key")
        _expect(size.locator(":scope > .more")).to_be_visible()
        size.locator(":scope > button.fold").click()
        _expect(_line(tab, "w")).to_be_visible()
        tab.get_by_role("button", name="Fold all", exact=True).click()  # all but the root's own
        _expect(_line(tab, "w")).to_be_hidden()
        _expect(_line(tab, "big")).to_be_visible()
        tab.get_by_role("button", name="Unfold all").click()
        _expect(_line(tab, "w")).to_be_visible()

    def test_browser_tree_folds_from_the_keyboard(self, tab, tree_site):
        tab.goto(tree_site[1] + "/thing/")
        button = _line(tab, "size").locator(":scope > button.fold")
        button.focus()
        tab.keyboard.press("Enter")
        _expect(_line(tab, "w")).to_be_hidden()
        _expect(button).to_have_attribute("aria-expanded", "false")
        tab.keyboard.press("ArrowRight")
        _expect(_line(tab, "w")).to_be_visible()
        tab.keyboard.press("ArrowLeft")
        _expect(_line(tab, "w")).to_be_hidden()
        tab.keyboard.press("ArrowLeft")  # already folded: to the line that holds it
        _expect(tab.locator(".tree > .line > button.fold")).to_be_focused()

    def test_browser_tree_shows_numbers_and_keys_as_the_api_sent_them(self, tab, tree_site):
        tab.goto(tree_site[1] + "/thing/")
        _expect(_line(tab, "big")).to_have_text('"big": 9007199254740993,')
        _expect(_line(tab, "ratio")).to_have_text('"ratio": 2.0,')
        _expect(_line(tab, "__proto__")).to_have_text('"__proto__": "kept",')
        _expect(_line(tab, "name")).to_have_text('"name": "lamp \\"Ω\\" \\\\ \\n",')

    def test_browser_tree_links_urls_and_its_links_are_followed(self, tab, tree_site):
        site = tree_site[1]
        tab.goto(site + "/thing/")
        link = _line(tab, "see").get_by_role("link", name="http://x.test/a")
        _expect(link).to_have_attribute("href", "http://x.test/a")
        tab.goto(site + "/links/")
        tab.locator(".tree").get_by_role("link", name=site + "/thing/").click()
        tab.wait_for_url(site + "/thing/")
        _expect(_line(tab, "big")).to_be_visible()

    def test_browser_filter_finds_keys_and_values_inside_folded_items(self, tab, tree_site):
        tab.goto(tree_site[1] + "/items/")
        _expect(tab.get_by_role("button", name="Fold items 0 to 9999")).to_be_visible()
        _expect(tab.locator(".tree")).not_to_contain_text('"item 19999"')  # folded, not built
        tab.get_by_label("Filter keys and values").fill("ITEM 19999")
        _expect(tab.get_by_role("status")).to_have_text("1 match.")
        _expect(tab.locator(".tree .hit")).to_have_text('"name": "item 19999"')
        _expect(tab.locator(".tree .index")).to_have_attribute("data-index", "19999")  # which item
        tab.get_by_label("Filter keys and values").fill("owner")  # a key, 20,000 times
        _expect(tab.get_by_role("status")).to_have_text("The first 1,000 matches.")
        tab.get_by_label("Filter keys and values").fill("no such thing")
        _expect(tab.get_by_role("status")).to_have_text("Nothing matches.")
        tab.get_by_label("Filter keys and values").fill("")
        _expect(tab.get_by_role("button", name="Fold items 0 to 9999")).to_be_visible()

    def test_browser_copy_json_gives_the_exact_body(self, clip_tab, tree_site):
        app, site = tree_site
        for path in ("/thing/", "/items/"):
            clip_tab.goto(site + path)
            clip_tab.get_by_role("button", name="Copy JSON").click()
            _expect(clip_tab.get_by_role("button", name="Copied")).to_be_visible()
            raw = app.test_client().get(path, headers={"Accept": "application/json"}).get_data()
            assert _clipboard(clip_tab).encode("utf-8") == raw
        _expect(clip_tab.get_by_role("button", name="Copy JSON")).to_be_visible()  # its label back

    def test_browser_selecting_the_tree_and_copying_gives_the_responses_json(self, clip_tab,
                                                                             tree_site):
        clip_tab.goto(tree_site[1] + "/thing/")
        # what is folded is copied too
        clip_tab.get_by_role("button", name="Fold all", exact=True).click()
        clip_tab.evaluate("""() => {
            const range = document.createRange();
            range.selectNodeContents(document.querySelector(".tree"));
            getSelection().removeAllRanges();
            getSelection().addRange(range);
            document.execCommand("copy");
        }""")
        copied = _clipboard(clip_tab)
        assert json.loads(copied) == LOSSY and "9007199254740993" in copied and "2.0" in copied

    def test_browser_page_without_javascript_shows_the_body_as_text(self, chromium, tree_site):
        with _open_tab(chromium, tree_site[1], java_script_enabled=False) as tab:
            tab.goto("/items/")
            body = tab.locator("pre.response .body")
            _expect(body).to_be_visible()
            _expect(body).to_contain_text('"name": "item 19999"')  # the last, in its block
            assert tab.locator(".tree").count() == 0
            tab.goto("/thing/")
            _expect(tab.locator("pre.response .body")).to_contain_text(
                '\n    "big": 9007199254740993')

    def test_browser_a_100000_item_page_loads_with_its_tree_form_and_links(self, chromium,
                                                                           live_site):
        app = _tree_app(100000)
        site = live_site.serve(app)
        for script in (True, False):
            with _open_tab(chromium, site, java_script_enabled=script) as tab:
                tab.set_default_timeout(90000)
                tab.goto("/items/")
                _expect(tab.get_by_role("link", name="next")).to_be_visible(timeout=90000)
                if script:
                    last_group = tab.get_by_role("button", name=re.compile("items 90000 to 99999"))
                    _expect(last_group).to_be_visible(timeout=90000)
                    _expect(tab.get_by_label("name", exact=True)).to_have_value("", timeout=90000)
                    tab.get_by_label("name", exact=True).fill("new")
                    tab.get_by_role("button", name="POST", exact=True).click()
                    _expect(tab.locator("pre.response")).to_contain_text("HTTP 201", timeout=90000)
                else:
                    _expect(tab.locator("pre.response .body")).to_contain_text('"item 99999"',
                                                                              timeout=90000)
        assert json.loads(app.config["bodies"][-1])["name"] == "new"

    def test_browser_a_1000000_key_object_loads_with_its_tree_tools_and_buttons(self, chromium,
                                                                                live_site):
        body = {"key {}".format(i): "value {}".format(i) for i in range(1000000)}
        app = FlaskAPI(__name__)

        @app.route("/keys/", methods=["GET", "PUT"])
        def many_keys():
            return body
        with _open_tab(chromium, live_site.serve(app)) as tab:
            tab.set_default_timeout(90000)
            tab.goto("/keys/")
            # grouped as a list of a million items is: 100 groups of 10,000, then of 100
            last_group = tab.get_by_role("button", name="Unfold keys 990000 to 999999")
            _expect(last_group).to_be_visible(timeout=90000)
            _expect(tab.locator("#api-curl").get_by_role("button")).to_have_text("Copy as curl")
            _expect(tab.locator("#api-headers summary")).to_have_text("Request headers")
            assert tab.get_by_role("tab").count() == 0  # a million fields: the raw box only
            tab.get_by_label("Filter keys and values").fill("value 999999")
            _expect(tab.get_by_role("status")).to_have_text("1 match.")
            _expect(tab.locator(".tree .hit")).to_have_text('"key 999999": "value 999999"')

    @pytest.mark.parametrize("text, written", LOSSLESS_JSON)
    def test_page_script_parses_json_losing_nothing(self, script_parts, text, written):
        assert _js(script_parts, "(text) => parts.writeJSON(parts.parseJSON(text), '')", text) \
            == written

    def test_page_script_json_keys_are_data_not_properties(self, script_parts):
        entries = _js(script_parts, """(text) => {
            const model = parts.parseJSON(text);
            return [model.entries.map((member) => member[0]), ({}).polluted, ({}).x];
        }""", '{"__proto__": {"polluted": 1}, "x": 2, "__proto__": 3}')
        assert entries == [["__proto__", "x", "__proto__"], None, None]

    @pytest.mark.parametrize("text, found", [
        ("", "a value expected at 0"), ("[1,]", "a value expected at 3"),
        ('{"a" 1}', "':' expected at 5"), ("{1: 2}", "a key expected at 1"),
        ("[1 2]", "',' or ']' expected at 3"), ("01", "the end expected at 1"),
        ("tru", "a value expected at 0"), ("NaN", "a value expected at 0"),
        ("'a'", "a value expected at 0"), ('"a\tb"', "a string expected at 0"),
        ('"\\x41"', "a string expected at 0"), ('"\\ud83d', "a string expected at 0"),
        ("1 2", "the end expected at 2"), ("[" * 3 + "]" * 2, "',' or ']' expected at 5"),
    ])
    def test_page_script_refuses_what_is_not_json_and_says_where(self, script_parts, text, found):
        assert _js(script_parts, """(text) => {
            try { parts.parseJSON(text); }
            catch (error) { return error.name + ": " + error.message; }
        }""", text) == "SyntaxError: JSON: " + found

    def test_page_script_writes_json_indented_as_python_does(self, script_parts):
        text = '{"a": [1, {}, [], {"b": "x\\u00e9"}], "c": {"d": null}, "e": 2.50}'
        for indent in ("  ", "    "):
            assert _js(script_parts,
                       "(text, indent) => parts.writeJSON(parts.parseJSON(text), indent)",
                       text, indent) == json.dumps(json.loads(text), indent=len(indent),
                                                   ensure_ascii=False).replace("2.5", "2.50")

    @pytest.mark.parametrize("count, size", [
        (0, 1), (1, 1), (100, 1), (101, 100), (10000, 100), (10001, 10000), (1000000, 10000),
        (1000001, 1000000)])
    def test_page_script_tree_groups_long_containers_by_powers_of_100(self, script_parts, count,
                                                                      size):
        assert _js(script_parts, "(count) => parts.groupSize(count)", count) == size

    def test_page_script_tree_shows_a_long_list_in_groups_and_its_matches_with_indexes(
            self, script_parts):
        shown = _js(script_parts, """() => {
            const tree = document.createElement("span");
            const model = parts.parseJSON(
                JSON.stringify(Array.from({length: 250}, (_, n) => "n" + n)));
            parts.showTree(tree, model, 1);
            const groups = [...tree.querySelectorAll(".range")].map((line) => line.dataset.range);
            const status = parts.filterTree(tree, model, "N24");
            const indexes = [...tree.querySelectorAll(".index")].map((line) => line.dataset.index);
            const hits = [...tree.querySelectorAll(".hit")].map((line) => line.textContent);
            const none = parts.filterTree(tree, model, "zzz");
            parts.filterTree(tree, model, "");  // the filter off again, for the page's own tree
            return [groups, status, indexes, hits, none];
        }""")
        assert shown == [["[0 \u2026 99]", "[100 \u2026 199]", "[200 \u2026 249]"], "11 matches.",
                         ["24"] + [str(n) for n in range(240, 250)],
                         ['"n{}",'.format(n) for n in [24] + list(range(240, 249))] + ['"n249"'],
                         "Nothing matches."]

    def test_page_script_tree_filter_keeps_the_way_to_each_match_in_keys_and_values(self,
                                                                                    script_parts):
        found = _js(script_parts, """(text) => {
            const found = {keep: new Set(), hits: new Set()};
            parts.findMatches(parts.parseJSON(text), null, "ab", found);
            return [[...found.hits].map((node) => parts.writeJSON(node, "")),
                    [...found.keep].map((node) => parts.writeJSON(node, ""))];
        }""", '{"x": {"AB": 1, "y": [2, "cab"]}, "z": "nothing"}')
        assert found == [["1", '"cab"'], ["1", '"cab"', '[2, "cab"]',
                                          '{"AB": 1, "y": [2, "cab"]}',
                                          '{"x": {"AB": 1, "y": [2, "cab"]}, "z": "nothing"}']]

    def test_page_script_finds_the_urls_the_server_links(self, script_parts):
        import html as html_module
        server = [[html_module.unescape(url) for url in
                   flask_api._URL_RE.findall(flask_api._escape_text(text))] for text in URL_TEXTS]
        script = _js(script_parts, """(texts) => texts.map((text) =>
            [...text.matchAll(parts.URL_IN_TEXT)].map((found) => found[0]))""", URL_TEXTS)
        assert script == server
        assert server[1] == ["http://x.test/wiki/A_(b)"] and server[0] == ["http://x.test/a"]

    def test_the_trees_fold_buttons_are_24_px_targets_on_a_big_folded_list(self, chromium,
                                                                           a11y_site):
        with _open_tab(chromium, a11y_site) as tab:
            tab.goto("/big/")
            tab.get_by_role("button", name="Fold all", exact=True).click()
            tab.locator(".tree > .line > .kids > .line").first.wait_for()
            sizes = tab.evaluate("""() => [...document.querySelectorAll(".tree button.fold")]
                .map((button) => button.getBoundingClientRect())
                .map((box) => [Math.min(box.width, box.height), box.top])""")
            assert len(sizes) == 51  # the list's and its 50 groups'
            assert min(side for side, top in sizes) >= 24
            tops = sorted(top for side, top in sizes)
            assert min(b - a for a, b in zip(tops, tops[1:])) >= 24

    def test_copied_is_announced(self, chromium, a11y_site):
        with _open_tab(chromium, a11y_site) as tab:
            tab.context.grant_permissions(["clipboard-read", "clipboard-write"])
            tab.goto("/0/")
            tab.get_by_role("button", name="Copy JSON").click()
            _expect(tab.locator("#api-live")).to_have_text("Copied")


# ---------------------------------------------------------------------------
# The page's context
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


def _view_with_markdown_docstring(app):
    @app.route("/docs/")
    def documented():
        """Lists **bold** things.

        Send `text` as <b>raw</b> & more.
        """
        return {"ok": True}


@pytest.fixture
def without_markdown(monkeypatch):
    monkeypatch.setattr(flask_api, "_markdown_lib", None)
    flask_api._markdown.cache_clear()
    yield
    flask_api._markdown.cache_clear()  # before monkeypatch restores markdown


def _post_only_app(flask_class):
    """A login that only takes POST, behind Flask-WTF's CSRFProtect; it records what it got."""
    csrf = pytest.importorskip("flask_wtf.csrf")
    app = flask_class(__name__)
    app.config.update(SECRET_KEY="test only", logins=[])
    csrf.CSRFProtect(app)

    @app.route("/login/", methods=["POST"])
    def login():
        """Log in with a name."""
        app.config["logins"].append(request.get_json(force=True))
        return flask.jsonify(token="t0k3n"), 201
    if flask_class is Flask:
        BrowsableAPI(app)
    return app


def _served_script():
    """The page's script as a browser gets it: the module's, each whole line of comment empty."""
    return re.sub(r"(?m)^[ \t]*//.*$", "", flask_api._PAGE_SCRIPT)


_ASSET_URL = re.compile(r"(?:/[^\s\"]*)?/_flask_api/page\.[0-9a-f]{20}\.(js|css)\Z")


def _asset_sources(html, host="localhost"):
    """The CSP sources of the page's script and style files as the page links them:
    {"script": [host + url], "style": [host + url]}."""
    script = re.search(r'<script src="([^"]+)"></script>', html).group(1)
    style = re.search(r'<link rel="stylesheet" href="([^"]+)">', html).group(1)
    assert _ASSET_URL.match(script) and _ASSET_URL.match(style)
    return {"script": [host + script], "style": [host + style]}


def _inline_hashes(html, tag):
    """The CSP source for each inline <script> or <style> of a page, as a browser hashes it."""
    import base64
    import hashlib
    return ["'sha256-{}'".format(base64.b64encode(hashlib.sha256(text.encode()).digest())
                                 .decode()) for text in re.findall(
        r"<{0}>(.*?)</{0}>".format(tag), html, re.DOTALL)]


def _scripted_docstring_app():
    """/, whose docstring holds a script, an event handler and script links; shown by a
    template of its own, so that this page is its first render (which gives the CSP)."""
    class OwnPage(BrowsableAPIRenderer):
        template = "{% extends base %}"

    app = FlaskAPI(__name__)
    app.config["DEFAULT_RENDERERS"] = [JSONRenderer, OwnPage]

    @app.route("/")
    def scripted():
        """Notes <script>window.__pwned = "script"</script> for you.

        <img src="/nothing.png" onerror="window.__pwned = 'img'">

        [A link](javascript:window.__pwned='link'),
        [an encoded one](&#106;avascript:window.__pwned='entity'),
        [another](JaVaScRiPt:window.__pwned='case')
        and ![a picture](javascript:window.__pwned='image').
        """
        return {"ok": True}
    return app


class TestPageContext:
    """What the page shows: title, description, request, status, headers, forms, errors."""

    @pytest.mark.parametrize("style", ["function", "methodview"])
    def test_page_title_and_description_come_from_the_view(self, app, client, style):
        _widget_views(app, style)
        page = _browse(client, "/widgets/")
        assert page.one("h1").text == "List Widgets"
        assert page.one("title").text == "List Widgets · Flask API"
        assert "Every widget we sell." in page.one("main").text

    def test_page_of_methodview_without_docstring_shows_no_inherited_docstring(self, app, client):
        class GadgetView(MethodView):
            def get(self):
                return {"gadgets": []}
        app.add_url_rule("/gadgets/", view_func=GadgetView.as_view("gadgets"))
        page = _browse(client, "/gadgets/")
        assert page.one("h1").text == "Gadget"
        assert not page.find("div", class_="description") and not page.find("pre",
                                                                            class_="description")
        assert "Dispatches request methods" not in page.html

    @pytest.mark.skipif(flask_api._markdown_lib is None, reason="markdown is not installed")
    def test_page_renders_docstring_markdown_as_html(self, app, client):
        _view_with_markdown_docstring(app)
        page = _browse(client, "/docs/")
        description = page.one("div", class_="description")
        assert page.find("strong", within=description)[0].text == "bold"
        assert page.find("code", within=description)[0].text == "text"

    def test_page_without_markdown_shows_docstring_escaped_and_preformatted(
            self, app, client, without_markdown):
        _view_with_markdown_docstring(app)
        page = _browse(client, "/docs/")
        description = page.one("pre", class_="description")
        assert description.text == "Lists **bold** things.\n\nSend `text` as <b>raw</b> & more."
        assert not page.find("strong") and not page.find("b")
        assert "&lt;b&gt;raw&lt;/b&gt;" in page.html

    def test_a_docstring_is_cut_at_a_line_of_three_dashes_where_openapi_yaml_begins(self, app,
                                                                                    client):
        @app.route("/")
        def documented():
            """Things.

            More about things.
            ---
            get:
              responses: {200: {description: ok}}
            """
            return {"ok": True}
        page = _browse(client, "/")
        assert "More about things." in page.html and "responses" not in page.html
        options = client.options("/", headers={"Accept": "application/json"}).get_json()
        assert options["description"] == "Things.\n\nMore about things."

    def test_page_shows_request_line_status_and_api_headers(self, notes_client):
        page = _browse(notes_client, "/1/?verbose=1")
        lines = page.response_text.splitlines()
        assert lines[0] == "GET /1/?verbose=1"
        assert "HTTP 200 OK" in lines
        assert not page.one("span", class_="status").has_class("error")
        assert "Allow: DELETE, GET, HEAD, OPTIONS, PUT" in lines
        assert "Content-Type: application/json" in lines
        assert "Vary: Accept" in lines

    def test_page_shows_each_header_once_when_the_response_sets_it_too(self, notes_client):
        page = notes_client.open("/1/", method="OPTIONS", headers={"Accept": "text/html"})
        assert page.status_code == 200 and page.mimetype == "text/html"
        assert page.get_data(as_text=True).count("Allow:</span>") == 1

    def test_the_page_for_head_has_the_headers_of_the_page_for_get(self, notes_client):
        get = notes_client.get("/", headers={"Accept": BROWSER_ACCEPT})
        head = notes_client.head("/", headers={"Accept": BROWSER_ACCEPT})
        assert head.data == b"" and head.headers == get.headers

    @pytest.mark.parametrize("path, buttons", [
        ("/", {"OPTIONS", "POST"}),
        ("/1/", {"OPTIONS", "PUT", "DELETE"}),
    ])
    def test_page_offers_buttons_for_exactly_the_allowed_methods(self, notes_client, path, buttons):
        page = _browse(notes_client, path)
        assert page.buttons == buttons
        assert page.find("a", href=path)[-1].text == "GET"

    def test_page_of_get_only_view_has_no_request_form(self, app, client):
        app.add_url_rule("/", "ro", lambda: {"read": "only"})
        page = _browse(client, "/")
        assert page.buttons == {"OPTIONS"}
        assert not page.find("textarea")

    def test_page_request_form_has_media_types_and_labelled_fields(self, notes_client):
        page = _browse(notes_client, "/1/")
        select, textarea = page.one("select"), page.one("textarea")
        assert [option.text for option in page.find("option", within=select)] == [
            "application/json", "application/x-www-form-urlencoded", "multipart/form-data"]
        labels = {label.attrs.get("for"): label.text for label in page.find("label")}
        assert labels[select.attrs["id"]] == "Media type"
        assert labels[textarea.attrs["id"]] == "Content"
        assert json.loads(textarea.text) == {"url": "http://localhost/1/",
                                             "text": "build the codez"}

    @pytest.mark.parametrize("flask_class", [FlaskAPI, Flask], ids=["FlaskAPI", "BrowsableAPI"])
    def test_the_page_of_a_post_only_view_offers_its_form_with_the_csrf_token(self, flask_class):
        client = _post_only_app(flask_class).test_client()
        page = _browse(client, "/login/")
        assert page.status_code == 405 and page.one("h1").text == "Login"
        assert "Log in with a name." in page.html
        assert "POST" in page.buttons and page.find("input", name="csrf_token")
        allow = re.search(r"^Allow: (.*)$", page.response_text, re.M).group(1)
        assert sorted(allow.split(", ")) == ["OPTIONS", "POST"]  # werkzeug's order is a set's
        shown = re.findall(r"^([\w-]+):", page.response_text, re.M)
        assert len(shown) == len(set(shown)) and "Content-Security-Policy" not in shown  # once
        api = client.get("/login/", headers={"Accept": "application/json"})
        assert api.status_code == 405  # an API client gets the app's own 405, as without the page
        assert api.content_type == ("application/json" if flask_class is FlaskAPI else
                                    "text/html; charset=utf-8")

    @pytest.mark.parametrize("method, path, body, code, shown", [
        ("GET", "/nope/", None, 404, "HTTP 404 Not Found"),
        ("GET", "/99/", None, 404, "This resource does not exist."),
        ("POST", "/1/", '{"text": "x"}', 405, "Allow: "),
        ("POST", "/", '{"text": ', 400, "Malformed request."),
    ])
    def test_page_renders_errors_with_their_status(self, notes_client, method, path, body, code,
                                                   shown):
        page = _browse(notes_client, path, method=method, data=body,
                       content_type="application/json")
        assert page.status_code == code
        assert page.content_type == "text/html; charset=utf-8"
        status_line = page.one("span", class_="status")
        assert status_line.has_class("error")
        assert status_line.text.startswith("HTTP {} ".format(code))
        assert shown in page.response_text
        assert "detail" in page.body_json

    @pytest.mark.parametrize("flask_class", [FlaskAPI, Flask], ids=["FlaskAPI", "BrowsableAPI"])
    def test_a_json_405_made_by_a_view_offers_the_forms_of_the_methods_in_its_allow(self,
                                                                                    flask_class):
        app = flask_class(__name__)

        @app.route("/report", methods=["GET", "POST"])
        def report():
            """A report, made by a POST."""
            if request.method == "GET":  # not made yet
                return jsonify(detail="POST to make the report."), 405, {"Allow": "POST"}
            return jsonify(made=True), 201
        client = _finish(app, flask_class is Flask).test_client()
        page = _browse(client, "/report")
        assert page.status_code == 405 and page.one("h1").text == "Report"
        assert page.buttons == {"POST"}  # and no GET link:
        assert [a.text for a in page.find("a", class_="button")] == []
        assert "Allow: POST\n" in page.response_text

    @pytest.mark.parametrize("flask_class", [FlaskAPI, Flask], ids=["FlaskAPI", "BrowsableAPI"])
    def test_browser_uses_a_post_only_view_from_its_page(self, chromium, live_site, flask_class):
        app = _post_only_app(flask_class)
        site = live_site.serve(app)
        with _open_tab(chromium, site) as tab:
            tab.goto("/login/")
            _expect(tab.locator("pre.response")).to_contain_text("HTTP 405")
            tab.get_by_label("Content").fill('{"name": "ann"}')
            tab.get_by_role("button", name="POST").click()
            _expect(tab.locator("pre.response")).to_contain_text("HTTP 201")
            _expect(tab.locator("pre.response")).to_contain_text('"token": "t0k3n"')
        _send_without_javascript(chromium, site, "/login/", '{"name": "bob"}', "POST",
                                 shown="HTTP 201")
        assert app.config["logins"] == [{"name": "ann"}, {"name": "bob"}]

    @pytest.mark.parametrize("csp", CSP_MODES)
    def test_browser_a_docstrings_scripts_handlers_and_script_links_never_run(
            self, chromium, live_site, csp):
        site = live_site.serve(_scripted_docstring_app())
        with _attack_tab(chromium, site, csp) as tab:
            response = tab.goto("/")
            tab.wait_for_timeout(500)  # time for the image's error
            assert tab.evaluate("typeof window.__pwned") == "undefined"
            description = tab.locator(".description")
            _expect(description).to_contain_text('<script>window.__pwned = "script"</script>')
            for name in ("A link", "an encoded one", "another"):
                description.get_by_text(name).click()
            tab.wait_for_timeout(500)
            assert tab.evaluate("typeof window.__pwned") == "undefined"
            assert tab.url == site + "/"
            assert _inline_hashes('<script>window.__pwned = "script"</script>', "script")[0] \
                not in response.headers["content-security-policy"]


# ---------------------------------------------------------------------------
# The page's responses
# ---------------------------------------------------------------------------

def _late_header_app(flask_class):
    """A view behind Flask-HTTPAuth (its decorator adds WWW-Authenticate to the response
    the view's 401 makes), on an app with Flask-CORS and an after_request hook of its own."""
    httpauth, cors = _optional("flask_httpauth"), _optional("flask_cors")
    app = flask_class(__name__)
    cors.CORS(app)
    auth = httpauth.HTTPBasicAuth()
    auth.verify_password(lambda user, password: user == "ann" and password == "pw")
    auth.error_handler(lambda code: (flask.jsonify(detail="Log in first."), code))

    @app.route("/")
    @auth.login_required
    def guarded():
        return flask.jsonify(ok=True)

    @app.after_request
    def stamp(response):
        response.headers["Location"] = "http://x.test/next"
        return response
    if flask_class is Flask:
        BrowsableAPI(app)
    return app


def _csp(response):
    """The Content-Security-Policy header as {directive: [sources]}."""
    return {name: sources for name, *sources in (
        part.split() for part in response.headers["Content-Security-Policy"].split(";"))}


class _AcmeRenderer(BrowsableAPIRenderer):
    template = "{% extends base %}{% block branding %}ACME API{% endblock %}"


def _exchange(client, method, path, accept, body=None):
    """(status, headers, body) as a client sees them; Date is the clock's, not the app's."""
    headers = {} if accept is None else {"Accept": accept}
    kwargs = {} if body is None else {"data": json.dumps(body),
                                      "content_type": "application/json"}
    response = client.open(path, method=method, headers=headers, **kwargs)
    shown = [(name, value) for name, value in response.headers if name != "Date"]
    return response.status, shown, response.get_data()


def _index(client):
    page = _browse(client, "/")
    return page, {route["rule"]: route for route in page.body_json}


@pytest.fixture(params=["simple", "filesystem", "redis"])
def cache_config(request, tmp_path):
    """Flask-Caching's configuration for one of its pickling backends, empty."""
    if request.param == "simple":
        return {"CACHE_TYPE": "SimpleCache"}
    if request.param == "filesystem":
        return {"CACHE_TYPE": "FileSystemCache", "CACHE_DIR": str(tmp_path / "cache")}
    return {"CACHE_TYPE": "RedisCache", "CACHE_REDIS_URL": request.getfixturevalue("redis_url"),
            "CACHE_KEY_PREFIX": request.node.name}  # the server lives on between tests


def _path_and_accept():
    """The cache key README gives: Flask-Caching keys by path alone and ignores Vary."""
    return "view/{}|{}".format(request.full_path, request.headers.get("Accept", ""))


def _cached_things(kind, config):
    """/things, whose view returns a response already rendered (so the cache keeps the page
    itself), under Flask-Caching's ``@cache.cached``; a hook adds a header after the view."""
    flask_caching = _optional("flask_caching")
    app = FlaskAPI(__name__) if kind == "FlaskAPI" else Flask(__name__)
    cache = flask_caching.Cache(app, config=config)
    calls = []

    @app.route("/things")
    @cache.cached(key_prefix=_path_and_accept)
    def things():
        calls.append(request.headers.get("Accept"))
        data = {"call": len(calls)}
        return flask_api.APIResponse(data) if kind == "FlaskAPI" else make_response(jsonify(data))

    @app.after_request
    def stamp(response):
        response.headers["X-Later"] = "stamped"
        return response
    if kind == "BrowsableAPI":
        BrowsableAPI(app)
    return app, calls


class TestPageResponses:
    """The template, its CSP, JSON responses as the page, late headers, the route index."""

    @pytest.mark.parametrize("flask_class", [FlaskAPI, Flask], ids=["FlaskAPI", "BrowsableAPI"])
    def test_the_page_lists_headers_added_after_the_view_by_hooks_and_decorators(self, flask_class):
        client = _late_header_app(flask_class).test_client()
        headers = {"Origin": "http://o.test"}
        api = client.get("/", headers=dict(headers, Accept="application/json"))
        page = _browse(client, "/", headers=headers)
        assert page.status_code == api.status_code == 401
        shown = page.response_text
        for name in ("WWW-Authenticate", "Access-Control-Allow-Origin", "Location"):
            assert "{}: {}".format(name, api.headers[name]) in shown
        assert page.one("a", href="http://x.test/next").text == "http://x.test/next"
        head = client.head("/", headers=dict(headers, Accept=BROWSER_ACCEPT))
        assert head.headers["Content-Length"] == str(len(page.html.encode("utf-8")))

    def test_a_page_compressed_by_a_hook_is_sent_as_the_hook_left_it(self, app, client):
        @app.route("/")
        def plain():
            return {"ok": True}

        @app.after_request
        def compress(response):
            response.set_data(gzip.compress(response.get_data()))
            response.headers.update({"Content-Encoding": "gzip", "X-Later": "1"})
            return response
        response = client.get("/", headers={"Accept": BROWSER_ACCEPT})
        page = gzip.decompress(response.get_data()).decode("utf-8")
        assert response.headers["X-Later"] == "1" and "X-Later" not in page
        assert '<span class="key">Vary:</span> Accept' in page

    @pytest.mark.parametrize("made_by", ["FlaskAPI", "jsonify"])
    def test_a_page_is_freed_once_sent_not_kept_until_the_garbage_collector_runs(self, made_by):
        """Each page is some 50 KB: one kept alive by a reference cycle until the cyclic GC runs
        cost every page a third more time in memory churn, and held memory under load."""
        app = FlaskAPI(__name__)
        pages = []

        @app.route("/")
        def things():
            return {"ok": True} if made_by == "FlaskAPI" else jsonify(ok=True)

        @app.after_request
        def keep_a_weak_reference(response):
            pages.append(weakref.ref(response))
            return response
        client = app.test_client()
        gc.disable()
        try:
            assert client.get("/", headers={"Accept": BROWSER_ACCEPT}).mimetype == "text/html"
            assert pages and pages[0]() is None
        finally:
            gc.enable()

    @pytest.mark.parametrize("path", ["/", "/1/", "/nope/"])
    def test_page_is_utf8_html_that_loads_nothing_from_elsewhere(self, notes_client, path):
        page = _browse(notes_client, path)
        assert page.content_type == "text/html; charset=utf-8"
        # its own two files, from this site, and nothing else: no image, frame or font
        loaded = [el.attrs.get("src") or el.attrs.get("href") for el in page.elements
                  if "src" in el.attrs or el.tag == "link" and el.attrs.get("rel") != "icon"]
        assert [_ASSET_URL.match(url).group(1) for url in loaded] == ["css", "js"]
        assert page.find("style") == [] and page.find("script")[0].text == ""
        style = notes_client.get(loaded[0]).get_data(as_text=True)
        assert ":root" in style and "url(" not in style and "@import" not in style
        absolute = [el.attrs["href"] for el in page.elements
                    if re.match(r"(?i)\s*(https?:)?//", el.attrs.get("href") or "")]
        assert all(re.match(r"http://localhost/\d+/$", href) for href in absolute)
        assert len(absolute) == (3 if path == "/" else 1 if path == "/1/" else 0)

    def test_page_csp_allows_nothing_but_its_own_script_and_style_files(self, notes_client):
        page = notes_client.get("/1/", headers={"Accept": BROWSER_ACCEPT})
        html = page.get_data(as_text=True)
        assert _inline_hashes(html, "script") == [] and _inline_hashes(html, "style") == []
        sources = _asset_sources(html)
        assert _csp(page) == {
            "default-src": ["'none'"], "script-src": sources["script"],
            "style-src": sources["style"], "connect-src": ["'self'"],
            "img-src": ["'self'", "data:"], "form-action": ["'self'"], "base-uri": ["'none'"],
            "frame-ancestors": ["'self'"]}
        again = notes_client.get("/", headers={"Accept": BROWSER_ACCEPT})
        assert _csp(again) == _csp(page)  # the same files for every page

    def test_custom_template_gets_the_hash_of_its_own_script(self):
        class Branded(BrowsableAPIRenderer):
            template = ("{% extends base %}{% block script %}{{ super() }}"
                        "console.log('acme');{% endblock %}")
        app = FlaskAPI(__name__)
        app.config["DEFAULT_RENDERERS"] = [Branded]
        app.add_url_rule("/", "home", lambda: {"ok": True})
        page = app.test_client().get("/", headers={"Accept": BROWSER_ACCEPT})
        html = page.get_data(as_text=True)
        assert "<script>console.log('acme');</script>" in html  # in its head, after the file
        assert _csp(page)["script-src"] == (_asset_sources(html)["script"]
                                           + _inline_hashes(html, "script"))
        assert _csp(page)["style-src"] == _asset_sources(html)["style"]  # it added no style
        plain = FlaskAPI(__name__)
        plain.add_url_rule("/", "home", lambda: {"ok": True})
        assert _csp(plain.test_client().get("/", headers={"Accept": BROWSER_ACCEPT})
                    )["script-src"] != _csp(page)["script-src"]

    def test_page_may_not_be_framed_by_other_sites_but_json_is_untouched(self, notes_client):
        page = notes_client.get("/1/", headers={"Accept": "text/html"})
        assert page.headers["X-Frame-Options"] == "SAMEORIGIN"
        assert "; frame-ancestors 'self'" in page.headers["Content-Security-Policy"]
        as_json = notes_client.get("/1/")
        assert "X-Frame-Options" not in as_json.headers
        assert "Content-Security-Policy" not in as_json.headers

    @pytest.mark.parametrize("how", ["set_renderers", "DEFAULT_RENDERERS"])
    def test_page_renderer_subclass_template_overrides_a_block(self, app, client, how):
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

    def test_a_template_of_its_own_shows_the_body_as_the_pages_json_text(self, app, client):
        class PlainRenderer(BrowsableAPIRenderer):
            template = "{% extends base %}{% block content %}<pre>{{ body }}</pre>{% endblock %}"

        app.config["DEFAULT_RENDERERS"] = [JSONRenderer, PlainRenderer]
        app.add_url_rule("/", "widgets", lambda: {"widgets": ["<b>anvil</b>"]})
        page = _browse(client, "/")
        assert json.loads(page.one("pre").text) == {"widgets": ["<b>anvil</b>"]}

    def test_page_template_blocks_can_use_flasks_template_globals(self, app, client):
        class LinkingRenderer(BrowsableAPIRenderer):
            template = ("{% extends base %}{% block branding %}{{ config.BROWSABLE_API_BRANDING }}"
                        " at {{ url_for('widgets') }}{% endblock %}")

        app.config["BROWSABLE_API_BRANDING"] = "Widgets <Inc>"
        app.add_url_rule("/widgets/", "widgets",
                         set_renderers(JSONRenderer, LinkingRenderer)(lambda: {"widgets": []}))
        page = _browse(client, "/widgets/")
        assert page.one("a", class_="brand").text == "Widgets <Inc> at /widgets/"

    def test_page_branding_config_changes_header_text(self, app, client):
        app.config["BROWSABLE_API_BRANDING"] = "Widgets <Inc>"
        app.add_url_rule("/", "widgets", lambda: {"widgets": []})
        page = _browse(client, "/")
        assert page.one("a", class_="brand").text == "Widgets <Inc>"
        assert page.one("title").text.endswith(" · Widgets <Inc>")

    def test_page_template_named_in_config_extends_the_base_page(self, tmp_path):
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

    def test_route_index_links_the_document_and_lists_the_summaries_it_reads(self):
        page, routes = _index(_plain_things().test_client())
        assert routes["/openapi.json"]["url"] == "http://localhost/openapi.json"
        assert routes["/openapi.json"]["doc"].startswith("This app's OpenAPI document")
        assert routes["/things/"]["doc"] == "All things. POST a name to add one."
        assert page.find("a", href="http://localhost/openapi.json")

    @pytest.mark.parametrize("method", ["TRACE", "BREW"])
    @pytest.mark.parametrize("library", ["flaskapi"] + sorted(THING_APPS))
    def test_every_405_page_carries_allow_and_json_clients_keep_the_apps_own(self, library, method):
        _skip_where_the_library_breaks_errors(library)
        make = _flaskapi_things if library == "flaskapi" else THING_APPS[library]
        allowed = {"GET", "HEAD", "OPTIONS"} | ({"POST"} if library != "flaskapi" else set())
        client = make().test_client()
        for query, accept in [("?format=api", JSON_TYPE), ("", BROWSER_ACCEPT)]:
            page = client.open("/things/" + query, method=method, headers={"Accept": accept})
            assert (page.status_code, page.mimetype) == (405, "text/html")
            assert set(parse_list_header(page.headers["Allow"])) == allowed
            assert "Allow: " in _Page(page).response_text
        answer = client.open("/things/", method=method, headers=JSON)
        assert answer.status_code == 405
        if library == "flaskapi":
            assert set(parse_list_header(answer.headers["Allow"])) == allowed
        else:  # the app's own answer, with or without its Allow (flask-smorest drops it)
            own = make(browsable=False).test_client().open("/things/", method=method, headers=JSON)
            assert answer.headers.get("Allow") == own.headers.get("Allow")

    @pytest.mark.parametrize("library", sorted(THING_APPS))
    def test_browsers_get_an_index_of_routes_at_a_root_without_a_route(self, library):
        _skip_where_the_library_breaks_errors(library)
        page, routes = _index(THING_APPS[library]().test_client())
        assert page.status_code == 200
        assert page.one("h1").text == "Routes"
        assert routes["/things/"]["methods"] == ["GET", "POST"]
        assert routes["/things/"]["doc"] == "All things. POST a name to add one."
        assert routes["/things/"]["url"] == "http://localhost/things/"
        assert routes["/things/<int:key>"]["methods"] == ["DELETE", "GET", "PUT"]
        assert "url" not in routes["/things/<int:key>"]  # it takes an argument
        assert not any(rule.startswith("/static") for rule in routes)
        assert page.find("a", href="http://localhost/things/")

    def test_a_renderer_subclass_changes_one_step_of_the_page_and_of_the_index(self, app, client):
        class ShortCrumbs(BrowsableAPIRenderer):
            def get_name(self, view, status):
                return "Shop: " + super().get_name(view, status)

            def get_breadcrumbs(self, app, req):
                return [("Shop", "/")]

        app.config["DEFAULT_RENDERERS"] = [JSONRenderer, ShortCrumbs]
        @app.route("/items/<int:key>")
        def item_detail(key):
            return {"key": key}

        page = _browse(client, "/items/1")
        assert page.one("h1").text == "Shop: Item Detail"
        assert [a.text for a in page.find("a", within=page.one("nav"))] == ["Shop"]
        index = _browse(client, "/")
        assert index.one("h1").text == "Routes"  # the index's own step wins over the subclass's
        assert [a.text for a in index.find("a", within=index.one("nav"))] == ["Shop"]
        assert "/items/<int:key>" in {route["rule"] for route in index.body_json}

    def test_index_on_a_flaskapi_app_lists_its_routes(self, app, client):
        app.add_url_rule("/hello", "hello", lambda: {"hello": "world"})
        page, routes = _index(client)
        assert routes["/hello"]["url"] == "http://localhost/hello"
        assert client.get("/", headers={"Accept": "application/json"}).status_code == 404

    @pytest.mark.parametrize("accept", ["application/json", "*/*", None])
    def test_index_leaves_json_clients_the_apps_own_404_byte_for_byte(self, accept):
        with_page = _plain_things().test_client()
        without = _plain_things(browsable=False).test_client()
        seen = _exchange(with_page, "GET", "/", accept)
        assert seen == _exchange(without, "GET", "/", accept)
        not_found = flask.Response(status=404).status  # "404 Not Found" from werkzeug 3.2 on
        assert seen[0] == not_found
        assert _exchange(with_page, "GET", "/?format=json", BROWSER_ACCEPT)[0] == not_found

    def test_index_turned_off_by_config_leaves_browsers_the_apps_404(self):
        app, plain = _plain_things(), _plain_things(browsable=False)
        app.config["BROWSABLE_API_INDEX"] = False
        seen = _exchange(app.test_client(), "GET", "/", BROWSER_ACCEPT)
        assert seen == _exchange(plain.test_client(), "GET", "/", BROWSER_ACCEPT)

    def test_index_is_not_shown_where_the_app_routes_the_root_or_for_other_methods(self):
        app = _plain_things()
        app.add_url_rule("/", "root", lambda: flask.abort(404))
        assert _browse(app.test_client(), "/").status_code == 404
        client = _plain_things().test_client()
        assert _browse(client, "/", method="POST").status_code == 404
        assert _browse(client, "/things", method="GET").status_code in (308, 301)

    def test_an_index_that_is_its_templates_first_page_still_carries_the_csp_hashes(self):
        """A template's CSP hashes come from its first render, whichever page that is."""
        class FreshPage(BrowsableAPIRenderer):
            template = ("{% extends base %}{% block branding %}Fresh{% endblock %}"
                        "{% block script %}console.log('fresh');{% endblock %}"
                        "{% block style %}h1 { color: teal }{% endblock %}")

        class FreshBrowsable(BrowsableAPI):
            renderer_classes = (JSONRenderer, FreshPage)

        app = Flask("fresh")
        FreshBrowsable(app)
        app.add_url_rule("/things/", "things", lambda: jsonify([]))
        response = app.test_client().get("/", headers={"Accept": BROWSER_ACCEPT})
        assert response.status_code == 200 and "Fresh" in response.get_data(as_text=True)
        policy = response.headers["Content-Security-Policy"]
        assert re.search(r"script-src \S+\.js 'sha256-", policy)
        assert re.search(r"style-src \S+\.css 'sha256-", policy)

    @pytest.mark.parametrize("kind", ["FlaskAPI", "BrowsableAPI"])
    def test_flask_caching_keeps_the_page_and_the_json_each_for_its_own_clients(
            self, kind, cache_config, caplog):
        app, calls = _cached_things(kind, cache_config)
        client = app.test_client()
        pages = [_browse(client, "/things") for _ in range(2)]
        answers = [client.get("/things", headers={"Accept": "application/json"}) for _ in range(2)]
        assert calls == [BROWSER_ACCEPT, "application/json"]  # the second of each: from the cache
        for page in pages:
            assert page.content_type == HTML_TYPE and page.body_json == {"call": 1}
            assert "X-Later: stamped" in page.response_text  # listed after the view, cached or not
        for answer in answers:
            assert answer.mimetype == "application/json" and _json(answer) == {"call": 2}
        assert [record.getMessage() for record in caplog.records
                if record.levelname in ("WARNING", "ERROR")] == []

    def test_page_csp_allows_only_the_heads_script_and_style_not_one_in_what_it_shows(self):
        class Annotated(BrowsableAPIRenderer):
            template = "{% extends base %}"  # its own: this page is its first render

            def get_context(self, data, status, headers):
                context = super().get_context(data, status, headers)
                context["description_html"] = markupsafe.Markup(
                    "<p>Notes</p><script>window.__pwned = 1</script><style>p {}</style>")
                return context
        app = FlaskAPI(__name__)
        app.config["DEFAULT_RENDERERS"] = [JSONRenderer, Annotated]
        app.add_url_rule("/", "home", lambda: {"ok": True})
        page = app.test_client().get("/", headers={"Accept": BROWSER_ACCEPT})
        html = page.get_data(as_text=True)
        assert "window.__pwned = 1" in html
        assert _csp(page)["script-src"] == _asset_sources(html)["script"]  # the page's file
        assert _csp(page)["style-src"] == _asset_sources(html)["style"]

    # The page's script and style, as files a browser keeps (#44)

    def test_page_files_are_served_at_their_hash_for_a_year_with_an_etag(self, notes_client):
        html = _browse(notes_client, "/").html
        for url, text, kind in ((re.search(r'<script src="([^"]+)"', html).group(1),
                                 _served_script(), "text/javascript"),
                                (re.search(r'<link rel="stylesheet" href="([^"]+)"', html).group(1),
                                 flask_api._PAGE_STYLE, "text/css")):
            got = notes_client.get(url, headers={"Accept-Encoding": "identity"})
            assert got.status_code == 200 and got.get_data(as_text=True) == text
            assert got.headers["Content-Type"] == kind + "; charset=utf-8"
            assert got.headers["Cache-Control"] == "public, max-age=31536000, immutable"
            assert got.headers["X-Content-Type-Options"] == "nosniff"
            assert got.headers["Vary"] == "Accept-Encoding"
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]
            assert url.endswith(digest + url[-4 if kind == "text/css" else -3:])
            assert got.headers["ETag"] == '"{}"'.format(digest)
            again = notes_client.get(url, headers={"If-None-Match": got.headers["ETag"],
                                                   "Accept-Encoding": "identity"})
            assert again.status_code == 304 and again.get_data() == b""

    def test_page_files_are_gzipped_once_for_a_browser_that_takes_it(self, notes_client):
        url = re.search(r'<script src="([^"]+)"', _browse(notes_client, "/").html).group(1)
        packed = [notes_client.get(url, headers={"Accept-Encoding": "gzip, deflate, br"})
                  for _ in range(2)]
        assert packed[0].headers["Content-Encoding"] == "gzip"
        assert packed[0].get_data() == packed[1].get_data()  # the same bytes, made once
        assert gzip.decompress(packed[0].get_data()).decode("utf-8") == _served_script()
        assert len(packed[0].get_data()) < len(flask_api._PAGE_SCRIPT) / 4
        assert packed[0].headers["ETag"] != notes_client.get(url).headers.get("ETag", "")
        refused = notes_client.get(url, headers={"Accept-Encoding": "gzip;q=0, identity"})
        assert "Content-Encoding" not in refused.headers
        assert refused.get_data(as_text=True) == _served_script()

    @pytest.mark.parametrize("path", [
        "/_flask_api/page.0000000000000000000a.js", "/_flask_api/page.js", "/_flask_api/",
        "/_flask_api/../notes_app.py", "/_flask_api/page.{hash}.css", "/_flask_api/page.{hash}",
        "/_flask_api/PAGE.{hash}.js", "/_flask_api/page.{hash}.js/x"])
    def test_page_file_url_answers_only_its_own_hash(self, notes_client, path):
        script = re.search(r'<script src="/_flask_api/page\.(\w+)\.js"',
                           _browse(notes_client, "/").html).group(1)
        got = notes_client.get(path.format(hash=script))
        assert got.status_code == 404 and _json(got) == {"detail": "This resource does not exist."}
        assert "Cache-Control" not in got.headers

    def test_page_file_url_takes_get_and_head_only(self, notes_client):
        url = re.search(r'<script src="([^"]+)"', _browse(notes_client, "/").html).group(1)
        head = notes_client.head(url)
        assert head.status_code == 200 and head.get_data() == b""
        for method in ("POST", "PUT", "DELETE"):
            got = notes_client.open(url, method=method, data="x")
            assert got.status_code == 405 and got.headers["Allow"] == "GET, HEAD"
            assert _json(got) == {"detail": "Request method is not allowed."}

    def test_page_files_come_before_the_apps_hooks_and_routes(self):
        app = FlaskAPI(__name__, static_folder=".", static_url_path="")  # a route for all paths

        @app.before_request
        def everything_needs_a_key():
            if request.headers.get("X-Key") != "k":
                raise AuthenticationFailed()

        @app.route("/things/")
        def things():
            return {"things": []}
        client = app.test_client()
        page = client.get("/things/", headers={"Accept": BROWSER_ACCEPT})
        assert page.status_code == 401  # the page of the 401 (its sign-in, say) ...
        html = page.get_data(as_text=True)
        for url in (re.search(r'<script src="([^"]+)"', html).group(1),
                    re.search(r'<link rel="stylesheet" href="([^"]+)"', html).group(1)):
            assert client.get(url).status_code == 200  # ... gets its script and style

    @pytest.mark.parametrize("mount", ["SCRIPT_NAME", "DispatcherMiddleware", "ProxyFix",
                                       "BrowsableAPI", "blueprint"])
    def test_page_files_live_under_the_apps_own_root(self, mount):
        from werkzeug.middleware.proxy_fix import ProxyFix
        app = FlaskAPI(__name__) if mount != "BrowsableAPI" else Flask(__name__)
        if mount == "BrowsableAPI":
            BrowsableAPI(app)
        if mount == "blueprint":
            shelf = Blueprint("shelf", __name__, static_folder=".", static_url_path="")
            shelf.add_url_rule("/things/", "things", lambda: {"things": []})
            app.register_blueprint(shelf, url_prefix="/shelf")
            path = "/shelf/things/"
        else:
            app.add_url_rule("/things/", "things", lambda: jsonify(things=[]))
            path = "/things/"
        served, base, environ = app, "http://localhost/", {}
        if mount == "SCRIPT_NAME":
            base = "http://localhost/api/"
        elif mount == "DispatcherMiddleware":  # mounted at /api: it sees /things/ under it
            served = DispatcherMiddleware(WerkzeugNotFound(), {"/api": app})
            path = "/api" + path
        elif mount == "ProxyFix":
            app.wsgi_app = ProxyFix(app.wsgi_app, x_prefix=1)
            environ = {"HTTP_X_FORWARDED_PREFIX": "/api"}
        client = werkzeug.test.Client(served, flask.Response)
        page = client.get(path, base_url=base, environ_base=environ,
                          headers={"Accept": BROWSER_ACCEPT})
        html = page.get_data(as_text=True)
        root = "/api" if mount in ("SCRIPT_NAME", "DispatcherMiddleware", "ProxyFix") else ""
        sources = _asset_sources(html)
        assert _csp(page)["script-src"] == sources["script"]
        for kind in ("script", "style"):
            url = sources[kind][0][len("localhost"):]
            assert url.startswith(root + "/_flask_api/page.")
            if mount == "DispatcherMiddleware":
                got = client.get(url)
            else:
                got = client.get(url[len(root):], base_url="http://localhost" + root + "/",
                                 environ_base=environ)
            assert got.status_code == 200 and got.headers["Cache-Control"].endswith("immutable")

    def test_page_files_under_an_app_template_that_keeps_the_script_block(self, tmp_path):
        (tmp_path / "api.html").write_text(
            "{% extends base %}{% block script %}{{ super() }}window.acme = 1;{% endblock %}")
        app = FlaskAPI(__name__, template_folder=str(tmp_path))
        app.config["BROWSABLE_API_TEMPLATE"] = "api.html"
        app.add_url_rule("/", "home", lambda: {"ok": True})
        client = app.test_client()
        page = client.get("/", headers={"Accept": BROWSER_ACCEPT})
        html = page.get_data(as_text=True)
        assert re.findall(r"<script>(.*?)</script>", html) == ["window.acme = 1;"]
        script = re.search(r'<script src="([^"]+)"', html).group(1)
        assert client.get(script).get_data(as_text=True) == _served_script()
        assert _csp(page)["script-src"] == (_asset_sources(html)["script"]
                                           + _inline_hashes(html, "script"))

    @pytest.mark.parametrize("host", ["evil.test; script-src *", "a.test,b.test", "x y",
                                      "x.test/../y"])
    def test_page_csp_takes_no_source_from_a_host_header_it_cannot_hold(self, notes_client, host):
        page = notes_client.get("/1/", headers={"Accept": BROWSER_ACCEPT, "Host": host})
        policy = page.headers["Content-Security-Policy"]
        assert _csp(page)["script-src"] == ["'none'"] and _csp(page)["style-src"] == ["'none'"]
        assert "*" not in policy and "evil" not in policy and "," not in policy

    def test_page_says_the_size_of_the_answer_an_api_client_gets(self, notes_client):
        answer = notes_client.get("/")
        page = _browse(notes_client, "/")
        assert int(page.one("pre", class_="response").attrs["data-size"]) == len(answer.data)
        app = Flask(__name__)
        BrowsableAPI(app)
        app.add_url_rule("/", "home", lambda: jsonify(text="naïve ☃"))  # jsonify's newline too
        client = app.test_client()
        shown = _browse(client, "/").one("pre", class_="response").attrs["data-size"]
        assert int(shown) == len(client.get("/").data)

    def test_browser_page_runs_under_its_csp_and_an_injected_script_is_blocked(self, tab,
                                                                               notes_site):
        tab.add_init_script("window.__violations = []; document.addEventListener("
                            "'securitypolicyviolation', e => window.__violations.push("
                            "e.violatedDirective + ' ' + e.blockedURI))")
        tab.goto("/1/")
        _add_header(tab, "X-Test", "1")  # the panel, a fetch and a page swap
        _expect(tab.locator("#api-headers summary")).to_have_text("Request headers: X-Test")
        tab.get_by_role("tab", name="Raw").click()
        tab.get_by_role("tab", name="HTML form").click()
        tab.locator("#api-curl").get_by_role("button", name="Copy as curl").click()
        _expect(tab.locator("#api-curl + pre.curl")).to_contain_text("curl ")
        tab.get_by_role("button", name="OPTIONS").click()
        _expect(tab.locator("pre.response")).to_contain_text("OPTIONS /1/")
        assert tab.evaluate("window.__violations") == []
        tab.evaluate("""() => { const s = document.createElement('script');
            s.textContent = 'window.__injected = 1'; document.body.append(s); }""")
        tab.wait_for_function("window.__violations.length > 0")
        assert tab.evaluate("typeof window.__injected") == "undefined"
        assert tab.evaluate("window.__violations")[0].startswith("script-src")


    # The page's script and style, as files a browser keeps (#44), in Chromium

    @staticmethod
    def _counting(live_site, app):
        """Serve ``app``, keeping the path of each request that reaches the server."""
        paths = []

        def counted(environ, start_response):
            paths.append(environ["PATH_INFO"])
            return app(environ, start_response)
        return live_site.serve(counted), paths

    @staticmethod
    def _transferred(tab):
        """What the last navigation moved over the wire: {"page": bytes, "files": {url: bytes}}."""
        return tab.evaluate("""() => ({
            page: performance.getEntriesByType("navigation")[0].transferSize,
            files: Object.fromEntries(performance.getEntriesByType("resource")
                .filter((entry) => entry.name.includes("/_flask_api/"))
                .map((entry) => [entry.name, entry.transferSize]))})""")

    def test_browser_first_visit_is_small_and_the_next_pages_take_the_files_from_the_cache(
            self, chromium, live_site):
        site, paths = self._counting(live_site, notes_app.create_app())
        with _open_tab(chromium, site) as tab:
            tab.goto("/")
            _expect(tab.locator(".tree")).to_be_visible()  # the script ran: the body is a tree
            first = self._transferred(tab)
            assert first["page"] <= 12 * 1024  # the notes list's HTML, its data and no script
            assert len(first["files"]) == 2
            assert first["page"] + sum(first["files"].values()) <= 60 * 1024  # gzipped files
            assert sorted(path.rsplit(".", 1)[1] for path in paths if "/_flask_api/" in path
                          ) == ["css", "js"]
            del paths[:]
            tab.get_by_role("link", name=site + "/1/").click()  # plain: no headers stored
            _expect(tab.locator("h1")).to_have_text("Notes Detail")
            _expect(tab.locator(".tree")).to_be_visible()
            assert self._transferred(tab)["files"] == dict.fromkeys(
                first["files"], 0)  # from the cache
            tab.reload()
            _expect(tab.locator(".tree")).to_be_visible()
            assert list(self._transferred(tab)["files"].values()) == [0, 0]
            assert [path for path in paths if "/_flask_api/" in path] == []  # not even asked

    def test_browser_tools_are_built_once_the_page_is_whole_before_domcontentloaded(
            self, chromium, live_site):
        # as its content's end (the history's place) is parsed, its last byte in: not a task
        # later at DOMContentLoaded, before which the browser may draw it without them (#44)
        # Whether a load's last byte is in before its history's place is parsed is Chromium's
        # race (under load, the parser may run first, and the page waits for the event): the
        # init script's observer, which runs before the page's, sees what the page's saw.
        site = live_site.serve(notes_app.create_app())
        with _open_tab(chromium, site) as tab:
            tab.add_init_script("""
              new MutationObserver((changes, watch) => {
                if (!document.getElementById("api-history")) return;
                window.__whole = performance.getEntriesByType("navigation")[0]?.responseEnd > 0;
                watch.disconnect();
              }).observe(document, {childList: true, subtree: true});
              document.addEventListener("DOMContentLoaded", () => {
                window.__built = document.querySelectorAll("#api-curl button, .tree").length;
              });""")
            for _ in range(10):  # until a load whose last byte came first
                tab.goto("/")
                _expect(tab.locator(".tree")).to_be_visible()
                if tab.evaluate("window.__whole"):
                    break
            else:
                pytest.skip("no load of 10 had its last byte in before its end was parsed")
            assert tab.evaluate("window.__built") >= 2  # there as the event came
            _expect(tab.locator(".timing")).to_contain_text(re.compile(
                r"^first byte in \d+ ms · \d+ ms in all · "))  # its last byte was in

    def test_browser_a_link_followed_with_headers_fetches_the_page_and_not_its_files(
            self, chromium, live_site):
        site, paths = self._counting(live_site, notes_app.create_app())
        with _open_tab(chromium, site) as tab:
            tab.goto("/")
            _add_header(tab, "X-Test", "1")  # now the script follows links with fetch
            del paths[:]
            tab.get_by_role("link", name=site + "/1/").click()
            _expect(tab.locator("pre.response")).to_have_attribute("data-url", re.compile("/1/$"))
            assert paths == ["/1/"]  # the page alone: its script and style stay as they were
            fetched = tab.evaluate("""() => performance.getEntriesByType("resource")
                .filter((entry) => entry.initiatorType === "fetch").map(
                (entry) => [new URL(entry.name).pathname, entry.encodedBodySize])""")
            assert fetched[-1][0] == "/1/" and fetched[-1][1] <= 12 * 1024

    def test_browser_timing_line_counts_the_answers_bytes_not_the_pages(self, tab, notes_site):
        answer = len(urllib.request.urlopen(notes_site + "/").read())
        tab.goto("/")
        _expect(tab.locator(".timing")).to_contain_text(" \u00b7 {} bytes".format(answer))
        _add_header(tab, "X-Test", "1")  # the page fetched again, and swapped in
        tab.get_by_role("link", name=notes_site + "/0/").click()
        one = len(urllib.request.urlopen(notes_site + "/0/").read())
        _expect(tab.locator(".timing")).to_contain_text(" \u00b7 {} bytes".format(one))

    @pytest.mark.parametrize("csp", CSP_MODES)
    def test_browser_a_same_origin_upload_served_as_script_or_style_cannot_run_or_style_it(
            self, chromium, live_site, csp):
        app = notes_app.create_app()

        @app.route("/uploads/<name>")
        def upload(name):  # what a user uploaded, served back as its own type
            kind = "text/javascript" if name.endswith(".js") else "text/css"
            body = "window.__uploaded = 1;" if kind == "text/javascript" else \
                "body { background: rgb(255, 0, 0) !important; }"
            return flask.Response(body, mimetype=kind)
        site = live_site.serve(app)
        with _attack_tab(chromium, site, csp) as tab:
            tab.add_init_script("window.__violations = []; document.addEventListener("
                                "'securitypolicyviolation', e => window.__violations.push("
                                "e.violatedDirective + ' ' + e.blockedURI))")
            tab.goto("/1/")
            _expect(tab.locator(".tree")).to_be_visible()
            tab.evaluate("""() => {
                const script = document.createElement("script");
                script.src = "/uploads/evil.js";
                const style = document.createElement("link");
                style.rel = "stylesheet";
                style.href = "/uploads/evil.css";
                document.head.append(script, style); }""")
            if csp == "csp-bypassed":  # the CSP is the second wall: here, only it was taken
                tab.wait_for_function("window.__uploaded === 1")
                return
            tab.wait_for_function("window.__violations.length === 2")
            assert tab.evaluate("typeof window.__uploaded") == "undefined"
            assert tab.evaluate("getComputedStyle(document.body).backgroundColor") != \
                "rgb(255, 0, 0)"
            assert sorted(violation.split()[0] for violation in tab.evaluate(
                "window.__violations")) == ["script-src-elem", "style-src-elem"]

    @pytest.mark.parametrize("blocked", ["both", "script"])
    def test_browser_page_says_when_its_files_cannot_load_and_its_data_stays_readable(
            self, tab, notes_site, blocked):
        pattern = "**/_flask_api/*" if blocked == "both" else "**/_flask_api/*.js"
        tab.route(pattern, lambda route: route.abort("internetdisconnected"))
        tab.goto("/1/")
        note = tab.locator(".assets-missing")
        _expect(note).to_be_visible()
        _expect(note).to_contain_text("could not be loaded")
        _expect(tab.locator("pre.response")).to_contain_text('"text": "build the codez"')
        _expect(tab.get_by_role("button", name="DELETE")).to_be_visible()  # a plain form

    def test_browser_page_with_its_files_says_nothing_of_them(self, tab, notes_site, chromium):
        tab.goto("/1/")
        _expect(tab.locator(".tree")).to_be_visible()
        _expect(tab.locator(".assets-missing")).to_be_hidden()
        with _open_tab(chromium, notes_site, java_script_enabled=False) as plain:
            plain.goto("/1/")  # scripts off by choice: nothing failed, nothing to say
            _expect(plain.locator(".assets-missing")).to_be_hidden()
            _expect(plain.locator("pre.response")).to_contain_text("build the codez")

    def test_browser_page_saved_by_the_browser_shows_its_data(self, chromium, tab, notes_site,
                                                              tmp_path):
        tab.goto("/1/")
        _expect(tab.locator(".tree")).to_be_visible()
        snapshot = tab.context.new_cdp_session(tab).send("Page.captureSnapshot",
                                                        {"format": "mhtml"})["data"]
        saved = tmp_path / "note.mhtml"  # "Save page as", as a single file
        saved.write_text(snapshot, encoding="utf-8")
        with _open_tab(chromium, notes_site) as reopened:
            reopened.goto(saved.as_uri())
            _expect(reopened.locator("pre.response")).to_contain_text("build the codez")
            _expect(reopened.locator("h1")).to_have_text("Notes Detail")


# ---------------------------------------------------------------------------
# Streams
# ---------------------------------------------------------------------------

# Two public Flask extensions that stream, wrapped with BrowsableAPI: Flask-SSE (server-sent
# events from Redis) and Flask-Stream (a job's progress as server-sent events).

_WRAP_APP_PLUGIN = """
import pytest
from flask_api import BrowsableAPI

wrapped = []


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    outcome = yield
    if fixturedef.argname == "app" and outcome.exception is None:
        wrapped.append(BrowsableAPI(outcome.get_result()))


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line("apps wrapped with BrowsableAPI: {}".format(len(wrapped)))
"""


def _published_tests(folder, requirement):
    """The tests a package ships in its source distribution on PyPI, unchanged, in
    ``folder``/tests: the registry's own files, as its authors published them."""
    download = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
         requirement, "-d", str(folder)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if download.returncode:
        _missing("CI", "cannot download {}: {}".format(requirement, download.stdout[-500:]))
    (folder / "tests").mkdir()
    with tarfile.open(str(next(folder.glob("*.tar.gz")))) as archive:
        for member in archive.getmembers():  # <package>-<version>/tests/*: the files only
            if member.isfile() and member.name.split("/")[1:2] == ["tests"]:
                name = member.name.rsplit("/", 1)[1]
                (folder / "tests" / name).write_bytes(archive.extractfile(member).read())
    return folder / "tests"


def _run_published_tests(tests, *selected):
    """Run ``tests`` with each of their ``app`` fixtures wrapped with BrowsableAPI: (pytest's
    exit status, its output). flask_api.py is this repository's."""
    (tests.parent / "wrap_app.py").write_text(_WRAP_APP_PLUGIN)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([NOTES_DIR, str(tests.parent)]))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "wrap_app", "-p",
                          "no:cacheprovider", "--rootdir", str(tests.parent), str(tests)] +
                         ["-k", " or ".join(selected)] * bool(selected),
                         cwd=str(tests.parent), env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=300)
    return run.returncode, run.stdout.decode("utf-8", "replace")


def _flask_sse_app(redis_url, browsable):
    """Flask-SSE's quickstart: its blueprint at /stream, on Redis."""
    flask_sse = _optional("flask_sse")
    app = Flask(__name__)
    app.config["REDIS_URL"] = redis_url
    app.register_blueprint(flask_sse.sse, url_prefix="/stream")
    if browsable:
        BrowsableAPI(app)
    return app, flask_sse.sse


def _first_bytes(response):
    """The first piece of a response's body, then the response closed: a stream need not end."""
    try:
        return next(iter(response.response), b"")
    finally:
        response.close()


def _pages_running(scripts, referrer="strict-origin-when-cross-origin"):
    """Pages of another site, each running its script (``{path: script}``) as it loads and
    sending the Referer its ``referrer`` policy says (``no-referrer`` hides where from)."""
    def wsgi(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/html"), ("Referrer-Policy", referrer)])
        return ["<!DOCTYPE html><title>Elsewhere</title><script>{}</script>".format(
            scripts.get(environ["PATH_INFO"], "")).encode("utf-8")]
    return wsgi


# Values a stream must carry exactly: newlines and line separators in strings (one SSE data
# line each still), non-ASCII, numbers JavaScript cannot hold.
_STREAM_VALUES = [{"text": "one\ntwo\r\nthree"}, "a\u2028b\u2029c", "ünïcødé ✓ 😀", 2 ** 64,
                  -(2 ** 70), None, [1.5, True]]


def _stream_app(signals):
    """The streams the real-server tests read. ``signals`` is a directory where a client
    lets a view go on (a file named by the URL's token) and a view says its generator closed."""
    app, kept = FlaskAPI(__name__), []

    def wait_for(token):  # at most 10 s: long enough for any client, short for a broken test
        path, deadline = os.path.join(signals, token), time.monotonic() + 10
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.005)
        return os.path.exists(path)

    @app.route("/")
    def index():
        return {"streams": True}

    @app.route("/paced/<token>")
    def paced(token):
        yield {"first": True}
        yield {"waited": wait_for(token)}

    @app.route("/many")
    def many():
        return ({"n": n, "text": "item {}".format(n)} for n in range(100000))

    def endless_items(token):
        try:
            for n in itertools.count():
                yield n
                time.sleep(0.001)
        finally:
            with open(os.path.join(signals, token), "w") as closed:
                closed.write("closed")

    @app.route("/endless/<token>")
    def endless(token):  # kept: only a close(), not the garbage collector, runs its finally
        kept.append(endless_items(token))
        return kept[-1]

    @app.route("/failing")
    def failing():
        yield {"before": True}
        raise RuntimeError("the database went away")

    @app.route("/contextual")
    def contextual():
        @flask.stream_with_context
        def generate():
            yield {"q": request.args["q"]}
            yield {"path": request.path}
        return generate()

    @app.route("/missing")
    def missing():
        abort(404)
        yield "never"

    @app.route("/values")
    def values():
        return iter(_STREAM_VALUES)

    @app.route("/line-ends")
    def line_ends():
        return iter(_LINE_END_ITEMS)

    @app.route("/socket")
    def handed_over():  # whether the server hands the app its socket (werkzeug 2.0+, gunicorn)
        return {"socket": any(key in request.environ
                              for key in ("werkzeug.socket", "gunicorn.socket"))}

    @app.route("/all-good")
    def all_good():  # a last item that looks like an error, and is not one
        return iter([{"n": 1}, {"detail": "all good"}])

    def record(token, line):  # in a file: gunicorn's worker is another process
        with open(os.path.join(signals, "log-" + token), "a") as log:
            log.write(line + "\n")

    @app.before_request
    def connected():
        if request.path.startswith("/events/"):
            record(request.path.rsplit("/", 1)[1], "connect " + (request.last_event_id or "-"))

    @app.route("/events/<token>")
    def events(token):
        """Ticks after the Last-Event-ID sent (any other id: from the start), ``batch`` a
        connection (then a plain end), up to ``total``, with ids unless ``ids=0``; then
        ``then``: "end" (ServerSentEvent.END), "error", or nothing."""
        args, seen = request.args, request.last_event_id or ""
        after = int(seen) if seen.isdigit() else 0
        last = min(after + int(args.get("batch", 3)), int(args.get("total", 3)))
        record(token, "run " + (seen or "-"))
        for n in range(after + 1, last + 1):
            record(token, "sent {}".format(n))
            yield flask_api.ServerSentEvent(
                {"n": n, "text": "tick\u2028"}, id=n if args.get("ids") != "0" else None,
                event="tick", retry=int(args.get("retry", 100)))
        if last == int(args.get("total", 3)) and args.get("then") == "end":
            yield flask_api.ServerSentEvent.END
        elif last == int(args.get("total", 3)) and args.get("then") == "error":
            raise RuntimeError("the job broke")

    @app.route("/eventsource.html")
    def eventsource_page():
        """A page of our own that reads ?src with EventSource, its events kept in window.log."""
        return flask.Response(_EVENTSOURCE_PAGE, mimetype="text/html")

    _flask_streaming_examples(app, lambda rv: rv if len(rv) > 1 else rv[0])
    plain = Flask(__name__)  # the same views on plain Flask, at /plain
    _flask_streaming_examples(plain, functools.partial(_as_flask_sends, plain))
    utf8 = FlaskAPI(__name__)  # and an app whose JSON is not ASCII, at /utf8
    _json_settings(utf8, ensure_ascii=False)
    utf8.add_url_rule("/line-ends", "line_ends", line_ends)
    bounded = FlaskAPI(__name__)  # and one whose streams may go unread 1 s, at /bounded
    bounded.config["STREAM_WRITE_TIMEOUT"] = 1

    @bounded.route("/unread/<token>")
    def unread(token):  # big items: a client that reads none fills the buffers at once
        def items():
            try:
                while True:
                    yield {"pad": "x" * 65536}
            finally:
                with open(os.path.join(signals, token), "w") as closed:
                    closed.write("closed")
        return items()

    app.wsgi_app = DispatcherMiddleware(app.wsgi_app, {
        "/plain": plain.wsgi_app, "/utf8": utf8.wsgi_app, "/bounded": bounded.wsgi_app})
    return app


_EVENTSOURCE_PAGE = """<!DOCTYPE html><title>EventSource</title><script>
window.log = [];
const source = window.source = new EventSource(new URLSearchParams(location.search).get("src"));
for (const type of ["message", "tick", "stream-end", "stream-error"]) {
  source.addEventListener(type, (event) => log.push([type, event.data, event.lastEventId]));
}
source.onerror = () => log.push(["onerror", source.readyState]);
</script>"""


# Every character str.splitlines() ends a line at, in values and keys, and text beside them.
_LINE_ENDS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_END_ITEMS = ([{"text": "a{}b".format(end)} for end in _LINE_ENDS] +
                   [{"all" + _LINE_ENDS: _LINE_ENDS}, "ünïcødé \u2028 😀", [_LINE_ENDS] * 3])


def _json_settings(app, **settings):
    """Set the app's JSON ``ensure_ascii`` and ``sort_keys``, as this Flask keeps them."""
    keys = {"ensure_ascii": "JSON_AS_ASCII", "sort_keys": "JSON_SORT_KEYS"}  # before 2.2
    for name, value in settings.items():
        if hasattr(app, "json"):  # Flask 2.2+
            setattr(app.json, name, value)
        else:
            app.config[keys[name]] = value


def _flask_streaming_examples(app, finish):
    """Views of the shapes Flask's "Streaming Contents" page shows, written here: a CSV
    generator with its Content-Type in a tuple, a template streamed, ``stream_with_context``
    called and as a decorator (with Markup items), and bytes with a status and a header.
    ``finish`` makes the view's return value what this Flask accepts."""
    @app.route("/flask/rows.csv")
    def rows_csv():
        def generate():
            for row in [["id", "name"], ["1", "ünï"], ["2", "b,c"]]:
                yield "{}\n".format(",".join(row))
        return finish((generate(), {"Content-Type": "text/csv"}))

    @app.route("/flask/timeline")
    def timeline():
        if not hasattr(flask, "stream_template_string"):  # Flask 2.2+
            return finish((iter(["<li>1</li>", "<li>&lt;b&gt;</li>"]),))
        return finish((flask.stream_template_string(
            "{% for n in items %}<li>{{ n }}</li>{% endfor %}", items=[1, "<b>"]),))

    @app.route("/flask/hello")
    def hello():
        def generate():
            yield "<p>Hello "
            yield markupsafe.escape(request.args.get("name", "<you>"))
            yield "!</p>"
        return finish((flask.stream_with_context(generate()),))

    @app.route("/flask/decorated")
    def decorated():
        @flask.stream_with_context
        def generate():
            yield "path: "
            yield request.path
        return finish((generate(),))

    @app.route("/flask/bytes")
    def raw_bytes():
        return finish((iter([b"\x00\x01", bytearray(b"\xff")]), 202, {"X-Job": "7"}))

    @app.route("/flask/nothing")
    def nothing():
        return finish((iter(()), {"Content-Type": "text/plain; charset=utf-8"}))


def _as_flask_sends(app, rv):
    """A view's ``(iterator, ...)`` tuple for plain Flask: as it is from Flask 2.2, which takes
    an iterator as a body; before, the response Flask 2.2 would make of it."""
    if hasattr(Flask, "json_provider_class"):
        return rv if len(rv) > 1 else rv[0]
    body, status, headers = flask_api._split_result(rv if len(rv) > 1 else rv[0])
    return app.response_class(body, status=status, headers=headers)


class _StreamServer:
    """``_stream_app`` under a real server: ``get`` sends a request over a socket of its own."""

    def __init__(self, kind, signals, port, logged):
        self.kind, self.signals, self.port, self.logged = kind, signals, port, logged
        self.url = "http://127.0.0.1:{}".format(port)

    def records(self, token):
        """What /events/<token> wrote down: each connection, run and event sent."""
        path = os.path.join(self.signals, "log-" + token)
        return _read(path).splitlines() if os.path.exists(path) else []

    def get(self, path, accept=None, method="GET"):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request(method, path, headers={"Accept": accept} if accept else {})
        conn.socket = conn.sock  # which http.client lets go of once it has a response
        return conn, conn.getresponse()

    def read(self, path, accept=None, method="GET"):
        conn, resp = self.get(path, accept, method)
        try:
            return resp.status, resp.getheader("Content-Type"), resp.read()
        finally:
            conn.close()

    def signal(self, token):
        open(os.path.join(self.signals, token), "w").close()

    def wait_closed(self, token):
        path, deadline = os.path.join(self.signals, token), time.monotonic() + 10
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.01)
        return os.path.exists(path)


@pytest.fixture(scope="module", params=["werkzeug", "gunicorn"])
def stream_server(request, tmp_path_factory):
    signals = str(tmp_path_factory.mktemp("signals"))
    if request.param == "werkzeug":
        app, log = _stream_app(signals), io.StringIO()
        handler = logging.StreamHandler(log)
        app.logger.addHandler(handler)
        site = _LiveSite()
        site.serve(app)
        yield _StreamServer("werkzeug", signals, site.server.server_port, log.getvalue)
        site.close()
        app.logger.removeHandler(handler)
        return
    if not os.path.exists(GUNICORN):
        pytest.skip("gunicorn is not installed")
    runtime = tmp_path_factory.mktemp("gunicorn")
    log = str(runtime / "gunicorn.log")
    env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime))
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [GUNICORN, "--workers", "1", "--threads", "4", "--bind", "127.0.0.1:0",
             "test_all:_stream_app({!r})".format(signals)], cwd=NOTES_DIR, env=env,
            stdout=out, stderr=subprocess.STDOUT)
    try:
        port = _wait_for_gunicorn(proc, log, workers=1)
        yield _StreamServer("gunicorn", signals, port, lambda: _read(log))
    finally:
        _stop(proc)


def _lines(body):
    return [json.loads(line) for line in body.decode("utf-8").split("\n") if line]


def _events(body):
    """Server-sent events as (event type, data), parsed by the spec's rules for lines."""
    events, kind, data = [], "message", []
    for line in re.split(r"\r\n|\r|\n", body.decode("utf-8")):
        if not line:
            if data:
                events.append((kind, "\n".join(data)))
            kind, data = "message", []
        elif line.startswith("event: "):
            kind = line[len("event: "):]
        elif line.startswith("data: "):
            data.append(line[len("data: "):])
    return events


_FLASK_EXAMPLES = ["/flask/rows.csv", "/flask/timeline", "/flask/hello?name=%3Cb%3E",
                   "/flask/decorated", "/flask/bytes", "/flask/nothing"]


def _over_socket(port, path, accept):
    """The whole HTTP answer, bytes as they came over the socket, less its Date line."""
    head = "GET {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{}Connection: close\r\n\r\n".format(
        path, port, "Accept: {}\r\n".format(accept) if accept else "")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head.encode("latin-1"))
        answer = b""
        for piece in iter(lambda: sock.recv(65536), b""):
            answer += piece
    return re.sub(rb"\r\nDate: [^\r]*", b"", answer)


_A_500 = json.dumps({"detail": default_exceptions[500].description}).encode()


def _ticks(first, last, ids=True):
    """What /events/<token> sends, as (event, data, id)."""
    return [("tick", {"n": n, "text": "tick\u2028"}, str(n) if ids else "")
            for n in range(first, last + 1)]


_END = ("stream-end", None, "flask-api:end")
_ERROR = ("stream-error", {"detail": default_exceptions[500].description}, "flask-api:end")


def _token():
    return "t{}".format(random.getrandbits(48))


def _never_read(port, path):
    """A client that asks for ``path`` and then reads nothing: (socket, when it asked)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall("GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/jsonl\r\n"
                 "\r\n".format(path).encode())
    return sock, time.monotonic()


def _streams_app():
    app = FlaskAPI(__name__)
    started = []

    @app.route("/items")
    def items():
        started.append(True)
        yield {"b": 1, "a": datetime.date(2026, 11, 25)}

    @app.route("/created")
    def created():
        return iter([1, 2]), 201, {"X-Job": "7", "Cache-Control": "max-age=5"}

    @app.route("/raw")
    def raw():
        return flask.Response((part for part in ["a", "b\n"]), mimetype="text/plain")

    @app.route("/raw-context")
    def raw_context():
        return flask.Response(flask.stream_with_context(
            part for part in [request.path, "\n"]), mimetype="text/plain")

    @app.route("/file")
    def file():
        return io.BytesIO(b"raw\nbytes")

    @app.route("/bad")
    def bad():
        yield 1
        yield object()

    @app.route("/not-found")
    def not_found():
        raise NotFound("No such job.")
        yield 1

    @app.route("/empty")
    def empty():
        return iter(())

    @app.route("/post", methods=["POST"])
    @set_renderers(JSONRenderer, flask_api.EventStreamRenderer)
    def post():
        yield {"got": request.data}

    return app, started


def _events_app():
    """/jobs/<key>/events: a job's progress as events with ids, which resumes after the
    Last-Event-ID it is sent and says when it is finished; ``runs`` counts the generator's
    runs. /failing: an event, then an error."""
    app, runs = FlaskAPI(__name__), []

    @app.route("/jobs/<int:key>/events")
    def job_events(key):
        runs.append(request.last_event_id)
        after = int(request.last_event_id or 0)
        for step in range(after + 1, 4):
            yield flask_api.ServerSentEvent({"job": key, "step": step}, id=step,
                                            event="progress")
        yield flask_api.ServerSentEvent.END

    @app.route("/failing")
    def failing():
        runs.append(request.last_event_id)
        yield flask_api.ServerSentEvent({"n": 1}, id="1")
        raise NotFound("The job went away: ü\u2028.")
    return app, runs


# (stream text, events as {data, event, id, retry}): the HTML standard's parsing
_EVENT_CASES = [
    ("data: a\ndata:b\ndata\n\n", [{"data": "a\nb\n", "event": "", "id": "", "retry": ""}]),
    (": a comment\r\nevent: tick\r\nid: 7\r\nretry: 300\r\ndata:  two spaces\r\n\r\n",
     [{"data": " two spaces", "event": "tick", "id": "7", "retry": "300"}]),
    ("id: 1\rdata: x\r\rdata: y\r\r", [{"data": "x", "event": "", "id": "1", "retry": ""},
                                       {"data": "y", "event": "", "id": "1", "retry": ""}]),
    ("id: 5\nevent: nothing\n\nretry: soon\nid: a\0b\nfoo: bar\ndata: z\n\n",
     [{"data": "z", "event": "", "id": "5", "retry": ""}]),  # no data: no event; bad fields
    ("data: done\n\ndata: cut off\n", [{"data": "done", "event": "", "id": "", "retry": ""}]),
    ("\ufeffid: 41\ndata: a\n\nid: 42\n\n: the id stands without an event\n",
     [{"data": "a", "event": "", "id": "41", "retry": ""}]),  # the last id: 42, to resume
]


def _streamed_page(response):
    """A stream's page as a browser gets it, without JavaScript: the page, its items (each
    (data, {field: value}) from its ``<li>``), and its ending's ``data-`` attributes."""
    page = _Page(response)
    listed, items = page.one("ol", id="api-items-list"), []
    for li in page.find("li", within=listed):  # its data alone, or in a span after its fields
        data = page.find("span", within=li, class_="data")
        items.append((data[0].text if data else li.text, {
            name[5:]: value for name, value in li.attrs.items() if name.startswith("data-")}))
    end = page.one("p", class_="stream-end")
    return page, items, dict(end.attrs, text=end.text)


def _foreign_stream(mimetype, pieces, log=None):
    """A plain Flask app under BrowsableAPI whose /s sends ``pieces`` (bytes or str) as a
    stream of ``mimetype``; ``log`` (a list) gets "ran" per run and "closed" once closed."""
    app = Flask(__name__)
    BrowsableAPI(app)
    log = [] if log is None else log

    @app.route("/s")
    def stream():
        log.append("ran")

        def run():
            try:
                yield from pieces
            finally:
                log.append("closed")
        return flask.Response(run(), mimetype=mimetype)
    return app.test_client()


def _first_item_line(resp):
    """Read a stream's page as it comes, up to the line of its first item."""
    line = resp.readline()
    while not line.startswith((b"<li>", b"<li ")):
        assert line, "the page ended before its first item"
        line = resp.readline()
    return line


def _live_stream_app():
    """Streams as plain Responses of a FlaskAPI app. ``app.seen``: each stream request's
    headers (one per run of a view); ``app.closed``: the streams whose generator ended (its
    ``finally`` ran); ``app.gate``: /slow and /cut hold back until it is set."""
    app = FlaskAPI(__name__)
    app.seen, app.closed, app.gate = [], [], threading.Event()

    def stream(name, items, mimetype="application/jsonl"):
        app.seen.append(dict(request.headers, raw_id=request.environ.get("HTTP_LAST_EVENT_ID")))

        def run():
            try:
                yield from items()
            finally:
                app.closed.append(name)
        return flask.Response(run(), mimetype=mimetype)

    @app.route("/slow")
    def slow():
        def items():
            yield '{"n": 12345678901234567891}\n'
            app.gate.wait(10)
            yield '{"n": 2}\n'
        return stream("slow", items)

    @app.route("/many")
    def many():  # in pieces of 1,000 lines, as a server's buffer would send them, over frames
        def items():
            for at in range(0, 100000, 1000):
                yield "".join('{"n": %d}\n' % n for n in range(at, at + 1000))
                time.sleep(0.01)
        return stream("many", items)

    @app.route("/ticks")
    def ticks():
        first = int(request.headers.get("Last-Event-ID") or 0) + 1

        def items():
            for n in range(first, first + 100000):
                yield 'id: %d\ndata: {"tick": %d}\n\n' % (n, n)
                time.sleep(0.02)
        return stream("ticks", items, "text/event-stream")

    @app.route("/broken.jsonl")
    def broken_lines():
        return stream("broken.jsonl", lambda: iter([
            '{"n": 1}\n', 'not JSON\n', '{"n": 3}\n',
            'error: {"detail": "The database went away."}\n']))

    @app.route("/broken.sse")
    def broken_events():
        return stream("broken.sse", lambda: iter([
            'data: {"n": 1}\n\n', 'event: error\ndata: {"detail": "an event named error"}\n\n',
            'event: stream-error\ndata: {"detail": "The database went away."}\n\n']),
                      "text/event-stream")

    @app.route("/all-good.jsonl")
    def all_good():
        return stream("all-good", lambda: iter(['{"n": 1}\n', '{"detail": "all good"}\n']))

    @app.route("/finishing.sse")
    def finishing():  # an end id: the stream's error event holds it, and it answers 204
        if request.headers.get("Last-Event-ID") == "end":
            app.seen.append(dict(request.headers, raw_id="end"))
            return flask.Response(status=204)
        return stream("finishing", lambda: iter([
            'id: 1\ndata: {"n": 1}\n\n',
            'event: stream-error\nid: end\ndata: {"detail": "The job failed."}\n\n']),
                      "text/event-stream")

    @app.route("/refused")
    def refused():  # the page, but not a second run: an error status, and its detail
        if len(app.seen) > 0:
            return flask.Response('{"detail": "Too many streams <b>open</b>."}', 429,
                                  mimetype="application/json")
        return stream("refused", lambda: iter(['{"n": 1}\n']))

    @app.route("/cut")
    def cut():
        def items():
            yield '{"n": 1}\n'
            app.gate.wait(10)
            raise RuntimeError("the server fell over")
        return stream("cut", items)

    @app.route("/ids.sse")
    def ids():  # an id of the query's choosing, as bytes; after it, one more event
        if request.headers.get("Last-Event-ID"):
            return stream("ids", lambda: iter(['data: "after"\n\n']), "text/event-stream")
        raw = {"euro": "\u20acuro".encode("utf-8"), "bad": b"\xffbad"}[request.args["id"]]
        return stream("ids", lambda: iter([b"retry: 10\nid: " + raw + b'\ndata: "first"\n\n']),
                      "text/event-stream")

    @app.route("/hostile.sse")
    def hostile():
        return stream("hostile.sse", lambda: iter([
            'event: <img src=x onerror="window.__pwned=1">\nid: </script><script>window.__pwned'
            '=2</script>\ndata: {"html": "<img src=x onerror=\\"window.__pwned=3\\">"}\n\n',
            'data: </script><img src=x onerror="window.__pwned=4">\n\n']), "text/event-stream")
    return app


@pytest.fixture
def stream_site(live_site):
    app = _live_stream_app()
    yield live_site.serve(app), app
    app.gate.set()  # a server thread still waiting lets go


def _stream_line(tab):
    return tab.locator("pre.response .stream-line")


def _open(tab, path):
    """Go to a stream's page: its load ends only with the stream, so wait for its start."""
    tab.goto(path, wait_until="commit")


def _wait_for(condition, seconds=10):
    """Poll a condition of the server's (a thread's doing, which sends no event here)."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


# (byte pieces, lines): UTF-8 and CR LF split across pieces, a BOM at the start only; a line
# of the page ends at LF or CR LF (a lone CR is part of it)
_LINE_CASES = [
    ([b"\xef\xbb\xbfa\n", b"b\r\nc\rd"], ["a", "b", "c\rd"]),
    ([b"a\r", b"\nb\r", b"", b"\n"], ["a", "b"]),  # CR LF split: one line end, not two
    ([b"\xc3", b"\xa9\xe2\x82", b"\xac\n"], ["\u00e9\u20ac"]),
    ([b"\xef\xbb", b"\xbfx\n\xef\xbb\xbfy\n"], ["x", "\ufeffy"]),
    ([b"lo", b"ng", b" line"], ["long line"]),  # at the end, the last line unended
]


def _job_app():
    """/ (where the user stores a header, or signs in with a bearer token); /jobs/start?target=x:
    a stream with a side effect, as a view that starts a job is. ``app.runs``: the
    Authorization of each run."""
    app = FlaskAPI(__name__)
    app.config["OPENAPI_SECURITY_SCHEMES"] = {"token": {"type": "http", "scheme": "bearer"}}
    app.runs = []

    @app.route("/")
    def jobs():
        return {"start": url_for("start_job", target="x", _external=True)}

    @app.route("/jobs/start")
    def start_job():
        app.runs.append(request.headers.get("Authorization"))
        return flask.Response(iter(['{"started": "%s"}\n' % request.args["target"],
                                    '{"done": true}\n']), mimetype="application/jsonl")
    return app


# How another site (or the user) sends the tab to a stream's URL: a link there, a script of
# its own (location.href, window.open), or the user typing it.
STREAM_SENDS = {
    "a link": "document.addEventListener('DOMContentLoaded', () => { const link = "
              "document.createElement('a'); link.href = TARGET; link.textContent = 'go'; "
              "document.body.append(link); })",
    "location.href": "location.href = TARGET",
    "window.open": "window.open(TARGET)",
    "a typed URL": None,
}


# The tab's memory under a stream that would fill it (#37): the ceilings README states.
_HEAP_CEILING = 64 * 1024 * 1024  # JavaScript's heap and the DOM's (V8 and Oilpan), used
_RENDERER_CEILING = 320 * 1024 * 1024  # the tab's renderer process's resident memory


@pytest.fixture(scope="module")
def memory_chromium(chromium):
    """A Chromium of its own, whose one page renderer is that of the one tab a test opens."""
    browser = chromium.browser_type.launch(
        executable_path=_find_chromium(), headless=True,
        args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-features=SpareRendererForSitePerProcess"])  # no renderer in waiting
    yield browser
    browser.close()


def _heavy_stream_app():
    """A plain Flask app under BrowsableAPI: /line, a 100 MB line without end (JSON Lines);
    /blobs, 512 KiB items without end; /big, one valid item of 20 MB."""
    app = Flask(__name__)
    BrowsableAPI(app)
    app.closed = []

    def stream(name, pieces):
        def run():
            try:
                yield from pieces
            finally:
                app.closed.append(name)
        return flask.Response(run(), mimetype="application/jsonl")

    @app.route("/line")
    def line():
        return stream("line", (b"x" * 1024 * 1024 for _ in range(100)))

    @app.route("/blobs")
    def blobs():
        blob = ('{"blob": "' + "x" * (512 * 1024 - 13) + '"}\n').encode("ascii")
        return stream("blobs", itertools.repeat(blob))

    @app.route("/big")
    def big():
        numbers = ",".join(["1234567890"] * 100000)  # 1.1 MB
        return stream("big", itertools.chain([b'{"items": ['], (numbers.encode() + b","
                                                              for _ in range(18)),
                                              [numbers.encode() + b"]}\n"]))
    return app


def _flood_app():
    """A plain Flask app under BrowsableAPI: /flood.jsonl and /flood.sse, 1,000,000 small
    events in pieces of 1,000, as a busy feed's server buffers them; the events have ids, and
    go on after the Last-Event-ID sent. ``app.read``: the events the server has made so far."""
    app = Flask(__name__)
    BrowsableAPI(app)
    app.read = 0
    frames = {"jsonl": '{{"n": {0}}}\n', "sse": 'id: {0}\ndata: {{"n": {0}}}\n\n'}

    @app.route("/flood.<kind>")
    def flood(kind):
        first = int(request.headers.get("Last-Event-ID") or -1) + 1
        def pieces():
            for at in range(first, 1000000, 1000):
                app.read = at + 1000 - first
                yield "".join(frames[kind].format(n) for n in range(at, min(at + 1000, 1000000)))
        return flask.Response(pieces(), mimetype={"jsonl": "application/jsonl",
                                                  "sse": "text/event-stream"}[kind])
    return app


def _tab_memory(tab):
    """The tab's memory now, after a garbage collection: (heap, DOM nodes, renderer RSS),
    the RSS None where /proc cannot tell it."""
    cdp = tab.context.new_cdp_session(tab)
    try:
        cdp.send("HeapProfiler.collectGarbage")
        heap = cdp.send("Runtime.getHeapUsage")
        nodes = cdp.send("Memory.getDOMCounters")["nodes"]
    finally:
        cdp.detach()
    browser = tab.context.browser.new_browser_cdp_session()
    try:
        processes = browser.send("SystemInfo.getProcessInfo")["processInfo"]
    finally:
        browser.detach()
    rss = 0
    for process in processes:  # the tab's renderer: not the browser's own UI's
        try:
            with open("/proc/{}/cmdline".format(process["id"])) as command:
                ui = "--top-chrome-webui" in command.read()
            with open("/proc/{}/status".format(process["id"])) as status:
                rss += (process["type"] == "renderer" and not ui) * int(re.search(
                    r"VmRSS:\s+([0-9]+) kB", status.read()).group(1)) * 1024
        except (OSError, AttributeError):
            return heap["usedSize"] + heap.get("embedderHeapUsedSize", 0), nodes, None
    return heap["usedSize"] + heap.get("embedderHeapUsedSize", 0), nodes, rss


def _within_ceilings(memory):
    heap, nodes, rss = memory
    assert heap < _HEAP_CEILING, "heap {:,}".format(heap)
    assert nodes < 20000, nodes
    assert rss is None or rss < _RENDERER_CEILING, "renderers {:,}".format(rss)


def _items_counted(tab):
    """The items a stream's line counts; 0 before it is drawn (Resume's new line is empty until
    its first frame, which a loaded machine can be slow to give)."""
    found = re.search(r"([0-9,]+) items?", _stream_line(tab).text_content())
    return int(found.group(1).replace(",", "")) if found else 0


class TestStreams:
    """A view's generator in each format, on real servers and clients; its page, live."""

    def test_flask_sses_published_tests_pass_unchanged_with_its_app_under_browsable_api(self,
                                                                                        tmp_path):
        _optional("flask_sse"), _optional("pytest_mock")
        status, output = _run_published_tests(_published_tests(tmp_path, "Flask-SSE==1.0.0"))
        assert status == 0 and "20 passed" in output, output
        assert "apps wrapped with BrowsableAPI: 14" in output, output  # each test's app

    def test_flask_streams_published_tests_pass_unchanged_with_its_app_under_browsable_api(
            self, tmp_path):
        _optional("flask_stream")
        status, output = _run_published_tests(_published_tests(tmp_path, "Flask-Stream==1.2.1"))
        assert status == 0 and "5 passed" in output, output
        assert "apps wrapped with BrowsableAPI: 2" in output, output

    @pytest.mark.parametrize("accept", [None, "text/event-stream"])
    def test_flask_sse_streams_from_redis_as_its_documentation_says_under_browsable_api(
            self, redis_url, accept):
        """Over a real server, what Flask-SSE's documentation shows its client gets, byte for
        byte, with and without BrowsableAPI; a browser gets a page instead."""
        sent = []
        for browsable in (False, True):
            app, sse = _flask_sse_app(redis_url, browsable)
            site, channel = _LiveSite(), "channel-{}".format(_token())
            try:
                conn = http.client.HTTPConnection("127.0.0.1", site.server.server_port, timeout=10)
                site.serve(app)
                conn.request("GET", "/stream?channel=" + channel,
                             headers={"Accept": accept} if accept else {})
                deadline = time.monotonic() + 10
                with app.app_context():  # published once the stream listens: what it gets
                    while not sse.redis.pubsub_numsub(channel)[0][1]:
                        assert time.monotonic() < deadline, "the stream never subscribed"
                        time.sleep(0.01)
                    sse.publish({"message": "Hello!"}, type="greeting", channel=channel)
                answer = conn.getresponse()
                sent.append((answer.status, answer.getheader("Content-Type"),
                             answer.read(len(b'event:greeting\ndata:{"message": "Hello!"}\n\n'))))
                conn.close()
            finally:
                site.close()
        assert sent[0] == sent[1] == (200, "text/event-stream; charset=utf-8",
                                      b'event:greeting\ndata:{"message": "Hello!"}\n\n')
        page = _flask_sse_app(redis_url, True)[0].test_client().get(
            "/stream", headers={"Accept": BROWSER_ACCEPT}, buffered=False)
        assert (page.status_code, page.mimetype) == (200, "text/html")
        assert _first_bytes(page).startswith(b"<!DOCTYPE html>")

    def test_flask_streams_job_events_reach_api_clients_raw_and_a_browser_as_a_page(self):
        flask_stream = _optional("flask_stream")
        from flask_stream.jobs import create_job, finish_job, push_event
        app = Flask(__name__)
        flask_stream.Stream(app)
        BrowsableAPI(app)
        client, job = app.test_client(), create_job()
        push_event(job, "Progress", {"percent": 50})
        finish_job(job)
        assert client.get("/stream/events/" + job).data == (
            b'event: Progress\ndata: {"percent": 50}\n\nevent: close\ndata: {}\n\n')
        job = create_job()
        page = client.get("/stream/events/" + job, headers={"Accept": BROWSER_ACCEPT},
                          buffered=False)
        assert (page.status_code, page.mimetype) == (200, "text/html")
        assert _first_bytes(page).startswith(b"<!DOCTYPE html>")

    def test_a_streams_first_item_arrives_while_the_view_waits_to_make_the_second(self,
                                                                                  stream_server):
        token = "go-{}".format(random.random())
        conn, resp = stream_server.get("/paced/" + token, "application/jsonl")
        try:
            started = time.monotonic()
            assert json.loads(resp.readline()) == {"first": True}  # the view is waiting now
            assert time.monotonic() - started < 5, "the first item waited for the second"
            stream_server.signal(token)
            assert _lines(resp.read()) == [{"waited": True}]
            assert resp.getheader("Content-Length") is None
        finally:
            conn.close()

    def test_a_100000_item_stream_arrives_whole_in_each_format(self, stream_server):
        expected = [{"n": n, "text": "item {}".format(n)} for n in range(100000)]
        status, content_type, body = stream_server.read("/many")
        assert (status, content_type) == (200, "application/json")
        assert json.loads(body) == expected
        assert _lines(stream_server.read("/many", "application/jsonl")[2]) == expected
        events = _events(stream_server.read("/many", "text/event-stream")[2])
        assert [json.loads(data) for _, data in events] == expected

    def test_a_client_that_goes_away_closes_the_streams_generator(self, stream_server):
        token = "gone-{}".format(random.random())
        conn, resp = stream_server.get("/endless/" + token, "application/jsonl")
        assert json.loads(resp.readline()) == 0
        conn.socket.shutdown(socket.SHUT_RDWR)  # as a closed tab or a killed curl does
        conn.socket.close()
        resp.close()
        assert stream_server.wait_closed(token), "the generator's finally never ran"

    def test_head_of_a_stream_has_its_type_and_no_body_and_closes_the_generator(self,
                                                                                stream_server):
        token = "head-{}".format(random.random())
        assert stream_server.read("/endless/" + token, "text/event-stream", "HEAD") == (
            200, "text/event-stream", b"")
        assert stream_server.wait_closed(token)
        assert stream_server.read("/values", None, "HEAD") == (200, "application/json", b"")

    @pytest.mark.parametrize("accept, query, content_type", [
        (None, "", "application/json"),
        ("*/*", "", "application/json"),
        ("application/jsonl", "", "application/jsonl"),
        ("application/x-ndjson", "", "application/x-ndjson"),
        ("text/event-stream", "", "text/event-stream"),
        ("application/x-ndjson;q=0.5, text/event-stream", "", "text/event-stream"),
        (BROWSER_ACCEPT, "?format=jsonl", "application/jsonl"),
        (None, "?format=ndjson", "application/x-ndjson"),
        (None, "?format=sse", "text/event-stream"),
        ("text/event-stream", "?format=json", "application/json"),
    ])
    def test_each_stream_format_is_negotiated_and_carries_every_value_exactly(
            self, stream_server, accept, query, content_type):
        status, got_type, body = stream_server.read("/values" + query, accept)
        assert (status, got_type) == (200, content_type)
        if content_type == "application/json":
            values = json.loads(body)
        elif content_type == "text/event-stream":
            events = _events(body)
            assert body.count(b"data: ") == len(_STREAM_VALUES)  # each value one data line
            values = [json.loads(data) for _, data in events]
        else:
            assert body.count(b"\n") == len(_STREAM_VALUES)
            values = _lines(body)
        assert values == _STREAM_VALUES
        assert b"18446744073709551616" in body and b"-1180591620717411303424" in body

    @pytest.mark.parametrize("accept", [None, BROWSER_ACCEPT, "application/json", "image/png"])
    def test_flasks_streaming_examples_send_over_a_server_what_plain_flask_sends_byte_for_byte(
            self, stream_server, accept):
        for path in _FLASK_EXAMPLES:
            mine = _over_socket(stream_server.port, path, accept)
            assert mine == _over_socket(stream_server.port, "/plain" + path, accept), path
            assert re.match(rb"HTTP/1\.[01] 20",
                            mine) and b"[" not in mine.partition(b"\r\n\r\n")[2]

    def test_a_stream_accept_nothing_satisfies_is_a_406_and_the_generator_closed(self,
                                                                                 stream_server):
        token = "unread-{}".format(random.random())
        status, content_type, body = stream_server.read("/endless/" + token, "image/png")
        assert (status, json.loads(body)) == (406, {
            "detail": "Could not satisfy the request Accept header."})
        # Its first item was made (it tells a JSON stream from Flask's own), then it was closed.
        assert stream_server.wait_closed(token)

    @pytest.mark.parametrize("accept, body", [
        (None, b'[{"before": true}'),  # unterminated: no parser takes it for the whole
        ("application/jsonl", b'{"before": true}\nerror: ' + _A_500 + b"\n"),  # not JSON
        ("application/x-ndjson", b'{"before": true}\nerror: ' + _A_500 + b"\n"),
        ("text/event-stream", b'data: {"before": true}\n\ndata: ' + _A_500 +
         b"\nevent: stream-error\nid: flask-api:end\n\n"),
    ])
    def test_an_error_mid_stream_ends_it_as_each_format_can_say_and_is_logged(
            self, stream_server, accept, body):
        assert stream_server.read("/failing", accept)[::2] == (200, body)
        deadline = time.monotonic() + 5  # gunicorn writes its log from the worker, a bit later
        while ("the database went away" not in stream_server.logged()
               and time.monotonic() < deadline):
            time.sleep(0.02)
        log = stream_server.logged()
        assert "Exception in the stream of /failing [GET]" in log
        assert "RuntimeError: the database went away" in log and "Traceback" in log

    @pytest.mark.parametrize("app_json", ["", "/utf8"])
    @pytest.mark.parametrize("accept", ["application/jsonl", "application/x-ndjson"])
    def test_json_lines_keep_each_item_on_its_line_for_every_line_reader(
            self, stream_server, app_json, accept):
        jsonlines, ndjson, requests = (_optional(name) for name in ("jsonlines", "ndjson",
                                                                    "requests"))
        url = "http://127.0.0.1:{}{}/line-ends".format(stream_server.port, app_json)
        body = stream_server.read(app_json + "/line-ends", accept)[2]
        text = body.decode("utf-8")
        assert [json.loads(line) for line in text.splitlines()] == _LINE_END_ITEMS
        assert ndjson.loads(text) == _LINE_END_ITEMS
        conn, resp = stream_server.get(app_json + "/line-ends", accept)
        with contextlib.closing(conn), jsonlines.Reader(resp) as reader:  # from the socket
            assert list(reader) == _LINE_END_ITEMS
        for decode in (True, False):
            with requests.get(url, headers={"Accept": accept}, stream=True, timeout=10) as answer:
                lines = list(answer.iter_lines(decode_unicode=decode))
            assert [json.loads(line) for line in lines] == _LINE_END_ITEMS, decode
        if app_json:  # the app's JSON is not ASCII: only what line readers split is escaped
            assert "ünïcødé \\u2028 😀" in text and "\\u0085" in text
        else:
            assert body.decode("ascii") and "\\u00fcn\\u00efc\\u00f8d\\u00e9" in text

    def test_stream_items_follow_the_apps_ensure_ascii_and_sort_keys(self):
        app = FlaskAPI(__name__)

        @app.route("/items")
        def items():
            yield {"b": "ü\u2028", "a": 1}

        client = app.test_client()
        assert client.get("/items?format=jsonl").data == b'{"a": 1, "b": "\\u00fc\\u2028"}\n'
        assert client.get("/items").data == b'[{"a": 1, "b": "\\u00fc\\u2028"}]'
        _json_settings(app, ensure_ascii=False, sort_keys=False)
        assert client.get("/items?format=ndjson").data == '{"b": "ü\\u2028", "a": 1}\n'.encode()
        assert client.get("/items?format=sse").data == (
            'data: {"b": "ü\\u2028", "a": 1}\n\n'.encode())

    @pytest.mark.parametrize("then, last", [("end", _END), ("error", _ERROR)])
    def test_httpx_sse_and_sseclient_read_every_field_and_a_reconnection_after_the_end_is_a_204(
            self, stream_server, then, last):
        httpx, httpx_sse = _optional("httpx"), _optional("httpx_sse")
        requests = _optional("requests")
        sseclient = _optional("sseclient")
        token = _token()
        url = "{}/events/{}?then={}".format(stream_server.url, token, then)
        with httpx.Client(timeout=10) as client, httpx_sse.connect_sse(client, "GET",
                                                                       url) as source:
            events = list(source.iter_sse())
        assert [(event.event, event.json(), event.id) for event in events] == _ticks(1, 3) + [last]
        assert [event.retry for event in events] == [100, 100, 100, None]
        with requests.get(url, stream=True, timeout=10, headers={  # as sseclient-py's README
                "Accept": "text/event-stream"}) as response:
            events = list(sseclient.SSEClient(response).events())
        assert [(event.event, json.loads(event.data), event.id) for event in events] == (
            _ticks(1, 3) + [last])
        # Reconnecting as httpx-sse's documentation shows, with the last id seen: nothing more.
        with httpx.Client(timeout=10) as client:
            again = client.get(url, headers={"Last-Event-ID": events[-1].id})
        assert (again.status_code, again.content) == (204, b"")
        assert stream_server.records(token) == 2 * (
            ["connect -", "run -", "sent 1", "sent 2", "sent 3"]) + ["connect flask-api:end"]

    @pytest.mark.parametrize("then, last", [("end", _END), ("error", _ERROR)])
    def test_requests_sse_resumes_after_a_plain_end_and_stops_at_the_end_said(
            self, stream_server, then, last):
        requests_sse = _optional("requests_sse")
        token, got = _token(), []
        url = "{}/events/{}?batch=2&total=5&then={}".format(stream_server.url, token, then)
        with pytest.raises(requests_sse.InvalidStatusCodeError) as stopped, \
                requests_sse.EventSource(url, timeout=10) as source:
            for event in source:  # it reconnects by itself: after each plain end, then 204
                got.append((event.type, json.loads(event.data), event.last_event_id))
                assert len(got) <= 6, "events sent again"
        assert stopped.value.status_code == 204
        assert got == _ticks(1, 5) + [last]  # each once: resumed from the last id, no replay
        assert stream_server.records(token) == [
            "connect -", "run -", "sent 1", "sent 2", "connect 2", "run 2", "sent 3", "sent 4",
            "connect 4", "run 4", "sent 5", "connect flask-api:end"]

    def test_curl_reads_each_format_as_it_comes(self, stream_server):
        curl = shutil.which("curl")
        if not curl:
            pytest.skip("curl is not installed")

        def fetch(path, accept):
            return subprocess.run([curl, "-sSN", "-H", "Accept: " + accept,
                                   stream_server.url + path],
                                  stdout=subprocess.PIPE, check=True, timeout=30).stdout
        token = _token()
        assert fetch("/events/{}?then=end".format(token), "text/event-stream") == (
            b'data: {"n": 1, "text": "tick\\u2028"}\nevent: tick\nid: 1\nretry: 100\n\n'
            b'data: {"n": 2, "text": "tick\\u2028"}\nevent: tick\nid: 2\nretry: 100\n\n'
            b'data: {"n": 3, "text": "tick\\u2028"}\nevent: tick\nid: 3\nretry: 100\n\n'
            b"data: null\nevent: stream-end\nid: flask-api:end\n\n")
        assert fetch("/events/{}?then=error".format(token), "application/jsonl").endswith(
            b'{"n": 3, "text": "tick\\u2028"}\nerror: ' + _A_500 + b"\n")

    @pytest.mark.parametrize("accept", ["application/jsonl", "application/x-ndjson"])
    def test_json_lines_readers_never_take_the_error_line_for_an_item_nor_a_last_detail_for_one(
            self, stream_server, accept):
        jsonlines, ndjson = _optional("jsonlines"), _optional("ndjson")
        conn, resp = stream_server.get("/failing", accept)
        with contextlib.closing(conn), jsonlines.Reader(resp) as reader:
            assert reader.read() == {"before": True}
            with pytest.raises(jsonlines.InvalidLineError):  # the error line: not an item
                reader.read()
        with pytest.raises(ValueError):  # nor is the stream read as a whole one
            ndjson.loads(stream_server.read("/failing", accept)[2].decode())
        body = stream_server.read("/all-good", accept)[2]
        assert ndjson.loads(body.decode()) == [{"n": 1}, {"detail": "all good"}]
        assert not re.search(rb"(^|\n)error: ", body)

    def test_stream_write_timeout_frees_the_thread_a_client_that_stops_reading_holds(
            self, stream_server):
        if not json.loads(stream_server.read("/socket")[2])["socket"]:
            pytest.skip("this server does not hand the app its socket (werkzeug before 2.0)")
        token = _token()
        sock, asked = _never_read(stream_server.port, "/bounded/unread/" + token)
        try:
            assert stream_server.wait_closed(token), "the stream was never let go"
            assert time.monotonic() - asked >= 1  # not before its timeout
            assert stream_server.read("/values", "application/jsonl")[0] == 200
        finally:
            sock.close()

    def test_stream_write_timeout_is_the_sockets_only_while_its_stream_is_sent(self, tmp_path):
        class Socket:  # what the server hands over in the environ
            timeouts = [None]

            def gettimeout(self):
                return self.timeouts[-1]

            def settimeout(self, seconds):
                self.timeouts.append(seconds)

        app, sock = _stream_app(str(tmp_path)), Socket()
        client = app.test_client()
        for path in ("/bounded/no-such-stream", "/values"):  # no stream; no timeout set
            client.get(path, environ_base={"werkzeug.socket": sock}).close()
        assert sock.timeouts == [None]
        bounded = client.get("/bounded/unread/t", environ_base={"gunicorn.socket": sock},
                             buffered=False)
        assert sock.timeouts == [None, 1]
        bounded.close()
        assert sock.timeouts == [None, 1, None]

    def test_stream_write_timeout_frees_a_gunicorn_sync_worker_before_its_own_timeout(self,
                                                                                      tmp_path):
        """gunicorn's sync worker, one request at a time, is held by a client that does not
        read until the arbiter kills it at --timeout; STREAM_WRITE_TIMEOUT lets it go first."""
        if not os.path.exists(GUNICORN):
            pytest.skip("gunicorn is not installed")
        signals, log, token = str(tmp_path), str(tmp_path / "gunicorn.log"), _token()
        with open(log, "w") as out:
            proc = subprocess.Popen(
                [GUNICORN, "--workers", "1", "--worker-class", "sync", "--timeout", "30",
                 "--bind", "127.0.0.1:0", "test_all:_stream_app({!r})".format(signals)],
                cwd=NOTES_DIR, env=dict(os.environ, XDG_RUNTIME_DIR=signals),
                stdout=out, stderr=subprocess.STDOUT)
        try:
            server = _StreamServer("gunicorn", signals, _wait_for_gunicorn(proc, log, 1), None)
            sock, asked = _never_read(server.port, "/bounded/unread/" + token)
            try:
                assert server.wait_closed(token), "the stream was never let go"
                assert server.read("/values", "application/jsonl")[0] == 200  # the same worker
                assert time.monotonic() - asked < 15 and "WORKER TIMEOUT" not in _read(log)
            finally:
                sock.close()
        finally:
            _stop(proc)

    def test_stream_with_context_keeps_the_request_inside_the_generator(self, stream_server):
        status, _, body = stream_server.read("/contextual?q=%C3%BC", "application/jsonl")
        assert (status, _lines(body)) == (200, [{"q": "ü"}, {"path": "/contextual"}])

    def test_an_abort_before_the_first_item_is_an_ordinary_error_response(self, stream_server):
        status, content_type, body = stream_server.read("/missing", "text/event-stream")
        assert (status, content_type) == (404, "application/json")
        assert json.loads(body) == {"detail": WerkzeugNotFound().description}  # as abort(404)

    @pytest.mark.parametrize("path", _FLASK_EXAMPLES)
    @pytest.mark.parametrize("accept", [None, BROWSER_ACCEPT, "*/*", "text/event-stream"])
    def test_flasks_streaming_examples_send_what_plain_flask_sends_to_every_client(
            self, tmp_path, path, accept):
        client = _stream_app(str(tmp_path)).test_client()
        headers = {"Accept": accept} if accept else {}
        sent = []
        for prefix in ("", "/plain"):  # each read before the next request, as Flask needs
            response = client.get(prefix + path, headers=headers)
            sent.append((response.status, response.headers, response.get_data()))
        assert sent[0] == sent[1]
        assert b"[" not in sent[0][2]  # not a JSON array of them

    def test_a_stream_of_text_keeps_its_status_headers_and_flasks_default_type(self):
        app = FlaskAPI(__name__)

        @app.route("/text")
        def text():
            return (part for part in ["a", "b"]), 201, {"X-Job": "7"}

        response = app.test_client().get("/text", headers={"Accept": "application/json"})
        assert (response.status_code, response.data) == (201, b"ab")
        assert response.headers["X-Job"] == "7"
        assert response.content_type == "text/html; charset=utf-8"
        assert "Vary" not in response.headers and "X-Accel-Buffering" not in response.headers

    def test_a_stream_of_json_values_with_a_content_type_of_the_views_is_refused_before_it_is_sent(
            self, caplog):
        app, closed = FlaskAPI(__name__), []

        @app.route("/typed")
        def typed():
            try:
                yield {"n": 1}
            finally:
                closed.append(True)

        app.view_functions["typed"] = lambda view=typed: (view(), {"Content-Type": "text/csv"})
        response = app.test_client().get("/typed")
        assert response.status_code == 500 and closed == [True]
        assert "yield str or bytes to send your own format" in caplog.text

    def test_a_stream_in_a_tuple_keeps_its_status_and_headers_and_tells_proxies_not_to_buffer(self):
        app, _ = _streams_app()
        client = app.test_client()
        events = client.get("/created", headers={"Accept": "text/event-stream"})
        assert (events.status_code, events.data) == (201, b"data: 1\n\ndata: 2\n\n")
        assert events.headers["X-Job"] == "7" and events.headers["X-Accel-Buffering"] == "no"
        assert events.headers["Cache-Control"] == "max-age=5"  # the view's own wins
        assert events.headers["Vary"] == "Accept"
        assert client.get("/items?format=sse").headers["Cache-Control"] == "no-cache"
        assert client.get("/empty").data == b"[]" and client.get("/empty?format=jsonl").data == b""

    def test_stream_items_are_written_with_the_apps_json_settings(self):
        app, _ = _streams_app()
        assert app.test_client().get("/items?format=jsonl").data == (
            b'{"a": "Wed, 25 Nov 2026 00:00:00 GMT", "b": 1}\n')  # sorted, dates as Flask's
        if hasattr(app, "json"):  # Flask 2.2+: the app's own provider
            class Provider(flask.json.provider.DefaultJSONProvider):
                def dumps(self, obj, **kwargs):
                    return json.dumps(obj, default=lambda value: value.isoformat(), **kwargs)
            app.json = Provider(app)
            assert app.test_client().get("/items?format=jsonl").data == (
                b'{"b": 1, "a": "2026-11-25"}\n')

    def test_an_item_that_cannot_be_json_ends_the_stream_with_an_error(self, caplog):
        app, _ = _streams_app()
        response = app.test_client().get("/bad", headers={"Accept": "application/jsonl"})
        assert response.data == b"1\nerror: " + _A_500 + b"\n"
        assert any("Exception in the stream of /bad [GET]" in record.getMessage()
                   and record.exc_info for record in caplog.records)

    def test_an_api_error_before_the_first_item_keeps_its_status_and_detail(self):
        app, _ = _streams_app()
        response = app.test_client().get("/not-found?format=jsonl")
        assert (response.status_code, response.get_json()) == (404, {"detail": "No such job."})

    def test_a_bare_generator_is_json_items_but_a_response_of_one_streams_raw_as_in_flask(self):
        app, _ = _streams_app()
        client = app.test_client()
        assert client.get("/raw").data == b"ab\n"
        assert client.get("/raw-context").data == b"/raw-context\n"
        if hasattr(Flask, "json_provider_class"):  # Flask 2.2+ streams an iterator of bytes
            assert client.get("/file").data == b"raw\nbytes"

    def test_a_write_that_names_its_stream_formats_streams_to_an_event_stream_client(self):
        app, _ = _streams_app()
        response = app.test_client().post("/post", data='"hi"', content_type="application/json",
                                          headers={"Accept": "text/event-stream"})
        assert (response.status_code, response.data) == (200, b'data: {"got": "hi"}\n\n')

    def test_server_sent_events_carry_their_fields_and_say_finished_with_the_reserved_id(self):
        app, _ = _events_app()
        client = app.test_client()
        assert client.get("/jobs/7/events", headers={"Accept": "text/event-stream"}).data == (
            b'data: {"job": 7, "step": 1}\nevent: progress\nid: 1\n\n'
            b'data: {"job": 7, "step": 2}\nevent: progress\nid: 2\n\n'
            b'data: {"job": 7, "step": 3}\nevent: progress\nid: 3\n\n'
            b"data: null\nevent: stream-end\nid: flask-api:end\n\n")
        assert flask_api.ServerSentEvent.END_ID == "flask-api:end"
        # The other formats write each event's data, and nothing for the end.
        assert client.get("/jobs/7/events?format=jsonl").data == (
            b'{"job": 7, "step": 1}\n{"job": 7, "step": 2}\n{"job": 7, "step": 3}\n')
        assert client.get("/jobs/7/events").get_json() == [
            {"job": 7, "step": step} for step in (1, 2, 3)]

    def test_an_event_streams_view_goes_on_after_the_last_event_id_it_is_sent(self):
        app, runs = _events_app()
        answer = app.test_client().get("/jobs/7/events", headers={
            "Accept": "text/event-stream", "Last-Event-ID": "2"})
        assert answer.data.startswith(b'data: {"job": 7, "step": 3}\nevent: progress\nid: 3\n\n')
        assert runs == ["2"]

    def test_a_reconnection_after_the_end_or_an_error_is_an_empty_204_before_the_generator_runs(
            self):
        app, runs = _events_app()
        client = app.test_client()
        for path in ("/jobs/7/events", "/failing"):
            answer = client.get(path, headers={"Accept": "text/event-stream",
                                               "Last-Event-ID": "flask-api:end"})
            assert (answer.status_code, answer.data) == (204, b"")
        assert runs == []  # neither generator ran

    def test_an_error_event_is_named_stream_error_and_carries_the_reserved_id(self, caplog):
        app, _ = _events_app()
        assert app.test_client().get("/failing?format=sse").data == (
            b'data: {"n": 1}\nid: 1\n\n'
            b'data: {"detail": "The job went away: \xc3\xbc\\u2028."}\nevent: stream-error\n'
            b"id: flask-api:end\n\n")
        assert app.test_client().get("/failing?format=jsonl").data == (
            b'{"n": 1}\nerror: {"detail": "The job went away: \xc3\xbc\\u2028."}\n')

    def test_a_normal_end_of_an_event_stream_stays_a_normal_end_that_clients_resume_from(self):
        app, _ = _streams_app()
        body = app.test_client().get("/created?format=sse").data
        assert body == b"data: 1\n\ndata: 2\n\n"  # no end said: EventSource reconnects

    @pytest.mark.parametrize("fields, error", [
        ({"id": "a\nb"}, ValueError), ({"id": "a\rb"}, ValueError), ({"id": "a\x00b"}, ValueError),
        ({"event": "tick\n"}, ValueError), ({"event": "a\rb"}, ValueError),
        ({"retry": -1}, ValueError), ({"retry": 1.5}, ValueError), ({"retry": True}, ValueError),
        ({"id": "flask-api:end"}, ValueError), ({"event": "stream-error"}, ValueError),
        ({"event": "stream-end"}, ValueError), ({"id": "\ud800"}, ValueError),
        ({"id": 1.5}, TypeError), ({"event": b"tick"}, TypeError),
    ])
    def test_an_event_the_standard_cannot_carry_is_refused_when_it_is_made(self, fields, error):
        with pytest.raises(error):
            flask_api.ServerSentEvent({"n": 1}, **fields)

    def test_an_events_id_may_be_any_text_a_line_holds_and_a_number(self):
        event = flask_api.ServerSentEvent([1], id="€uro:7 ", event="", retry=0)
        assert (event.id, event.event, event.retry) == ("€uro:7 ", "", 0)
        assert flask_api.ServerSentEvent(None, id=7).id == "7"
        assert repr(event) == "ServerSentEvent([1], id='€uro:7 ', event='', retry=0)"

    @pytest.mark.parametrize("sent, read", [
        (None, None), ("42", "42"), ("€uro".encode().decode("latin-1"), "€uro"),
        ("caf\xe9", "caf\xe9"),  # not UTF-8: as it came
    ])
    def test_last_event_id_is_the_header_an_eventsource_sends_in_utf_8(self, sent, read):
        app = FlaskAPI(__name__)
        with app.test_request_context(headers={"Last-Event-ID": sent} if sent else {}):
            assert request.last_event_id == read

    def test_browsers_get_the_page_of_any_apps_event_stream_with_its_items_read_once_and_closed(
            self):
        app, closed = Flask(__name__), []
        BrowsableAPI(app)

        class Events:  # a WSGI iterable: the server closes it when done with it
            def __iter__(self):
                yield b"data: 1\n\n"

            def close(self):
                closed.append(True)

        @app.route("/events")
        def events():
            return flask.Response(Events(), mimetype="text/event-stream",
                                  headers={"Cache-Control": "no-cache"})

        client = app.test_client()
        with client.get("/events", headers={"Accept": "text/html"}) as response:
            page, items, end = _streamed_page(response)
        assert response.mimetype == "text/html" and response.headers["Cache-Control"] == "no-store"
        assert response.headers["X-Flask-API-Page"] == "stream"
        assert "Cache-Control: no-cache" in page.response_text  # what an API client gets, listed
        assert 'data-stream="text/event-stream"' in page.html
        assert items == [("1", {})] and end["data-end"] == "ended"
        assert end["text"] == "Ended \u00b7 1 item \u00b7 9 bytes"
        assert '<a href="#api-items">below it</a>; or <a href="/events?format=sse">open the raw ' \
            'stream</a>' in page.html
        assert closed == [True]  # read once, and closed
        raw = client.get("/events?format=sse", headers={"Accept": "text/html"})
        assert raw.mimetype == "text/event-stream" and raw.data == b"data: 1\n\n"
        assert client.get("/events", headers={"Accept": "text/event-stream"}).data == b"data: 1\n\n"

    def test_a_generator_views_page_runs_it_once_with_its_items_in_it_as_events(self):
        app, started = _streams_app()
        with app.test_client().get("/items", headers={"Accept": BROWSER_ACCEPT}) as response:
            page, items, end = _streamed_page(response)
        assert response.status_code == 200 and response.mimetype == "text/html"
        assert 'data-stream="text/event-stream"' in page.html  # what Resume asks for
        assert '<a href="/items?format=sse">open the raw stream</a>' in page.html
        assert items == [('{"a": "Wed, 25 Nov 2026 00:00:00 GMT", "b": 1}', {})]
        assert started == [True]  # once: the page is the stream's only reader
        assert (end["data-end"], end["data-last-id"]) == ("ended", "")

    def test_a_stream_pages_first_item_arrives_while_the_view_waits_to_make_the_second(
            self, stream_server):
        token = "page-{}".format(random.random())
        conn, resp = stream_server.get("/paced/" + token, BROWSER_ACCEPT)
        try:
            started = time.monotonic()
            assert _first_item_line(resp) == b"<li>{&#34;first&#34;: true}</li>\n"  # it waits now
            assert time.monotonic() - started < 5, "the first item waited for the second"
            stream_server.signal(token)
            rest = resp.read()
            assert b"<li>{&#34;waited&#34;: true}</li>\n" in rest and rest.endswith(b"</html>\n")
        finally:
            conn.close()

    def test_a_browser_gone_mid_page_closes_the_streams_generator(self, stream_server):
        token = "page-gone-{}".format(random.random())
        conn, resp = stream_server.get("/endless/" + token, BROWSER_ACCEPT)
        assert _first_item_line(resp) == b"<li>0</li>\n"
        conn.socket.shutdown(socket.SHUT_RDWR)  # as a closed tab does
        conn.socket.close()
        resp.close()
        assert stream_server.wait_closed(token), "the generator's finally never ran"

    def test_a_stream_page_keeps_the_views_status_and_headers_and_its_own_stay_out_of_caches(self):
        app, _ = _streams_app()
        with app.test_client().get("/created", headers={"Accept": BROWSER_ACCEPT}) as response:
            page, items, _ = _streamed_page(response)
        assert response.status_code == 201 and [data for data, _ in items] == ["1", "2"]
        assert response.headers["X-Job"] == "7" and response.headers["X-Accel-Buffering"] == "no"
        assert response.headers["Cache-Control"] == "no-store"  # a page is a stream's moment
        assert "Cache-Control: max-age=5" in page.response_text  # what an API client gets
        assert "Content-Length" not in response.headers

    @pytest.mark.parametrize("text, events", _EVENT_CASES)
    def test_a_stream_page_reads_server_sent_events_as_the_html_standard_does(self, text, events):
        pieces = [text.encode("utf-8")[at:at + 3] for at in range(0, len(text.encode()), 3)]
        _, items, end = _streamed_page(_foreign_stream("text/event-stream", pieces).get(
            "/s", headers={"Accept": "text/html"}))
        assert items == [(event["data"], {name: event[name] for name in ("event", "id", "retry")
                                          if event[name]}) for event in events]
        assert end["data-last-id"] == ("42" if "42" in text else events[-1]["id"])

    def test_a_stream_page_splits_json_lines_only_where_json_lines_ends_a_line(self):
        text = '\ufeff{"a": "x\ry\u2028z\u0085"}\r\n\n  \n[1]\n{"unended": true}'
        pieces = [text.encode("utf-8")[at:at + 2] for at in range(0, len(text.encode()), 2)]
        _, items, end = _streamed_page(_foreign_stream("application/jsonl", pieces).get(
            "/s", headers={"Accept": "text/html"}))
        assert items == [('{"a": "x\ry\u2028z\u0085"}', {}), ("[1]", {}), ('{"unended": true}', {})]
        assert end["data-bytes"] == str(len(text.encode("utf-8")))

    @pytest.mark.parametrize("mimetype, pieces, shown, detail", [
        ("application/jsonl", ['{"n": 1}\n', '{"detail": "all good"}\n'],
         ['{"n": 1}', '{"detail": "all good"}'], None),  # data, however it looks
        ("application/jsonl", ['{"n": 1}\n', 'error: {"detail": "The database went away."}\n'],
         ['{"n": 1}'], "The database went away."),
        ("application/x-ndjson", ['error: {"detail": {"code": 12345678901234567891}}'],
         [], '{"code": 12345678901234567891}'),  # the last line, unended, and a detail not text
        ("application/jsonl", ['error: {"detail": "not last"}\n', '{"n": 2}\n'],
         ['error: {"detail": "not last"}', '{"n": 2}'], None),
        ("application/jsonl", ['error: "no detail"\n'], ['error: "no detail"'], None),
        ("text/event-stream", ['event: error\ndata: {"detail": "an event named error"}\n\n'],
         ['{"detail": "an event named error"}'], None),
        ("text/event-stream",
         ['data: 1\n\nevent: stream-error\nid: end\ndata: {"detail": "gone"}\n\n'],
         ["1"], "gone"),
        ("text/event-stream", ['event: stream-error\ndata: plain words\n\n'], [], "plain words"),
        ("text/event-stream", ['event: stream-error\ndata: {"detail": "x"}\n\n', 'data: 2\n\n'],
         ['{"detail": "x"}', "2"], None),
    ])
    def test_a_stream_page_ends_with_an_error_only_for_the_shape_no_item_can_take(
            self, mimetype, pieces, shown, detail):
        _, items, end = _streamed_page(_foreign_stream(mimetype, pieces).get(
            "/s", headers={"Accept": "text/html"}))
        assert [data for data, _ in items] == shown
        assert end["data-end"] == ("ended" if detail is None else "error")
        assert end.get("data-detail") == detail
        assert end["text"].startswith(
            "Ended with an error: " + detail if detail else "Ended \u00b7")
        if detail == "gone":
            assert end["data-last-id"] == "end"  # Resume sends it; the server answers 204

    def test_a_stream_page_cuts_an_item_past_its_size_says_so_and_counts_the_rest(self):
        big, most = 3 * 1024 * 1024, flask_api._ITEM_BYTES
        line = '{"blob":"' + "\u00e9" * (big // 2) + '"}'  # 2 bytes a character, after 9
        pieces = [line.encode("utf-8")[at:at + 65536] for at in range(0, len(line.encode()), 65536)]
        client = _foreign_stream("application/jsonl", pieces + [b"\n", b'{"after": 1}\n'])
        _, items, end = _streamed_page(client.get("/s", headers={"Accept": "text/html"}))
        (cut, fields), after = items
        assert fields == {"bytes": str(len(line.encode("utf-8")))}
        assert len(cut.encode("utf-8")) == most - 1 and line.startswith(cut)  # no character halved
        assert after == ('{"after": 1}', {})
        assert end["data-bytes"] == str(len(line.encode("utf-8")) + 14)
        client = _foreign_stream("text/event-stream", [b"id: 1\ndata: " + b"x" * most + b"\n",
                                                        b"data: y\n\n"])
        _, items, _ = _streamed_page(client.get("/s", headers={"Accept": "text/html"}))
        # the line's first bytes: "data: " and its value's, which the next line's joins past
        assert items == [("x" * (most - 6), {"id": "1", "bytes": str(most + 2)})]

    def test_a_stream_page_holds_a_line_without_end_to_its_cut_in_the_servers_memory(self):
        import tracemalloc
        chunk = b"x" * (1024 * 1024)
        client = _foreign_stream("application/jsonl", (chunk for _ in range(100)))
        tracemalloc.start()
        try:
            with client.get("/s", headers={"Accept": "text/html"}) as response:
                _, items, end = _streamed_page(response)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert items == [("x" * flask_api._ITEM_BYTES, {"bytes": str(100 * len(chunk))})]
        assert end["data-bytes"] == str(100 * len(chunk))
        assert peak < 12 * 1024 * 1024, peak  # 100 MB went through; a few pieces' worth is held

    def test_a_stream_page_the_browser_loads_ends_at_its_bytes_and_one_the_script_fetches_not(
            self, monkeypatch):
        monkeypatch.setattr(flask_api, "_PAGE_ITEMS_BYTES", 1024 * 1024)
        log, line, read = [], '"{}"\n'.format("x" * 1000), []

        def lines():  # as good as endless: 3,000 of them, 3 MB
            for n in range(3000):
                read.append(n)
                yield line
        client = _foreign_stream("application/jsonl", lines(), log)
        with client.get("/s", headers={"Accept": BROWSER_ACCEPT}) as response:
            _, items, end = _streamed_page(response)
        assert end["data-end"] == "full" and end["text"].startswith("Stopped: a page carries")
        assert 1000 < len(items) == len(read) < 1100  # the rest never read,
        assert log == ["ran", "closed"]  # and the generator closed
        log[:] = []
        client = _foreign_stream("application/jsonl", [line] * 3000, log)
        with client.get("/s", headers={"Accept": BROWSER_ACCEPT,
                                       "X-Flask-API-Page": "fetch"}) as response:
            _, items, end = _streamed_page(response)
        assert end["data-end"] == "ended" and len(items) == 3000  # the page's script reads all

    def test_a_stream_page_the_browser_loads_ends_at_its_items_and_resumes_from_its_last_one(
            self, monkeypatch):
        monkeypatch.setattr(flask_api, "_PAGE_ITEMS", 10)
        log = []
        events = "".join("id: {0}\ndata: {0}\n\n".format(n) for n in range(25))
        client = _foreign_stream("text/event-stream", [events, events], log)
        with client.get("/s", headers={"Accept": BROWSER_ACCEPT}) as response:
            _, items, end = _streamed_page(response)
        assert [data for data, _ in items] == [str(n) for n in range(10)]
        assert end["data-end"] == "full" and "10 items" in end["text"]
        assert end["data-last-id"] == "9"  # the last on the page: Resume misses none
        assert log == ["ran", "closed"]  # the second piece never read
        client = _foreign_stream("text/event-stream", [events], log)
        with client.get("/s", headers={"Accept": BROWSER_ACCEPT,
                                       "X-Flask-API-Page": "fetch"}) as response:
            _, items, end = _streamed_page(response)
        assert end["data-end"] == "ended" and len(items) == 25  # the page's script reads all

    def test_a_stream_pages_head_has_its_headers_no_body_and_closes_the_stream_unread(self):
        app, read, closed = Flask(__name__), [], []
        BrowsableAPI(app)

        class Events:  # a WSGI iterable: its close() says the page closed it
            def __iter__(self):
                read.append(True)
                yield b"data: 1\n\n"

            def close(self):
                closed.append(True)

        app.add_url_rule("/s", "s", lambda: flask.Response(Events(), mimetype="text/event-stream"))
        with app.test_client().head("/s", headers={"Accept": BROWSER_ACCEPT}) as response:
            assert (response.mimetype, response.data) == ("text/html", b"")
            assert response.headers["X-Flask-API-Page"] == "stream"
        assert (read, closed) == ([], [True])

    def test_a_stream_page_says_when_the_apps_stream_breaks_off_and_logs_why(self, caplog):
        def pieces():
            yield '{"n": 1}\n'
            raise RuntimeError("the database went away")
        log = []
        client = _foreign_stream("application/jsonl", pieces(), log)
        with client.get("/s", headers={"Accept": "text/html"}) as response:
            page, items, end = _streamed_page(response)
        assert items == [('{"n": 1}', {})] and end["data-end"] == "broke"
        assert end["text"].startswith("Broke off: the app's stream failed (the server's log")
        assert "database" not in page.html
        assert log == ["ran", "closed"]
        assert any("Exception in the stream of /s [GET]" in record.getMessage()
                   and record.exc_info for record in caplog.records)

    def test_a_stream_pages_escapes_its_items_data_and_fields_however_hostile(self):
        texts = HOSTILE_TEXTS + ["</ol><script>alert(1)</script>", "line\nbreak"]
        pieces = ["event: {}\nid: {}\ndata: {}\n\n".format(text, text, text)
                  for text in texts if "\n" not in text] + ["data: line\ndata: break\n\n"]
        with _foreign_stream("text/event-stream", pieces).get(
                "/s", headers={"Accept": "text/html"}) as response:
            page, items, _ = _streamed_page(response)
        _assert_inert(page)
        assert [data for data, _ in items] == [text for text in texts if "\n" not in text] + [
            "line\nbreak"]
        assert all(fields["event"] == data for data, fields in items[:-1])
        assert len(re.findall("\n<li[ >]", page.html)) == len(items)  # an item is a line of it
        with _foreign_stream("application/jsonl", [text + "\n" for text in HOSTILE_TEXTS]).get(
                "/s", headers={"Accept": "text/html"}) as response:
            page, items, _ = _streamed_page(response)
        _assert_inert(page)
        assert items == [(text, {}) for text in HOSTILE_TEXTS]  # data alone, without fields

    @pytest.mark.parametrize("flask_class", [FlaskAPI, Flask], ids=["FlaskAPI", "BrowsableAPI"])
    def test_a_stream_page_lists_headers_added_after_the_view_and_a_hook_may_compress_it(
            self, flask_class):
        app = flask_class(__name__)
        if flask_class is Flask:
            BrowsableAPI(app)

        @app.route("/s")
        def stream():
            return flask.Response(iter(['{"n": 1}\n']), mimetype="application/jsonl")

        @app.after_request
        def stamp(response):
            response.headers["X-Later"] = "stamped"
            if request.args.get("gzip"):
                response.set_data(gzip.compress(response.get_data()))
                response.headers["Content-Encoding"] = "gzip"
            return response
        client = app.test_client()
        with client.get("/s", headers={"Accept": BROWSER_ACCEPT}) as response:
            page, items, _ = _streamed_page(response)
        assert "X-Later: stamped" in page.response_text and items == [('{"n": 1}', {})]
        with client.get("/s?gzip=1", headers={"Accept": BROWSER_ACCEPT}) as response:
            html = gzip.decompress(response.get_data()).decode("utf-8")
        assert "<li>{&#34;n&#34;: 1}</li>" in html and "X-Later:" not in html

    def test_a_stream_page_of_an_apps_own_template_puts_its_items_last_in_its_body(self):
        class OwnPage(BrowsableAPIRenderer):
            template = ("{% extends base %}{% block content %}<h1>Acme</h1><pre class=response "
                        "data-url='{{ path }}' data-stream='{{ stream }}'><span class=body></span>"
                        "</pre>{% endblock %}")

        class Own(BrowsableAPIRenderer):
            template = "<!DOCTYPE html><title>Own</title><body><p>{{ title }}</p></body></html>"

        class Bare(BrowsableAPIRenderer):
            template = "<!DOCTYPE html><title>Bare</title><p>{{ title }}</p>"
        for renderer, ends in ((OwnPage, "</section>\n</body>\n</html>\n"),
                               (Own, "</section>\n</body></html>"), (Bare, "</section>\n")):
            app = FlaskAPI(__name__)
            app.config["DEFAULT_RENDERERS"] = [JSONRenderer, renderer]

            @app.route("/s")
            def stream():
                yield {"n": 1}
            with app.test_client().get("/s", headers={"Accept": BROWSER_ACCEPT}) as response:
                page, items, _ = _streamed_page(response)
            assert items == [('{"n": 1}', {})] and page.html.endswith(ends)

    def test_browser_shows_a_streams_first_item_while_the_server_waits_to_send_the_second(
            self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/slow")
            _expect(tab.locator(".item")).to_have_count(1)
            assert not app.gate.is_set()  # the server is still waiting
            _expect(tab.locator(".item .tree")).to_have_text("{\"n\": 12345678901234567891}")
            _expect(_stream_line(tab)).to_contain_text("Streaming\u2026 1 item \u00b7 HTTP 200")
            app.gate.set()
            _expect(tab.locator(".item")).to_have_count(2)
            _expect(_stream_line(tab)).to_contain_text(
                "Ended. 2 items \u00b7 HTTP 200 \u00b7 first byte")
            assert len(app.seen) == 1  # the view ran once: the page was the stream
            assert tab.locator("#api-items li").count() == 0  # each item read, and removed

    def test_browser_counts_a_100000_item_stream_and_keeps_only_the_last_1000_on_screen(
            self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/many")
            _expect(_stream_line(tab)).to_contain_text("Ended. 100,000 items (99,000 let go)",
                                                        timeout=30000)
            _expect(tab.locator(".item")).to_have_count(1000)
            _expect(tab.locator(".item").first.locator(".key")).to_have_text("#99001")
            _expect(tab.locator(".item").last).to_contain_text('"n": 99999')
            sent = sum(len('{"n": %d}\n' % n) for n in range(100000))
            assert "{:,} bytes".format(sent) in _stream_line(tab).text_content()  # each counted
            assert tab.locator("#api-items li").count() == 0  # each read, and removed

    def test_browser_stops_a_stream_which_the_server_sees_and_resumes_it_from_the_last_event_id(
            self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/ticks")
            _expect(tab.locator(".item")).not_to_have_count(0)
            for _ in range(30):  # the keyboard alone: Tab to Stop, past the page's other controls
                tab.keyboard.press("Tab")
                if tab.evaluate("document.activeElement.textContent") == "Stop":
                    break
            _expect(tab.get_by_role("button", name="Stop")).to_be_focused()
            tab.keyboard.press("Enter")
            _expect(_stream_line(tab)).to_contain_text("Stopped.")
            resume = tab.get_by_role("button", name="Resume")
            _expect(resume).to_be_focused()
            assert _wait_for(lambda: app.closed == ["ticks"])  # the server saw it go
            last = int(tab.locator(".item .key").last.text_content().split("id: ")[1])
            _expect(tab.locator(".stream-tools")).to_contain_text(
                "Resume asks for the events after id \u201c%d\u201d (Last-Event-ID)" % last)
            tab.keyboard.press("Enter")
            _expect(tab.locator(".item .key", has_text="id: %d " % (last + 2))).to_have_count(1)
            assert app.seen[-1]["Last-Event-Id"] == str(last) and len(app.seen) == 2
            _expect(tab.get_by_role("button", name="Stop")).to_be_focused()
            _expect(tab.locator(".item .key", has_text="id: %d " % (last + 1))).to_have_count(1)
            tab.get_by_role("button", name="Stop").click()  # a fetched stream, stopped: seen too
            assert _wait_for(lambda: app.closed == ["ticks", "ticks"])

    def test_browser_says_a_stream_ended_with_an_error_only_for_the_shape_no_item_can_take(
            self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/broken.jsonl")
            _expect(_stream_line(tab)).to_have_text(re.compile(
                r"^Ended with an error: The database went away\. 3 items \u00b7 HTTP 200"))
            _expect(tab.locator(".stream-line.error")).to_have_count(1)
            _expect(tab.locator(".item.error .key")).to_have_text(["#2 (not JSON)"])
            _expect(tab.locator(".item").nth(2)).to_contain_text('"n": 3')  # the stream went on
            _open(tab, "/broken.sse")
            _expect(_stream_line(tab)).to_contain_text(
                "Ended with an error: The database went away. 2 items")
            _expect(tab.locator(".item .key")).to_have_text(["#1", "#2 event: error"])
            _expect(tab.locator(".item.error")).to_have_count(0)  # an event named so: data
            _open(tab, "/all-good.jsonl")
            _expect(_stream_line(tab)).to_have_text(re.compile(r"^Ended\. 2 items"))
            _expect(tab.locator(".stream-line.error")).to_have_count(0)
            _expect(tab.locator(".item").last).to_contain_text('"detail": "all good"')
            _expect(tab.locator("#api-live")).to_contain_text("Ended. 2 items")

    def test_browser_resume_answered_204_says_plainly_that_the_stream_has_finished(
            self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/finishing.sse")
            _expect(_stream_line(tab)).to_contain_text(
                "Ended with an error: The job failed. 1 item")
            _expect(tab.locator(".stream-tools")).to_contain_text("after id \u201cend\u201d")
            tab.get_by_role("button", name="Resume").click()
            _expect(_stream_line(tab)).to_have_text(re.compile(
                r"^Finished: the stream has ended, and the server has nothing after it \(HTTP 204\)"
                r"\. 1 item \u00b7 HTTP 204"))
            _expect(tab.locator(".stream-line.error")).to_have_count(0)
            assert app.seen[-1]["raw_id"] == "end"
            _expect(tab.get_by_role("button", name="Resume")).to_be_enabled()

    def test_browser_reports_an_error_status_answering_resume_with_its_detail(
            self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/refused")
            _expect(_stream_line(tab)).to_contain_text("Ended. 1 item")
            tab.get_by_role("button", name="Resume").click()
            _expect(_stream_line(tab)).to_have_text(re.compile(
                r"^HTTP 429 [A-Za-z ]+: Too many streams <b>open</b>\. 0 items \u00b7 "
                r"HTTP 429 \u00b7 first byte in"))
            _expect(tab.locator(".stream-line.error")).to_have_count(1)
            _expect(tab.locator("#api-live")).to_contain_text(  # as werkzeug writes it
                re.compile("HTTP 429 too many requests", re.IGNORECASE))

    def test_browser_reports_a_stream_that_breaks_off_halfway(self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/cut")
            _expect(tab.locator(".item")).to_have_count(1)
            app.gate.set()
            _expect(_stream_line(tab)).to_have_text(re.compile(
                r"^Broke off: the app's stream failed \(the server's log says why\)\. 1 item "
                r"\u00b7 HTTP 200 \u00b7"))
            _expect(tab.locator(".stream-line.error")).to_have_count(1)
            _expect(tab.get_by_role("button", name="Resume")).to_be_enabled()
            assert app.closed == ["cut"]

    def test_browser_shows_hostile_event_data_and_fields_as_text_under_its_csp(self, chromium,
                                                                               stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            tab.add_init_script("window.__violations = []; document.addEventListener("
                                "'securitypolicyviolation', e => window.__violations.push("
                                "e.violatedDirective + ' ' + e.blockedURI))")
            errors = []
            tab.on("console", lambda message: errors.append(message.text)
                   if message.type == "error" else None)
            _open(tab, "/hostile.sse")
            _expect(_stream_line(tab)).to_contain_text("Ended. 2 items")
            _expect(tab.locator(".item .key").first).to_have_text(
                '#1 event: <img src=x onerror="window.__pwned=1"> id: </script>'
                '<script>window.__pwned=2</script>')
            _expect(tab.locator(".item").first.locator(".s")).to_have_text(
                '"<img src=x onerror=\\"window.__pwned=3\\">"')
            _expect(tab.locator(".item").last).to_contain_text(
                '</script><img src=x onerror="window.__pwned=4">')
            assert tab.locator("body img, body script").count() == 0
            assert tab.evaluate("window.__pwned") is None
            assert tab.evaluate("window.__violations") == [] and errors == []

    def test_browser_sends_the_stored_headers_with_the_stream_and_filters_and_copies_what_is_shown(
            self, chromium, stream_site):
        site, app = stream_site
        app.gate.set()
        with _open_tab(chromium, site, permissions=["clipboard-read", "clipboard-write"]) as tab:
            _open(tab, "/broken.jsonl")
            _add_header(tab, "X-Token", "s3cret")  # the page fetched again with it: the stream too
            _expect(_stream_line(tab)).to_contain_text("3 items")
            assert [seen.get("X-Token") for seen in app.seen] == [None, "s3cret"]
            tab.get_by_label("Filter items").fill('"n"')
            _expect(tab.locator(".stream-tools [role=status]")).to_have_text(
                "2 of the 3 items shown match.")
            _expect(tab.locator(".item:visible")).to_have_count(2)
            tab.get_by_role("button", name="Copy items").click()
            assert tab.evaluate("navigator.clipboard.readText()") == '{"n": 1}\n{"n": 3}\n'
            tab.locator("#api-curl").get_by_role("button", name="Copy as curl").click()
            command = tab.evaluate("navigator.clipboard.readText()")
            assert command == "curl '{}/broken.jsonl' -H 'X-Token: s3cret' -H 'Accept: " \
                "application/jsonl'".format(site)
            run = subprocess.run(["sh", "-c", command], stdout=subprocess.PIPE, timeout=20)
            assert run.stdout.startswith(b'{"n": 1}\nnot JSON\n')  # the stream, as curl gets it
            tab.get_by_role("button", name="Resume").click()  # fetched with them: so is Resume
            _expect(_stream_line(tab)).to_contain_text("Ended with an error")
            assert [seen.get("X-Token") for seen in app.seen] == [None, "s3cret", "s3cret",
                                                                  "s3cret"]
            assert app.seen[-1]["Accept"] == "text/html"  # curl's, then the page's

    def test_browser_reload_of_a_stream_page_with_stored_headers_stops_its_own_load_at_once(
            self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/ticks")
            _add_header(tab, "Authorization", "Bearer s3cret")
            _expect(tab.locator(".item")).not_to_have_count(0)
            tab.reload(wait_until="commit")  # the browser's load comes without them
            _expect(tab.locator("#api-refetched")).to_contain_text("Authorization")
            _expect(tab.locator(".item")).not_to_have_count(0)
            assert [seen.get("Authorization") for seen in app.seen] == [
                None, "Bearer s3cret", None, "Bearer s3cret"]
            assert _wait_for(lambda: len(app.closed) == 3)  # all but the last, at once
            _expect(tab.locator(".item .key").first).to_have_text("#1 id: 1")  # the fetched one's

    def test_browser_a_stream_page_asked_with_format_api_resumes_by_its_own_page_never_as_items(
            self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/ticks?format=api")
            _expect(tab.locator(".item")).not_to_have_count(0)
            tab.get_by_role("button", name="Stop").click()
            _expect(_stream_line(tab)).to_contain_text("Stopped.")  # its last items drawn
            last = int(tab.locator(".item .key").last.text_content().split("id: ")[1])
            tab.get_by_role("button", name="Resume").click()
            _expect(tab.locator(".item .key", has_text="id: %d " % (last + 3))).to_have_count(1)
            tab.get_by_role("button", name="Stop").click()
            assert len(app.seen) == 2 and app.seen[-1]["Last-Event-Id"] == str(last)
            assert tab.locator(".item", has_text="not JSON").count() == 0
            keys = tab.locator(".item .key").all_text_contents()
            assert all(re.match(r"^#[0-9]+ id: [0-9]+$", key) for key in keys), keys[:5]

    @pytest.mark.parametrize("which, shown", [
        ("euro", "\u20acuro"),
        ("bad", "\ufffdbad"),  # as browsers decode a byte that is not UTF-8
    ])
    def test_browser_resumes_from_an_id_past_latin_1_as_eventsource_sends_it(
            self, chromium, stream_site, which, shown):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/all-good.jsonl")  # a page of the site, for its EventSource
            tab.evaluate("""(url) => new Promise((done) => {  // the browser's own EventSource
                const source = new EventSource(url); let seen = 0;
                source.onmessage = () => { if (++seen === 2) { source.close(); done(); } }; })""",
                         site + "/ids.sse?id=" + which)
            sent_by_eventsource = app.seen[-1]["raw_id"]
            _open(tab, "/ids.sse?id=" + which)
            _expect(_stream_line(tab)).to_contain_text("Ended. 1 item")
            _expect(tab.locator(".item .key")).to_have_text("#1 id: " + shown + " retry: 10")
            if which == "bad":
                _expect(tab.locator(".stream-tools")).to_contain_text(
                    "That id had bytes that are not UTF-8 (shown \ufffd): it goes as EventSource")
            tab.get_by_role("button", name="Resume").click()
            _expect(_stream_line(tab)).to_contain_text("Ended. 2 items")
            _expect(tab.locator(".item").last).to_contain_text('"after"')
            assert app.seen[-1]["raw_id"] == sent_by_eventsource == shown.encode("utf-8").decode(
                "latin-1")  # the id's UTF-8, in a header's bytes

    def test_browser_streaming_page_has_no_axe_violations_in_any_state(self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/ticks")
            _expect(tab.locator(".item")).not_to_have_count(0)
            assert _axe(tab) == []  # while it streams
            tab.get_by_role("button", name="Stop").click()
            _expect(_stream_line(tab)).to_contain_text("Stopped.")
            assert _axe(tab) == []
            _open(tab, "/finishing.sse")
            _expect(_stream_line(tab)).to_contain_text("Ended with an error")
            assert _axe(tab) == []
            tab.get_by_role("button", name="Resume").click()
            _expect(_stream_line(tab)).to_contain_text("Finished")
            assert _axe(tab) == []
            _open(tab, "/cut")
            app.gate.set()
            _expect(_stream_line(tab)).to_contain_text("Broke off")
            assert _axe(tab) == []

    def test_browser_stream_page_without_javascript_shows_its_items_as_they_arrive(
            self, chromium, stream_site):
        site, app = stream_site
        with _open_tab(chromium, site, java_script_enabled=False) as tab:
            _open(tab, "/slow")
            _expect(tab.locator("#api-items li")).to_have_text(['{"n": 12345678901234567891}'])
            app.gate.set()
            _expect(tab.locator("#api-items li")).to_have_count(2)
            _expect(tab.locator(".stream-end")).to_have_text(
                "Ended \u00b7 2 items \u00b7 37 bytes")
            _expect(tab.locator("pre.response .body")).to_contain_text(
                "its items follow the page as they arrive, below it; or open the raw stream.")
            href = tab.get_by_role("link", name="open the raw stream").get_attribute("href")
            assert href == "/slow?format=jsonl"
            _open(tab, "/broken.jsonl")
            _expect(tab.locator(".stream-end.error")).to_have_text(
                "Ended with an error: The database went away. \u00b7 3 items \u00b7 72 bytes")
        html = urllib.request.urlopen(urllib.request.Request(site + "/broken.jsonl", headers={
            "Accept": BROWSER_ACCEPT})).read().decode("utf-8")
        # the page as it is without JavaScript, checked by axe: its script left out, its style
        # file loaded from the site, as a browser's would be
        without_script = re.sub(r"<script[^>]*>.*?</script>", "", html, flags=re.DOTALL)
        with _open_tab(chromium, site) as tab:
            tab.route(site + "/without-script", lambda route: route.fulfill(
                body=without_script, content_type="text/html; charset=utf-8"))
            tab.goto("/without-script")
            assert _axe(tab) == []
        app.config["URL_FORMAT_OVERRIDE"] = None
        html = app.test_client().get("/broken.jsonl", headers={"Accept": "text/html"}).get_data(
            as_text=True)
        assert "below it</a>; or ask for it with an Accept: application/jsonl header" in html
        assert "open the raw stream" not in html and "format=" not in html

    def test_browser_closing_a_tab_mid_stream_closes_the_views_generator(self, chromium,
                                                                         stream_site):
        site, app = stream_site
        with _open_tab(chromium, site) as tab:
            _open(tab, "/ticks")
            _expect(tab.locator(".item")).not_to_have_count(0)
        assert _wait_for(lambda: app.closed == ["ticks"])

    @pytest.mark.parametrize("pieces, lines", _LINE_CASES)
    def test_page_script_reads_lines_from_bytes_split_anywhere(self, script_parts, pieces, lines):
        assert _js(script_parts, """(pieces) => { const read = parts.lineReader();
            return pieces.flatMap((piece) => read(new Uint8Array(piece))).concat(read(null)); }""",
                   [list(piece) for piece in pieces]) == lines

    def test_page_script_sends_an_id_as_the_bytes_of_its_utf8_as_eventsource_does(self,
                                                                                  script_parts):
        assert _js(script_parts, "(ids) => ids.map(parts.idHeader)",
                   ["42", "\u20acuro", "\ufffd", "\U0001f600"]) == [
            "42", "\u00e2\u0082\u00acuro", "\u00ef\u00bf\u00bd", "\u00f0\u009f\u0098\u0080"]

    def test_page_script_finds_the_detail_of_an_error_a_stream_sends(self, script_parts):
        found = _js(script_parts, "(texts) => texts.map((text) => parts.detailOf(text))", [
            '{"detail": "gone"}', '{"detail": {"code": 12345678901234567891}}',
            '{"detail": "x", "n": 1}', '["detail"]', "not JSON"])
        assert found == ["gone", '{"code": 12345678901234567891}', "x", None, None]

    def test_page_script_timing_text_says_first_byte_total_and_size_if_known(self, script_parts):
        assert _js(script_parts, "(times) => times.map(parts.timingText)", [
            {"started": 10, "firstByte": 22.4, "end": 1510, "bytes": 123456},
            {"started": 10, "firstByte": 22.4, "end": 1510}]) == [
            "first byte in 12 ms \u00b7 1,500 ms in all \u00b7 123,456 bytes",
            "first byte in 12 ms \u00b7 1,500 ms in all"]

    @pytest.mark.parametrize("csp", CSP_MODES)
    @pytest.mark.parametrize("how", sorted(STREAM_SENDS))
    @pytest.mark.parametrize("kept", ["a stored header", "a sign-in"])
    def test_browser_a_stream_another_site_sends_the_tab_to_runs_without_the_stored_headers(
            self, chromium, live_site, other_site, how, csp, kept):
        app = _job_app()
        site, target = live_site.serve(app), live_site.url + "/jobs/start?target=x"
        script = STREAM_SENDS[how]
        other_site.serve(_pages_running({"/": (script or "").replace("TARGET",
                                                                     json.dumps(target))}))
        with _attack_tab(chromium, site, csp) as tab:
            tab.goto("/")
            if kept == "a sign-in":  # the sign-in's credential goes where the stored headers go
                _sign_in_with(tab, "token: a bearer token", {"Token": "s3cret"})
            else:
                _add_header(tab, "Authorization", "Bearer s3cret")
            shown = tab
            if how == "a typed URL":
                _open(tab, target)
            elif how == "window.open":
                with tab.context.expect_page() as opened:
                    tab.goto(other_site.url + "/")
                shown = opened.value
            else:
                tab.goto(other_site.url + "/", wait_until="commit")
                if how == "a link":
                    tab.get_by_role("link", name="go").click()
            shown.wait_for_url(target, wait_until="commit")
            # as the browser loaded it
            _expect(_stream_line(shown)).to_contain_text("Ended. 2 items")
            assert app.runs == [None]  # once, and without the header
            again = shown.get_by_role("button", name="Fetch again with your stored headers")
            _expect(again).to_be_visible()
            _expect(shown.locator(".stream-tools")).to_contain_text(
                "This page came without your stored headers and sign-in, and so does Resume.")
            shown.get_by_role("button", name="Resume").click()
            _expect(_stream_line(shown)).to_contain_text("Ended. 2 items \u00b7 HTTP 200")
            assert _wait_for(lambda: len(app.runs) == 2) and app.runs == [None, None]
            again.click()  # the user's own choice
            _expect(shown.locator("#api-refetched")).to_contain_text("Authorization")
            _expect(_stream_line(shown)).to_contain_text("Ended. 2 items")
            assert app.runs == [None, None, "Bearer s3cret"]
            shown.get_by_role("button", name="Resume").click()  # fetched with them: so is Resume
            assert _wait_for(lambda: len(app.runs) == 4) and app.runs[3] == "Bearer s3cret"

    def test_browser_a_100_mb_line_without_end_is_cut_and_the_tab_stays_small(
            self, memory_chromium, live_site):
        app = _heavy_stream_app()
        with _open_tab(memory_chromium, live_site.serve(app)) as tab:
            _open(tab, "/line")
            _expect(_stream_line(tab)).to_contain_text("Ended. 1 item", timeout=60000)
            _expect(tab.locator(".item .key")).to_have_text(
                "#1 (cut: the first 1,048,576 characters of its 104,857,600 bytes)")
            assert "104,857,600 bytes" in _stream_line(tab).text_content()  # all of it counted
            _within_ceilings(_tab_memory(tab))

    def test_browser_endless_512_kib_items_keep_the_tab_within_its_ceilings_loaded_or_fetched(
            self, memory_chromium, live_site):
        app = _heavy_stream_app()
        def wait_past(count):  # a count on screen (no event says it), checked as it grows
            deadline = time.monotonic() + 60
            while _items_counted(tab) < count:
                assert time.monotonic() < deadline, _stream_line(tab).text_content()
                tab.wait_for_timeout(100)
        with _open_tab(memory_chromium, live_site.serve(app)) as tab:
            _open(tab, "/blobs")  # loaded by the browser, which keeps all a page loads: 64 MiB
            for count in (40, 80):  # as it loads (or once it stops, on a machine this quick)
                wait_past(count)
                _within_ceilings(_tab_memory(tab))
            _expect(_stream_line(tab)).to_contain_text("Stopped: the page has carried as much",
                                                        timeout=60000)
            assert _wait_for(lambda: app.closed == ["blobs"])  # the rest was never read
            assert 120 <= _items_counted(tab) <= 130
            _within_ceilings(_tab_memory(tab))
            _expect(tab.locator(".item")).to_have_count(8)  # 4 Mi characters: 8 of 512 KiB
            tab.get_by_role("button", name="Resume").click()  # read from a fetch: no bound
            for count in (100, 200, 400):  # 200 MB through, and still
                wait_past(count)
                _within_ceilings(_tab_memory(tab))
            tab.get_by_role("button", name="Stop").click()
            assert _wait_for(lambda: app.closed == ["blobs", "blobs"])

    @pytest.mark.parametrize("kind", ["jsonl", "sse"])
    def test_browser_a_flood_of_1000000_small_events_keeps_the_tab_within_a_fixed_bound(
            self, memory_chromium, live_site, kind):
        app = _flood_app()
        site = live_site.serve(app)
        with _open_tab(memory_chromium, site) as tab:
            _open(tab, "/flood." + kind)  # loaded by the browser: 100,000 items at the most
            _expect(_stream_line(tab)).to_contain_text("Stopped: the page has carried as much",
                                                        timeout=60000)
            assert _items_counted(tab) == 100000
            at_100000 = _tab_memory(tab)
            _within_ceilings(at_100000)
            tab.get_by_role("button", name="Resume").click()  # read from a fetch: no bound
            _expect(_stream_line(tab)).to_contain_text(
                "Ended. 1,000,000 items (999,000 let go)", timeout=180000)
            _expect(tab.locator(".item").first.locator(".key")).to_contain_text("#999001")
            _expect(tab.locator(".item").last).to_contain_text('"n": 999999')
            at_end = _tab_memory(tab)
            _within_ceilings(at_end)
            assert at_end[0] - at_100000[0] < 16 * 1024 * 1024, (at_100000, at_end)
        with _open_tab(memory_chromium, site, java_script_enabled=False) as tab:
            _open(tab, "/flood." + kind)  # each item stays in the document: never a million
            assert _wait_for(lambda: tab.locator("p.stream-end").count() or app.read > 200000,
                             seconds=120)
            _expect(tab.locator("p.stream-end")).to_contain_text("Stopped: a page carries "
                                                                 "100,000 of a stream's items")
            assert app.read < 102000  # the rest never made
            heap, nodes, rss = _tab_memory(tab)  # 330 MiB measured, 570 with ids shown
            assert heap < 768 * 1024 * 1024, "heap {:,}".format(heap)  # 3.2 GB for 1,000,000

    def test_browser_a_valid_20_mb_item_is_cut_and_drawn_without_a_long_task(
            self, memory_chromium, live_site):
        app = _heavy_stream_app()
        with _open_tab(memory_chromium, live_site.serve(app)) as tab:
            tab.add_init_script(
                "window.__tasks = []; new PerformanceObserver((list) => { for (const task of "
                "list.getEntries()) window.__tasks.push(task.duration); }).observe("
                "{type: 'longtask', buffered: true});")
            for _ in ("the first visit, warming the tab up", "the one measured"):
                _open(tab, "/big")
                _expect(_stream_line(tab)).to_contain_text("Ended. 1 item", timeout=60000)
            assert tab.evaluate("window.__tasks") == []
            _expect(tab.locator(".item .key")).to_contain_text(
                "(cut: the first 1,048,576 characters")
            assert tab.locator(".item .s").text_content().startswith('{"items": [1234567890,')
            assert len(tab.locator(".item .s").text_content()) == 16 * 1024 + 1  # drawn: its start
            _within_ceilings(_tab_memory(tab))
            tab.get_by_role("button", name="Resume").click()  # read from a fetch, the same
            _expect(_stream_line(tab)).to_contain_text("Ended. 1 item \u00b7 HTTP 200")
            assert tab.evaluate("window.__tasks") == []

    def test_browser_shows_a_flaskapi_generator_views_items_live_running_the_view_once(
            self, chromium, live_site):
        """A view returning a generator gets the stream's page with its items in it, framed as
        server-sent events: the first shows while the view makes the second."""
        app, gate, runs = FlaskAPI(__name__), threading.Event(), []

        @app.route("/numbers")
        def numbers():
            runs.append(True)

            def items():
                yield {"n": 2 ** 64 + 1}  # more than JavaScript's numbers hold
                gate.wait(10)
                yield {"n": 2}
            return items()

        site = live_site.serve(app)
        with _open_tab(chromium, site) as tab, contextlib.ExitStack() as finish:
            finish.callback(gate.set)
            _open(tab, "/numbers")
            _expect(tab.locator(".item")).to_have_count(1)
            _expect(tab.locator(".item .tree")).to_have_text('{"n": 18446744073709551617}')
            _expect(tab.locator(".stream-tools")).to_contain_text("Resume asks for the stream "
                                                                  "again: no event has had an id.")
            gate.set()
            _expect(_stream_line(tab)).to_have_text(re.compile(r"^Ended\. 2 items \u00b7 HTTP 200"))
            _expect(tab.locator(".item").nth(1)).to_contain_text('"n": 2')
            assert runs == [True]

    def test_browser_shows_a_flaskapi_views_events_its_error_and_its_end_as_the_server_frames_them(
            self, chromium, live_site):
        """The server's framing and the page's reading together: a FlaskAPI view's events keep
        their ids and types on the page; an error after them is said, not counted as an item;
        Resume after it, or after ``ServerSentEvent.END``, is the 204 that says "finished"."""
        app, runs = FlaskAPI(__name__), []

        @app.route("/job/<how>")
        def job(how):
            last = request.headers.get("Last-Event-ID")

            def items():
                runs.append(last)
                yield flask_api.ServerSentEvent({"step": 1}, id=1, event="progress")
                yield flask_api.ServerSentEvent({"step": 2}, id=2, event="progress")
                if how == "fails":
                    raise NotFound("The job went away.")
                yield flask_api.ServerSentEvent.END
            return items()

        site = live_site.serve(app)
        with _open_tab(chromium, site) as tab:
            _open(tab, "/job/fails")
            _expect(_stream_line(tab)).to_have_text(re.compile(
                r"^Ended with an error: The job went away\. 2 items \u00b7 HTTP 200"))
            _expect(tab.locator(".item .key")).to_have_text(
                ["#1 event: progress id: 1", "#2 event: progress id: 2"])
            tab.get_by_role("button", name="Resume").click()
            _expect(_stream_line(tab)).to_contain_text("Finished")
            _expect(tab.locator(".stream-line.error")).to_have_count(0)
            _open(tab, "/job/ends")
            _expect(_stream_line(tab)).to_have_text(re.compile(r"^Ended\. 2 items"))
            tab.get_by_role("button", name="Resume").click()
            _expect(_stream_line(tab)).to_contain_text("Finished")
            # each page ran the generator once; each Resume was answered before it ran again
            assert runs == [None, None]

    def test_chromium_eventsource_gets_each_event_once_and_stops_at_the_end_or_an_error(
            self, chromium, live_site, tmp_path):
        """Over 10 s, the server counts connections, runs and events: after the end said or an
        error, the reconnection gets a 204 and nothing runs again; after a plain end, EventSource
        goes on from the last id, with no event sent twice."""
        signals = str(tmp_path)
        server = _StreamServer("werkzeug", signals, live_site.server.server_port, lambda: "")
        site, started, tabs = live_site.serve(_stream_app(signals)), time.monotonic(), {}
        queries = {"end": "batch=2&total=5&then=end", "error": "then=error&ids=0",
                   "plain": "batch=2&total=4&retry=1000"}
        with contextlib.ExitStack() as opened:
            for name, query in queries.items():
                tabs[name] = opened.enter_context(_open_tab(chromium, site)), _token()
                tabs[name][0].goto("/eventsource.html?src=" + urllib.parse.quote(
                    "/events/{}?{}".format(tabs[name][1], query)))
            for name in ("end", "error"):  # closed: EventSource's readyState CLOSED
                tabs[name][0].wait_for_function("window.source.readyState === 2")
            tabs["end"][0].wait_for_timeout(max(0, 10000 - 1000 * (time.monotonic() - started)))
            logs = {name: tab.evaluate("window.log") for name, (tab, _) in tabs.items()}
        seen = {name: [(kind, json.loads(data), last) for kind, data, last in
                       (entry for entry in log if entry[0] != "onerror")]
                for name, log in logs.items()}
        assert seen == {"end": _ticks(1, 5) + [_END], "error": _ticks(1, 3, ids=False) + [_ERROR],
                        "plain": _ticks(1, 4)}
        assert logs["end"][-1] == logs["error"][-1] == ["onerror", 2]  # closed by the 204
        assert server.records(tabs["end"][1]) == [
            "connect -", "run -", "sent 1", "sent 2", "connect 2", "run 2", "sent 3", "sent 4",
            "connect 4", "run 4", "sent 5", "connect flask-api:end"]
        assert server.records(tabs["error"][1]) == [
            "connect -", "run -", "sent 1", "sent 2", "sent 3", "connect flask-api:end"]
        plain = server.records(tabs["plain"][1])  # a reconnection a second, each from id 4
        assert plain[:8] == ["connect -", "run -", "sent 1", "sent 2", "connect 2", "run 2",
                             "sent 3", "sent 4"]
        assert len(plain) >= 8 + 2 * 5 and set(plain[8:]) == {"connect 4", "run 4"}


# ---------------------------------------------------------------------------
# The application and the decorators
# ---------------------------------------------------------------------------

def _plain_flask_results():
    """Views whose results FlaskAPI must treat exactly like plain Flask."""
    return {
        "string": lambda: "plain text",
        "string_tuple": lambda: ("created", 201, {"X-A": "1"}),
        "response": lambda: flask.Response("raw", status=202, mimetype="text/plain"),
        "response_tuple": lambda: (flask.Response("raw"), 201),
        "make_response": lambda: make_response("made", 203),
        "jsonify": lambda: jsonify(a=1, b=[1, 2]),
        "jsonify_tuple": lambda: (jsonify([1, 2]), 201),
    }


class ItemsView(MethodView):
    """Items in a basket.

    POST an item to add it.
    """

    def get(self):
        return [{"item": "apple"}]

    def post(self):
        return {"added": flask.request.data}, status.HTTP_201_CREATED


def _add_mixed_routes(app):
    """A function view, a MethodView and a blueprint view."""
    _add_data_view(app)
    app.add_url_rule("/items/", view_func=ItemsView.as_view("items"))
    blueprint = Blueprint("shop", __name__)

    @blueprint.route("/products/<int:number>")
    def product(number):
        """One product."""
        return {"number": number, "url": url_for("shop.product", number=number, _external=True)}

    app.register_blueprint(blueprint, url_prefix="/shop")


MIXED_ROUTES = ["/data", "/items/", "/shop/products/7"]


class TestApplication:
    """FlaskAPI as a Flask app: results, settings, HEAD and OPTIONS, errors and handlers."""

    def test_flaskapi_is_a_flask_app_with_a_version(self, app):
        assert isinstance(app, Flask)
        assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", flask_api.__version__)

    @pytest.mark.parametrize("result, code, headers", [
        ({"a": 1}, 200, {}),
        ([{"a": 1}], 200, {}),
        (({"a": 1}, 201), 201, {}),
        (({"a": 1}, "202 ACCEPTED"), 202, {}),
        (({"a": 1}, {"X-Extra": "yes"}), 200, {"X-Extra": "yes"}),
        (({"a": 1}, [("X-Extra", "yes")]), 200, {"X-Extra": "yes"}),
        (({"a": 1}, 201, {"X-Extra": "yes"}), 201, {"X-Extra": "yes"}),
        (([1, 2], 203, [("X-Extra", "yes")]), 203, {"X-Extra": "yes"}),
    ], ids=["dict", "list", "status", "status-string", "header-dict", "header-list",
            "status-headers", "list-status-headers"])
    def test_list_or_dict_view_result_renders_as_json_with_flask_tuple_semantics(
            self, app, client, result, code, headers):
        app.add_url_rule("/", "view", lambda: result)
        response = client.get("/")
        assert response.status_code == code
        assert response.headers["Content-Type"] == JSON_TYPE
        assert response.headers["Vary"] == "Accept"
        body = result[0] if isinstance(result, tuple) else result
        assert _json(response) == body
        for name, value in headers.items():
            assert response.headers[name] == value

    @pytest.mark.parametrize("result", [(None, 204), (None, status.HTTP_204_NO_CONTENT,
                                                      {"X-A": "1"})],
                             ids=["status", "status-headers"])
    def test_none_with_204_gives_an_empty_no_content_response(self, app, client, result):
        app.add_url_rule("/", "view", lambda: result, methods=["DELETE"])
        response = client.delete("/")
        assert response.status_code == 204
        assert response.data == b""

    @pytest.mark.parametrize("name", sorted(_plain_flask_results()))
    def test_strings_responses_and_jsonify_behave_as_in_plain_flask(self, app, client, name):
        """To API clients; a browser gets JSON as the page (see "Any Flask app" below)."""
        accept = "application/json" if name.startswith("jsonify") else BROWSER_ACCEPT
        plain = Flask(__name__)
        for target in (app, plain):
            target.add_url_rule("/", "view", _plain_flask_results()[name])
        expected = plain.test_client().get("/", headers={"Accept": accept})
        response = client.get("/", headers={"Accept": accept})
        assert response.status_code == expected.status_code
        assert response.data == expected.data
        for header in ("Content-Type", "X-A", "Vary"):
            assert response.headers.get(header) == expected.headers.get(header)

    def test_buffered_test_client_gets_the_rendered_list(self, app, client):
        @app.route("/")
        def view():
            return [1, 2]

        response = client.get("/", buffered=True)
        assert response.get_data() == b"[1, 2]"

    @pytest.mark.parametrize("renderers", [
        [JSONRenderer], ["flask_api.renderers.JSONRenderer"], ("flask_api.JSONRenderer",)])
    def test_default_renderers_setting_takes_classes_or_dotted_strings(self, app, client,
                                                                       renderers):
        app.config["DEFAULT_RENDERERS"] = renderers
        _add_data_view(app)
        response = client.get("/data", headers={"Accept": BROWSER_ACCEPT})
        assert response.headers["Content-Type"] == JSON_TYPE

    @pytest.mark.parametrize("parsers", [[JSONParser], ["flask_api.parsers.JSONParser"]])
    def test_default_parsers_setting_takes_classes_or_dotted_strings(self, app, client, parsers):
        app.config["DEFAULT_PARSERS"] = parsers
        _add_data_view(app)
        assert client.post("/data", data={"text": "x"}).status_code == 415
        assert _json(client.post("/data", json=[1])) == {"data": [1]}

    @pytest.mark.parametrize("setting, dotted", [
        ("DEFAULT_RENDERERS", "flask_api.renderers.NoSuchRenderer"),
        ("DEFAULT_RENDERERS", "no_such_module.Renderer"),
        ("DEFAULT_PARSERS", "flask_api.parsers.NoSuchParser"),
        ("DEFAULT_PARSERS", "NoDots"),
    ])
    def test_setting_with_unimportable_string_raises_import_error_naming_both(
            self, app, client, setting, dotted):
        app.config[setting] = [dotted]
        _add_data_view(app)
        with pytest.raises(ImportError) as error:
            client.post("/data", json={"a": 1})
        assert setting in str(error.value) and dotted in str(error.value)

    def test_a_setting_given_as_one_dotted_string_imports_that_one_class(self):
        from flask_api.settings import APISettings
        settings = APISettings({"DEFAULT_PARSERS": "flask_api.parsers.JSONParser"})
        assert settings.DEFAULT_PARSERS is JSONParser
        with pytest.raises(ImportError) as caught:
            assert APISettings({"DEFAULT_PARSERS": "foobarz.FailedImport"}).DEFAULT_PARSERS
        assert str(caught.value) == ("Could not import 'foobarz.FailedImport' for API setting "
                                     "'DEFAULT_PARSERS'. No module named 'foobarz'.")

    def test_a_config_setting_given_as_one_dotted_string_works_for_the_app(self, app, client):
        app.config["DEFAULT_RENDERERS"] = "flask_api.renderers.HTMLRenderer"
        app.add_url_rule("/", "view", lambda: "<b>hi</b>")
        response = client.get("/")
        assert response.data == b"<b>hi</b>" and response.mimetype == "text/html"

    def test_classes_set_on_the_request_in_a_before_request_hook_apply_to_it(self, app, client):
        class Shout(BaseRenderer):
            media_type = "text/plain"

            def render(self, data, media_type, **options):
                return json.dumps(data).upper()

        class Raw(BaseParser):
            media_type = "*/*"

            def parse(self, stream, media_type, content_length=None):
                return {"raw": stream.read().decode("utf-8")}

        @app.before_request
        def choose():
            flask.request.renderer_classes = [Shout]
            flask.request.parser_classes = [Raw]

        @app.route("/", methods=["POST"])
        def view():
            return flask.request.data

        response = client.post("/", data="quiet", content_type="application/json")
        assert response.data == b'{"RAW": "QUIET"}'
        assert response.mimetype == "text/plain"

    @pytest.mark.parametrize("path", MIXED_ROUTES)
    def test_head_works_on_every_route_without_a_body(self, app, client, path):
        _add_mixed_routes(app)
        get, head = client.get(path), client.head(path)
        assert head.status_code == 200
        assert head.data == b""
        assert head.headers["Content-Type"] == get.headers["Content-Type"]
        assert head.headers["Content-Length"] == str(len(get.data))

    @pytest.mark.parametrize("path, name, description, methods", [
        ("/data", "Data", "", {"GET", "HEAD", "OPTIONS", "POST"}),
        ("/items/", "Items", "Items in a basket.\n\nPOST an item to add it.",
         {"GET", "HEAD", "OPTIONS", "POST"}),
        ("/shop/products/7", "Product", "One product.", {"GET", "HEAD", "OPTIONS"}),
    ])
    def test_options_works_on_every_route_with_allow_and_a_description(
            self, app, client, path, name, description, methods):
        _add_mixed_routes(app)
        response = client.options(path)
        assert response.status_code == 200
        assert set(response.headers["Allow"].split(", ")) == methods
        assert _json(response) == {
            "name": name, "description": description,
            "renders": ["application/json", "text/html"],
            "parses": ["application/json", "application/x-www-form-urlencoded",
                       "multipart/form-data"],
        }

    def test_options_describes_the_views_own_parsers_and_renderers(self, app, client):
        @app.route("/", methods=["GET", "POST"])
        @set_parsers(JSONParser)
        @set_renderers(JSONRenderer)
        def json_only():
            """JSON in, JSON out."""
            return {}

        description = _json(client.options("/"))
        assert description["renders"] == ["application/json"]
        assert description["parses"] == ["application/json"]

    def test_options_on_notes_app_describes_the_list_view(self, notes_client):
        description = _json(notes_client.options("/"))
        assert description["name"] == "Notes List"
        assert description["description"].startswith("All notes, ordered by key.")

    def test_method_view_may_return_a_list_or_a_dict_with_a_status(self, app, client):
        _add_mixed_routes(app)
        assert _json(client.get("/items/")) == [{"item": "apple"}]
        created = client.post("/items/", json={"item": "pear"})
        assert created.status_code == 201
        assert _json(created) == {"added": {"item": "pear"}}

    def test_blueprint_routes_render_and_build_urls(self, app, client):
        _add_mixed_routes(app)
        assert _json(client.get("/shop/products/7")) == {
            "number": 7, "url": "http://localhost/shop/products/7"}
        with app.test_request_context("/"):
            assert url_for("shop.product", number=3) == "/shop/products/3"
            assert url_for("items") == "/items/"

    @pytest.mark.skipif("TRUSTED_HOSTS" not in Flask.default_config,
                        reason="TRUSTED_HOSTS needs Flask >= 3.1")
    @pytest.mark.parametrize("testing", [True, False], ids=["testing", "production"])
    @pytest.mark.parametrize("accept, content_type", [
        (None, JSON_TYPE), (BROWSER_ACCEPT, HTML_TYPE)], ids=["api-client", "browser"])
    def test_untrusted_host_gives_400(self, app, client, testing, accept, content_type):
        app.testing = testing
        app.config["TRUSTED_HOSTS"] = ["api.example"]
        _add_data_view(app)
        assert client.get("/data", headers={"Host": "api.example"}).status_code == 200
        headers = dict(_accept(accept), Host="evil.example")
        response = client.get("/data", headers=headers)
        assert response.status_code == 400
        assert response.headers["Content-Type"] == content_type
        assert "evil.example" in response.data.decode("utf-8")

    def test_async_views_work_under_set_renderers_and_set_parsers(self, app, client):
        pytest.importorskip("asgiref")
        if not hasattr(app, "ensure_sync"):
            pytest.skip("async views need Flask >= 2.0")

        @app.route("/", methods=["POST"])
        @set_renderers(JSONRenderer)
        @set_parsers(JSONParser)
        async def view():
            return {"got": flask.request.data, "renderers": len(flask.request.renderers)}

        # A thread of its own: Playwright's sync API may keep an event loop running in this one.
        responses = []
        worker = threading.Thread(target=lambda: responses.append(client.post("/", json={"a": 1})))
        worker.start()
        worker.join(30)
        assert responses[0].status_code == 200
        assert _json(responses[0]) == {"got": {"a": 1}, "renderers": 1}

    def test_unknown_route_gives_404_detail(self, client):
        response = client.get("/no/such/page")
        assert response.status_code == 404
        assert response.headers["Vary"] == "Accept"
        assert _json(response) == {"detail": default_exceptions[404].description}

    def test_unknown_route_gives_html_404_page_to_browsers(self, client):
        response = client.get("/no/such/page", headers={"Accept": BROWSER_ACCEPT})
        assert response.status_code == 404
        assert response.headers["Content-Type"] == HTML_TYPE
        assert b"<html" in response.data

    def test_wrong_method_gives_405_with_allow_header(self, app, client):
        _add_data_view(app)
        response = client.delete("/data")
        assert response.status_code == 405
        assert set(response.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS", "POST"}
        assert response.headers["Content-Type"] == JSON_TYPE
        assert _json(response) == {"detail": default_exceptions[405].description}

    @pytest.mark.parametrize("code", [400, 401, 403, 404, 409, 410, 413, 418, 429, 503])
    def test_abort_renders_werkzeug_description_as_detail(self, app, client, code):
        app.add_url_rule("/", "view", lambda: abort(code))
        response = client.get("/")
        assert response.status_code == code
        assert response.headers["Content-Type"] == JSON_TYPE
        assert _json(response) == {"detail": default_exceptions[code].description}

    def test_abort_with_description_uses_it_as_detail(self, app, client):
        app.add_url_rule("/", "view", lambda: abort(403, "Members only."))
        response = client.get("/")
        assert response.status_code == 403
        assert _json(response) == {"detail": "Members only."}

    def test_abort_with_a_response_sends_that_response(self, app, client):
        app.add_url_rule("/", "view", lambda: abort(make_response("short and stout", 418)))
        response = client.get("/")
        assert (response.status_code, response.data) == (418, b"short and stout")

    def test_user_error_handler_for_api_exception_subclass_wins(self, app, client):
        @app.errorhandler(PermissionDenied)
        def denied(exc):
            return {"mine": str(exc)}, 403

        _raising_view(app, PermissionDenied("No."))
        response = client.get("/raise")
        assert response.status_code == 403
        assert _json(response) == {"mine": "No."}

    @pytest.mark.parametrize("key", [404, WerkzeugNotFound], ids=["by-code", "by-class"])
    def test_user_error_handler_for_werkzeug_404_wins(self, app, client, key):
        app.register_error_handler(key, lambda exc: ({"missing": flask.request.path}, 404))
        response = client.get("/nowhere")
        assert response.status_code == 404
        assert _json(response) == {"missing": "/nowhere"}

    @pytest.mark.parametrize("order", [(APIException, NotFound), (NotFound, APIException)])
    def test_most_specific_user_error_handler_wins(self, app, client, order):
        for exc_class in order:
            app.register_error_handler(
                exc_class, lambda exc, name=exc_class.__name__: ({"handler": name},
                                                                 exc.status_code))
        app.add_url_rule("/missing", "missing", _raiser(NotFound()))
        app.add_url_rule("/denied", "denied", _raiser(PermissionDenied()))
        assert _json(client.get("/missing")) == {"handler": "NotFound"}
        assert _json(client.get("/denied")) == {"handler": "APIException"}

    def test_blueprint_error_handler_wins_for_its_own_views(self, app, client):
        blueprint = Blueprint("shop", __name__)
        blueprint.add_url_rule("/shop", "shop", _raiser(PermissionDenied()))
        blueprint.register_error_handler(APIException, lambda exc: ({"shop": exc.detail}, 451))
        app.register_blueprint(blueprint)
        _raising_view(app, PermissionDenied())
        shop = client.get("/shop")
        assert shop.status_code == 451
        assert _json(shop) == {"shop": PermissionDenied.detail}
        assert _json(client.get("/raise")) == {"detail": PermissionDenied.detail}

    def test_write_to_an_unknown_route_is_still_a_404_whatever_it_accepts(self, client):
        assert client.post("/nowhere", headers={"Accept": "image/png"}).status_code == 404

    @pytest.mark.parametrize("raise_it", [lambda: abort(404), lambda: flask_api.NotFound(),
                                          lambda: flask_api.NotFound("Gone fishing.")])
    def test_an_app_errorhandler_by_code_catches_the_frameworks_not_found(self, app, client,
                                                                          raise_it):
        @app.errorhandler(404)
        def not_found(exc):
            return {"mine": True, "code": exc.code}, 404

        @app.route("/")
        def view():
            error = raise_it()
            raise error

        response = client.get("/")
        assert response.status_code == 404 and _json(response) == {"mine": True, "code": 404}

    def test_a_blueprint_errorhandler_by_code_catches_api_exceptions_raised_in_it(self, app,
                                                                                  client):
        blueprint = Blueprint("things", __name__)

        @blueprint.errorhandler(409)
        def conflict(exc):
            return {"blueprint": exc.description}, 409

        class Conflict(APIException):
            status_code = 409
            detail = "Already there."

        @blueprint.route("/thing")
        def thing():
            raise Conflict()

        @app.route("/other")
        def other():
            raise Conflict()

        app.register_blueprint(blueprint)
        assert _json(client.get("/thing")) == {"blueprint": "Already there."}
        assert _json(client.get("/other")) == {"detail": "Already there."}

    def test_an_errorhandler_for_the_api_exception_class_still_wins_over_code(self, app, client):
        @app.errorhandler(404)
        def by_code(exc):
            return {"by": "code"}, 404

        @app.errorhandler(NotFound)
        def by_class(exc):
            return {"by": "class"}, 404

        app.add_url_rule("/", "view", lambda: (_ for _ in ()).throw(NotFound()))
        assert _json(client.get("/")) == {"by": "class"}

    def test_a_subclass_written_for_older_flask_keeps_its_overrides_and_the_406(self, recwarn):
        class LegacyAPI(FlaskAPI):  # as Flask-API 3.x apps wrote them, before Flask 3.2's ctx
            def dispatch_request(self):
                request.environ["legacy"] = True
                return super().dispatch_request()

            def handle_user_exception(self, e):
                return super().handle_user_exception(e)

        app = LegacyAPI(__name__)
        app.add_url_rule("/", "view", lambda: {"legacy": request.environ.get("legacy", False)},
                         methods=["GET", "POST"])
        client = app.test_client()
        assert client.get("/", headers=JSON).get_json() == {"legacy": True}
        refused = client.post("/", headers={"Accept": "image/png"}, json={})
        assert refused.status_code == 406 and refused.get_json()["detail"]
        assert client.options("/", headers=JSON).headers["Allow"] == "GET, HEAD, OPTIONS, POST"


# ---------------------------------------------------------------------------
# Plain forms
# ---------------------------------------------------------------------------

def _csrf_notes_app():
    """The notes app behind Flask-WTF's CSRFProtect."""
    csrf = pytest.importorskip("flask_wtf.csrf")
    app = notes_app.create_app()
    app.config["SECRET_KEY"] = "test only"
    csrf.CSRFProtect(app)
    return app


def _note_text(client, key):
    response = client.get("/{}/".format(key), headers={"Accept": "application/json"})
    return response.get_json()["text"] if response.status_code == 200 else response.status_code


def _form_put(client, headers, content='{"text": "x"}', content_type="application/json"):
    return _form_submit(client, "/1/", {
        "_method": "PUT", "_content": content, "_content_type": content_type}, headers)


def _bodyless_things(library):
    return _flaskapi_things() if library == "FlaskAPI" else THING_APPS[library]()


BODYLESS_LIBRARIES = ["FlaskAPI", "flask", "flask-restful", "flask-smorest"]


class TestPlainForms:
    """The page's forms without JavaScript: any method, same-origin only, the CSRF token."""

    @pytest.mark.parametrize("headers", SAME_ORIGIN_HEADERS)
    def test_form_override_same_origin_put_updates_note(self, notes_client, headers):
        response = _form_put(notes_client, headers)
        assert response.status_code == 200
        assert _note_text(notes_client, 1) == "x"

    @pytest.mark.parametrize("headers", CROSS_SITE_HEADERS)
    def test_form_override_from_another_site_is_refused(self, notes_client, headers):
        response = _form_put(notes_client, headers)
        assert response.status_code == 405  # the detail route saw a plain POST
        assert _note_text(notes_client, 1) == "build the codez"

    def test_form_override_delete_removes_note(self, notes_client):
        response = _form_submit(notes_client, "/1/", {"_method": "DELETE"},
                                {"Origin": "http://localhost"})
        assert response.status_code < 400
        assert _note_text(notes_client, 1) == 404

    @pytest.mark.parametrize("content_type", [
        "application/x-www-form-urlencoded", "multipart/form-data"])
    def test_form_override_sends_form_media_types(self, notes_client, content_type):
        response = _form_put(notes_client, {}, content="text=hello+there&x=1",
                             content_type=content_type)
        assert response.status_code == 200
        assert _note_text(notes_client, 1) == "hello there"

    def test_form_override_post_on_list_creates_note(self, notes_client):
        response = _form_submit(notes_client, "/", {
            "_method": "POST", "_content": '{"text": "new"}', "_content_type": "application/json"})
        assert response.status_code == 201
        assert _note_text(notes_client, 3) == "new"

    def test_form_override_result_is_shown_as_page(self, notes_client):
        page = _Page(_form_submit(notes_client, "/1/", {
            "_method": "PUT", "_content": '{"text": "shown"}', "_content_type": "application/json"},
            {"Sec-Fetch-Site": "same-origin"}))
        assert page.status_code == 200
        assert page.response_text.startswith("PUT /1/\n")
        assert page.body_json == {"url": "http://localhost/1/", "text": "shown"}

    @pytest.mark.parametrize("accept", [BROWSER_ACCEPT, "application/json"])
    def test_plain_form_post_without_method_field_is_left_alone(self, notes_client, accept):
        response = notes_client.post("/", data={"text": "plain form"},
                                     headers={"Origin": "http://localhost", "Accept": accept})
        assert response.status_code == 201
        assert _note_text(notes_client, 3) == "plain form"

    def test_api_client_form_with_a_method_field_is_not_overridden(self, notes_client):
        response = notes_client.post("/1/", headers={"Accept": "application/json"}, data={
            "_method": "PUT", "_content": '{"text": "x"}', "_content_type": "application/json"})
        assert response.status_code == 405
        assert _note_text(notes_client, 1) == "build the codez"

    @pytest.mark.parametrize("accept", ["text/html;q=0, application/json", "text/html;q=0"])
    def test_the_form_override_is_not_for_a_client_that_refuses_html(self, notes_client, accept):
        response = notes_client.post("/1/", data={"_method": "DELETE"}, headers={"Accept": accept})
        assert response.status_code == 405  # a POST, as sent: not turned into a DELETE
        assert _note_text(notes_client, 1) == "build the codez"

    def test_page_of_csrf_protected_app_carries_the_token_in_each_form(self):
        client = _csrf_notes_app().test_client()
        page = _browse(client, "/1/")
        tokens = {field.attrs["value"] for field in page.find("input", name="csrf_token")}
        assert len(page.find("form")) == len(page.find("input", name="csrf_token")) == 3
        assert len(tokens) == 1 and len(tokens.pop()) > 20
        assert not _browse(notes_app.create_app().test_client(), "/1/").find(
            "input", name="csrf_token")

    def test_no_js_override_keeps_the_csrf_token_and_a_write_without_it_is_refused(self):
        client = _csrf_notes_app().test_client()
        token = _browse(client, "/1/").find("input", name="csrf_token")[0].attrs["value"]
        form = {"_method": "PUT", "_content": '{"text": "guarded"}',
                "_content_type": "application/json"}
        refused = client.post("/1/", data=form, headers={"Accept": BROWSER_ACCEPT})
        assert refused.status_code == 400 and _note_text(client, 1) == "build the codez"
        done = client.post("/1/", data=dict(form, csrf_token=token),
                           headers={"Accept": BROWSER_ACCEPT})
        assert done.status_code == 200 and _note_text(client, 1) == "guarded"

    @pytest.mark.parametrize("library", BODYLESS_LIBRARIES)
    def test_a_plain_form_delete_answered_204_sends_the_browser_to_the_collection(self, library):
        client = _bodyless_things(library).test_client()
        response = _form_submit(client, "/things/1", {"_method": "DELETE"},
                                {"Origin": "http://localhost"})
        assert response.status_code == 303 and response.headers["Location"] == "/things/"
        page = _Page(client.get(response.headers["Location"], headers={"Accept": BROWSER_ACCEPT}))
        assert page.status_code == 200 and page.one("h1").text == "Thing List"
        assert "teapot" in page.response_text and "kettle" not in page.response_text

    @pytest.mark.parametrize("rules, path, parent", [
        (["/shop/<int:item>/", "/shop/<int:item>/reviews/<int:key>"], "/shop/7/reviews/3",
         "/shop/7/"),
        (["/a/b/<int:key>"], "/a/b/3", "/"),  # no route at /a/ or /a/b/: the root
        (["/<int:key>"], "/3", "/"),
        (["/tools", "/tools/<int:key>"], "/tools/3", "/tools"),  # a collection without a slash
    ])
    def test_a_plain_form_delete_goes_to_the_nearest_prefix_that_routes(self, app, client, rules,
                                                                        path, parent):
        for rule in rules:
            app.add_url_rule(rule, rule, lambda **kwargs: ("", 204) if request.method == "DELETE"
                             else {"ok": True}, methods=["GET", "DELETE"])
        response = _form_submit(client, path, {"_method": "DELETE"})
        assert (response.status_code, response.headers["Location"]) == (303, parent)
        mounted = client.post(path, data={"_method": "DELETE"}, headers={"Accept": BROWSER_ACCEPT},
                              environ_overrides={"SCRIPT_NAME": "/api"})
        assert mounted.headers["Location"] == "/api" + parent

    @pytest.mark.parametrize("answer", [("", 204), ("", 205), ("", 200)], ids=str)
    @pytest.mark.parametrize("method, location", [("DELETE", "/"), ("PUT", "http://localhost/1")])
    def test_a_plain_form_answered_without_a_body_never_leaves_an_empty_document(
            self, app, client, answer, method, location):
        @app.route("/<int:key>", methods=["GET", "PUT", "DELETE"])
        def thing(key):
            return {"key": key} if request.method == "GET" else answer
        response = _form_submit(client, "/1", {"_method": method, "_content": "{}"})
        assert (response.status_code, response.headers["Location"]) == (303, location)
        assert response.data == b""
        api = client.open("/1", method=method, data="{}", content_type="application/json",
                          headers={"Accept": "application/json"})
        assert api.status_code == answer[1]  # an API client gets the answer as the view made it

    @pytest.mark.parametrize("button, api_after", [
        ("PUT", (200, "offline edit")),
        ("DELETE", (404, None)),
    ])
    def test_browser_without_javascript_plain_form_still_works(
            self, chromium, notes_site, button, api_after):
        # the page the user is left on reflects the change, not the old note
        _send_without_javascript(chromium, notes_site, "/1/", '{"text": "offline edit"}', button,
                                 gone="build the codez")
        code, data = _api(notes_site, "/1/")
        assert (code, data.get("text")) == api_after

    @pytest.mark.parametrize("library", BODYLESS_LIBRARIES[:3])
    def test_browser_without_javascript_deletes_and_lands_on_the_collection(
            self, chromium, live_site, library):
        _skip_where_the_library_breaks_errors(library)
        site = live_site.serve(_bodyless_things(library))
        with _open_tab(chromium, site, java_script_enabled=False) as tab:
            tab.goto("/things/1")
            tab.get_by_role("button", name="DELETE").click()
            tab.wait_for_url(site + "/things/")
            _expect(tab.locator("h1")).to_have_text("Thing List")
            _expect(tab.locator("pre.response")).to_contain_text("HTTP 200 OK")
            _expect(tab.locator("pre.response")).to_contain_text('"name": "teapot"')
            _expect(tab.locator("pre.response")).not_to_contain_text("kettle")
        assert _api(site, "/things/1")[0] == 404

    def test_browser_writes_to_a_csrf_protected_app_with_and_without_javascript(
            self, chromium, live_site):
        site = live_site.serve(_csrf_notes_app())
        with _open_tab(chromium, site) as tab:
            tab.goto("/1/")
            tab.get_by_label("text", exact=True).fill("with script")
            tab.get_by_role("button", name="PUT").click()
            _expect(tab.locator("pre.response")).to_contain_text("HTTP 200 OK")
            assert _api(site, "/1/")[1]["text"] == "with script"
            refused = tab.evaluate("""fetch('/1/', {method: 'PUT', body: '{"text": "x"}',
                headers: {'Content-Type': 'application/json'}}).then(r => r.status)""")
            assert refused == 400 and _api(site, "/1/")[1]["text"] == "with script"
        _send_without_javascript(chromium, site, "/1/", '{"text": "without script"}', "PUT",
                                 shown="HTTP 200 OK")
        assert _api(site, "/1/")[1]["text"] == "without script"


# ---------------------------------------------------------------------------
# Any Flask app
# ---------------------------------------------------------------------------

JSON_ACCEPTS = ["application/json", "*/*", None, "application/json, text/plain;q=0.5"]


def _other_responses_app(browsable=True):
    app = Flask(__name__)

    @app.route("/file.json")
    def json_file():
        return flask.send_file(io.BytesIO(b'{"a": 1}'), mimetype="application/json")

    @app.route("/stream")
    def stream():
        return flask.Response((part for part in [b'{"a": ', b"1}"]), mimetype="application/json")

    @app.route("/html")
    def html():
        return "<p>hello</p>"

    @app.route("/text")
    def text():
        return flask.Response('{"a": 1}', mimetype="text/plain")

    @app.route("/not-json")
    def not_json():
        return flask.Response("{not json", mimetype="application/json")

    return _finish(app, browsable)


@pytest.fixture(params=sorted(THING_APPS))
def things_site(request, live_site):
    """The base URL of a live things API built with each library, with BrowsableAPI."""
    return live_site.serve(THING_APPS[request.param]())


@pytest.fixture
def things_tab(chromium, things_site):
    with _open_tab(chromium, things_site) as tab:
        yield tab


def _restful_login(browsable):
    """A Flask-RESTful Resource that only takes POST."""
    flask_restful = _optional("flask_restful")
    app = Flask(__name__)

    class Login(flask_restful.Resource):
        """Log in: POST a name and a password."""

        def post(self):
            return {"token": "t0k3n"}, 201
    flask_restful.Api(app).add_resource(Login, "/login")
    return _finish(app, browsable)


class TestAnyFlaskApp:
    """BrowsableAPI(app): the page for browsers, JSON clients untouched, on each library."""

    @pytest.mark.parametrize("library", sorted(THING_APPS))
    def test_json_clients_get_identical_responses_with_and_without_browsable_api(self, library):
        _skip_where_the_library_breaks_errors(library)
        make = THING_APPS[library]
        sequence = [("GET", "/things/", None), ("GET", "/things/1", None),
                    ("GET", "/things/9", None), ("POST", "/things/", {"name": "mug"}),
                    ("PUT", "/things/1", {"name": "big kettle"}), ("DELETE", "/things/2", None),
                    ("GET", "/things/", None), ("GET", "/", None), ("OPTIONS", "/things/", None)]
        for accept in JSON_ACCEPTS:
            with_page, without = make().test_client(), make(browsable=False).test_client()
            for method, path, body in sequence:
                seen = _exchange(with_page, method, path, accept, body)
                assert seen == _exchange(without, method, path, accept, body), (accept, method,
                                                                                path)
        with_page, without = make().test_client(), make(browsable=False).test_client()
        forced = _exchange(with_page, "GET", "/things/1?format=json", BROWSER_ACCEPT)
        assert forced == _exchange(without, "GET", "/things/1?format=json", BROWSER_ACCEPT)
        assert forced[2].startswith(b"{")

    def test_its_negotiation_keeps_no_long_accept_and_no_more_than_1024(self):
        app = flask.Flask(__name__)
        app.add_url_rule("/", "data", lambda: flask.jsonify(a=1))
        BrowsableAPI(app)
        client = app.test_client()
        flask_api._page_for.clear()
        long_accept = "text/html, " + ", ".join("x/y{}".format(n) for n in range(60))
        assert client.get("/", headers={"Accept": long_accept}).mimetype == "text/html"
        for n in range(2100):  # distinct short headers: at most 1,024 kept at any time
            accept = "application/json, x/y{}".format(n)
            assert client.get("/", headers={"Accept": accept}).mimetype == "application/json"
            assert len(flask_api._page_for) <= 1024
        assert not any(len(key[0]) > 256 for key in flask_api._page_for)
        assert client.get("/", headers={"Accept": BROWSER_ACCEPT}).mimetype == "text/html"

    @pytest.mark.parametrize("path", ["/file.json", "/stream", "/html", "/text", "/not-json",
                                      "/nowhere"])
    def test_browsers_get_files_streams_html_and_unparsable_json_untouched(self, path):
        with_page = _other_responses_app().test_client()
        without = _other_responses_app(browsable=False).test_client()
        seen = _exchange(with_page, "GET", path, BROWSER_ACCEPT)
        assert seen == _exchange(without, "GET", path, BROWSER_ACCEPT)
        assert not seen[2].startswith(b"<!DOCTYPE html>")

    @pytest.mark.parametrize("headers", [{}, {"Transfer-Encoding": "chunked"}])
    def test_browsable_api_keeps_flasks_request_class_and_how_it_reads_bodies(self, headers):
        def echo():
            return jsonify(type=type(request).__name__, data=request.get_data(as_text=True),
                           input=type(request.environ["wsgi.input"]).__name__)

        answers = []
        for app in (_plain_things(), _plain_things(browsable=False)):
            app.add_url_rule("/echo", "echo", echo, methods=["POST"])
            response = app.test_client().post("/echo", data=b"x=1", headers=headers)
            answers.append((response.status_code, response.get_data()))
            assert app.request_class is flask.Request
        assert answers[0] == answers[1]

    @pytest.mark.parametrize("library", sorted(THING_APPS))
    def test_browsers_get_the_page_showing_each_librarys_json_response(self, library):
        client = THING_APPS[library]().test_client()
        page = _browse(client, "/things/")
        assert page.status_code == 200
        assert page.content_type == "text/html; charset=utf-8"
        assert page.one("h1").text == "Thing List"
        # A <div> of Markdown's HTML, or a <pre> of the docstring where Markdown is not installed
        description = page.find("div", class_="description") or page.find("pre",
                                                                          class_="description")
        assert len(description) == 1 and "All things." in description[0].text
        expected = client.get("/things/", headers={"Accept": "application/json"}).get_json()
        assert page.body_json == expected
        links = [a.attrs["href"] for a in page.find("a", within=page.one("pre", class_="response"))]
        assert links == ["http://localhost/things/1", "http://localhost/things/2"]
        assert page.buttons == {"OPTIONS", "POST"}
        assert page.find("a", class_="button", href="/things/")  # GET

    @pytest.mark.parametrize("library", sorted(THING_APPS))
    def test_page_shows_the_apps_error_status_and_its_own_error_body(self, library):
        _skip_where_the_library_breaks_errors(library)
        client = THING_APPS[library]().test_client()
        page = _browse(client, "/things/9")
        json_answer = client.get("/things/9", headers={"Accept": "application/json"})
        assert page.status_code == 404
        assert "HTTP 404 NOT FOUND" in page.response_text.upper()
        assert page.body_json == json_answer.get_json()
        assert page.buttons >= {"PUT", "DELETE"}

    def test_page_keeps_the_status_and_headers_the_view_set_but_shows_no_cookie(self):
        app = _plain_things()

        @app.route("/made", methods=["GET", "POST"])
        def made():
            response = jsonify(made=True)
            response.status_code = 201
            response.headers["X-Thing"] = "one"
            response.headers["Vary"] = "Origin"
            response.set_cookie("session_id", "s3cret", httponly=True)
            return response

        response = app.test_client().get("/made", headers={"Accept": BROWSER_ACCEPT})
        page = _Page(response)
        assert response.status_code == 201
        assert response.headers["X-Thing"] == "one"
        assert response.headers["Vary"] == "Origin, Accept"
        assert "s3cret" in response.headers["Set-Cookie"]
        assert "X-Thing: one" in page.response_text
        assert "s3cret" not in page.html
        assert response.headers["X-Frame-Options"] == "SAMEORIGIN"

    def test_page_of_json_with_a_lone_surrogate_is_escaped_not_a_500(self):
        app = _plain_things()
        app.add_url_rule("/odd", "odd", lambda: flask.Response('{"text": "\\ud800"}',
                                                               mimetype="application/json"))
        response = app.test_client().get("/odd", headers={"Accept": BROWSER_ACCEPT})
        assert response.status_code == 200
        assert "\\ud800" in response.get_data(as_text=True)

    def test_format_override_and_its_config_work_as_on_a_flaskapi_app(self):
        client = _plain_things().test_client()
        assert client.get("/things/1?format=json",
                          headers={"Accept": BROWSER_ACCEPT}).mimetype == "application/json"
        api_page = client.get("/things/1?format=api", headers={"Accept": "application/json"})
        assert api_page.mimetype == "text/html"
        assert _browse(client, "/things/1").find("a", href="/things/1?format=json")  # View as JSON
        app = _plain_things()
        app.config["URL_FORMAT_OVERRIDE"] = None
        off = app.test_client().get("/things/1?format=json", headers={"Accept": BROWSER_ACCEPT})
        assert off.mimetype == "text/html"

    @pytest.mark.parametrize("accept", ["application/json;q=0.1, */*", "text/*", "TEXT/HTML"])
    def test_the_page_is_chosen_by_the_same_negotiation_as_flaskapi(self, accept):
        client = _plain_things().test_client()
        response = client.get("/things/1", headers={"Accept": accept})
        assert response.mimetype == "text/html"

    def test_init_app_in_an_app_factory_serves_each_app(self):
        browsable = BrowsableAPI()
        apps = [_plain_things(browsable=False), _plain_things(browsable=False)]
        for app in apps:
            browsable.init_app(app)
            assert app.extensions["flask_api_browsable"] is browsable
            assert _browse(app.test_client(), "/things/1").body_json["name"] == "kettle"

    def test_a_request_served_inside_another_keeps_each_ones_answer(self):
        """A view that calls another app (or itself) mid-request: each gets what it asked for."""
        inner = _plain_things()
        outer = _plain_things()

        @outer.route("/relay/<accept>")
        def relay(accept):
            answer = inner.test_client().get("/things/1", headers={"Accept": accept.replace("~",
                                                                                            "/")})
            return jsonify(inner=answer.mimetype)

        client = outer.test_client()
        from_browser = client.get("/relay/application~json", headers={"Accept": BROWSER_ACCEPT})
        assert from_browser.mimetype == "text/html"
        assert _Page(from_browser).body_json == {"inner": "application/json"}
        from_api = client.get("/relay/text~html", headers={"Accept": "application/json"})
        assert from_api.get_json() == {"inner": "text/html"}

    @pytest.mark.parametrize("headers", SAME_ORIGIN_HEADERS[:2])
    def test_plain_form_override_sends_a_put_to_a_plain_flask_app(self, headers):
        client = _plain_things().test_client()
        response = _form_submit(client, "/things/1", {
            "_method": "PUT", "_content": '{"name": "offline"}',
            "_content_type": "application/json"}, headers)
        assert response.status_code == 200
        assert client.get("/things/1").get_json()["name"] == "offline"

    @pytest.mark.parametrize("headers", CROSS_SITE_HEADERS[:2])
    def test_plain_form_override_from_another_site_is_refused_on_a_plain_flask_app(self, headers):
        client = _plain_things().test_client()
        response = _form_submit(client, "/things/1", {
            "_method": "DELETE", "_content": "", "_content_type": "application/json"}, headers)
        assert response.status_code == 405
        assert client.get("/things/1").status_code == 200

    def test_flaskapi_view_returning_jsonify_gives_browsers_the_page(self, app, client):
        @app.route("/made", methods=["GET", "PUT"])
        def made():
            """Made with jsonify."""
            return jsonify(made=True), 202, {"X-Thing": "one"}

        response = client.get("/made", headers={"Accept": BROWSER_ACCEPT})
        page = _Page(response)
        assert (response.status_code, response.mimetype) == (202, "text/html")
        assert page.one("h1").text == "Made"
        assert page.body_json == {"made": True}
        assert "X-Thing: one" in page.response_text
        assert "PUT" in page.buttons

    def test_flaskapi_view_limited_to_json_keeps_jsonify_as_json_for_browsers(self, app, client):
        @app.route("/made")
        @set_renderers(JSONRenderer)
        def made():
            return jsonify(made=True)

        response = client.get("/made", headers={"Accept": BROWSER_ACCEPT})
        assert (response.mimetype, response.get_json()) == ("application/json", {"made": True})

    def test_browsable_api_on_a_flaskapi_app_changes_nothing_it_already_does(self):
        app = notes_app.create_app()
        middleware = app.wsgi_app
        BrowsableAPI(app)
        assert app.wsgi_app is middleware
        assert app.after_request_funcs.get(None) is None

    def test_flask_restfuls_own_json_405_is_the_page_for_browsers_and_stays_for_clients(self):
        plain = _restful_login(browsable=False).test_client()
        try:  # plain Flask-RESTful, without the page: can it answer an error on this Flask?
            expected = plain.get("/login", headers={"Accept": "application/json"})
        except TypeError as exc:  # 0.3.10's error_router on Flask 3.2, which passes the app context
            pytest.skip("Flask-RESTful cannot answer any error on this Flask: {}".format(exc))
        client = _restful_login(browsable=True).test_client()
        page = _browse(client, "/login")
        assert page.status_code == 405 and page.content_type == HTML_TYPE
        assert page.one("h1").text == "Login" and "Log in: POST a name and a password." in page.html
        assert page.buttons == {"OPTIONS", "POST"} and page.find("textarea")
        assert page.body_json == _json(expected)  # its {"message": ...}, shown
        assert client.get("/login", headers={"Accept": BROWSER_ACCEPT}).headers["Allow"] == \
            expected.headers["Allow"]
        api = client.get("/login", headers={"Accept": "application/json"})
        assert (api.status_code, api.headers, api.data) == (
            405, expected.headers, expected.data)  # byte for byte
        assert b'"message"' in api.data

    def test_browser_follows_a_link_and_writes_from_the_form_on_each_librarys_page(
            self, things_tab, things_site):
        tab = things_tab
        tab.goto("/things/")
        _expect(tab.locator("h1")).to_have_text("Thing List")
        _expect(tab.locator("pre.response")).to_contain_text('"name": "teapot"')
        tab.get_by_role("link", name=things_site + "/things/1").click()
        tab.wait_for_url(things_site + "/things/1")
        _expect(tab.locator("h1")).to_have_text("Thing Detail")
        _raw_tab(tab)
        tab.get_by_label("Content").fill('{"name": "copper kettle"}')
        tab.get_by_role("button", name="PUT").click()
        panel = tab.locator("pre.response")
        _expect(panel).to_contain_text("PUT /things/1")
        _expect(panel).to_contain_text('"name": "copper kettle"')
        assert _api(things_site, "/things/1")[1]["name"] == "copper kettle"

    def test_browser_view_as_json_shows_each_librarys_raw_json(self, things_tab, things_site):
        things_tab.goto("/things/2")
        things_tab.get_by_role("link", name="View as JSON").click()
        things_tab.wait_for_url(things_site + "/things/2?format=json")
        shown = json.loads(things_tab.locator("body").inner_text())
        assert shown == _api(things_site, "/things/2")[1]

    def test_browser_index_at_the_root_links_to_each_librarys_routes(self, things_tab, things_site,
                                                                     request):
        _skip_where_the_library_breaks_errors(request.node.callspec.params["things_site"])
        things_tab.goto("/")
        _expect(things_tab.locator("h1")).to_have_text("Routes")
        _expect(things_tab.locator("pre.response")).to_contain_text('"rule": "/things/<int:key>"')
        things_tab.get_by_role("link", name=things_site + "/things/").click()
        things_tab.wait_for_url(things_site + "/things/")
        _expect(things_tab.locator("h1")).to_have_text("Thing List")
        api_client = urllib.request.Request(things_site + "/",
                                            headers={"Accept": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(api_client, timeout=10)
        assert error.value.code == 404

    def test_browser_without_javascript_puts_from_each_librarys_page(self, chromium, things_site):
        _send_without_javascript(chromium, things_site, "/things/1", '{"name": "offline kettle"}',
                                 "PUT", shown='"name": "offline kettle"')
        assert _api(things_site, "/things/1")[1]["name"] == "offline kettle"


# ---------------------------------------------------------------------------
# The OpenAPI document
# ---------------------------------------------------------------------------

def _blueprint_app():
    app = FlaskAPI(__name__)
    blueprint = Blueprint("shop", __name__, url_prefix="/shop")
    blueprint.add_url_rule("/things/<int:key>", view_func=_Things.as_view("things"))
    app.register_blueprint(blueprint)
    return app


def _operation(document, path, method):
    return document["paths"][path][method]


def _converter_app():
    app = FlaskAPI(__name__)
    for rule in ["/int/<int:a>", "/signed/<int(signed=True):a>", "/range/<int(min=1, max=9):a>",
                 "/float/<float:a>", "/uuid/<uuid:a>", "/path/<path:a>", "/any/<any(b, 'c.d'):a>",
                 "/str/<a>", "/len/<string(length=4):a>", "/two/<int:a>/<b>/",
                 "/span/<string(minlength=2, maxlength=8):a>"]:
        app.add_url_rule(rule, rule.split("/")[1], lambda **kwargs: kwargs)
    return app


class _Things(MethodView):
    """Things.

    Listed, and added by POST.

    ---
    responses: YAML for another tool, not a description
    """

    def get(self):
        return []

    def post(self):
        """Add a thing."""
        return {}, 201

    def head(self):
        return []


def _query_app():
    """An app with QUERY beside GET, a method of its own (BREW), and a fragment for QUERY."""
    app = FlaskAPI(__name__)

    @app.route("/search", methods=["GET", "QUERY"])
    @set_openapi({"query": {"summary": "Search by a body.", "requestBody": THING_BODY}})
    def search():
        """Search."""
        return [request.data] if request.method == "QUERY" else []
    app.add_url_rule("/pot", "pot", lambda: {"brewing": True}, methods=["BREW"])
    app.add_url_rule("/plain", "plain", lambda: {})
    return app


def _document_page(doc):
    app = FlaskAPI(__name__)

    def view():
        return {}
    view.__doc__ = doc
    app.add_url_rule("/x", "x", view)
    return _browse(app.test_client(), "/openapi.json")


def _shop_app():
    """The FlaskAPI app that CI fuzzes with schemathesis (.ci/schemathesis-apps) beside the
    notes app and the wrapped Flask-RESTful and flask-smorest ones: a blueprint, werkzeug's
    converters, a MethodView whose POST answers 201, a DELETE answering 204, a form-only POST,
    and a stream."""
    app = _converter_app()
    things = dict(THINGS)
    shop = Blueprint("shop", __name__, url_prefix="/shop")
    shop.add_url_rule("/things/", view_func=_Things.as_view("things"))

    @shop.route("/things/<int:key>", methods=["GET", "DELETE"])
    def thing(key):
        """One thing; DELETE removes it."""
        if key not in things:
            raise NotFound("No such thing.")
        if request.method == "DELETE":
            del things[key]
            return None, 204
        return {"key": key, "name": things[key]}

    @shop.route("/orders", methods=["POST"])
    @set_parsers(URLEncodedParser)
    def order():
        """Order a thing, by a form."""
        return {"ordered": request.form.get("name", "")}, 201

    @shop.route("/things/feed")
    @set_openapi({"responses": {"200": {"content": {"application/jsonl": {"itemSchema": {
        "type": "object", "required": ["key", "name"], "properties": {
            "key": {"type": "integer"}, "name": {"type": "string"}}}}}}}})
    def feed():
        """The things, streamed one at a time."""
        for key, name in sorted(things.items()):
            yield {"key": key, "name": name}
    app.register_blueprint(shop)
    return app


def _served_document(app):
    """The document as a client gets it from ``/openapi.json``, checked by the validator."""
    response = app.test_client().get("/openapi.json", headers=JSON)
    assert response.status_code == 200
    return _validated(response.get_json())


def _covers(responses, code):
    """Whether a documented status or range (``2XX``) covers an answer's status, as for
    schemathesis; ``default`` covers any."""
    return bool({str(code), str(code)[0] + "XX", "default"} & set(responses))


def _smorest_bodies(version, browsable=True):
    """A flask-smorest app with the bodies its users write: JSON with a ``Nested`` field that
    has a description and ``allow_none``; files; ``location="form"``; form fields beside
    files and beside JSON (the second of which flask-smorest writes as 2.0's formData); a
    POST that takes no body arguments; and QUERY, on a MethodView and on a plain route."""
    flask_smorest, ma = _optional("flask_smorest"), _optional("marshmallow")
    app = Flask(__name__)
    app.config.update(API_TITLE="Pets", API_VERSION="1", OPENAPI_VERSION=version,
                      OPENAPI_URL_PREFIX="/", OPENAPI_JSON_PATH="spec.json")
    api = flask_smorest.Api(app)
    blueprint = flask_smorest.Blueprint("pets", __name__)

    class Owner(ma.Schema):
        name = ma.fields.Str(required=True)

    class Pet(ma.Schema):
        name = ma.fields.Str(required=True)
        owner = ma.fields.Nested(Owner, allow_none=True, metadata={"description": "Who."})

    class Title(ma.Schema):
        title = ma.fields.Str(required=True)

    class Photo(ma.Schema):
        photo = flask_smorest.fields.Upload(required=True)

    def echo(*parts):
        got = {}
        for part in parts:
            got.update({key: getattr(value, "filename", value) for key, value in part.items()})
        return jsonify(got)

    blueprint.route("/pets", methods=["POST"])(blueprint.arguments(Pet)(echo))
    blueprint.route("/photos", methods=["POST"], endpoint="photos")(
        blueprint.arguments(Photo, location="files")(echo))
    blueprint.route("/titles", methods=["POST"], endpoint="titles")(
        blueprint.arguments(Title, location="form")(echo))
    blueprint.route("/albums", methods=["POST"], endpoint="albums")(  # formData: title
        blueprint.arguments(Title, location="form")(
            blueprint.arguments(Photo, location="files")(echo)))
    blueprint.route("/tagged", methods=["POST"], endpoint="tagged")(  # formData beside JSON
        blueprint.arguments(Title, location="form")(blueprint.arguments(Pet)(echo)))
    blueprint.route("/ping", methods=["POST"], endpoint="ping")(lambda: jsonify(ping=True))

    @blueprint.route("/search")
    class Search(MethodView):
        methods = ["GET", "QUERY"]

        def get(self):
            return jsonify([])

        @blueprint.arguments(Pet)
        def query(self, pet):
            return jsonify([pet])
    api.register_blueprint(blueprint)
    app.add_url_rule("/find", "find", lambda: jsonify(request.get_json()), methods=["QUERY"])
    return _finish(app, browsable)


def _apiflask_bodies(version, browsable=True):
    """The same bodies on APIFlask (which documents no QUERY), at its default OpenAPI
    version or ``version``."""
    apiflask = _optional("apiflask")
    app = apiflask.APIFlask(__name__, spec_path="/spec.json")
    if version:
        app.config["OPENAPI_VERSION"] = version

    class Owner(apiflask.Schema):
        name = apiflask.fields.String(required=True)

    class Pet(apiflask.Schema):
        name = apiflask.fields.String(required=True)
        owner = apiflask.fields.Nested(Owner, allow_none=True, metadata={"description": "Who."})

    class Title(apiflask.Schema):
        title = apiflask.fields.String(required=True)

    class Album(Title):
        photo = apiflask.fields.File(required=True)

    def echo(**parts):
        got = {}
        for part in parts.values():
            got.update({key: getattr(value, "filename", value) for key, value in part.items()})
        return got

    app.post("/pets")(app.input(Pet)(echo))
    app.post("/albums", endpoint="albums")(app.input(Album, location="form_and_files")(echo))
    app.post("/titles", endpoint="titles")(app.input(Title, location="form")(echo))
    app.route("/find", methods=["QUERY"])(lambda: request.get_json())
    return _finish(app, browsable)


LIBRARY_BODIES = {("flask-smorest", "3.0.3"): _smorest_bodies,
                  ("flask-smorest", "3.1.0"): _smorest_bodies,
                  ("apiflask", None): _apiflask_bodies, ("apiflask", "3.0.3"): _apiflask_bodies}


def _own_document(app):
    """The app's own library's document, as its own URL serves it: the bytes, and parsed."""
    response = app.test_client().get("/spec.json")
    assert response.status_code == 200
    return response.data, response.get_json()


def _deep(levels):
    """A value of lists nested ``levels`` deep: ``[[[]]]`` is 3."""
    value = []
    for _ in range(levels - 1):
        value = [value]
    return value


def _fragment_app(fragment):
    """An app whose POST /deep carries ``fragment`` beside a body schema with a field, and
    whose POST /fine has the same body and nothing else."""
    app = FlaskAPI(__name__)
    body = {"requestBody": {"content": {"application/json": {"schema": THING_BODY[
        "content"]["application/json"]["schema"]}}}}

    @app.route("/deep", methods=["GET", "POST"])
    @set_openapi(dict(fragment, post=body))
    def deep():
        return {}

    @app.route("/fine", methods=["GET", "POST"])
    @set_openapi({"post": body})
    def fine():
        return {}
    app.testing = True
    return app


def _itself():
    loop = {"description": "A dict that holds itself."}
    loop["self"] = loop
    return loop


def _apiflask_pets(browsable, **options):
    """A small APIFlask app in the shape of APIFlask's own examples: schemas in and out."""
    apiflask = _optional("apiflask")
    app = apiflask.APIFlask(__name__, **options)
    pets = [{"id": 0, "name": "Kitty"}]

    class PetIn(apiflask.Schema):
        name = apiflask.fields.String(required=True)

    class PetOut(apiflask.Schema):
        id = apiflask.fields.Integer()
        name = apiflask.fields.String()

    @app.get("/pets")
    @app.output(PetOut(many=True))
    def get_pets():
        """All pets."""
        return pets

    @app.post("/pets")
    @app.input(PetIn)
    @app.output(PetOut, status_code=201)
    def create_pet(json_data):
        """Add a pet."""
        pets.append(dict(json_data, id=len(pets)))
        return pets[-1]

    return _finish(app, browsable)


def _embedded_schemas(client, url):
    """The page's schema block, parsed: {method: {"content": [...], "schema": ...}}; None if
    the page has none."""
    page = _browse(client, url)
    assert page.status_code in (200, 405)
    blocks = page.find("script", type="application/json", id="api-schemas")
    return json.loads(blocks[0].text) if blocks else None


class TestOpenAPI:
    """The document of each kind of app: valid, every answer documented, fragments merged."""

    @pytest.mark.parametrize("make", ["notes", "converters", "blueprint", "flask", "flask-restful",
                                      "flask-smorest"])
    def test_documents_are_valid_openapi_3_1_by_openapi_spec_validator(self, make):
        validator = _optional("openapi_spec_validator")
        apps = dict(THING_APPS, notes=notes_app.create_app, converters=_converter_app,
                    blueprint=_blueprint_app)
        document = openapi_document(apps[make]())
        validator.validate(document)
        assert document["paths"]

    def test_openapi_json_gives_clients_the_document_and_browsers_the_page(self):
        client = notes_app.create_app().test_client()
        response = client.get("/openapi.json", headers=JSON)
        assert response.status_code == 200
        assert response.mimetype == "application/json"
        document = _validated(response.get_json())
        assert document["openapi"] == "3.1.0"
        assert document["info"] == {"title": "Notes App", "version": "0"}
        assert sorted(document["paths"]) == ["/", "/changes", "/{key}/"]
        page = _browse(client, "/openapi.json")
        assert page.content_type.startswith("text/html")
        assert page.body_json == document

    def test_notes_document_holds_its_bodies_and_every_answer_it_gives(self):
        document = _validated(notes_app.create_app().openapi())
        post = _operation(document, "/", "post")
        note = post["responses"]["201"]["content"]["application/json"]["schema"]
        assert note["properties"]["text"] == {"type": "string"}
        assert "200" not in post["responses"]  # a fragment's None removes the guess
        assert sorted(post["responses"]) == ["201", "400", "406", "409", "413", "415", "503"]
        assert sorted(post["requestBody"]["content"]) == [
            "application/json", "application/x-www-form-urlencoded", "multipart/form-data"]
        delete = _operation(document, "/{key}/", "delete")
        assert sorted(delete["responses"]) == ["204", "404", "406", "503"]
        get = _operation(document, "/{key}/", "get")
        assert get["responses"]["200"]["content"]["application/json"]["schema"] == note
        assert get["responses"]["200"]["content"]["text/html"] == {}  # ?format=api's page
        assert post["responses"]["201"]["content"]["text/html"] == {}  # for a fragment's too
        assert get["summary"] == "One note."
        assert [p["name"] for p in get["parameters"]] == ["key", "format"]

    def test_paths_take_openapi_templates_and_parameters_typed_from_the_converters(self):
        document = _validated(_converter_app().openapi())

        def schema(path, name="a"):
            parameters = _operation(document, path, "get")["parameters"]
            found = [p for p in parameters if p["name"] == name]
            assert found[0]["in"] == "path" and found[0]["required"] is True
            return found[0]["schema"]
        assert schema("/int/{a}") == {"type": "integer", "minimum": 0}  # Flask's int is unsigned
        assert schema("/signed/{a}") == {"type": "integer"}
        assert schema("/range/{a}") == {"type": "integer", "minimum": 1, "maximum": 9}
        assert schema("/float/{a}") == {"type": "number", "minimum": 0}
        assert schema("/uuid/{a}") == {"type": "string", "format": "uuid"}
        assert schema("/path/{a}") == {"type": "string"}
        assert schema("/any/{a}") == {"type": "string", "enum": ["b", "c.d"]}
        assert schema("/str/{a}") == {"type": "string", "minLength": 1}
        assert schema("/len/{a}") == {"type": "string", "minLength": 4, "maxLength": 4}
        assert schema("/span/{a}") == {"type": "string", "minLength": 2, "maxLength": 8}
        assert schema("/two/{a}/{b}/", "b") == {"type": "string", "minLength": 1}

    def test_an_unknown_converter_is_a_string(self):
        from werkzeug.routing import BaseConverter

        class Hex(BaseConverter):
            regex = "[0-9a-f]+"
        app = FlaskAPI(__name__)
        app.url_map.converters["hex"] = Hex
        app.add_url_rule("/h/<hex:value>", "h", lambda value: {})
        parameters = _operation(_validated(app.openapi()), "/h/{value}", "get")["parameters"]
        assert parameters[0]["schema"] == {"type": "string"}

    def test_operation_ids_are_unique_word_characters_across_blueprints_and_rules(self):
        app = FlaskAPI(__name__)
        for name in ["shop", "admin"]:
            blueprint = Blueprint(name, __name__, url_prefix="/" + name)

            @blueprint.route("/items")
            def items():
                """Items of one blueprint."""
                return []
            app.register_blueprint(blueprint)
        app.add_url_rule("/shop_items", "shop_items", lambda: [])  # shop.items, once its dot goes

        def pages(n):
            return []
        app.add_url_rule("/pages/", "pages", pages, defaults={"n": 1})
        app.add_url_rule("/pages/<int:n>", "pages", pages)
        document = _validated(app.openapi())
        ids = [operation["operationId"] for item in document["paths"].values()
               for operation in item.values()]
        assert len(ids) == len(set(ids)) == 5
        assert all(re.fullmatch(r"[A-Za-z0-9_]+", one) for one in ids)
        assert _operation(document, "/shop/items", "get")["operationId"] == "shop_items_get"
        assert _operation(document, "/admin/items", "get")["operationId"] == "admin_items_get"
        assert _operation(document, "/shop/items", "get")["tags"] == ["shop"]
        assert document["tags"] == [{"name": "admin"}, {"name": "shop"}]
        assert app.openapi()["paths"] == document["paths"]  # stable: the same ids every time

    def test_method_views_have_an_operation_per_method_with_docstrings_cut_at_dashes(self):
        app = FlaskAPI(__name__)
        app.add_url_rule("/things/", view_func=_Things.as_view("things"))
        item = _validated(app.openapi())["paths"]["/things/"]
        assert sorted(item) == ["get", "head", "post"]  # HEAD named by the view; OPTIONS not
        assert item["get"]["summary"] == "Things."
        assert item["get"]["description"] == "Listed, and added by POST."
        assert item["post"]["summary"] == "Add a thing."

    def test_head_and_options_are_left_out_unless_the_view_names_them(self):
        app = FlaskAPI(__name__)
        app.add_url_rule("/auto", "auto", lambda: {})
        app.add_url_rule("/named", "named", lambda: {}, methods=["GET", "OPTIONS"])
        paths = _validated(app.openapi())["paths"]
        assert sorted(paths["/auto"]) == ["get"]
        assert sorted(paths["/named"]) == ["get", "options"]

    def test_a_method_openapi_3_1_has_no_field_for_is_left_out_of_its_document(self):
        app = _query_app()
        document = _served_document(app)
        assert sorted(document["paths"]) == ["/plain", "/search"]  # /pot has only BREW
        assert sorted(document["paths"]["/search"]) == ["get"]
        assert _operation(document, "/search", "get")["summary"] == "Search."  # not QUERY's
        assert app.test_client().open("/search", method="QUERY", json={"name": "cup"},
                                      headers=JSON).get_json() == [{"name": "cup"}]
        page, routes = _index(app.test_client())
        assert routes["/pot"]["methods"] == ["BREW"]  # the route index still lists them

    def test_openapi_3_2_has_query_as_an_operation_and_other_methods_as_additional_operations(self):
        app = _query_app()
        app.config["OPENAPI_DOCUMENT_VERSION"] = "3.2.0"
        document = _served_document(app)
        assert document["openapi"] == "3.2.0"
        search = document["paths"]["/search"]
        assert sorted(search) == ["get", "query"]
        assert search["query"]["summary"] == "Search by a body."
        assert search["query"]["requestBody"]["content"]["application/json"] == THING_BODY[
            "content"]["application/json"]  # merged into the guess, with its other types
        assert sorted(search["query"]["responses"]) == ["200", "2XX", "400", "406", "413", "415"]
        assert search["query"]["operationId"] == "search_query"
        pot = document["paths"]["/pot"]
        assert list(pot) == ["additionalOperations"]
        assert list(pot["additionalOperations"]) == ["BREW"]
        assert pot["additionalOperations"]["BREW"]["operationId"] == "pot_brew"
        assert "requestBody" not in pot["additionalOperations"]["BREW"]  # what BREW takes, unsaid

    def test_request_bodies_and_responses_follow_the_parsers_and_renderers_in_force(self):
        app = FlaskAPI(__name__)

        @app.route("/json-only", methods=["PUT"])
        @set_parsers(JSONParser)
        @set_renderers(JSONRenderer)
        def json_only():
            return {}

        @app.route("/defaults", methods=["GET", "PATCH"])
        def defaults():
            return {}
        document = _validated(app.openapi())
        put = _operation(document, "/json-only", "put")
        assert list(put["requestBody"]["content"]) == ["application/json"]
        assert list(put["responses"]["200"]["content"]) == ["application/json"]
        assert put["parameters"][0]["schema"]["enum"] == ["", "json"]  # ?format= of its renderers
        assert sorted(put["responses"]) == ["200", "2XX", "400", "406", "413", "415"]
        error = put["responses"]["415"]["content"]["application/json"]["schema"]
        assert document["components"]["schemas"]["Error"]["properties"] == {
            "detail": {"type": "string"}} and error == {"$ref": "#/components/schemas/Error"}
        patch = _operation(document, "/defaults", "patch")
        assert sorted(patch["requestBody"]["content"]) == [
            "application/json", "application/x-www-form-urlencoded", "multipart/form-data"]
        assert "requestBody" not in _operation(document, "/defaults", "get")
        assert sorted(_operation(document, "/defaults", "get")["responses"]) == [
            "200", "2XX", "406"]

    def test_each_documented_error_is_what_the_app_answers(self):
        app = FlaskAPI(__name__)
        app.config["MAX_CONTENT_LENGTH"] = 10

        @app.route("/<int:key>", methods=["POST"])
        @set_parsers(JSONParser)
        def post(key):
            return {"key": key, "data": request.data}
        client = app.test_client()
        responses = _operation(app.openapi(), "/{key}", "post")["responses"]
        answers = [client.post("/1", data="{", content_type="application/json", headers=JSON),
                   client.post("/1", data="[1, 2, 3, 4, 5]", content_type="application/json"),
                   client.post("/1", data="a=b", content_type="text/plain", headers=JSON),
                   client.post("/1", data="{}", content_type="application/json",
                               headers={"Accept": "image/png"})]
        assert [answer.status_code for answer in answers] == [400, 413, 415, 406]
        for answer in answers:
            assert str(answer.status_code) in responses
            assert set(answer.get_json()) == {"detail"}

    def test_set_openapi_merges_a_fragment_into_the_operations_of_a_view(self):
        app = FlaskAPI(__name__)

        @app.route("/tea", methods=["GET", "POST"])
        @set_openapi({"deprecated": True, "post": {"responses": {"418": {
            "description": "I'm a teapot."}}}})
        def tea():
            return {}

        class Cups(MethodView):
            @set_openapi({"summary": "Count the cups."})
            def get(self):
                return {}
        Cups.openapi = {"tags": ["kitchen"]}  # the attribute does what the decorator does
        app.add_url_rule("/cups", view_func=Cups.as_view("cups"))
        document = _validated(app.openapi())
        assert _operation(document, "/tea", "get")["deprecated"] is True
        assert "418" not in _operation(document, "/tea", "get")["responses"]
        assert _operation(document, "/tea", "post")["responses"]["418"] == {
            "description": "I'm a teapot."}
        assert "200" in _operation(document, "/tea", "post")["responses"]  # merged, not replaced
        cups = _operation(document, "/cups", "get")
        assert (cups["summary"], cups["tags"]) == ("Count the cups.", ["kitchen"])

    def test_a_fragment_shared_by_two_views_lists_each_ones_own_media_types(self):
        busy = {"description": "Busy.", "content": {"application/json": {}}}
        app = FlaskAPI(__name__)

        @app.route("/page")
        @set_openapi({"responses": {"503": busy}})
        def page():
            return {}

        @app.route("/json")
        @set_renderers(JSONRenderer)
        @set_openapi({"responses": {"503": busy}})
        def json_only():
            return {}
        document = _validated(app.openapi())
        assert list(_operation(document, "/page", "get")["responses"]["503"]["content"]) == [
            "application/json", "text/html"]
        assert list(_operation(document, "/json", "get")["responses"]["503"]["content"]) == [
            "application/json"]  # not the page's text/html, which /json does not render
        assert busy == {"description": "Busy.", "content": {"application/json": {}}}

    def test_a_none_in_a_fragment_removes_at_any_depth_and_is_never_null(self):
        app = FlaskAPI(__name__)

        @app.route("/tea", methods=["POST"])
        @set_openapi({"post": {"responses": {"201": {"description": "Made.", "content": None}}}})
        def tea():
            return {}, 201
        made = _operation(_validated(app.openapi()), "/tea", "post")["responses"]["201"]
        assert made == {"description": "Made."}

    def test_info_comes_from_config_keys(self):
        app = FlaskAPI(__name__)
        app.config.update(API_TITLE="Tea", API_VERSION="2.1", API_DESCRIPTION="Hot drinks.")
        assert app.openapi()["info"] == {"title": "Tea", "version": "2.1",
                                         "description": "Hot drinks."}

    def test_document_is_built_on_first_request_and_again_only_when_routes_change(self):
        app = notes_app.create_app()
        client = app.test_client()
        client.get("/", headers=JSON)
        assert "flask_api_openapi" not in app.extensions  # JSON clients never build it
        client.get("/", headers={"Accept": BROWSER_ACCEPT})  # a page's form from its schema does
        first = app.openapi()
        assert app.extensions["flask_api_openapi"][1] is first
        assert client.get("/openapi.json", headers=JSON).get_json() == first
        assert app.openapi() is first

    def test_document_is_built_again_when_a_route_is_added(self):
        app = notes_app.create_app()
        first = app.openapi()
        app.add_url_rule("/later", "later", lambda: {})
        assert "/later" not in first["paths"]
        assert "/later" in app.openapi()["paths"]
        assert "/later" in app.test_client().get("/openapi.json", headers=JSON).get_json()["paths"]

    def test_config_moves_the_document_or_switches_it_off(self):
        moved = Flask(__name__)
        moved.config["OPENAPI_URL"] = "/api/openapi.json"
        moved.add_url_rule("/things", "things", lambda: jsonify([]))
        BrowsableAPI(moved)
        client = moved.test_client()
        assert client.get("/openapi.json").status_code == 404
        assert "/things" in client.get("/api/openapi.json").get_json()["paths"]
        off = Flask(__name__)
        off.config["OPENAPI_URL"] = None
        BrowsableAPI(off)
        assert off.test_client().get("/openapi.json").status_code == 404
        app = FlaskAPI(__name__)
        app.config["OPENAPI_URL"] = None  # after the app is made: still off
        response = app.test_client().get("/openapi.json", headers=JSON)
        assert response.status_code == 404 and "detail" in response.get_json()

    @pytest.mark.parametrize("make", [FlaskAPI, Flask])
    def test_a_route_the_app_has_at_the_documents_url_wins(self, make):
        app = make(__name__)
        if make is Flask:
            BrowsableAPI(app)
        app.add_url_rule("/openapi.json", "mine", lambda: jsonify(mine=True), methods=["GET",
                                                                                       "PUT"])
        client = app.test_client()
        assert client.get("/openapi.json", headers=JSON).get_json() == {"mine": True}
        assert client.put("/openapi.json", headers=JSON).get_json() == {"mine": True}
        assert "/openapi.json" in openapi_document(app)["paths"]  # documented as the app's own

    def test_an_async_view_the_app_has_at_the_documents_url_is_run(self):
        pytest.importorskip("asgiref")
        app = FlaskAPI(__name__)
        if not hasattr(app, "ensure_sync"):
            pytest.skip("async views need Flask >= 2.0")

        async def mine():
            return {"mine": True}
        app.add_url_rule("/openapi.json", "mine", mine)
        # A thread of its own: Playwright's sync API may keep an event loop running in this one.
        responses = []
        worker = threading.Thread(target=lambda: responses.append(
            app.test_client().get("/openapi.json", headers=JSON)))
        worker.start()
        worker.join(30)
        assert responses[0].status_code == 200
        assert responses[0].get_json() == {"mine": True}

    def test_the_document_is_a_call_and_a_flask_command(self):
        app = notes_app.create_app()
        result = app.test_cli_runner().invoke(args=["openapi"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output) == app.openapi() == openapi_document(app)

    @pytest.mark.parametrize("library", ["flask", "flask-restful", "flask-smorest"])
    def test_browsableapi_apps_of_each_library_have_a_valid_document(self, library):
        _skip_where_the_library_breaks_errors(library)
        app = THING_APPS[library]()
        response = app.test_client().get("/openapi.json", headers=JSON)
        document = _validated(response.get_json())
        item = document["paths"]["/things/{key}"]
        assert sorted(item) == ["delete", "get", "put"]
        assert item["get"]["parameters"][0]["schema"] == {"type": "integer", "minimum": 0}
        assert item["get"]["summary"] == "One thing."
        assert "default" in item["get"]["responses"]  # the app's own errors, unknown to us
        assert "/openapi.json" not in document["paths"]

    @pytest.mark.parametrize("text", HOSTILE_TEXTS)
    def test_docstrings_reach_the_documents_page_only_escaped(self, text):
        page, harmless = _document_page(text), _document_page("Harmless.")
        assert page.status_code == 200
        assert _operation(page.body_json, "/x", "get")["summary"] == text  # shown as text
        tags = [(element.tag, sorted(element.attrs)) for element in page.elements]
        assert tags == [(element.tag, sorted(element.attrs)) for element in harmless.elements]

    def test_the_documents_location_is_never_taken_from_the_query_string(self):
        client = notes_app.create_app().test_client()
        plain = client.get("/openapi.json", headers=JSON).data
        for query in ["?url=https://evil.example/x.json", "?configUrl=https://evil.example/c.json"]:
            assert client.get("/openapi.json" + query, headers=JSON).data == plain
        page = _browse(client, "/openapi.json?url=https://evil.example/x.json")
        assert not page.find("a", href="https://evil.example/x.json")

    def test_every_success_a_route_answers_is_documented_though_the_route_cannot_say_which(self):
        app = _shop_app()
        document = _served_document(app)
        client = app.test_client()
        answers = [("post", "/shop/things/", client.post("/shop/things/", json={}, headers=JSON)),
                   ("post", "/shop/orders", client.post("/shop/orders", data={"name": "kettle"},
                                                         headers=JSON)),
                   ("delete", "/shop/things/{key}", client.delete("/shop/things/1", headers=JSON)),
                   ("get", "/shop/things/{key}", client.get("/shop/things/2", headers=JSON))]
        assert [answer.status_code for _, _, answer in answers] == [201, 201, 204, 200]
        for method, path, answer in answers:
            responses = _operation(document, path, method)["responses"]
            assert _covers(responses, answer.status_code), (method, path, sorted(responses))
            assert "200" in responses and "2XX" in responses  # 200 the likely one; others too
        assert "content" not in responses["2XX"]  # unsaid, as a 204 has none

    def test_the_successes_a_fragment_names_replace_the_guessed_ones(self):
        app = FlaskAPI(__name__)

        @app.route("/tea", methods=["GET", "POST", "DELETE"])
        @set_openapi({"post": {"responses": {"201": {"description": "Made."}}},
                      "delete": {"responses": {"200": None}}})
        def tea():
            return {}, 201
        document = _served_document(app)
        assert sorted(_operation(document, "/tea", "post")["responses"]) == [
            "201", "400", "406", "413", "415"]
        assert sorted(_operation(document, "/tea", "get")["responses"]) == ["200", "2XX", "406"]
        assert sorted(_operation(document, "/tea", "delete")["responses"]) == ["2XX", "406"]
        notes = _served_document(notes_app.create_app())
        assert sorted(_operation(notes, "/{key}/", "get")["responses"]) == ["200", "404", "406"]
        assert sorted(_operation(notes, "/{key}/", "put")["responses"]) == [
            "200", "400", "404", "406", "413", "415", "503"]

    def test_the_format_parameter_says_what_each_kind_of_app_answers_to_it(self):
        notes = notes_app.create_app()
        format_ = _operation(_served_document(notes), "/", "get")["parameters"][0]
        assert (format_["name"], format_["schema"]["enum"]) == ("format", ["", "api", "json"])
        client = notes.test_client()
        assert client.get("/?format=", headers=JSON).get_json() == client.get("/").get_json()
        assert client.get("/?format=xml").status_code == 406  # not in the enum: refused
        wrapped = _plain_things()
        format_ = _operation(_served_document(wrapped), "/things/", "get")["parameters"][0]
        assert format_["schema"] == {"type": "string", "examples": ["api", "json"]}  # no enum,
        # as it takes any
        assert wrapped.test_client().get("/things/?format=xml").status_code == 200

    def test_a_fragments_parameters_merge_with_the_documents_by_name_and_place(self):
        token = {"name": "X-Token", "in": "header", "required": True, "schema": {"type": "string"}}
        app = FlaskAPI(__name__)

        @app.route("/<int:k>/")
        @set_openapi({"parameters": [token, {"name": "k", "in": "query", "schema": {}}]})
        def detail(k):
            return {"k": k}

        @app.route("/pages")
        @set_openapi({"parameters": [{"name": "format", "in": "query", "deprecated": True,
                                      "schema": {"type": "string"}}]})
        def pages():
            return []
        document = _served_document(app)
        parameters = _operation(document, "/{k}/", "get")["parameters"]
        assert [(p["name"], p["in"]) for p in parameters] == [
            ("k", "path"), ("format", "query"), ("X-Token", "header"), ("k", "query")]
        assert parameters[0]["schema"] == {"type": "integer", "minimum": 0}  # the path's, kept
        assert _operation(document, "/pages", "get")["parameters"] == [
            {"name": "format", "in": "query", "deprecated": True, "schema": {"type": "string"}}]

    def test_a_fragments_responses_merge_with_the_documents_by_status(self):
        app = FlaskAPI(__name__)

        @app.route("/<int:k>")
        @set_openapi({"responses": {
            "404": {"description": "No such thing."},
            "409": {"description": "Taken.", "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}})
        def thing(k):
            return {}
        responses = _operation(_served_document(app), "/{k}", "get")["responses"]
        assert responses["404"]["description"] == "No such thing."  # the fragment's words
        assert responses["404"]["content"]["application/json"]["schema"] == {  # our schema
            "$ref": "#/components/schemas/Error"}
        assert responses["409"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Error"}
        assert {"200", "404", "406", "409"} <= set(responses)

    def test_a_fragments_request_body_merges_with_the_documents_by_media_type(self):
        thing = {"type": "object", "required": ["name"],
                 "properties": {"name": {"type": "string"}}}
        app = FlaskAPI(__name__)

        @app.route("/things", methods=["POST"])
        @set_openapi({"requestBody": {"required": True, "content": {
            "application/json": {"schema": thing},
            "application/x-www-form-urlencoded": {
                "schema": {"$ref": "#/components/schemas/Error"}}}}})
        def things():
            return {}
        body = _operation(_served_document(app), "/things", "post")["requestBody"]
        assert body["required"] is True
        assert body["content"]["application/json"]["schema"] == thing
        assert body["content"]["application/x-www-form-urlencoded"]["schema"] == {  # replaced
            "$ref": "#/components/schemas/Error"}  # not merged into our {"type": "object"}
        assert body["content"]["multipart/form-data"]["schema"] == {"type": "object"}  # ours

    def test_a_wrapped_apps_bodies_and_answers_are_those_its_own_library_documents(self):
        _skip_where_the_library_breaks_errors("flask-smorest")
        app = _smorest_things()
        document = _served_document(app)
        post = _operation(document, "/things/", "post")
        assert post["requestBody"]["required"] is True
        assert post["requestBody"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Thing"}
        thing = document["components"]["schemas"]["Thing"]
        assert (thing["type"], thing["required"]) == ("object", ["name"])  # so never null
        client = app.test_client()
        assert client.post("/things/", data="null", content_type=JSON_TYPE).status_code == 422
        assert client.post("/things/", json={"name": "cup"}).status_code == 201
        assert sorted(post["responses"]) == ["201", "422", "default"]  # its own, not 200 or 2XX
        assert post["responses"]["201"]["content"]["text/html"] == {}  # and the page's type
        assert client.delete("/things/1").status_code == 204
        assert sorted(_operation(document, "/things/{key}", "delete")["responses"]) == [
            "204", "default"]
        missing = client.get("/things/9?format=api")  # its error, by $ref, as the page
        assert (missing.status_code, missing.mimetype) == (404, "text/html")
        assert _operation(document, "/things/{key}", "get")["responses"]["default"] == {
            "$ref": "#/components/responses/DEFAULT_ERROR"}
        assert "text/html" in document["components"]["responses"]["DEFAULT_ERROR"]["content"]
        apiflask = _served_document(_apiflask_pets(True, spec_path="/spec"))
        assert _operation(apiflask, "/pets", "post")["requestBody"]["content"] == {
            "application/json": {"schema": {"$ref": "#/components/schemas/PetIn"}}}
        assert apiflask["components"]["schemas"]["PetIn"]["required"] == ["name"]

    def test_a_librarys_openapi_3_0_schemas_are_written_as_3_1(self):
        flask_smorest, ma = _optional("flask_smorest"), _optional("marshmallow")
        app = Flask(__name__)
        app.config.update(API_TITLE="Tea", API_VERSION="1", OPENAPI_VERSION="3.0.3")
        api = flask_smorest.Api(app)
        blueprint = flask_smorest.Blueprint("tea", __name__)

        class Tea(ma.Schema):
            name = ma.fields.Str(allow_none=True, metadata={"example": "oolong"})
            kind = ma.fields.Str(allow_none=True, validate=ma.validate.OneOf(["green", "black"]))

        @blueprint.route("/tea", methods=["POST"])
        @blueprint.arguments(Tea)
        def brew(data):
            return jsonify(data)
        api.register_blueprint(blueprint)
        BrowsableAPI(app)
        tea = _served_document(app)["components"]["schemas"]["Tea"]["properties"]
        assert tea["name"] == {"type": ["string", "null"], "examples": ["oolong"]}
        assert tea["kind"] == {"type": ["string", "null"], "enum": ["green", "black", None]}
        assert app.test_client().post("/tea", json={"name": None}).get_json() == {"name": None}

    def test_a_failing_library_leaves_the_document_its_guesses(self, monkeypatch, caplog):
        _skip_where_the_library_breaks_errors("flask-smorest")
        app = _smorest_things()
        api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
        monkeypatch.setattr(api.spec, "to_dict", lambda: 1 / 0)
        post = _operation(_served_document(app), "/things/", "post")
        assert post["requestBody"] == {"content": {"application/json": {"schema": {}}}}
        assert sorted(post["responses"]) == ["200", "2XX", "default"]
        assert any("flask-smorest" in record.getMessage() and record.exc_info
                   for record in caplog.records)  # the app's log says why, with the traceback
        assert _embedded_schemas(app.test_client(), "/things/")["POST"] == {
            "content": ["application/json"], "fallback": "flask-smorest's description of this API "
            "could not be read (ZeroDivisionError), so this form is built from the data."}

    @pytest.mark.parametrize("document_version", ["3.1.0", "3.2.0"])
    @pytest.mark.parametrize("library,version", sorted(LIBRARY_BODIES, key=str))
    def test_every_wrapped_librarys_document_is_valid_openapi_and_its_own_stays_byte_for_byte(
            self, library, version, document_version):
        _skip_where_the_library_breaks_errors("flask-smorest")
        make = LIBRARY_BODIES[library, version]
        own, _ = _own_document(make(version, browsable=False))
        app = make(version)
        app.config["OPENAPI_DOCUMENT_VERSION"] = document_version
        document = _served_document(app)
        assert document["openapi"] == document_version
        assert _own_document(app)[0] == own  # byte for byte, the wrapper's document served too
        assert set(document["paths"]) >= {"/pets", "/albums", "/titles"}
        assert not [parameter for item in document["paths"].values()
                    for operation in item.values()  # no additionalOperations: no such method
                    for parameter in operation.get("parameters", ()) if parameter["in"] not in (
                        "query", "header", "path", "cookie")]  # no formData, no body
        queries = [path for path, item in document["paths"].items() if "query" in item]
        assert queries == ([] if document_version == "3.1.0" else
                           ["/find", "/search"] if library == "flask-smorest" else ["/find"])

    @pytest.mark.parametrize("library,version", sorted(LIBRARY_BODIES, key=str))
    def test_a_body_a_library_documents_is_kept_as_it_wrote_it_with_no_json_beside_it(
            self, library, version):
        _skip_where_the_library_breaks_errors("flask-smorest")
        app = LIBRARY_BODIES[library, version](version)
        _, own = _own_document(app)
        document = _served_document(app)
        for path in ("/pets", "/titles", "/albums" if library == "apiflask" else "/photos"):
            written = own["paths"][path]["post"]["requestBody"]
            assert _operation(document, path, "post")["requestBody"] == written, path
        client = app.test_client()
        photo = {"photo": (io.BytesIO(b"jpeg"), "cat.jpg"), "title": "Cat"}
        album = "/albums" if library == "apiflask" else "/photos"
        assert client.post(album, data=photo).status_code == 200
        assert client.post(album, json={"title": "Cat"}).status_code == 422  # as documented:
        assert "application/json" not in _operation(document, album, "post")[  # no JSON here
            "requestBody"]["content"]
        if library == "flask-smorest":  # a POST that documents no body: JSON, as for any app
            assert _operation(document, "/ping", "post")["requestBody"] == {
                "content": {"application/json": {"schema": {}}}}

    @pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
    def test_flask_smorests_form_data_parameters_become_its_form_bodys_fields(self, version):
        _skip_where_the_library_breaks_errors("flask-smorest")
        app = _smorest_bodies(version)
        _, own = _own_document(app)
        assert [(p["in"], p["name"]) for p in own["paths"]["/albums"]["post"]["parameters"]] == [
            ("formData", "title")]  # what flask-smorest writes, which no OpenAPI 3 has
        document = _served_document(app)
        albums = _operation(document, "/albums", "post")
        assert [p["name"] for p in albums["parameters"]] == ["format"]
        schema = albums["requestBody"]["content"]["multipart/form-data"]["schema"]
        assert schema["properties"] == {"photo": {"type": "string", "format": "binary"},
                                        "title": {"type": "string"}}
        assert schema["required"] == ["photo", "title"]
        assert document["components"]["schemas"]["Photo"]["properties"] == {  # left as written
            "photo": {"type": "string", "format": "binary"}}
        client = app.test_client()
        assert client.post("/albums", data={"photo": (io.BytesIO(b"jpeg"), "cat.jpg"),
                                            "title": "Cat"}).get_json() == {
            "photo": "cat.jpg", "title": "Cat"}  # the body the document describes is taken
        assert client.post("/albums", data={"photo": (io.BytesIO(b"jpeg"), "cat.jpg")}
                           ).status_code == 422  # and its title is needed
        tagged = _operation(document, "/tagged", "post")
        assert list(tagged["requestBody"]["content"]) == ["application/json"]  # beside JSON,
        assert [p["name"] for p in tagged["parameters"]] == ["format"]  # which cannot carry them
        form = _embedded_schemas(app.test_client(), "/albums")["POST"]
        assert form["content"] == ["multipart/form-data"]
        assert set(form["schema"]["properties"]) == {"photo", "title"}

    def test_a_fragment_at_the_depth_limit_is_merged_and_one_level_deeper_is_left_out(self, caplog):
        limit = flask_api._DEEPEST_FRAGMENT
        at_limit = _fragment_app({"x-deep": _deep(limit - 1)})  # and the fragment itself: 100
        document = _served_document(at_limit)
        assert _operation(document, "/deep", "get")["x-deep"] == _deep(limit - 1)
        assert _embedded_schemas(at_limit.test_client(), "/deep")["POST"]["schema"]
        over = _fragment_app({"x-deep": _deep(limit)})
        document = _served_document(over)
        assert "x-deep" not in _operation(document, "/deep", "get")
        assert _operation(document, "/deep", "post")["requestBody"]["content"][
            "application/json"] == {"schema": {}}  # the guesses alone: the fragment is left out
        assert _embedded_schemas(over.test_client(), "/deep")["POST"] == {"content": [
            "application/json", "application/x-www-form-urlencoded", "multipart/form-data"],
            "fallback": "This view's set_openapi fragment is nested more than 100 levels deep, "
                        "so the document leaves it out and this form is built from the data."}
        assert _embedded_schemas(over.test_client(), "/fine")["POST"]["schema"]  # only its own
        assert any("set_openapi fragment is nested more than 100 levels deep" in
                   record.getMessage() for record in caplog.records)  # and the log says so

    @pytest.mark.parametrize("levels", [300, 500, 5000])
    def test_a_schema_nested_hundreds_deep_in_a_fragment_is_never_a_500_nor_silent(self, levels):
        schema = {"type": "string"}
        for _ in range(levels):  # as issue 37 wrote it: at 500, a RecursionError in the merge
            schema = {"type": "object", "properties": {"a": schema}}
        app = _fragment_app({"requestBody": {"content": {"application/json": {"schema": schema}}}})
        response = app.test_client().get("/openapi.json", headers=JSON)
        assert response.status_code == 200
        _validated(response.get_json())
        client = app.test_client()
        assert "nested more than 100 levels" in _embedded_schemas(client, "/deep")["POST"][
            "fallback"]
        assert _embedded_schemas(client, "/fine")["POST"]["schema"]  # the other routes keep theirs
        assert _browse(client, "/openapi.json").status_code == 200

    @pytest.mark.parametrize("fragment,why", [
        ({"responses": ["a list"]}, "could not be merged into the document (AttributeError)"),
        ({"x-loop": _itself()}, "is nested more than 100 levels deep"),
        ({"responses": {"201": {"description": "Made."}}, "x-keys": {("a", "tuple"): 1}},
         "could not be merged into the document (TypeError)"),  # and the guessed 200 comes back
        ({"post": "not a dict"}, "could not be merged into the document (AttributeError)"),
    ], ids=["responses-list", "loop", "tuple-key", "method-text"])
    def test_a_fragment_the_document_cannot_hold_is_left_out_and_said(self, fragment, why):
        app = FlaskAPI(__name__)

        @app.route("/odd", methods=["GET", "POST"])
        @set_openapi(fragment)
        def odd():
            return {}
        app.add_url_rule("/fine", "fine", lambda: {})
        document = _served_document(app)
        assert sorted(document["paths"]) == ["/fine", "/odd"]
        assert sorted(_operation(document, "/odd", "post")["responses"]) == [
            "200", "2XX", "400", "406", "413", "415"]  # the guesses
        assert _embedded_schemas(app.test_client(), "/odd")["POST"]["fallback"] == (
            "This view's set_openapi fragment {}, so the document leaves it out and this form is "
            "built from the data.".format(why))

    def test_a_fragments_date_is_written_as_its_text(self):
        app = FlaskAPI(__name__)

        @app.route("/when")
        @set_openapi({"x-since": datetime.date(2024, 5, 1)})
        def when():
            return {}
        assert _operation(_served_document(app), "/when", "get")["x-since"] == "2024-05-01"
        result = app.test_cli_runner().invoke(args=["openapi"])
        assert json.loads(result.output)["paths"]["/when"]["get"]["x-since"] == "2024-05-01"

    def test_a_librarys_document_nested_too_deep_is_left_out_and_said(self, monkeypatch):
        _skip_where_the_library_breaks_errors("flask-smorest")
        app = _smorest_things()
        api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
        written = api.spec.to_dict()
        monkeypatch.setattr(api.spec, "to_dict", lambda: dict(written, **{"x-deep": _deep(100)}))
        post = _operation(_served_document(app), "/things/", "post")
        assert post["requestBody"] == {"content": {"application/json": {"schema": {}}}}
        assert _embedded_schemas(app.test_client(), "/things/")["POST"]["fallback"] == (
            "flask-smorest's description of this API is nested more than 100 levels deep, so this "
            "form is built from the data.")

    def test_the_fuzzed_apps_document_the_bodies_their_views_take(self):
        notes = notes_app.create_app()
        body = _operation(_served_document(notes), "/", "post")["requestBody"]["content"]
        assert "type" not in body["application/json"]["schema"]["properties"]["text"]  # any:
        assert notes.test_client().post("/", json={"text": 7}).get_json()["text"] == "7"
        assert body["multipart/form-data"]["schema"]["properties"]["text"] == {"type": "string"}
        _skip_where_the_library_breaks_errors("flask-restful")
        restful = _restful_things()  # Flask-RESTful writes no document: set_openapi does
        assert _operation(_served_document(restful), "/things/",
                          "post")["requestBody"] == THING_BODY
        client = restful.test_client()
        assert client.post("/things/", json={"name": 7}).status_code == 400
        assert client.post("/things/", json={"name": "cup"}).status_code == 201

    @pytest.mark.parametrize("spec_path", ["/openapi.json", "/spec"])
    def test_an_apps_own_openapi_library_sees_no_trace_of_browsableapi(self, spec_path):
        wrapped, plain = _apiflask_pets(True, spec_path=spec_path), _apiflask_pets(False,
                                                                                spec_path=spec_path)
        assert sorted(map(str, wrapped.url_map.iter_rules())) == sorted(
            map(str, plain.url_map.iter_rules()))
        document = wrapped.test_client().get(spec_path, headers=JSON)
        assert document.data == plain.test_client().get(spec_path, headers=JSON).data
        assert "/openapi.json" not in document.get_json()["paths"]
        page = _browse(wrapped.test_client(), "/pets")
        assert page.status_code == 200 and page.body_json == [{"id": 0, "name": "Kitty"}]
        ours = wrapped.test_client().get("/openapi.json", headers=JSON).get_json()
        assert "/pets" in ours["paths"]  # APIFlask's, where it serves it; else ours

    def test_building_the_wrappers_document_leaves_apiflasks_own_as_it_would_be(self):
        """APIFlask keeps the document it serves, servers from the Host of the request that made
        it; the wrapper reading it (for its document, or a page's form) must not replace it."""
        wrapped, plain = _apiflask_pets(True, spec_path="/spec"), _apiflask_pets(False,
                                                                                 spec_path="/spec")
        page = _browse(wrapped.test_client(), "/pets", base_url="http://first.example")
        assert page.find("script", id="api-schemas")  # the wrapper has read APIFlask's document
        own = wrapped.test_client().get("/spec", base_url="http://second.example")
        assert own.data == plain.test_client().get("/spec", base_url="http://second.example").data
        assert own.get_json()["servers"] == [{"url": "http://second.example/"}]

    @pytest.mark.parametrize("make", [FlaskAPI, Flask])
    def test_the_document_is_served_without_a_rule_so_the_app_may_add_its_own_later(self, make):
        app = make(__name__)
        if make is Flask:
            BrowsableAPI(app)
        assert not [rule for rule in app.url_map.iter_rules() if "openapi" in rule.rule]
        client = app.test_client()
        assert client.get("/openapi.json", headers=JSON).get_json()["openapi"] == "3.1.0"
        assert client.post("/openapi.json", headers=JSON).status_code in (404, 405)
        app = make(__name__)  # werkzeug 3.2 refuses a second rule that matches as one does
        app.add_url_rule("/openapi.json", "mine", lambda: jsonify(mine=True))
        assert app.test_client().get("/openapi.json", headers=JSON).get_json() == {"mine": True}

    @pytest.mark.parametrize("version", [None, "3.2.0"])
    def test_openapi_lists_a_streams_media_types_and_places_its_item_schema_by_version(self,
                                                                                       version):
        validator = _optional("openapi_spec_validator")
        app, _ = _streams_app()
        if version:
            app.config["OPENAPI_DOCUMENT_VERSION"] = version

        @app.route("/typed")
        @set_openapi({"responses": {"200": {"content": {
            "application/jsonl": {"itemSchema": {"type": "integer"}}}}}})
        def typed():
            yield 1

        document = openapi_document(app)
        validator.validate(document)
        assert document["openapi"] == (version or "3.1.0")
        plain = document["paths"]["/items"]["get"]
        assert set(plain["responses"]["200"]["content"]) == {
            "application/json", "application/jsonl", "application/x-ndjson", "text/event-stream",
            "text/html"}
        assert "jsonl" in plain["parameters"][0]["schema"]["enum"]
        assert set(document["paths"]["/created"]["get"]["responses"]["200"]["content"]) == {
            "application/json", "text/html"}  # not a generator function, and not declared
        content = document["paths"]["/typed"]["get"]["responses"]["200"]["content"]
        array = {"schema": {"type": "array", "items": {"type": "integer"}}}
        assert content["application/json"] == array
        event = content["text/event-stream"]["itemSchema" if version else "schema"]
        assert event["properties"]["data"]["contentSchema"] == {"type": "integer"}
        if version:
            assert content["application/jsonl"] == content["application/x-ndjson"] == {
                "itemSchema": {"type": "integer"}}
        else:
            assert content["application/jsonl"] == content["application/x-ndjson"] == array


# ---------------------------------------------------------------------------
# The form from the schema
# ---------------------------------------------------------------------------

BIG_INTEGER = "12345678901234567891"  # past 2**64: no double, and no int64, holds it
ORDER_SCHEMA = {"type": "object", "required": ["name", "count"], "properties": {
    "name": {"type": "string", "minLength": 2, "maxLength": 20, "pattern": "^[a-z ]+$",
             "description": "Lower-case letters."},
    "count": {"type": "integer", "minimum": 1, "maximum": int(BIG_INTEGER)},
    "price": {"type": "number", "exclusiveMinimum": 0, "default": 2.5},
    "size": {"enum": ["small", "large", 3, None]},
    "gift": {"type": "boolean"},
    "note": {"type": ["string", "null"], "examples": ["ring twice"]},
    "address": {"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string"}, "zip": {"type": "string"}}},
    "tags": {"type": "array", "items": {"type": "string"}},
    "lines": {"type": "array", "items": {"type": "object", "properties": {
        "sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}}},
    "extra": {"type": "object"},
    "photo": {"type": "string", "format": "binary"},
    "id": {"type": "integer", "readOnly": True},
}}
UPLOAD_SCHEMA = {"type": "object", "required": ["file"], "properties": {
    "title": {"type": "string"}, "file": {"type": "string", "format": "binary"},
    "copies": {"type": "array", "items": {"type": "string", "format": "binary"}}}}


def _schema_app():
    """Orders described by ORDER_SCHEMA (POST on the list, PUT on one), taken as JSON only; a
    POST-only upload of files as multipart; each body the views get is in config "bodies"."""
    app = FlaskAPI(__name__)
    bodies = app.config["bodies"] = []
    orders = {1: {"id": 1, "name": "tea", "count": 3, "gift": True, "size": 3, "note": None,
                  "address": {"city": "Oslo"}, "tags": ["green", "loose"]}}
    body = {"requestBody": {"content": {"application/json": {"schema": ORDER_SCHEMA}}}}

    @app.route("/orders/", methods=["GET", "POST"])
    @set_openapi({"post": body})
    @set_parsers(JSONParser)
    def order_list():
        """All orders."""
        if request.method == "POST":
            bodies.append(request.get_data(as_text=True))
            return dict(request.data, id=len(orders) + 1), 201
        return list(orders.values())

    @app.route("/orders/<int:key>", methods=["GET", "PUT"])
    @set_openapi({"put": body})
    @set_parsers(JSONParser)
    def order_detail(key):
        """One order."""
        if request.method == "PUT":
            bodies.append(request.get_data(as_text=True))
        return orders[key]

    @app.route("/upload/", methods=["POST"])
    @set_openapi({"requestBody": {"content": {"multipart/form-data": {"schema": UPLOAD_SCHEMA}}}})
    def upload():
        """Upload a file."""
        bodies.append(request.mimetype)
        return {"files": [[name, upload.filename, upload.read().decode("utf-8")]
                          for name, upload in request.files.items(multi=True)],
                "form": request.form.to_dict(flat=False)}
    app.testing = True
    return app


def _smorest_orders(recursive=False):
    """A flask-smorest app whose POST takes a marshmallow schema with a nested one (a $ref in
    its document), or one that nests itself (a tree) where ``recursive``."""
    flask_smorest, ma = _optional("flask_smorest"), _optional("marshmallow")
    app = Flask(__name__)
    app.config.update(API_TITLE="Orders", API_VERSION="1", OPENAPI_VERSION="3.0.3")
    api = flask_smorest.Api(app)
    blueprint = flask_smorest.Blueprint("orders", __name__)

    class Address(ma.Schema):
        city = ma.fields.Str(required=True)

    class Order(ma.Schema):
        id = ma.fields.Int(dump_only=True)
        name = ma.fields.Str(required=True, validate=ma.validate.Length(min=2))
        size = ma.fields.Str(validate=ma.validate.OneOf(["small", "large"]))
        address = ma.fields.Nested(Address)

    class Tree(ma.Schema):
        name = ma.fields.Str()
        children = ma.fields.List(ma.fields.Nested(lambda: Tree()))

    @blueprint.route("/orders", methods=["POST"])
    @blueprint.arguments(Tree if recursive else Order)
    def orders(data):
        return jsonify(data)
    api.register_blueprint(blueprint)
    return _finish(app, True)


def _body_app(schema):
    """An app whose POST / has ``schema`` as its JSON body's schema."""
    app = FlaskAPI(__name__)

    @app.route("/", methods=["GET", "POST"])
    @set_openapi({"post": {"requestBody": {"content": {"application/json": {
        "schema": schema}}}}})
    @set_parsers(JSONParser)
    def view():
        return {"a": 1}
    app.testing = True
    return app


def _nested_arrays(levels):
    """A schema of ``levels`` objects and arrays: an object whose field is arrays in arrays."""
    items = {"type": "string"}
    for _ in range(levels - 3):  # the object, its "properties", the field: 3
        items = {"type": "array", "items": items}
    return {"type": "object", "properties": {"field": items}}


def _ref_chain_app(refs, default_levels):
    """POST / takes a chain of ``refs`` $refs, each 6 levels (an object, its properties and 4
    arrays), as one field, and another whose default nests ``default_levels`` deep."""
    levels = {"l0": {"type": "string"}}
    for level in range(1, refs + 1):
        items = {"$ref": "#/paths/~1/post/x-levels/l{}".format(level - 1)}
        for _ in range(4):
            items = {"type": "array", "items": items}
        levels["l{}".format(level)] = {"type": "object", "properties": {"a": items}}
    app = FlaskAPI(__name__)

    @app.route("/", methods=["POST"])
    @set_openapi({"x-levels": levels, "requestBody": {"content": {"application/json": {
        "schema": {"type": "object", "properties": {
            "chain": {"$ref": "#/paths/~1/post/x-levels/l{}".format(refs)},
            "deep": {"type": "array", "default": _deep(default_levels)}}}}}}})
    def view():
        return {}
    return app


@pytest.fixture
def schema_site(live_site):
    app = _schema_app()
    return app, live_site.serve(app)


def _field(tab, label):
    return tab.get_by_label(label, exact=True)


def _pattern_app():
    """A word whose PUT body's schema has patterns RegExp would backtrack on for ever; the word
    shown fills the form with values of 10,000 characters that break them at their very end."""
    app = FlaskAPI(__name__)
    bodies = app.config["bodies"] = []
    schema = {"type": "object", "properties": {
        "nested": {"type": "string", "pattern": "^(a+)+$"},
        "either": {"type": "string", "pattern": "^(a|aa)+$"},
        "twice": {"type": "string", "pattern": "^(.+)\\1$"}}}  # a backreference

    @app.route("/words/1", methods=["GET", "PUT"])
    @set_openapi({"put": {"requestBody": {"content": {"application/json": {"schema": schema}}}}})
    def word():
        if request.method == "PUT":
            bodies.append(request.get_data(as_text=True))
        return {"nested": "a" * 10000 + "b", "either": "a" * 9999 + "!", "twice": "ab"}
    return app


def _watch_long_tasks(tab):
    """Start keeping the longest task the page's main thread runs from the next frame on
    (window.longestTask, in ms; the page's first layout is done by then)."""
    tab.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done)))")
    tab.evaluate("""() => { window.longestTask = 0; new PerformanceObserver((list) => {
        for (const task of list.getEntries()) {
            window.longestTask = Math.max(window.longestTask, task.duration);
        }
    }).observe({type: "longtask"}); }""")


class _HandSchemasRenderer(BrowsableAPIRenderer):
    """The page's renderer, its form's schemas given by hand (the app's config "page_schemas"),
    as a renderer of an app's own may give any."""

    def get_schemas(self, app, req, allowed):
        return app.config["page_schemas"]


def _hand_schemas_app(schemas, thing=None):
    """/things/1 (GET, PUT: ``thing``), /upload/ (POST only: a 405 page without data) and /ticks
    (a stream of three items, or a POST), their pages' forms from ``schemas``; bodies in
    "bodies"."""
    app = FlaskAPI(__name__)
    app.config.update(DEFAULT_RENDERERS=[JSONRenderer, _HandSchemasRenderer],
                      page_schemas=schemas, bodies=[])

    @app.route("/things/1", methods=["GET", "PUT"])
    @app.route("/upload/", methods=["POST"])
    def hand_thing():
        if request.method != "GET":
            app.config["bodies"].append(request.get_data(as_text=True))
        return thing or {"name": "kettle", "size": "v1"}

    @app.route("/ticks", methods=["GET", "POST"])
    def ticks():
        return flask.Response(('{"tick": %d}\n' % n for n in range(3)),
                              mimetype="application/jsonl")
    return app


def _lists_in_lists(depth):
    schema = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return {"type": "object", "properties": {"list": schema}}


def _nested_shapes(depth):
    schema = {"type": "object", "properties": {"end": {"type": "string"}}}
    for level in range(depth):
        schema = {"type": "object", "properties": {"in": {"oneOf": [schema, {
            "type": "object", "title": "other", "properties": {"x%d" % level: {}}}]}}}
    return schema


# Schemas an app controls, built to break a page's script: none may
HOSTILE_SCHEMAS = {
    "allOf of 100,000": {"type": "object", "properties": {"a": {"type": "string"}},
                         "allOf": [{"properties": {"p%d" % n: {}}} for n in range(100000)]},
    "anyOf of 100,000 objects": {"type": "object", "properties": {"a": {"anyOf": [
        {"type": "object", "properties": {"p%d" % n: {}}} for n in range(100000)]}}},
    "200,000 properties": {"type": "object", "properties": {"p%d" % n: {"type": "string"}
                                                            for n in range(200000)}},
    "arrays 300 deep": _lists_in_lists(300),
    "oneOf 60 deep": _nested_shapes(60),
    "__proto__": {"type": "object", "__proto__": {"polluted": True}, "properties": {
        "__proto__": {"type": "object", "properties": {"constructor": {"type": "string"}}},
        "toString": {"allOf": [{"__proto__": {"polluted": True}, "type": "string"}]}}},
    "a pattern of a billion steps": {"type": "object", "properties": {"a": {
        "type": "string", "pattern": "^(a{1000000}){1000}$"}}},
}


OWNER = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string"}, "phone": {"type": "string"}}}
HOUSE = {"title": "House", "type": "object", "required": ["street"], "properties": {
    "street": {"type": "string"}}}
BOAT = {"title": "Boat", "type": "object", "properties": {"berth": {"type": "integer"}}}
# What OpenAPI 3.0 libraries write, $refs resolved: apispec's allOf beside a description and
# nullable, and its anyOf with a nullable object; a oneOf of two shapes
WRAPPED_BODY = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string"},
    "keeper": {"allOf": [OWNER], "nullable": True, "description": "Who keeps it."},
    "vet": {"anyOf": [{"type": "object", "nullable": True}, OWNER]},
    "home": {"oneOf": [HOUSE, BOAT]}}}


def _pet_schema(schema_class, fields, validate):
    """A pet: its owner an optional nested object whose name is required; its keeper the same,
    nullable and described, and its vet described (apispec wraps both, in 3.0 and 3.1 its own
    ways); its tags an optional list; its home a oneOf of a house and a boat."""
    class Owner(schema_class):
        name = fields.String(required=True)
        phone = fields.String()

    class Pet(schema_class):
        name = fields.String(required=True)
        owner = fields.Nested(Owner)
        keeper = fields.Nested(Owner, allow_none=True, metadata={"description": "Who keeps it."})
        vet = fields.Nested(Owner, metadata={"description": "The vet."})
        tags = fields.List(fields.String())
        home = fields.Dict(metadata={"oneOf": [HOUSE, BOAT]})
    return Pet


def _library_pets(library, version, make_pet=_pet_schema):
    """POST /pets (and a GET of none) in flask-smorest or APIFlask, with ``OPENAPI_VERSION``
    ``version`` (None: the library's default), under BrowsableAPI, taking the Pet that
    ``make_pet(schema_class, fields, validate)`` makes; each body it takes in config "bodies"."""
    validate = _optional("marshmallow").validate
    if library == "flask-smorest":
        flask_smorest, ma = _optional("flask_smorest"), _optional("marshmallow")
        schema_class, fields, app = ma.Schema, ma.fields, Flask(__name__)
    else:
        apiflask = _optional("apiflask")
        schema_class, fields, app = apiflask.Schema, apiflask.fields, apiflask.APIFlask(__name__)
    app.config.update(API_TITLE="Pets", API_VERSION="1", bodies=[])
    if version:
        app.config["OPENAPI_VERSION"] = version
    pet = make_pet(schema_class, fields, validate)

    def add_pet(data):
        app.config["bodies"].append(request.get_data(as_text=True))
        return jsonify(data), 201
    if library == "flask-smorest":
        blueprint = flask_smorest.Blueprint("pets", __name__)
        blueprint.route("/pets", methods=["POST"])(blueprint.arguments(pet)(add_pet))
        blueprint.route("/pets", methods=["GET"], endpoint="pet_list")(lambda: jsonify([]))
        flask_smorest.Api(app).register_blueprint(blueprint)
    else:
        app.post("/pets", endpoint="add_pet")(app.input(pet)(lambda json_data: add_pet(json_data)))
        app.get("/pets", endpoint="pet_list")(lambda: [])
    return _finish(app, True)


# (library, its OPENAPI_VERSION): each writes the same marshmallow schemas its own way
PET_LIBRARIES = [("flask-smorest", "3.0.3"), ("flask-smorest", "3.1.0"), ("apiflask", None),
                 ("apiflask", "3.0.3")]


def _coded_pet(schema_class, fields, validate):
    """A pet whose code must match a pattern RegExp backtracks on for ever."""
    class Pet(schema_class):
        code = fields.String(required=True, validate=validate.Regexp("^(a+)+$"))
    return Pet


def _bred_pet(schema_class, fields, validate):
    """A pet whose breed is one of 200,000."""
    class Pet(schema_class):
        name = fields.String()
        breed = fields.String(validate=validate.OneOf(["b%d" % n for n in range(200000)]))
    return Pet


# (JSON number, JSON number, -1 / 0 / 1): compared as decimals, as no double can
COMPARED_NUMBERS = [
    (BIG_INTEGER, BIG_INTEGER[:-1] + "0", 1), ("9007199254740993", "9007199254740992", 1),
    ("-9007199254740993", "-9007199254740992", -1), ("2.50", "2.5", 0), ("1e3", "999", 1),
    ("100", "1E2", 0), ("-0", "0", 0), ("0", "-0.0001", 1), ("0.05", "0.5", -1),
    ("-1.5e-3", "-0.0015", 0), ("1" + "0" * 400, "1e400", 0), ("1e400", "9" * 400, 1),
]


# (schema as a library writes it, $refs resolved: [kind, nullable, fields, description, shapes])
WRAPPED_SCHEMAS = [
    ({"description": "d", "allOf": [OWNER]}, ["object", False, ["name", "phone"], "d", 0]),
    ({"allOf": [OWNER], "nullable": True, "readOnly": False},  # older apispec, 3.0
     ["object", True, ["name", "phone"], None, 0]),
    ({"anyOf": [{"type": "object", "nullable": True}, OWNER]},  # apispec 6, 3.0
     ["object", True, ["name", "phone"], None, 0]),
    ({"anyOf": [OWNER, {"type": ["object", "null"]}], "description": "d"},  # 3.0, read as 3.1
     ["object", True, ["name", "phone"], "d", 0]),
    ({"anyOf": [OWNER, {"type": "null"}]}, ["object", True, ["name", "phone"], None, 0]),  # 3.1
    ({"oneOf": [{"type": "null"}, {"allOf": [OWNER]}]}, ["object", True, ["name", "phone"], None,
                                                         0]),
    (dict(OWNER, type=["object", "null"]), ["object", True, ["name", "phone"], None, 0]),
    (dict(OWNER, nullable=True), ["object", True, ["name", "phone"], None, 0]),
    ({"type": "string", "nullable": True}, ["string", True, None, None, 0]),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, ["string", True, None, None, 0]),
    ({"allOf": [OWNER, {"properties": {"age": {"type": "integer"}}}]},
     ["object", False, ["name", "phone", "age"], None, 0]),
    ({"oneOf": [OWNER, {"type": "object", "properties": {"berth": {"type": "integer"}}}]},
     ["shapes", False, None, None, 2]),
    ({"anyOf": [{"allOf": [OWNER]}, {"properties": {"b": {}}}, {"type": "null"}]},
     ["shapes", True, None, None, 2]),
    ({"anyOf": [{"type": "string"}, {"type": ["integer", "null"]}]},
     ["any", True, None, None, 0]),  # two types: any JSON, not one of them
    ({"oneOf": [OWNER, {"type": "string"}]}, ["any", False, None, None, 0]),
]


# (pattern, text): the page's own matcher must say what RegExp's test() says, with "u"
PATTERN_TEXTS = [
    ("^[a-z ]+$", "green tea"), ("^[a-z ]+$", "Green tea"), ("a|b", "xbx"), ("a|b", "xyz"),
    ("^(ab)*$", "ababa"), ("^(ab)*$", "abab"), ("colou?r", "my color"), ("colou?r", "colr"),
    ("^\\d{3}-\\d{4}$", "555-1234"), ("^\\d{3}-\\d{4}$", "555-12345"), ("^.{2,3}$", "ab"),
    ("^.{2,3}$", "abcd"), ("^\\p{Lu}", "\u00c9lan"), ("^\\p{Lu}", "\u00e9lan"),
    ("^.$", "\U0001f600"), ("^..$", "\U0001f600"), ("^[\U0001f600-\U0001f602]$", "\U0001f601"),
    ("\\bcat\\b", "a cat!"), ("\\bcat\\b", "concat"), ("\\Bcat", "concat"),
    ("^\\u{1F600}$", "\U0001f600"), ("^\\ud83d\\ude00$", "\U0001f600"), ("^[^\\n]*$", "one\ntwo"),
    ("^a{2,}?$", "aaa"), ("^a{2,}$", "a"), ("^(?:x|y)+?z$", "xyxz"),
    ("^(?<word>\\w+)$", "hi_there"),
    ("^$", ""), ("", "anything"), ("^[\\]\\\\]+$", "]\\"), ("^\\.\\/\\cJ\\x41\\0$", "./\nA\0"),
    ("^(a*)*$", "aaaa"), ("(a|b)*c", "ababab"), ("^[\\d\\s-]{3,}$", "1 2-3"), ("x$|^y", "yes"),
]
# What RegExp cannot do without backtracking is not checked by the page: any value passes.
UNCHECKED_PATTERNS = [("^(a)\\1$", "ab"), ("^(?=a)b", "b"), ("(?<=a)b", "cb"),
                      ("^(?<x>a)\\k<x>$", "ab"), ("^(?i:a)$", "b"), ("(?P<x>a)", "b")]


# (pattern, 10,000 characters or more, whether it matches): each would keep RegExp busy for
# longer than the universe has existed
CATASTROPHIC_PATTERNS = [
    ("^(a+)+$", "a" * 10000 + "b", False), ("^(a+)+$", "a" * 10000, True),
    ("^(a|aa)+$", "a" * 10000 + "b", False), ("^(a|a?)+$", "a" * 10000 + "!", False),
    ("(x+x+)+y", "x" * 10000, False), ("^(\\w+\\s?)*$", "word " * 2000 + "!", False),
    ("^([a-z0-9]+[-._]?)+@[a-z]+\\.[a-z]{2,3}$", "a1-" * 3400 + "!", False),
    ("(a*)*b", "a" * 10000, False), ("^(.*?,){11}P", "1," * 5000, False),
]


def _tab_to(tab, selector, most=80):
    """Press Tab until the focused element matches ``selector``; fail past ``most`` presses."""
    for _ in range(most):
        tab.keyboard.press("Tab")
        if tab.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError("Tab never reached " + selector)


class TestSchemaForm:
    """The body schemas the page embeds, bounded; in Chromium, the form they make."""

    def test_page_embeds_the_body_schema_set_openapi_describes_fields_in_their_order(self):
        client = _schema_app().test_client()
        schemas = _embedded_schemas(client, "/orders/")
        assert schemas == {"POST": {"content": ["application/json"], "schema": ORDER_SCHEMA}}
        assert list(schemas["POST"]["schema"]["properties"]) == list(ORDER_SCHEMA["properties"])
        assert _embedded_schemas(client, "/orders/1") == {"PUT": schemas["POST"]}
        assert b"api-schemas" not in client.get("/orders/", headers=JSON).data

    def test_a_post_only_url_embeds_its_schema_in_its_405_page(self):
        client = _schema_app().test_client()
        page = _browse(client, "/upload/")
        assert page.status_code == 405
        assert _embedded_schemas(client, "/upload/")["POST"]["schema"] == UPLOAD_SCHEMA

    @pytest.mark.parametrize("schema", [{}, {"type": "object"}, {"type": "array"},
                                        {"type": "object", "properties": {}}])
    def test_a_body_schema_without_fields_leaves_the_form_from_the_data(self, app, client, schema):
        @app.route("/", methods=["GET", "POST"])
        @set_openapi({"post": {"requestBody": {"content": {
            "application/json": {"schema": schema}}}}})
        def view():
            return {"a": 1}

        @app.route("/guessed", methods=["GET", "POST"])
        def guessed():  # the document's guess for a JSON body: {}
            return {"a": 1}
        assert _embedded_schemas(client, "/") is None
        assert _embedded_schemas(client, "/guessed") is None

    def test_a_schema_string_cannot_end_the_block_it_is_embedded_in(self, app, client):
        hostile = {"type": "object", "properties": {text: {"type": "string", "description": text,
                                                           "default": text}
                                                    for text in HOSTILE_TEXTS}}

        @app.route("/", methods=["POST"])
        @set_openapi({"requestBody": {"content": {"application/json": {"schema": hostile}}}})
        def view():
            return {}
        page = _browse(client, "/")
        assert page.html.count("</script>") == 2 and page.html.lower().count("<script") == 2
        assert _embedded_schemas(client, "/")["POST"]["schema"] == hostile
        assert [el.tag for el in page.elements if el.tag in ("img", "svg", "iframe")] == []

    def test_a_wrapped_flask_smorest_apps_page_embeds_its_marshmallow_schema_refs_resolved(self):
        schemas = _embedded_schemas(_smorest_orders().test_client(), "/orders")
        schema = schemas["POST"]["schema"]
        assert schema["required"] == ["name"] and schema["properties"]["name"]["minLength"] == 2
        assert schema["properties"]["id"]["readOnly"] is True
        assert schema["properties"]["size"]["enum"] == ["small", "large"]
        assert schema["properties"]["address"]["properties"] == {"city": {"type": "string"}}
        assert "$ref" not in json.dumps(schema)

    def test_a_wrapped_apiflask_apps_page_embeds_its_input_schema(self):
        schemas = _embedded_schemas(_apiflask_pets(True).test_client(), "/pets")
        assert schemas["POST"]["schema"]["properties"] == {"name": {"type": "string"}}
        assert schemas["POST"]["schema"]["required"] == ["name"]

    def test_a_recursive_schema_is_cut_where_it_refers_back_to_itself(self):
        client = _smorest_orders(recursive=True).test_client()
        started = time.monotonic()
        tree = _embedded_schemas(client, "/orders")["POST"]["schema"]
        assert time.monotonic() - started < 5
        assert tree["properties"]["name"] == {"type": "string"}
        assert tree["properties"]["children"]["items"] == {}  # a box of JSON there, no deeper

    def test_a_schema_of_exponential_size_or_a_broken_ref_gives_the_form_from_the_data_and_why(
            self, app, client):
        levels = {"l0": {"type": "string"}}  # each level twice the one below: 2**30 fields in all
        for level in range(1, 31):
            below = {"$ref": "#/paths/~1big/post/x-levels/l{}".format(level - 1)}
            levels["l{}".format(level)] = {"type": "object", "properties": {"a": below, "b": below}}
        schema = {"$ref": "#/paths/~1big/post/x-levels/l30"}

        @app.route("/big", methods=["GET", "POST"])
        @set_openapi({"post": {"x-levels": levels, "requestBody": {"content": {
            "application/json": {"schema": schema}}}}})
        def big():
            return {"a": 1}

        @app.route("/broken", methods=["GET", "POST"])
        @set_openapi({"post": {"requestBody": {"$ref": "#/components/requestBodies/Nowhere"}}})
        def broken():
            return {"a": 1}
        started = time.monotonic()
        assert _embedded_schemas(client, "/big")["POST"]["fallback"] == (
            "The request body's schema has more than 5,000 parts, so this form is built from the "
            "data.")
        assert time.monotonic() - started < 5
        assert _embedded_schemas(client, "/broken") == {"POST": {"content": [], "fallback": (
            "The request body's schema refers to #/components/requestBodies/Nowhere, which the "
            "document does not have, so this form is built from the data.")}}
        assert _browse(client, "/broken").body_json == {"a": 1}
        levels["l30"] = levels["l2"]  # a small one is embedded whole
        app.extensions.clear()
        assert _embedded_schemas(client, "/big")["POST"]["schema"]["properties"]["a"] == {
            "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}

    def test_a_schema_at_the_part_limit_gets_its_form_and_one_part_more_says_why_not(self):
        def schema(values):  # 5 parts, and each enum value one more
            return {"type": "object", "properties": {"size": {"enum": list(range(values))}}}
        at_limit = _embedded_schemas(_body_app(schema(4995)).test_client(), "/")
        assert at_limit["POST"]["schema"] == schema(4995)
        assert _embedded_schemas(_body_app(schema(4996)).test_client(), "/") == {"POST": {
            "content": ["application/json"], "fallback": "The request body's schema has more "
            "than 5,000 parts, so this form is built from the data."}}

    def test_a_200000_value_enum_is_counted_and_the_page_stays_small(self):
        app = _body_app({"type": "object", "properties": {"size": {"enum": list(range(200000))}}})
        client = app.test_client()
        started = time.monotonic()
        page = _browse(client, "/")
        assert time.monotonic() - started < 5
        assert "more than 5,000 parts" in _embedded_schemas(client, "/")["POST"]["fallback"]
        small = _browse(_body_app({"type": "object", "properties": {"size": {"enum": [0]}}})
                        .test_client(), "/")
        assert len(page.html) < len(small.html) + 10000  # not the 1.5 MB it was, every value in it
        assert page.body_json == {"a": 1}

    def test_a_schema_at_the_depth_limit_gets_its_form_and_one_level_more_says_why_not(self):
        limit = flask_api._DEEPEST_SCHEMA
        at_limit = _embedded_schemas(_body_app(_nested_arrays(limit)).test_client(), "/")
        assert at_limit["POST"]["schema"] == _nested_arrays(limit)
        assert _embedded_schemas(_body_app(_nested_arrays(limit + 1)).test_client(), "/") == {
            "POST": {"content": ["application/json"], "fallback": "The request body's schema is "
                     "nested more than 64 levels deep, so this form is built from the data."}}

    def test_the_depth_limit_counts_where_refs_lead_and_what_a_default_holds(self):
        chain = _embedded_schemas(_ref_chain_app(10, 1).test_client(), "/")  # 3 + 6 * 10 levels
        assert chain["POST"]["schema"]["properties"]["chain"]["properties"]["a"]
        too_deep = "The request body's schema is nested more than 64 levels deep, so this form " \
                   "is built from the data."
        assert _embedded_schemas(_ref_chain_app(11, 1).test_client(), "/")["POST"][
            "fallback"] == too_deep  # 3 + 6 * 11, by 12 $refs: under their own limit, 16
        defaults = _embedded_schemas(_ref_chain_app(1, 61).test_client(), "/")  # 3 + 61
        assert defaults["POST"]["schema"]["properties"]["deep"]["default"] == _deep(61)
        assert _embedded_schemas(_ref_chain_app(1, 62).test_client(), "/")["POST"][
            "fallback"] == too_deep

    def test_a_property_named_like_a_keyword_still_has_its_ref_resolved(self):
        app = FlaskAPI(__name__)
        named = {name: {"$ref": "#/components/schemas/Error"}
                 for name in ["default", "enum", "example", "const"]}

        @app.route("/", methods=["POST"])
        @set_openapi({"requestBody": {"content": {"application/json": {"schema": {
            "type": "object", "properties": named, "default": {"$ref": "data, not a schema"}}}}}})
        def view():
            return {}
        schema = _embedded_schemas(app.test_client(), "/")["POST"]["schema"]
        assert schema["properties"] == dict.fromkeys(named, flask_api._ERROR_SCHEMA)
        assert schema["default"] == {"$ref": "data, not a schema"}  # a default is data, kept

    def test_the_embedded_schemas_are_built_once_per_document(self, monkeypatch):
        app = _schema_app()
        client = app.test_client()
        built = []
        original = flask_api._operation_schemas
        monkeypatch.setattr(flask_api, "_operation_schemas",
                            lambda *args: built.append(args[1].rule) or original(*args))
        for _ in range(3):
            assert _embedded_schemas(client, "/orders/")["POST"]
        assert _embedded_schemas(client, "/orders/1")["PUT"]
        assert built == ["/orders/", "/orders/<int:key>"]

    def test_browser_schema_form_makes_each_kind_of_field_and_sends_each_as_its_type(
            self, tab, schema_site):
        app, site = schema_site
        tab.goto(site + "/orders/")
        _expect(tab.get_by_role("tab", name="HTML form")).to_have_attribute("aria-selected", "true")
        _expect(tab.get_by_role("group", name="Body, as documented")).to_be_visible()
        # required marks: announced (the attribute) and seen (a "*" the label's name leaves out)
        _expect(_field(tab, "name")).to_have_attribute("required", "")
        mark = "(input) => getComputedStyle(input.labels[0], '::after').content"
        assert _field(tab, "name").evaluate(mark) == '" *" / ""'
        assert _field(tab, "price").evaluate(mark) == "none"
        _expect(_field(tab, "price")).not_to_have_attribute("required", "")
        _expect(_field(tab, "name")).to_have_attribute("maxlength", "20")
        _expect(_field(tab, "name")).to_have_accessible_description(
            "Lower-case letters. Matching ^[a-z ]+$.")
        # default and example prefilled; enums and booleans as selects of their values
        _expect(_field(tab, "price")).to_have_value("2.5")
        _expect(_field(tab, "note")).to_have_value("ring twice")
        assert _field(tab, "size").locator("option").all_inner_texts() == [
            "(none)", "small", "large", "3", "null"]
        assert _field(tab, "gift").locator("option").all_inner_texts() == ["(none)", "true",
                                                                           "false"]
        _expect(tab.get_by_label("id", exact=True)).to_have_count(0)  # readOnly: not sent
        # an object as a fieldset; an object without properties as a box of JSON; the required
        # field of an optional object is required once the object is being filled in
        address = tab.get_by_role("group", name="address")
        _expect(address.get_by_label("city", exact=True)).not_to_have_attribute("required", "")
        address.get_by_label("zip", exact=True).fill("5003")
        _expect(address.get_by_label("city", exact=True)).to_have_attribute("required", "")
        # a file where the operation takes no multipart body: said, and disabled
        _expect(_field(tab, "photo")).to_be_disabled()
        _expect(tab.locator(".field.file .hint")).to_contain_text("no multipart/form-data body")
        _field(tab, "name").fill("green tea")
        _field(tab, "count").fill("2")
        _field(tab, "size").select_option(label="3")
        _field(tab, "gift").select_option(label="false")
        tab.get_by_label("note is null").check()
        address.get_by_label("city", exact=True).fill("Bergen")
        _field(tab, "extra").fill('{"ribbon": [1, 2.0]}')
        tab.get_by_role("button", name="POST").click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 201")
        assert app.config["bodies"] == [
            '{"name": "green tea", "count": 2, "price": 2.5, "size": 3, '
            '"gift": false, "note": null, "address": {"city": "Bergen", '
            '"zip": "5003"}, "extra": {"ribbon": [1, 2.0]}}']

    def test_browser_schema_arrays_add_and_remove_items_by_buttons_named_for_them(self, tab,
                                                                                  schema_site):
        app, site = schema_site
        tab.goto(site + "/orders/")
        _field(tab, "name").fill("tea")
        _field(tab, "count").fill("1")
        tab.get_by_role("group", name="address").get_by_label("city").fill("Oslo")
        add_tag = tab.get_by_role("button", name="Add an item to tags")
        for text in ("one", "two", "three"):
            add_tag.click()
            tab.keyboard.type(text)  # focus went to the new item's field
        tab.get_by_role("button", name="Remove tags 2").click()
        _expect(add_tag).to_be_focused()
        tab.get_by_role("button", name="Add an item to lines").click()
        line = tab.get_by_role("group", name="lines 1")
        line.get_by_label("sku", exact=True).fill("T-1")
        line.get_by_label("qty", exact=True).fill("4")
        tab.get_by_role("button", name="Add an item to lines").click()
        tab.get_by_role("button", name="Remove lines 2").click()
        tab.get_by_role("button", name="POST").click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 201")
        sent = json.loads(app.config["bodies"][-1])
        assert (sent["tags"], sent["lines"]) == (["one", "three"], [{"sku": "T-1", "qty": 4}])

    def test_browser_schema_required_field_left_empty_is_refused_before_sending(self, tab,
                                                                                schema_site):
        app, site = schema_site
        tab.goto(site + "/orders/")
        _field(tab, "count").fill("1")
        tab.get_by_role("button", name="POST").click()
        assert _field(tab, "name").evaluate("input => input.validationMessage")
        _expect(_field(tab, "name")).to_be_focused()
        time.sleep(0.3)
        assert app.config["bodies"] == []
        # the Raw tab sends what it holds: the hidden form's checks do not stand in its way
        _raw_tab(tab)
        tab.get_by_label("Content").fill('{"name": "raw"}')
        tab.get_by_role("button", name="POST").click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 201")
        assert app.config["bodies"] == ['{"name": "raw"}']

    def test_browser_schema_integer_past_2_53_reaches_the_server_to_the_digit(self, tab,
                                                                              schema_site):
        app, site = schema_site
        tab.goto(site + "/orders/")
        _field(tab, "name").fill("tea")
        tab.get_by_role("group", name="address").get_by_label("city").fill("Oslo")
        # one past the schema's maximum is refused: compared as decimals, not as doubles (equal)
        _field(tab, "count").fill(BIG_INTEGER[:-1] + "2")
        tab.get_by_role("button", name="POST").click()
        message = _field(tab, "count").evaluate("input => input.validationMessage")
        assert message == "A number at most {} is expected.".format(BIG_INTEGER)
        _field(tab, "count").fill(BIG_INTEGER)
        tab.get_by_role("button", name="POST").click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 201")
        assert '"count": {},'.format(BIG_INTEGER) in app.config["bodies"][-1]
        assert json.loads(app.config["bodies"][-1])["count"] == int(BIG_INTEGER)

    def test_browser_schema_patch_with_the_puts_schema_sends_only_what_is_filled_in(self, tab,
                                                                                    live_site):
        """A PUT's schema makes the form; its required marks hold for the PUT, not for a PATCH."""
        app, bodies = FlaskAPI(__name__), []
        schema = {"type": "object", "required": ["name", "count"], "properties": {
            "name": {"type": "string"}, "count": {"type": "integer", "minimum": 1}}}

        @app.route("/items/<int:key>", methods=["GET", "PUT", "PATCH"])
        @set_openapi({"put": {"requestBody": {"content": {
            "application/json": {"schema": schema}}}}})
        def item(key):
            if request.method != "GET":
                bodies.append(request.get_data(as_text=True))
            return {"name": "tea", "count": 3}

        tab.goto(live_site.serve(app) + "/items/1")
        _expect(tab.get_by_role("group", name="PUT body, as documented")).to_be_visible()
        _field(tab, "name").fill("")
        tab.get_by_role("button", name="PUT", exact=True).click()
        assert _field(tab, "name").evaluate("input => input.validationMessage")
        tab.get_by_role("button", name="PATCH", exact=True).click()
        _expect(tab.locator("pre.response")).to_contain_text("PATCH /items/1")
        assert bodies == ['{"count": 3}']
        _field(tab, "count").fill("0")  # what is filled in is still checked
        tab.get_by_role("button", name="PATCH", exact=True).click()
        message = _field(tab, "count").evaluate("input => input.validationMessage")
        assert message == "A number at least 1 is expected."
        assert bodies == ['{"count": 3}']

    @pytest.mark.parametrize("field, text, message", [
        ("count", "0", "A number at least 1 is expected."),
        ("count", "1.5", "A whole number is expected."),
        ("count", "ten", "A number such as 12 or 2.5 is expected."),
        ("price", "0", "A number more than 0 is expected."),
        ("name", "Tea", "The value must match ^[a-z ]+$."),
    ])
    def test_browser_schema_checks_each_value_before_sending(self, tab, schema_site, field, text,
                                                             message):
        app, site = schema_site
        tab.goto(site + "/orders/")
        for name, value in {"name": "tea", "count": "1", field: text}.items():
            _field(tab, name).fill(value)
        tab.get_by_role("group", name="address").get_by_label("city").fill("Oslo")
        tab.get_by_role("button", name="POST").click()
        _expect(_field(tab, field)).to_be_focused()
        assert _field(tab, field).evaluate("input => input.validationMessage") == message
        time.sleep(0.3)
        assert app.config["bodies"] == []

    def test_browser_schema_form_of_a_put_is_filled_from_the_object_shown(self, tab, schema_site):
        app, site = schema_site
        tab.goto(site + "/orders/1")
        _expect(_field(tab, "name")).to_have_value("tea")
        _expect(_field(tab, "count")).to_have_value("3")
        _expect(_field(tab, "size")).to_have_value("3")
        _expect(_field(tab, "gift")).to_have_value("true")
        _expect(tab.get_by_label("note is null")).to_be_checked()
        _expect(_field(tab, "tags 2")).to_have_value("loose")
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("PUT /orders/1")
        assert json.loads(app.config["bodies"][-1]) == {
            "name": "tea", "count": 3, "price": 2.5, "size": 3, "gift": True, "note": None,
            "address": {"city": "Oslo"}, "tags": ["green", "loose"]}  # no lines: it had none

    def test_browser_schema_files_go_as_multipart_to_request_files_from_a_post_only_url(
            self, tab, schema_site, tmp_path):
        app, site = schema_site
        upload, copy = tmp_path / "notes.txt", tmp_path / "copy.txt"
        upload.write_text("first file")
        copy.write_text("second file")
        tab.goto(site + "/upload/")
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 405")
        _field(tab, "title").fill("mine")
        tab.get_by_role("button", name="POST").click()  # no file chosen: refused
        assert _field(tab, "file").evaluate("input => input.validationMessage")
        _field(tab, "file").set_input_files(str(upload))
        tab.get_by_role("button", name="Add an item to copies").click()
        _field(tab, "copies 1").set_input_files(str(copy))
        tab.locator("form[data-api] .bar button.copy").click()  # curl reads the files themselves
        _expect(tab.locator("form[data-api] pre.curl")).to_contain_text(
            "--form-string 'title=mine' -F 'file=@notes.txt' -F 'copies=@copy.txt'")
        tab.get_by_role("button", name="POST").click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 200")
        assert app.config["bodies"] == ["multipart/form-data"]
        answer = tab.locator("pre.response").inner_text()
        assert json.loads(answer[answer.index("{"):]) == {
            "files": [["file", "notes.txt", "first file"], ["copies", "copy.txt", "second file"]],
            "form": {"title": ["mine"]}}

    @pytest.mark.parametrize("make", [_smorest_things, _apiflask_pets], ids=["flask-smorest",
                                                                             "apiflask"])
    def test_browser_a_wrapped_apps_own_schema_makes_its_form(self, chromium, live_site, make):
        _skip_where_the_library_breaks_errors("flask-smorest")
        site = live_site.serve(make(True) if make is _apiflask_pets else make())
        path = "/pets" if make is _apiflask_pets else "/things/"
        with _open_tab(chromium, site) as tab:
            tab.goto(path)
            _expect(_field(tab, "name")).to_have_attribute("required", "")
            _expect(tab.get_by_label("key", exact=True)).to_have_count(0)  # dump_only
            _expect(tab.get_by_label("url", exact=True)).to_have_count(0)
            tab.get_by_role("button", name="POST").click()
            assert _field(tab, "name").evaluate("input => input.validationMessage")
            _field(tab, "name").fill("mug")
            tab.get_by_role("button", name="POST").click()
            _expect(tab.locator("pre.response")).to_contain_text("HTTP 201")
            _expect(tab.locator("pre.response")).to_contain_text('"name": "mug"')

    def test_browser_schema_patterns_on_10000_characters_shown_keep_the_tab_responsive(
            self, tab, live_site):
        app = _pattern_app()
        tab.goto(live_site.serve(app) + "/words/1")
        _expect(_field(tab, "nested")).to_have_value("a" * 10000 + "b")  # prefilled: no maxlength
        _expect(_field(tab, "twice")).to_have_accessible_description(
            "Matching ^(.+)\\1$ (not checked here).")  # it needs backtracking: the server checks it
        _watch_long_tasks(tab)
        put = tab.get_by_role("button", name="PUT")
        for name, pattern, valid in [("nested", "^(a+)+$", "a" * 10000),
                                     ("either", "^(a|aa)+$", "aa" * 5000)]:
            put.click()
            _expect(_field(tab, name)).to_be_focused()
            assert _field(tab, name).evaluate("input => input.validationMessage") == (
                "The value must match {}.".format(pattern))
            _field(tab, name).fill(valid)
        put.click()
        _expect(tab.locator("pre.response")).to_contain_text("PUT /words/1")
        assert json.loads(app.config["bodies"][-1]) == {"nested": "a" * 10000,
                                                        "either": "a" * 10000,
                                                        "twice": "ab"}
        # a check is about 10 ms on an idle machine, 20-40 ms measured on one shared with other
        # work; RegExp's took years: the bound is that of a tab that never hangs, on any machine
        assert tab.evaluate("window.longestTask") < 500

    def test_browser_schema_form_says_why_where_the_server_gives_no_schema(self, tab, live_site):
        why = ("The request body's schema has more than 5,000 parts, so this form is built from "
               "the data.")
        app = _hand_schemas_app({"PUT": {"content": ["application/json"], "fallback": why}})
        site = live_site.serve(app)
        tab.goto(site + "/things/1")
        _expect(tab.get_by_role("tabpanel",
                                name="HTML form").locator("#api-form-why")).to_have_text(
            why)  # the server's sentence, as it is
        _expect(tab.get_by_role("group", name="PUT body, as documented")).to_have_count(0)
        tab.get_by_label("size", exact=True).fill("large")  # the form from the data, as before
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("PUT /things/1")
        assert app.config["bodies"] == ['{"name": "kettle", "size": "large"}']
        app.config["page_schemas"] = {"POST": {"content": ["application/json"], "fallback": why}}
        tab.goto(site + "/upload/")  # no data to make a form of: said above the raw box
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 405")
        _expect(tab.locator("form[data-api] legend + #api-form-why")).to_have_text(why)
        assert _axe(tab) == []

    def test_browser_schema_of_a_200000_value_enum_leaves_the_form_curl_and_stream_working(
            self, tab, live_site):
        schema = {"type": "object", "properties": {"size": {"enum": ["v%d" % n for n in
                                                                     range(200000)]}}}
        app = _hand_schemas_app({"PUT": {"content": ["application/json"], "schema": schema},
                                 "POST": {"content": ["application/json"], "schema": schema}})
        site = live_site.serve(app)
        tab.goto(site + "/things/1")
        size = _field(tab, "size")  # a line of text, not a select of 200,000 options
        _expect(size).to_have_value("v1")
        _expect(size).to_have_accessible_description(
            "One of 200,000 values, typed as shown (a string as it is, another value as its JSON).")
        _expect(tab.get_by_role("button", name="Copy as curl")).to_have_count(2)
        size.fill("v200000")
        tab.get_by_role("button", name="PUT").click()
        assert size.evaluate("input => input.validationMessage") == (
            "The value must be one of the schema's values.")
        size.fill("v199999")
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("PUT /things/1")
        assert app.config["bodies"] == ['{"size": "v199999"}']
        tab.goto(site + "/ticks")  # a stream's page with that form still streams
        _expect(tab.locator("pre.response .stream-line")).to_contain_text("Ended. 3 items")
        _expect(_field(tab, "size")).to_have_value("")

    def test_browser_schema_past_a_thousand_fields_gives_the_data_form_saying_why(self, tab,
                                                                                  live_site):
        many = {"type": "object", "properties": {"f%d" % n: {"type": "string"}
                                                 for n in range(2000)}}
        app = _hand_schemas_app({"PUT": {"content": ["application/json"], "schema": many}})
        tab.goto(live_site.serve(app) + "/things/1")
        _expect(tab.locator("#api-form-why")).to_have_text(
            "The request body's schema has more than 1,000 fields, so this form is built from the "
            "data.")
        _expect(tab.get_by_label("f1", exact=True)).to_have_count(0)
        _expect(tab.get_by_label("size", exact=True)).to_have_value("v1")  # the data's form

    def test_browser_schema_nested_400_deep_makes_boxes_of_json_past_32(self, tab, live_site):
        deep = {"type": "string"}
        for level in reversed(range(400)):
            deep = {"type": "object", "properties": {"n%d" % level: deep}}
        app = _hand_schemas_app({"PUT": {"content": ["application/json"], "schema": deep}})
        tab.goto(live_site.serve(app) + "/things/1")
        _expect(tab.get_by_role("group", name="n31", exact=True)).to_be_visible()
        box = _field(tab, "n32")  # the 33rd level down: a box of its JSON
        _expect(box).to_have_js_property("tagName", "TEXTAREA")
        box.fill('{"n33": {"n34": {}}}')
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("PUT /things/1")
        sent = json.loads(app.config["bodies"][-1])
        for level in range(32):
            sent = sent["n%d" % level]
        assert sent == {"n32": {"n33": {"n34": {}}}}

    @pytest.mark.parametrize("schema", HOSTILE_SCHEMAS.values(), ids=list(HOSTILE_SCHEMAS))
    def test_browser_schema_form_survives_schemas_built_to_break_it(self, tab, live_site, schema):
        app = _hand_schemas_app({"PUT": {"content": ["application/json"], "schema": schema}},
                                {"a": "a" * 10000})
        errors = []
        tab.on("pageerror", lambda error: errors.append(error))
        tab.goto(live_site.serve(app) + "/things/1")
        _expect(tab.get_by_role("tab", name="HTML form")).to_have_attribute("aria-selected", "true")
        _expect(tab.get_by_role("button", name="Copy as curl")).to_have_count(2)
        _watch_long_tasks(tab)
        tab.locator("form[data-api] button.copy").click()  # the form's body, checked
        _expect(tab.locator("form[data-api] pre.curl")).to_contain_text("curl -X PUT")
        assert tab.evaluate("window.longestTask") < 500  # as for the patterns above
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("PUT /things/1")
        assert errors == [] and tab.evaluate("({}).polluted") is None

    def test_browser_schema_wrapped_objects_give_their_fields_and_a_oneof_a_choice_of_shape(
            self, tab, live_site):
        app = _hand_schemas_app({"PUT": {"content": ["application/json"], "schema": WRAPPED_BODY}},
                                {"name": "kettle", "home": {"berth": 3}})
        tab.goto(live_site.serve(app) + "/things/1")
        keeper, vet = (tab.get_by_role("group", name=name, exact=True) for name in ("keeper",
                                                                                    "vet"))
        _expect(keeper.get_by_label("name", exact=True)).to_have_js_property("tagName", "INPUT")
        _expect(keeper).to_have_accessible_description(
            "Who keeps it. Left out until something in it is filled in.")
        tab.get_by_label("keeper is null").check()
        _expect(keeper.get_by_label("phone", exact=True)).to_be_disabled()
        vet.get_by_label("name", exact=True).fill("Vera")
        _expect(tab.get_by_label("vet is null")).not_to_be_checked()
        shape = _field(tab, "Shape of home")  # the shape the data shown fits, filled from it
        assert shape.locator("option").all_inner_texts() == ["(none)", "House", "Boat"]
        _expect(shape).to_have_value("1")
        _expect(tab.get_by_role("group", name="Boat").get_by_label("berth")).to_have_value("3")
        shape.select_option(label="House")
        _expect(tab.get_by_role("group", name="Boat")).to_have_count(0)
        tab.get_by_role("group", name="House").get_by_label("street").fill("Elm Row")
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("PUT /things/1")
        assert json.loads(app.config["bodies"][-1]) == {
            "name": "kettle", "keeper": None, "vet": {"name": "Vera"},
                                                        "home": {"street": "Elm Row"}}

    @pytest.mark.parametrize("library, version", PET_LIBRARIES,
                             ids=["-".join(filter(None, case)) for case in PET_LIBRARIES])
    def test_browser_schema_form_of_a_library_follows_optionality_wrappers_and_shapes(
            self, tab, live_site, library, version):
        _skip_where_the_library_breaks_errors(library)
        app = _library_pets(library, version)
        tab.goto(live_site.serve(app) + "/pets")
        post, bodies = tab.get_by_role("button", name="POST"), app.config["bodies"]
        # optional nested objects and a list left untouched: left out, not {} or []
        _field(tab, "name").first.fill("Rex")  # the pet's; its owner's, keeper's and vet's follow
        post.click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 201")
        assert bodies == ['{"name": "Rex"}']
        _field(tab, "name").first.fill("Rex")  # the page after a POST has the form anew
        # once the optional owner is being filled in, its name is required
        owner = tab.get_by_role("group", name="owner", exact=True)
        owner.get_by_label("phone").fill("555")
        post.click()
        assert owner.get_by_label("name").evaluate("input => input.validationMessage")
        owner.get_by_label("name").fill("Ann")
        # the wrapped ones have the referenced object's fields, and the nullable one a null box
        vet, keeper = (tab.get_by_role("group", name=name, exact=True) for name in ("vet",
                                                                                    "keeper"))
        _expect(vet).to_have_accessible_description(
            "The vet. Left out until something in it is filled in.")
        vet.get_by_label("name").fill("Vera")
        _expect(keeper.get_by_label("phone")).to_have_js_property("tagName", "INPUT")
        tab.get_by_label("keeper is null").check()
        # a oneOf of two shapes: a choice of shape, then that shape's fields
        shape = _field(tab, "Shape of home")
        assert shape.locator("option").all_inner_texts() == ["(none)", "House", "Boat"]
        shape.select_option(label="Boat")
        tab.get_by_role("group", name="Boat").get_by_label("berth").fill("7")
        tab.get_by_role("button", name="Add an item to tags").click()  # then no item after all
        tab.get_by_role("button", name="Remove tags 1").click()
        post.click()
        _expect(tab.locator("pre.response")).to_contain_text('"berth": 7')
        assert len(bodies) == 2 and json.loads(bodies[-1]) == {
            "name": "Rex", "owner": {"name": "Ann", "phone": "555"}, "keeper": None,
            "vet": {"name": "Vera"}, "home": {"berth": 7}}

    @pytest.mark.parametrize("library, version", PET_LIBRARIES,
                             ids=["-".join(filter(None, case)) for case in PET_LIBRARIES])
    def test_browser_schema_pattern_of_a_library_is_checked_on_10000_characters_at_once(
            self, tab, live_site, library, version):
        _skip_where_the_library_breaks_errors(library)
        app = _library_pets(library, version, _coded_pet)
        tab.goto(live_site.serve(app) + "/pets")
        _field(tab, "code").fill("a" * 9999 + "b")
        _watch_long_tasks(tab)
        tab.get_by_role("button", name="POST").click()
        assert _field(tab, "code").evaluate("input => input.validationMessage") == (
            "The value must match ^(a+)+$.")
        assert tab.evaluate("window.longestTask") < 500  # as above
        _field(tab, "code").fill("a" * 10000)
        tab.get_by_role("button", name="POST").click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 201")
        assert app.config["bodies"] == ['{"code": "%s"}' % ("a" * 10000)]

    @pytest.mark.parametrize("library, version", PET_LIBRARIES,
                             ids=["-".join(filter(None, case)) for case in PET_LIBRARIES])
    def test_browser_schema_of_a_library_with_a_200000_value_enum_leaves_the_page_working(
            self, tab, live_site, library, version):
        _skip_where_the_library_breaks_errors(library)
        app = _library_pets(library, version, _bred_pet)
        errors = []
        tab.on("pageerror", lambda error: errors.append(error))
        tab.goto(live_site.serve(app) + "/pets")
        # the form's tools are all built (its curl button comes last), and the breed is a field of
        # the form, or the form says why it has none (where the server finds the schema too big)
        _expect(tab.locator("form[data-api] button.copy")).to_have_text("Copy as curl")
        _expect(tab.locator("#api-fields [data-key=breed], #api-form-why")).to_have_count(1)
        assert errors == []

    def test_browser_schema_optional_object_starts_blank_though_its_fields_have_defaults(
            self, tab, live_site):
        schema = {"type": "object", "properties": {
            "name": {"type": "string", "default": "teapot"},
            "shipping": {"type": "object", "required": ["city"], "default": {"city": "Oslo"},
                         "properties": {"city": {"type": "string"},
                                        "speed": {"type": "string", "default": "slow"}}}}}
        app = _hand_schemas_app({"POST": {"content": ["application/json"], "schema": schema}})
        tab.goto(live_site.serve(app) + "/upload/")
        _expect(_field(tab, "name")).to_have_value("teapot")  # sure to be sent: its default shown
        shipping = tab.get_by_role("group", name="shipping")
        _expect(shipping.get_by_label("speed")).to_have_value("")  # not sent unless filled in
        for city in ("", "Bergen"):  # the page after the first POST has the form anew
            shipping.get_by_label("city").fill(city)
            with tab.expect_response(lambda response: response.request.method == "POST"):
                tab.get_by_role("button", name="POST").click()
        assert app.config["bodies"] == ['{"name": "teapot"}',
                                        '{"name": "teapot", "shipping": {"city": "Bergen"}}']

    def test_browser_schema_optional_objects_nulls_and_shapes_by_keyboard_alone(self, tab,
                                                                                live_site):
        app = _library_pets("flask-smorest", "3.0.3")
        tab.goto(live_site.serve(app) + "/pets")
        _tab_to(tab, "[data-root] > .field > [data-key=name]")
        tab.keyboard.type("Rex")
        owner = tab.get_by_role("group", name="owner", exact=True)
        _tab_to(tab, "[data-key=owner] [data-key=phone]")
        tab.keyboard.type("555")  # the owner is being filled in: its name is required now
        _expect(owner.get_by_label("name")).to_have_attribute("required", "")
        tab.keyboard.press("Shift+Tab")
        tab.keyboard.type("Ann")
        _tab_to(tab, "[aria-label='keeper is null']")
        tab.keyboard.press("Space")
        _expect(tab.get_by_label("keeper is null")).to_be_checked()
        _tab_to(tab, "[data-key=tags] > button")
        _expect(tab.get_by_role("button", name="Add an item to tags")).to_be_focused()
        tab.keyboard.press("Enter")
        tab.keyboard.type("old")  # focus went to the new item
        tab.keyboard.press("Tab")
        _expect(tab.get_by_role("button", name="Remove tags 1")).to_be_focused()
        tab.keyboard.press("Enter")
        _expect(tab.get_by_role("button", name="Add an item to tags")).to_be_focused()
        _tab_to(tab, "[data-key=home] select")
        tab.keyboard.press("ArrowDown")  # a closed select changes, and says so, with each arrow
        tab.keyboard.press("ArrowDown")
        _expect(tab.get_by_role("group", name="Boat")).to_be_visible()
        tab.keyboard.press("Tab")
        tab.keyboard.type("7")
        _tab_to(tab, "button[value=POST]")
        tab.keyboard.press("Enter")
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 201")
        assert json.loads(app.config["bodies"][-1]) == {
            "name": "Rex", "owner": {"name": "Ann", "phone": "555"}, "keeper": None,
            "home": {"berth": 7}}

    @pytest.mark.parametrize("theme", ["light", "dark"])
    def test_axe_finds_nothing_on_schema_forms_of_wrappers_shapes_and_optional_objects(
            self, chromium, live_site, theme):
        app = _hand_schemas_app({"PUT": {"content": ["application/json"], "schema": WRAPPED_BODY}},
                                {"name": "kettle", "home": {"berth": 3}})
        with _open_tab(chromium, live_site.serve(app)) as tab:
            tab.emulate_media(color_scheme=theme)
            tab.goto("/things/1")
            assert _axe(tab) == []  # optional objects left out while blank, a shape chosen
            tab.get_by_label("keeper is null").check()
            tab.get_by_role("group", name="vet", exact=True).get_by_label("phone").fill("1")
            _field(tab, "Shape of home").select_option(label="House")
            assert _axe(tab) == []

    @pytest.mark.parametrize("theme", ["light", "dark"])
    def test_axe_finds_nothing_on_a_schema_form_with_every_kind_of_field(self, chromium,
                                                                         schema_site, theme):
        app, site = schema_site
        with _open_tab(chromium, site) as tab:
            tab.emulate_media(color_scheme=theme)
            tab.goto("/orders/1")
            tab.get_by_role("button", name="Add an item to lines").click()
            tab.get_by_label("note is null").uncheck()
            assert _axe(tab) == []
            # every target 24 px at least: a control's own box, or its label's where it has one
            small = tab.evaluate("""() => Array.from(document.querySelectorAll("#api-fields " +
                ":is(button, select, input)")).map((node) => (node.closest("label") || node)
                .getBoundingClientRect()).filter((box) => box.width < 24 || box.height < 24)""")
            assert small == []

    def test_page_script_compares_numbers_as_decimals_exactly(self, script_parts):
        cases = [[one, other] for one, other, _ in COMPARED_NUMBERS]
        assert _js(script_parts, "(cases) => cases.map(([a, b]) => parts.compareNumbers(a, b))",
                   cases) == [order for _, _, order in COMPARED_NUMBERS]

    @pytest.mark.parametrize("schema, read", WRAPPED_SCHEMAS)
    def test_page_script_reads_through_the_wrappers_libraries_write(self, script_parts, schema,
                                                                    read):
        assert _js(script_parts, """(text) => {
            const {k, kind, nullable, shapes} = parts.schemaKind(parts.parseJSON(text));
            return [kind, nullable, k.properties?.entries.map((member) => member[0]) ?? null,
                    k.description?.value ?? null, shapes?.length ?? 0];
        }""", json.dumps(schema)) == read

    def test_page_script_matches_patterns_as_regexp_does(self, script_parts):
        found = _js(script_parts, """(cases) => cases.map(([pattern, text]) =>
            [parts.matchesPattern(pattern, text), new RegExp(pattern, "u").test(text)])""",
                    PATTERN_TEXTS)
        assert [got for got, _ in found] == [wanted for _, wanted in found]
        assert found.count([True, True]) > 10 and found.count([False, False]) > 10
        assert _js(script_parts, """(cases) => cases.map(([pattern, text]) =>
            parts.matchesPattern(pattern, text))""", UNCHECKED_PATTERNS) == [True] * 6

    @pytest.mark.parametrize("pattern, text, matches", CATASTROPHIC_PATTERNS)
    def test_page_script_checks_a_catastrophic_pattern_in_milliseconds(self, script_parts, pattern,
                                                                       text, matches):
        found, took = _js(script_parts, """(pattern, text) => {
            const started = performance.now();
            return [parts.matchesPattern(pattern, text), performance.now() - started];
        }""", pattern, text)
        assert found is matches
        assert took < 250  # about 10 ms on an idle machine; RegExp's: years


# ---------------------------------------------------------------------------
# Signing in
# ---------------------------------------------------------------------------

def _auth_block(page):
    """The page's sign-in block as data (a `_Page`, or a response), or None if it has none."""
    page = page if isinstance(page, _Page) else _Page(page)
    found = page.find("script", id="api-auth")
    assert len(found) <= 1
    if found:
        assert found[0].attrs == {"type": "application/json", "id": "api-auth"}
    return json.loads(found[0].text) if found else None


def _connect_src(response):
    """The sources of the page's CSP connect-src, and the names of all its directives."""
    policy = response.headers["Content-Security-Policy"]
    directives = [part.split() for part in policy.split(";")]
    found = [words[1:] for words in directives if words[0] == "connect-src"]
    assert len(found) == 1, policy
    return found[0], [words[0] for words in directives]


PAGE_DIRECTIVES = ["default-src", "script-src", "style-src", "connect-src", "img-src",
                   "form-action", "base-uri", "frame-ancestors"]
SCHEMES = {
    "basic": {"type": "http", "scheme": "basic", "description": "Your name and password."},
    "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
    "key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
    "oauth": {"type": "oauth2", "flows": {
        "authorizationCode": {"authorizationUrl": "https://login.example/authorize",
                              "tokenUrl": "https://login.example/token",
                              "refreshUrl": "https://refresh.example:8443/token",
                              "scopes": {"read": "Read things", "write": "Change things"}},
        "clientCredentials": {"tokenUrl": "https://login.example/token", "scopes": {}}}},
    "oidc": {"type": "openIdConnect",
             "openIdConnectUrl": "https://id.example/.well-known/openid-configuration"},
}


def _secured_app(schemes=SCHEMES, security=({"basic": []}, {"bearer": []}), challenge=None):
    """A FlaskAPI app whose document names ``schemes`` and the default ``security``:
    /things/ (GET by default; POST its own, optional sign-in; DELETE for all), and /open,
    which needs none. Its views answer 401 with ``challenge`` where one is given."""
    app = FlaskAPI(__name__)
    app.testing = True
    app.config.update(OPENAPI_SECURITY_SCHEMES=schemes, OPENAPI_SECURITY=list(security))

    @app.route("/things/", methods=["GET", "POST", "DELETE"])
    @set_openapi({"post": {"security": [{"oauth": ["write"]}, {}]}, "delete": {"security": []}})
    def secured_things():
        """The things, for those signed in."""
        if challenge is not None:
            return {"detail": "Sign in first."}, 401, [("WWW-Authenticate", value)
                                                      for value in challenge]
        return []

    @app.route("/open")
    @set_openapi({"security": []})
    def secured_open():
        return {"open": True}
    return app


CHALLENGES = [  # (WWW-Authenticate headers, the challenges the page gets: scheme, token68, params)
    (['Basic realm="simple"'], [("Basic", None, {"realm": "simple"})]),
    (['Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"'],
     [("Newauth", None, {"realm": "apps", "type": "1", "title": 'Login to "apps"'}),
      ("Basic", None, {"realm": "simple"})]),  # RFC 9110's own example, 11.6.1
    (['Basic realm="a"', 'Bearer realm="b", scope="read write"'],  # two headers: one list
     [("Basic", None, {"realm": "a"}), ("Bearer", None, {"realm": "b", "scope": "read write"})]),
    (["Negotiate a87421000492aa874209af8bc028==, Basic realm=x"],  # token68, and a token
     [("Negotiate", "a87421000492aa874209af8bc028==", {}), ("Basic", None, {"realm": "x"})]),
    (["Bearer"], [("Bearer", None, {})]),
    ([', ,Basic realm="x",, Bearer ,'], [("Basic", None, {"realm": "x"}),  # empty elements
                                         ("Bearer", None, {})]),
    (['Bearer realm = "spaced" , scope = read'], [("Bearer", None, {"realm": "spaced",
                                                                   "scope": "read"})]),
    (['Basic REALM="x", Charset="utf-8"'], [("Basic", None, {"realm": "x",
                                                             "charset": "UTF-8"})]),
    (['Basic realm="x", charset="ISO-8859-1"'], [("Basic", None, {"realm": "x"})]),  # 7617
    (['Bearer realm="example", error="invalid_token", error_description="The access token '
      'expired", error_uri="https://example.com/errors", scope="read"'],
     [("Bearer", None, {"realm": "example", "error": "invalid_token", "error_description":
                        "The access token expired", "error_uri": "https://example.com/errors",
                        "scope": "read"})]),  # RFC 6750, 3
    (['Bearer error="invalid_token", error_uri="javascript:alert(1)"'],
     [("Bearer", None, {"error": "invalid_token"})]),
    (['Basic realm="a, b=\\"c\\", Bearer d"'], [("Basic", None, {"realm": 'a, b="c", Bearer d'})]),
    (['Basic realm="first", realm="second"'], [("Basic", None, {"realm": "first"})]),
    (['Basic realm="x", Bearer realm="never closed'], [("Basic", None, {"realm": "x"})]),
    (['Basic realm="x", "quoted" Bearer'], [("Basic", None, {"realm": "x"})]),
    (['Basic realm="y", Digest realm="x" qop="auth"'],  # no comma: not a challenge
     [("Basic", None, {"realm": "y"})]),
    (["Basic realm=\"<script>alert(1)</script>\""],
     [("Basic", None, {"realm": "<script>alert(1)</script>"})]),
]


def _late_challenge_app(headers, flask_class=FlaskAPI, schemes=None):
    """A view whose 401 gets its WWW-Authenticate ``headers`` after the page is rendered, as
    a decorator's (Flask-HTTPAuth's) do; ``schemes`` in the document, where given."""
    app = flask_class(__name__)
    app.testing = True
    if schemes:
        app.config["OPENAPI_SECURITY_SCHEMES"] = schemes

    def challenge_after(view):
        @functools.wraps(view)
        def wrapped():
            response = make_response(view())
            for value in headers:
                response.headers.add("WWW-Authenticate", value)
            return response
        return wrapped

    @app.route("/")
    @challenge_after
    def late():
        return jsonify(detail="Sign in first."), 401
    if flask_class is Flask:
        BrowsableAPI(app)
    return app


HOSTILE_CHALLENGES = {
    "a 100 KB realm": 'Basic realm="' + "a" * 100000 + '"',
    "a 100 KB token68": "Negotiate " + "a" * 100000,
    "10,000 challenges": ", ".join(['Basic realm="x"'] * 10000),
    "10,000 params": "Bearer " + ", ".join('p{}="v"'.format(n) for n in range(10000)),
    "100 KB of escapes": 'Basic realm="' + "\\\"" * 50000,
    "100 KB of commas": "," * 100000,
    "100 KB of spaces between": "Basic" + " " * 100000 + "realm=x",
}


HOSTILE_URLS = [
    "javascript:alert(1)", "JAVASCRIPT:alert(1)", " javascript:alert(1)", "java\tscript:x",
    "data:text/html,<script>alert(1)</script>", "https://a.example/\"; script-src *",
    "https://a.example/ x", "https://a.example'/x", "//evil.example/token",
    "/\\evil.example/token", "https://user:pw@evil.example/token",
    "https://evil.example;script-src/", "https://evil.example:99999999/",
    "https://\u0435vil.example/", "ftp://evil.example/token", "https://evil.example\\@ok/",
    "https://[::1;script-src]/",
]


# The real servers of the page's sign-in: each app below runs on a real server in the tests
# (`signin_site`, `oauth_server`), so that a browser can sign in to it; each is tried here
# over HTTP. The people and keys they know:
SIGNIN_USERS = {"ann": "ann-pw"}  # name: password, for every app below
SIGNIN_TOKEN = "ann-token"  # Flask-HTTPAuth's, APIFlask's and flask-smorest's bearer token
SIGNIN_API_KEY = "k-123"  # the API keys app's, and flask-smorest's X-API-Key


REDIRECTS = (302, 303)  # flask.redirect's: 302, and 303 from Flask 3.2


def _signed_in(name, password):
    return name if name in SIGNIN_USERS and SIGNIN_USERS[name] == password else None


def _httpauth_app(browsable=True):
    """Flask-HTTPAuth on a FlaskAPI app: /basic/ behind HTTP Basic (realm "Things"),
    /token/ behind a bearer token; each 401 is the API's page, the challenge added by the
    extension's decorator after it is rendered."""
    httpauth = _optional("flask_httpauth")
    app = FlaskAPI("httpauth_app")
    app.config["OPENAPI_SECURITY_SCHEMES"] = {"basic": {"type": "http", "scheme": "basic"},
                                              "token": {"type": "http", "scheme": "bearer"}}
    basic = httpauth.HTTPBasicAuth(realm="Things")
    token = httpauth.HTTPTokenAuth(scheme="Bearer", realm="Things")
    basic.verify_password(_signed_in)
    token.verify_token(lambda value: "ann" if value == SIGNIN_TOKEN else None)
    for auth in (basic, token):
        auth.error_handler(lambda status: ({"detail": "Sign in first."}, status))

    @app.route("/basic/")
    @set_openapi({"security": [{"basic": []}]})
    @basic.login_required
    def basic_things():
        return {"user": basic.current_user()}

    @app.route("/token/")
    @set_openapi({"security": [{"token": []}]})
    @token.login_required
    def token_things():
        return {"user": token.current_user()}
    return _finish(app, browsable)


def _httpauth_default_app(flask_class=Flask, browsable=True):
    """Flask-HTTPAuth as its README sets it up, its own error handler left as it is: /basic/
    behind HTTP Basic (realm "Things"), whose 401 is the plain text "Unauthorized Access"
    with its WWW-Authenticate; on a plain Flask app (BrowsableAPI) or a FlaskAPI one."""
    httpauth = _optional("flask_httpauth")
    app = flask_class("httpauth_default_app")
    basic = httpauth.HTTPBasicAuth(realm="Things")
    basic.verify_password(_signed_in)

    @app.route("/basic/")
    @basic.login_required
    def default_basic_things():
        return jsonify(user=basic.current_user())
    return _finish(app, browsable and flask_class is Flask)


def _jwt_app(browsable=True, expires=datetime.timedelta(minutes=15)):
    """Flask-JWT-Extended on a plain Flask app wrapped with BrowsableAPI: POST /login with
    a JSON username and password answers an access token that expires after ``expires``;
    /me takes it as a bearer token (its 401s carry no challenge, as the extension's do)."""
    jwt_extended = _optional("flask_jwt_extended")
    app = Flask("jwt_app")
    app.config.update(JWT_SECRET_KEY="test only: a key of 32 bytes or more",
                      JWT_ACCESS_TOKEN_EXPIRES=expires, OPENAPI_SECURITY_SCHEMES={"jwt": {
                          "type": "http", "scheme": "bearer", "bearerFormat": "JWT"}},
                      OPENAPI_SECURITY=[{"jwt": []}])
    jwt_extended.JWTManager(app)

    @app.route("/login", methods=["POST"])
    @set_openapi({"security": []})
    def jwt_login():
        body = request.get_json(silent=True) or {}
        name = _signed_in(body.get("username"), body.get("password"))
        if name is None:
            return jsonify(msg="Wrong username or password"), 401
        return jsonify(access_token=jwt_extended.create_access_token(identity=name))

    @app.route("/me")
    @jwt_extended.jwt_required()
    def jwt_me():
        return jsonify(user=jwt_extended.get_jwt_identity())
    return _finish(app, browsable)


def _apiflask_auth_app(browsable=True):
    """APIFlask with its documented auth, wrapped with BrowsableAPI: /me behind its
    HTTPBasicAuth, /pets behind its HTTPTokenAuth (``@app.auth_required``), /open for all."""
    apiflask = _optional("apiflask")
    app = apiflask.APIFlask("apiflask_auth_app")
    basic, token = apiflask.HTTPBasicAuth(), apiflask.HTTPTokenAuth()
    basic.verify_password(_signed_in)
    token.verify_token(lambda value: "ann" if value == SIGNIN_TOKEN else None)

    @app.get("/me")
    @app.auth_required(basic)
    def apiflask_me():
        return {"user": basic.current_user}

    @app.get("/pets")
    @app.auth_required(token)
    def apiflask_pets():
        return {"pets": ["Kitty"], "user": token.current_user}

    @app.get("/open")
    def apiflask_open():
        return {"open": True}
    return _finish(app, browsable)


def _smorest_auth_app(browsable=True):
    """flask-smorest with documented schemes, wrapped with BrowsableAPI: an API key in
    X-API-Key for the whole API (``API_SPEC_OPTIONS``), a bearer token for GET /things/
    (``spec.components.security_scheme``, ``@blp.doc(security=...)``); /things/open for
    all. Its own document is at /spec.json."""
    flask_smorest = _optional("flask_smorest")
    app = Flask("smorest_auth_app")
    app.config.update(API_TITLE="Things", API_VERSION="1", OPENAPI_VERSION="3.0.3",
                      OPENAPI_URL_PREFIX="/", OPENAPI_JSON_PATH="spec.json", API_SPEC_OPTIONS={
                          "security": [{"apiKey": []}], "components": {"securitySchemes": {
                              "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}
                          }}})
    api = flask_smorest.Api(app)
    api.spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer"})
    blp = flask_smorest.Blueprint("things", __name__, url_prefix="/things")

    def refuse(challenge):
        flask_smorest.abort(401, message="Sign in first.", headers={"WWW-Authenticate": challenge})

    @blp.route("/")
    class SignedThings(MethodView):
        @blp.doc(security=[{"bearerAuth": []}])
        def get(self):
            if request.headers.get("Authorization") != "Bearer " + SIGNIN_TOKEN:
                refuse('Bearer realm="things"')
            return {"things": ["kettle"]}

        def post(self):
            if request.headers.get("X-API-Key") != SIGNIN_API_KEY:
                refuse('ApiKey realm="things", header="X-API-Key"')
            return {"added": True}

    @blp.route("/open")
    @blp.doc(security=[])
    def smorest_open():
        return {"open": True}
    api.register_blueprint(blp)
    return _finish(app, browsable)


def _login_app(browsable=True, login_view=True):
    """Flask-Login on a FlaskAPI app: /me for a signed-in user, who signs in with the app's
    HTML form at /login and out with POST /logout. A request to /me without its session is
    redirected to /login?next=%2Fme where there is a ``login_view``, else a 401 page."""
    flask_login = _optional("flask_login")
    app = FlaskAPI("login_app")
    app.config.update(SECRET_KEY="test only", OPENAPI_SECURITY=[{"session": []}],
                      OPENAPI_SECURITY_SCHEMES={"session": {
                          "type": "apiKey", "in": "cookie", "name": "session",
                          "description": "Sign in at /login: its session cookie."}})
    manager = flask_login.LoginManager(app)
    manager.login_view = "login_form" if login_view else None

    class User(flask_login.UserMixin):
        def __init__(self, name):
            self.id = name
    manager.user_loader(lambda name: User(name) if name in SIGNIN_USERS else None)

    @app.route("/login", methods=["GET", "POST"])
    @set_openapi({"security": []})
    def login_form():
        if request.method == "POST":
            name = _signed_in(request.form.get("username"), request.form.get("password"))
            if name is not None:
                flask_login.login_user(User(name))
                target = request.args.get("next", "")
                return flask.redirect(target if re.match(r"/(?![/\\])", target) else "/me")
        return flask.Response(
            "<!DOCTYPE html><html lang='en'><title>Sign in</title><form method='post'>"
            "<label>Username <input name='username'></label><label>Password <input "
            "name='password' type='password'></label><button>Sign in</button></form></html>",
            mimetype="text/html")

    @app.route("/me")
    @flask_login.login_required
    def login_me():
        return {"user": flask_login.current_user.id}

    @app.route("/logout", methods=["POST"])
    def login_out():
        flask_login.logout_user()
        return None, 204
    return _finish(app, browsable)


def _api_key_app(browsable=True):
    """API keys on a FlaskAPI app: /header/ takes one in X-API-Key, /query/ as ?api_key=,
    /cookie/ in the cookie api_key; each documented as its apiKey scheme, each a 401 page
    without a challenge (there is no HTTP scheme for them) when it is missing."""
    app = FlaskAPI("api_key_app")
    app.config["OPENAPI_SECURITY_SCHEMES"] = {
        "headerKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
        "queryKey": {"type": "apiKey", "in": "query", "name": "api_key"},
        "cookieKey": {"type": "apiKey", "in": "cookie", "name": "api_key"}}
    readers = {"header": lambda: request.headers.get("X-API-Key"),
               "query": lambda: request.args.get("api_key"),
               "cookie": lambda: request.cookies.get("api_key")}
    for place, read in readers.items():
        def keyed(read=read, place=place):
            if read() != SIGNIN_API_KEY:
                raise NotAuthenticated("Send the API key in the {}.".format(place))
            return {"place": place}
        keyed.__name__ = place + "_keyed"
        app.add_url_rule("/{}/".format(place), view_func=set_openapi(
            {"security": [{place + "Key": []}]})(keyed))
    return _finish(app, browsable)


#: The apps the page's sign-in is tried against, by name: serve one with
#: ``signin_site.serve(SIGNIN_APPS[name]())``.
SIGNIN_APPS = {"flask-httpauth": _httpauth_app, "flask-jwt-extended": _jwt_app,
               "flask-httpauth-default": _httpauth_default_app,
               "challenge-scopes": functools.partial(  # a challenge that asks for more
                   _secured_app, security=({"oauth": ["read"]},),
                   challenge=['Bearer realm="things", scope="read admin"']),
               "apiflask": _apiflask_auth_app, "flask-smorest": _smorest_auth_app,
               "flask-login": _login_app,
               "flask-login-401": functools.partial(_login_app, login_view=False),
               "api-keys": _api_key_app}


@pytest.fixture(scope="module")
def signin_site():
    """A real threaded server (werkzeug's) on 127.0.0.1, for one of `SIGNIN_APPS` at a time:
    ``url = signin_site.serve(SIGNIN_APPS["apiflask"]())``."""
    site = _LiveSite()
    yield site
    site.close()


class _HTTPClient:
    """A client over real HTTP that keeps cookies, as a browser does, and follows no
    redirect: each call answers (status, headers, text)."""

    class _Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    def __init__(self, base=""):
        import http.cookiejar
        self.base, self.cookies = base, http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies), self._Stay)

    def __call__(self, url, form=None, headers=None, method=None, json_body=None):
        data, headers = None, dict(headers or {})
        if form is not None:
            data = urllib.parse.urlencode(form).encode("ascii")
        elif json_body is not None:
            data = json.dumps(json_body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(url if "://" in url else self.base + url, data=data,
                                     headers=headers, method=method)
        try:
            response = self.opener.open(req, timeout=30)
        except urllib.error.HTTPError as error:
            response = error
        with response:
            return response.status, response.headers, response.read().decode("utf-8")


def _page_of(client, url, headers=None):
    """(status, headers, the page's sign-in block) of a page a browser gets over HTTP."""
    status, got, text = client(url, headers=dict(headers or {}, Accept=BROWSER_ACCEPT))
    assert got.get_content_type() == "text/html"
    found = re.findall(r'<script type="application/json" id="api-auth">(.*?)</script>', text)
    return status, got, json.loads(found[0]) if found else None


def _basic(name, password):
    return "Basic " + base64.b64encode("{}:{}".format(name, password).encode()).decode()


# The OAuth 2.0 / OpenID Connect authorization server (`oauth_server`): Authlib's documented
# server API, its clients, codes and tokens kept in memory, its people and scopes these.
OAUTH_USERS = {"ann": "ann-pw", "bob": "bob-pw"}
OAUTH_SCOPES = {"openid": "Who you are", "things:read": "Read things",
                "things:write": "Change things"}
PAGE_CLIENT = "api-page"  # a public client: the page, with PKCE and no secret
SERVICE_CLIENT, SERVICE_SECRET = "service", "service-secret"  # client credentials


class _OAuthClient:
    """A registered client, as Authlib's ClientMixin asks its methods of it."""

    def __init__(self, client_id, secret, redirect_uris, grant_types, scope):
        self.client_id, self.client_secret = client_id, secret
        self.redirect_uris, self.grant_types, self.scope = redirect_uris, grant_types, scope
        self.token_endpoint_auth_method = "client_secret_basic" if secret else "none"

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return self.redirect_uris[0] if self.redirect_uris else None

    def get_allowed_scope(self, scope):
        return " ".join(s for s in (scope or "").split() if s in self.scope.split())

    def check_redirect_uri(self, redirect_uri):
        return redirect_uri in self.redirect_uris  # exactly, as RFC 9700 asks

    def check_client_secret(self, client_secret):
        return bool(self.client_secret) and hmac.compare_digest(client_secret, self.client_secret)

    def check_endpoint_auth_method(self, method, endpoint):
        return endpoint != "token" or method == self.token_endpoint_auth_method

    def check_response_type(self, response_type):
        return response_type == "code" and "authorization_code" in self.grant_types

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


class _OAuthToken:
    """An issued token, as Authlib's TokenMixin asks its methods of it."""

    def __init__(self, client, user, token):
        self.client, self.user = client, user
        self.access_token, self.refresh_token = token["access_token"], token.get("refresh_token")
        self.scope, self.expires_in = token.get("scope", ""), token["expires_in"]
        self.issued_at, self.revoked = time.time(), False
        self.grant = None  # what each token of one sign-in shares, however often refreshed

    def check_client(self, client):
        return client.get_client_id() == self.client.get_client_id()

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return self.expires_in

    def is_expired(self):
        return time.time() >= self.issued_at + self.expires_in

    def is_revoked(self):
        return self.revoked

    def get_user(self):
        return self.user

    def get_client(self):
        return self.client


class _OAuthCode:
    """An authorization code, kept until it is used (once) or expires."""

    def __init__(self, code, client_id, user, request):
        data = request.payload.data
        self.code, self.client_id, self.user = code, client_id, user
        self.redirect_uri, self.scope = request.payload.redirect_uri, request.payload.scope
        self.code_challenge = data.get("code_challenge")
        self.code_challenge_method = data.get("code_challenge_method")
        self.nonce, self.auth_time = data.get("nonce"), int(time.time())
        self.expires_at = time.time() + 60

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope

    def get_nonce(self):
        return self.nonce

    def get_auth_time(self):
        return self.auth_time

    def get_acr(self):
        return None

    def get_amr(self):
        return None


class _OAuthState:
    """What the authorization server keeps, in memory: its clients, codes and tokens, and
    its signing key; ``issuer`` is its URL, ``api_url`` the protected API's (the page's
    origin), ``expires_in`` the life of the tokens it issues from now on."""

    def __init__(self, issuer, api_url):
        from joserfc.jwk import RSAKey
        self.issuer, self.api_url = issuer, api_url
        self.key = RSAKey.generate_key(2048, parameters={"use": "sig"}, auto_kid=True)
        self.expires_in = 3600
        self.clients = {
            PAGE_CLIENT: _OAuthClient(PAGE_CLIENT, None, [], [
                "authorization_code", "refresh_token"], " ".join(OAUTH_SCOPES)),
            SERVICE_CLIENT: _OAuthClient(SERVICE_CLIENT, SERVICE_SECRET, [],
                                         ["client_credentials"], "things:read things:write")}
        self.codes = {}  # code: _OAuthCode
        self.tokens = {}  # access or refresh token: _OAuthToken
        self.reused = []  # the grants revoked because a refresh token came back: `revoke_grant`

    def redirect_to(self, url):
        """Let the page at ``url`` receive authorization responses (an exact match, as
        registered)."""
        self.clients[PAGE_CLIENT].redirect_uris.append(url)

    def save_token(self, token, request):
        saved = _OAuthToken(request.client, request.user, token)
        refreshed = getattr(request, "refresh_token", None)  # the token a refresh grant spent
        saved.grant = refreshed.grant if isinstance(refreshed, _OAuthToken) else (
            secrets.token_hex(8))
        self.tokens[saved.access_token] = saved
        if saved.refresh_token:
            self.tokens[saved.refresh_token] = saved

    def revoke_grant(self, grant):
        """A refresh token presented twice: every token of its sign-in revoked, the newest
        too, as RFC 9700 (4.14.2) has a server do (panva's oidc-provider does by default)."""
        self.reused.append(grant)
        for token in self.tokens.values():
            if token.grant == grant:
                token.revoked = True


def _oauth_server_app(state):
    """The authorization server: Authlib's AuthorizationServer with the authorization code
    grant (PKCE, S256 only), client credentials and refresh tokens (each used once; one used
    again revokes its whole grant, `_OAuthState.revoke_grant`), and
    OpenID Connect (ID tokens, discovery, JWKS); a login page and a consent page a browser
    fills in; CORS on its token endpoint for the page's origin."""
    from authlib.integrations.flask_oauth2 import AuthorizationServer
    from authlib.oauth2 import OAuth2Error
    from authlib.oauth2.rfc6749 import InvalidRequestError, grants
    from authlib.oauth2.rfc6750 import BearerTokenGenerator
    from authlib.oauth2.rfc7636 import CodeChallenge
    from authlib.oidc.core import UserInfo
    from authlib.oidc.core.grants import OpenIDCode

    app = Flask("oauth_server")
    app.config.update(SECRET_KEY=secrets.token_hex(16), SESSION_COOKIE_NAME="oauth_session")

    class S256CodeChallenge(CodeChallenge):
        """PKCE on every authorization request, by S256 only (no "plain")."""

        SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

        def validate_code_challenge(self, grant, redirect_uri):
            if grant.request.payload.data.get("code_challenge_method") != "S256":
                raise InvalidRequestError("PKCE, code_challenge_method=S256, is required")
            super().validate_code_challenge(grant, redirect_uri)

    class AuthorizationCodeGrant(grants.AuthorizationCodeGrant):
        TOKEN_ENDPOINT_AUTH_METHODS = ["none", "client_secret_basic"]

        def save_authorization_code(self, code, request):
            state.codes[code] = _OAuthCode(code, request.client.get_client_id(), request.user,
                                           request)

        def query_authorization_code(self, code, client):
            found = state.codes.get(code)
            if found and found.client_id == client.get_client_id() and (
                    time.time() < found.expires_at):
                return found
            return None

        def delete_authorization_code(self, authorization_code):
            state.codes.pop(authorization_code.code, None)  # a code is used once

        def authenticate_user(self, authorization_code):
            return authorization_code.user

    class RefreshTokenGrant(grants.RefreshTokenGrant):
        TOKEN_ENDPOINT_AUTH_METHODS = ["none", "client_secret_basic"]
        INCLUDE_NEW_REFRESH_TOKEN = True  # rotated: each refresh token is used once

        def authenticate_refresh_token(self, refresh_token):
            token = state.tokens.get(refresh_token)
            if token and token.refresh_token == refresh_token:
                if not token.revoked:
                    return token
                state.revoke_grant(token.grant)  # used before: stolen, or a client's bug
            return None

        def authenticate_user(self, refresh_token):
            return refresh_token.user

        def revoke_old_credential(self, refresh_token):
            refresh_token.revoked = True

    class OpenIDConnectCode(OpenIDCode):
        def exists_nonce(self, nonce, request):
            return any(code.nonce == nonce for code in state.codes.values())

        def resolve_client_private_key(self, client):
            return state.key

        def get_client_claims(self, client):
            return {"iss": state.issuer, "aud": [client.get_client_id()]}

        def generate_user_info(self, user, scope):
            return UserInfo(sub=user, name=user.title())

    server = AuthorizationServer(app, query_client=state.clients.get,
                                 save_token=state.save_token)
    server.register_token_generator("default", BearerTokenGenerator(
        lambda **kwargs: secrets.token_urlsafe(32), lambda **kwargs: secrets.token_urlsafe(32),
        lambda client, grant_type: state.expires_in))
    server.register_grant(AuthorizationCodeGrant, [S256CodeChallenge(required=True),
                                                   OpenIDConnectCode(require_nonce=False)])
    server.register_grant(grants.ClientCredentialsGrant)
    server.register_grant(RefreshTokenGrant)

    def form_page(title, body, status=200):
        return flask.Response(
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{0}</title>"
            "</head><body><main><h1>{0}</h1>{1}</main></body></html>".format(
                html.escape(title), body), status=status, mimetype="text/html")

    @app.route("/login", methods=["GET", "POST"])
    def login():
        """The login page: a username and password, then back to the authorization."""
        target = request.args.get("next", "")
        if not target.startswith("/authorize?"):
            target = "/"
        wrong = ""
        if request.method == "POST":
            name, password = request.form.get("username", ""), request.form.get("password", "")
            if name in OAUTH_USERS and hmac.compare_digest(password, OAUTH_USERS[name]):
                flask.session["user"] = name
                return flask.redirect(target)
            wrong = "<p role='alert'>Wrong username or password.</p>"
        return form_page("Sign in to the authorization server", wrong + (
            "<form method='post'><label>Username <input name='username' "
            "autocomplete='username'></label><label>Password <input name='password' "
            "type='password' autocomplete='current-password'></label>"
            "<button>Sign in</button></form>"), 401 if wrong else 200)

    @app.route("/authorize", methods=["GET", "POST"])
    def authorize():
        """The consent page for a signed-in user, and the answer to it."""
        user = flask.session.get("user")
        if user is None:
            return flask.redirect("/login?" + urllib.parse.urlencode({"next": request.full_path}))
        try:
            grant = server.get_consent_grant(end_user=user)
        except OAuth2Error as error:  # back to the client, if its redirect_uri is its own
            return server.handle_error_response(None, error)
        if request.method == "POST":
            allowed = request.form.get("consent") == "allow"
            return server.create_authorization_response(
                grant_user=user if allowed else None, grant=grant)
        scopes = "".join("<li>{}</li>".format(html.escape(OAUTH_SCOPES.get(scope, scope)))
                         for scope in (grant.request.payload.scope or "").split())
        return form_page("Allow {}?".format(grant.client.get_client_id()), (
            "<p>Signed in as {}. The page asks to:</p><ul>{}</ul><form method='post'>"
            "<button name='consent' value='allow'>Allow</button>"
            "<button name='consent' value='deny'>Deny</button></form>").format(
                html.escape(user), scopes))

    @app.route("/token", methods=["POST", "OPTIONS"])
    def token():
        """The token endpoint, which the page's origin may call (CORS)."""
        if request.method == "OPTIONS":
            return flask.Response(status=204)
        return server.create_token_response()

    @app.after_request
    def cors(response):
        """CORS: the token endpoint for the page's origin alone; discovery and keys for any."""
        if request.path == "/token" and request.headers.get("Origin") == state.api_url:
            response.headers.update({
                "Access-Control-Allow-Origin": state.api_url,
                "Access-Control-Allow-Methods": "POST",
                "Access-Control-Allow-Headers": "Authorization, Content-Type",
                "Access-Control-Max-Age": "600"})
        elif request.path in ("/.well-known/openid-configuration", "/jwks"):
            response.headers["Access-Control-Allow-Origin"] = "*"
        response.vary.add("Origin")
        return response

    @app.route("/.well-known/openid-configuration")
    def discovery():
        """OpenID Connect Discovery 1.0's provider metadata."""
        return jsonify({
            "issuer": state.issuer,
            "authorization_endpoint": state.issuer + "/authorize",
            "token_endpoint": state.issuer + "/token",
            "jwks_uri": state.issuer + "/jwks",
            "scopes_supported": list(OAUTH_SCOPES),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "client_credentials",
                                      "refresh_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
            "code_challenge_methods_supported": ["S256"]})

    @app.route("/jwks")
    def jwks():
        """The public key that signs the ID tokens."""
        return jsonify({"keys": [state.key.as_dict(private=False)]})
    return app


def _oauth_api_app(state):
    """The API the authorization server protects: FlaskAPI, its bearer tokens checked by
    Authlib's ResourceProtector against the server's own; its document names both ways to
    get one (OAuth 2.0's authorization code and client credentials, and OpenID Connect)."""
    from authlib.integrations.flask_oauth2 import ResourceProtector
    from authlib.oauth2 import OAuth2Error
    from authlib.oauth2.rfc6750 import BearerTokenValidator

    class OAuthError(APIException):
        """Authlib's error as the API's own, with RFC 6750's challenge: the scope needed,
        and the error but where no token was sent (3.1)."""

        def __init__(self, error, scope):
            self.status_code = error.status_code
            params = ['realm="things"', 'scope="{}"'.format(scope)]
            if error.error != "missing_authorization":
                params.append('error="{}"'.format(error.error))
            self.challenge = "Bearer " + ", ".join(params)
            super().__init__(error.get_error_description() or error.error)

        def get_headers(self):
            return {"WWW-Authenticate": self.challenge}

    class Validator(BearerTokenValidator):
        def authenticate_token(self, token_string):
            token = state.tokens.get(token_string)
            return token if token and token.access_token == token_string else None

    require = ResourceProtector()
    require.register_token_validator(Validator())

    def token_for(scope):
        """The request's token, if it grants ``scope``; else the API's 401 or 403."""
        try:
            return require.acquire_token([scope])
        except OAuth2Error as error:
            raise OAuthError(error, scope) from None
    issuer = state.issuer
    app = FlaskAPI("oauth_api")
    app.config.update(API_TITLE="Things", OPENAPI_SECURITY_SCHEMES={
        "oauth": {"type": "oauth2", "description": "Sign in at the things' server.", "flows": {
            "authorizationCode": {"authorizationUrl": issuer + "/authorize",
                                  "tokenUrl": issuer + "/token", "refreshUrl": issuer + "/token",
                                  "scopes": OAUTH_SCOPES},
            "clientCredentials": {"tokenUrl": issuer + "/token", "scopes": {
                scope: text for scope, text in OAUTH_SCOPES.items() if scope != "openid"}}}},
        "oidc": {"type": "openIdConnect",
                 "openIdConnectUrl": issuer + "/.well-known/openid-configuration"}},
        OPENAPI_SECURITY=[{"oauth": ["things:read"]}, {"oidc": ["things:read"]}])
    things = {1: "kettle", 2: "teapot"}

    @app.route("/")
    @set_openapi({"security": []})
    def oauth_root():
        """What the API has; open to all."""
        return {"things": flask.url_for("oauth_things", _external=True),
                "me": flask.url_for("oauth_me", _external=True)}

    @app.route("/things/", methods=["GET", "POST"])
    @set_openapi({"post": {"security": [{"oauth": ["things:write"]}, {"oidc": ["things:write"]}]}})
    def oauth_things():
        """The things: GET with things:read, POST with things:write."""
        token_for("things:write" if request.method == "POST" else "things:read")
        if request.method == "POST":
            things[max(things) + 1] = str(request.data.get("name", ""))
        return [{"key": key, "name": name} for key, name in sorted(things.items())]

    @app.route("/me")
    @set_openapi({"security": [{"oidc": ["openid"]}, {"oauth": ["openid"]}]})
    def oauth_me():
        """Who the token is for."""
        token = token_for("openid")
        return {"sub": token.user, "client": token.client.get_client_id(), "scope": token.scope}
    return app


def _authlib():
    try:  # not importorskip: pytest 9 only skips on ModuleNotFoundError
        import authlib  # noqa: F401
        import joserfc  # noqa: F401
    except ImportError as exc:
        pytest.skip("the OAuth server needs Authlib, which the test extra installs on Python "
                    "3.10+ ({})".format(exc))


@pytest.fixture(scope="module")
def oauth_server():
    """A real OAuth 2.0 / OpenID Connect authorization server (`_oauth_server_app`) on a
    werkzeug server of its own, and the API it protects (`_oauth_api_app`) on another: two
    origins. Gives the server's `_OAuthState`: ``issuer``, ``api_url``, ``redirect_to(url)``
    for each page that may receive its authorization responses, and ``expires_in``."""
    _authlib()
    server_site, api_site = _LiveSite(), _LiveSite()
    state = _OAuthState(server_site.url, api_site.url)
    server_site.serve(_oauth_server_app(state))
    api_site.serve(_oauth_api_app(state))
    yield state
    server_site.close()
    api_site.close()


def _pkce():
    """A PKCE code verifier and its S256 challenge (RFC 7636)."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _authorization_query(redirect_uri, challenge, **params):
    """An authorization request's query for the page's client, as the page would send it
    (a nonce of its own each time: the server refuses one it has seen)."""
    query = {"response_type": "code", "client_id": PAGE_CLIENT, "redirect_uri": redirect_uri,
             "scope": "openid things:read", "state": "st-1", "code_challenge": challenge,
             "code_challenge_method": "S256", "nonce": secrets.token_urlsafe(8)}
    query.update(params)
    return urllib.parse.urlencode({key: value for key, value in query.items()
                                   if value is not None})


def _signed_into(client, query, consent="allow"):
    """Sign in as ann through the server's login page, answer its consent page: the
    authorization response's redirect (status, Location)."""
    status, headers, _ = client("/authorize?" + query)
    assert status in REDIRECTS and headers["Location"].startswith("/login?next=")
    login = headers["Location"]
    status, _, text = client(login)
    assert status == 200 and "<label>Username <input name='username'" in text
    status, _, text = client(login, form={"username": "ann", "password": "wrong"})
    assert status == 401 and "Wrong username or password." in text
    status, headers, _ = client(login, form={"username": "ann", "password": "ann-pw"})
    assert status in REDIRECTS and headers["Location"] == "/authorize?" + query
    status, _, text = client(headers["Location"])
    assert status == 200 and "Allow {}?".format(PAGE_CLIENT) in text, text
    status, headers, _ = client("/authorize?" + query, form={"consent": consent})
    return status, headers.get("Location", "")


def _redirect_params(location):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))


# The page's sign-in panel in Chromium, against the real servers above: OAuth 2.0 and OpenID
# Connect through the authorization server's own login and consent pages, client credentials
# and rotating refresh tokens at its token endpoint, and the extensions' apps; the answer's
# attacks, with the page's CSP and without it; the keyboard, axe-core and no JavaScript. The
# class's tests of it come after those over HTTP: the script's pure parts, then the panel in use.
# (`_choose` and `_sign_in_with` are with `_add_header`, at the top: the streams' tests use them.)

def _jwt(claims):
    """An unsigned JWT of these claims: the page reads them for display only."""
    def part(data):
        return base64.urlsafe_b64encode(json.dumps(data).encode("utf-8")).rstrip(b"=").decode()
    return part({"alg": "none"}) + "." + part(claims) + ".c2ln"


@contextlib.contextmanager
def _signin_tab(chromium, site, csp="csp", **options):
    """A tab on ``site`` under the page's CSP or without it, and the URLs of the POSTs its
    context sends to any token endpoint (a list that grows), for a ``with`` block."""
    with _open_tab(chromium, site, bypass_csp=csp == "csp-bypassed", **options) as tab:
        posts = []
        tab.context.on("request", lambda sent: posts.append(sent.url) if (
            sent.method == "POST" and sent.url.split("?")[0].endswith("/token")) else None)
        yield tab, posts


def _at_the_server(tab, issuer, consent="Allow", user="ann"):
    """At the authorization server: its login page (unless signed in there already), then its
    consent page."""
    tab.wait_for_url(lambda url: url.startswith(issuer + "/"))
    if tab.url.startswith(issuer + "/login"):
        tab.get_by_label("Username").fill(user)
        tab.get_by_label("Password").fill(OAUTH_USERS[user])
        tab.get_by_role("button", name="Sign in").click()
    tab.get_by_role("button", name=consent).click()


def _oauth_sign_in(tab, oauth_server, way="oauth: OAuth 2.0, authorization code",
                   scopes=("openid: Who you are",), consent="Allow"):
    """Sign in from the page with an authorization code: the way, the page's client ID and
    these scopes (checked, besides those the page checks itself), then the server's pages."""
    _choose(tab, way)
    tab.get_by_label("Client ID").fill(PAGE_CLIENT)
    for scope in scopes:
        tab.get_by_label(scope).check()
    tab.get_by_role("button", name=re.compile("^Sign in at ")).click()
    _at_the_server(tab, oauth_server.issuer, consent)


ANN_SIGNED_IN = "Signed in with oauth as Ann (ann)."  # the status, after `_oauth_sign_in`


def _stored(tab, key="flask-api-signin"):
    return json.loads(tab.evaluate("(key) => sessionStorage.getItem(key)", key) or "null")


def _start_oauth_sign_in(tab, oauth_server):
    """Start a sign-in from the page and stop at the server's login (or consent) page: this
    tab waits for the answer, its state and PKCE verifier kept."""
    _choose(tab, "oauth: OAuth 2.0, authorization code")
    tab.get_by_label("Client ID").fill(PAGE_CLIENT)
    tab.get_by_role("button", name=re.compile("^Sign in at ")).click()
    tab.wait_for_url(lambda url: url.startswith(oauth_server.issuer + "/"))


FORGED = {  # whether this tab waits for an answer, and why the forged one is refused
    "a sign-in waiting": "Refused an authorization answer whose state is not the one this tab "
                         "sent: it may be forged. Nothing was sent; sign in again.",
    "none waiting": "Refused an authorization answer: this tab has no sign-in waiting for one "
                    "(its code was used already, or it was cancelled, signed out of or started "
                    "elsewhere). Nothing was sent; sign in again."}


def _openid_provider(state, token_origin, offline=False):
    """An OpenID Connect provider of the fewest parts: its discovery document names its own
    authorization endpoint and a token endpoint on ``token_origin``; the authorization
    endpoint answers at once (no login) with a code, and the token endpoint, where it is the
    provider's own, with tokens (a refresh token too). ``state["url"]`` is its origin.
    ``offline``: it lists the scope offline_access, and gives a refresh token only for it (as
    panva's oidc-provider does); ``state["asked"]`` is each authorization request's query."""
    def wsgi(environ, start_response):
        path, query = environ["PATH_INFO"], dict(urllib.parse.parse_qsl(environ["QUERY_STRING"]))
        cors = [("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Headers", "*")]
        if path == "/.well-known/openid-configuration":
            body = json.dumps(dict({"issuer": state["url"], "authorization_endpoint": state[
                "url"] + "/authorize", "token_endpoint": token_origin() + "/token"}, **(
                {"scopes_supported": ["openid", "offline_access"]} if offline else {})))
        elif path == "/authorize":
            state.setdefault("asked", []).append(query)
            start_response("302 Found", [("Location", query["redirect_uri"] + "?" +
                                          urllib.parse.urlencode({"code": "provider-code",
                                                                  "state": query["state"]}))])
            return [b""]
        elif path == "/token" and environ["REQUEST_METHOD"] == "POST":
            tokens = {"access_token": "provider-token", "token_type": "Bearer",
                      "expires_in": 3600, "refresh_token": "provider-refresh"}
            if offline and "offline_access" not in state["asked"][-1].get("scope", "").split():
                del tokens["refresh_token"]
            body = json.dumps(tokens)
        else:
            start_response("204 No Content", cors)
            return [b""]
        start_response("200 OK", [("Content-Type", "application/json")] + cors)
        return [body.encode("utf-8")]
    return wsgi


def _provider_api(provider_url):
    """A FlaskAPI app whose document names only an OpenID Connect scheme at ``provider_url``;
    /things/ wants its bearer token."""
    app = FlaskAPI("provider_api")
    app.config.update(OPENAPI_SECURITY_SCHEMES={"oidc": {
        "type": "openIdConnect",
        "openIdConnectUrl": provider_url + "/.well-known/openid-configuration"}},
        OPENAPI_SECURITY=[{"oidc": []}])

    @app.route("/things/")
    def provider_things():
        if request.headers.get("Authorization") != "Bearer provider-token":
            raise NotAuthenticated()
        return ["kettle"]
    return app


# Headless Chromium has no prompt for a person to cancel: it fails a navigation to an HTTP Basic
# challenge unless it has credentials to try. Wrong ones end on the 401 page, as a person who
# cancels the browser's prompt sees it.
PROMPT_CANCELLED = {"http_credentials": {"username": "nobody", "password": "cancelled"}}


# (the server, the page, what to do there): each state of the sign-in panel a user meets
_SIGNIN_STATES = {
    "a 401 asking for OAuth": ("oauth", "/things/", None),
    "client credentials": ("oauth", "/things/", lambda tab, _: _choose(
        tab, "oauth: OAuth 2.0, client credentials")),
    "OpenID Connect": ("oauth", "/things/", lambda tab, _: _choose(tab, "oidc: OpenID Connect")),
    "an answer refused": ("oauth", "/things/?code=forged&state=forged", lambda tab, _: _expect(
        tab.locator("#api-signin-status")).to_contain_text("Refused")),
    "signed in, with a refresh token": ("oauth", "/things/", lambda tab, server: (
        server.redirect_to(server.api_url + "/things/"), _oauth_sign_in(tab, server), _expect(
            tab.locator("#api-signin-list button")).to_have_count(2))),
    "HTTP Basic asked": ("flask-httpauth", "/basic/", None),
    "a bearer token signed in": ("flask-httpauth", "/token/", lambda tab, _: _sign_in_with(
        tab, "token: a bearer token", {"Token": SIGNIN_TOKEN})),
    "an API key in a cookie": ("api-keys", "/cookie/", lambda tab, _: _choose(
        tab, "cookieKey: an API key in the cookie api_key")),
    "a refresh refused": ("oauth", "/things/", lambda tab, server: _refused_refresh(tab, server)),
    "a sign-in expired": ("flask-jwt-extended", "/me", lambda tab, _: (
        _sign_in_with(tab, "jwt: a bearer token (JWT)", {"Token": _jwt({
            "sub": "ann", "exp": int(time.time()) + 4})}),  # good for a few seconds
        _expect(tab.locator("#api-signin summary")).to_have_text("Sign-in expired: ann",
                                                                 timeout=10000))),
    "scopes a challenge adds": ("challenge-scopes", "/things/", lambda tab, _: _choose(
        tab, "oauth: OAuth 2.0, authorization code")),
    "Flask-HTTPAuth's plain-text 401": ("flask-httpauth-default", "/basic/", None),
}


def _refused_refresh(tab, server):
    """Sign in with OAuth, have the server revoke the sign-in, and press Refresh now."""
    server.redirect_to(server.api_url + "/things/")
    _oauth_sign_in(tab, server)
    _expect(tab.locator("#api-signin-status")).to_have_text(ANN_SIGNED_IN)
    server.tokens[_stored(tab)[0]["refresh"]["token"]].revoked = True
    tab.get_by_role("button", name="Refresh now").click()
    _expect(tab.locator("#api-signin-status")).to_contain_text("Signed out of oauth: ")


@contextlib.contextmanager
def _signin_state_tab(chromium, oauth_server, signin_site, name, theme="light"):
    """A tab on the page of one of `_SIGNIN_STATES`, in that state, in a colour theme, for a
    ``with`` block."""
    app, path, action = _SIGNIN_STATES[name]
    site = oauth_server.api_url if app == "oauth" else signin_site.serve(SIGNIN_APPS[app]())
    with _open_tab(chromium, site, **PROMPT_CANCELLED) as tab:
        tab.emulate_media(color_scheme=theme)
        tab.goto(path)
        if action:
            action(tab, oauth_server)
        yield tab


class TestSigningIn:
    """What the API asks for, for the page: its block, challenges and CSP origins; the page's
    sign-in panel in Chromium."""

    def test_sign_in_schemes_and_requirements_from_config_and_views_are_in_the_valid_document(self):
        app = _secured_app()
        document = _served_document(app)
        assert document["components"]["securitySchemes"] == SCHEMES
        assert document["security"] == [{"basic": []}, {"bearer": []}]
        assert "security" not in _operation(document, "/things/", "get")  # the document's holds
        assert _operation(document, "/things/", "post")["security"] == [{"oauth": ["write"]}, {}]
        assert _operation(document, "/things/", "delete")["security"] == []
        assert _operation(document, "/open", "get")["security"] == []
        app.config["OPENAPI_SECURITY_SCHEMES"]["basic"]["description"] = "Changed later."
        assert _served_document(app)["components"]["securitySchemes"]["basic"][
            "description"] == "Your name and password."  # the document's own copy

    def test_sign_in_block_offers_the_documents_schemes_and_what_each_method_needs(self):
        client = _secured_app().test_client()
        page = _browse(client, "/things/")
        assert page.status_code == 200
        assert _auth_block(page) == {
            "schemes": SCHEMES,
            "operations": {"GET": [{"basic": []}, {"bearer": []}],  # the document's default
                           "HEAD": [{"basic": []}, {"bearer": []}],  # answered as a GET
                           "POST": [{"oauth": ["write"]}, {}],  # optional: {} among them
                           "DELETE": []},  # none needed; OPTIONS: not documented, not there
            "challenges": [],
            "origins": ["https://login.example", "https://refresh.example:8443",
                        "https://id.example"]}
        assert _auth_block(_browse(client, "/open"))["operations"] == {"GET": [], "HEAD": []}
        index = _auth_block(_browse(client, "/"))  # the index of routes: no operation of its own
        assert index["schemes"] == SCHEMES and index["operations"] == {}
        assert client.get("/things/", headers=JSON).data == b"[]"  # JSON clients: their answer

    def test_sign_in_scheme_reaches_the_page_ref_resolved_with_only_what_the_page_reads(self):
        schemes = {
            "token": {"$ref": "#/components/securitySchemes/shared"},
            "shared": {"type": "http", "scheme": "bearer", "x-vendor": {"secret": "s"},
                       "bearerFormat": 7, "in": ["header"]},  # of no type OpenAPI gives them
            "oauth": {"type": "oauth2", "flows": {
                "implicit": {"authorizationUrl": "https://login.example/authorize",
                             "scopes": {"read": "Read", "bad": 3}, "x-other": "no"},
                "password": {"tokenUrl": "token", "scopes": {}},  # relative: from the app's root
                "deviceAuthorization": {"deviceAuthorizationUrl": "https://d.example/", "tokenUrl":
                                        "https://d.example/token", "scopes": {}}}},  # 3.2: no
            "gone": {"$ref": "#/components/securitySchemes/nowhere"},  # left out, not a 500
            "loop": {"$ref": "#/components/securitySchemes/loop"},
            "remote": {"$ref": "https://schemes.example/all.json#/x"},
            "list": ["type", "http"]}
        app = _secured_app(schemes=schemes, security=[{"token": []}])
        client = app.test_client()
        offered = _auth_block(_browse(client, "/things/"))["schemes"]
        assert offered == {
            "token": {"type": "http", "scheme": "bearer"},
            "shared": {"type": "http", "scheme": "bearer"},
            "oauth": {"type": "oauth2", "flows": {
                "implicit": {"authorizationUrl": "https://login.example/authorize",
                             "scopes": {"read": "Read"}},
                "password": {"tokenUrl": "/token", "scopes": {}}}}}
        mounted = _auth_block(_browse(client, "/things/", base_url="http://localhost/api/"))
        assert mounted["schemes"]["oauth"]["flows"]["password"]["tokenUrl"] == "/api/token"
        assert mounted["origins"] == []  # the page's own origin: 'self' already

    def test_sign_in_block_is_absent_with_nothing_to_offer_and_present_with_a_challenge(self):
        app = _flaskapi_things()
        page = _browse(app.test_client(), "/things/")
        assert _auth_block(page) is None
        _assert_inert(page)
        assert _connect_src(app.test_client().get("/things/", headers={"Accept": BROWSER_ACCEPT})
                            )[0] == ["'self'"]
        challenged = _secured_app(schemes={}, security=[], challenge=['Basic realm="Things"'])
        block = _auth_block(_browse(challenged.test_client(), "/things/"))
        assert block == {"schemes": {}, "operations": {"GET": [], "HEAD": [], "DELETE": [],
                                                       "POST": [{"oauth": ["write"]}, {}]},
                         "challenges": [{"scheme": "Basic", "token68": None,
                                         "params": {"realm": "Things"}}], "origins": []}

    @pytest.mark.parametrize("headers,challenges", CHALLENGES)
    def test_sign_in_challenges_are_the_responses_www_authenticate_read_as_rfc_9110_says(
            self, headers, challenges):
        app = _secured_app(challenge=headers)
        for make_page in (lambda: _browse(app.test_client(), "/things/"),  # rendered with it
                          lambda: _Page(_late_challenge_app(headers).test_client().get(
                              "/", headers={"Accept": BROWSER_ACCEPT}))):  # added after
            page = make_page()
            assert page.status_code == 401
            block = _auth_block(page)
            found = block["challenges"] if block else []
            assert [(one["scheme"], one["token68"], one["params"]) for one in found] == challenges
            _assert_inert(page)

    @pytest.mark.parametrize("flask_class", [FlaskAPI, Flask], ids=["FlaskAPI", "BrowsableAPI"])
    def test_sign_in_challenge_added_after_the_page_is_rendered_is_written_into_its_block(
            self, flask_class):
        httpauth = _optional("flask_httpauth")
        for schemes in (None, {"basic": SCHEMES["basic"]}):  # a block added, or one rewritten
            app = _late_challenge_app([], flask_class, schemes)
            auth = httpauth.HTTPBasicAuth(realm="Late")
            auth.verify_password(lambda name, password: False)
            auth.error_handler(lambda status: (jsonify(detail="Sign in first."), status))
            app.view_functions["late"] = auth.login_required(app.view_functions["late"])
            client = app.test_client()
            response = client.get("/", headers={"Accept": BROWSER_ACCEPT})
            block = _auth_block(response)
            assert block["challenges"] == [{"scheme": "Basic", "token68": None,
                                            "params": {"realm": "Late"}}]
            assert block["schemes"] == (schemes or {})
            assert block["operations"] == {"GET": [], "HEAD": []}
            assert response.headers["Content-Length"] == str(len(response.data))
            head = client.head("/", headers={"Accept": BROWSER_ACCEPT})
            assert head.headers["Content-Length"] == response.headers["Content-Length"]
            assert response.get_data(as_text=True).count('id="api-auth"') == 1

    @pytest.mark.parametrize("name", sorted(HOSTILE_CHALLENGES))
    def test_sign_in_hostile_www_authenticate_costs_little_and_shows_a_bounded_number(self, name):
        client = _secured_app(schemes={}, security=[],
                              challenge=[HOSTILE_CHALLENGES[name]]).test_client()
        started = time.perf_counter()
        response = client.get("/things/", headers={"Accept": BROWSER_ACCEPT})
        elapsed = time.perf_counter() - started
        assert response.status_code == 401 and elapsed < 2  # quadratic parsing: minutes
        block = _auth_block(response)
        challenges = block["challenges"] if block else []
        assert len(challenges) <= flask_api._MOST_CHALLENGES
        assert all(len(one["params"]) <= flask_api._MOST_PARAMS for one in challenges)
        assert len(json.dumps(block)) < 2 * flask_api._CHALLENGE_TEXT  # the header: 100 KB
        if name == "10,000 challenges":  # the first 16, whole: none cut where the text was cut
            assert challenges == [{"scheme": "Basic", "token68": None,
                                   "params": {"realm": "x"}}] * flask_api._MOST_CHALLENGES

    def test_sign_in_csp_lets_the_page_reach_exactly_the_documents_token_and_oidc_origins(self):
        client = _secured_app().test_client()
        response = client.get("/things/", headers={"Accept": BROWSER_ACCEPT})
        sources, directives = _connect_src(response)
        assert sources == ["'self'"] + _auth_block(response)["origins"] == [
            "'self'", "https://login.example", "https://refresh.example:8443", "https://id.example"]
        assert directives == PAGE_DIRECTIVES  # authorizationUrl's origin is navigated to, not
        assert "'unsafe-inline'" not in response.headers["Content-Security-Policy"]  # fetched
        assert "Content-Security-Policy" not in client.get("/things/", headers=JSON).headers
        other = _secured_app(schemes={"oidc": {
            "type": "openIdConnect", "openIdConnectUrl": "http://127.0.0.1:9/.well-known/x"}})
        theirs = other.test_client().get("/things/", headers={"Accept": BROWSER_ACCEPT})
        assert _connect_src(theirs)[0] == ["'self'", "http://127.0.0.1:9"]  # per app, one template
        assert _connect_src(client.get("/open", headers={"Accept": BROWSER_ACCEPT}))[0] == sources
        assert [value for value in theirs.headers["Content-Security-Policy"].split("; ")
                if not value.startswith("connect-src")] == [
            value for value in response.headers["Content-Security-Policy"].split("; ")
            if not value.startswith("connect-src")]  # the template's hashes, as they were

    @pytest.mark.parametrize("url", HOSTILE_URLS)
    def test_sign_in_hostile_url_in_the_document_reaches_neither_the_csp_nor_the_block(self, url):
        schemes = {"oauth": {"type": "oauth2", "flows": {"authorizationCode": {
            "authorizationUrl": url, "tokenUrl": url, "refreshUrl": url, "scopes": {}},
            "clientCredentials": {"tokenUrl": "https://ok.example/token", "scopes": {}}}},
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": url}}
        client = _secured_app(schemes=schemes).test_client()
        response = client.get("/things/", headers={"Accept": BROWSER_ACCEPT})
        assert response.status_code == 200
        sources, directives = _connect_src(response)
        assert sources == ["'self'", "https://ok.example"] and directives == PAGE_DIRECTIVES
        block = _auth_block(response)
        assert block["schemes"]["oauth"]["flows"]["authorizationCode"] == {"scopes": {}}
        assert block["schemes"]["oidc"] == {"type": "openIdConnect"}
        assert block["origins"] == ["https://ok.example"]

    def test_sign_in_origin_list_stays_short_however_many_origins_the_document_names(self):
        schemes = {"s{}".format(n): {
            "type": "openIdConnect",
            "openIdConnectUrl": "https://id{}.example/.well-known/openid-configuration".format(n)}
            for n in range(1000)}
        client = _secured_app(schemes=schemes, security=[]).test_client()
        response = client.get("/things/", headers={"Accept": BROWSER_ACCEPT})
        sources = _connect_src(response)[0]
        assert sources == ["'self'"] + ["https://id{}.example".format(n)
                                        for n in range(flask_api._MOST_ORIGINS)]
        assert _auth_block(response)["origins"] == sources[1:]
        assert len(response.headers["Content-Security-Policy"]) < 600
        assert len(_auth_block(response)["schemes"]) == flask_api._MOST_SCHEMES

    def test_sign_in_requirements_the_page_cannot_read_are_left_out_and_the_page_answers(self):
        app = _secured_app(security=[{"basic": "read"}, {"bearer": []}, "key", {"key": [1]}])
        app.view_functions["secured_open"].openapi = {"security": {"basic": []}}  # not a list
        client = app.test_client()
        assert _auth_block(_browse(client, "/things/"))["operations"]["GET"] == [{"bearer": []}]
        page = _browse(client, "/open")
        assert page.status_code == 200 and _auth_block(page)["operations"] == {"GET": [],
                                                                               "HEAD": []}

    @pytest.mark.parametrize("library", ["apiflask", "flask-smorest"])
    def test_sign_in_librarys_documented_auth_reaches_document_and_page_its_own_unchanged(self,
                                                                                          library):
        _skip_where_the_library_breaks_errors("flask-smorest")
        make = {"apiflask": _apiflask_auth_app, "flask-smorest": _smorest_auth_app}[library]
        own_url = "/openapi.json" if library == "apiflask" else "/spec.json"
        bare = make(browsable=False).test_client().get(own_url)
        app = make()
        assert app.test_client().get(own_url).data == bare.data  # byte for byte
        own = bare.get_json()
        document = _served_document(app)
        assert document["components"]["securitySchemes"] == own["components"]["securitySchemes"]
        if library == "apiflask":
            assert _operation(document, "/me", "get")["security"] == [{"BasicAuth": []}]
            assert _operation(document, "/pets", "get")["security"] == [{"BearerAuth": []}]
            assert "security" not in _operation(document, "/open", "get")
            path, challenge = "/pets", 'Bearer realm="Authentication Required"'
        else:  # its document's security, on each of its operations that states none
            assert own["security"] == [{"apiKey": []}] and "security" not in document
            assert _operation(document, "/things/", "get")["security"] == [{"bearerAuth": []}]
            assert _operation(document, "/things/", "post")["security"] == [{"apiKey": []}]
            assert _operation(document, "/things/open", "get")["security"] == []
            path, challenge = "/things/", 'Bearer realm="things"'
        response = app.test_client().get(path, headers={"Accept": BROWSER_ACCEPT})
        assert response.status_code == 401 and response.headers["WWW-Authenticate"] == challenge
        block = _auth_block(response)
        assert block["schemes"] == own["components"]["securitySchemes"]
        assert block["operations"]["GET"] == _operation(document, path, "get")["security"]
        assert [one["scheme"] for one in block["challenges"]] == ["Bearer"]

    def test_sign_in_the_apps_own_scheme_replaces_a_librarys_of_the_same_name(self):
        _skip_where_the_library_breaks_errors("flask-smorest")
        app = _smorest_auth_app()
        app.config["OPENAPI_SECURITY_SCHEMES"] = {"apiKey": {"type": "apiKey", "in": "query",
                                                             "name": "key"}}
        assert _served_document(app)["components"]["securitySchemes"] == {
            "apiKey": {"type": "apiKey", "in": "query", "name": "key"},
            "bearerAuth": {"type": "http", "scheme": "bearer"}}

    def test_sign_in_flask_httpauth_basic_and_token_challenge_and_let_credentials_in(
            self, signin_site):
        client = _HTTPClient(signin_site.serve(SIGNIN_APPS["flask-httpauth"]()))
        for path, scheme, good, bad in [
                ("/basic/", "Basic", _basic("ann", "ann-pw"), _basic("ann", "nope")),
                ("/token/", "Bearer", "Bearer " + SIGNIN_TOKEN, "Bearer nope")]:
            status, headers, block = _page_of(client, path)
            assert status == 401 and headers["WWW-Authenticate"] == scheme + ' realm="Things"'
            assert block["challenges"] == [{"scheme": scheme, "token68": None,
                                            "params": {"realm": "Things"}}]
            assert block["operations"]["GET"] == [{path.strip("/"): []}]
            assert set(block["schemes"]) == {"basic", "token"}
            assert _page_of(client, path, {"Authorization": bad})[0] == 401
            status, _, text = client(path, headers={"Authorization": good, "Accept": JSON_TYPE})
            assert (status, json.loads(text)) == (200, {"user": "ann"})

    @pytest.mark.parametrize("flask_class", [Flask, FlaskAPI])
    def test_sign_in_any_401_with_a_challenge_is_the_page_its_body_shown_as_it_came(
            self, flask_class):
        client = _httpauth_default_app(flask_class).test_client()
        response = client.get("/basic/", headers={"Accept": BROWSER_ACCEPT})
        page = _Page(response)  # in place of Flask-HTTPAuth's own error handler's text
        assert response.status_code == 401 and response.headers["X-Flask-API-Page"] == "1"
        assert response.headers["WWW-Authenticate"] == 'Basic realm="Things"'
        assert _auth_block(page)["challenges"] == [{"scheme": "Basic", "token68": None,
                                                   "params": {"realm": "Things"}}]
        assert page.find("span", class_="body")[0].text == "Unauthorized Access"
        assert "Content-Type: text/html; charset=utf-8" in page.response_text
        api = client.get("/basic/", headers={"Accept": JSON_TYPE})  # an API client's: the app's
        assert (api.status_code, api.get_data(), api.headers.get("X-Flask-API-Page")) == (
            401, b"Unauthorized Access", None)
        signed_in = _browse(client, "/basic/", headers={"Authorization": _basic("ann", "ann-pw")})
        assert (signed_in.status_code, signed_in.body_json) == (200, {"user": "ann"})

    @pytest.mark.parametrize("flask_class", [Flask, FlaskAPI])
    def test_sign_in_a_401_in_html_with_a_challenge_shows_its_html_as_text(self, flask_class):
        app = flask_class("html_401")
        app.testing = True

        @app.route("/")
        def html_401():
            return flask.Response("<h1>Who are you?</h1><script>alert(1)</script>", 401, {
                "WWW-Authenticate": 'Bearer realm="html"'}, mimetype="text/html")

        @app.route("/plain")
        def plain_401():  # no challenge: no sign-in to offer, the app's answer stands
            return flask.Response("Go away", 401, mimetype="text/plain")
        client = _finish(app, flask_class is Flask).test_client()
        page = _browse(client, "/")
        assert page.find("span", class_="body")[0].text == (
            "<h1>Who are you?</h1><script>alert(1)</script>")
        _assert_inert(page)
        assert _auth_block(page)["challenges"][0]["scheme"] == "Bearer"
        plain = client.get("/plain", headers={"Accept": BROWSER_ACCEPT})
        assert (plain.get_data(), plain.mimetype) == (b"Go away", "text/plain")

    def test_sign_in_flask_jwt_extended_bearer_token_works_until_it_expires(self, signin_site):
        jwt_extended = _optional("flask_jwt_extended")
        app = SIGNIN_APPS["flask-jwt-extended"]()
        client = _HTTPClient(signin_site.serve(app))
        status, headers, block = _page_of(client, "/me")
        assert status == 401 and "WWW-Authenticate" not in headers  # the extension sends none
        assert block == {"schemes": {"jwt": {"type": "http", "scheme": "bearer",
                                             "bearerFormat": "JWT"}},
                         "operations": {"GET": [{"jwt": []}], "HEAD": [{"jwt": []}]},
                         "challenges": [], "origins": []}
        assert client("/login", json_body={"username": "ann", "password": "nope"})[0] == 401
        status, _, text = client("/login", json_body={"username": "ann", "password": "ann-pw"})
        token = json.loads(text)["access_token"]
        claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
        assert claims["sub"] == "ann" and 0 < claims["exp"] - time.time() <= 15 * 60
        answer = client("/me", headers={"Authorization": "Bearer " + token, "Accept": JSON_TYPE})
        assert (answer[0], json.loads(answer[2])) == (200, {"user": "ann"})
        with app.app_context():  # one that expired a second ago, signed by the same key
            expired = jwt_extended.create_access_token("ann", expires_delta=datetime.timedelta(
                seconds=-1))
        status, _, text = client("/me", headers={"Authorization": "Bearer " + expired,
                                                 "Accept": JSON_TYPE})
        assert (status, json.loads(text)) == (401, {"msg": "Token has expired"})

    def test_sign_in_apiflask_documented_auth_reaches_the_page_over_http(self, signin_site):
        client = _HTTPClient(signin_site.serve(SIGNIN_APPS["apiflask"]()))
        status, headers, block = _page_of(client, "/pets")
        assert status == 401 and block["operations"]["GET"] == [{"BearerAuth": []}]
        assert block["schemes"] == {"BasicAuth": {"type": "http", "scheme": "basic"},
                                    "BearerAuth": {"type": "http", "scheme": "bearer"}}
        assert block["challenges"] == [{"scheme": "Bearer", "token68": None,
                                        "params": {"realm": "Authentication Required"}}]
        assert _page_of(client, "/me")[2]["challenges"][0]["scheme"] == "Basic"
        assert _page_of(client, "/open")[2]["operations"]["GET"] == []
        assert client("/pets", headers={"Authorization": "Bearer " + SIGNIN_TOKEN})[0] == 200
        assert client("/me", headers={"Authorization": _basic("ann", "ann-pw")})[0] == 200

    def test_sign_in_flask_smorest_documented_schemes_reach_the_page_over_http(self, signin_site):
        _skip_where_the_library_breaks_errors("flask-smorest")
        client = _HTTPClient(signin_site.serve(SIGNIN_APPS["flask-smorest"]()))
        status, headers, block = _page_of(client, "/things/")
        assert status == 401 and block["operations"] == {
            "GET": [{"bearerAuth": []}], "HEAD": [{"bearerAuth": []}], "POST": [{"apiKey": []}]}
        assert block["schemes"]["apiKey"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
        answer = client("/things/", form={}, headers={"Accept": BROWSER_ACCEPT})
        assert answer[0] == 401 and answer[1]["WWW-Authenticate"].startswith("ApiKey ")
        assert client("/things/", headers={"Authorization": "Bearer " + SIGNIN_TOKEN})[0] == 200
        assert client("/things/", form={}, headers={"X-API-Key": SIGNIN_API_KEY})[0] == 200

    def test_sign_in_flask_login_answers_a_401_page_or_its_login_views_redirect(
            self, signin_site):
        client = _HTTPClient(signin_site.serve(SIGNIN_APPS["flask-login-401"]()))
        status, headers, block = _page_of(client, "/me")
        assert status == 401 and "WWW-Authenticate" not in headers
        assert block["schemes"]["session"]["in"] == "cookie" and block["challenges"] == []
        client = _HTTPClient(signin_site.serve(SIGNIN_APPS["flask-login"]()))
        status, headers, _ = client("/me", headers={"Accept": BROWSER_ACCEPT})
        assert status in REDIRECTS and headers["Location"].endswith("/login?next=%2Fme")
        assert client("/login")[0] == 200
        status, headers, _ = client("/login?next=%2Fme", form={"username": "ann",
                                                              "password": "ann-pw"})
        assert status in REDIRECTS and headers["Location"].endswith("/me")
        status, _, text = client("/me", headers={"Accept": JSON_TYPE})  # its session cookie
        assert (status, json.loads(text)) == (200, {"user": "ann"})
        assert client("/logout", form={}, headers={"Accept": JSON_TYPE})[0] == 204
        assert client("/me", headers={"Accept": JSON_TYPE})[0] in REDIRECTS

    def test_sign_in_api_keys_in_a_header_a_query_parameter_and_a_cookie_let_requests_in(
            self, signin_site):
        base = signin_site.serve(SIGNIN_APPS["api-keys"]())
        client = _HTTPClient(base)
        sent = {"header": ("/header/", {"X-API-Key": SIGNIN_API_KEY}),
                "query": ("/query/?api_key=" + SIGNIN_API_KEY, {}),
                "cookie": ("/cookie/", {"Cookie": "api_key=" + SIGNIN_API_KEY})}
        for place, (url, headers) in sent.items():
            status, _, block = _page_of(client, "/{}/".format(place))
            assert status == 401 and block["challenges"] == []
            assert block["operations"]["GET"] == [{place + "Key": []}]
            status, _, text = client(url, headers=dict(headers, Accept=JSON_TYPE))
            assert (status, json.loads(text)) == (200, {"place": place})
        assert set(_page_of(client, "/header/")[2]["schemes"]) == {"headerKey", "queryKey",
                                                                   "cookieKey"}

    def test_sign_in_oauth_server_publishes_its_openid_configuration_and_key_to_all(
            self, oauth_server):
        from authlib.oidc.discovery import OpenIDProviderMetadata
        from joserfc.jwk import KeySet
        client = _HTTPClient(oauth_server.issuer)
        status, headers, text = client("/.well-known/openid-configuration",
                                       headers={"Origin": "http://any.example"})
        metadata = json.loads(text)
        assert status == 200 and headers["Access-Control-Allow-Origin"] == "*"
        OpenIDProviderMetadata(metadata).validate()  # as OpenID Connect Discovery 1.0 says
        assert metadata["issuer"] == oauth_server.issuer
        assert metadata["token_endpoint"] == oauth_server.issuer + "/token"
        assert metadata["code_challenge_methods_supported"] == ["S256"]
        status, headers, text = client(metadata["jwks_uri"], headers={"Origin": "http://a.example"})
        keys = json.loads(text)["keys"]
        assert status == 200 and headers["Access-Control-Allow-Origin"] == "*"
        assert [key["kty"] for key in keys] == ["RSA"] and "d" not in keys[0]  # public only
        KeySet.import_key_set({"keys": keys})

    def test_sign_in_oauth_authorization_code_with_pkce_through_login_and_consent_pages(
            self, oauth_server):
        from joserfc import jwt
        from joserfc.jwk import KeySet
        page = oauth_server.api_url + "/things/"
        oauth_server.redirect_to(page)
        client = _HTTPClient(oauth_server.issuer)
        verifier, challenge = _pkce()
        query = _authorization_query(page, challenge)
        status, location = _signed_into(client, query)
        answer = _redirect_params(location)
        assert status in REDIRECTS and location.startswith(page + "?") and answer["state"] == "st-1"
        exchange = {"grant_type": "authorization_code", "code": answer["code"],
                    "redirect_uri": page, "client_id": PAGE_CLIENT, "code_verifier": verifier}
        status, headers, text = client("/token", form=exchange,
                                       headers={"Origin": oauth_server.api_url})
        tokens = json.loads(text)
        assert status == 200 and headers["Access-Control-Allow-Origin"] == oauth_server.api_url
        assert headers["Cache-Control"] == "no-store"
        assert set(tokens) == {"access_token", "refresh_token", "id_token", "token_type",
                               "expires_in", "scope"} and tokens["token_type"] == "Bearer"
        keys = KeySet.import_key_set(json.loads(client("/jwks")[2]))
        claims = jwt.decode(tokens["id_token"], keys).claims
        assert (claims["iss"], claims["aud"], claims["sub"], claims["nonce"]) == (
            oauth_server.issuer, [PAGE_CLIENT], "ann", dict(urllib.parse.parse_qsl(query))["nonce"])
        api = _HTTPClient(oauth_server.api_url)
        bearer = {"Authorization": "Bearer " + tokens["access_token"], "Accept": JSON_TYPE}
        assert api("/things/", headers=bearer)[0] == 200
        assert json.loads(api("/me", headers=bearer)[2])["sub"] == "ann"
        status, _, text = client("/token", form=exchange)  # the code is used once
        assert (status, json.loads(text)["error"]) == (400, "invalid_grant")

    @pytest.mark.parametrize("case", ["no PKCE", "plain PKCE", "another redirect_uri",
                                      "a wrong verifier", "no verifier", "denied"])
    def test_sign_in_oauth_server_refuses_what_pkce_and_the_registration_forbid(
            self, oauth_server, case):
        page = oauth_server.api_url + "/refused/"
        oauth_server.redirect_to(page)
        client = _HTTPClient(oauth_server.issuer)
        client("/login", form={"username": "ann", "password": "ann-pw"})  # signed in already
        verifier, challenge = _pkce()
        if case in ("no PKCE", "plain PKCE"):
            query = _authorization_query(page, None if case == "no PKCE" else verifier,
                                         code_challenge_method=None if case == "no PKCE" else
                                         "plain")
            status, headers, _ = client("/authorize?" + query)
            assert status in REDIRECTS and headers["Location"].startswith(page + "?")  # told why
            assert _redirect_params(headers["Location"])["error"] == "invalid_request"
            return
        if case == "another redirect_uri":  # never sent back to a place not registered
            status, headers, text = client("/authorize?" + _authorization_query(
                "https://evil.example/", challenge))
            assert status == 400 and "Location" not in headers
            return
        if case == "denied":
            status, location = _signed_into(_HTTPClient(oauth_server.issuer),
                                            _authorization_query(page, challenge), consent="deny")
            answer = _redirect_params(location)
            assert (answer["error"], answer["state"], "code" in answer) == (
                "access_denied", "st-1", False)
            return
        status, location = _signed_into(_HTTPClient(oauth_server.issuer),
                                        _authorization_query(page, challenge))
        exchange = {"grant_type": "authorization_code", "code": _redirect_params(location)["code"],
                    "redirect_uri": page, "client_id": PAGE_CLIENT,
                    "code_verifier": _pkce()[0] if case == "a wrong verifier" else None}
        status, _, text = client("/token", form={key: value for key, value in exchange.items()
                                                 if value is not None})
        assert status == 400 and json.loads(text)["error"] in ("invalid_grant", "invalid_request")

    def test_sign_in_oauth_client_credentials_and_refresh_tokens_at_the_token_endpoint(
            self, oauth_server):
        client, api = _HTTPClient(oauth_server.issuer), _HTTPClient(oauth_server.api_url)
        service = {"Authorization": _basic(SERVICE_CLIENT, SERVICE_SECRET)}
        status, headers, _ = client("/token", method="OPTIONS", headers={
            "Origin": oauth_server.api_url, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization"})
        assert status == 204 and headers["Access-Control-Allow-Origin"] == oauth_server.api_url
        assert "Authorization" in headers["Access-Control-Allow-Headers"]
        other = client("/token", method="OPTIONS", headers={"Origin": "http://evil.example"})
        assert "Access-Control-Allow-Origin" not in other[1]
        status, _, text = client("/token", form={"grant_type": "client_credentials",
                                                 "scope": "things:read"}, headers=service)
        token = json.loads(text)
        assert status == 200 and "refresh_token" not in token and token["scope"] == "things:read"
        assert api("/things/", headers={"Authorization": "Bearer " + token["access_token"],
                                        "Accept": JSON_TYPE})[0] == 200
        wrong = client("/token", form={"grant_type": "client_credentials"},
                       headers={"Authorization": _basic(SERVICE_CLIENT, "nope")})
        assert (wrong[0], json.loads(wrong[2])["error"]) == (401, "invalid_client")
        page = oauth_server.api_url + "/refreshed/"
        oauth_server.redirect_to(page)
        verifier, challenge = _pkce()
        _, location = _signed_into(_HTTPClient(oauth_server.issuer),
                                   _authorization_query(page, challenge))
        first = json.loads(client("/token", form={
            "grant_type": "authorization_code", "code": _redirect_params(location)["code"],
            "redirect_uri": page, "client_id": PAGE_CLIENT, "code_verifier": verifier})[2])
        refresh = {"grant_type": "refresh_token", "client_id": PAGE_CLIENT,
                   "refresh_token": first["refresh_token"]}
        status, headers, text = client("/token", form=refresh,
                                       headers={"Origin": oauth_server.api_url})
        second = json.loads(text)
        assert status == 200 and headers["Access-Control-Allow-Origin"] == oauth_server.api_url
        assert second["refresh_token"] != first["refresh_token"]  # rotated
        assert second["access_token"] != first["access_token"]
        assert api("/things/", headers={"Authorization": "Bearer " + second["access_token"],
                                        "Accept": JSON_TYPE})[0] == 200
        again = client("/token", form=refresh)  # a refresh token is used once
        assert (again[0], json.loads(again[2])["error"]) == (400, "invalid_grant")
        for access in (first, second):  # used twice: the whole grant is revoked (RFC 9700)
            assert api("/things/", headers={"Authorization": "Bearer " + access["access_token"],
                                            "Accept": JSON_TYPE})[0] == 401
        newest = client("/token", form=dict(refresh, refresh_token=second["refresh_token"]))
        assert (newest[0], json.loads(newest[2])["error"]) == (400, "invalid_grant")

    def test_sign_in_oauth_protected_api_offers_its_servers_schemes_and_rfc_6750_challenges(
            self, oauth_server):
        api = _HTTPClient(oauth_server.api_url)
        document = _validated(json.loads(api("/openapi.json", headers={"Accept": JSON_TYPE})[2]))
        schemes = document["components"]["securitySchemes"]
        assert set(schemes["oauth"]["flows"]) == {"authorizationCode", "clientCredentials"}
        assert schemes["oidc"]["openIdConnectUrl"] == (oauth_server.issuer +
                                                       "/.well-known/openid-configuration")
        status, headers, block = _page_of(api, "/things/")
        assert status == 401 and block["schemes"] == schemes
        assert block["operations"] == {
            "GET": [{"oauth": ["things:read"]}, {"oidc": ["things:read"]}],
            "HEAD": [{"oauth": ["things:read"]}, {"oidc": ["things:read"]}],
            "POST": [{"oauth": ["things:write"]}, {"oidc": ["things:write"]}]}
        assert block["challenges"] == [{"scheme": "Bearer", "token68": None, "params": {
            "realm": "things", "scope": "things:read"}}]  # no error: no token was sent
        assert block["origins"] == [oauth_server.issuer]
        assert headers["Content-Security-Policy"].count("connect-src 'self' {};".format(
            oauth_server.issuer)) == 1
        assert _page_of(api, "/")[2]["operations"]["GET"] == []
        status, _, block = _page_of(api, "/things/", {"Authorization": "Bearer forged"})
        assert status == 401 and block["challenges"][0]["params"]["error"] == "invalid_token"
        token = json.loads(_HTTPClient(oauth_server.issuer)("/token", form={
            "grant_type": "client_credentials", "scope": "things:read"},
            headers={"Authorization": _basic(SERVICE_CLIENT, SERVICE_SECRET)})[2])["access_token"]
        status, _, block = _page_of(api, "/me", {"Authorization": "Bearer " + token})
        assert status == 403 and block["challenges"][0]["params"] == {
            "realm": "things", "scope": "openid", "error": "insufficient_scope"}

    def test_sign_in_oauth_access_token_past_its_expiry_is_refused_with_invalid_token(
            self, oauth_server):
        oauth_server.expires_in = 600  # what the next token lives for
        try:
            status, _, text = _HTTPClient(oauth_server.issuer)("/token", form={
                "grant_type": "client_credentials", "scope": "things:read"},
                headers={"Authorization": _basic(SERVICE_CLIENT, SERVICE_SECRET)})
        finally:
            oauth_server.expires_in = 3600
        token = json.loads(text)
        assert status == 200 and token["expires_in"] == 600
        api, bearer = _HTTPClient(oauth_server.api_url), {
            "Authorization": "Bearer " + token["access_token"], "Accept": JSON_TYPE}
        assert api("/things/", headers=bearer)[0] == 200
        oauth_server.tokens[token["access_token"]].issued_at -= 600  # its 600 s gone by
        status, headers, _ = api("/things/", headers=bearer)
        assert status == 401 and 'error="invalid_token"' in headers["WWW-Authenticate"]

    def test_signin_script_reads_a_jwts_claims_for_display_and_nothing_else(self, script_parts):
        token = _jwt({"sub": "z\u00f6e", "name": "Zo\u00eb \U0001f600", "exp": 2000000000,
                      "iat": 1})
        found = _js(script_parts, """(tokens) => tokens.map((token) => {
            const claims = parts.jwtClaims(token);
            return claims && [claims.sub, parts.whoOf(claims), claims.exp];
        })""", [token, "a.b", "a.b.c.d", "a.%%%.c", "a." + _jwt([1]).split(".")[1] + ".c",
                "a.bm90IGpzb24.c", "a.//8.c", None, 12])
        assert found == [["z\u00f6e", "Zo\u00eb \U0001f600 (z\u00f6e)", 2000000000]] + [None] * 8
        assert _js(script_parts, """(list) => list.map((claims) => parts.whoOf(claims))""", [
            {"sub": "ann"}, {"sub": "ann", "name": "ann"}, {"preferred_username": "Ann"},
            {"sub": 7, "name": ["x"]}, {}, {"sub": "x" * 500}]) == [
            "ann", "ann", "Ann", "", "", "x" * 100]

    @pytest.mark.parametrize("ms, shown", [
        (1, "expires in 0:01"), (999, "expires in 0:01"), (59001, "expires in 1:00"),
        (14 * 60000 + 59000, "expires in 14:59"), (3600000, "expires in 1:00:00"),
        (3661000, "expires in 1:01:01"), (0, "expired"), (-5000, "expired"), (None, "expired")])
    def test_signin_script_counts_a_token_down_to_its_expiry(self, script_parts, ms, shown):
        assert _js(script_parts, "(ms) => parts.clockText(ms === null ? NaN : ms)", ms) == shown

    @pytest.mark.parametrize("challenges, said", [
        ([{"scheme": "Basic", "token68": None, "params": {"realm": "Things", "charset": "UTF-8"}}],
         'HTTP Basic (a username and password), realm "Things", charset "UTF-8"'),
        ([{"scheme": "Bearer", "token68": None, "params": {"realm": "things", "scope": "a b"}}],
         'a bearer token, realm "things", scope "a b"'),
        ([{"scheme": "bearer", "token68": None, "params": {
            "realm": "x", "error": "invalid_token", "error_description": "The access token expired",
            "error_uri": "https://example.com/errors"}}],
         'a bearer token, realm "x"; the token sent was refused: it is expired, revoked or not '
         'valid (invalid_token), "The access token expired" (see https://example.com/errors)'),
        ([{"scheme": "Bearer", "token68": None, "params": {"scope": "openid",
                                                           "error": "insufficient_scope"}}],
         'a bearer token, scope "openid"; the token sent was refused: it lacks the scope needed '
         '(insufficient_scope)'),
        ([{"scheme": "Bearer", "token68": None, "params": {"error": "its_own"}}],
         "a bearer token; the token sent was refused: its_own"),
        ([{"scheme": "Negotiate", "token68": "a87421==", "params": {}},
          {"scheme": "Newauth", "token68": None, "params": {"realm": "apps", "type": "1"}}],
         'the scheme Negotiate (with a token); or the scheme Newauth, realm "apps", type "1"'),
    ])
    def test_signin_script_says_what_a_401s_challenges_ask_for(self, script_parts, challenges,
                                                               said):
        assert _js(script_parts, "(list) => parts.challengesText(list)", challenges) == \
            "This answer asks for " + said + "."

    def test_signin_script_says_what_each_method_needs(self, script_parts):
        operations = {"GET": [{"basic": []}, {"bearer": []}],
                      "HEAD": [{"basic": []}, {"bearer": []}],
                      "POST": [{"oauth": ["write", "read"]}, {}],
                      "PUT": [{"key": [], "oauth": ["write"]}], "DELETE": [], "PATCH": [{}]}
        assert _js(script_parts, "(ops) => parts.needsText(Object.entries(ops))", operations) == [
            "GET, HEAD: basic, or bearer", "POST: oauth (write read), or nothing (signing in is "
            "optional)", "PUT: key and oauth (write)", "DELETE: nothing",
            "PATCH: nothing (signing in is optional)"]

    @pytest.mark.parametrize("needed, challenged, scopes, from_answer", [
        (["things:read"], ["things:read"], ["things:read"], []),  # was sent twice
        (["read"], ["read", "admin", "admin"], ["read", "admin"], ["admin"]),
        ([], ["", "a", "b"], ["a", "b"], ["a", "b"]),
        (["a", "a"], [], ["a"], [])])
    def test_signin_script_merges_the_documents_scopes_and_a_challenges_each_once(
            self, script_parts, needed, challenged, scopes, from_answer):
        assert _js(script_parts, "(a, b) => parts.mergedScopes(a, b)", needed, challenged) == {
            "scopes": scopes, "fromAnswer": from_answer}

    def test_signin_script_writes_http_basic_as_rfc_7617_does(self, script_parts):
        found = _js(script_parts, """(pairs) => pairs.map(([user, password]) => {
            try { return parts.basicCredential(user, password); }
            catch (error) { return error.message; }
        })""", [["Aladdin", "open sesame"], ["test", "123\u00a3"], ["", ""], ["a:b", "c"],
                ["ann", "pw\nx"], ["\u00e9\U0001f600", "p:w"]])
        assert found == [
            "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "Basic dGVzdDoxMjPCow==",  # RFC 7617's own
            "Basic Og==", "A username with a colon cannot be sent with HTTP Basic.",
            "A username or password with control characters cannot be sent.",
            "Basic " + base64.b64encode("\u00e9\U0001f600:p:w".encode("utf-8")).decode()]

    def test_signin_script_pkce_challenge_is_rfc_7636s_s256_and_its_values_are_fresh(
            self, script_parts):
        rfc = _js(script_parts, "(verifier) => parts.pkceChallenge(verifier)",
                  "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        assert rfc == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"  # RFC 7636, appendix B
        verifier, challenge = _pkce()
        assert _js(script_parts, "(verifier) => parts.pkceChallenge(verifier)",
                   verifier) == challenge
        tokens = _js(script_parts, "() => Array.from({length: 50}, () => parts.randomToken())")
        assert len(set(tokens)) == 50 and all(re.fullmatch(r"[A-Za-z0-9_-]{43}", t) for t in tokens)

    def test_signin_script_writes_an_authorization_request_keeping_the_endpoints_query(
            self, script_parts):
        found = _js(script_parts, """(cases) => cases.map(([endpoint, params]) => {
            try { return parts.authorizationURL(endpoint, params); } catch (error) {
                return error.message; }
        })""", [["https://login.example/authorize?tenant=a&x=", {
            "response_type": "code", "scope": "openid things:read", "state": "s&t=1", "nonce": ""}],
            ["javascript:alert(1)//", {"state": "s"}], ["/relative", {}]])
        assert found[0] == ("https://login.example/authorize?tenant=a&x=&response_type=code&"
                            "scope=openid+things%3Aread&state=s%26t%3D1")
        assert found[1] == "The authorization URL is not http(s)."
        assert found[2] == "Failed to construct 'URL': Invalid URL"

    def test_signin_script_sends_secrets_only_to_this_origin_or_the_documents(self, script_parts):
        page, origins = "http://127.0.0.1:5000/things/?a=1", ["https://login.example",
                                                              "http://127.0.0.1:9000"]
        urls = ["https://login.example/token", "/token", "token", "http://127.0.0.1:5000/x",
                "https://LOGIN.example:443/token", "https://login.example:444/token",
                "http://login.example/token", "https://evil.example/token",
                "http://127.0.0.1:9001/token", "https://user:pw@login.example/token",
                "javascript:fetch('/')", "data:text/plain,x", "//evil.example/token",
                "https://login.example.evil.example/token", "http://[::1/", None, ""]
        allowed = _js(script_parts, """(urls, page, origins) => urls.map((url) => {
            const found = parts.allowedEndpoint(url, page, origins);
            return found && found.href;
        })""", urls, page, origins)
        assert allowed == ["https://login.example/token", "http://127.0.0.1:5000/token",
                           "http://127.0.0.1:5000/things/token", "http://127.0.0.1:5000/x",
                           "https://login.example/token"] + [None] * 11 + [
                           "http://127.0.0.1:5000/things/?a=1"]

    def test_signin_script_reads_an_authorization_answer_and_says_why_one_is_refused(
            self, script_parts):
        answers = _js(script_parts, """(searches) => searches.map((search) =>
            parts.authorizationAnswer(search))""", [
            "?code=c&state=s", "?error=access_denied&state=s&error_description=No%21",
            "?code=c", "?state=s", "?page=2", "?code=c&state=s&iss=https%3A%2F%2Fid.example&x=1",
            "?code=&state="])
        assert answers == [{"code": "c", "state": "s"}, {
            "error": "access_denied", "state": "s", "error_description": "No!"}, None, None, None,
            {"code": "c", "state": "s", "iss": "https://id.example"}, {"code": "", "state": ""}]
        assert _js(script_parts, "(url) => parts.withoutAnswer(url)",
                   "http://h.test/a/?page=2&code=c&state=s&iss=x&session_state=y#f") == \
            "http://h.test/a/?page=2#f"
        pending = {"state": "s", "redirect": "http://h.test/a/", "issuer": ""}
        cases = [
            ({"code": "c", "state": "s"}, pending, ""),
            ({"code": "c", "state": "s"}, None, "Refused an authorization answer: this tab has no "
             "sign-in waiting for one"),
            ({"code": "c", "state": "t"}, pending, "Refused an authorization answer whose state is "
             "not the one this tab sent"),
            ({"code": "c"}, pending, "Refused an authorization answer whose state"),
            ({"code": "c", "state": "s"}, dict(pending, redirect="http://h.test/b/"),
             "Refused an authorization answer that came to another page"),
            ({"code": "c", "state": "s", "iss": "https://evil.example"},
             dict(pending, issuer="https://id.example"), "Refused an authorization answer from "
             "https://evil.example, not the issuer asked (https://id.example)."),
            ({"code": "c", "state": "s", "iss": "https://id.example"},
             dict(pending, issuer="https://id.example"), ""),
            ({"error": "access_denied", "error_description": "No", "state": "s"}, pending,
             "The authorization server did not sign you in: access_denied (No)."),
            ({"code": "", "state": "s"}, pending, "The authorization server did not sign you in: "
             "no code."),
        ]
        for answer, waiting, problem in cases:
            said = _js(script_parts, "(a, p) => parts.answerProblem(a, p, 'http://h.test/a/')",
                       answer, waiting)
            assert said.startswith(problem) and bool(said) == bool(problem), (answer, said)

    @pytest.mark.parametrize("csp", CSP_MODES)
    def test_browser_signin_oauth_authorization_code_through_the_servers_login_and_consent_pages(
            self, chromium, oauth_server, csp):
        page = oauth_server.api_url + "/things/"
        oauth_server.redirect_to(page)
        with _signin_tab(chromium, oauth_server.api_url, csp) as (tab, posts):
            tab.goto("/things/?page=2")  # comes back to this, by way of /things/ itself
            _expect(tab.locator("#api-signin details")).to_have_attribute("open", "")
            _expect(tab.get_by_label("things:read: Read things")).to_be_checked()  # the answer's
            _oauth_sign_in(tab, oauth_server)
            status = tab.locator("#api-signin-status")
            _expect(status).to_have_text("Signed in with oauth as Ann (ann).")
            _expect(status).to_be_focused()
            _expect(tab.locator("#api-live")).to_have_text(re.compile(
                r"^Signed in with oauth as Ann \(ann\)\. HTTP 200 OK: 2 items"))
            assert tab.url == page + "?page=2" and len(posts) == 1
            _expect(tab.locator("pre.response")).to_contain_text("GET /things/?page=2\n")
            _expect(tab.locator("pre.response")).to_contain_text('"kettle"')
            _expect(tab.locator("#api-signin summary")).to_have_text("Signed in: Ann (ann)")
            _expect(tab.locator("#api-signin-list")).to_contain_text(re.compile(
                r"Authorization: Bearer •{8} · expires in 59:[0-5]\d"))
            credential = _stored(tab)[0]
            assert credential["value"].startswith("Bearer ") and credential["refresh"]["token"]
            assert credential["value"][7:] not in tab.content()  # masked, everywhere
            assert _stored(tab, "flask-api-signin-pending") is None  # the verifier is gone
            tab.reload()  # still signed in: fetched again with the token
            _expect(tab.locator("#api-refetched")).to_contain_text("(Authorization)")
            _expect(tab.locator("pre.response")).to_contain_text('"kettle"')
            tab.go_back()  # to the consent page; the code never was in this tab's history
            tab.wait_for_url(lambda url: url.startswith(oauth_server.issuer + "/authorize?"))
            assert "code=" not in tab.url
            tab.go_forward()
            _expect(tab.locator("pre.response")).to_contain_text('"kettle"')
            assert tab.url == page + "?page=2" and len(posts) == 1

    def test_browser_signin_scopes_are_asked_for_once_and_a_challenges_own_said_first(
            self, chromium, oauth_server, live_site):
        with _signin_tab(chromium, oauth_server.api_url) as (tab, _):
            asked = []
            tab.on("request", lambda sent: asked.append(sent.url) if sent.url.startswith(
                oauth_server.issuer + "/authorize") else None)
            tab.goto("/things/")  # the document and the challenge both ask for things:read
            _choose(tab, "oidc: OpenID Connect")
            scopes = tab.get_by_label("Scopes, separated by spaces")
            _expect(scopes).to_have_value("openid things:read")
            _expect(tab.locator("#api-signin-scopes-asked")).to_have_count(0)
            tab.get_by_label("Client ID").fill(PAGE_CLIENT)
            scopes.fill("openid  things:read things:read")
            tab.get_by_role("button", name="Sign in at the provider").click()
            tab.wait_for_url(lambda url: url.startswith(oauth_server.issuer + "/"))
            assert _redirect_params(asked[0])["scope"] == "openid things:read"
        site = live_site.serve(_secured_app(security=({"oauth": ["read"]},), challenge=[
            'Bearer realm="things", scope="read admin"']))
        with _open_tab(chromium, site) as tab:
            tab.goto("/things/")
            _choose(tab, "oauth: OAuth 2.0, authorization code")
            said = ("This answer's challenge asks for admin, besides what the API's document "
                    "says this method needs.")
            _expect(tab.locator("#api-signin-scopes-asked")).to_have_text(said)
            _expect(tab.get_by_role("group", name="Scopes")).to_have_accessible_description(said)
            _expect(tab.get_by_label("read: Read things")).to_be_checked()
            _expect(tab.get_by_label("write: Change things")).not_to_be_checked()
            _expect(tab.get_by_label("admin (asked for by this answer)")).to_be_checked()
            _choose(tab, "oidc: OpenID Connect")  # whose scheme the document asks nothing of
            _expect(tab.get_by_label("Scopes, separated by spaces")).to_have_value(
                "openid read admin")
            _expect(tab.get_by_label("Scopes, separated by spaces")).to_have_accessible_description(
                said.replace("for admin", "for read admin"))

    @pytest.mark.parametrize("csp", CSP_MODES)
    @pytest.mark.parametrize("waiting", sorted(FORGED))
    def test_browser_signin_a_forged_answer_is_refused_and_its_code_sent_nowhere(
            self, chromium, oauth_server, other_site, csp, waiting):
        page = oauth_server.api_url + "/things/"
        oauth_server.redirect_to(page)
        verifier, challenge = _pkce()  # the attacker's own sign-in: a real code, for their verifier
        _, location = _signed_into(_HTTPClient(oauth_server.issuer), _authorization_query(
            page, challenge, state="attackers"))
        forged = page + "?" + urllib.parse.urlsplit(location).query
        other_site.serve(_pages_running({"/": "location.href = " + json.dumps(forged)}))
        with _signin_tab(chromium, oauth_server.api_url, csp) as (tab, posts):
            tab.goto("/things/")
            if waiting == "a sign-in waiting":  # the user's own: it could sign them in as another
                _start_oauth_sign_in(tab, oauth_server)
            tab.goto(other_site.url + "/")  # a site the user visits sends the tab to the answer
            status = tab.locator("#api-signin-status")
            _expect(status).to_have_text(FORGED[waiting])
            _expect(status).to_be_focused()
            _expect(tab.locator("#api-live")).to_have_text(status.inner_text())
            assert tab.url == page and posts == []
            assert _stored(tab, "flask-api-signin-pending") is None  # the next sign-in: afresh
            assert _stored(tab) is None
            status, _, _ = _HTTPClient(oauth_server.issuer)("/token", form={  # never spent
                "grant_type": "authorization_code", "code": _redirect_params(location)["code"],
                "redirect_uri": page, "client_id": PAGE_CLIENT, "code_verifier": verifier})
            assert status == 200

    @pytest.mark.parametrize("csp", CSP_MODES)
    def test_browser_signin_a_replayed_answer_is_refused_and_its_code_not_sent_again(
            self, chromium, oauth_server, csp):
        page = oauth_server.api_url + "/things/"
        oauth_server.redirect_to(page)
        with _signin_tab(chromium, oauth_server.api_url, csp) as (tab, posts):
            answers = []
            tab.on("request", lambda sent: answers.append(sent.url) if "code=" in sent.url and
                   sent.url.startswith(page) else None)
            tab.goto("/things/")
            _oauth_sign_in(tab, oauth_server)
            _expect(tab.locator("#api-signin-status")).to_have_text(ANN_SIGNED_IN)
            assert len(answers) == 1 and len(posts) == 1
            tab.goto(answers[0])  # the very answer again: from the history, a log, a Referer...
            status = tab.locator("#api-signin-status")
            _expect(status).to_contain_text("Refused an authorization answer: this tab has no "
                                            "sign-in waiting for one (its code was used already")
            _expect(status).to_be_focused()
            assert tab.url == page and len(posts) == 1
            _expect(tab.locator("#api-signin summary")).to_have_text("Signed in: Ann (ann)")

    @pytest.mark.parametrize("csp", CSP_MODES)
    @pytest.mark.parametrize("named_by", ["the discovery document", "this tab's storage"])
    def test_browser_signin_a_token_endpoint_the_document_does_not_name_gets_nothing(
            self, chromium, live_site, other_site, csp, named_by):
        elsewhere = []  # every request the other origin gets
        other_site.serve(lambda environ, start_response: elsewhere.append(
            environ["PATH_INFO"]) or start_response("200 OK", [
                ("Access-Control-Allow-Origin", "*"), ("Access-Control-Allow-Headers", "*"),
                ("Content-Type", "application/json")]) or [b"{}"])
        provider, known = _LiveSite(), {}
        known["url"] = provider.url
        provider.serve(_openid_provider(known, lambda: other_site.url if named_by ==
                                        "the discovery document" else provider.url))
        site = live_site.serve(_provider_api(provider.url))
        with contextlib.closing(provider), _signin_tab(chromium, site, csp) as (tab, posts):
            tab.goto("/things/")
            _choose(tab, "oidc: OpenID Connect")
            tab.get_by_label("Client ID").fill("page")
            tab.get_by_role("button", name="Sign in at the provider").click()
            status = tab.locator("#api-signin-status")
            refused = ("the token endpoint {}/token is on an origin that this API's document does "
                       "not name, so nothing was sent there.".format(other_site.url))
            if named_by == "the discovery document":
                _expect(status).to_have_text("Not signed in: " + refused)
            else:  # what a same-origin page in this tab could write there
                _expect(status).to_have_text("Signed in with oidc as page.")
                tab.evaluate("""(url) => { const list = JSON.parse(sessionStorage.getItem(
                    "flask-api-signin")); list[0].refresh.url = url + "/token";
                    sessionStorage.setItem("flask-api-signin", JSON.stringify(list)); }""",
                             other_site.url)
                tab.get_by_role("button", name="Refresh now").click()
                _expect(status).to_have_text("Not refreshed: " + refused)
            assert elsewhere == [] and all(not url.startswith(other_site.url) for url in posts)

    def test_browser_signin_a_refresh_that_cannot_reach_the_server_is_said_and_not_retried(
            self, chromium, live_site):
        provider, known = _LiveSite(), {}
        known["url"] = provider.url
        provider.serve(_openid_provider(known, lambda: provider.url))
        with _signin_tab(chromium, live_site.serve(_provider_api(provider.url))) as (tab, posts):
            tab.goto("/things/")
            _choose(tab, "oidc: OpenID Connect")
            tab.get_by_label("Client ID").fill("page")
            tab.get_by_role("button", name="Sign in at the provider").click()
            _expect(tab.locator("#api-signin-status")).to_have_text("Signed in with oidc as page.")
            provider.close()  # gone: its token endpoint too
            tab.evaluate("""() => { const list = JSON.parse(sessionStorage.getItem(
                "flask-api-signin")); list[0].expires = Date.now() + 2000;
                sessionStorage.setItem("flask-api-signin", JSON.stringify(list)); }""")
            _expect(tab.locator("#api-signin-status")).to_have_text(re.compile(
                r"^Not refreshed: the token endpoint http://127\.0\.0\.1:\d+ could not be "
                r"reached "))
            tab.wait_for_timeout(3000)  # three ticks of the panel's clock: none tries again
            assert len(posts) == 2 and _stored(tab)[0]["value"] == "Bearer provider-token"
            tab.get_by_role("button", name="Refresh now").click()  # but the user may
            _expect(tab.locator("#api-signin-status")).to_be_focused()
            assert len(posts) == 3

    def test_browser_signin_a_token_endpoint_that_refuses_the_pages_origin_is_said_as_cors(
            self, chromium, oauth_server, live_site):
        app = FlaskAPI("cors_refused")  # on an origin the authorization server's CORS does not name
        app.config.update(OPENAPI_SECURITY_SCHEMES={"oauth": {"type": "oauth2", "flows": {
            "clientCredentials": {"tokenUrl": oauth_server.issuer + "/token", "scopes": {}}}}},
            OPENAPI_SECURITY=[{"oauth": []}])

        @app.route("/things/")
        def cors_things():
            raise NotAuthenticated()
        site = live_site.serve(app)
        with _signin_tab(chromium, site) as (tab, posts):
            tab.goto("/things/")
            _choose(tab, "oauth: OAuth 2.0, client credentials")
            tab.get_by_label("Client ID").fill(SERVICE_CLIENT)
            tab.get_by_label("Client secret").fill(SERVICE_SECRET)
            tab.get_by_role("button", name="Sign in", exact=True).click()
            _expect(tab.locator(".signin-form [role=alert]")).to_have_text(
                "The token endpoint {0} does not let this page read its answers: it refuses this "
                "page's origin (CORS). Its server must allow {1} (the header "
                "Access-Control-Allow-Origin: {1}, and Authorization among "
                "Access-Control-Allow-Headers).".format(oauth_server.issuer, site))
            assert posts[0] == oauth_server.issuer + "/token"

    def test_browser_signin_a_provider_offering_offline_access_that_gave_no_refresh_token_says_so(
            self, chromium, live_site):
        provider, known = _LiveSite(), {}
        known["url"] = provider.url
        provider.serve(_openid_provider(known, lambda: provider.url, offline=True))
        with contextlib.closing(provider), _signin_tab(chromium, live_site.serve(
                _provider_api(provider.url))) as (tab, _):
            tab.goto("/things/")
            _choose(tab, "oidc: OpenID Connect")
            tab.get_by_label("Client ID").fill("page")
            tab.get_by_role("button", name="Sign in at the provider").click()
            status = tab.locator("#api-signin-status")
            _expect(status).to_have_text(
                "Signed in with oidc as page. No refresh token came with it, so this sign-in ends "
                "when its token expires: this provider gives one for the scope offline_access, "
                "which you may add to the scopes.")
            _expect(tab.locator("#api-live")).to_contain_text(status.inner_text())
            _expect(tab.get_by_role("button", name="Refresh now")).to_have_count(0)
            assert "prompt" not in known["asked"][-1]
            tab.get_by_role("button", name="Sign out of oidc").click()
            tab.get_by_label("Scopes, separated by spaces").fill("openid offline_access")
            _expect(tab.get_by_label("Client ID")).to_have_value("page")  # kept for the tab
            tab.get_by_role("button", name="Sign in at the provider").click()
            _expect(status).to_have_text("Signed in with oidc as page.")
            _expect(tab.get_by_role("button", name="Refresh now")).to_have_count(1)
            assert known["asked"][-1]["prompt"] == "consent"  # OpenID Connect Core 1.0, 11

    def test_browser_signin_a_full_storage_is_said_in_words(self, chromium, signin_site):
        site = signin_site.serve(SIGNIN_APPS["flask-httpauth"]())
        with _open_tab(chromium, site) as tab:
            tab.goto("/token/")
            tab.evaluate("""() => {  // this origin's storage for the tab, filled to the last char
                for (let size = 1 << 20, n = 0; size >= 1; size >>= 1) {
                    try { for (;; n++) sessionStorage.setItem("filler" + n, "x".repeat(size)); }
                    catch { n++; }
                }
            }""")
            _choose(tab, "token: a bearer token")
            tab.get_by_label("Token", exact=True).fill(SIGNIN_TOKEN)
            tab.get_by_role("button", name="Sign in", exact=True).click()
            _expect(tab.locator(".signin-form [role=alert]")).to_have_text(
                "This tab's storage for this site is full (what the site's pages keep in it), so "
                "the sign-in could not be kept: sign in from a new tab, or clear the site's data "
                "in the browser's settings.")
            _expect(tab.locator("#api-signin summary")).to_have_text("Sign in")

    @pytest.mark.parametrize("csp", CSP_MODES)
    def test_browser_signin_an_answer_posted_from_another_window_is_refused(
            self, chromium, oauth_server, other_site, csp):
        target = oauth_server.api_url + "/things/"
        other_site.serve(_pages_running({"/": (
            "const w = window.open({}); setInterval(() => w.postMessage({{code: 'c', state: 's', "
            "access_token: 't'}}, '*'), 200)").format(json.dumps(target))}))
        with _signin_tab(chromium, other_site.url, csp) as (tab, posts):
            with tab.context.expect_page() as opened:
                tab.goto("/")
            shown = opened.value
            _expect(shown.locator("#api-signin-status")).to_have_text(
                "Refused a sign-in answer posted from another window ({}): this page takes an "
                "authorization server's answer only in its own address, in the tab that asked for "
                "it.".format(other_site.url))
            assert posts == [] and _stored(shown) is None

    def test_browser_signin_refreshes_before_expiry_with_rotating_refresh_tokens(
            self, chromium, oauth_server):
        page = oauth_server.api_url + "/things/"
        oauth_server.redirect_to(page)
        with _signin_tab(chromium, oauth_server.api_url) as (tab, posts):
            oauth_server.expires_in = 4  # the tokens issued from now on: refreshed a second before
            try:
                tab.goto("/things/")
                _oauth_sign_in(tab, oauth_server)
                _expect(tab.locator("#api-signin-status")).to_have_text(ANN_SIGNED_IN)
                first = _stored(tab)[0]
                assert first["expires"] - first["obtained"] == 4000
                listed = tab.locator("#api-signin-list")
                _expect(listed).to_contain_text("refreshed 1 time", timeout=10000)  # by itself
                _expect(listed).to_contain_text("refreshed 2 times", timeout=10000)
                second = _stored(tab)[0]
                assert second["refresh"]["token"] != first["refresh"]["token"]  # rotated
                assert oauth_server.tokens[first["refresh"]["token"]].revoked
                # the code, then each refresh
                assert posts.count(oauth_server.issuer + "/token") >= 3
                oauth_server.expires_in = 3600
                tab.get_by_role("button", name="Refresh now").click()
                _expect(tab.locator("#api-signin-status")).to_have_text("Refreshed.")
                _expect(tab.locator("#api-signin-status")).to_be_focused()
                _expect(listed).to_contain_text(re.compile(r"expires in 59:[0-5]\d"))
                tab.locator("a.brand").click()  # followed with the token, which the API takes
                # the root's answer shown: not its text "GET /", which every URL's starts with
                _expect(tab.locator("pre.response")).to_have_attribute(
                    "data-url", re.compile(r"^(http://[^/]+)?/$"))
            finally:
                oauth_server.expires_in = 3600

    def test_browser_signin_a_refused_refresh_signs_the_whole_panel_out(self, chromium,
                                                                        oauth_server):
        page = oauth_server.api_url + "/things/"
        oauth_server.redirect_to(page)
        with _signin_tab(chromium, oauth_server.api_url) as (tab, _):
            tab.goto("/things/")
            _oauth_sign_in(tab, oauth_server)
            panel, status = tab.locator("#api-signin"), tab.locator("#api-signin-status")
            heading = panel.locator("summary")
            _expect(status).to_have_text(ANN_SIGNED_IN)
            _expect(heading).to_have_text("Signed in: Ann (ann)")
            _expect(tab.get_by_label("Client ID")).to_be_hidden()  # folded under the list
            oauth_server.tokens[_stored(tab)[0]["refresh"]["token"]].revoked = True  # by the server
            tab.get_by_role("button", name="Refresh now").click()
            _expect(status).to_have_text("Signed out of oauth: the token endpoint answered 400 "
                                         "invalid_grant. Sign in again.")
            _expect(status).to_be_focused()
            _expect(tab.locator("#api-live")).to_have_text(status.inner_text())
            _expect(heading).to_have_text("Sign in")
            _expect(panel).not_to_have_class(re.compile(r"\bactive\b"))
            _expect(tab.locator("#api-signin-list")).to_be_hidden()
            _expect(tab.get_by_label("Client ID")).to_be_visible()
            _expect(tab.get_by_label("Client ID")).to_have_value(PAGE_CLIENT)  # not to retype
            assert _stored(tab) is None

    def test_browser_signin_tabs_that_share_a_sign_in_refresh_it_once_for_all(
            self, chromium, oauth_server):
        page = oauth_server.api_url + "/things/"
        oauth_server.redirect_to(page)
        reused = len(oauth_server.reused)  # the server revokes a grant whose token comes back
        with _signin_tab(chromium, oauth_server.api_url) as (tab, _):
            tab.goto("/things/")
            _oauth_sign_in(tab, oauth_server)
            _expect(tab.locator("#api-signin-status")).to_have_text(ANN_SIGNED_IN)
            fresh = tab.context.new_page()  # a tab of its own: not signed in
            fresh.goto("/things/")
            _expect(fresh.locator("#api-signin summary")).to_have_text("Sign in")
            _expect(fresh.locator("pre.response")).to_contain_text("HTTP 401")
            with tab.context.expect_page() as opened:  # a tab opened from this one: a copy
                tab.evaluate("window.open(location.href)")
            copy = opened.value
            _expect(copy.locator("#api-signin summary")).to_have_text("Signed in: Ann (ann)")
            _expect(copy.locator("#api-refetched")).to_be_visible()
            lists = [one.locator("#api-signin-list") for one in (tab, copy)]
            copy.get_by_role("button", name="Refresh now").click()
            _expect(copy.locator("#api-signin-status")).to_have_text("Refreshed.")
            _expect(lists[0]).to_contain_text("refreshed 1 time")  # handed over to the first
            tab.get_by_role("button", name="Refresh now").click()  # with the copy's new token
            _expect(tab.locator("#api-signin-status")).to_have_text("Refreshed.")
            _expect(lists[1]).to_contain_text("refreshed 2 times")
            oauth_server.expires_in = 4  # from now on: each tab's clock refreshes them
            try:
                tab.get_by_role("button", name="Refresh now").click()
                for listed in lists:
                    _expect(listed).to_contain_text("refreshed 5 times", timeout=15000)
            finally:
                oauth_server.expires_in = 3600
            assert len(oauth_server.reused) == reused  # no refresh token was presented twice
            assert _stored(tab) == _stored(copy)
            for one in (tab, copy):  # each tab's token is the newest, which the API takes
                one.locator(".bar a.button", has_text="GET").click()
                _expect(one.locator("pre.response")).to_contain_text('"kettle"')
            for listed in lists:  # refreshed for an hour: no refresh of their own now
                _expect(listed).to_contain_text(re.compile(r"expires in (1:00:00|59:)"))
            oauth_server.tokens[_stored(tab)[0]["refresh"]["token"]].revoked = True  # by the server
            tab.get_by_role("button", name="Refresh now").click()
            status = tab.locator("#api-signin-status")
            _expect(status).to_have_text("Signed out of oauth: the token endpoint answered 400 "
                                         "invalid_grant. Another tab of this page is signed in "
                                         "with it too, and may have used its refresh token, "
                                         "which is used once. Sign in again.")
            _expect(status).to_be_focused()
            _expect(copy.locator("#api-signin-status")).to_have_text(
                "Signed out of oauth in another tab: the token endpoint answered 400 invalid_grant."
                " Another tab of this page is signed in with it too, and may have used its "
                "refresh token, which is used once. Sign in again.")
            for one in (tab, copy):
                _expect(one.locator("#api-signin summary")).to_have_text("Sign in")
                assert _stored(one) is None

    def test_browser_signin_a_tab_away_while_another_refreshed_takes_its_tokens_on_return(
            self, chromium, oauth_server):
        page = oauth_server.api_url + "/things/"
        oauth_server.redirect_to(page)
        reused = len(oauth_server.reused)
        with _signin_tab(chromium, oauth_server.api_url) as (tab, _):
            tab.goto("/things/")
            _oauth_sign_in(tab, oauth_server)
            _expect(tab.locator("#api-signin-status")).to_have_text(ANN_SIGNED_IN)
            with tab.context.expect_page() as opened:
                tab.evaluate("window.open(location.href)")
            copy = opened.value
            _expect(copy.locator("#api-signin summary")).to_have_text("Signed in: Ann (ann)")
            copy.goto(oauth_server.issuer + "/.well-known/openid-configuration")  # away: deaf
            tab.get_by_role("button", name="Refresh now").click()
            _expect(tab.locator("#api-signin-status")).to_have_text("Refreshed.")
            copy.goto(page)  # back, typed: it asks for what it missed, and gets it
            _expect(copy.locator("#api-signin-list")).to_contain_text("refreshed 1 time")
            assert _stored(copy) == _stored(tab)
            copy.get_by_role("button", name="Refresh now").click()
            _expect(copy.locator("#api-signin-status")).to_have_text("Refreshed.")
            _expect(tab.locator("#api-signin-list")).to_contain_text("refreshed 2 times")
            assert len(oauth_server.reused) == reused

    def test_browser_signin_oauth_client_credentials_at_the_token_endpoint(self, chromium,
                                                                           oauth_server):
        with _signin_tab(chromium, oauth_server.api_url) as (tab, posts):
            tab.goto("/things/")
            _choose(tab, "oauth: OAuth 2.0, client credentials")
            tab.get_by_label("Client ID").fill(SERVICE_CLIENT)
            tab.get_by_label("Client secret").fill("wrong")
            tab.get_by_role("button", name="Sign in", exact=True).click()
            _expect(tab.locator(".signin-form [role=alert]")).to_have_text(re.compile(
                r"^The token endpoint answered 401 invalid_client \(.+\)\.$"))
            tab.get_by_label("Client secret").fill(SERVICE_SECRET)
            tab.get_by_role("button", name="Sign in", exact=True).click()
            status = tab.locator("#api-signin-status")
            _expect(status).to_have_text("Signed in with oauth as service.")
            _expect(status).to_be_focused()
            _expect(tab.locator("pre.response")).to_contain_text('"kettle"')
            credential = _stored(tab)[0]
            assert credential["refresh"] is None and SERVICE_SECRET not in json.dumps(credential)
            assert SERVICE_SECRET not in tab.content()
            assert posts == [oauth_server.issuer + "/token"] * 2
            tab.get_by_role("button", name="Sign out of oauth").click()
            _expect(status).to_have_text("Signed out of oauth.")
            _expect(tab.get_by_label("Sign in with").locator("option:checked")).to_have_text(
                "oauth: OAuth 2.0, client credentials")  # kept for the tab: the ID, no secret
            _expect(tab.get_by_label("Client ID")).to_have_value(SERVICE_CLIENT)
            _expect(tab.get_by_label("Client secret")).to_have_value("")
            assert SERVICE_SECRET not in tab.evaluate("JSON.stringify(sessionStorage)")

    def test_browser_signin_openid_connect_from_its_discovery_document(self, chromium,
                                                                       oauth_server):
        page = oauth_server.api_url + "/me"
        oauth_server.redirect_to(page)
        with _signin_tab(chromium, oauth_server.api_url) as (tab, posts):
            tab.goto("/me")
            _choose(tab, "oidc: OpenID Connect")
            _expect(tab.get_by_label("Scopes, separated by spaces")).to_have_value("openid")
            tab.get_by_label("Client ID").fill(PAGE_CLIENT)
            tab.get_by_role("button", name="Sign in at the provider").click()
            _at_the_server(tab, oauth_server.issuer)
            _expect(tab.locator("#api-signin-status")).to_have_text(
                "Signed in with oidc as Ann (ann).")
            _expect(tab.locator("pre.response")).to_contain_text('"sub": "ann"')
            assert tab.url == page and posts == [oauth_server.issuer + "/token"]

    def test_browser_signin_signing_out_leaves_nothing_and_the_next_sign_in_starts_afresh(
            self, chromium, oauth_server):
        page = oauth_server.api_url + "/things/"
        oauth_server.redirect_to(page)
        with _signin_tab(chromium, oauth_server.api_url) as (tab, posts):
            states = []
            tab.on("request", lambda sent: states.append(dict(urllib.parse.parse_qsl(
                urllib.parse.urlsplit(sent.url).query))["state"]) if sent.url.startswith(
                oauth_server.issuer + "/authorize?") and sent.method == "GET" else None)
            tab.goto("/things/")
            _oauth_sign_in(tab, oauth_server)
            _expect(tab.locator("#api-signin-status")).to_have_text(ANN_SIGNED_IN)
            waiting, status = tab.locator("#api-signin details"), tab.locator("#api-signin-status")
            for leave, said in [("Cancel it",
                                 "Cancelled: an answer to that sign-in will be refused."),
                                ("Sign out of oauth", "Signed out of oauth.")]:
                _start_oauth_sign_in(tab, oauth_server)  # another, left at the server
                tab.go_back()
                _expect(waiting).to_contain_text("A sign-in with oauth is waiting for the "
                                                 "authorization server's answer.")
                tab.get_by_role("button", name=leave).click()
                _expect(status).to_have_text(said)
                _expect(status).to_be_focused()
                _expect(waiting).not_to_contain_text("is waiting")
                assert _stored(tab, "flask-api-signin-pending") is None
            _expect(tab.locator("#api-live")).to_have_text(re.compile(
                r"^Signed out of oauth\. HTTP 401 UNAUTHORIZED", re.IGNORECASE))
            assert _stored(tab) is None
            _oauth_sign_in(tab, oauth_server)  # the server knows ann already: its consent page
            _expect(status).to_have_text(ANN_SIGNED_IN)
            assert len(set(states)) == 4 and len(posts) == 2  # a new state (and verifier) each time

    def test_browser_signin_flask_httpauth_basic_and_token_as_their_challenges_ask(
            self, chromium, signin_site):
        site = signin_site.serve(SIGNIN_APPS["flask-httpauth"]())
        with _open_tab(chromium, site, **PROMPT_CANCELLED) as tab:
            tab.goto("/basic/")
            panel = tab.locator("#api-signin")
            _expect(panel).to_contain_text('This answer asks for HTTP Basic (a username and '
                                           'password), realm "Things".')
            _expect(panel.get_by_role("list", name="What each method needs")).to_have_text(
                "GET, HEAD: basic")
            _expect(tab.get_by_label("Sign in with").locator("option:checked")).to_have_text(
                "basic: HTTP Basic (a username and password)")  # what the challenge asks for
            _add_header(tab, "authorization", "Bearer nope")  # the sign-in's goes in its place
            tab.get_by_label("Username").fill("ann:x")
            tab.get_by_label("Password").fill("ann-pw")
            tab.get_by_role("button", name="Sign in", exact=True).click()
            _expect(panel.get_by_role("alert")).to_have_text(
                "A username with a colon cannot be sent with HTTP Basic.")
            tab.get_by_label("Username").fill("ann")
            tab.get_by_role("button", name="Sign in", exact=True).click()
            _expect(tab.locator("#api-signin-status")).to_have_text("Signed in with basic as ann.")
            _expect(tab.locator("pre.response")).to_contain_text('"user": "ann"')
            _expect(tab.locator("#api-signin-list")).to_have_text(
                "basic (HTTP Basic (a username and password)), as ann: Authorization: Basic "
                "\u2022\u2022\u2022\u2022\u2022\u2022\u2022\u2022 Sign out of basic")
            assert "ann-pw" not in tab.content() and base64.b64encode(b"ann:ann-pw").decode() \
                not in tab.content()
            tab.goto("/token/")
            _expect(tab.locator("pre.response")).to_contain_text("HTTP 401")  # Basic is not its
            _sign_in_with(tab, "token: a bearer token", {"Token": SIGNIN_TOKEN})
            _expect(tab.locator("pre.response")).to_contain_text('"user": "ann"')
            _expect(tab.locator("#api-signin-list li")).to_have_count(1)  # in Basic's place

    def test_browser_signin_flask_httpauths_own_plain_text_401_gets_the_page_and_panel(
            self, chromium, signin_site):
        site = signin_site.serve(SIGNIN_APPS["flask-httpauth-default"]())
        with _open_tab(chromium, site, **PROMPT_CANCELLED) as tab:
            tab.goto("/basic/")
            _expect(tab.locator("pre.response .body")).to_have_text("Unauthorized Access")
            _expect(tab.locator("#api-signin")).to_contain_text(
                'This answer asks for HTTP Basic (a username and password), realm "Things".')
            _sign_in_with(tab, "Basic: HTTP Basic (a username and password)", {
                "Username": "ann", "Password": "ann-pw"})
            _expect(tab.locator("#api-signin-status")).to_have_text("Signed in with Basic as ann.")
            _expect(tab.locator("pre.response")).to_contain_text('"user": "ann"')

    def test_browser_signin_flask_jwt_extended_bearer_counts_down_to_its_expiry(
            self, chromium, signin_site):
        app = SIGNIN_APPS["flask-jwt-extended"](expires=datetime.timedelta(seconds=3))
        site = signin_site.serve(app)
        token = json.loads(_HTTPClient(site)("/login", json_body={
            "username": "ann", "password": "ann-pw"})[2])["access_token"]
        with _open_tab(chromium, site) as tab:
            tab.goto("/me")
            panel = tab.locator("#api-signin")
            _expect(panel.locator("details")).to_have_attribute("open", "")  # a 401 GET needs it
            _expect(panel).to_contain_text("GET, HEAD: jwt")
            _sign_in_with(tab, "jwt: a bearer token (JWT)", {"Token": token})
            _expect(tab.locator("#api-signin-status")).to_have_text("Signed in with jwt as ann.")
            _expect(tab.locator("pre.response")).to_contain_text('"user": "ann"')
            clock, heading = panel.locator(".clock"), panel.locator("summary")
            _expect(clock).to_have_text(re.compile(r"^expires in 0:0[1-3]$"))
            _expect(heading).to_have_text("Signed in: ann")
            _expect(panel).to_have_class(re.compile(r"\bactive\b"))
            _expect(tab.get_by_label("Token", exact=True)).to_be_hidden()  # folded: signed in
            _expect(clock).to_have_text("expired", timeout=10000)
            status = tab.locator("#api-signin-status")
            _expect(status).to_have_text("The sign-in with jwt has expired: sign in again.")
            _expect(tab.locator("#api-live")).to_have_text(status.inner_text())
            _expect(heading).to_have_text("Sign-in expired: ann")
            _expect(panel).not_to_have_class(re.compile(r"\bactive\b"))
            _expect(tab.get_by_label("Token", exact=True)).to_be_visible()  # to sign in again
            tab.locator(".bar a.button", has_text="GET").click()  # sent with it: the API says no
            _expect(tab.locator("pre.response")).to_contain_text('"msg": "Token has expired"')
            _expect(panel.locator(".clock")).to_have_text("expired")
            _expect(heading).to_have_text("Sign-in expired: ann")  # as the page is built again
            _expect(status).to_have_text("The sign-in with jwt has expired: sign in again.")
            _expect(tab.get_by_label("Token", exact=True)).to_be_visible()
            tab.get_by_label("Token", exact=True).fill(token)  # the same again: no sign-in at all
            tab.get_by_role("button", name="Sign in", exact=True).click()
            exp = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))["exp"]
            _expect(panel.get_by_role("alert")).to_have_text(
                "This token has expired (its exp: {} UTC): paste a fresh one.".format(
                    datetime.datetime.fromtimestamp(exp, datetime.timezone.utc).strftime(
                        "%Y-%m-%d %H:%M:%S")))
            _expect(heading).to_have_text("Sign-in expired: ann")

    def test_browser_signin_apiflask_documented_bearer_and_basic(self, chromium, signin_site):
        site = signin_site.serve(SIGNIN_APPS["apiflask"]())
        with _open_tab(chromium, site, **PROMPT_CANCELLED) as tab:
            tab.goto("/pets")
            _expect(tab.locator("#api-signin")).to_contain_text(
                'This answer asks for a bearer token, realm "Authentication Required".')
            _expect(tab.get_by_label("Sign in with").locator("option:checked")).to_have_text(
                "BearerAuth: a bearer token")  # what the challenge asks for
            _sign_in_with(tab, "BearerAuth: a bearer token", {"Token": SIGNIN_TOKEN})
            _expect(tab.locator("pre.response")).to_contain_text('"Kitty"')
            tab.goto("/me")
            _sign_in_with(tab, "BasicAuth: HTTP Basic (a username and password)", {
                "Username": "ann", "Password": "ann-pw"})
            _expect(tab.locator("pre.response")).to_contain_text('"user": "ann"')

    def test_browser_signin_flask_smorest_api_key_and_bearer_together(self, chromium, signin_site):
        _skip_where_the_library_breaks_errors("flask-smorest")
        site = signin_site.serve(SIGNIN_APPS["flask-smorest"]())
        with _open_tab(chromium, site) as tab:
            tab.goto("/things/")
            _expect(tab.locator("#api-signin")).to_contain_text("GET, HEAD: bearerAuth")
            _expect(tab.locator("#api-signin")).to_contain_text("POST: apiKey")
            _sign_in_with(tab, "bearerAuth: a bearer token", {"Token": SIGNIN_TOKEN})
            _expect(tab.locator("pre.response")).to_contain_text('"kettle"')
            _sign_in_with(tab, "apiKey: an API key in the header X-API-Key", {
                "API key (X-API-Key)": SIGNIN_API_KEY})
            _expect(tab.locator("#api-signin-list li")).to_have_count(2)
            _expect(tab.locator("#api-signin summary")).to_have_text(
                "Signed in: bearerAuth, apiKey")
            _raw_tab(tab)
            tab.get_by_label("Content").fill("{}")
            tab.get_by_role("button", name="POST", exact=True).click()
            _expect(tab.locator("pre.response")).to_contain_text('"added": true')

    @pytest.mark.parametrize("name", ["flask-login-401", "flask-login"])
    def test_browser_signin_flask_login_as_a_user_meets_it(self, chromium, signin_site, name):
        site = signin_site.serve(SIGNIN_APPS[name]())
        with _open_tab(chromium, site) as tab:
            tab.goto("/me")
            if name == "flask-login-401":  # the page says what the document says of its cookie
                _expect(tab.locator("pre.response")).to_contain_text("HTTP 401")
                _choose(tab, "session: an API key in the cookie session")
                _expect(tab.locator("#api-signin")).to_contain_text("Sign in at /login: its "
                                                                    "session cookie.")
                tab.goto("/login")
            assert tab.url.startswith(site + "/login")  # the login view: the app's own page
            tab.get_by_label("Username").fill("ann")
            tab.get_by_label("Password").fill("ann-pw")
            tab.get_by_role("button", name="Sign in").click()
            tab.wait_for_url(site + "/me")
            _expect(tab.locator("pre.response")).to_contain_text('"user": "ann"')

    def test_browser_signin_api_keys_in_a_header_a_query_and_a_cookie(self, chromium, signin_site):
        site = signin_site.serve(SIGNIN_APPS["api-keys"]())
        with _open_tab(chromium, site) as tab:
            sent = []
            tab.on("request", lambda request: sent.append(request.url))
            tab.goto("/header/")
            _sign_in_with(tab, "headerKey: an API key in the header X-API-Key", {
                "API key (X-API-Key)": SIGNIN_API_KEY})
            _expect(tab.locator("pre.response")).to_contain_text('"place": "header"')
            tab.goto("/query/")
            _sign_in_with(tab, "queryKey: an API key in the query parameter api_key", {
                "API key (api_key)": SIGNIN_API_KEY})
            _expect(tab.locator("pre.response")).to_contain_text('"place": "query"')
            _expect(tab.locator("pre.response")).to_contain_text("GET /query/\n")
            assert site + "/query/?api_key=" + SIGNIN_API_KEY in sent  # in the fetch's URL only
            tab.locator(".crumbs a").first.click()  # followed with it, and into the history
            # the root's answer shown (after its pushState): not its text "GET /", which
            # "GET /query/" contains, to Playwright, which trims and collapses white space
            _expect(tab.locator("pre.response")).to_have_attribute(
                "data-url", re.compile("^({})?/$".format(re.escape(site))))
            tab.evaluate("history.back()")  # in the page: after its pushState, whatever the load
            _expect(tab.locator("pre.response")).to_contain_text('"place": "query"')
            assert tab.url == site + "/query/" and SIGNIN_API_KEY not in tab.content()
            assert all(SIGNIN_API_KEY not in url for url in tab.evaluate("""() => [...document
                .querySelectorAll("[href], [data-url]")].map((node) => node.href ||
                node.dataset.url)"""))
            tab.goto("/cookie/")
            _sign_in_with(tab, "cookieKey: an API key in the cookie api_key", {
                "API key (api_key)": SIGNIN_API_KEY})
            _expect(tab.locator("pre.response")).to_contain_text('"place": "cookie"')
            cookie, = [one for one in tab.context.cookies() if one["name"] == "api_key"]
            assert (cookie["value"], cookie["sameSite"], cookie["path"]) == (
                SIGNIN_API_KEY, "Strict", "/") and cookie["expires"] == -1  # the browser's session
            tab.get_by_role("button", name="Sign out of cookieKey").click()
            _expect(tab.locator("#api-signin-status")).to_have_text("Signed out of cookieKey.")
            _expect(tab.locator("pre.response")).to_contain_text("HTTP 401")
            assert [one for one in tab.context.cookies() if one["name"] == "api_key"] == []

    def test_browser_signin_without_javascript_basic_is_the_browsers_own_prompt(
            self, chromium, signin_site):
        site = signin_site.serve(SIGNIN_APPS["flask-httpauth"]())
        with _open_tab(chromium, site, java_script_enabled=False,
                       http_credentials={"username": "ann", "password": "ann-pw"}) as tab, \
                _open_tab(chromium, site, java_script_enabled=False, **PROMPT_CANCELLED) as plain:
            assert tab.goto("/basic/").status == 200  # the 401's WWW-Authenticate: Basic, answered
            _expect(tab.locator("pre.response")).to_contain_text('"user": "ann"')
            response = plain.goto("/basic/")
            assert response.status == 401 and response.headers["www-authenticate"] == \
                'Basic realm="Things"'
            _expect(plain.locator("#api-signin")).to_have_text(
                "Signing in from this page needs JavaScript. Without it, your browser asks for a "
                "username and password itself where the API answers with an HTTP Basic challenge; "
                "a token, an API key or OAuth needs JavaScript, or another client (curl).")

    @pytest.mark.parametrize("theme", ["light", "dark"])
    @pytest.mark.parametrize("name", sorted(_SIGNIN_STATES))
    def test_axe_finds_nothing_on_any_state_of_the_sign_in_panel(
            self, chromium, oauth_server, signin_site, name, theme):
        with _signin_state_tab(chromium, oauth_server, signin_site, name, theme) as tab:
            _expect(tab.locator("#api-signin details")).to_have_attribute("open", "")
            assert _axe(tab) == []

    @pytest.mark.parametrize("name", ["client credentials", "signed in, with a refresh token",
                                      "HTTP Basic asked"])
    def test_the_sign_in_panels_targets_are_24_px_at_least(self, chromium, oauth_server,
                                                           signin_site, name):
        with _signin_state_tab(chromium, oauth_server, signin_site, name) as tab:
            sizes = tab.evaluate("""() => [...document.querySelectorAll(
                "#api-signin :is(button, input, select, summary, a)")].filter((node) =>
                node.getClientRects().length).map((node) => [  // those shown (a form folded)
                node.outerHTML.slice(0, 60), Math.min(node.getBoundingClientRect().width,
                                                      node.getBoundingClientRect().height)])""")
            assert len(sizes) >= 4 and [shown for shown, side in sizes if side < 24] == []

    def test_the_sign_in_panel_on_a_phone_has_44_px_targets_and_axe_finds_nothing(
            self, chromium, oauth_server):
        with _open_tab(chromium, oauth_server.api_url, viewport={"width": 390, "height": 844},
                       is_mobile=True, has_touch=True) as tab:
            tab.goto("/things/")
            _choose(tab, "oauth: OAuth 2.0, client credentials")
            sizes = tab.evaluate("""() => [...document.querySelectorAll(
                "#api-signin :is(button, input, select, summary)")].map((node) => [
                node.outerHTML.slice(0, 60), Math.min(node.getBoundingClientRect().width,
                                                      node.getBoundingClientRect().height)])""")
            assert len(sizes) >= 6 and [shown for shown, side in sizes if side < 44] == []
            assert _axe(tab) == []
            assert tab.evaluate("document.documentElement.scrollWidth") <= 390

    def test_the_keyboard_alone_chooses_a_way_signs_in_and_signs_out(self, chromium, signin_site):
        site = signin_site.serve(SIGNIN_APPS["flask-httpauth"]())
        with _open_tab(chromium, site) as tab:
            tab.goto("/token/")
            _tab_to(tab, "#api-signin-way")
            tab.keyboard.press("ArrowUp")  # another way, and its fields
            _expect(tab.get_by_label("Username")).to_be_visible()
            tab.keyboard.press("ArrowDown")
            tab.keyboard.press("Tab")
            _expect(tab.get_by_label("Token")).to_be_focused()
            tab.keyboard.type(SIGNIN_TOKEN)
            tab.keyboard.press("Enter")
            status = tab.locator("#api-signin-status")
            _expect(status).to_have_text("Signed in with token.")
            _expect(status).to_be_focused()
            _expect(tab.locator("#api-live")).to_have_text(re.compile(
                r"^Signed in with token\. HTTP 200 OK: 1 key: first byte in"))
            tab.keyboard.press("Tab")
            _expect(tab.get_by_role("button", name="Sign out of token")).to_be_focused()
            tab.keyboard.press("Enter")
            _expect(status).to_have_text("Signed out of token.")
            _expect(status).to_be_focused()
            _expect(tab.locator("#api-live")).to_have_text(re.compile(
                r"^Signed out of token\. HTTP 401 "))


# ---------------------------------------------------------------------------
# Flask-API 3.x compatibility
# ---------------------------------------------------------------------------

_ALONE_SCRIPT = """
import json, os, sys
import flask_api
from flask_api import FlaskAPI, status
from flask_api.exceptions import NotFound

app = FlaskAPI(__name__)

@app.route("/")
def index():
    return {"alone": True}, status.HTTP_201_CREATED

response = app.test_client().get("/")
print(json.dumps({"file": os.path.abspath(flask_api.__file__), "path": sys.path,
                  "status": response.status_code, "body": response.get_json()}))
"""


class LegacyErrorsApp(FlaskAPI):
    """A Flask-API 3.x app's override: its own error body, built with response_class."""

    seen = []  # type: list

    def handle_api_exception(self, exc):
        self.seen.append((type(exc.status_code), exc.status_code, type(exc.detail)))
        return self.response_class({"message": exc.detail}, status=exc.status_code)


@pytest.fixture
def legacy_client():
    app = LegacyErrorsApp(__name__)
    app.config["MAX_CONTENT_LENGTH"] = 10
    LegacyErrorsApp.seen = []

    @app.route("/thing", methods=["GET", "POST"])
    def thing():
        if flask.request.method == "POST":
            return {"got": flask.request.data}
        raise PermissionDenied()

    @app.route("/forbidden")
    def forbidden():
        abort(403)

    return app.test_client()


class TestFlaskAPI3Compatibility:
    """Code written for Flask-API 3.x: its import paths, overrides and answers."""

    def test_flask_api_3x_import_paths_still_work(self):
        import flask_api.mediatypes
        import flask_api.negotiation
        import flask_api.settings
        from flask_api.decorators import set_renderers as compat_set_renderers
        from flask_api.exceptions import NotFound as CompatNotFound
        from flask_api.renderers import JSONRenderer as CompatJSONRenderer

        from flask_api import FlaskAPI as CompatFlaskAPI
        from flask_api import exceptions, parsers, renderers

        assert CompatFlaskAPI is FlaskAPI and CompatNotFound is NotFound
        assert compat_set_renderers is set_renderers and CompatJSONRenderer is JSONRenderer
        assert exceptions.PermissionDenied is PermissionDenied
        assert parsers.JSONParser is JSONParser and renderers.HTMLRenderer is HTMLRenderer
        assert flask_api.mediatypes.MediaType is MediaType
        assert flask_api.negotiation.DefaultNegotiation is flask_api.DefaultNegotiation
        assert [JSONRenderer] == flask_api.settings.APISettings(
            {"DEFAULT_RENDERERS": ["flask_api.renderers.JSONRenderer"]}
        ).DEFAULT_RENDERERS

    def test_flask_api_py_works_alone_copied_into_an_empty_directory(self, tmp_path):
        shutil.copy(flask_api.__file__, str(tmp_path / "flask_api.py"))
        env = dict(os.environ, PYTHONPATH=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
        result = subprocess.run(
            [sys.executable, "-c", _ALONE_SCRIPT], cwd=str(tmp_path), env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["file"] == str(tmp_path / "flask_api.py")
        repo = os.path.dirname(os.path.abspath(flask_api.__file__))
        assert repo not in [os.path.abspath(entry) for entry in report["path"] if entry]
        assert (report["status"], report["body"]) == (201, {"alone": True})

    def test_flask_api_3_style_apiresponse_renders_by_negotiation(self, app, client):
        from flask_api.response import APIResponse

        @app.route("/")
        def view():
            return APIResponse({"made": "by hand"}, status=201)

        as_json = client.get("/", headers={"Accept": "application/json"})
        assert as_json.status_code == 201
        assert as_json.get_json() == {"made": "by hand"}
        assert as_json.headers["Vary"] == "Accept"
        as_page = client.get("/", headers={"Accept": "text/html"})
        assert as_page.status_code == 201
        assert as_page.mimetype == "text/html" and "by hand" in as_page.get_data(as_text=True)

    def test_response_class_is_apiresponse_and_renders_lists_and_dicts_in_views(self, app, client):
        from flask_api.response import APIResponse
        assert app.response_class is APIResponse

        @app.route("/")
        def view():
            return app.response_class({"made": "by hand"}, status=201)

        response = client.get("/")
        assert (response.status_code, response.mimetype) == (201, "application/json")
        assert response.data == b'{"made": "by hand"}'
        assert response.headers["Vary"] == "Accept"
        page = client.get("/", headers={"Accept": BROWSER_ACCEPT})
        assert page.mimetype == "text/html" and "by hand" in page.get_data(as_text=True)

    @pytest.mark.parametrize("method, path, body, code", [
        ("GET", "/thing", None, 403),
        ("GET", "/nowhere", None, 404),
        ("PUT", "/thing", None, 405),
        ("POST", "/thing", b'{"text": "far too long"}', 413),
        ("GET", "/forbidden", None, 403),
    ])
    def test_a_3x_handle_api_exception_override_gets_detail_and_status_of_every_error(
            self, legacy_client, method, path, body, code):
        response = legacy_client.open(path, method=method, data=body,
                                      content_type="application/json")
        assert response.status_code == code
        assert response.mimetype == "application/json"
        assert isinstance(_json(response)["message"], str) and _json(response)["message"]
        assert LegacyErrorsApp.seen == [(int, code, str)]

    def test_a_3x_override_of_handle_api_exception_renders_by_negotiation(self, legacy_client):
        page = legacy_client.get("/thing", headers={"Accept": BROWSER_ACCEPT})
        assert page.status_code == 403 and page.mimetype == "text/html"
        assert "You do not have permission" in page.get_data(as_text=True)

    def test_error_handler_may_answer_with_response_class_and_data(self, app, client):
        class Teapot(Exception):
            pass

        @app.errorhandler(Teapot)
        def teapot(exc):
            return app.response_class({"short": "stout"}, status=418)

        @app.route("/")
        def view():
            raise Teapot()

        response = client.get("/")
        assert (response.status_code, response.mimetype) == (418, "application/json")
        assert _json(response) == {"short": "stout"}

    def test_malformed_body_answer_is_byte_for_byte_the_specifications(self, notes_client):
        response = notes_client.post("/", data=b"{", content_type="application/json")
        assert response.status_code == 400
        assert response.data == b'{"detail": "Malformed request."}'

    @pytest.mark.parametrize("handles, code, body", [(True, 200, b"<empty>"), (False, 204, b"")])
    def test_handles_empty_responses_renders_none_204_as_in_3x(self, app, client, handles, code,
                                                               body):
        class EmptyAware(BaseRenderer):
            media_type = "text/plain"
            handles_empty_responses = handles

            def render(self, data, media_type, **options):
                return "<empty>" if data == "" else "data"

        @app.route("/", methods=["DELETE"])
        @set_renderers(EmptyAware)
        def view():
            return None, 204

        response = client.delete("/")
        assert (response.status_code, response.data) == (code, body)

    def test_a_custom_parser_with_3x_signature_gets_only_content_length(self, app, client):
        class Upper(BaseParser):
            media_type = "text/plain"

            def parse(self, stream, media_type, content_length=None):
                return {"text": stream.read().decode("utf-8").upper(), "length": content_length}

        @app.route("/", methods=["POST"])
        @set_parsers(Upper)
        def view():
            return flask.request.data

        response = client.post("/", data="shout", content_type="text/plain")
        assert response.status_code == 200
        assert _json(response) == {"text": "SHOUT", "length": 5}

    def test_base_negotiation_is_abstract_with_3x_messages(self):
        from flask_api.negotiation import BaseNegotiation, DefaultNegotiation
        assert issubclass(DefaultNegotiation, BaseNegotiation)
        with pytest.raises(NotImplementedError, match=r'`select_renderer\(\)` method must be '
                                                      r'implemented for class "BaseNegotiation"'):
            BaseNegotiation().select_renderer([])
        with pytest.raises(NotImplementedError, match=r'`select_parser\(\)` method must be '
                                                      r'implemented for class "BaseNegotiation"'):
            BaseNegotiation().select_parser([])

    def test_app_api_settings_reads_the_apps_config(self, app):
        app.config["DEFAULT_RENDERERS"] = ["flask_api.renderers.JSONRenderer"]
        renderers = app.api_settings.DEFAULT_RENDERERS
        assert renderers == [JSONRenderer]


# ---------------------------------------------------------------------------
# The page template: its script as code
# ---------------------------------------------------------------------------

class TestPageTemplate:
    """The page's sources in page/ are what flask_api.py holds; its script and style run as
    written. (node --check and eslint on each file of the script, which need npm ci, are
    test_page_lint.py's: CI and ``nox -s page-lint`` run them.)"""

    def test_page_block_in_flask_api_is_what_the_page_files_make(self):
        from tools import page
        assert page.is_written(), "page/ and flask_api.py differ: run python tools/page.py"

    def test_page_files_are_the_markup_style_and_script_flask_api_holds(self):
        from tools import page
        with open(os.path.join(page.PAGE, "script", "03-signing-in.js"), encoding="utf-8") as js:
            signing_in = js.read()
        assert signing_in.startswith("// ---- Signing in:") and signing_in in flask_api._PAGE_SCRIPT
        with open(os.path.join(page.PAGE, "page.css"), encoding="utf-8") as css:
            assert "\n" + css.read() == flask_api._PAGE_STYLE
        assert "{% block script %}" in flask_api._PAGE_MARKUP

    def test_page_runs_its_script_and_style_as_flask_api_writes_them(self, notes_client):
        html = notes_client.get("/1/", headers={"Accept": BROWSER_ACCEPT}).get_data(as_text=True)
        assert html.startswith("<!DOCTYPE html>")  # the markup file's opening comment leaves none
        script = re.search(r'<script src="([^"]+)"></script>', html).group(1)
        style = re.search(r'<link rel="stylesheet" href="([^"]+)">', html).group(1)
        served = notes_client.get(script).get_data(as_text=True)
        assert served == _served_script()  # the module's, its lines of comment left empty
        assert served.count("\n") == flask_api._PAGE_SCRIPT.count("\n")
        assert "// ---- Signing in" not in served and "function signinPanel()" in served
        assert notes_client.get(style).get_data(as_text=True) == flask_api._PAGE_STYLE

    def test_page_script_that_ships_hands_nothing_to_the_tests(self):
        from tools import page
        assert "handOver" not in flask_api._PAGE_SCRIPT
        assert "flask-api:script" not in flask_api._PAGE_SCRIPT
        tests_build = page.script(tests=True)
        assert tests_build.startswith(flask_api._PAGE_SCRIPT[1:-len(page.SCRIPT_CLOSE)])
        assert "function handOver()" in tests_build

    def test_page_script_writes_counts_and_times_of_day_as_intl_does(self, script_parts):
        # its own grouped() and timeOfDay(), as a tab's first Intl object costs a first visit
        # 20 ms (ICU starting): each the same text as Intl's, so the page reads the same
        numbers = [0, 1, 12, 999, 1000, 12345, 999999, 1000000, 104857600, 2 ** 53, -1, -1234]
        times = [0, 86399999, 1700000000000, 1700000000000 + 13 * 3600000 + 5 * 60000 + 9000]
        counts, clocks = _js(script_parts, """([numbers, times]) => [
            numbers.map((n) => [parts.grouped(n), new Intl.NumberFormat("en").format(n)]),
            times.map((at) => [parts.timeOfDay(at), new Intl.DateTimeFormat("en-GB",
              {hour: "2-digit", minute: "2-digit", second: "2-digit"}).format(at)])]""",
                             [numbers, times])
        assert [mine for mine, intl in counts] == [intl for mine, intl in counts] == [
            "0", "1", "12", "999", "1,000", "12,345", "999,999", "1,000,000", "104,857,600",
            "9,007,199,254,740,992", "-1", "-1,234"]
        assert [mine for mine, intl in clocks] == [intl for mine, intl in clocks]
        assert all(re.fullmatch(r"[0-2][0-9]:[0-5][0-9]:[0-5][0-9]", mine) for mine, _ in clocks)


# ---------------------------------------------------------------------------
# The page template: Request headers
# ---------------------------------------------------------------------------

def _without_csp(app):
    """The app's pages as a proxy that drops headers would pass them on: without the CSP."""
    def wsgi(environ, start_response):
        def start(status, headers, exc_info=None):
            return start_response(status, [(name, value) for name, value in headers
                                            if name.lower() != "content-security-policy"],
                                  exc_info)
        return app(environ, start)
    return wsgi


class TestRequestHeaders:
    """The headers panel: headers kept for this tab, checked, sent to this site only."""

    def test_browser_headers_panel_sends_a_token_on_every_link_and_back_forward(
            self, tab, live_site):
        site = live_site.serve(_guarded_app())
        tab.goto(site + "/")
        response = tab.locator("pre.response")
        _expect(response).to_contain_text("HTTP 401")
        _add_header(tab, "Authorization", "Bearer s3cret")
        _expect(response).to_contain_text("HTTP 200 OK")
        _expect(tab.locator("#api-headers summary")).to_have_text("Request headers: Authorization")
        tab.get_by_role("link", name=site + "/things/").click()
        _expect(tab.locator("h1")).to_have_text("Guarded Things")
        assert tab.url == site + "/things/"
        tab.get_by_role("link", name=site + "/things/2/").click()
        _expect(response).to_contain_text('"key": 2')
        tab.get_by_role("link", name="things").click()  # a breadcrumb
        _expect(tab.locator("h1")).to_have_text("Guarded Things")
        tab.go_back()
        _expect(response).to_contain_text('"key": 2')
        assert tab.url == site + "/things/2/"
        tab.go_back()
        tab.go_back()
        _expect(tab.locator("h1")).to_have_text("Guarded Root")
        tab.go_forward()
        _expect(tab.locator("h1")).to_have_text("Guarded Things")
        _expect(response).to_contain_text("HTTP 200 OK")
        tab.get_by_role("button", name="Clear headers").click()
        _expect(response).to_contain_text("HTTP 401")
        _expect(tab.locator("#api-headers summary")).to_have_text("Request headers")
        # what is left is the history, which keeps a header's name, never its value
        assert tab.evaluate("Object.keys(sessionStorage)") == ["flask-api-history"]
        assert "s3cret" not in tab.evaluate("JSON.stringify(sessionStorage)")

    def test_browser_refuses_a_header_value_that_http_cannot_carry_and_keeps_working(
            self, tab, notes_site):
        tab.goto("/")
        tab.locator("#api-headers summary").click()
        for name, value in (("X-Token", "t\u20acst"), ("X-Token", "caf" + "e\u0301"),
                            ("Cookie", "a=1"), ("Bad Name", "x")):
            tab.get_by_label("Header name").fill(name)
            tab.get_by_label("Header value").fill(value)
            tab.get_by_role("button", name="Add header").click()
            _expect(tab.get_by_role("alert")).not_to_be_empty()
        assert tab.evaluate("sessionStorage.getItem('flask-api-headers')") is None
        tab.reload()
        _add_header(tab, "X-Token", "caf\u00e9")  # Latin-1: fine
        tab.get_by_role("link", name=notes_site + "/1/").click()
        _expect(tab.locator("h1")).to_have_text("Notes Detail")

    def test_browser_ignores_a_stored_header_it_cannot_send(self, tab, notes_site):
        tab.goto("/")
        tab.evaluate("""sessionStorage.setItem("flask-api-headers",
            JSON.stringify([["X-Token", "t\u20acst"], ["X-Fine", "1"]]))""")
        tab.reload()
        _expect(tab.locator("#api-headers summary")).to_have_text("Request headers: X-Fine")
        tab.get_by_role("link", name=notes_site + "/1/").click()
        _expect(tab.locator("h1")).to_have_text("Notes Detail")

    def test_browser_never_sends_stored_headers_to_another_site_even_without_the_csp(
            self, tab, live_site, elsewhere):
        app = FlaskAPI(__name__)

        @app.route("/")
        def leaky_root():
            return {"away": url_for("leaky_away", _external=True)}

        @app.route("/away")
        def leaky_away():
            return flask.redirect(elsewhere.url + "/catch")
        site = live_site.serve(_without_csp(app))
        tab.goto(site + "/")
        assert "Content-Security-Policy" not in tab.evaluate(
            "fetch('/').then(r => [...r.headers.keys()].join())")
        _add_header(tab, "X-Secret", "s3cret")
        tab.get_by_role("link", name=site + "/away").click()  # a redirect to another site
        _expect(tab.locator("pre.response")).to_contain_text(
            "not followed with your request headers")
        _expect(tab.locator("pre.response a[data-plain]")).to_be_visible()  # a plain visit
        # a path that reads as a protocol-relative URL: the query form stays on this site
        tab.goto(site + "//" + elsewhere.url.split("//")[1] + "/x")
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 404")
        tab.locator("#api-query summary").click()
        tab.get_by_label("Parameter name").first.fill("q")
        tab.get_by_role("button", name="Send GET").click()
        _expect(tab.locator("pre.response")).to_contain_text("?q=")
        assert [seen for seen in elsewhere.seen if "HTTP_X_SECRET" in seen] == []

    @pytest.mark.parametrize("name, value, problem", [
        ("Authorization", "Bearer s3cret", ""), ("X-Tab", "a\tb", ""),
        ("x-latin-1", "caf\u00e9 \u00a0\u00ff", ""), ("!#$%&'*+.^_`|~09az-", "", ""),
        ("X Token", "1", "A header name is"), ("X-T\u00f8ken", "1", "A header name is"),
        ("", "1", "A header name is"), ("X:Y", "1", "A header name is"),
        ("Cookie", "a=1", "Browsers do not let a page send Cookie."),
        ("cookie2", "a", "Browsers do not let a page send cookie2."),
        ("Host", "evil.test", "Browsers do not let a page send Host."),
        ("Content-Length", "1", "Browsers do not let a page send"),
        ("Proxy-Authorization", "x", "Browsers do not let a page send"),
        ("Sec-Fetch-Site", "same-origin", "Browsers do not let a page send"),
        ("X-Euro", "\u20ac", "This value has a character"), ("X-Emoji", "\U0001f600", "This value"),
        ("X-Newline", "a\nb", "This value has"), ("X-Return", "a\rb", "This value has"),
        ("X-Nul", "a\0b", "This value has"), ("X-Del", "a\x7fb", "This value has"),
        ("X-Escape", "\x1b[31m", "This value has"),
    ])
    def test_page_script_refuses_headers_a_browser_would_not_send(self, script_parts, name, value,
                                                                   problem):
        found, sendable = _js(script_parts, """(name, value) => {
            let sendable = true;
            try { new Headers([[name, value]]); } catch { sendable = false; }
            return [parts.headerProblem(name, value), sendable];
        }""", name, value)
        assert found.startswith(problem) and bool(found) == bool(problem)
        assert sendable or found  # what the page lets through, fetch() sends

    def test_adding_a_header_leaves_focus_in_the_panel_and_a_refetch_on_back_on_the_response(
            self, chromium, a11y_site):
        with _open_tab(chromium, a11y_site) as tab:
            tab.goto("/")
            _add_header(tab, "X-Token", "abc")
            _expect(tab.get_by_label("Header name")).to_be_focused()
            _expect(tab.locator("#api-live")).to_have_text(re.compile(
                r"^HTTP 200 OK: 3 items: first byte in \d+ ms · \d+ ms in all · [\d,]+ bytes$"))
            tab.locator(".tree a").first.click()  # followed with the header, by fetch
            _expect(tab.locator("pre.response")).to_contain_text("GET /0/")
            _expect(tab.locator("pre.response")).to_be_focused()
            tab.go_back()
            # the root's answer shown: not its text "GET /", which every URL's starts with
            _expect(tab.locator("pre.response")).to_have_attribute(
                "data-url", re.compile(r"^(http://[^/]+)?/$"))
            _expect(tab.locator("pre.response")).to_be_focused()
            tab.reload()
            _expect(tab.locator("#api-refetched")).to_be_visible()
            _expect(tab.locator("pre.response")).to_be_focused()


# ---------------------------------------------------------------------------
# The page template: Requests
# ---------------------------------------------------------------------------

# A user's upload of HTML: each payload, where it runs, sets window.__pwned.
EVIL_HTML = (
    '<!DOCTYPE html><html><head><title>Evil</title></head><body><h1 id="evil">Evil</h1>'
    '<img src="/nothing.png" onerror="window.__pwned = \'img\'">'
    '<iframe srcdoc="<script>parent.__pwned = \'iframe\'</script>"></iframe>'
    '<svg><rect width="9" height="9"><animate attributeName="x" to="1" dur="1s" '
    'onbegin="window.__pwned = \'svg\'"/></rect></svg></body></html>')


def _upload_app(disposition):
    """/ links to /upload/evil.html: a user's upload, served sandboxed and nosniff, with
    ``disposition`` (a download, or inline)."""
    app = FlaskAPI(__name__)

    @app.route("/")
    def uploads():
        return {"upload": url_for("upload", name="evil.html", _external=True)}

    @app.route("/upload/<name>")
    def upload(name):
        return flask.Response(EVIL_HTML, mimetype="text/html", headers={
            "Content-Disposition": disposition, "Content-Security-Policy": "sandbox",
            "X-Content-Type-Options": "nosniff"})
    return app


def _follow_upload_link(tab, site):
    """With a header stored (links are followed with fetch), follow the body's link."""
    tab.goto("/")
    _add_header(tab, "Authorization", "Bearer s3cret")
    tab.get_by_role("link", name=site + "/upload/evil.html").click()


class TestRequests:
    """What the page sends, by link, button and form, and what it swaps in."""

    def test_browser_options_button_shows_what_the_view_accepts(self, tab):
        tab.goto("/1/")
        tab.get_by_role("button", name="OPTIONS").click()
        response = tab.locator("pre.response")
        _expect(response).to_contain_text("OPTIONS /1/")
        _expect(response).to_contain_text('"name": "Notes Detail"')
        _expect(response).to_contain_text("Allow: DELETE, GET, HEAD, OPTIONS, PUT")

    @pytest.mark.parametrize("media_type, content", [
        ("application/json", '{"text": "repainted"}'),
        ("application/x-www-form-urlencoded", "text=repainted"),
        ("multipart/form-data", "text=repainted"),
    ])
    def test_browser_put_from_page_form_updates_note(self, tab, notes_site, media_type, content):
        tab.goto("/1/")
        _raw_tab(tab)
        tab.get_by_label("Media type").select_option(media_type)
        tab.get_by_label("Content").fill(content)
        tab.get_by_role("button", name="PUT").click()
        panel = tab.locator("pre.response")
        _expect(panel).to_contain_text("PUT /1/")
        _expect(panel).to_contain_text('"text": "repainted"')
        assert _api(notes_site, "/1/") == (200, {"url": notes_site + "/1/", "text": "repainted"})

    def test_browser_post_from_list_page_creates_note(self, tab, notes_site):
        tab.goto("/")
        _raw_tab(tab)
        tab.get_by_label("Content").fill('{"text": "water the plants"}')
        tab.get_by_role("button", name="POST").click()
        panel = tab.locator("pre.response")
        _expect(panel).to_contain_text("HTTP 201 Created")
        _expect(tab.get_by_role("link", name=notes_site + "/3/")).to_be_visible()
        assert _api(notes_site, "/3/")[1]["text"] == "water the plants"

    @pytest.mark.parametrize("confirm", [True, False])
    def test_browser_delete_asks_first_and_removes_note_only_when_confirmed(
            self, tab, notes_site, confirm):
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

    @pytest.mark.parametrize("csp", CSP_MODES)
    def test_browser_a_link_to_an_uploaded_html_download_downloads_it_into_nothing(
            self, chromium, live_site, csp):
        site = live_site.serve(_upload_app("attachment; filename=evil.html"))
        with _attack_tab(chromium, site, csp) as tab:
            with tab.expect_download() as download:
                _follow_upload_link(tab, site)
            assert download.value.suggested_filename == "evil.html"
            tab.wait_for_timeout(500)  # time for a payload to run, had any reached the page
            assert tab.evaluate("typeof window.__pwned") == "undefined"
            assert tab.locator("#evil").count() == 0 and tab.url == site + "/"
            _expect(tab.locator("#api-headers summary")).to_contain_text("Authorization")

    def test_browser_a_link_to_an_uploaded_html_page_is_a_visit_under_its_own_sandbox(
            self, chromium, live_site):
        site = live_site.serve(_upload_app("inline"))
        with _open_tab(chromium, site) as tab:  # not without CSPs: the upload's own is its sandbox
            _follow_upload_link(tab, site)
            tab.wait_for_url(site + "/upload/evil.html")
            _expect(tab.locator("#evil")).to_be_visible()
            assert tab.evaluate("window.origin") == "null"  # its own document, sandboxed
            tab.wait_for_timeout(500)
            assert tab.evaluate("typeof window.__pwned") == "undefined"


# ---------------------------------------------------------------------------
# The page template: Coming back
# ---------------------------------------------------------------------------

def _whoami_app():
    """/whoami/: who the ``Authorization`` header says the user is (anyone may ask: a 200,
    which the back-forward cache keeps, where it never keeps a 401)."""
    app = FlaskAPI(__name__)

    @app.route("/")
    def whoami_root():
        return {"whoami": url_for("whoami", _external=True)}

    @app.route("/whoami/")
    def whoami():
        return {"user": "ada" if request.headers.get("Authorization") == "Bearer s3cret" else
                "anonymous"}
    return app


@pytest.fixture
def cached_tab(chromium, live_site):
    """A tab of a browser with its back-forward cache on: Playwright turns it off, so no
    other test reaches the page's pageshow-with-persisted path."""
    browser = chromium.browser_type.launch(
        executable_path=_find_chromium(), headless=True,
        ignore_default_args=["--disable-back-forward-cache"],
        args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
    with _open_tab(browser, live_site.url) as tab:
        yield tab
    browser.close()


def _bump_app(elsewhere):
    """/ links to ``elsewhere``; /bump/ is a GET with a side effect: it counts the requests
    that carry an Authorization header, and says how many it has counted."""
    app = FlaskAPI(__name__)
    app.config["bumps"] = 0

    @app.route("/")
    def start():
        return {"elsewhere": elsewhere}

    @app.route("/bump/")
    def bump():
        app.config["bumps"] += bool(request.headers.get("Authorization"))
        return {"bumps": app.config["bumps"]}
    return app


# How another site sends the user to a URL of the API: in the same tab; in a new tab, which
# starts with a copy of this tab's sessionStorage; or in a new tab that it then sends on to a
# page of its own, which goes Back (a Back of the other site's, with no referrer to tell).
SENDS = {
    "location.href": {"/": "location.href = TARGET"},
    "window.open": {"/": "window.open(TARGET)"},
    "window.open, away and back": {
        "/": "const w = window.open(TARGET); setTimeout(() => { w.location.href = "
             "location.origin + '/back'; }, 1500)",
        "/back": "history.back()"},
}


class TestComingBack:
    """Reloads, Back and Forward, and pages another site sent the user to."""

    def test_browser_reload_and_back_show_what_the_api_answers_with_the_stored_headers(
            self, tab, live_site):
        site = live_site.serve(_guarded_app())
        response = tab.locator("pre.response")
        tab.goto(site + "/")  # loaded by the browser, before any header is stored: a 401
        tab.goto(site + "/things/")
        _expect(response).to_contain_text("HTTP 401")
        _add_header(tab, "Authorization", "Bearer s3cret")
        _expect(response).to_contain_text("HTTP 200 OK")
        tab.reload()
        _expect(tab.locator("#api-refetched")).to_contain_text("Authorization")
        _expect(response).to_contain_text("HTTP 200 OK")
        _expect(tab.locator("h1")).to_have_text("Guarded Things")
        tab.go_back()  # to the page loaded before the header was stored
        _expect(tab.locator("#api-refetched")).to_contain_text("Authorization")
        _expect(tab.locator("h1")).to_have_text("Guarded Root")
        _expect(response).to_contain_text("HTTP 200 OK")
        assert tab.url == site + "/"

    def test_browser_back_then_forward_quickly_shows_the_page_gone_to_not_a_late_answer(
            self, tab, live_site):
        app = FlaskAPI(__name__)

        @app.route("/slow/")
        def slow():
            time.sleep(1)  # an answer still on its way when the user goes Forward
            return {"page": "slow", "fast": url_for("fast", _external=True)}

        @app.route("/fast/")
        def fast():
            return {"page": "fast"}
        site = live_site.serve(app)
        tab.goto(site + "/slow/")
        _add_header(tab, "X-Token", "1")  # links are followed with fetch from here on
        tab.get_by_role("link", name=site + "/fast/").click()
        _expect(tab.locator("pre.response")).to_contain_text('"page": "fast"')
        tab.go_back()  # the slow page is fetched again...
        tab.go_forward()  # ...but the user is on the fast one again before it comes
        _expect(tab.locator("pre.response")).to_contain_text('"page": "fast"')
        tab.wait_for_timeout(1500)
        assert tab.url == site + "/fast/"
        _expect(tab.locator("pre.response")).to_contain_text('"page": "fast"')

    def test_browser_back_to_a_page_kept_in_the_back_forward_cache_shows_it_with_the_headers(
            self, cached_tab, live_site):
        tab = cached_tab
        site = live_site.serve(_whoami_app())
        tab.add_init_script("addEventListener('pageshow', e => { if (e.persisted) "
                            "sessionStorage.setItem('test-restored', '1'); })")
        tab.goto(site + "/whoami/")
        _expect(tab.locator("pre.response")).to_contain_text('"user": "anonymous"')
        tab.goto(site + "/")
        _add_header(tab, "Authorization", "Bearer s3cret")
        tab.go_back(wait_until="commit")  # from the cache, a page has no "load" event
        _expect(tab.locator("pre.response")).to_contain_text('"user": "ada"')
        assert tab.url == site + "/whoami/"
        assert tab.evaluate("sessionStorage.getItem('test-restored')") == "1"  # the path pinned

    @pytest.mark.parametrize("how", sorted(SENDS))
    def test_browser_another_site_sending_the_user_to_the_api_sends_no_stored_header(
            self, tab, live_site, other_site, how):
        app = _bump_app(other_site.url + "/")
        site = live_site.serve(app)
        other_site.serve(_pages_running(
            {path: script.replace("TARGET", json.dumps(site + "/bump/"))
             for path, script in SENDS[how].items()},
            "no-referrer" if "back" in how else "strict-origin-when-cross-origin"))
        tab.goto(site + "/")
        _add_header(tab, "Authorization", "Bearer s3cret")
        if how == "location.href":
            tab.get_by_role("link", name=other_site.url + "/").click()
            shown = tab
        else:
            with tab.context.expect_page() as opened:
                tab.get_by_role("link", name=other_site.url + "/").click()
            shown = opened.value
        shown.wait_for_url(site + "/bump/")
        if "back" in how:  # there, away, and back again
            shown.wait_for_url(other_site.url + "/back")
            shown.wait_for_url(site + "/bump/")
        again = shown.get_by_role("button", name="Fetch again with your stored headers")
        _expect(again).to_be_visible()
        _expect(shown.locator("pre.response")).to_contain_text('"bumps": 0')  # as loaded
        assert app.config["bumps"] == 0
        again.click()  # the user's own choice
        _expect(shown.locator("pre.response")).to_contain_text('"bumps": 1')
        _expect(shown.locator("#api-refetched")).to_contain_text("Authorization")
        assert app.config["bumps"] == 1


# ---------------------------------------------------------------------------
# The page template: The query form
# ---------------------------------------------------------------------------

class TestQueryForm:
    """This URL's parameters, edited and sent."""

    def test_browser_query_form_edits_parameters_and_link_next_is_followed(self, tab, live_site):
        site = live_site.serve(_things_app())
        tab.goto(site + "/items/?page=1&size=2")
        _expect(tab.locator("pre.response")).to_contain_text('"keys": [\n        0,\n        1')
        values = tab.get_by_label("Parameter value")
        values.nth(1).fill("3")
        tab.get_by_role("button", name="Add parameter").click()
        tab.get_by_label("Parameter name").nth(2).fill("extra")
        tab.get_by_label("Parameter value").nth(2).fill("x y")
        tab.get_by_role("button", name="Send GET").click()
        tab.wait_for_url(site + "/items/?page=1&size=3&extra=x+y")
        tab.get_by_role("button", name="Remove").nth(2).click()
        tab.get_by_role("button", name="Send GET").click()
        tab.wait_for_url(site + "/items/?page=1&size=3")
        header_link = tab.locator("pre.response a", has_text="/items/?page=2&size=3")
        _expect(header_link).to_have_attribute("href", "/items/?page=2&size=3")
        tab.locator("a[rel=next]").click()
        tab.wait_for_url(site + "/items/?page=2&size=3")
        _expect(tab.locator("pre.response")).to_contain_text('"page": 2')


# ---------------------------------------------------------------------------
# The page template: The response panel
# ---------------------------------------------------------------------------

def _no_content_app(flask_class):
    """/things/ and /things/<n>/, whose DELETE answers ``"", 204`` (the Flask idiom)."""
    app = flask_class(__name__)
    things = {1: "lamp", 2: "desk"}

    @app.route("/things/")
    def things_list():
        return flask.jsonify(sorted(things))

    @app.route("/things/<int:key>/", methods=["GET", "DELETE"])
    def thing(key):
        if request.method == "DELETE":
            things.pop(key, None)
            return "", 204
        return flask.jsonify(key=key, name=things.get(key))
    if flask_class is Flask:
        BrowsableAPI(app)
    return app


def _send(tab, method):
    """Send a request from the page's form (or its DELETE button) and wait for its answer."""
    if method == "DELETE":
        tab.once("dialog", lambda dialog: dialog.accept())
    if method == "GET":
        tab.locator(".bar a.button", has_text="GET").first.click()
    else:
        tab.get_by_role("button", name=method, exact=True).click()
    _expect(tab.locator("pre.response")).to_contain_text(method + " /")


class TestResponsePanel:
    """A response shown, focused and announced."""

    @pytest.mark.parametrize("flask_class", [FlaskAPI, Flask], ids=["FlaskAPI", "BrowsableAPI"])
    def test_browser_a_delete_answered_204_shows_its_status_and_a_way_on(
            self, tab, live_site, flask_class):
        site = live_site.serve(_no_content_app(flask_class))
        tab.goto(site + "/things/1/")
        tab.on("dialog", lambda dialog: dialog.accept())
        tab.get_by_role("button", name="DELETE").click()
        panel = tab.locator("pre.response")
        _expect(panel).to_contain_text("DELETE /things/1/")
        _expect(panel).to_contain_text("HTTP 204")
        _expect(panel).to_contain_text("No content.")
        tab.get_by_role("link", name="Go to things").click()
        tab.wait_for_url(site + "/things/")
        _expect(tab.locator("pre.response")).to_contain_text("[\n    2\n]")

    @pytest.mark.parametrize("method, path, said", [
        ("GET", "/0/", "HTTP 200 OK: 3 keys"), ("POST", "/", "HTTP 201 Created: 2 keys"),
        ("PUT", "/0/", "HTTP 200 OK: 3 keys"), ("PATCH", "/0/", "HTTP 200 OK: 3 keys"),
        # the wire's status text: "NO CONTENT" before werkzeug 3.2, "No Content" from it on
        ("DELETE", "/2/", "HTTP {}: No content.".format(flask.Response(status=204).status))])
    def test_after_a_send_focus_is_on_the_response_and_its_status_is_announced(
            self, chromium, a11y_site, method, path, said):
        with _open_tab(chromium, a11y_site) as tab:
            tab.goto(path)
            if method == "GET":  # a plain link, as the browser loads it, unless headers are set
                _add_header(tab, "X-Token", "abc")
            _send(tab, method)
            _expect(tab.locator("pre.response")).to_be_focused()
            # the status and what was received, then the request's timing line (#32)
            _expect(tab.locator("#api-live[role=status]")).to_have_text(re.compile(
                re.escape(said) + r": first byte in \d+ ms · \d+ ms in all · [\d,]+ bytes$"))


# ---------------------------------------------------------------------------
# The page template: The form tab
# ---------------------------------------------------------------------------

# (kind, text, checked, null box checked, blank field, JSON sent or None for left out)
FIELDS = [
    ("string", 'say "hi"\n', False, False, False, '"say \\"hi\\"\\n"'),
    ("string", "", False, False, False, '""'), ("string", "", False, False, True, None),
    ("null", "now text", False, False, False, '"now text"'),
    ("string", "x", False, True, False, "null"), ("json", "{}", False, True, True, "null"),
    ("boolean", "", True, False, False, "true"), ("boolean", "", False, False, True, "false"),
    ("number", " 12.50 ", False, False, False, "12.50"),
    ("number", "9007199254740993", False, False, False, "9007199254740993"),
    ("number", "-1e400", False, False, False, "-1e400"),
    ("json", '{"a": 2.0, "a": [1e400]}', False, False, False, '{"a": 2.0, "a": [1e400]}'),
]


class TestFormTab:
    """The request form's fields from the body, sent back without loss; the raw box."""

    def test_browser_form_tab_sends_a_put_that_keeps_each_value_type(self, tab, live_site):
        app = _things_app()
        site = live_site.serve(app)
        tab.goto(site + "/thing/")
        _expect(tab.get_by_role("tab", name="HTML form")).to_have_attribute("aria-selected", "true")
        _expect(tab.get_by_label("Content")).to_be_hidden()
        _expect(tab.get_by_label("price", exact=True)).to_have_value("9.5")
        _expect(tab.get_by_label("note", exact=True)).to_have_value("")
        tab.get_by_label("name", exact=True).fill("desk")
        tab.get_by_label("count", exact=True).fill("7")
        tab.get_by_label("lit", exact=True).check()
        tab.get_by_label("tags", exact=True).fill('["a", 1]')
        tab.get_by_role("button", name="PUT", exact=True).click()
        _expect(tab.locator("pre.response")).to_contain_text("PUT /thing/")
        assert app.config["things"]["thing"] == {
            "name": "desk", "count": 7, "price": 9.5, "lit": True, "note": None,
            "tags": ["a", 1], "size": {"w": 1}}
        # a JSON box that is not JSON is reported, and nothing is sent
        tab.get_by_label("size", exact=True).fill("{w: 2")
        tab.get_by_role("button", name="PATCH", exact=True).click()
        message = tab.get_by_label("size", exact=True).evaluate("box => box.validationMessage")
        assert message.startswith("Not JSON")
        assert app.config["things"]["thing"]["size"] == {"w": 1}

    def test_browser_raw_tab_stays_the_default_for_data_without_fields(self, tab, live_site):
        app = notes_app.create_app(notes={})
        app.view_functions["notes_list"].openapi = None  # no body schema: no form from one (#31)
        site = live_site.serve(app)
        tab.goto(site + "/")  # an empty list: no fields to offer
        _expect(tab.locator("pre.response")).to_contain_text("[]")
        assert tab.get_by_role("tab").count() == 0
        tab.get_by_label("Content").fill('{"text": "first"}')
        tab.get_by_role("button", name="POST").click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 201 Created")
        # the list now has items: its form tab offers their fields, blank
        tab.goto(site + "/")
        _expect(tab.get_by_label("text", exact=True)).to_have_value("")
        tab.get_by_label("text", exact=True).fill("second")
        tab.get_by_role("button", name="POST").click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 201 Created")
        assert _api(site, "/1/")[1]["text"] == "second"  # its blank url field was left out

    def test_browser_error_page_offers_no_form_fields_from_the_error_body(self, tab):
        tab.goto("/99/")  # a 404: {"detail": ...} is not a note to edit
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 404")
        assert tab.get_by_label("detail", exact=True).count() == 0
        # the form's fields are those the PUT's documented body has (#31), filled from its example
        _expect(tab.get_by_label("text", exact=True)).to_have_value("buy milk")
        tab.get_by_label("text", exact=True).fill("made here")
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 200 OK")
        _expect(tab.locator("pre.response")).to_contain_text('"text": "made here"')

    def test_browser_form_tab_sends_back_what_javascript_would_lose(self, tab, tree_site):
        app, site = tree_site
        tab.goto(site + "/thing/")
        _expect(tab.get_by_label("big", exact=True)).to_have_value("9007199254740993")
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("PUT /thing/")
        sent = json.loads(app.config["bodies"][-1])
        assert sent == LOSSY and type(sent["ratio"]) is float and list(sent) == sorted(LOSSY)
        # null on purpose, and the empty string on purpose
        tab.get_by_label("name is null").check()
        tab.get_by_label("note is null").uncheck()
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text('"note": ""')
        sent = json.loads(app.config["bodies"][-1])
        assert (sent["name"], sent["note"]) == (None, "")

    def test_browser_form_tab_refuses_a_number_field_that_is_not_a_number(self, tab, tree_site):
        app, site = tree_site
        tab.goto(site + "/thing/")
        tab.get_by_label("ratio", exact=True).fill("2,5")
        tab.get_by_role("button", name="PUT").click()
        message = tab.get_by_label("ratio", exact=True).evaluate("box => box.validationMessage")
        assert message.startswith("Not JSON") and app.config["bodies"] == []

    def test_browser_form_tab_of_a_paginated_list_offers_its_items_fields(self, tab, tree_site):
        app, site = tree_site
        tab.goto(site + "/page/")
        _expect(tab.get_by_label("name", exact=True)).to_have_value("")
        assert tab.get_by_label("results", exact=True).count() == 0
        assert tab.get_by_label("count", exact=True).count() == 0
        tab.get_by_label("name", exact=True).fill("c")
        tab.get_by_label("size", exact=True).fill("3")
        tab.get_by_role("button", name="POST").click()
        _expect(tab.locator("pre.response")).to_contain_text("HTTP 201")
        assert json.loads(app.config["bodies"][-1]) == {"name": "c", "size": 3}

    @pytest.mark.parametrize("type_", ["application/json", "application/x-www-form-urlencoded"])
    def test_page_script_raw_box_sends_its_text_as_it_is(self, script_parts, type_):
        text = 'a=1&b=%40c\n{"x": "\u00e9"}'
        assert _js(script_parts, "(text, type) => parts.rawRequest(text, type)", text, type_) \
            == {"body": text, "type": type_}

    def test_page_script_raw_box_sends_multipart_fields_from_urlencoded_text(self, script_parts):
        fields = _js(script_parts, """(text) => {
            const request = parts.rawRequest(text, "multipart/form-data");
            return [request.type, request.body instanceof FormData, [...request.body]];
        }""", "a=1&b=%40%2Fetc%2Fpasswd&a=two+words&c=&=d")
        assert fields == ["multipart/form-data", True,
                          [["a", "1"], ["b", "@/etc/passwd"], ["a", "two words"], ["c", ""], ["",
                                                                                              "d"]]]

    @pytest.mark.parametrize("kind, text, checked, null, blank, sent", FIELDS)
    def test_page_script_form_fields_are_sent_as_json_losing_nothing(
            self, script_parts, kind, text, checked, null, blank, sent):
        assert _js(script_parts, "(...field) => parts.fieldJSON(...field)",
                   kind, text, checked, null, blank) == sent

    @pytest.mark.parametrize("kind, text, message", [
        ("number", "2,5", "a number such as 12 or 2.5 is expected"),
        ("number", "0x10", "a number such as 12 or 2.5 is expected"),
        ("number", "NaN", "a number such as 12 or 2.5 is expected"),
        ("json", "{a: 1}", "JSON: a key expected at 1"),
        ("json", "[1,]", "JSON: a value expected at 3"),
    ])
    def test_page_script_form_fields_refuse_what_their_kind_cannot_take(self, script_parts, kind,
                                                                        text, message):
        assert _js(script_parts, """(kind, text) => {
            try { return parts.fieldJSON(kind, text, false, false, false); }
            catch (error) { return error.message; }
        }""", kind, text) == message

    def test_the_form_tabs_are_one_tab_stop_moved_by_arrows_home_and_end(self, chromium, a11y_site):
        with _open_tab(chromium, a11y_site) as tab:
            tab.goto("/0/")
            form, raw = tab.get_by_role("tab", name="HTML form"), tab.get_by_role("tab", name="Raw")
            _expect(tab.get_by_role("tablist", name="Edit as")).to_be_visible()
            _expect(form).to_have_attribute("tabindex", "0")
            _expect(raw).to_have_attribute("tabindex", "-1")
            form.focus()
            for key, focused, shown in [("ArrowRight", raw, "#api-raw"), ("ArrowRight", form,
                                        "#api-fields"), ("End", raw, "#api-raw"),
                                        ("Home", form, "#api-fields"), ("ArrowLeft", raw,
                                                                        "#api-raw")]:
                tab.keyboard.press(key)
                _expect(focused).to_be_focused()
                _expect(focused).to_have_attribute("aria-selected", "true")
                _expect(tab.locator(shown)).to_be_visible()
            tab.keyboard.press("Tab")  # out of the tablist, into the raw panel
            _expect(tab.get_by_label("Media type")).to_be_focused()


# ---------------------------------------------------------------------------
# The page template: Copy as curl
# ---------------------------------------------------------------------------

def _curl_tab(tab, site):
    """Let ``tab`` use the clipboard of ``site``, for commands run by the real curl."""
    if not shutil.which("curl"):
        pytest.skip("needs curl")
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)


def _shell_words(command):
    """The words a POSIX shell reads in a curl command, as curl would get them."""
    assert command.startswith("curl ")
    done = subprocess.run(["sh", "-c", "printf '%s\\0' " + command[len("curl "):]],
                          stdout=subprocess.PIPE, check=True)
    return done.stdout.decode("utf-8").split("\0")[:-1]


CURL_TEXT = "it's \"quoted\" $HOME `id` \\ \u00e9\nsecond line\n"


class TestCopyAsCurl:
    """The curl commands the page copies, run against the live server."""

    def test_browser_curl_for_a_multipart_form_sends_at_signs_as_text(self, tab, notes_site):
        _curl_tab(tab, notes_site)
        tab.goto("/1/")
        _raw_tab(tab)
        tab.get_by_label("Media type").select_option("multipart/form-data")
        tab.get_by_label("Content").fill("text=@/etc/hostname")
        tab.locator("form[data-api]").get_by_role("button", name="Copy as curl").click()
        command = tab.evaluate("navigator.clipboard.readText()")
        assert "--form-string 'text=@/etc/hostname'" in command and " -F " not in command
        subprocess.run(["sh", "-c", command], stdout=subprocess.PIPE, timeout=20, check=True)
        assert _api(notes_site, "/1/")[1]["text"] == "@/etc/hostname"  # not the file's contents

    def test_browser_copies_curl_for_the_method_chosen_and_says_copied_for_a_moment(
            self, tab, live_site):
        site = live_site.serve(_things_app())
        tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
        tab.goto(site + "/thing/")
        tab.get_by_role("button", name="Copy PATCH as curl").click()
        assert tab.evaluate("navigator.clipboard.readText()").startswith("curl -X PATCH ")
        _expect(tab.get_by_role("button", name="Copied")).to_be_visible()
        _expect(tab.get_by_role("button", name="Copy PATCH as curl")).to_be_visible()
        tab.get_by_role("button", name="Copy PUT as curl").click()
        assert tab.evaluate("navigator.clipboard.readText()").startswith("curl -X PUT ")

    def test_browser_copied_curl_commands_run_against_the_live_server(self, tab, notes_site):
        _curl_tab(tab, notes_site)
        tab.goto("/1/")
        _add_header(tab, "X-Note", "it's $HOME")
        text = "it's \"quoted\", $HOME `id` \\ ;"
        tab.get_by_label("text", exact=True).fill(text)
        tab.locator("form[data-api]").get_by_role("button", name="Copy as curl").click()
        command = tab.evaluate("navigator.clipboard.readText()")
        _expect(tab.locator("form[data-api] pre.curl")).to_have_text(command)
        assert command.startswith("curl -X PUT ") and "'X-Note: it'\\''s $HOME'" in command
        assert _api(notes_site, "/1/")[1]["text"] == "build the codez"  # copied, not sent
        run = subprocess.run(["sh", "-c", command], stdout=subprocess.PIPE, timeout=20)
        assert json.loads(run.stdout)["text"] == text
        assert _api(notes_site, "/1/")[1]["text"] == text
        tab.locator("#api-curl").get_by_role("button", name="Copy as curl").click()
        command = tab.evaluate("navigator.clipboard.readText()")
        assert command.startswith("curl '" + notes_site + "/1/'")
        run = subprocess.run(["sh", "-c", command], stdout=subprocess.PIPE, timeout=20)
        assert json.loads(run.stdout) == _api(notes_site, "/1/")[1]

    def test_page_script_curl_quotes_every_word_for_the_shell(self, script_parts):
        command = _js(script_parts, """(text) => parts.curlCommand("PUT", "http://h.test/a?b='c'",
            {"Accept": "application/json", "X-Note": text}, text, "text/plain")""", CURL_TEXT)
        assert _shell_words(command) == [
            "-X", "PUT", "http://h.test/a?b='c'", "-H", "Accept: application/json",
            "-H", "X-Note: " + CURL_TEXT, "-H", "Content-Type: text/plain",
            "--data-binary", CURL_TEXT]
        assert _js(script_parts, "(text) => parts.shellQuote(text)", "it's") == "'it'\\''s'"

    def test_page_script_curl_of_a_get_has_no_method_and_no_body(self, script_parts):
        assert _js(script_parts, """() => parts.curlCommand("GET", "http://h.test/",
            {"Accept": "application/json"}, undefined, undefined)""") \
            == "curl 'http://h.test/' -H 'Accept: application/json'"

    def test_page_script_curl_sends_form_fields_as_strings_not_files(self, script_parts):
        command = _js(script_parts, """() => {
            const request = parts.rawRequest("file=%40%2Fetc%2Fpasswd&note=%3Cin&a=it's",
                                             "multipart/form-data");
            return parts.curlCommand("POST", "http://h.test/", {}, request.body, request.type);
        }""")
        assert "Content-Type" not in command  # curl writes it, with the boundary
        assert _shell_words(command) == ["-X", "POST", "http://h.test/",
                                         "--form-string", "file=@/etc/passwd",
                                         "--form-string", "note=<in", "--form-string", "a=it's"]


# ---------------------------------------------------------------------------
# The page template: The request as code
# ---------------------------------------------------------------------------

def _received_app():
    """/echo/: each request it receives kept whole (method, path, headers, raw body, and a
    multipart body's fields and files); GET and PUT answer with the count."""
    app = FlaskAPI(__name__)
    app.config["received"] = []

    @app.route("/echo/", methods=["GET", "POST", "PUT", "PATCH"])
    def echo_received():
        multipart = request.mimetype == "multipart/form-data"  # read by werkzeug's parser
        raw = None if multipart else request.get_data(cache=True)
        app.config["received"].append({
            "method": request.method, "path": request.full_path,
            "type": request.mimetype, "accept": request.headers.get("Accept"),
            "note": request.headers.get("X-Note"), "secret": request.headers.get("X-Secret"),
            "body": raw,
            "form": request.form.to_dict(flat=False) if multipart else None,
            "files": [(name, upload.filename, upload.read()) for name, upload
                      in request.files.items(multi=True)] if multipart else None})
        return {"received": len(app.config["received"])}
    return app


def _history(tab):
    """The history this tab keeps, as the page stored it: newest first."""
    return json.loads(tab.evaluate("sessionStorage.getItem('flask-api-history') || '[]'"))


def _open_history(tab):
    """Open the history panel, if it is closed; its entries' list."""
    if tab.locator("#api-history details[open]").count() == 0:
        tab.locator("#api-history summary").click()
    return tab.locator("#api-history ol.history > li")


def _big_answers_app():
    """/random/<n>: {"text": n hex digits, new each time} (gzip halves them, no more);
    /long/: a body over 4 MiB; /items/: 20,000 items from a store a test may change."""
    app = FlaskAPI(__name__)
    app.store = _big_items(20000)
    app.store[0]["big"] = 2 ** 64 + 1
    app.add_url_rule("/random/<int:count>", "random",
                     lambda count: {"text": os.urandom(count // 2).hex()})
    app.add_url_rule("/long/", "long", lambda: {"text": "x" * (4 * 1024 * 1024)})
    app.add_url_rule("/items/", "items", lambda: app.store)
    return app


@pytest.fixture
def big_tab(chromium, live_site):
    """A tab on `_big_answers_app`, and the app."""
    app = _big_answers_app()
    with _open_tab(chromium, live_site.serve(app)) as tab:
        yield tab, app


def _big_bodies_kept(tab, count):
    """Wait until this tab's history keeps ``count`` big bodies, each under its own key."""
    tab.wait_for_function("""(count) => JSON.parse(sessionStorage.getItem("flask-api-history")
        || "[]").filter((entry) => entry.bodyKey).length === count""", arg=count)


def _shown_entry(tab, index):
    """Open the history's entry at ``index`` (0: the newest); the text it shows."""
    _open_history(tab).nth(index).get_by_role("button", name=re.compile("^Open ")).click()
    shown = tab.locator("#api-history-shown pre")
    _expect(shown).to_contain_text("HTTP 200")
    return shown


def _parts_tab(tab, site, path):
    """``tab`` at ``site + path``, the script's pure parts at ``window.parts``."""
    _take_parts(tab)
    tab.goto(site + path)
    tab.wait_for_function("Boolean(window.parts)")


def _run_code(language, code, folder):
    """Run the code the page wrote (sh for HTTPie, python, node) in ``folder``: its output."""
    if language == "httpie":
        if not os.path.exists(os.path.join(os.path.dirname(sys.executable), "http")):
            pytest.skip("needs HTTPie (pip install httpie)")
        command = ["sh", "-c", code]
        env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep +
                   os.environ.get("PATH", ""), HTTPIE_CONFIG_DIR=str(folder))
    elif language == "fetch":
        if not shutil.which("node"):
            pytest.skip("needs node")
        path = os.path.join(str(folder), "request.mjs")
        with open(path, "w", encoding="utf-8") as file:
            file.write(code)
        command, env = ["node", path], None
    else:
        pytest.importorskip(language)
        command, env = [sys.executable, "-c", code], None
    done = subprocess.run(command, cwd=str(folder), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=60, env=env)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    return done.stdout.decode("utf-8")


CODE_LANGUAGES = ["httpie", "requests", "httpx", "fetch"]
NOTE_HEADER = CURL_TEXT.strip().replace("\n", " ")  # a header's value: on one line, Latin-1


class TestRequestAsCode:
    """HTTPie, Python and fetch beside curl, run against a real server; an answer as a test."""

    @pytest.mark.parametrize("language", CODE_LANGUAGES)
    @pytest.mark.parametrize("kind", ["text", "multipart"])
    def test_browser_code_sends_what_the_page_sends(self, chromium, live_site, tmp_path,
                                                    language, kind):
        app = _received_app()
        site = live_site.serve(app)
        with open(str(tmp_path / "notes.txt"), "wb") as file:
            file.write(b"file \xc3\xa9 body\n")
        # HTTPie sends a header's text as UTF-8, a browser as Latin-1: past ASCII, it says so
        note = NOTE_HEADER.replace("\u00e9", "e") if language == "httpie" else NOTE_HEADER
        with _open_tab(chromium, site) as tab:
            _parts_tab(tab, site, "/echo/")
            code = tab.evaluate("""async ([kind, text, language]) => {
                const url = new URL("/echo/?a=1&b=it's", location.href).href;  // as the page has it
                const headers = {"Accept": "application/json", "X-Note": text};
                let body = JSON.stringify({text}), type = "application/json";
                if (kind === "multipart") {
                    body = new FormData();
                    body.append("text", "@/etc/hostname");
                    body.append("note", text);
                    body.append("upload", new File(["file \\u00e9 body\\n"], "notes.txt"));
                    type = "multipart/form-data";
                }
                const sent = type === "multipart/form-data" ? headers :
                    {...headers, "Content-Type": type};  // as send() does
                await fetch(url, {method: "PUT", headers: sent, body});
                const request = ["PUT", url, headers, body, type];
                return {httpie: () => parts.httpieCommand(...request),
                        requests: () => parts.pythonCode("requests", ...request),
                        httpx: () => parts.pythonCode("httpx", ...request),
                        fetch: () => parts.fetchCode(...request)}[language]();
            }""", [kind, note, language])
        assert code is not None
        _run_code(language, code, tmp_path)
        page, client = app.config["received"][-2:]
        assert page["method"] == client["method"] == "PUT"
        assert client["path"] == page["path"] == "/echo/?a=1&b=it%27s"
        assert client["note"] == page["note"] == note
        assert client["accept"] == "application/json"
        for part in ("type", "body", "form", "files"):
            assert client[part] == page[part], part
        if kind == "multipart":
            assert client["form"]["text"] == ["@/etc/hostname"]  # a string, not a file read
            assert client["files"] == [("upload", "notes.txt", b"file \xc3\xa9 body\n")]

    def test_browser_copies_the_response_shown_as_code_and_it_gets_the_same_answer(
            self, tab, notes_site, tmp_path):
        tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=notes_site)
        tab.goto("/1/?q=a%20b")
        bar = tab.locator("#api-curl + .code-tools")
        bar.get_by_label("Copy as").select_option(label="JavaScript (fetch)")
        bar.get_by_role("button", name="Copy the request").click()
        code = tab.evaluate("navigator.clipboard.readText()")
        assert code.startswith('const response = await fetch("' + notes_site + '/1/?q=a%20b"')
        _expect(tab.locator("#api-curl + .code-tools + pre.curl")).to_have_attribute(
            "aria-label", "JavaScript (fetch) code")
        output = _run_code("fetch", code, tmp_path)
        status, text = output.split("\n", 1)
        assert status == "200" and json.loads(text) == _api(notes_site, "/1/")[1]

    def test_page_script_httpie_refuses_a_value_it_cannot_write(self, script_parts):
        for value in ["a\\\\=b", "\u00e9"]:
            assert _js(script_parts, """(value) => parts.httpieCommand("GET", "http://h.test/",
                {"X-A": value}, undefined, undefined)""", value) is None
        assert _js(script_parts, """() => parts.httpieCommand("GET", "http://h.test/",
            {"X-A": "=x:y@z;", "X-Empty": ""}, undefined, undefined)""") == (
            "'http' '--ignore-stdin' 'GET' 'http://h.test/' 'X-A:\\=x\\:y\\@z\\;' 'X-Empty;'")

    def test_page_script_code_puts_a_placeholder_for_stored_headers_unless_asked(
            self, script_parts):
        headers = {"Accept": "application/json", "authorization": "Bearer s3cret"}
        assert _js(script_parts, "(h) => parts.codeHeaders(h, ['Authorization'], false)",
                   headers) == {"Accept": "application/json",
                                "authorization": "<your authorization>"}
        assert _js(script_parts, "(h) => parts.codeHeaders(h, ['Authorization'], true)",
                   headers) == headers

    def test_browser_form_copies_python_with_a_placeholder_then_the_stored_value(
            self, tab, live_site, tmp_path):
        pytest.importorskip("requests")
        app = _received_app()
        site = live_site.serve(app)
        tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
        tab.goto(site + "/echo/")
        _add_header(tab, "X-Secret", "s3cret")
        _raw_tab(tab)
        tab.get_by_label("Content").fill('{"text": "it\'s 2.0 and 9007199254740993"}')
        form = tab.locator("form[data-api]")
        form.get_by_label("Copy as").select_option(label="Python (requests)")
        form.get_by_role("button", name="Copy PUT as code").click()
        code = tab.evaluate("navigator.clipboard.readText()")
        _expect(form.locator("pre.curl")).to_have_text(code)
        _expect(form.locator("pre.curl")).to_have_attribute("aria-label",
                                                            "Python (requests) code")
        assert "s3cret" not in code and '"X-Secret": "<your X-Secret>"' in code
        form.get_by_label("Include stored secrets").check()
        form.get_by_role("button", name="Copy PUT as code").click()
        _expect(form.locator("pre.curl")).to_contain_text('"X-Secret": "s3cret"')
        code = tab.locator("form[data-api] pre.curl").inner_text()
        form.get_by_role("button", name="PUT", exact=True).click()
        _expect(tab.locator("pre.response")).to_contain_text('"received"')
        _run_code("requests", code, tmp_path)
        page, client = app.config["received"][-2:]
        assert client == dict(page, accept=client["accept"])  # the page asks for its HTML
        assert client["secret"] == "s3cret" and client["body"] == (
            b'{"text": "it\'s 2.0 and 9007199254740993"}')

    def test_browser_answer_as_a_test_passes_against_the_app_and_fails_once_it_changes(
            self, tab, notes_site, tmp_path):
        tab.goto("/1/")
        _open_history(tab)
        tab.get_by_role("button", name=re.compile(r"^As a test: GET \/1\/ at ")).click()
        shown = tab.locator("#api-history-shown")
        _expect(shown.get_by_role("heading")).to_be_focused()
        shown.get_by_label("How your tests get the app (Python)").fill(
            "from notes_app import create_app\napp = create_app()")
        # the URL the page saw names its live server's port: a value to leave out
        shown.get_by_label("Values to leave out").fill("/url")
        code = shown.get_by_label("pytest test").inner_text()
        assert '"text": "build the codez"' in code and "/url" not in code.split("LEFT_OUT")[0]

        def pytest_run(app_line):
            with open(str(tmp_path / "test_answer.py"), "w", encoding="utf-8") as file:
                file.write(code.replace("app = create_app()", app_line))
            return subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                 "test_answer.py"], cwd=str(tmp_path), stdout=subprocess.PIPE,
                env=dict(os.environ, PYTHONPATH=NOTES_DIR), timeout=120)
        passed = pytest_run("app = create_app()")
        assert passed.returncode == 0, passed.stdout.decode()
        failed = pytest_run("app = create_app({1: 'changed'})")
        assert failed.returncode == 1 and b"'changed'" in failed.stdout

    def test_page_script_answer_as_a_test_sends_the_body_and_leaves_out_what_is_marked(
            self, script_parts):
        code = _js(script_parts, """() => parts.pytestTest({at: 0, method: "PUT",
            url: "http://h.test/1/?a=b", headerNames: ["X-Secret"], status: 201,
            sent: {type: "application/json", text: '{"n": 18446744073709551617}'},
            body: '{"n": 18446744073709551617, "ok": true, "x": null, "r": 1.0, ' +
                  '"items": [{"id": 1, "at": "now"}]}'},
            "from app import app", parts.leftOutPaths("/items/*/at"))""")
        assert 'client.open(\n        "/1/?a=b",\n        method="PUT",' in code
        assert '"X-Secret": "<your X-Secret>"' in code
        assert 'data="{\\"n\\": 18446744073709551617}".encode("utf-8")' in code
        assert "assert response.status_code == 201" in code
        assert 'LEFT_OUT = [["items","*","at"]]' in code
        expected = code.split("assert data == ")[1]
        assert ast.literal_eval(expected) == {"n": 18446744073709551617, "ok": True, "x": None,
                                              "r": 1.0, "items": [{"id": 1}]}
        assert "1.0" in expected  # as the API wrote it


# ---------------------------------------------------------------------------
# The page template: History
# ---------------------------------------------------------------------------

class TestHistory:
    """Every answer the page shows, kept for the tab: listed, opened again, resent, cleared."""

    def test_page_script_history_is_bounded_by_entries_and_by_bytes(self, script_parts):
        kept = _js(script_parts, """() => {
            let list = [];
            for (let at = 0; at < 8; at += 1) {
                list = parts.boundedHistory(list, {at, body: "x".repeat(300)}, 5, 100000);
            }
            const few = list.map((entry) => entry.at);
            let big = [];
            for (let at = 0; at < 8; at += 1) {
                big = parts.boundedHistory(big, {at, body: "\u00e9".repeat(300)}, 50, 2000);
            }
            return [few, big.map((entry) => entry.at), JSON.stringify(big).length];
        }""")
        assert kept[0] == [7, 6, 5, 4, 3]  # newest first, five at the most
        assert kept[1] == [7, 6, 5]  # each about 620 bytes as UTF-8: 2,000 bytes hold three
        assert kept[2] < 2000

    def test_page_script_history_bytes_bound_drops_the_oldest_big_bodies_before_entries(
            self, script_parts):
        kept = _js(script_parts, """() => {
            let list = [];
            for (let at = 0; at < 4; at += 1) {
                list = parts.boundedHistory(list, {at, body: null, bodyKey: "k" + at,
                                                   stored: 3000}, 50, 7000);
            }
            return list.map((entry) => [entry.at, entry.bodyKey, entry.lost || null]);
        }""")
        assert kept == [[3, "k3", None], [2, "k2", None], [1, None, "room"], [0, None, "room"]]

    def test_browser_history_keeps_a_big_body_compressed_up_to_4_mb_the_oldest_going_first(
            self, big_tab):
        tab, _ = big_tab
        tab.goto("/random/300000")
        _big_bodies_kept(tab, 1)
        first = _history(tab)[0]
        assert first["body"] is None and first["bodyKey"].startswith("flask-api-history-body-")
        text = json.loads(tab.locator("pre.response .body").text_content())["text"]
        assert _shown_entry(tab, 0).locator(".tree").text_content().count(text) == 1
        assert first["stored"] < 300000  # compressed: hex digits take half
        _expect(tab.locator("#api-history details > .hint")).to_contain_text(
            "or up to 4 MB compressed")
        tab.goto("/long/")  # over 4 MB: not kept, and said so
        _expect(tab.locator("#api-history summary")).to_have_text("History: 2 requests")
        assert _history(tab)[0]["body"] is None and not _history(tab)[0].get("bodyKey")
        _expect(_shown_entry(tab, 0)).to_contain_text("was longer than the 4 MB kept")
        for count in [2, 2]:  # two more of about 440 KB stored each: 1 MB holds two
            tab.goto("/random/600000")
            _big_bodies_kept(tab, count)
        _expect(tab.locator("#api-history summary")).to_have_text("History: 4 requests")
        assert [bool(entry.get("bodyKey")) for entry in _history(tab)] == [True, True, False,
                                                                           False]
        assert _history(tab)[3]["lost"] == "room"
        _expect(_shown_entry(tab, 3)).to_contain_text("went to make room for newer answers")
        assert tab.evaluate("""() => Object.keys(sessionStorage).filter((key) =>
            key.startsWith("flask-api-history-body-")).length""") == 2  # its bytes freed

    def test_browser_history_says_in_words_when_a_big_body_finds_the_storage_full(
            self, big_tab):
        tab, _ = big_tab
        tab.goto("/random/10")
        tab.evaluate("""() => {  // fill this tab's storage but for about 64 KB
            for (let n = 0; ; n += 1) {
                try { sessionStorage.setItem("filler" + n, "x".repeat(1 << 20)); }
                catch { break; }
            }
            for (let size = 1 << 19; size >= 1 << 16; size >>= 1) {
                try { sessionStorage.setItem("filler-" + size, "x".repeat(size)); } catch {}
            }
        }""")
        tab.goto("/random/400000")
        _expect(tab.locator("#api-history [role=alert]")).to_contain_text(
            "The browser's storage for this tab is full: this answer's body (")
        assert _history(tab)[0]["lost"] == "full"  # the entry is kept, without its body
        _expect(_shown_entry(tab, 0)).to_contain_text("could not be kept: the storage was full")

    def test_browser_history_without_compression_keeps_64_kb_and_says_a_failed_one(
            self, big_tab):
        tab, _ = big_tab
        tab.add_init_script("delete window.CompressionStream;")  # an older browser's
        tab.goto("/random/300000")
        _expect(tab.locator("#api-history summary")).to_have_text("History: 1 request")
        _open_history(tab)
        _expect(tab.locator("#api-history details > .hint")).not_to_contain_text("4 MB")
        _expect(_shown_entry(tab, 0)).to_contain_text("was longer than the 64 KB kept")
        tab.add_init_script("""window.CompressionStream = class {
            constructor() { throw new Error("no gzip today"); } };""")
        tab.reload()
        _expect(tab.locator("#api-history [role=alert]")).to_have_text(
            "This answer's body could not be compressed to be kept: no gzip today")
        _expect(_shown_entry(tab, 0)).to_contain_text("the browser could not compress it")

    def test_page_script_history_entry_keeps_header_names_and_small_bodies_only(
            self, script_parts):
        entries = _js(script_parts, """() => {
            const request = {method: "PUT", url: "http://h.test/1/", body: '{"text": "\u00e9"}',
                             type: "application/json", headerNames: ["Authorization"]};
            const answer = (body) => ({status: 200, headers: [["Content-Type", "text/html"]],
                                       body, ms: 12});
            const form = new FormData();
            form.append("note", "@x");
            form.append("file", new File(["abc"], "a.txt"));
            return [parts.historyEntry(request, answer("y".repeat(65536)), 1),
                    parts.historyEntry(request, answer("y".repeat(65537)), 2),
                    parts.historyEntry({...request, body: form, type: "multipart/form-data"},
                                       answer(""), 3)];
        }""")
        small, big, multipart = entries
        assert small["headerNames"] == ["Authorization"] and "Bearer" not in json.dumps(small)
        assert small["sent"] == {"type": "application/json", "text": '{"text": "\u00e9"}',
                                 "bytes": 14}
        assert len(small["body"]) == 65536 and small["bytes"] == 65536
        assert big["body"] is None and big["bytes"] == 65537  # its size, but not its body
        assert multipart["sent"]["fields"] == [["note", "@x"], ["file", {"file": "a.txt",
                                                                         "bytes": 3}]]

    def test_browser_history_keeps_links_forms_and_the_query_form_newest_first(
            self, tab, notes_site):
        tab.goto("/")
        tab.locator("pre.response .tree a", has_text="/1/").first.click()
        tab.wait_for_url(notes_site + "/1/")
        tab.get_by_label("text", exact=True).fill("new text")
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("new text")
        tab.locator("#api-query summary").click()
        tab.get_by_label("Parameter name").fill("q")
        tab.get_by_role("button", name="Send GET").click()
        tab.wait_for_url(notes_site + "/1/?q=")
        entries = _open_history(tab)
        _expect(entries).to_have_count(4)
        lines = [entries.nth(n).locator("code").inner_text() for n in range(4)]
        assert [line.split(" \u00b7 ")[:2] for line in lines] == [
            ["GET /1/?q=", "HTTP 200"], ["PUT /1/", "HTTP 200"], ["GET /1/", "HTTP 200"],
            ["GET /", "HTTP 200"]]
        assert re.search(r"\d\d:\d\d:\d\d \u00b7 [\d,]+ bytes", lines[1])
        put = _history(tab)[1]
        assert put["sent"]["type"] == "application/json"
        assert json.loads(put["sent"]["text"]) == {"text": "new text"}
        _expect(tab.locator("#api-history summary")).to_have_text("History: 4 requests")
        _expect(tab.locator("#api-history .hint")).to_contain_text("64 KB or less")

    def test_browser_history_entry_opens_its_answer_as_it_was_as_text_never_markup(
            self, tab, notes_site):
        hostile = '<img src=x id=injected onerror="document.title=1">'
        tab.goto("/1/")
        tab.get_by_label("text", exact=True).fill(hostile)
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("onerror")
        _open_history(tab)
        tab.get_by_role("button", name=re.compile(r"^Open GET \/1\/ at ")).click()
        shown = tab.locator("#api-history-shown")
        _expect(shown.get_by_role("heading")).to_be_focused()
        _expect(shown.locator("pre")).to_contain_text('"build the codez"')  # as it was then
        _expect(shown.locator("pre")).to_contain_text("HTTP 200")
        _expect(shown.locator("pre")).to_contain_text("Content-Type:")
        tab.get_by_role("button", name=re.compile(r"^Open PUT \/1\/ at ")).click()
        _expect(shown.locator("pre")).to_contain_text('"<img src=x id=injected onerror=')
        _expect(shown.locator("pre")).not_to_contain_text("late headers")
        assert tab.locator("#injected").count() == 0
        _expect(tab.locator("#api-live")).to_contain_text("The answer of PUT /1/ at ")

    def test_browser_history_survives_reload_and_back_and_is_cleared(self, tab, notes_site):
        tab.goto("/0/")
        tab.goto("/1/")
        tab.reload()
        _expect(_open_history(tab)).to_have_count(3)  # a reload is a request sent again
        tab.go_back()
        tab.wait_for_url(notes_site + "/0/")
        _expect(_open_history(tab)).to_have_count(3)  # Back shows a page kept: not one more
        tab.get_by_role("button", name="Clear history").click()
        _expect(tab.locator("#api-history summary")).to_have_text("History: 0 requests")
        _expect(tab.locator("#api-history summary")).to_be_focused()
        _expect(tab.locator("#api-live")).to_have_text("History cleared.")
        assert _history(tab) == []

    def test_browser_history_keeps_stored_headers_by_name_never_their_values(
            self, tab, notes_site):
        tab.goto("/1/")
        _add_header(tab, "X-Secret", "s3cret-value")
        tab.get_by_label("text", exact=True).fill("with a header")
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("with a header")
        stored = tab.evaluate("sessionStorage.getItem('flask-api-history')")
        assert "s3cret-value" not in stored
        assert _history(tab)[0]["headerNames"] == ["X-Secret"]
        kept = len(_history(tab))
        tab.reload()  # loaded without the header, then fetched again with it: one entry
        _expect(tab.locator("#api-refetched")).to_be_visible()
        assert len(_history(tab)) == kept + 1 and _history(tab)[0]["headerNames"] == ["X-Secret"]

    def test_browser_history_resends_a_request_and_shows_the_new_answer(self, tab, notes_site):
        tab.goto("/1/")
        tab.get_by_label("text", exact=True).fill("sent twice")
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("sent twice")
        assert _api(notes_site, "/1/", "PUT", {"text": "changed meanwhile"})[0] == 200
        tab.goto("/0/")
        _open_history(tab)
        tab.get_by_role("button", name=re.compile(r"^Resend PUT \/1\/ at ")).click()
        tab.wait_for_url(notes_site + "/1/")
        _expect(tab.locator("pre.response")).to_contain_text("sent twice")
        assert _api(notes_site, "/1/")[1]["text"] == "sent twice"
        assert [entry["method"] for entry in _history(tab)][:2] == ["PUT", "GET"]

    def test_browser_history_says_in_words_when_the_tabs_storage_is_full(self, tab, notes_site):
        tab.goto("/1/")
        tab.evaluate("""() => {  // fill this tab's storage, the history's own entry aside
            for (let n = 0; ; n += 1) {
                try { sessionStorage.setItem("filler" + n, "x".repeat(1 << 20)); }
                catch { break; }
            }
            for (let size = 1 << 19; size >= 16; size >>= 1) {
                try { sessionStorage.setItem("filler-" + size, "x".repeat(size)); } catch {}
            }
        }""")
        tab.get_by_label("text", exact=True).fill("y" * 60000)
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("#api-history [role=alert]")).to_contain_text(
            "The browser's storage for this tab is full")

    def test_browser_history_keeps_a_streams_page_without_its_items(self, tab, stream_site):
        site, _ = stream_site
        tab.goto(site + "/all-good.jsonl")
        entries = _open_history(tab)
        _expect(entries).to_have_count(1)
        _expect(entries.first.locator("code")).to_contain_text(
            "GET /all-good.jsonl \u00b7 HTTP 200")
        _expect(entries.first.locator("code")).to_contain_text("a stream")
        tab.get_by_role("button", name=re.compile(r"^Open GET \/all-good")).click()
        _expect(tab.locator("#api-history-shown pre")).to_contain_text(
            "A stream: its items are not kept.")

    def test_browser_history_axe_finds_nothing_and_the_keyboard_reaches_every_control(
            self, tab, notes_site):
        tab.goto("/1/")
        tab.get_by_label("text", exact=True).fill("typed")
        tab.get_by_role("button", name="PUT").click()
        _expect(tab.locator("pre.response")).to_contain_text("typed")
        tab.locator("#api-history summary").focus()
        tab.keyboard.press("Enter")
        _expect(_open_history(tab)).to_have_count(2)
        assert _axe(tab) == []
        tab.keyboard.press("Tab")
        _expect(tab.locator(":focus")).to_have_attribute("aria-label",
                                                         re.compile(r"^Pick PUT \/1\/ at "))
        for name in ["Open", "Resend", "As a test"]:  # Tab by Tab, in the list's order
            tab.keyboard.press("Tab")
            _expect(tab.locator(":focus")).to_have_text(name)
        tab.keyboard.press("Shift+Tab")
        tab.keyboard.press("Shift+Tab")
        tab.keyboard.press("Enter")  # Open, the newest entry
        _expect(tab.locator("#api-history-shown h2")).to_be_focused()
        _expect(tab.locator("#api-live")).to_contain_text("The answer of PUT /1/")
        assert _axe(tab) == []
        tab.get_by_role("button", name=re.compile(r"^As a test: PUT ")).click()
        _expect(tab.locator("#api-history-shown h2")).to_contain_text("as a pytest test")
        assert _axe(tab) == []


# ---------------------------------------------------------------------------
# The page template: Compare
# ---------------------------------------------------------------------------

class TestCompare:
    """Two answers of the history, their data's differences by path, status and headers."""

    def test_page_script_diff_reads_numbers_as_written_and_paths_as_pointers(
            self, script_parts):
        found = _js(script_parts, """() => {
            const diff = parts.diffJSON(
                parts.parseJSON('{"big": 18446744073709551617, "r": 1.0, "same": 2.5, ' +
                                '"a/b": [1, 2, 3], "gone": "x", "s": "\u00e9"}'),
                parts.parseJSON('{"big": 18446744073709551616, "r": 1, "same": 2.5, ' +
                                '"a/b": [1, 5], "new": {"k": null}, "s": "\u00e9"}'));
            return [diff.same, diff.changes.map((change) => [parts.pointer(change.path),
                change.kind, change.from && parts.writeJSON(change.from, ""),
                change.to && parts.writeJSON(change.to, "")])];
        }""")
        assert found == [3, [  # the same: 2.5, the list's 1, the "\u00e9"
            ["/big", "changed", "18446744073709551617", "18446744073709551616"],
            ["/r", "changed", "1.0", "1"],
            ["/a~1b/1", "changed", "2", "5"],
            ["/a~1b/2", "removed", "3", None],
            ["/gone", "removed", '"x"', None],
            ["/new", "added", None, '{"k": null}']]]

    def test_page_script_diff_pairs_items_by_their_id_so_an_insert_is_one_addition(
            self, script_parts):
        found = _js(script_parts, """() => {
            const diff = (one, other) => parts.diffJSON(parts.parseJSON(one),
                parts.parseJSON(other)).changes.map((change) => [parts.pointer(change.path),
                change.kind]);
            return [diff('[{"id": 1, "n": "a"}, {"id": 2, "n": "b"}, {"id": 3, "n": "c"}]',
                         '[{"id": 0, "n": "z"}, {"id": 1, "n": "a"}, {"id": 3, "n": "C"}]'),
                    diff('[{"n": "a"}, {"n": "b"}]', '[{"n": "z"}, {"n": "a"}, {"n": "b"}]')];
        }""")
        assert found[0] == [["/0", "added"], ["/2/n", "changed"], ["/1", "removed"]]
        assert found[1] == [["/0/n", "changed"], ["/1/n", "changed"], ["/2", "added"]]

    def test_page_script_diff_of_headers_ignores_the_case_of_names(self, script_parts):
        found = _js(script_parts, """() => parts.diffHeaders(
            [["Content-Type", "application/json"], ["ETag", "1"], ["X-Old", "a"]],
            [["content-type", "application/json"], ["ETag", "2"], ["X-New", "b"]])""")
        assert found == [{"path": ["ETag"], "kind": "changed", "from": "1", "to": "2"},
                         {"path": ["X-Old"], "kind": "removed", "from": "a"},
                         {"path": ["X-New"], "kind": "added", "to": "b"}]

    def test_browser_compares_this_answer_with_the_last_from_its_url_in_one_click(
            self, tab, notes_site):
        hostile = "<b id=injected>bold</b>"
        tab.goto("/1/")
        assert _api(notes_site, "/1/", "PUT", {"text": hostile})[0] == 200
        tab.reload()
        tab.get_by_role("button", name="Compare with the previous answer from this URL").click()
        shown = tab.locator("#api-history-shown")
        _expect(shown.get_by_role("heading")).to_be_focused()
        _expect(shown.get_by_role("heading")).to_contain_text(
            re.compile(r"^Compared: GET \/1\/ at .* with GET \/1\/ at "))
        _expect(shown).to_contain_text("Status: HTTP 200, both.")
        _expect(shown).to_contain_text("Data: 0 added, 0 removed, 1 changed; 1 value the same")
        change = shown.get_by_role("list", name="Changes in the data").locator("li")
        _expect(change).to_have_text('/text changed "build the codez" \u2192 "' + hostile + '"')
        assert tab.locator("#injected").count() == 0
        _expect(tab.locator("#api-live")).to_contain_text("Compared: GET /1/")
        assert _axe(tab) == []

    def test_browser_compares_two_answers_of_20000_items_across_a_reload(self, big_tab):
        tab, app = big_tab
        tab.goto("/items/")
        _big_bodies_kept(tab, 1)
        assert _history(tab)[0]["bytes"] > 1024 * 1024  # over 64 KB: kept compressed
        app.store[0]["big"] = 2 ** 64
        app.store[12345]["name"] = "<b id=injected>renamed</b>"
        tab.reload()
        tab.get_by_role("button", name="Compare with the previous answer from this URL").click()
        shown = tab.locator("#api-history-shown")
        _expect(shown.get_by_role("heading")).to_be_focused()
        _expect(shown).to_contain_text("Data: 0 added, 0 removed, 2 changed; ")
        change = shown.get_by_role("list", name="Changes in the data").locator("li")
        _expect(change).to_have_text([
            "/0/big changed 18446744073709551617 \u2192 18446744073709551616",
            '/12345/name changed "item 12345" \u2192 "<b id=injected>renamed</b>"'])
        assert tab.locator("#injected").count() == 0

    def test_browser_compares_two_picked_entries_status_and_headers_too(self, tab, notes_site):
        tab.goto("/1/")
        tab.goto("/9/")  # a 404
        entries = _open_history(tab)
        entries.nth(0).get_by_role("checkbox").check()
        tab.get_by_role("button", name="Compare the two picked").click()
        _expect(tab.locator("#api-history-shown [role=alert]")).to_have_text(
            "Pick two entries to compare: 1 is picked.")
        entries.nth(1).get_by_role("checkbox").check()
        tab.get_by_role("button", name="Compare the two picked").click()
        shown = tab.locator("#api-history-shown")
        _expect(shown).to_contain_text("Status: HTTP 200 \u2192 HTTP 404.")
        _expect(shown).to_contain_text("/detail added")
        _expect(shown).to_contain_text("/text removed")


# ---------------------------------------------------------------------------
# The page template: the page for everyone (accessibility)
# ---------------------------------------------------------------------------

def _fold_all(tab):
    tab.get_by_role("button", name="Fold all", exact=True).click()


# (name, path, what to do there): every state of the page a user meets
_A11Y_STATES = {
    "list": ("/", None),
    "detail": ("/0/", None),
    "error 404": ("/9/", None),
    "error 405": ("/post-only/", None),
    "after GET": ("/0/", lambda tab: _send(tab, "GET")),
    "after POST": ("/", lambda tab: _send(tab, "POST")),
    "after PUT": ("/0/", lambda tab: _send(tab, "PUT")),
    "after PATCH": ("/0/", lambda tab: _send(tab, "PATCH")),
    "after DELETE (204)": ("/2/", lambda tab: _send(tab, "DELETE")),
    "headers panel open": ("/", lambda tab: _add_header(tab, "X-Token", "abc")),
    "query panel open": ("/?page=2", None),
    "Raw tab": ("/0/", _raw_tab),
    "tree folded": ("/", _fold_all),
    "tree filtered": ("/", lambda tab: (
        tab.get_by_label("Filter keys and values").fill("thing"),
        _expect(tab.locator(".tree-tools [role=status]")).to_contain_text("match"))),
    "big list": ("/big/", None),
    "big list folded": ("/big/", _fold_all),
}


def _theme_colours(dark):
    """The style's colour custom properties, {name: (r, g, b)}, in the light or dark theme."""
    light, _, rest = flask_api._PAGE_STYLE.partition("@media (prefers-color-scheme: dark)")
    found = re.findall(r"--([a-z]+): #([0-9a-f]{6}|[0-9a-f]{3})\b", light)
    if dark:
        found += re.findall(r"--([a-z]+): #([0-9a-f]{6}|[0-9a-f]{3})\b", rest.split("} }")[0])
    full = {name: "".join(c * 2 for c in value) if len(value) == 3 else value
            for name, value in found}
    return {name: tuple(int(value[at:at + 2], 16) for at in (0, 2, 4))
            for name, value in full.items()}


def _contrast(one, other):
    """WCAG 2's contrast ratio of two sRGB colours, from their relative luminances."""
    def luminance(rgb):
        linear = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4
                  for c in rgb]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    darker, lighter = sorted([luminance(one), luminance(other)])
    return (lighter + 0.05) / (darker + 0.05)


class TestAccessibility:
    """axe-core on every state, contrast, forced colours, zoom, motion, the keyboard alone."""

    @pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
    def test_every_text_colour_has_4_5_to_1_on_every_background_it_can_sit_on(self, dark):
        colours = _theme_colours(dark)
        assert set(colours) == {"bg", "fg", "muted", "line", "panel", "accent", "ok", "err", "mark",
                                "edge"}
        # text: the page's, muted hints and keys, links and numbers, statuses and strings, errors;
        # backgrounds: the page, panels (header, response, buttons), the filter's highlight
        ratios = {(text, ground): round(_contrast(colours[text], colours[ground]), 2)
                  for text in ("fg", "muted", "accent", "ok", "err")
                  for ground in ("bg", "panel", "mark")}
        assert {pair: ratio for pair, ratio in ratios.items() if ratio < 4.5} == {}
        # a control's bounds (inputs, buttons, selects) against what they sit on: 3:1 (1.4.11)
        edges = {ground: round(_contrast(colours["edge"], colours[ground]), 2)
                 for ground in ("bg", "panel")}
        assert {ground: ratio for ground, ratio in edges.items() if ratio < 3} == {}

    def test_browser_on_a_phone_controls_are_44_px_and_long_urls_wrap_indented(
            self, chromium, live_site):
        long_url = "http://x.test/" + "/".join(["a-long-path-segment"] * 8)
        site = live_site.serve(notes_app.create_app(notes={0: "see " + long_url, 1: "x"}))
        with _open_tab(chromium, site, viewport={"width": 390, "height": 844}, is_mobile=True,
                       has_touch=True) as tab:
            tab.goto("/0/?a=1")
            small = tab.evaluate("""() => [...document.querySelectorAll(
                "button, .button, summary, input, select")].filter(node => {
                  const box = node.getBoundingClientRect();
                  return box.width && !node.closest(".tree") && box.height < 44;
                }).map(node => node.outerHTML.slice(0, 60))""")
            assert small == []
            name, value = tab.get_by_label("Parameter name"), tab.get_by_label("Parameter value")
            assert name.bounding_box()["y"] == value.bounding_box()["y"]  # a row reads name = value
            # the wrapped URL's lines start where its first line's key does, not at the margin
            lines = tab.locator(".tree .s a").first.evaluate(
                "link => [...link.getClientRects()].map(rect => rect.left)")
            key = tab.locator(".tree .k").first.bounding_box()["x"]
            assert len(lines) > 1 and min(lines) >= key
            assert tab.evaluate("document.documentElement.scrollWidth") <= 390

    @pytest.mark.parametrize("theme", ["light", "dark"])
    @pytest.mark.parametrize("state", sorted(_A11Y_STATES))
    def test_axe_finds_nothing_on_any_state_of_the_page(self, chromium, a11y_site, state, theme):
        path, action = _A11Y_STATES[state]
        with _open_tab(chromium, a11y_site) as tab:
            tab.emulate_media(color_scheme=theme)
            csp = tab.goto(path).headers["content-security-policy"]
            if action:
                action(tab)
            assert _axe(tab) == []
            fetched = tab.evaluate("""() => fetch(location.href, {headers:
                {Accept: "text/html"}}).then((r) => r.headers.get("Content-Security-Policy"))""")
            assert "unsafe" not in csp and fetched == csp

    def test_the_pages_labelled_groups_and_fold_buttons_have_roles_names_and_states(
            self, chromium, a11y_site):
        with _open_tab(chromium, a11y_site) as tab:
            tab.goto("/big/")
            _expect(tab.get_by_role("group", name="Requests")).to_be_visible()
            _expect(tab.get_by_role("group", name="Body")).to_be_visible()
            root = tab.get_by_role("button", name="Fold the body")
            _expect(root).to_have_attribute("aria-expanded", "true")
            group = tab.get_by_role("button", name="Unfold items 4900 to 4999")
            _expect(group).to_have_attribute("aria-expanded", "false")
            group.click()
            _expect(tab.get_by_role("button", name="Fold items 4900 to 4999")).to_have_attribute(
                "aria-expanded", "true")
            _expect(tab.get_by_role("button", name="Unfold item 4907")).to_have_attribute(
                "aria-expanded", "false")

    def test_forced_colors_keep_focus_rings_fold_glyphs_and_the_selected_tab(self, chromium,
                                                                             a11y_site):
        with _open_tab(chromium, a11y_site) as tab:
            tab.emulate_media(forced_colors="active")
            tab.goto("/0/")
            style = """([selector, pseudo]) => { const s = getComputedStyle(
                document.querySelector(selector), pseudo); return [s.backgroundColor, s.color,
                s.content, s.outlineStyle, s.outlineWidth]; }"""
            selected = tab.evaluate(style, ["[role=tab][aria-selected=true]", None])
            other = tab.evaluate(style, ["[role=tab][aria-selected=false]", None])
            assert selected[:2] != other[:2]  # told apart by more than a border colour
            glyph = tab.evaluate(style, [".tree button.fold", "::before"])
            assert glyph[2] == '"\u25be"' and glyph[1] != tab.evaluate(style, ["body", None])[0]
            tab.get_by_role("tab", name="HTML form").focus()
            tab.keyboard.press("ArrowRight")
            ring = tab.evaluate(style, ["[role=tab][aria-selected=true]", None])
            assert ring[3] != "none" and ring[4] != "0px"

    def test_reduced_motion_nothing_on_the_page_moves_by_itself(self, chromium, a11y_site):
        with _open_tab(chromium, a11y_site, reduced_motion="reduce") as tab:
            tab.goto("/big/")
            moving = tab.evaluate("""() => [...document.querySelectorAll("*")].filter((node) => {
                const s = getComputedStyle(node); return s.animationName !== "none" ||
                  s.transitionDuration.split(", ").some((t) => t !== "0s") ||
                  s.scrollBehavior === "smooth"; }).length""")
            assert moving == 0

    @pytest.mark.parametrize("path, action", [("/", None), ("/0/", _raw_tab), ("/big/", _fold_all),
                                              ("/?page=2", lambda tab: _add_header(tab, "X-A",
                                                                                   "b"))])
    def test_at_400_percent_zoom_nothing_scrolls_sideways_but_the_responses_long_lines(
            self, chromium, a11y_site, path, action):
        with _open_tab(chromium, a11y_site, viewport={"width": 320, "height": 256}) as tab:
            tab.goto(path)
            if action:
                action(tab)
            tab.evaluate("document.querySelector('#api-headers details').open = true")
            wide = tab.evaluate("""() => [...document.querySelectorAll("body *")].filter((node) =>
                !node.closest("pre") && node.getBoundingClientRect().right > innerWidth + 0.5)
                .map((node) => node.outerHTML.slice(0, 80))""")
            assert wide == []
            assert tab.evaluate("document.documentElement.scrollWidth") <= 320

    def test_the_keyboard_alone_reads_follows_a_link_adds_a_header_sends_a_put_and_folds(
            self, chromium, a11y_site):
        with _open_tab(chromium, a11y_site) as tab:
            tab.goto("/")
            tab.keyboard.press("Tab")  # read: from the top, the site's name first
            _expect(tab.locator("a.brand")).to_be_focused()
            _tab_to(tab, ".tree a[href$='/0/']")  # follow a link in the body
            tab.keyboard.press("Enter")
            _expect(tab.locator("h1")).to_have_text("A11y Thing")
            _tab_to(tab, "#api-headers summary")  # add a header
            tab.keyboard.press("Enter")
            tab.keyboard.press("Tab")
            _expect(tab.get_by_label("Header name")).to_be_focused()
            tab.keyboard.type("X-Token")
            tab.keyboard.press("Tab")
            tab.keyboard.type("abc")
            tab.keyboard.press("Enter")
            _expect(tab.locator("#api-headers summary")).to_contain_text("X-Token")
            _expect(tab.get_by_label("Header name")).to_be_focused()
            _tab_to(tab, "#api-field-2")  # send a PUT: the "text" field of the HTML form
            tab.keyboard.press("ControlOrMeta+a")
            tab.keyboard.type("typed")
            _tab_to(tab, "button[value=PUT]")
            tab.keyboard.press("Enter")
            _expect(tab.locator("pre.response")).to_be_focused()
            _expect(tab.locator("pre.response")).to_contain_text('"typed"')
            tab.keyboard.press("Tab")  # fold the tree: its first button is next
            fold = tab.locator(".tree > .line > button.fold")
            _expect(fold).to_be_focused()
            tab.keyboard.press("Enter")
            _expect(fold).to_have_attribute("aria-expanded", "false")
            _expect(fold).to_be_focused()

    @pytest.mark.parametrize("path", ["/", "/0/", "/big/"])
    def test_axe_finds_nothing_on_a_phone(self, chromium, a11y_site, path):
        with _open_tab(chromium, a11y_site, viewport={"width": 390, "height": 844},
                       is_mobile=True, has_touch=True) as tab:
            tab.goto(path)
            assert _axe(tab) == []


# ---------------------------------------------------------------------------
# Notes app: the API
# ---------------------------------------------------------------------------

def _text_bodies(text):
    """The same ``text`` field as JSON, a form and multipart, as test-client arguments."""
    return [
        pytest.param({"json": {"text": text}}, id="json"),
        pytest.param({"data": {"text": text}}, id="form"),
        pytest.param({"data": {"text": text}, "content_type": "multipart/form-data"},
                     id="multipart"),
    ]


NOT_AN_OBJECT = [b"[1, 2]", b'"a string"', b"null", b"42", b"true"]


NOT_INTEGER_KEYS = ["abc", "1.5", "-1", "+1", "0x1", "1e3", "%20", "%201", "1%0A",
                    "%EF%BC%91", "%D9%A3", "one"]


class TestNotesAPI:
    """The notes API through the test client."""

    def test_notes_list_starts_with_three_notes_ordered_by_key(self, notes_client):
        resp = notes_client.get("/")
        assert resp.status_code == 200
        assert resp.mimetype == "application/json"
        assert resp.get_json() == [
            {"url": "http://localhost/0/", "text": "do the shopping"},
            {"url": "http://localhost/1/", "text": "build the codez"},
            {"url": "http://localhost/2/", "text": "paint the door"},
        ]

    def test_notes_list_orders_by_numeric_key_not_insertion_or_text(self, notes_client):
        notes_client.put("/10/", json={"text": "ten"})
        notes_client.put("/5/", json={"text": "five"})
        keys = [_key_of(note) for note in notes_client.get("/").get_json()]
        assert keys == [0, 1, 2, 5, 10]

    def test_notes_list_of_an_empty_store_is_an_empty_array(self, make_notes_client):
        resp = make_notes_client(notes={}).get("/")
        assert resp.status_code == 200
        assert resp.get_json() == []

    @pytest.mark.parametrize("body", _text_bodies("water the plants"))
    def test_post_creates_a_note_from_json_form_or_multipart(self, notes_client, body):
        resp = notes_client.post("/", **body)
        assert resp.status_code == 201
        assert resp.get_json() == {"url": "http://localhost/3/", "text": "water the plants"}
        assert notes_client.get("/3/").get_json()["text"] == "water the plants"
        assert _texts(notes_client) == INITIAL_TEXTS + ["water the plants"]

    def test_post_keys_count_up_from_the_largest_key(self, notes_client):
        urls = [notes_client.post("/", json={"text": str(n)}).get_json()["url"] for n in range(3)]
        assert urls == ["http://localhost/3/", "http://localhost/4/", "http://localhost/5/"]

    def test_post_after_deleting_the_largest_key_reuses_it(self, notes_client):
        assert notes_client.delete("/2/").status_code == 204
        assert notes_client.post("/",
                                 json={"text": "new"}).get_json()["url"] == "http://localhost/2/"

    def test_post_after_put_of_a_high_key_continues_above_it(self, notes_client):
        notes_client.put("/41/", json={"text": "far away"})
        resp = notes_client.post("/", json={"text": "next"})
        assert resp.get_json()["url"] == "http://localhost/42/"

    def test_post_into_an_empty_store_gets_key_zero(self, make_notes_client):
        client = make_notes_client(notes={})
        resp = client.post("/", json={"text": "first"})
        assert resp.status_code == 201
        assert resp.get_json() == {"url": "http://localhost/0/", "text": "first"}

    def test_post_after_deleting_every_note_starts_again_at_key_zero(self, notes_client):
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
    def test_post_without_text_stores_the_empty_string(self, notes_client, body):
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
    def test_post_with_non_string_text_stores_it_as_a_string(self, notes_client, value, text):
        resp = notes_client.post("/", json={"text": value})
        assert resp.status_code == 201
        stored = resp.get_json()["text"]
        assert isinstance(stored, str) and stored
        if text is not None:
            assert stored == text
        assert notes_client.get("/3/").get_json()["text"] == stored

    @pytest.mark.parametrize("body", NOT_AN_OBJECT)
    def test_post_of_a_json_body_that_is_not_an_object_is_a_400_and_adds_nothing(
            self, body, make_notes_client):
        client = make_notes_client(propagate=False)
        resp = client.post("/", data=body, content_type="application/json")
        _assert_api_error(resp, 400)
        assert _texts(client) == INITIAL_TEXTS

    @pytest.mark.parametrize("body", NOT_AN_OBJECT)
    def test_put_of_a_json_body_that_is_not_an_object_is_a_400_and_changes_nothing(
            self, body, make_notes_client):
        client = make_notes_client(propagate=False)
        resp = client.put("/0/", data=body, content_type="application/json")
        _assert_api_error(resp, 400)
        resp = client.put("/7/", data=body, content_type="application/json")
        _assert_api_error(resp, 400)
        assert _texts(client) == INITIAL_TEXTS

    @pytest.mark.parametrize("key", [0, 1, 2])
    def test_get_of_a_note_gives_its_url_and_text(self, notes_client, key):
        resp = notes_client.get("/{}/".format(key))
        assert resp.status_code == 200
        assert resp.get_json() == {"url": "http://localhost/{}/".format(key),
                                   "text": INITIAL_TEXTS[key]}

    def test_get_missing_note_is_a_404_with_detail(self, notes_client):
        _assert_api_error(notes_client.get("/3/"), 404)

    @pytest.mark.parametrize("body", _text_bodies("buy milk"))
    def test_put_replaces_the_text_of_an_existing_note(self, notes_client, body):
        resp = notes_client.put("/1/", **body)
        assert resp.status_code == 200
        assert resp.get_json() == {"url": "http://localhost/1/", "text": "buy milk"}
        assert notes_client.get("/1/").get_json()["text"] == "buy milk"
        assert _texts(notes_client) == ["do the shopping", "buy milk", "paint the door"]

    def test_put_creates_a_missing_note_under_that_key(self, notes_client):
        resp = notes_client.put("/7/", json={"text": "lucky"})
        assert resp.status_code == 200
        assert resp.get_json() == {"url": "http://localhost/7/", "text": "lucky"}
        assert notes_client.get("/7/").get_json() == {"url": "http://localhost/7/", "text": "lucky"}
        assert _texts(notes_client) == INITIAL_TEXTS + ["lucky"]

    def test_put_without_text_stores_the_empty_string(self, notes_client):
        assert notes_client.put("/0/", json={}).get_json()["text"] == ""
        assert notes_client.get("/0/").get_json()["text"] == ""

    def test_put_with_a_number_as_text_stores_it_as_a_string(self, notes_client):
        assert notes_client.put("/0/", json={"text": 7}).get_json()["text"] == "7"
        assert notes_client.get("/0/").get_json()["text"] == "7"

    def test_delete_note_is_a_204_with_empty_body_and_later_get_is_404(self, notes_client):
        resp = notes_client.delete("/1/")
        assert resp.status_code == 204
        assert resp.data == b""
        _assert_api_error(notes_client.get("/1/"), 404)
        assert _texts(notes_client) == ["do the shopping", "paint the door"]

    @pytest.mark.parametrize("key", ["3", "99", "1000000"])
    def test_delete_missing_note_is_still_a_204_with_empty_body(self, notes_client, key):
        resp = notes_client.delete("/{}/".format(key))
        assert resp.status_code == 204
        assert resp.data == b""
        _assert_api_error(notes_client.get("/{}/".format(key)), 404)
        assert _texts(notes_client) == INITIAL_TEXTS

    def test_delete_twice_is_a_204_both_times(self, notes_client):
        assert notes_client.delete("/0/").status_code == 204
        assert notes_client.delete("/0/").status_code == 204
        _assert_api_error(notes_client.get("/0/"), 404)

    @pytest.mark.parametrize("text", [
        "naïve café", "日本語のメモ", "🎉 party 👩‍👩‍👧", "שלום עולם", "nul\x00inside",
        "tab\tand\nnewline", " ", "\ufeffbom and \u202eright-to-left override",
    ], ids=["accents", "cjk", "emoji", "rtl", "nul", "controls", "space", "format-chars"])
    def test_notes_keep_any_unicode_text_exactly(self, notes_client, text):
        assert notes_client.post("/", json={"text": text}).get_json()["text"] == text
        assert notes_client.get("/3/").get_json()["text"] == text
        assert notes_client.put("/0/", data={"text": text}).status_code == 200
        assert _texts(notes_client) == [text] + INITIAL_TEXTS[1:] + [text]

    def test_note_views_have_docstrings_shown_on_the_browsable_page(self, notes_client):
        views = notes_client.application.view_functions
        for endpoint in ("notes_list", "notes_detail"):
            assert (views[endpoint].__doc__ or "").strip()
        resp = notes_client.get("/", headers={"Accept": "text/html"})
        assert resp.status_code == 200
        assert resp.mimetype == "text/html"
        assert "All notes, ordered by key." in resp.get_data(as_text=True)

    @pytest.mark.parametrize("key", NOT_INTEGER_KEYS)
    def test_get_with_a_non_integer_key_is_a_404_with_detail(self, key, make_notes_client):
        client = make_notes_client(propagate=False)
        _assert_api_error(client.get("/{}/".format(key)), 404)

    @pytest.mark.parametrize("key", NOT_INTEGER_KEYS)
    def test_put_with_a_non_integer_key_is_a_404_and_stores_nothing(self, key, make_notes_client):
        client = make_notes_client(propagate=False)
        _assert_api_error(client.put("/{}/".format(key), json={"text": "sneaky"}), 404)
        assert _texts(client) == INITIAL_TEXTS

    @pytest.mark.parametrize("key", NOT_INTEGER_KEYS)
    def test_delete_with_a_non_integer_key_is_a_404_and_deletes_nothing(self, key,
                                                                        make_notes_client):
        client = make_notes_client(propagate=False)
        _assert_api_error(client.delete("/{}/".format(key)), 404)
        assert _texts(client) == INITIAL_TEXTS

    @pytest.mark.parametrize("method", ["get", "put", "delete"])
    def test_very_long_numeric_key_is_never_a_server_error(self, method, make_notes_client):
        client = make_notes_client(propagate=False)
        resp = getattr(client, method)("/" + "9" * 5000 + "/", json={"text": "huge"})
        assert resp.status_code < 500
        if method == "get":
            _assert_api_error(resp, 404)

    def test_put_of_a_very_long_key_does_not_break_listing_or_creating(self, make_notes_client):
        client = make_notes_client(propagate=False)
        resp = client.put("/" + "9" * 4300 + "/", json={"text": "huge"})
        assert resp.status_code < 500
        resp = client.post("/", json={"text": "after"})
        assert resp.status_code < 500
        resp = client.get("/")
        assert resp.status_code == 200
        assert resp.get_json()[:3] == [
            {"url": "http://localhost/{}/".format(k), "text": t} for k,
                                       t in enumerate(INITIAL_TEXTS)]

    def test_note_url_is_absolute_and_leads_back_to_the_note(self, notes_client):
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
    def test_note_urls_follow_the_request_host_and_prefix(self, notes_client, kwargs, root):
        listed = notes_client.get("/", **kwargs).get_json()
        assert [note["url"] for note in listed] == [root + "/0/", root + "/1/", root + "/2/"]
        assert notes_client.get("/1/", **kwargs).get_json()["url"] == root + "/1/"
        assert notes_client.post("/", json={"text": "x"},
                                 **kwargs).get_json()["url"] == root + "/3/"
        assert notes_client.put("/8/", json={"text": "y"},
                                **kwargs).get_json()["url"] == root + "/8/"

    def test_concurrent_posts_never_lose_a_note_or_share_a_key(self, notes_db):
        app = notes_app.create_app(db=notes_db)
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
        assert {(n["url"], n["text"]) for n in listed[3:]} == {(n["url"],
                                                                n["text"]) for n in created}

    def test_concurrent_puts_deletes_posts_and_reads_never_crash(self, notes_db):
        app = notes_app.create_app(db=notes_db)
        app.testing = True

        def work(index, barrier):
            client = app.test_client()
            barrier.wait(30)
            for n in range(30):
                key = "/{}/".format((index + n) % 5)
                assert client.put(key, json={"text": "v{}".format(n)}).status_code == 200
                assert client.delete("/{}/".format((index * 3 + n) % 5)).status_code == 204
                assert client.get(key).status_code in (200, 404)
                # The form as bytes: werkzeug 3.2's test client keeps a dict given as ``data`` in
                # one form that all its requests share, which threads then change under each other.
                assert client.post(
                    "/", data=b"text=p",
                    content_type="application/x-www-form-urlencoded").status_code == 201
                assert client.get("/").status_code == 200

        _run_threads(8, work)
        client = app.test_client()
        listed = client.get("/").get_json()
        keys = [_key_of(note) for note in listed]
        assert keys == sorted(set(keys))
        for note in listed:
            assert client.get(note["url"]).get_json() == note

    def test_post_when_the_largest_key_is_taken_is_a_conflict_and_stores_nothing(self,
                                                                                 make_notes_client):
        largest = 10 ** notes_app.MAX_KEY_DIGITS - 1
        client = make_notes_client({largest: "last"})
        resp = client.post("/", json={"text": "one too many"})
        _assert_api_error(resp, 409)
        assert _texts(client) == ["last"]


# ---------------------------------------------------------------------------
# Notes app: body limit and trusted hosts
# ---------------------------------------------------------------------------

MiB = 1024 * 1024


def _status_for_body_of(app, size):
    """The status of a POST whose JSON body is ``size`` bytes long."""
    body = json.dumps({"text": "x" * (size - len('{"text": ""}'))})
    assert len(body) == size
    return app.test_client().post("/", data=body, content_type="application/json").status_code


@pytest.fixture
def trusting_notes_client(monkeypatch):
    monkeypatch.setenv("NOTES_TRUSTED_HOSTS", "example.com, api.example.com")
    app = notes_app.create_app()
    app.testing = True
    return app.test_client()


class TestNotesLimitsAndHosts:
    """NOTES_MAX_BODY and trusted hosts."""

    @pytest.mark.parametrize("method, url", [("post", "/"), ("put", "/0/")])
    def test_notes_body_over_one_mib_is_a_413_with_detail_and_stores_nothing(
            self, notes_client, method, url):
        resp = getattr(notes_client, method)(url, json={"text": "x" * (2 * MiB)})
        _assert_api_error(resp, 413)
        assert _texts(notes_client) == INITIAL_TEXTS

    def test_notes_form_body_over_one_mib_is_a_413_too(self, notes_client):
        _assert_api_error(notes_client.post("/", data={"text": "x" * (2 * MiB)}), 413)
        assert _texts(notes_client) == INITIAL_TEXTS

    def test_notes_body_just_under_one_mib_is_stored(self, notes_client):
        text = "x" * (MiB - 100)
        resp = notes_client.post("/", json={"text": text})
        assert resp.status_code == 201
        assert notes_client.get("/3/").get_json()["text"] == text

    def test_notes_max_body_comes_from_the_environment_or_create_app(self, monkeypatch):
        monkeypatch.setenv("NOTES_MAX_BODY", "200")
        app = notes_app.create_app()
        assert app.config["MAX_CONTENT_LENGTH"] == 200
        assert (_status_for_body_of(app, 200), _status_for_body_of(app, 201)) == (201, 413)
        app = notes_app.create_app(max_body=5000)  # the argument wins over the environment
        assert (_status_for_body_of(app, 5000), _status_for_body_of(app, 5001)) == (201, 413)

    @pytest.mark.parametrize("value", ["", "lots", "-5", "0", "1.5"])
    def test_notes_max_body_from_the_environment_must_be_a_positive_number(self, monkeypatch,
                                                                           value):
        monkeypatch.setenv("NOTES_MAX_BODY", value)
        with pytest.raises(ValueError, match="NOTES_MAX_BODY"):
            notes_app.create_app()

    def test_notes_app_main_sets_the_body_limit_from_flag_or_environment(self, notes_main,
                                                                         monkeypatch):
        assert notes_main([])[0].config["MAX_CONTENT_LENGTH"] == MiB
        assert notes_main(["--max-body", "2048"])[0].config["MAX_CONTENT_LENGTH"] == 2048
        monkeypatch.setenv("NOTES_MAX_BODY", "4096")
        assert notes_main([])[0].config["MAX_CONTENT_LENGTH"] == 4096
        assert notes_main(["--max-body", "2048"])[0].config["MAX_CONTENT_LENGTH"] == 2048

    @pytest.mark.parametrize("value", ["lots", "0"])
    def test_notes_app_main_rejects_a_bad_body_limit(self, notes_main, capsys, value):
        with pytest.raises(SystemExit) as info:
            notes_main(["--max-body", value])
        assert info.value.code == 2
        assert "--max-body" in capsys.readouterr().err

    @pytest.mark.parametrize("host", ["evil.example", "example.com.evil.example", "localhost"])
    def test_notes_request_with_an_untrusted_host_is_a_400_and_stores_nothing(
            self, trusting_notes_client, host):
        client = trusting_notes_client
        _assert_api_error(client.get("/", headers={"Host": host}), 400)
        _assert_api_error(client.post("/", json={"text": "poison"}, headers={"Host": host}), 400)
        texts = [n["text"] for n in client.get("/", headers={"Host": "example.com"}).get_json()]
        assert texts == INITIAL_TEXTS

    @pytest.mark.parametrize("host", ["example.com", "api.example.com", "api.example.com:8080"])
    def test_notes_request_with_a_trusted_host_works_and_links_to_it(self, trusting_notes_client,
                                                                     host):
        resp = trusting_notes_client.get("/1/", headers={"Host": host})
        assert resp.status_code == 200
        assert resp.get_json()["url"] == "http://{}/1/".format(host)


# ---------------------------------------------------------------------------
# Notes app: the SQLite store
# ---------------------------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path):
    """A 512 KiB filesystem of its own (a tmpfs), and a function that remounts it
    read-only or writable; skipped where this process may not mount one."""
    where = tmp_path / "disk"
    where.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(where)],
                      stderr=subprocess.DEVNULL).returncode != 0:
        pytest.skip("needs to mount a tmpfs (root)")

    def remount(mode):
        subprocess.run(["mount", "-o", "remount," + mode, str(where)], check=True)
    yield where, remount
    subprocess.run(["umount", "-l", str(where)])


def _holding_the_write_lock(path, seconds):
    """Another process that holds the file's write lock for ``seconds``."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys, time\n"
        "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "db.execute('BEGIN IMMEDIATE')\n"
        "print('locked', flush=True)\n"
        "time.sleep(float(sys.argv[2]))\n"), str(path), str(seconds)],
        stdout=subprocess.PIPE, universal_newlines=True)
    assert holder.stdout.readline().strip() == "locked"
    return holder


class TestNotesSQLite:
    """Restarts, locks, read-only and full disks, damaged and foreign files."""

    def test_sqlite_notes_survive_a_restart_and_are_seeded_only_once(self, tmp_path):
        path = str(tmp_path / "notes.db")
        first = notes_app.create_app(db=path).test_client()
        assert first.post("/", json={"text": "keep me"}).status_code == 201
        assert first.delete("/0/").status_code == 204
        second = notes_app.create_app(db=path).test_client()
        assert _texts(second) == ["build the codez", "paint the door", "keep me"]
        for key in (1, 2, 3):
            second.delete("/{}/".format(key))
        third = notes_app.create_app(notes={7: "not used"}, db=path).test_client()
        assert _texts(third) == []  # emptied by a user, not new: no seeding
        assert third.post("/", json={"text": "again"}).get_json()["url"] == "http://localhost/0/"

    def test_a_write_that_finds_the_sqlite_file_locked_too_long_is_a_503_not_a_500(
            self, monkeypatch, tmp_path):
        import sqlite3
        path = str(tmp_path / "notes.db")
        notes_app.create_app(db=path)  # a new file, set up with the usual wait
        monkeypatch.setattr(notes_app, "BUSY_TIMEOUT", 0.05)
        client = notes_app.create_app(db=path).test_client()  # connections with the short wait
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process's long write
        try:
            response = client.post("/", json={"text": "later"})
            assert response.status_code == 503 and response.headers["Retry-After"] == "1"
            assert _json(response)["detail"]
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert client.post("/", json={"text": "now"}).status_code == 201
        assert _texts(client) == INITIAL_TEXTS + ["now"]

    def test_notes_db_comes_from_the_environment(self, monkeypatch, tmp_path):
        path = str(tmp_path / "notes.db")
        monkeypatch.setenv("NOTES_DB", path)
        notes_app.create_app().test_client().post("/", json={"text": "from the env"})
        monkeypatch.delenv("NOTES_DB")
        assert _texts(notes_app.create_app(db=path).test_client())[-1] == "from the env"
        assert _texts(notes_app.create_app().test_client()) == INITIAL_TEXTS  # memory again

    def test_notes_app_main_keeps_notes_in_the_db_file_given(self, notes_main, tmp_path):
        path = str(tmp_path / "notes.db")
        served = notes_main(["--db", path])[0]
        served.test_client().put("/5/", json={"text": "on disk"})
        reopened = notes_app.create_app(db=path).test_client()
        assert reopened.get("/5/").get_json()["text"] == "on disk"

    def test_notes_app_uses_a_store_it_is_given(self):
        store = notes_app.NoteStore({7: "seven"})
        client = notes_app.create_app(store=store).test_client()
        assert client.post("/", json={"text": "eight"}).get_json()["url"] == "http://localhost/8/"
        assert store.items() == [(7, "seven"), (8, "eight")]

    def test_sqlite_store_set_up_by_several_processes_at_once_seeds_once(self, tmp_path):
        """Workers starting together on a new file: one creates and seeds it, none fails."""
        path = str(tmp_path / "notes.db")
        script = ("import sys, notes_app; print('ready', flush=True); sys.stdin.readline(); "
                  "print(notes_app.SQLiteNoteStore(sys.argv[1]).items())")
        env = dict(os.environ)
        env.pop("NOTES_DB", None)
        procs = [subprocess.Popen([sys.executable, "-c", script, path], cwd=NOTES_DIR, env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  universal_newlines=True) for _ in range(4)]
        try:
            for proc in procs:  # all imported: now let them go at once
                assert proc.stdout.readline() == "ready\n"
            for proc in procs:
                proc.stdin.write("\n")
                proc.stdin.flush()
            outputs = [proc.communicate(timeout=60)[0] for proc in procs]
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
        seeded = repr(sorted(notes_app.INITIAL_NOTES.items())) + "\n"
        assert outputs == [seeded] * 4
        assert [proc.returncode for proc in procs] == [0] * 4

    def test_a_worker_starts_on_a_read_only_disk_reads_and_answers_writes_503(self, small_disk):
        where, remount = small_disk
        path = str(where / "notes.db")
        notes_app.create_app(db=path)  # set up while writable
        remount("ro")
        client = notes_app.create_app(db=path).test_client()  # a worker restarting now
        assert [note["text"] for note in client.get("/").get_json()] == list(
            notes_app.INITIAL_NOTES.values())
        refused = _put(client, 1, "new")
        assert refused.status_code == 503 and refused.headers["Retry-After"]
        assert "read-only" in refused.get_json()["detail"]
        remount("rw")
        assert _put(client, 1, "new").status_code == 200  # writes again once it can
        assert client.get("/1/").get_json()["text"] == "new"

    def test_a_worker_starts_while_another_process_holds_the_write_lock(self, tmp_path,
                                                                        monkeypatch):
        path = tmp_path / "notes.db"
        notes_app.create_app(db=str(path))
        monkeypatch.setattr(notes_app, "BUSY_TIMEOUT", 0.5)
        holder = _holding_the_write_lock(path, 5)
        try:
            client = notes_app.create_app(db=str(path)).test_client()  # no write to start
            assert client.get("/1/").get_json()["text"] == "build the codez"
            refused = _put(client, 1, "new")
            assert refused.status_code == 503 and refused.headers["Retry-After"] == "1"
            assert "busy" in refused.get_json()["detail"]
        finally:
            holder.kill()
            holder.wait()
        assert _put(client, 1, "new").status_code == 200

    def test_readers_never_wait_for_writers_and_a_write_waits_the_busy_timeout_at_most(
            self, tmp_path, monkeypatch):
        path = tmp_path / "notes.db"
        app = notes_app.create_app(db=str(path))
        # 3 s: a read that waited for the lock would take it all, and a loaded machine's
        # threads (0.7 s seen in CI) stay far from it
        monkeypatch.setattr(notes_app, "BUSY_TIMEOUT", 3.0)
        holder = _holding_the_write_lock(path, 10)
        took = {}

        def timed(name, call):
            started = time.monotonic()
            call()
            took[name] = time.monotonic() - started
        calls = [("write {}".format(n), functools.partial(_put, app.test_client(), n, "x"))
                 for n in range(4)]
        calls += [("read {}".format(n), functools.partial(app.test_client().get, "/"))
                  for n in range(4)]
        threads = [threading.Thread(target=timed, args=call) for call in calls]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
        finally:
            holder.kill()
            holder.wait()
        reads = [took[name] for name in took if name.startswith("read")]
        writes = [took[name] for name in took if name.startswith("write")]
        assert len(reads) == len(writes) == 4
        assert max(reads) < 1.5  # not behind the writes in this process, nor the other's lock
        assert max(writes) < 6.0  # the 4th writer waits 3 s in all, not 4 x 3 s

    @pytest.mark.parametrize("content", [
        "CREATE TABLE notes (id INTEGER, body BLOB, owner TEXT);"
        "INSERT INTO notes VALUES (1, 'theirs', 'bob');",
        "CREATE TABLE invoices (n INTEGER);",
    ], ids=["a notes table of another shape", "other tables"])
    def test_another_apps_sqlite_file_is_refused_in_one_line_and_left_unchanged(
            self, tmp_path, notes_main, capsys, content):
        path = tmp_path / "theirs.db"
        db = sqlite3.connect(str(path))
        db.executescript(content)
        db.close()
        before = path.read_bytes()
        with pytest.raises(notes_app.StoreError, match="is not a notes database"):
            notes_app.create_app(db=str(path))
        with pytest.raises(SystemExit) as exit_:
            notes_app.main(["--db", str(path)])
        err = capsys.readouterr().err
        assert exit_.value.code == 1 and err.count("\n") == 1 and "Traceback" not in err
        assert path.read_bytes() == before

    def test_a_damaged_database_file_is_refused_in_one_line(self, tmp_path, notes_main, capsys):
        path = tmp_path / "notes.db"
        path.write_bytes(bytes(random.Random(7).randrange(256) for _ in range(8192)))
        with pytest.raises(SystemExit):
            notes_app.main(["--db", str(path)])
        err = capsys.readouterr().err
        assert "is not an SQLite database, or it is damaged" in err and err.count("\n") == 1

    def test_gunicorn_style_import_refuses_another_apps_file_with_one_line(self, tmp_path):
        path = tmp_path / "theirs.db"
        db = sqlite3.connect(str(path))
        db.executescript("CREATE TABLE notes (id INTEGER, body BLOB);")
        db.close()
        env = dict(os.environ, NOTES_DB=str(path))
        run = subprocess.run([sys.executable, "-c", "import notes_app"], cwd=NOTES_DIR, env=env,
                             stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        assert run.returncode == 1 and "Traceback" not in run.stderr
        assert run.stderr.startswith("notes_app: ") and "not a notes database" in run.stderr

    def test_a_full_disk_is_a_507_that_loses_nothing_and_writes_again_once_freed(self, small_disk):
        where, _ = small_disk
        client = notes_app.create_app(db=str(where / "notes.db")).test_client()
        filler = where / "filler"
        filler.write_bytes(b"\0" * 300 * 1024)  # the disk is mostly taken by something else
        stored = {}
        for key in range(100):
            response = _put(client, key, "x" * 20000 + str(key))
            if response.status_code != 200:
                break
            stored[key] = "x" * 20000 + str(key)
        assert response.status_code == 507 and response.headers["Retry-After"]
        assert "full" in response.get_json()["detail"]
        listed = {int(note["url"].rstrip("/").rsplit("/", 1)[1]): note["text"]
                  for note in client.get("/").get_json()}
        assert {key: listed[key] for key in stored} == stored  # nothing lost
        filler.unlink()  # space is back
        assert _put(client, key, "x" * 20000 + str(key)).status_code == 200
        assert client.get("/{}/".format(key)).get_json()["text"] == "x" * 20000 + str(key)


# ---------------------------------------------------------------------------
# Notes app: the PostgreSQL store
# ---------------------------------------------------------------------------

def _get(port, path):
    """(status, headers, body) of a GET for JSON, on a connection of its own."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Accept": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def _first_answer(proc, log, workers):
    """The port of a gunicorn that answers, any status; fails as soon as a worker is booted
    again (one that exited) or after 60 s."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = _read(log)
        assert proc.poll() is None and text.count("Booting worker") <= workers, text
        port = re.search(r"Listening at: http://127\.0\.0\.1:([0-9]+)", text)
        if port and text.count("Booting worker") == workers:
            with contextlib.suppress(OSError):
                _get(int(port.group(1)), "/")
                return int(port.group(1))
        time.sleep(0.05)
    pytest.fail("gunicorn did not answer within 60 s:\n" + _read(log))


class TestNotesPostgres:
    """On a real server the tests start themselves: seeding, foreign tables, outages."""

    def test_postgres_store_serves_the_notes_api_and_seeds_a_new_database_once(self, postgres):
        url = postgres.new_database()
        client = notes_app.create_app(db=url).test_client()
        assert _texts(client) == list(notes_app.INITIAL_NOTES.values())
        assert client.post("/", json={"text": "four"}).status_code == 201
        assert _put(client, 9, "nine").status_code == 200
        assert _key_of(client.post("/", json={"text": "ten"}).get_json()) == 10
        assert client.delete("/0/").status_code == 204
        again = notes_app.create_app(db=url).test_client()  # another server: nothing re-seeded
        assert _texts(again) == ["build the codez", "paint the door", "four", "nine", "ten"]

    def test_postgres_refuses_a_notes_table_that_is_not_this_apps(self, postgres, notes_main,
                                                                  capsys):
        import psycopg
        url = postgres.new_database()
        with psycopg.connect(url, autocommit=True) as db:
            db.execute("CREATE TABLE notes (id INTEGER, body TEXT)")
            db.execute("INSERT INTO notes VALUES (1, 'theirs')")
        with pytest.raises(SystemExit):
            notes_app.main(["--db", url])
        err = capsys.readouterr().err
        assert "not this app's" in err and err.count("\n") == 1 and "Traceback" not in err
        with psycopg.connect(url) as db:
            assert db.execute("SELECT * FROM notes").fetchall() == [(1, "theirs")]

    def test_postgres_down_mid_run_is_a_503_and_the_app_recovers_by_itself(self, postgres):
        client = notes_app.create_app(db=postgres.new_database()).test_client()
        assert client.get("/").status_code == 200
        postgres.stop()
        try:
            started = time.monotonic()
            for answer in (client.get("/1/"), _put(client, 1, "while down")):
                assert answer.status_code == 503 and answer.headers["Retry-After"]
                assert "cannot be reached" in answer.get_json()["detail"]
            assert time.monotonic() - started < 2 * notes_app.POSTGRES_CONNECT_TIMEOUT + 4
        finally:
            postgres.start()
        assert _put(client, 1, "back").status_code == 200  # the pool reconnects by itself
        assert client.get("/1/").get_json()["text"] == "back"

    def test_notes_app_with_postgres_unreachable_at_start_answers_503_and_says_so_once(
            self, notes_main, caplog):
        _optional("psycopg")
        client = notes_main(["--db", "postgresql://notes@127.0.0.1:1/notes"])[0].test_client()
        answers = [client.get("/")]
        time.sleep(1.1)  # past the next try: the server is tried again, and fails again
        answers += [client.get("/1/"), _put(client, 1, "while down")]
        for answer in answers:
            assert answer.status_code == 503 and answer.headers["Retry-After"] == "1"
            assert "cannot be reached" in answer.get_json()["detail"]
        said = [record.getMessage() for record in caplog.records if record.name == "notes_app"]
        assert len(said) == 1, said
        assert said[0].startswith("notes_app: cannot reach the PostgreSQL database (connection")

    def test_gunicorn_starts_with_postgres_down_answers_503_then_serves_once_it_is_up(self,
                                                                                      tmp_path):
        """Workers that exited for a database out of reach were booted again twice a second,
        each saying why, and nothing answered."""
        if not os.path.exists(GUNICORN):
            pytest.skip("gunicorn is not installed")
        _optional("psycopg")
        if Postgres.find() is None:
            _no_postgres(
                "the PostgreSQL tests need its server (Debian: apt-get install postgresql)")
        server = Postgres(Postgres.find())  # made, not started: nothing listens at its URL yet
        env = {name: value for name, value in os.environ.items() if not name.startswith("NOTES_")}
        env.update(NOTES_DB=server.url("postgres"), XDG_RUNTIME_DIR=str(tmp_path))
        log = str(tmp_path / "gunicorn.log")
        with open(log, "w") as out:
            proc = subprocess.Popen([GUNICORN, "--workers", "2", "--threads", "4", "--bind",
                                     "127.0.0.1:0", "notes_app:app"], cwd=NOTES_DIR, env=env,
                                    stdout=out, stderr=subprocess.STDOUT)
        try:
            port = _first_answer(proc, log, workers=2)
            for _ in range(10):  # over 2.5 s: each worker tries the server again, and fails
                status, headers, body = _get(port, "/")
                assert status == 503 and headers["Retry-After"] == "1"
                assert "cannot be reached" in json.loads(body.decode("utf-8"))["detail"]
                time.sleep(0.25)
            server.start()
            deadline, served = time.monotonic() + 10, []
            while len(served) < 5 and time.monotonic() < deadline:  # 5 in a row: both workers
                status, _, body = _get(port, "/")
                served = served + [body] if status == 200 else []
                time.sleep(0.1)
            assert len(served) == 5, _read(log)
            listed = json.loads(served[-1].decode("utf-8"))
            assert [note["text"] for note in listed] == INITIAL_TEXTS
            text = _read(log)
            assert text.count("Booting worker") == 2, text  # none exited, none booted again
            assert 1 <= text.count("cannot reach the PostgreSQL database") <= 2, text  # per worker
            assert text.count("reached the PostgreSQL database: serving") <= 2, text
        finally:
            _stop(proc)
            with contextlib.suppress(subprocess.SubprocessError):
                server.stop("immediate")
            shutil.rmtree(server.root, ignore_errors=True)


# ---------------------------------------------------------------------------
# Notes app: command line
# ---------------------------------------------------------------------------

class TestNotesCommandLine:
    """notes_app.py run as a script."""

    def test_notes_app_help_runs_as_a_script(self):
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
    def test_notes_app_main_passes_host_and_port_to_app_run(self, notes_main, argv, host, port):
        assert notes_main(argv)[1:] == (host, port)

    def test_notes_app_main_rejects_a_non_numeric_port(self, notes_main, capsys):
        with pytest.raises(SystemExit) as info:
            notes_main(["--port", "http"])
        assert info.value.code == 2
        assert "--port" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Notes app: bad input at random (fuzz)
# ---------------------------------------------------------------------------

FUZZ_CONTENT_TYPES = [
    "application/json", "application/json; charset=utf-8", "application/json; charset=latin-1",
    "application/json; charset=utf-16", "application/json; charset=bogus",
    "application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=utf-8",
    "multipart/form-data", "multipart/form-data; boundary=b", "multipart/form-data; boundary=",
    "multipart/form-data; boundary=\"\"", "text/plain", "application/*", "*/*", ";;", "",
    "application/json; q=0", "APPLICATION/JSON",
]
FUZZ_ACCEPTS = [
    None, "*/*", "text/html", "application/json; indent=x", "application/json; indent=-3",
    "application/xml", "*/*; q=abc", ",,,", "text/*; q=0, */*; q=0.1", "application/json;;;",
    "text/html; q=2", "application/json; api-version=\"1", "image/png; q=0",
]
FUZZ_PIECES = [
    b"{", b"}", b"[", b"]", b'"text"', b":", b",", b"null", b"NaN", b"1e999", b"-", b"\xff",
    b"\xc3", b"\x00", b"text=", b"&", b"%", b"%zz", b"--b\r\n", b"--b--\r\n",
    b'Content-Disposition: form-data; name="text"\r\n\r\n', b"\r\n", b"\\u", b"\\ud800", b"'",
    b"true", b"0", b"\xef\xbb\xbf",
]


def _random_body(rng):
    return b"".join(rng.choice(FUZZ_PIECES) for _ in range(rng.randrange(0, 12)))


class TestNotesFuzz:
    """Random bad input through the test client and over sockets to gunicorn."""

    @pytest.mark.parametrize("seed", range(8))
    def test_random_bad_input_never_gives_a_500_or_changes_notes_it_rejects(self, seed):
        rng = random.Random(seed)
        app = notes_app.create_app()
        app.testing = False  # what production does with an unexpected exception: a 500
        client = app.test_client()
        for _ in range(150):
            before = client.get("/").get_json()
            method, path = rng.choice([("POST", "/"), ("PUT", "/1/"), ("PUT", "/77/"),
                                       ("DELETE", "/2/"), ("GET", "/x%ff/"), ("PATCH", "/1/")])
            headers = {}
            accept = rng.choice(FUZZ_ACCEPTS)
            if accept is not None:
                headers["Accept"] = accept
            response = client.open(path, method=method, data=_random_body(rng), headers=headers,
                                   content_type=rng.choice(FUZZ_CONTENT_TYPES))
            where = "seed {}: {} {} {!r}".format(seed, method, path, headers)
            assert response.status_code < 500, where
            if response.status_code >= 400:
                if response.mimetype == "application/json":
                    assert response.get_json()["detail"], where
                assert client.get("/").get_json() == before, where

    def test_fuzz_run_against_gunicorn_over_sockets_finds_no_violation(self):
        """tools/fuzz_notes.py for 200 requests (CI runs 3000): odd requests on raw sockets to
        gunicorn never get a 5xx, and GET / always lists what the successful writes stored."""
        pytest.importorskip("gunicorn", reason="the fuzz run serves the notes app with gunicorn")
        result = subprocess.run(
            [sys.executable, "tools/fuzz_notes.py", "--requests", "200", "--seed", "1",
             "--check-every", "50", "--time-limit", "60"],
            cwd=os.path.dirname(os.path.abspath(notes_app.__file__)),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=180)
        assert result.returncode == 0, result.stdout[-8000:]
        assert re.search(r"^fuzz_notes: 200 requests in .*; 0 violations$", result.stdout, re.M)


# ---------------------------------------------------------------------------
# Notes app: on gunicorn
# ---------------------------------------------------------------------------

def _gunicorn(tmp_path, name, env, workers=2, options=()):
    """notes_app under gunicorn with ``workers`` workers of 4 threads, and any other
    ``options`` of gunicorn's: (process, port)."""
    log = str(tmp_path / (name + ".log"))
    runtime = tmp_path / name
    runtime.mkdir()
    env = dict(env, XDG_RUNTIME_DIR=str(runtime))
    with open(log, "w") as out:
        proc = subprocess.Popen([GUNICORN, "--workers", str(workers), "--threads", "4",
                                 "--bind", "127.0.0.1:0"] + list(options) + ["notes_app:app"],
                                cwd=NOTES_DIR, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        return proc, _wait_for_gunicorn(proc, log, workers)
    except BaseException:  # pytest.fail's too
        _stop(proc)
        raise


@pytest.fixture
def gunicorn_notes(tmp_path):
    """notes_app under a real gunicorn, 4 workers of 4 threads on one new SQLite file.

    Yields the port and a function returning the pids of the workers that answered.
    """
    if not os.path.exists(GUNICORN):
        pytest.skip("gunicorn is not installed")
    log, access = str(tmp_path / "gunicorn.log"), str(tmp_path / "access.log")
    env = {name: value for name, value in os.environ.items() if not name.startswith("NOTES_")}
    env["NOTES_DB"] = str(tmp_path / "notes.db")
    # gunicorn 25.1+ opens a control socket there, else in ~/.gunicorn, shared by every instance
    env["XDG_RUNTIME_DIR"] = str(tmp_path)
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [GUNICORN, "--workers", "4", "--threads", "4", "--bind", "127.0.0.1:0",
             "--access-logfile", access, "--access-logformat", "%(p)s", "notes_app:app"],
            cwd=NOTES_DIR, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        port = _wait_for_gunicorn(proc, log)

        def pids():
            with open(access) as lines:
                return {line.strip() for line in lines}

        yield port, pids
    finally:
        _stop(proc)


def _path_of(key):
    return "/{}/".format(key)


class TestNotesOnGunicorn:
    """Workers and masters sharing one store, killed mid-write."""

    def test_gunicorn_workers_share_every_note_without_losing_writes(self, gunicorn_notes):
        """Clients create, update, delete and read at once; each checks its own notes.

        A key can come back from a POST again once its note is deleted, so "no
        duplicate key" means: no POST returns a key whose note is still in use.
        """
        port, worker_pids = gunicorn_notes
        in_use = {}  # key -> the client that holds it
        in_use_lock = threading.Lock()
        kept = {}  # client -> {key: text}, what it created and did not delete
        deadline = time.monotonic() + 3

        def client(index, barrier):
            rng, mine = random.Random(index), {}
            kept[index] = mine
            barrier.wait(30)
            for step in range(400):
                if time.monotonic() > deadline:
                    break
                action = "post" if len(mine) < 3 else rng.choice(["post", "put", "delete", "get"])
                if action == "post":
                    text = "client {} note {} ✓".format(index, step)
                    status_code, note = _http(port, "POST", "/", {"text": text})
                    assert status_code == 201 and note["text"] == text
                    with in_use_lock:
                        assert _key_of(note) not in in_use, "a key given out twice"
                        in_use[_key_of(note)] = index
                    mine[_key_of(note)] = text
                    continue
                key = rng.choice(sorted(mine))
                if action == "put":
                    mine[key] = "client {} edit {}".format(index, step)
                    assert _http(port, "PUT", _path_of(key), {"text": mine[key]})[0] == 200
                elif action == "delete":
                    del mine[key]
                    with in_use_lock:  # before the request: the key is free once it is sent
                        del in_use[key]
                    assert _http(port, "DELETE", _path_of(key)) == (204, None)
                    continue  # another client may have the key already
                # whichever worker answers has seen this client's last write
                status_code, note = _http(port, "GET", _path_of(key))
                assert (status_code, note["text"]) == (200, mine[key])

        _run_threads(6, client, interleave=False)
        expected = sorted(notes_app.INITIAL_NOTES.items())
        expected = sorted(expected + [item for mine in kept.values() for item in mine.items()])
        assert len(expected) > 3 + 6 * 3, "the clients did too little to prove anything"
        for _ in range(16):
            status_code, listed = _http(port, "GET", "/")
            assert status_code == 200
            assert [(_key_of(note), note["text"]) for note in listed] == expected
        assert len(worker_pids()) >= 2, "one worker answered everything"

    @pytest.mark.parametrize("max_body, content_type, code", [
        (None, "application/json", 413),  # over the 1 MiB limit
        (str(64 * 2 ** 20), "multipart/form-data; boundary=", 400),  # no boundary to read by
    ])
    def test_a_client_that_reads_only_after_sending_a_refused_body_gets_the_whole_page(
            self, tmp_path, max_body, content_type, code):
        """A browser uploading 5 MiB that the app refuses unread: gunicorn reads 64 KiB of it
        and closes, and a close while the client still sends is a reset, which lost the
        answer. The app reads the rest (16 MiB at most) once it has answered: the client
        sends it all, then reads the whole error page."""
        if not os.path.exists(GUNICORN):
            pytest.skip("gunicorn is not installed")
        env = {k: v for k, v in os.environ.items() if not k.startswith("NOTES_")}
        if max_body:
            env["NOTES_MAX_BODY"] = max_body
        master, port = _gunicorn(tmp_path, "refused", env, workers=1)
        body = b"--\r\n" + b"y" * (5 * 2 ** 20)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
                client.sendall("POST / HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nContent-Type: "
                               "{}\r\nContent-Length: {}\r\n\r\n".format(content_type, len(body))
                               .encode() + body)
                answer = client.makefile("rb")
                status_line = answer.readline()
                head = {}
                for line in iter(answer.readline, b"\r\n"):
                    name, _, value = line.decode("latin-1").partition(":")
                    head[name.strip().lower()] = value.strip()
                page = answer.read(int(head["content-length"]))
        finally:
            _stop(master)
        assert status_line.startswith("HTTP/1.1 {} ".format(code).encode())
        assert page.rstrip().endswith(b"</html>") and b'"detail"' in page

    def test_two_gunicorn_masters_on_one_postgres_share_every_note_and_no_key(
            self, postgres, tmp_path):
        if not os.path.exists(GUNICORN):
            pytest.skip("gunicorn is not installed")
        env = {k: v for k, v in os.environ.items() if not k.startswith("NOTES_")}
        env["NOTES_DB"] = postgres.new_database()
        machines = [_gunicorn(tmp_path, name, env) for name in ("one", "two")]
        made = []
        try:
            def writer(n, barrier):
                barrier.wait()
                for i in range(25):
                    port = machines[(n + i) % 2][1]
                    code, note = _http(port, "POST", "/", {"text": "w{}-{}".format(n, i)})
                    assert code == 201
                    made.append((_key_of(note), note["text"]))
            _run_threads(8, writer, interleave=False)
            keys = [key for key, _ in made]
            assert len(made) == 200 and len(set(keys)) == 200  # none lost, no key twice
            for _, port in machines:
                listed = {(_key_of(note), note["text"]) for note in _http(port, "GET", "/")[1]}
                assert set(made) <= listed
        finally:
            for proc, _ in machines:
                _stop(proc)

    def test_a_gunicorn_worker_killed_mid_write_loses_nothing_acknowledged(self, postgres,
                                                                           tmp_path):
        if not os.path.exists(GUNICORN):
            pytest.skip("gunicorn is not installed")
        env = {k: v for k, v in os.environ.items() if not k.startswith("NOTES_")}
        env["NOTES_DB"] = postgres.new_database()
        proc, port = _gunicorn(tmp_path, "killed", env, workers=3)
        acknowledged, stop = [], threading.Event()
        try:
            def writer(n):
                i = 0
                while not stop.is_set():
                    i += 1
                    with contextlib.suppress(OSError, http.client.HTTPException, ValueError):
                        code, note = _http(port, "POST", "/", {"text": "k{}-{}".format(n, i)})
                        if code == 201:
                            acknowledged.append((_key_of(note), note["text"]))
            threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
            for thread in threads:
                thread.start()
            time.sleep(1.0)
            workers = _read("/proc/{0}/task/{0}/children".format(proc.pid)).split()
            os.kill(int(workers[0]), signal.SIGKILL)  # mid-write, as a crash would
            time.sleep(1.5)
            stop.set()
            for thread in threads:
                thread.join(30)
            listed = {(_key_of(note), note["text"]) for note in _http(port, "GET", "/")[1]}
            assert acknowledged and set(acknowledged) <= listed
            assert len({key for key, _ in acknowledged}) == len(acknowledged)
        finally:
            stop.set()
            _stop(proc)


# ---------------------------------------------------------------------------
# Notes app: the change feed
# ---------------------------------------------------------------------------
# GET /changes: each write once, in order of position, from memory, SQLite (a machine's
# workers) and PostgreSQL (many machines); resumed from any position the log still keeps.

@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def feed_db(request, tmp_path):
    """Where a feed test's notes app keeps its notes: each store in turn (PostgreSQL on the
    suite's own server)."""
    if request.param == "postgresql":
        return request.getfixturevalue("postgres").new_database()
    return None if request.param == "memory" else str(tmp_path / "notes.db")


@pytest.fixture
def follow():
    """Opens feeds through a notes app's test client, and closes them after the test (as a
    client going away would): ``follow(client, query, headers)`` is a function that returns
    the feed's next item, with the response as ``.response`` and the next line as it came,
    bytes, from ``.line()``."""
    opened = []

    def open_feed(client, query="", headers=None):
        headers = dict({"Accept": "application/jsonl"}, **(headers or {}))
        response = client.get("/changes" + query, headers=headers, buffered=False)
        opened.append(response)
        chunks = iter(response.response)

        def next_item():
            return json.loads(next(chunks))
        next_item.response, next_item.line = response, lambda: next(chunks)
        return next_item

    yield open_feed
    for response in opened:
        response.close()


def _change(position, change, key, text):
    return {"position": position, "change": change, "key": key, "text": text,
            "url": "http://localhost/{}/".format(key)}


@pytest.fixture
def feed_gunicorn(tmp_path):
    """``start(db, name, workers)`` serves notes_app under gunicorn on ``db``: (master, port,
    a function giving the pids of the workers that have answered), stopped after the test.
    A stop waits ``--graceful-timeout`` for the open feeds (30 s by default): here, 1 s."""
    if not os.path.exists(GUNICORN):
        pytest.skip("gunicorn is not installed")
    started = []

    def start(db, name="notes", workers=2):
        access = str(tmp_path / (name + "-access.log"))
        master, port = _gunicorn(tmp_path, name, _feed_env(db), workers, [
            "--access-logfile", access, "--access-logformat", "%(p)s", "--graceful-timeout",
            "1"])
        started.append(master)
        return master, port, lambda: set(_read(access).split())
    yield start
    for master in started:
        _stop(master)


def _feed_env(db):
    env = {name: value for name, value in os.environ.items() if not name.startswith("NOTES_")}
    return dict(env, NOTES_DB=db)


def _feed_socket(port, query="", headers=None):
    """A feed read as JSON Lines over a connection of its own: (connection, response)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/changes" + query, headers=dict(
        {"Accept": "application/jsonl"}, **(headers or {})))
    conn.socket = conn.sock  # which http.client lets go of once it has a response
    return conn, conn.getresponse()


def _read_item(response):
    line = response.readline()
    assert line, "the feed ended"
    return json.loads(line)


def _read_change(response):
    """The next change, past any item that only says where the feed is."""
    item = _read_item(response)
    return item if "change" in item else _read_change(response)


def _worker_serving(master, client_port):
    """The pid of the gunicorn worker (a child of ``master``) holding the connection from
    ``client_port``: its socket's inode in /proc/net/tcp, among the worker's open files."""
    sockets = ["socket:[{}]".format(line.split()[9])
               for line in _read("/proc/net/tcp").splitlines()[1:]
               if line.split()[2].endswith(":{:04X}".format(client_port))]
    for pid in _read("/proc/{0}/task/{0}/children".format(master)).split():
        for fd in os.listdir("/proc/{}/fd".format(pid)):
            with contextlib.suppress(OSError):  # closed since listed
                if os.readlink("/proc/{}/fd/{}".format(pid, fd)) in sockets:
                    return int(pid)
    raise AssertionError("no worker holds the connection from port {}".format(client_port))


class _Follower(threading.Thread):
    """A client that follows the feed from ``after``, and resumes from the last position it
    got whenever its connection breaks, as a well-written client does. ``positions`` grows
    as changes come; ``port_in_use`` is its connection's own port."""

    def __init__(self, port, after=0):
        super().__init__(daemon=True)
        self.port, self.after, self.items, self.reconnects = port, after, [], -1
        self.stop, self.port_in_use, self.error = threading.Event(), None, None

    def run(self):
        try:
            while not self.stop.is_set():
                self.reconnects += 1
                self._read_until_broken()
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _read_until_broken(self):
        try:
            conn, response = _feed_socket(self.port, "?after={}".format(self.after))
        except OSError:
            return time.sleep(0.05)  # no worker to take it yet: gunicorn is starting one
        self.port_in_use = conn.socket.getsockname()[1]
        try:
            assert response.status == 200, response.read()
            while not self.stop.is_set():
                item = json.loads(response.readline() or b"null")  # null: cut off
                if item is None:
                    return
                if "change" in item:
                    assert item["position"] == self.after + 1, (item, self.after)
                    self.items.append(item)
                self.after = item["position"]
        except (OSError, http.client.HTTPException, ValueError):
            return  # cut off mid-line: resume
        finally:
            conn.close()


def _writers(port, acknowledged, stop, count=3):
    """``count`` threads that create and replace notes until ``stop``, each request on a
    connection of its own, recording the writes answered as done: (key, text)."""
    def write(n):
        for i in itertools.count():
            if stop.is_set():
                return
            text = "w{}-{}".format(n, i)
            with contextlib.suppress(OSError, http.client.HTTPException, ValueError):
                method, path = ("POST", "/") if i % 3 else ("PUT", "/{}/".format(n))
                code, note = _http(port, method, path, {"text": text})
                if code in (200, 201):
                    acknowledged.append((_key_of(note), text))
    threads = [threading.Thread(target=write, args=(n,), daemon=True) for n in range(count)]
    for thread in threads:
        thread.start()
    return threads


def _wait_until(done, seconds=20, what="it"):
    """Poll ``done()`` (a state no event tells) until it holds, for ``seconds`` at most."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "waited {} s for {}".format(seconds, what)
        time.sleep(0.02)


def _log_rows(path):
    """The SQLite file's change log as the feed sends it, read straight from the file."""
    db = sqlite3.connect(path)
    try:
        return [{"position": p, "change": c, "key": k, "text": t}
                for p, k, c, t in db.execute("SELECT * FROM changes ORDER BY position")]
    finally:
        db.close()


def _readme_python(opening):
    """The Python block of the manual's change feed (docs/production.md, from the README's
    Following the changes) that starts with ``opening``, as the reader copies it."""
    readme = _read(os.path.join(NOTES_DIR, "docs", "production.md"))
    return readme[readme.index("```python\n" + opening) + 10:].split("\n```\n", 1)[0]


class _Enough(Exception):
    pass


def _readme_follower(port, handle):
    """The manual's Python ``follow()``, as a reader copies it, in a thread (not started) that
    follows the feed at ``port`` from position 0 until ``handle`` raises `_Enough`."""
    scope = {}
    exec(_readme_python("import json\nimport time"), scope)

    def client():
        with contextlib.suppress(_Enough):
            scope["follow"]("http://127.0.0.1:{}".format(port), 0, handle)
    return threading.Thread(target=client, daemon=True)


def _serve_in_thread(app):
    """``app`` on werkzeug's threaded server in this process: (port, stop)."""
    from werkzeug.serving import make_server
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop():
        server.shutdown()
        thread.join(10)
        server.server_close()
    return server.server_port, stop


def _feed_threads():
    return [thread for thread in threading.enumerate()
            if thread.name.startswith("notes change feed")]


_FEED_LISTENER = """<!DOCTYPE html><title>Changes</title><script>
window.log = [];
const source = new EventSource("/changes?after=0");
source.onopen = () => log.push(["open"]);
source.onerror = () => log.push(["error", source.readyState]);
source.onmessage = (event) => log.push(["change", JSON.parse(event.data).text, event.lastEventId]);
</script>"""


@pytest.fixture
def feed_site(live_site):
    """A notes app whose feeds end after a second, as a cut connection would end them, with
    a plain page that follows them with EventSource; ``site.resumed_from``: each feed
    request's Last-Event-ID."""
    app = notes_app.create_app(feed_seconds=1.0)
    app.resumed_from = []
    app.add_url_rule("/listen.html", "listen", lambda: flask.Response(
        _FEED_LISTENER, mimetype="text/html"))

    @app.before_request
    def note_resumption():
        if request.path == "/changes":
            app.resumed_from.append(request.headers.get("Last-Event-ID"))
    return live_site.serve(app), app


class TestNotesChangeFeed:
    """The notes app's /changes: on the test client, real servers and gunicorn, then in
    Chromium."""

    def test_the_feed_sends_each_write_once_with_its_position_key_what_happened_and_text(
            self, feed_db, follow):
        client = notes_app.create_app(db=feed_db).test_client()
        client.post("/", json={"text": "water the plants"})
        _put(client, 1, "build the codez again")
        _put(client, 9, "nine")
        client.delete("/0/")
        client.delete("/0/")  # nothing there: nothing changes
        next_item = follow(client, "?after=0")
        assert [next_item() for _ in range(4)] == [
            _change(1, "created", 3, "water the plants"),
            _change(2, "replaced", 1, "build the codez again"),
            _change(3, "created", 9, "nine"),
            _change(4, "deleted", 0, None)]
        assert next_item.response.status_code == 200
        assert next_item.response.mimetype == "application/jsonl"
        _put(client, 3, "water the roses")  # and then each as it is made
        assert next_item() == _change(5, "replaced", 3, "water the roses")

    def test_a_feed_from_now_says_its_position_first_then_sends_what_follows(self, feed_db, follow):
        client = notes_app.create_app(db=feed_db).test_client()
        _put(client, 1, "before")
        next_item = follow(client)  # no position: from now
        assert next_item() == {"position": 1}  # at once, so the client knows where it is
        _put(client, 2, "after")
        assert next_item() == _change(2, "replaced", 2, "after")

    def test_server_sent_events_have_each_position_as_their_id_and_where_it_is_as_position(self):
        client = notes_app.create_app(feed_seconds=0.2).test_client()
        _put(client, 1, "one")
        sse = {"Accept": "text/event-stream"}
        assert client.get("/changes?after=0", headers=sse).get_data(as_text=True) == (
            'data: {"change": "replaced", "key": 1, "position": 1, "text": "one", '
            '"url": "http://localhost/1/"}\nid: 1\nretry: 1000\n\n')
        assert client.get("/changes", headers=sse).get_data(as_text=True) == (
            'data: {"position": 1}\nevent: position\nid: 1\nretry: 1000\n\n')
        resumed = client.get("/changes?after=0", headers=dict(sse, **{"Last-Event-ID": "1"}))
        assert resumed.get_data(as_text=True).startswith('data: {"position": 1}\nevent: position')

    def test_the_list_links_the_changes_that_follow_it_exactly(self, feed_db, follow):
        client = notes_app.create_app(db=feed_db).test_client()
        _put(client, 1, "one")
        listed = client.get("/")
        link = listed.headers["Link"]
        assert link == '</changes?after=1>; rel="changes"'
        _put(client, 2, "two")
        next_item = follow(client, link[1:link.index(">")][len("/changes"):])
        assert next_item() == _change(2, "replaced", 2, "two")  # nothing the list showed, again
        assert [note["text"] for note in listed.get_json()] == ["do the shopping", "one",
                                                                "paint the door"]

    def test_a_client_that_disconnects_resumes_from_its_last_position_missing_nothing(
            self, feed_db, follow):
        client = notes_app.create_app(db=feed_db).test_client()
        next_item = follow(client, "?after=0")
        assert next_item() == {"position": 0}  # nothing yet
        for n in range(3):
            _put(client, n, "first {}".format(n))
        last = [next_item() for _ in range(2)][-1]["position"]
        next_item.response.close()  # gone, after two of the three
        for n in range(3):
            _put(client, n, "then {}".format(n))
        resumed = follow(client, "?after={}".format(last))
        assert [resumed()["position"] for _ in range(4)] == [3, 4, 5, 6]
        assert resumed.response.status_code == 200

    def test_last_event_id_wins_over_after_as_eventsource_resends_its_first_url(self, feed_db,
                                                                                follow):
        client = notes_app.create_app(db=feed_db).test_client()
        for n in range(3):
            _put(client, n, str(n))
        next_item = follow(client, "?after=0", {"Last-Event-ID": "2"})
        assert next_item() == _change(3, "replaced", 2, "2")

    def test_a_position_no_longer_kept_or_past_the_latest_is_a_410_never_a_gap(
            self, feed_db, monkeypatch, follow):
        monkeypatch.setattr(notes_app, "CHANGES_KEPT", 5)
        client = notes_app.create_app(db=feed_db).test_client()
        for n in range(12):
            _put(client, n, str(n))
        gone = client.get("/changes?after=0")
        _assert_api_error(gone, 410)
        assert "no longer kept" in gone.get_json()["detail"]
        assert "GET /" in gone.get_json()["detail"]  # and what to do instead
        assert [follow(client, "?after=7")()["position"]] == [8]  # the last 5 are kept
        future = client.get("/changes?after=13")
        _assert_api_error(future, 410)
        assert "past the latest change, 12" in future.get_json()["detail"]

    def test_the_feed_is_a_url_of_its_own_that_no_notes_key_shares(self):
        """At /changes/, the notes' /<key>/ would take it too: OPTIONS would list PUT and
        DELETE, and a PUT there would reach a note's view. (Werkzeug before 2.2 lists, for any
        /x, the methods of the /x/ it would redirect them to.)"""
        import werkzeug.routing
        client = notes_app.create_app().test_client()
        allowed = client.options("/changes").headers["Allow"]
        if hasattr(werkzeug.routing, "StateMachineMatcher"):  # Werkzeug 2.2+
            assert allowed == "GET, HEAD, OPTIONS"
        _assert_api_error(client.post("/changes", json={"text": "x"}), 405)

    @pytest.mark.parametrize("query, headers", [
        ("?after=x", {}), ("?after=-1", {}), ("?after=1.5", {}), ("?after=" + "9" * 19, {}),
        ("?after=%00", {}), ("", {"Last-Event-ID": "seven"}),
        ("?after=1", {"Last-Event-ID": "1 2"}),
        ("?after=" + "1" * 19, {"Last-Event-ID": "0"}),  # refused, though the header would win
        ("?after=", {}), ("", {"Last-Event-ID": ""}),
    ])
    def test_a_position_that_is_not_one_is_a_400_with_a_detail(self, query, headers):
        client = notes_app.create_app().test_client()
        response = client.get("/changes" + query, headers=headers)
        _assert_api_error(response, 400)
        assert "position" in response.get_json()["detail"]

    def test_a_client_left_behind_by_the_log_gets_an_error_line_not_a_gap(
            self, tmp_path, monkeypatch, follow):
        monkeypatch.setattr(notes_app, "CHANGES_KEPT", 5)
        monkeypatch.setattr(notes_app, "FEED_RECENT", 3)  # nor does memory keep them for it
        client = notes_app.create_app(db=str(tmp_path / "notes.db"), feed_seconds=5).test_client()
        next_item = follow(client, "?after=0")
        assert next_item() == {"position": 0}
        _put(client, 1, "read")
        assert next_item()["position"] == 1
        for n in range(20):  # while the client reads nothing
            _put(client, 2, str(n))
        lines = []
        while True:  # what memory still had for it, in order, then the end
            line = next_item.line()
            if line.startswith(b"error: "):
                break
            lines.append(json.loads(line)["position"])
        assert lines == list(range(2, 2 + len(lines)))  # none missed before the error
        assert "no longer kept" in json.loads(line[len(b"error: "):])["detail"]
        with pytest.raises(StopIteration):
            next_item.line()
        _assert_api_error(client.get("/changes?after=1"), 410)  # and so is its resumption

    @pytest.mark.parametrize("query", ["", "?after=0", "?after=1"])
    def test_eventsource_reconnecting_after_the_feeds_stream_error_gets_the_204_that_stops_it(
            self, monkeypatch, query):
        """After the feed's ``stream-error`` (its id the end's), EventSource reconnects once,
        to its first URL, whose position may be gone too: the 204, never a 400 or a 410."""
        monkeypatch.setattr(notes_app, "CHANGES_KEPT", 5)
        client = notes_app.create_app().test_client()
        for n in range(12):
            _put(client, n, str(n))
        response = client.get("/changes" + query, headers={
            "Accept": "text/event-stream", "Last-Event-ID": flask_api.ServerSentEvent.END_ID})
        assert (response.status_code, response.data) == (204, b"")

    def test_what_a_process_keeps_for_its_feeds_is_bounded_however_big_the_notes(
            self, tmp_path, follow):
        """400 notes of 100,000 characters (40 MB) written while a feed reads nothing, then 20
        feeds from the start each reading one change: memory keeps 16 Mi characters of changes,
        and each feed holds a batch of 256 Ki characters (one change at least), not 100 changes."""
        import tracemalloc
        client = notes_app.create_app(db=str(tmp_path / "notes.db")).test_client()
        idle = follow(client)
        assert idle() == {"position": 0}
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for n in range(400):
                _put(client, n % 50, "{:06d}".format(n) + "x" * 99994)
            stalled = [follow(client, "?after=0") for _ in range(20)]
            assert all(feed()["position"] == 1 for feed in stalled)
            gc.collect()  # what is kept, not the requests' cycles the collector has yet to
            grown = tracemalloc.get_traced_memory()[0] - before  # reach: 25.7 MiB, not 29
        finally:
            tracemalloc.stop()
        assert grown < 28 * 2 ** 20, "{:.0f} MiB kept".format(grown / 2 ** 20)
        assert idle()["position"] == 1  # the idle feed went on reading, from the store

    def test_a_feed_on_one_gunicorn_worker_gets_the_others_writes_within_a_second(
            self, feed_gunicorn, tmp_path):
        _, port, worker_pids = feed_gunicorn(str(tmp_path / "notes.db"), workers=4)
        conn, feed = _feed_socket(port)
        try:
            position = _read_item(feed)["position"]
            delays = []
            for n in range(30):  # each on a connection of its own: any worker answers
                status_code, note = _http(port, "POST", "/", {"text": "note {}".format(n)})
                answered = time.monotonic()
                assert status_code == 201
                item = _read_item(feed)
                delays.append(time.monotonic() - answered)
                position += 1
                assert item == {"position": position, "change": "created", "key": _key_of(note),
                                "text": note["text"], "url": note["url"]}
            assert max(delays) < 1.0, delays
        finally:
            conn.close()
        assert len(worker_pids()) >= 2, "one worker answered every write"

    def test_the_readmes_python_client_gets_every_change_once_through_killed_workers(
            self, feed_gunicorn, tmp_path):
        pytest.importorskip("requests")
        master, port, _ = feed_gunicorn(str(tmp_path / "notes.db"))
        got = []

        def handle(change):
            got.append(change)
            if len(got) == 6:
                raise _Enough()
        follower = _readme_follower(port, handle)
        follower.start()
        for n in range(3):
            assert _http(port, "PUT", "/1/", {"text": "before {}".format(n)})[0] == 200
        _wait_until(lambda: len(got) == 3, what="the first changes")
        for pid in _read("/proc/{0}/task/{0}/children".format(master.pid)).split():
            os.kill(int(pid), signal.SIGKILL)  # the client's worker among them
        for n in range(3):
            while True:  # until the master has started workers again
                with contextlib.suppress(OSError, http.client.HTTPException):
                    if _http(port, "PUT", "/1/", {"text": "after {}".format(n)})[0] == 200:
                        break
                time.sleep(0.05)
        follower.join(30)
        assert [change["text"] for change in got] == ["before 0", "before 1", "before 2",
                                                      "after 0", "after 1", "after 2"]
        assert [change["position"] for change in got] == [1, 2, 3, 4, 5, 6]

    def test_the_readmes_python_client_waits_out_the_503_of_a_database_down_and_goes_on(
            self, postgres):
        """With PostgreSQL down, the feed is a 503 with ``Retry-After``: the README's client
        waits as it says and asks again, and gets the changes once the database is back."""
        pytest.importorskip("requests")
        url = postgres.new_database()
        app, answered = notes_app.create_app(db=url), []
        app.after_request(lambda response: answered.append(response.status_code) or response)
        port, stop = _serve_in_thread(app)
        got = []

        def handle(change):
            got.append(change)
            raise _Enough()
        follower = _readme_follower(port, handle)
        postgres.stop()
        try:
            follower.start()
            _wait_until(lambda: 503 in answered, what="the feed's 503")
        finally:
            postgres.start()
        try:
            while _http(port, "PUT", "/1/", {"text": "back"})[0] != 200:
                time.sleep(0.05)  # a 503 until the pool has reconnected
            follower.join(30)
        finally:
            stop()
        assert [change["text"] for change in got] == ["back"]

    def test_a_worker_killed_with_minus_9_mid_feed_loses_no_change_and_repeats_none(
            self, feed_gunicorn, tmp_path):
        path = str(tmp_path / "notes.db")
        master, port, _ = feed_gunicorn(path, workers=3)
        follower, acknowledged, stop = _Follower(port), [], threading.Event()
        follower.start()
        writers = _writers(port, acknowledged, stop)
        try:
            _wait_until(lambda: len(follower.items) >= 20, what="the first changes")
            os.kill(_worker_serving(master.pid, follower.port_in_use), signal.SIGKILL)
            _wait_until(lambda: follower.reconnects >= 1 and len(follower.items) >= 60,
                        what="changes after the kill")
            stop.set()
            for thread in writers:
                thread.join(30)
            logged = _log_rows(path)
            _wait_until(lambda: len(follower.items) >= len(logged), what="the last changes")
        finally:
            stop.set()
            follower.stop.set()
        assert follower.error is None, follower.error
        sent = [{name: item[name] for name in ("position", "change", "key", "text")}
                for item in follower.items]
        assert sent == logged  # every change, once each, in order: 1, 2, 3, ...
        assert [row["position"] for row in logged] == list(range(1, len(logged) + 1))
        assert set(acknowledged) <= {(row["key"], row["text"]) for row in logged}

    def test_feeds_on_two_postgres_masters_get_every_change_once_through_a_database_restart(
            self, postgres, feed_gunicorn):
        """Writes through one gunicorn master reach a feed on the other within a second; then
        PostgreSQL restarts under writes that go on (each 503 retried): the feed, on the same
        connection all along, gets every change once, in order, including those written while
        its listener was reconnecting (it catches up as it listens again)."""
        url = postgres.new_database()
        one_port, two_port = [feed_gunicorn(url, name)[1] for name in ("one", "two")]
        conn, feed = _feed_socket(one_port, "?after=0")
        try:
            for n in range(10):
                assert _http(two_port, "PUT", "/1/", {"text": "before {}".format(n)})[0] == 200
                answered = time.monotonic()
                assert _read_change(feed)["text"] == "before {}".format(n)
                assert time.monotonic() - answered < 1.0
            postgres.stop()
            acknowledged = [_http(two_port, "PUT", "/1/", {"text": "while down"})[0]]
            postgres.start()
            for n in range(10):  # at once, while the listeners are still reconnecting
                while _http(two_port, "PUT", "/1/", {"text": "after {}".format(n)})[0] != 200:
                    time.sleep(0.05)  # a 503 until the pool has reconnected: try again
            texts = [_read_change(feed)["text"] for _ in range(10)]
        finally:
            conn.close()
        assert acknowledged == [503]
        assert texts == ["after {}".format(n) for n in range(10)]
        import psycopg
        with psycopg.connect(url) as db:
            assert db.execute("SELECT max(position) FROM note_changes").fetchone()[0] == 20

    def test_a_feed_past_what_a_gunicorn_worker_holds_is_answered_503_at_once_not_left_silent(
            self, tmp_path):
        """One worker of 4 threads that holds 2 feeds (NOTES_FEEDS): the third is a 503 with
        ``Retry-After`` and a detail, while a thread is still free to say so (gthread takes a
        connection past its threads and leaves it unanswered), and the other requests and
        the feeds held go on."""
        if not os.path.exists(GUNICORN):
            pytest.skip("gunicorn is not installed")
        env = dict(_feed_env(str(tmp_path / "notes.db")), NOTES_FEEDS="2")
        master, port = _gunicorn(tmp_path, "full", env, workers=1)
        held = []
        try:
            held = [_feed_socket(port) for _ in range(2)]
            assert [_read_item(response) for _, response in held] == [{"position": 0}] * 2
            conn, refused = _feed_socket(port)
            held.append((conn, refused))
            assert refused.status == 503 and refused.getheader("Retry-After") == "1"
            assert "all the change feeds it can" in json.loads(refused.read())["detail"]
            assert _http(port, "PUT", "/1/", {"text": "to both"})[0] == 200
            assert [_read_change(response)["text"] for _, response in held[:2]] == ["to both"] * 2
        finally:
            for conn, _ in held:
                conn.close()
            _stop(master)

    def test_the_feeds_a_process_holds_is_a_whole_number_above_0(self, monkeypatch):
        monkeypatch.setenv("NOTES_FEEDS", "0")
        with pytest.raises(ValueError, match="NOTES_FEEDS must be a whole number of feeds"):
            notes_app.create_app()

    def test_a_hundred_idle_feeds_hold_one_listening_connection_not_one_each(self, postgres):
        import psycopg
        url = postgres.new_database()
        port, stop = _serve_in_thread(notes_app.create_app(db=url))
        feeds = []
        try:
            for _ in range(100):
                feeds.append(_feed_socket(port))
                assert _read_item(feeds[-1][1]) == {"position": 0}
            time.sleep(2)  # idle: what the app's connections do meanwhile is the test
            with psycopg.connect(url) as db:
                held = db.execute(
                    "SELECT count(*), coalesce(min(now() - state_change), interval '1 day')"
                    " FROM pg_stat_activity WHERE datname = current_database()"
                    " AND pid <> pg_backend_pid()").fetchone()
            assert held[0] <= notes_app.POSTGRES_POOL + 1  # the pool's, and one listening
            assert held[1] > datetime.timedelta(seconds=1.5)  # and none has asked for anything
            assert _http(port, "PUT", "/1/", {"text": "to all"})[0] == 200
            assert all(_read_change(response)["text"] == "to all" for _, response in feeds)
        finally:
            for conn, _ in feeds:
                conn.close()
            stop()

    def test_the_postgres_listener_catches_up_on_what_was_written_while_it_was_not_listening(
            self, postgres, monkeypatch):
        """Its connection lost, the listener hears no NOTIFY until it listens again: once it
        does, it wakes the reader, which reads what was written meanwhile."""
        import psycopg
        url = postgres.new_database()
        store, writer = notes_app.PostgresNoteStore(url), notes_app.PostgresNoteStore(url)
        woken, stop, reconnect = threading.Event(), threading.Event(), threading.Event()
        connect = psycopg.connect
        calls = []

        def held_connect(*args, **kwargs):  # the listener's second connection waits for the test
            calls.append(1)
            if len(calls) > 1:
                reconnect.wait(30)
            return connect(*args, **kwargs)
        monkeypatch.setattr(psycopg, "connect", held_connect)
        listener = threading.Thread(target=store.watch, args=(woken.set, stop), daemon=True)
        listener.start()
        try:
            assert woken.wait(10)  # as it first listens
            woken.clear()
            writer.put(1, "heard")
            assert woken.wait(10)  # a NOTIFY
            woken.clear()
            postgres.stop()
            postgres.start()
            writer.put(1, "while it was not listening")  # no one hears its NOTIFY
            reconnect.set()
            assert woken.wait(10)
        finally:
            stop.set()
            reconnect.set()
            listener.join(10)

    def test_after_postgres_restarts_a_feed_catches_up_without_waiting_out_the_pools_backoff(
            self, postgres, monkeypatch):
        """Requests while the database is down send each of the pool's reconnections into its
        backoff (made an hour long here): once the database is back, the feed still gets what
        is written, as the pool gives up a reconnection after POSTGRES_RECONNECT, and the
        listener, listening again, has the pool's lost connections replaced."""
        from psycopg_pool.base import AttemptWithBackoff
        monkeypatch.setattr(AttemptWithBackoff, "INITIAL_DELAY", 3600.0)
        url = postgres.new_database()
        port, stop = _serve_in_thread(notes_app.create_app(db=url))
        conn = None
        try:
            conn, feed = _feed_socket(port)
            assert _read_item(feed) == {"position": 0}
            assert _http(port, "PUT", "/1/", {"text": "before"})[0] == 200
            assert _read_change(feed)["text"] == "before"
            postgres.stop()
            answered = []
            try:  # more at once than the pool has connections
                readers = [threading.Thread(target=lambda: answered.append(
                    _http(port, "GET", "/")[0])) for _ in range(2 * notes_app.POSTGRES_POOL)]
                for thread in readers:
                    thread.start()
                for thread in readers:
                    thread.join(30)
            finally:
                postgres.start()
            assert answered == [503] * 2 * notes_app.POSTGRES_POOL
            notes_app.PostgresNoteStore(url).put(1, "after")  # through a pool of its own
            assert _read_change(feed)["text"] == "after"  # before the socket's 10 s timeout
        finally:
            if conn is not None:
                conn.close()
            stop()

    def test_clients_gone_are_found_at_the_next_heartbeat_and_the_feeds_threads_end(
            self, monkeypatch):
        monkeypatch.setattr(notes_app, "FEED_HEARTBEAT", 0.1)
        port, stop = _serve_in_thread(notes_app.create_app())
        try:
            before = _feed_threads()
            feeds = [_feed_socket(port) for _ in range(5)]
            assert [_read_item(response) for _, response in feeds] == [{"position": 0}] * 5
            started = [thread for thread in _feed_threads() if thread not in before]
            assert len(started) == 2  # the reader and the watcher, for all five
            for conn, _ in feeds:
                conn.socket.shutdown(socket.SHUT_RDWR)  # as a closed tab does
                conn.close()
            for thread in started:
                thread.join(5)
            assert not [thread for thread in started if thread.is_alive()]
        finally:
            stop()

    def test_a_client_that_stops_reading_is_let_go_after_the_write_timeout(self, monkeypatch):
        """It reads nothing while 10 MB of changes are written: once the sockets' buffers are
        full, a write waits STREAM_WRITE_TIMEOUT at the most (1 s here), and the feed ends."""
        monkeypatch.setattr(notes_app, "FEED_WRITE_TIMEOUT", 1)
        app, handed = notes_app.create_app(), []
        app.before_request(lambda: handed.append("werkzeug.socket" in request.environ))
        port, stop = _serve_in_thread(app)
        conn = None
        try:
            if not _http(port, "GET", "/") or not handed[0]:
                pytest.skip("this werkzeug's server does not hand the app its socket (2.0+ does)")
            before = _feed_threads()
            conn, feed = _feed_socket(port)
            assert _read_item(feed) == {"position": 0}
            started = [thread for thread in _feed_threads() if thread not in before]
            for n in range(100):
                assert _http(port, "PUT", "/1/", {"text": "{:03d}".format(n) + "x" * 99997})[0] \
                    == 200
            for thread in started:
                thread.join(20)
            assert started and not [thread for thread in started if thread.is_alive()]
        finally:
            if conn is not None:
                conn.close()
            stop()

    def test_a_feed_cut_on_gunicorn_for_a_client_that_stops_reading_is_one_warning_line(
            self, tmp_path):
        """A client that reads nothing while 10 MB of changes are written: gunicorn's worker
        (its app's STREAM_WRITE_TIMEOUT 1 s here) cuts the feed, and its log says so in one
        warning line, with no error and no traceback; the worker goes on serving."""
        if not os.path.exists(GUNICORN):
            pytest.skip("gunicorn is not installed")
        log = str(tmp_path / "gunicorn.log")
        runtime = tmp_path / "run"
        runtime.mkdir()
        env = dict(_feed_env(str(tmp_path / "notes.db")), XDG_RUNTIME_DIR=str(runtime))
        serve = ("import sys, notes_app; notes_app.app.config['STREAM_WRITE_TIMEOUT'] = 1; "
                 "from gunicorn.app.wsgiapp import run; sys.argv[0] = 'gunicorn'; run()")
        with open(log, "w") as out:
            master = subprocess.Popen(
                [sys.executable, "-c", serve, "--workers", "1", "--threads", "4", "--bind",
                 "127.0.0.1:0", "notes_app:app"], cwd=NOTES_DIR, env=env, stdout=out,
                stderr=subprocess.STDOUT)
        reader = socket.socket()
        try:
            port = _wait_for_gunicorn(master, log, 1)
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            reader.connect(("127.0.0.1", port))
            reader.sendall(b"GET /changes HTTP/1.1\r\nHost: x\r\nAccept: application/jsonl\r\n\r\n")
            assert reader.recv(4096).startswith(b"HTTP/1.1 200 ")  # then it reads no more
            for n in range(200):
                assert _http(port, "PUT", "/1/", {"text": "{:03d}".format(n) + "x" * 49997})[0] \
                    == 200
            _wait_until(lambda: "was cut" in _read(log), 30, "the cut")
            assert _http(port, "GET", "/1/")[0] == 200
        finally:
            reader.close()
            _stop(master)
        text = _read(log)
        cut = [line for line in text.splitlines() if "was cut" in line]
        assert len(cut) == 1 and "WARNING" in cut[0] and "/changes [GET]" in cut[0], text
        assert "Traceback" not in text and "Socket error" not in text, text

    def test_a_feed_ends_after_notes_feed_seconds_as_a_whole_json_array(self, monkeypatch):
        monkeypatch.setenv("NOTES_FEED_SECONDS", "0.3")
        client = notes_app.create_app().test_client()
        started = time.monotonic()
        response = client.get("/changes?after=0", headers={"Accept": "application/json"})
        assert response.get_json() == [{"position": 0}]  # valid JSON, once it has ended
        assert 0.3 <= time.monotonic() - started < 5
        monkeypatch.setenv("NOTES_FEED_SECONDS", "soon")
        with pytest.raises(ValueError, match="NOTES_FEED_SECONDS must be a number of seconds"):
            notes_app.create_app()

    def test_an_sqlite_file_from_before_the_log_gets_it_and_keeps_its_notes(self, tmp_path, follow):
        path = str(tmp_path / "notes.db")
        db = sqlite3.connect(path)
        db.executescript(
            "CREATE TABLE notes (key INTEGER PRIMARY KEY, text TEXT NOT NULL);"
            "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT);"
            "INSERT INTO meta VALUES ('schema', '1'); INSERT INTO notes VALUES (5, 'kept');"
            "PRAGMA application_id = {};".format(notes_app.APPLICATION_ID))
        db.close()
        client = notes_app.create_app(db=path).test_client()
        assert _texts(client) == ["kept"]
        assert client.get("/").headers["Link"] == '</changes?after=0>; rel="changes"'
        _put(client, 5, "changed")
        assert follow(client, "?after=0")() == _change(1, "replaced", 5, "changed")

    def test_a_postgres_database_from_before_the_log_gets_it_and_another_apps_is_refused(
            self, postgres, follow):
        import psycopg
        url = postgres.new_database()
        with psycopg.connect(url, autocommit=True) as db:
            db.execute("CREATE TABLE notes (key BIGINT PRIMARY KEY, text TEXT NOT NULL)")
            db.execute("COMMENT ON TABLE notes IS '{}'".format(notes_app.POSTGRES_MARK))
            db.execute("INSERT INTO notes VALUES (5, 'kept')")
        client = notes_app.create_app(db=url).test_client()
        assert _texts(client) == ["kept"]
        _put(client, 5, "changed")
        assert follow(client, "?after=0")() == _change(1, "replaced", 5, "changed")
        theirs = postgres.new_database()
        with psycopg.connect(theirs, autocommit=True) as db:
            db.execute("CREATE TABLE note_changes (id INTEGER)")
        with pytest.raises(notes_app.StoreError, match="'note_changes' that is not this app's"):
            notes_app.create_app(db=theirs)

    def test_the_feed_is_documented_as_a_stream_of_changes_with_their_schema(self):
        document = _validated(notes_app.create_app().openapi())
        operation = _operation(document, "/changes", "get")
        success = operation["responses"]["200"]["content"]
        assert {"application/jsonl", "application/x-ndjson", "text/event-stream"} <= set(success)
        item = success["application/jsonl"]["schema"]["items"]
        assert item["required"] == ["position"]
        assert item["properties"]["change"] == {"enum": ["created", "replaced", "deleted"]}
        event = success["text/event-stream"]["schema"]["properties"]["data"]["contentSchema"]
        assert event == item
        assert {(p["in"], p["name"]) for p in operation["parameters"]} >= {
            ("query", "after"), ("header", "Last-Event-ID")}
        assert {"400", "410", "503"} <= set(operation["responses"])
        link = _operation(document, "/", "get")["responses"]["200"]["headers"]["Link"]
        assert "changes" in link["description"]

    def test_the_notes_page_has_a_changes_button_to_the_feed_after_the_list(self, notes_client):
        notes_client.put("/1/", json={"text": "changed"})
        page = _browse(notes_client, "/")
        button = page.one("a", rel="changes")
        assert button.attrs["href"] == "/changes?after=1" and button.text == "changes"

    def test_browser_follows_the_lists_changes_button_by_keyboard_and_shows_changes_live(
            self, tab, notes_site):
        assert _api(notes_site, "/1/", "PUT", {"text": "before the list"})[0] == 200
        tab.goto("/")
        tab.get_by_role("link", name="changes", exact=True).focus()
        tab.keyboard.press("Enter")
        tab.wait_for_url(notes_site + "/changes?after=1", wait_until="commit")  # it loads on
        _expect(tab.locator(".item")).to_have_count(1)  # where it is: nothing has changed since
        _expect(tab.locator(".item").first).to_contain_text('"position": 1')
        assert _api(notes_site, "/2/", "PUT", {"text": "written in <another> tab"})[0] == 200
        _expect(tab.locator(".item")).to_have_count(2)
        _expect(tab.locator(".item").last).to_contain_text('"change": "replaced"')
        _expect(tab.locator(".item").last).to_contain_text('"text": "written in <another> tab"')
        _expect(_stream_line(tab)).to_contain_text("Streaming\u2026 2 items")
        assert _axe(tab) == []

    def test_eventsource_resumes_from_its_last_id_and_misses_nothing_written_meanwhile(
            self, chromium, feed_site):
        site, app = feed_site
        with _open_tab(chromium, site) as tab:
            tab.goto("/listen.html")
            tab.wait_for_function("log.some((entry) => entry[0] === 'open')")
            for text in ("one", "two"):
                assert _api(site, "/1/", "PUT", {"text": text})[0] == 200
            tab.wait_for_function("log.some((entry) => entry[0] === 'error')")  # the feed ended
            for text in ("three", "four"):  # while EventSource waits its second to reconnect
                assert _api(site, "/1/", "PUT", {"text": text})[0] == 200
            tab.wait_for_function("log.filter((entry) => entry[0] === 'change').length >= 4")
            changes = tab.evaluate("log.filter((entry) => entry[0] === 'change')")
            assert changes == [["change", text, str(n)] for n, text in enumerate(
                ["one", "two", "three", "four"], 1)]
            assert app.resumed_from[:2] == [None, "2"]

    def test_the_feeds_page_resumes_from_the_last_id_it_showed(self, chromium, notes_site):
        with _open_tab(chromium, notes_site) as tab:
            tab.goto("/changes?after=0", wait_until="commit")  # it loads for as long as it streams
            assert _api(notes_site, "/1/", "PUT", {"text": "seen"})[0] == 200
            _expect(tab.locator(".item")).to_have_count(2)  # where it was, and the change
            tab.get_by_role("button", name="Stop").click()
            assert _api(notes_site, "/1/", "PUT", {"text": "while stopped"})[0] == 200
            tab.get_by_role("button", name="Resume").click()
            _expect(tab.locator(".item")).to_have_count(3)
            _expect(tab.locator(".item").last).to_contain_text('"text": "while stopped"')
            _expect(tab.locator(".item").nth(1)).to_contain_text('"text": "seen"')
            assert _axe(tab) == []


# ---------------------------------------------------------------------------
# The documentation: its examples run, its screenshots are current
# ---------------------------------------------------------------------------
# README.md, CHANGELOG.md and the manual in docs/ are read here as a user reads them. Every
# fenced block is one of the kinds below, and each kind that a user would run is run:
#   python     executed, in order, in one namespace per document (so a later block may use an
#              earlier one's app); an exception fails the block
#   pycon      a session at the interpreter, run by doctest in that namespace: the output shown
#              is compared
#   console    a shell session of curl commands ($ curl ...) against the app the document has
#              built so far (its namespace's ``app``), else a fresh notes app: each command is
#              run by bash and its output compared with what is shown (the Date and Server
#              headers' values, and the server's port, aside)
#   sh, console-setup  commands that install or start things: shown, not run
#   anything else (json, js, text, toml, eval-rst and MyST's directives) is not code to run

_ROOT = os.path.dirname(os.path.abspath(__file__))
_DOC_FILES = ["README.md", "CHANGELOG.md"] + sorted(
    os.path.relpath(path, _ROOT) for path in glob.glob(os.path.join(_ROOT, "docs", "*.md")))
_RUN_KINDS = {"python", "pycon", "console"}
_SHOWN_KINDS = {"sh", "json", "js", "text", "toml", "{toctree}", "{include}", "{eval-rst}",
                "{literalinclude}"}


def _fenced_blocks(path):
    """Each fenced block of a Markdown file: (line of its opening fence, kind, text)."""
    with open(os.path.join(_ROOT, path), encoding="utf-8") as file:
        lines = file.read().split("\n")
    blocks, start, kind, body = [], None, None, []
    for number, line in enumerate(lines, 1):
        if start is None and line.startswith("```"):
            start, kind, body = number, line[3:].split(" ")[0].strip(), []
        elif start is not None and line.startswith("```") and not line[3:].strip():
            blocks.append((start, kind, "\n".join(body) + "\n"))
            start = None
        elif start is not None:
            body.append(line)
    assert start is None, "{}: the block at line {} is never closed".format(path, start)
    return blocks


def _console_commands(text):
    """A console block's commands, each with the output shown after it: [(command, output)]."""
    commands = []
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            commands.append([line[2:], []])
        else:
            assert commands, "a console block starts with its first command: " + line
            commands[-1][1].append(line)
    return [(command, "\n".join(output)) for command, output in commands]


def _shown_output(text, port):
    """Output as a reader compares it: the live port as the documents' 5000, no CR, no
    trailing blank lines; and of a response's head (curl -i), what is the server's own left
    out: its HTTP version, its Date, Server and Connection headers, their order, and the
    status phrase's case (werkzeug before 2.1 answers HTTP/1.0, 3.2 writes "Not Found")."""
    text = text.replace("\r", "").replace("127.0.0.1:{}".format(port), "127.0.0.1:5000")
    lines = [line.rstrip() for line in text.strip("\n").split("\n")]
    if lines and re.match(r"HTTP/1\.[01] ", lines[0]):
        end = lines.index("") if "" in lines else len(lines)
        head = sorted(line for line in lines[1:end]
                      if line.split(":")[0].lower() not in ("date", "server", "connection"))
        lines = [re.sub(r"^HTTP/1\.[01]", "HTTP/1.1", lines[0]).upper()] + head + lines[end:]
    return "\n".join(lines).strip("\n")


class _DocumentRun:
    """One document's examples, run in its order: one namespace, and one app served for its
    console sessions once a session asks for it."""

    def __init__(self, path):
        self.path = path
        self.namespace = {"__name__": "docs_example"}
        self.site = None

    def run(self, line, kind, text):
        where = "{}:{}".format(self.path, line)
        if kind == "python":
            try:
                exec(compile(text, where, "exec"), self.namespace)
            except ImportError as exc:  # the matrix's environments: Flask, pytest, Markdown
                if exc.name in ("flask_api", "notes_app") or exc.name is None:
                    raise
                pytest.skip("{} needs {}, not installed here".format(where, exc.name))
        elif kind == "pycon":
            self._doctest(where, line, text)
        elif kind == "console":
            self._console(where, text)

    def _doctest(self, where, line, text):
        import doctest
        test = doctest.DocTestParser().get_doctest(text, self.namespace, where, self.path, line)
        report = io.StringIO()
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test, out=report.write, clear_globs=False)
        assert runner.failures == 0, report.getvalue()

    def _console(self, where, text):
        commands = _console_commands(text)
        if not all(command.startswith("curl ") for command, _ in commands):
            return  # set-up commands (pip, gunicorn, the app itself): shown, not run
        if self.site is None:
            self.site = _LiveSite()
            app = self.namespace.get("app")
            if app is None:
                app = notes_app.create_app(feed_seconds=1)
            self.site.serve(app)
        port = self.site.server.server_port
        for command, shown in commands:
            done = subprocess.run(
                ["bash", "-c", command.replace("127.0.0.1:5000", "127.0.0.1:{}".format(port))],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
            got = _shown_output(done.stdout.decode("utf-8"), port)
            assert got == _shown_output(shown, port), "{}: $ {}".format(where, command)

    def close(self):
        if self.site is not None:
            self.site.close()


# The share of a picture's pixels (420 of 1100 x 760) that may differ: edges of glyphs drawn a
# shade apart; a word changed (a page title is 0.2% of the picture) is over it.
_SCREENSHOT_TOLERANCE = 0.0005


def _pixels_apart(path, other):
    """The share of the two pictures' pixels that differ by more than a shade (any channel by
    more than 24 of 255); 1.0 for pictures of two sizes."""
    from PIL import Image, ImageChops
    with Image.open(path) as one, Image.open(other) as two:
        one, two = one.convert("RGB"), two.convert("RGB")
        if one.size != two.size:
            return 1.0
        apart = ImageChops.difference(one, two).convert("L").point(lambda v: 255 if v > 24 else 0)
        return apart.histogram()[255] / float(one.size[0] * one.size[1])


@pytest.fixture(params=_DOC_FILES)
def document(request):
    """A document of README.md, CHANGELOG.md and docs/, and the run of its examples."""
    run = _DocumentRun(request.param)
    yield run
    run.close()


class TestDocs:
    """Every example in the README and the manual runs, its output compared with the one
    shown; every internal link leads somewhere; the screenshots are what the tool makes."""

    def test_every_block_is_of_a_kind_that_is_run_or_only_shown(self):
        unknown = ["{}:{} {}".format(path, line, kind or "(no kind)")
                   for path in _DOC_FILES for line, kind, _ in _fenced_blocks(path)
                   if kind not in _RUN_KINDS | _SHOWN_KINDS]
        assert unknown == []

    def test_changelogs_newest_release_is_the_modules_version(self):
        headings = re.findall(r"(?m)^## \[([^\]]+)\]", _read(os.path.join(_ROOT, "CHANGELOG.md")))
        releases = [name for name in headings if name != "Unreleased"]  # what is to come
        assert headings.index(releases[0]) <= 1 and releases[0] == flask_api.__version__

    def test_every_image_the_documents_show_is_in_the_repository(self):
        missing = ["{}: {}".format(path, image) for path in _DOC_FILES
                   for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)",
                                           _read(os.path.join(_ROOT, path)))
                   if not os.path.exists(os.path.join(_ROOT, os.path.dirname(path), image))]
        assert missing == []

    def test_screenshots_are_what_the_tool_makes_of_the_page_now(self, chromium, tmp_path):
        try:
            import PIL  # noqa: F401
        except ImportError:
            _no_browser("the screenshots' comparison needs Pillow")
        from tools import screenshots
        made = screenshots.make(chromium, str(tmp_path))
        assert sorted(made) == sorted(name for name in os.listdir(screenshots.OUT)
                                      if name.endswith(".png"))
        apart = {name: round(_pixels_apart(os.path.join(screenshots.OUT, name),
                                           str(tmp_path / name)), 4) for name in made}
        stale = {name: share for name, share in apart.items() if share > _SCREENSHOT_TOLERANCE}
        assert stale == {}, "the page has changed: python tools/screenshots.py makes them anew"

    def test_the_manuals_eventsource_client_gets_each_change_in_order(self, chromium, live_site):
        js = [text for line, kind, text in _fenced_blocks("docs/production.md") if kind == "js"]
        assert len(js) == 1, "the manual's one JavaScript example, run here"
        site = live_site.serve(notes_app.create_app(feed_seconds=1))
        for method, path in [("PUT", "/2/"), ("POST", "/"), ("DELETE", "/1/")]:  # as the curl
            assert _api(site, path, method, {"text": "new"})[0] in (200, 201, 204)  # session
        with _open_tab(chromium, site) as tab:
            tab.goto("/1/")
            tab.evaluate("() => { window.shown = []; window.startedAgain = 0;"  # through the
                         " window.show = (change) => shown.push(change);"  # debugging protocol,
                         " window.startAgain = () => { startedAgain += 1; };\n"  # so no CSP
                         + js[0] + "}")
            for _ in range(100):  # the page's CSP refuses wait_for_function's eval
                if tab.evaluate("shown.length") >= 2:
                    break
                time.sleep(0.1)
            time.sleep(1.5)  # past the feed's end and EventSource's reconnection: nothing twice
            shown = tab.evaluate("shown")
            assert [(c["position"], c["change"]) for c in shown] == [(2, "created"),
                                                                      (3, "deleted")]
            assert tab.evaluate("startedAgain") == 0

    def test_every_example_runs_and_shows_what_it_gives(self, document):
        if not shutil.which("curl"):
            _missing("REQUIRE_BROWSER", "the documents' console examples need curl")
        for line, kind, text in _fenced_blocks(document.path):
            if kind in _RUN_KINDS:
                document.run(line, kind, text)
