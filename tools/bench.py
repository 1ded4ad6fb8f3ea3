"""Benchmark: the notes API on FlaskAPI against the same API on bare Flask.

    python tools/bench.py              # full run, about half a minute; prints Markdown tables
    python tools/bench.py --quick      # 3 short rounds, a CI smoke test
    python tools/bench.py --rounds 11  # more rounds for steadier numbers
    python tools/bench.py --stream-page  # the page under 10,000 stream items a second, alone
    python tools/bench.py --page-weight  # the page's bytes per navigation, time to interactive
    python tools/bench.py --compare    # the page's comparison of two answers of 20,000 items
    python tools/bench.py --feed       # the notes' change feed under gunicorn, alone: 1 to 1,000
                                       # subscribers, a write's delay to them and the write rate

From the repository root, where it finds ``flask_api.py`` and ``notes_app.py``.

Both apps live in this process and are called as WSGI callables, no sockets: each
scenario builds its environ once with werkzeug's ``EnvironBuilder`` and every call
gets a copy with a fresh body stream. Rounds alternate the two apps (A B, then B A)
so drift hits both alike. Numbers are microseconds per request: the median over the
rounds and the min-max across them.

The bare Flask app mirrors ``notes_app.py`` line for line (same ``NoteStore``, same
``<key>`` route and key check, ``url_for(..., _external=True)``), swapping only what
FlaskAPI provides: ``jsonify`` for rendering, ``request.get_json()`` /
``request.form`` for bodies, ``abort(404)`` plus an error handler for
``{"detail": ...}``. So the ratio is the cost of the framework, not of the app.

JSON scenarios send ``Accept: application/json``. "browser Accept + ?format=json"
sends a browser's full Accept header and forces JSON with the URL override, the
cost of negotiation on what a person clicking "View as JSON" gets. The HTML page
has no bare Flask counterpart and is compared with FlaskAPI's own JSON list.

A second table counts the Python bytecodes each request runs (traced, after the
timing). The count is the same on every run, so it shows a change of 1% that the
timings of a shared machine hide; it misses time spent in C, so it does not replace them.

Peak memory for the 1,000-note list runs each app in a subprocess of its own
(``--memory flaskapi`` / ``--memory flask``), so neither pays for the other's imports.

The last rows measure the bare Flask app again, with ``BrowsableAPI(app)`` added,
against itself without it: what the page on any Flask app costs its JSON clients.

A stream's table: items per second from a FlaskAPI generator view to a JSON Lines client,
against bare Flask streaming the same generator as ``json.dumps`` lines in a ``Response``.

Targets (a report, not an assertion; the exit status is 0 either way): every JSON
scenario within 1.05x bare Flask, the HTML page within 2x the JSON list,
``BrowsableAPI`` within 1.02x for JSON clients, and a stream's time per item within 1.1x.
"""

import argparse
import contextlib
import functools
import gc
import io
import json
import logging
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple

from flask import Flask, Response, abort, jsonify, request, url_for
from werkzeug.test import EnvironBuilder

try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # run as tools/bench.py: import flask_api and notes_app from the root
JSON_ACCEPT = "application/json"
BROWSER_ACCEPT = ("text/html,application/xhtml+xml,application/xml;q=0.9,"
                  "image/avif,image/webp,*/*;q=0.8")
INITIAL_NOTES = {0: "do the shopping", 1: "build the codez", 2: "paint the door"}  # notes_app's
MAX_KEY_DIGITS = 18  # notes_app's
KEY_PATTERN = re.compile(r"[0-9]{1,%d}" % MAX_KEY_DIGITS)  # notes_app's
BIG = 1000  # notes in the large-list scenario
CHANGES_KEPT = 10000  # notes_app's
JSON_TARGET = 1.03  # of bare Flask, in time and in bytecodes (issue #45)
BROWSABLE_TARGET = 1.02  # BrowsableAPI on a plain Flask app, for its JSON clients
HTML_TARGET = 2.0


# ---------------------------------------------------------------------------
# The two apps
# ---------------------------------------------------------------------------

def _notes(count: Optional[int]) -> Optional[Dict[int, str]]:
    """None for the three reference notes, else ``count`` numbered ones."""
    return None if count is None else {key: "note number {}".format(key) for key in range(count)}


class Change(NamedTuple):
    """notes_app.Change, copied."""
    position: int
    key: int
    change: str
    text: Optional[str]


class NoteStore:
    """notes_app.NoteStore, copied (its change log too, which each write keeps): importing
    notes_app would import flask_api too."""

    written = None  # type: Optional[Callable[[], None]]

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
            key = max(self._notes, default=-1) + 1
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
                return
            self._record(key, "deleted", None)
        self._logged()

    def _logged(self) -> None:
        if self.written is not None:
            self.written()

    def _record(self, key: int, change: str, text: Optional[str]) -> None:
        self._position += 1
        self._log.append(Change(self._position, key, change, text))
        if len(self._log) >= 2 * CHANGES_KEPT:
            del self._log[:-CHANGES_KEPT]

    def snapshot(self) -> Tuple[List[Tuple[int, str]], int]:
        with self._lock:
            return sorted(self._notes.items()), self._position


def flaskapi_app(count: Optional[int] = None) -> Flask:
    """The reference notes API (imported here so the bare-Flask process stays bare)."""
    import notes_app
    return notes_app.create_app(_notes(count))


def browsable_app(count: Optional[int] = None) -> Flask:
    """The bare-Flask twin with ``BrowsableAPI(app)``: what the page costs an API client."""
    from flask_api import BrowsableAPI
    app = flask_app(count)
    BrowsableAPI(app)
    return app


def flask_app(count: Optional[int] = None) -> Flask:
    """The same API written the idiomatic way on plain Flask."""
    app = Flask("notes_flask")
    app.config["MAX_CONTENT_LENGTH"] = 1024 * 1024  # notes_app's default body limit
    store = NoteStore(_notes(count))

    def note(key: int, text: str) -> Dict[str, Any]:
        return {"url": url_for("notes_detail", key=key, _external=True), "text": text}

    def text_from_body() -> str:
        data = request.get_json() if request.is_json else request.form
        if not isinstance(data, dict):
            abort(400, "Expected an object with a 'text' field.")
        text = data.get("text", "")
        return text if isinstance(text, str) else str(text)

    def number(key: str) -> int:
        if not KEY_PATTERN.fullmatch(key):
            abort(404, "This resource does not exist.")
        return int(key)

    @app.errorhandler(400)
    @app.errorhandler(404)
    def error(exc: Any) -> Any:
        return jsonify(detail=exc.description), exc.code

    @app.route("/", methods=["GET", "POST"])
    def notes_list() -> Any:
        if request.method == "POST":
            text = text_from_body()
            return jsonify(note(store.create(text), text)), 201
        items, position = store.snapshot()
        link = '<{}?after={}>; rel="changes"'.format(url_for("notes_changes"), position)
        return jsonify([note(key, text) for key, text in items]), {"Link": link}

    @app.route("/changes")
    def notes_changes() -> Any:  # the feed is FlaskAPI's streams: only its URL is needed here
        abort(404)

    @app.route("/<key>/", methods=["GET", "PUT", "DELETE"])
    def notes_detail(key: str) -> Any:
        key_number = number(key)
        if request.method == "PUT":
            text = text_from_body()
            store.put(key_number, text)
            return jsonify(note(key_number, text))
        if request.method == "DELETE":
            store.delete(key_number)
            return "", 204
        stored = store.get(key_number)
        if stored is None:
            abort(404, "This resource does not exist.")
        return jsonify(note(key_number, stored))

    return app


# ---------------------------------------------------------------------------
# Requests as prepared WSGI calls
# ---------------------------------------------------------------------------

class Call:
    """One request, built once and replayed against any WSGI app."""

    def __init__(self, method: str, path: str, accept: str, body: bytes = b"",
                 content_type: Optional[str] = None, query: str = "") -> None:
        builder = EnvironBuilder(path=path, method=method, query_string=query,
                                 headers=[("Accept", accept)], data=body or None,
                                 content_type=content_type)
        self.environ = builder.get_environ()
        builder.close()
        self.body = body

    def __call__(self, app: Any) -> Tuple[str, bytes, Dict[str, str]]:
        """Run the request; return (status, body, headers), as a server would see them."""
        seen = {}  # type: Dict[str, Any]

        def start_response(status: str, headers: List[Tuple[str, str]], exc_info: Any = None
                           ) -> Callable[[bytes], None]:
            seen["status"], seen["headers"] = status, dict(headers)
            return lambda data: None

        environ = self.environ.copy()
        environ["wsgi.input"] = io.BytesIO(self.body)
        result = app(environ, start_response)
        try:
            body = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        return seen["status"], body, seen["headers"]

    def loop(self, app: Any, count: int) -> float:
        """Seconds for ``count`` requests: the same work as ``__call__``, minus bookkeeping."""
        environ, body, copy, stream = self.environ, self.body, dict.copy, io.BytesIO

        def start_response(status: str, headers: Any, exc_info: Any = None) -> Any:
            return None

        gc.collect()
        start = time.perf_counter()
        for _ in range(count):
            env = copy(environ)
            env["wsgi.input"] = stream(body)
            result = app(env, start_response)
            for _chunk in result:
                pass
            close = getattr(result, "close", None)
            if close is not None:
                close()
        return time.perf_counter() - start


class Scenario(NamedTuple):
    name: str
    call: Call
    base_call: Call  # the baseline request
    base: str  # "flask" (same request on bare Flask) or "flaskapi" (FlaskAPI's JSON list)
    target: float
    status: str  # expected status line, checked before timing
    big: bool = False  # uses the 1,000-note apps
    app: str = "flaskapi"  # the app measured: "flaskapi", or "browsable" (bare + BrowsableAPI)


def scenarios() -> List[Scenario]:
    """Every scenario in the order of the table."""
    json_list = Call("GET", "/", JSON_ACCEPT)
    detail = Call("GET", "/1/", JSON_ACCEPT)
    put_json = Call("PUT", "/1/", JSON_ACCEPT, b'{"text": "build the codez"}', "application/json")
    put_form = Call("PUT", "/1/", JSON_ACCEPT, b"text=build+the+codez",
                    "application/x-www-form-urlencoded")
    missing = Call("GET", "/99/", JSON_ACCEPT)
    forced = Call("GET", "/1/", BROWSER_ACCEPT, query="format=json")
    html = Call("GET", "/", BROWSER_ACCEPT)
    return [
        Scenario("list (3 notes), JSON", json_list, json_list, "flask", JSON_TARGET, "200 OK"),
        Scenario("detail, JSON", detail, detail, "flask", JSON_TARGET, "200 OK"),
        Scenario("PUT, JSON body", put_json, put_json, "flask", JSON_TARGET, "200 OK"),
        Scenario("PUT, form body", put_form, put_form, "flask", JSON_TARGET, "200 OK"),
        Scenario("404, missing key", missing, missing, "flask", JSON_TARGET, "404 NOT FOUND"),
        Scenario("detail, browser Accept + ?format=json", forced, forced, "flask", JSON_TARGET,
                 "200 OK"),
        Scenario("list (1,000 notes), JSON", json_list, json_list, "flask", JSON_TARGET, "200 OK",
                 big=True),
        Scenario("list (3 notes), HTML page", html, json_list, "flaskapi", HTML_TARGET, "200 OK"),
        Scenario("BrowsableAPI(Flask app): list (3 notes), JSON", json_list, json_list, "flask",
                 BROWSABLE_TARGET, "200 OK", app="browsable"),
        Scenario("BrowsableAPI(Flask app): detail, JSON", detail, detail, "flask",
                 BROWSABLE_TARGET, "200 OK", app="browsable"),
    ]


def check(scenario: Scenario, app: Any, base_app: Any) -> None:
    """Both sides answer as expected, so the timings compare like with like."""
    status, body, headers = scenario.call(app)
    base_status, base_body, _ = scenario.base_call(base_app)
    problem = None
    if status != scenario.status or base_status != scenario.status:
        problem = "status {!r} / {!r}".format(status, base_status)
    elif scenario.base == "flaskapi":
        if not headers.get("Content-Type", "").startswith("text/html"):
            problem = "not an HTML page: " + headers.get("Content-Type", "")
    elif json.loads(body) != json.loads(base_body):
        problem = "bodies differ: {!r} / {!r}".format(body[:200], base_body[:200])
    elif scenario.app == "browsable" and body != base_body:
        problem = "BrowsableAPI changed a JSON client's bytes: {!r}".format(body[:200])
    if problem:
        sys.exit("bench.py: scenario {!r} is not comparable: {}".format(scenario.name, problem))


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------

class Result(NamedTuple):
    scenario: Scenario
    times: List[float]  # microseconds per request, one per round
    base_times: List[float]
    bytecodes: Optional[float]  # Python bytecodes per request; None where not countable
    base_bytecodes: Optional[float]


def calibrate(call: Call, app: Any, round_seconds: float) -> int:
    """Requests per round so one app's share of a round takes about ``round_seconds``."""
    count = 10
    while True:
        elapsed = call.loop(app, count)
        if elapsed >= 0.05 or count >= 1000000:
            return max(10, int(count * round_seconds / elapsed))
        count *= 4


def bytecodes(call: Call, app: Any, requests: int = 5) -> Optional[float]:
    """Python bytecodes one request runs: unlike time, the same on every run and machine.

    It misses work done in C (the JSON encoder's, regex matching), so it complements
    the timings rather than replacing them; it shows where Python-level overhead went.
    """
    if not hasattr(sys._getframe(), "f_trace_opcodes"):  # Python 3.6 traces lines only
        return None
    count = 0

    def on_call(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return on_opcode

    def on_opcode(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        count += event == "opcode"
        return on_opcode

    call(app)  # caches warm, as in the timed loop
    sys.settrace(on_call)
    try:
        for _ in range(requests):
            call(app)
    finally:
        sys.settrace(None)
    return count / requests


def measure(scenario: Scenario, app: Any, base_app: Any, rounds: int,
            round_seconds: float) -> Result:
    """Alternate the two sides for ``rounds`` rounds; microseconds per request each round."""
    check(scenario, app, base_app)
    count = calibrate(scenario.call, app, round_seconds / 2)
    scenario.base_call.loop(base_app, count // 4 + 1)  # warm up the baseline too
    times, base_times = [], []  # type: List[float], List[float]
    for round_index in range(rounds):
        sides = [(scenario.call, app, times), (scenario.base_call, base_app, base_times)]
        for call, wsgi_app, out in sides if round_index % 2 == 0 else sides[::-1]:
            out.append(call.loop(wsgi_app, count) / count * 1e6)
    return Result(scenario, times, base_times, bytecodes(scenario.call, app),
                  bytecodes(scenario.base_call, base_app))


def run_all(rounds: int, round_seconds: float) -> List[Result]:
    apps = {False: (flaskapi_app(), flask_app()), True: (flaskapi_app(BIG), flask_app(BIG))}
    browsable = browsable_app()
    results = []
    for scenario in scenarios():
        app, bare = apps[scenario.big]
        base_app = bare if scenario.base == "flask" else app
        app = browsable if scenario.app == "browsable" else app
        results.append(measure(scenario, app, base_app, rounds, round_seconds))
        print("  measured: " + scenario.name, file=sys.stderr)
    return results


# ---------------------------------------------------------------------------
# Memory, in a subprocess per app
# ---------------------------------------------------------------------------

def memory_child(which: str, requests: int) -> None:
    """Build one app with 1,000 notes, serve the JSON list; print the peaks as JSON."""
    app = flaskapi_app(BIG) if which == "flaskapi" else flask_app(BIG)
    call = Call("GET", "/", JSON_ACCEPT)
    call.loop(app, requests)
    tracemalloc.start()  # after the warm-up: a steady-state request, not the first one
    call(app)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(json.dumps({"hwm_kib": _vm_hwm_kib(), "maxrss_kib": _maxrss_kib(),
                      "tracemalloc_peak_kib": peak / 1024}))


def _maxrss_kib() -> Optional[int]:
    if resource is None:
        return None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss // 1024 if sys.platform == "darwin" else rss  # macOS counts bytes


def _vm_hwm_kib() -> Optional[int]:
    """This process's own peak RSS on Linux, where ru_maxrss carries the parent's over exec."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def memory(requests: int) -> Dict[str, Dict[str, Any]]:
    """Run the memory child for each app; their parsed reports."""
    out = {}
    for which in ("flaskapi", "flask"):
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--memory", which,
             "--memory-requests", str(requests)],
            cwd=ROOT, stdout=subprocess.PIPE, check=True)
        out[which] = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    return out


# ---------------------------------------------------------------------------
# Big pages: a list of 20,000 and 100,000 items, and a list and an object of 1,000,000
# short strings, on the server and in Chromium
# ---------------------------------------------------------------------------

def big_items(count: int) -> List[Dict[str, Any]]:
    """Items of five fields (a number, a string, a URL, a nested dict, a list), ~150 bytes."""
    return [{"id": i, "name": "item {}".format(i), "url": "http://localhost/items/{}/".format(i),
             "owner": {"id": i % 97, "name": "user {}".format(i % 97)},
             "tags": ["red", "green", "blue"][:i % 3 + 1]} for i in range(count)]


def big_bodies(counts: List[int], strings: int = 0) -> List[Tuple[str, Any]]:
    """``big_items`` of each count; and for ``strings``, a list of that many short strings
    and an object of that many keys with the same strings as values."""
    bodies = [("{:,} items".format(count), big_items(count))
              for count in counts]  # type: List[Tuple[str, Any]]
    if strings:
        values = ["value {}".format(i) for i in range(strings)]
        bodies += [("{:,} strings".format(strings), values), ("{:,} keys".format(strings), {
            "key {}".format(i): value for i, value in enumerate(values)})]
    return bodies


def big_app(data: Any) -> Flask:
    from flask_api import FlaskAPI
    app = FlaskAPI(__name__)
    app.add_url_rule("/items/", "items", lambda: data)
    return app


class BigPage(NamedTuple):
    body: str
    json_bytes: int
    page_bytes: int
    json_seconds: float  # the server's render, median
    page_seconds: float
    browser: Optional[Dict[str, float]]  # seconds until shown: raw JSON view, page, page no JS


def big_pages(bodies: List[Tuple[str, Any]], rounds: int, browser: bool) -> List[BigPage]:
    """The server's JSON and page renders of each big body, and Chromium showing each."""
    results = []
    for name, data in bodies:
        app = big_app(data)
        json_call, page_call = Call("GET", "/items/", JSON_ACCEPT), Call("GET", "/items/",
                                                                          BROWSER_ACCEPT)
        json_body, page_body = json_call(app)[1], page_call(app)[1]
        json_times, page_times = [], []
        for _ in range(rounds):
            json_times.append(json_call.loop(app, 1))
            page_times.append(page_call.loop(app, 1))
        shown = chromium_times(app) if browser else None
        results.append(BigPage(name, len(json_body), len(page_body),
                               statistics.median(json_times), statistics.median(page_times), shown))
    return results


@contextlib.contextmanager
def chromium_browser() -> Iterator[Any]:
    """Headless Chromium (Playwright's, Debian's binary), closed after; None without it."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        executable = None
    if executable is None:
        yield None
        return
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=[
            "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            yield chromium
        finally:
            chromium.close()


@contextlib.contextmanager
def chromium_serving(app: Flask) -> Iterator[Optional[Tuple[Any, str]]]:
    """Headless Chromium and ``app`` served on a free local port (a thread of this process),
    as (browser, base URL), both stopped after; None without Chromium."""
    with chromium_browser() as chromium:
        if chromium is None:
            yield None
            return
        from werkzeug.serving import make_server
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line for each request
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield chromium, "http://127.0.0.1:{}".format(server.server_port)
        finally:
            server.shutdown()
            server.server_close()


def chromium_times(app: Flask) -> Optional[Dict[str, float]]:
    """Seconds until Chromium has painted the body: its own view of the raw JSON
    (``?format=json``), the page (and its script has built its tools: interactive), and the
    page with JavaScript off; None without Chromium."""
    with chromium_serving(app) as serving:
        if serving is None:
            return None
        chromium, base = serving
        url, times = base + "/items/", {}
        for name, address, script in (("raw", url + "?format=json", True),
                                      ("page", url, True), ("no JS", url, False)):
            tab = chromium.new_context(java_script_enabled=script).new_page()
            started = time.perf_counter()
            tab.goto(address, timeout=180000)
            if name == "page":  # the last of the tools the script builds
                tab.wait_for_selector("#api-curl button", timeout=180000)
            tab.screenshot(timeout=180000)  # waits for the frame with the body painted
            times[name] = time.perf_counter() - started
            tab.context.close()
    return times


def big_page_table(results: List[BigPage]) -> str:
    lines = ["| body | JSON | page bytes | server: JSON / page | raw JSON view | "
             "page, interactive | page, no JS |", "|---|---|---|---|---|---|---|"]
    for row in results:
        shown = row.browser or {}
        lines.append("| {} | {:.1f} MB | {:.2f}x | {:.2f} s / {:.2f} s ({:.2f}x) | {} | {} | "
                     "{} |".format(row.body, row.json_bytes / 1e6, row.page_bytes / row.json_bytes,
                                   row.json_seconds, row.page_seconds,
                                   row.page_seconds / row.json_seconds, _shown(shown, "raw"),
                                   _shown(shown, "page"), _shown(shown, "no JS")))
    return "\n".join(lines)


def _shown(times: Dict[str, float], name: str) -> str:
    """Seconds until Chromium showed it, and the ratio to its raw view of the JSON."""
    if name not in times:
        return "-"
    ratio = "" if name == "raw" else " ({:.1f}x)".format(times[name] / times["raw"])
    return "{:.2f} s{}".format(times[name], ratio)


# ---------------------------------------------------------------------------
# What the page costs a browser: bytes per navigation, and a first visit's time to interactive
# ---------------------------------------------------------------------------

# Notes, from before the page's script runs, the time its last tool is built (interactive).
READY_WATCH = """new MutationObserver((changes, watch) => {
  if (document.querySelector("#api-curl button")) {
    window.__ready = performance.now(); watch.disconnect(); } })
  .observe(document, {childList: true, subtree: true});"""

# Bytes over the wire for the last navigation: its HTML, and each file it loaded.
TRANSFERRED = """() => ({html: performance.getEntriesByType("navigation")[0].transferSize,
  files: performance.getEntriesByType("resource").reduce((sum, entry) =>
    sum + entry.transferSize, 0)})"""

# Where a first visit's time goes: the HTML's last byte, each file's request and last byte
# (Resource Timing: the script's, the style's), DOMContentLoaded, and the last tool built.
VISIT_TIMES = """() => {
  const times = {}, navigation = performance.getEntriesByType("navigation")[0];
  times.html = navigation.responseEnd;
  for (const entry of performance.getEntriesByType("resource")) {
    const kind = entry.name.endsWith(".js") ? "script" : entry.name.endsWith(".css") ? "style" : "";
    if (kind) Object.assign(times, {[kind + " asked"]: entry.startTime,
      [kind + " sent"]: entry.requestStart, [kind + " in"]: entry.responseEnd});
  }
  times["DOMContentLoaded"] = navigation.domContentLoadedEventStart;
  times.interactive = window.__ready;
  return times;
}"""

# The networks a first visit is timed on: this machine's loopback, and two that Chromium
# emulates (DevTools' Network.emulateNetworkConditions): round trip in ms, Mbit/s each way.
NETWORKS = (("loopback", None), ("20 ms, 20 Mbit/s", (20, 20)), ("40 ms, 10 Mbit/s", (40, 10)))


def _first_visit(chromium: Any, base: str, network: Optional[Tuple[int, int]]) -> Tuple[
        Dict[str, float], Dict[str, float], Dict[str, float]]:
    """One first visit to the notes list in a fresh context (an empty cache) on ``network``,
    then the next page (a note): the bytes of each, and the visit's times."""
    context = chromium.new_context()
    try:
        tab = context.new_page()
        if network is not None:
            devtools = context.new_cdp_session(tab)
            devtools.send("Network.enable")
            rtt, mbit = network
            devtools.send("Network.emulateNetworkConditions", {
                "offline": False, "latency": rtt, "downloadThroughput": mbit * 1e6 / 8,
                "uploadThroughput": mbit * 1e6 / 8})
        tab.add_init_script(READY_WATCH)
        tab.goto(base + "/")
        tab.wait_for_function("window.__ready !== undefined")
        first, times = tab.evaluate(TRANSFERRED), tab.evaluate(VISIT_TIMES)
        tab.goto(base + "/1/")
        tab.wait_for_function("window.__ready !== undefined")
        return first, tab.evaluate(TRANSFERRED), times
    finally:
        context.close()


def page_weight(visits: int = 5) -> Optional[Dict[str, Any]]:
    """The notes list in Chromium (notes_app): the bytes a first visit moves (its HTML, and
    the files the browser accepts gzipped), those of the next page (a note, its files kept),
    and a first visit's times to interactive, from navigation to the script's last tool
    built, on each of NETWORKS: the medians of ``visits`` fresh browser contexts each, each
    with an empty cache, the networks taken in turn so that a busy spell falls on all. The
    notes app runs under gunicorn, a process of its own as a user's server is, so that the
    browser's requests do not wait on this one's. None without Chromium."""
    with chromium_browser() as chromium:
        if chromium is None:
            return None
        server, port = _serve(1, 4, dict(os.environ))
        base = "http://127.0.0.1:{}".format(port)
        firsts, nexts = [], []  # type: List[Dict[str, float]], List[Dict[str, float]]
        times = {name: [] for name, _ in NETWORKS}  # type: Dict[str, List[Dict[str, float]]]
        try:
            _first_visit(chromium, base, None)  # the server's and browser's first: not counted
            for _ in range(visits):
                for name, network in NETWORKS:
                    first, following, visit = _first_visit(chromium, base, network)
                    if network is None:
                        firsts.append(first)
                        nexts.append(following)
                    times[name].append(visit)
        finally:  # a tab that failed leaves no server behind
            server.terminate()
            server.wait()
    return {"html": statistics.median(first["html"] for first in firsts),
            "first": statistics.median(first["html"] + first["files"] for first in firsts),
            "next": statistics.median(one["html"] + one["files"] for one in nexts),
            "next files": max(one["files"] for one in nexts),
            "times": {name: {key: statistics.median(visit[key] for visit in found)
                             for key in found[0]} for name, found in times.items()},
            "visits": visits, "load": os.getloadavg()}


def page_weight_table(result: Optional[Dict[str, Any]]) -> str:
    if result is None:
        return "The page's weight: skipped, no Chromium (playwright and chromium)."
    lines = [
        "| the notes list in Chromium | bytes over the wire | budget |", "|---|---|---|",
        "| its HTML, each navigation | {:,.0f} | 12 KB |".format(result["html"]),
        "| a first visit: HTML, script and style | {:,.0f} | 60 KB |".format(result["first"]),
        "| the next page (a note) | {:,.0f}, its files {:,.0f} | files 0 |".format(
            result["next"], result["next files"]),
        "", "| a first visit, ms from navigation (median of {}) | {} |".format(
            result["visits"], " | ".join(name for name, _ in NETWORKS)),
        "|---|" + "---:|" * len(NETWORKS)]
    times = result["times"]
    for key in times[NETWORKS[0][0]]:
        lines.append("| {} | {} |".format(key, " | ".join(
            "{:.0f}".format(times[name][key]) if key in times[name] else "-"
            for name, _ in NETWORKS)))
    lines.append("")
    lines.append("Load average while measured (1, 5, 15 min): {:.2f}, {:.2f}, {:.2f}.".format(
        *result["load"]))
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# The page's comparison of two answers: 20,000 items a side, in Chromium
# ---------------------------------------------------------------------------

# In the page, with its script's parts (handed over as test_all.py's script_parts takes them):
# the median ms, over five rounds, to parse both bodies as lossless JSON, to find their
# differences, and to build what the page shows of them from the two texts (parsing and
# diffing again, and listing the first 1,000 changes).
COMPARE_PARTS = ("document.addEventListener('flask-api:script', "
                 "(event) => { window.parts = event.detail; }, {once: true});")
COMPARE_TIMES = """async ([before, after]) => {
  const median = (list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const times = {parse: [], diff: [], view: [], keep: [], read: []};
  let changes = 0, stored = 0;
  for (let round = 0; round < 5; round += 1) {
    const keeping = performance.now();  // the history keeps each body gzipped, reads it back
    const kept = [await parts.packed(before), await parts.packed(after)];
    const reading = performance.now();
    await Promise.all(kept.map(parts.unpacked));
    times.keep.push(reading - keeping);
    times.read.push(performance.now() - reading);
    stored = kept[0].length;
    const started = performance.now();
    const one = parts.parseJSON(before), other = parts.parseJSON(after);
    const parsed = performance.now();
    changes = parts.diffJSON(one, other).changes.length;
    const found = performance.now();
    parts.bodyDifferences({body: before}, {body: after});
    times.parse.push(parsed - started);
    times.diff.push(found - parsed);
    times.view.push(performance.now() - found);
  }
  return {parse: median(times.parse), diff: median(times.diff), view: median(times.view),
          keep: median(times.keep), read: median(times.read), stored, changes};
}"""


def changed_items(count: int, every: int) -> List[Dict[str, Any]]:
    """``big_items`` with every ``every``th item's name changed, the last ten removed, and a
    key added to every 1,000th: values changed, removed and added."""
    items = big_items(count)[:count - 10]
    for item in items[::every]:
        item["name"] += " (changed)"
    for item in items[::1000]:
        item["added"] = True
    return items


def compare_page(count: int = 20000) -> Optional[List[Tuple[str, Dict[str, float]]]]:
    """The page's comparison of two bodies of ``count`` items, 1% of them changed and all of
    them: ms to keep both in the history (gzip, base64) and read them back, to parse both, to
    diff them, to build the view; the bytes one takes as stored; None without Chromium."""
    before = json.dumps(big_items(count))
    with chromium_serving(big_app([])) as serving:
        if serving is None:
            return None
        chromium, base = serving
        tab = chromium.new_context().new_page()
        from tools import page  # the tests' build: the page's script, its pure parts handed over
        tests_build = page.script(tests=True)
        tab.route("**/_flask_api/page.*.js", lambda route: route.fulfill(
            body=tests_build, content_type="text/javascript; charset=utf-8"))
        tab.add_init_script(COMPARE_PARTS)
        tab.goto(base + "/items/")
        tab.wait_for_function("Boolean(window.parts)")
        rows = []
        for name, every in (("1% of items changed", 100), ("every item changed", 1)):
            after = json.dumps(changed_items(count, every))
            rows.append((name, tab.evaluate(COMPARE_TIMES, [before, after])))
    return rows


def compare_table(rows: Optional[List[Tuple[str, Dict[str, float]]]], count: int = 20000) -> str:
    if rows is None:
        return "The page's comparison: skipped, no Chromium (playwright and chromium)."
    lines = ["| compare, {:,} items a side | changes | keep both (gzip) | read both back | "
             "parse both | diff | the view, all (parse, diff, 1,000 listed) |".format(count),
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, times in rows:
        lines.append("| {} | {:,} | {:.0f} ms | {:.0f} ms | {:.0f} ms | {:.0f} ms | {:.0f} ms |"
                     .format(name, times["changes"], times["keep"], times["read"],
                             times["parse"], times["diff"], times["view"]))
    lines.append("\nOne body, {:,} bytes of JSON, stored as {:,} bytes.".format(
        len(json.dumps(big_items(count))), int(rows[0][1]["stored"])))
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# The page under a live stream: 10,000 JSON Lines items a second, for ten seconds
# ---------------------------------------------------------------------------

# Watches the page's main thread from before its script runs: long tasks (over 50 ms, as the
# browser reports them) and the gaps between animation frames, each with the time it ended.
STREAM_WATCH = """window.__tasks = []; window.__frames = []; let last = 0;
new PerformanceObserver((list) => { for (const task of list.getEntries()) {
  window.__tasks.push([task.startTime + task.duration, task.duration]); } })
  .observe({type: "longtask", buffered: true});
const tick = (now) => { if (last) window.__frames.push([now, now - last]); last = now;
  requestAnimationFrame(tick); };
requestAnimationFrame(tick);"""


def stream_app(rate: int, seconds: int) -> Flask:
    """A Flask app under ``BrowsableAPI`` whose /items streams JSON Lines at ``rate`` items a
    second for ``seconds``, in a piece every 10 ms, as a busy server's generator would."""
    from flask import Response

    from flask_api import BrowsableAPI
    app = Flask(__name__)
    BrowsableAPI(app)

    @app.route("/items")
    def items() -> Any:
        def run() -> Any:
            started, piece = time.perf_counter(), rate // 100
            for at in range(0, rate * seconds, piece):
                time.sleep(max(0.0, started + at / rate - time.perf_counter()))
                yield "".join('{"n": %d, "text": "item %d of the stream"}\n' % (n, n)
                              for n in range(at, at + piece))
        return Response(run(), mimetype="application/jsonl")
    return app


def stream_page(rate: int = 10000, seconds: int = 10) -> Optional[Dict[str, float]]:
    """The page's main thread while it shows the stream live, from its first item to its end:
    the longest task, the 95th percentile and longest gap between frames (ms), the items it
    counted and those on screen; None without Chromium."""
    with chromium_serving(stream_app(rate, seconds)) as serving:
        if serving is None:
            return None
        chromium, base = serving
        tab = chromium.new_context().new_page()
        tab.add_init_script(STREAM_WATCH)
        tab.goto(base + "/items", wait_until="commit")  # the page's load ends with the stream
        tab.wait_for_selector(".item", timeout=30000)
        start = tab.evaluate("performance.now()")
        deadline = time.monotonic() + seconds + 60  # polled: the page's CSP has no eval
        while not (tab.locator(".stream-line").text_content() or "").startswith("Ended"):
            assert time.monotonic() < deadline, "the stream did not end"
            time.sleep(0.25)
        found = tab.evaluate("""(start) => ({
            tasks: window.__tasks.filter((task) => task[0] >= start).map((task) => task[1]),
            frames: window.__frames.filter((frame) => frame[0] >= start).map((f) => f[1]),
            counted: Number(document.querySelector('.stream-line').textContent
              .match(/([0-9,]+) items?/)[1].replaceAll(",", "")),
            shown: document.querySelectorAll('.item').length})""", start)
    frames = sorted(found["frames"])
    return {"rate": rate, "seconds": seconds, "max_task": max(found["tasks"] or [0]),
            "long_tasks": len(found["tasks"]), "p95_frame": frames[int(0.95 * (len(frames) - 1))],
            "max_frame": frames[-1], "frames": len(frames), "shown": found["shown"],
            "counted": found["counted"]}


def stream_page_table(result: Optional[Dict[str, float]]) -> str:
    if result is None:
        return "The page under a live stream: skipped, no Chromium (playwright and chromium)."
    return "\n".join([
        "| page under a live stream | items counted / on screen | frames | frame time p95 | "
        "longest frame | long tasks (> 50 ms) | longest task |",
        "|---|---:|---:|---:|---:|---:|---:|",
        "| {rate:,} items/s for {seconds} s, JSON Lines | {counted:,} / {shown:,} | {frames:,} | "
        "{p95_frame:.0f} ms | {max_frame:.0f} ms | {long_tasks} | {max_task:.0f} ms |".format(
            **result)])


# ---------------------------------------------------------------------------
# The notes stores under gunicorn: memory, SQLite, PostgreSQL, over real sockets
# ---------------------------------------------------------------------------

def _serve(workers: int, threads: int, env: Dict[str, str]) -> Tuple[Any, int]:
    """notes_app under gunicorn on 127.0.0.1: the process and its port, once it answers."""
    gunicorn = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen([gunicorn, "--workers", str(workers), "--threads", str(threads),
                                 "--bind", "127.0.0.1:0", "notes_app:app"], env=env, stdout=log,
                                stderr=subprocess.STDOUT,
                                cwd=ROOT)
        deadline, text = time.monotonic() + 60, ""
        while time.monotonic() < deadline:
            log.seek(0)
            text = log.read()
            found = re.search(r"Listening at: http://127\.0\.0\.1:([0-9]+)", text)
            if found and text.count("Booting worker") >= workers:
                return proc, int(found.group(1))
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("gunicorn did not start:\n" + text)


def store_load(port: int, clients: int, requests: int) -> Tuple[float, float]:
    """``requests`` mixed requests from ``clients`` threads, each on a connection of its own
    (reads of one note 60%, of the list 10%, PUT 20%, POST 10%): (requests/s, p99 in ms)."""
    import http.client
    latencies = []  # type: List[float]
    lock = threading.Lock()

    def client(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        for n in range(requests // clients):
            roll = (index * 7919 + n * 104729) % 10
            method, path, body = ("GET", "/{}/".format(n % 3), None)
            if roll == 6:
                method, path = "GET", "/"
            elif roll in (7, 8):
                method, body = "PUT", json.dumps({"text": "w{}".format(n)})
            elif roll == 9:
                method, path, body = "POST", "/", json.dumps({"text": "p{}".format(n)})
            started = time.perf_counter()
            conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
            conn.getresponse().read()
            mine.append(time.perf_counter() - started)
        conn.close()
        with lock:
            latencies.extend(mine)
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    return len(latencies) / elapsed, latencies[int(len(latencies) * 0.99)] * 1000


def stores(requests: int) -> List[Tuple[str, str, Optional[Tuple[float, float]]]]:
    """Each store under the same load: (store, workers x threads, (req/s, p99 ms) or None)."""
    results = []  # type: List[Tuple[str, str, Optional[Tuple[float, float]]]]
    with _store_servers("notes-bench-") as (env, temp, server):
        for name, workers, threads, db in (
                ("memory", 1, 8, None), ("SQLite", 4, 4, os.path.join(temp, "notes.db")),
                ("PostgreSQL", 4, 4, server.new_database() if server else None)):
            if name == "PostgreSQL" and server is None:
                results.append((name, "4 x 4", None))
                continue
            proc, port = _serve(workers, threads, dict(env, **({"NOTES_DB": db} if db else {})))
            try:
                results.append((name, "{} x {}".format(workers, threads),
                                store_load(port, 16, requests)))
            finally:
                proc.terminate()
                proc.wait(30)
    return results


@contextlib.contextmanager
def _store_servers(prefix: str) -> Iterator[Tuple[Dict[str, str], str, Any]]:
    """(the environment less its NOTES_ settings, a folder for SQLite files, a PostgreSQL
    server of its own where its binaries and psycopg are here, else None); all gone after."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("NOTES_")}
    temp, server = tempfile.mkdtemp(prefix=prefix), None
    from tools.postgres import Postgres
    bindir = Postgres.find()
    try:
        try:
            import psycopg  # noqa: F401
            if bindir:
                server = Postgres(bindir)
                server.start()
        except ImportError:
            pass
        yield env, temp, server
    finally:
        if server is not None:
            server.stop("immediate")
            shutil.rmtree(server.root, ignore_errors=True)
        shutil.rmtree(temp, ignore_errors=True)


def store_table(results: List[Tuple[str, str, Optional[Tuple[float, float]]]]) -> str:
    lines = ["| store | gunicorn workers x threads | requests/s | p99 latency |",
             "|---|---|---:|---:|"]
    for name, shape, measured in results:
        cells = ("{:,.0f}".format(measured[0]), "{:.1f} ms".format(measured[1])) if measured \
            else ("-", "- (no PostgreSQL server or psycopg here)")
        lines.append("| {} | {} | {} | {} |".format(name, shape, *cells))
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# The change feed: a write's delay to its subscribers, and the write rate while they listen
# ---------------------------------------------------------------------------

FEED_SUBSCRIBERS = (1, 100, 1000)
FEED_WRITES = 40  # writes whose delay to every subscriber is measured, one after another
FEED_RATE_SECONDS = 3.0  # of writes from 8 clients as fast as they go, for the write rate
FEED_WORKERS, FEED_THREADS = 4, 320  # the README's serving command: a worker holds 300 feeds


class FeedRow(NamedTuple):
    store: str
    subscribers: int
    delays: List[float]  # seconds from each write's answer to its change at each subscriber
    writes_per_second: float
    feeds_rss: int  # bytes the workers grew by as the subscribers came
    refused: int  # feeds answered 503 (a worker full), each tried again after its Retry-After


def feed_subscribers(port: int, after: int, count: int, ready: Any, delivered: Any, stop: Any,
                     out: Any, refused: Any) -> None:
    """A child process: ``count`` JSON Lines feeds from position ``after``, read as they come
    (asyncio, HTTP/1.0 so that the body is the lines). ``ready`` counts those that have
    their first item, ``delivered[n]`` those that have change ``after + n``, ``refused`` the
    503s of a worker full, each tried again after its Retry-After; sends back to ``out`` the
    times (time.monotonic, one clock for every process) each change arrived at."""
    import asyncio
    arrived = {}  # type: Dict[int, List[float]]
    found = re.compile(rb'"position": ([0-9]+)')

    async def connect() -> Any:
        while True:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2 ** 20)
            writer.write("GET /changes?after={} HTTP/1.0\r\nAccept: application/jsonl\r\n\r\n"
                         .format(after).encode())
            head = [await reader.readline()]
            while head[-1] not in (b"\r\n", b""):
                head.append(await reader.readline())
            if b" 503 " not in head[0]:
                return reader, writer  # the writer kept: it closes the connection as it goes
            with refused.get_lock():
                refused.value += 1
            writer.close()
            wait = [line[12:] for line in head if line.lower().startswith(b"retry-after:")]
            await asyncio.sleep(float(wait[0]) if wait else 1.0)

    async def follow() -> None:
        reader, _writer = await connect()
        await reader.readline()  # where it is: before the first change
        with ready.get_lock():
            ready.value += 1
        while True:
            line = await reader.readline()
            if not line:
                return
            position = int(found.search(line).group(1)) - after  # type: ignore[union-attr]
            if position <= FEED_WRITES:
                arrived.setdefault(position, []).append(time.monotonic())
                with delivered.get_lock():
                    delivered[position] += 1

    async def run() -> None:
        tasks = [asyncio.ensure_future(follow()) for _ in range(count)]
        while not stop.is_set():
            await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
    asyncio.get_event_loop().run_until_complete(run())
    out.send(arrived)


def _proc(path: str) -> str:
    with open(path) as text:
        return text.read()


def _workers_rss(master: int) -> int:
    """Bytes resident in the gunicorn workers of ``master``, together."""
    found = [re.search(r"VmRSS:\s+(\d+) kB", _proc("/proc/{}/status".format(pid)))
             for pid in _proc("/proc/{0}/task/{0}/children".format(master)).split()]
    return sum(int(kib.group(1)) * 1024 for kib in found if kib)


def _warm_up(port: int) -> int:
    """Requests, feeds among them, to each worker, so that what the workers grow by with the
    subscribers is theirs, not their first requests' (imports, caches, connections). The
    position they leave the change log at."""
    import http.client
    feeds = []
    for _ in range(40):
        feeds.append(http.client.HTTPConnection("127.0.0.1", port, timeout=30))
        feeds[-1].request("GET", "/changes", headers={"Accept": "application/jsonl"})
        feeds[-1].getresponse().readline()
    for conn in feeds:
        conn.close()
    for n in range(40):  # the feeds closed find their clients gone as they send these
        _put(port, 0, "warm {}".format(n))
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/", headers={"Accept": "application/json"})
    link = conn.getresponse().getheader("Link") or ""
    conn.close()
    return int(re.search(r"after=([0-9]+)", link).group(1))  # type: ignore[union-attr]


def _put(port: int, key: int, text: str, conn: Any = None) -> int:
    """PUT a note (on ``conn``, or a connection of its own): the answer's status."""
    import http.client
    own = conn is None
    conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("PUT", "/{}/".format(key), body=json.dumps({"text": text}),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        if own:
            conn.close()


def write_rate(port: int, seconds: float, clients: int = 8) -> float:
    """PUTs a second from ``clients`` threads, each on a kept-alive connection of its own."""
    import http.client
    done = [0] * clients
    deadline = time.monotonic() + seconds

    def client(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < deadline:
            if _put(port, index, "rate {}".format(done[index]), conn) == 200:
                done[index] += 1
        conn.close()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done) / seconds


def feed_row(store: str, env: Dict[str, str], subscribers: int) -> FeedRow:
    """One row: the notes app under gunicorn (2 workers) on a new database, ``subscribers``
    feeds open in a child process, FEED_WRITES writes one at a time, each once every
    subscriber has the one before, then the write rate while they listen."""
    import multiprocessing
    context = multiprocessing.get_context("fork")
    proc, port = _serve(FEED_WORKERS, FEED_THREADS, env)
    try:
        ready, delivered = context.Value("i", 0), context.Array("i", FEED_WRITES + 1)
        stop, (receive, send) = context.Event(), context.Pipe(duplex=False)
        refused = context.Value("i", 0)
        after = _warm_up(port)
        child = context.Process(target=feed_subscribers, daemon=True, args=(
            port, after, subscribers, ready, delivered, stop, send, refused))
        before = _workers_rss(proc.pid)
        child.start()
        _wait(lambda: ready.value == subscribers, "the subscribers")
        grown = _workers_rss(proc.pid) - before
        answered = []
        for position in range(1, FEED_WRITES + 1):
            assert _put(port, 1, "write {}".format(position)) == 200
            answered.append(time.monotonic())
            _wait(functools.partial(lambda at: delivered[at] == subscribers, position),
                  "change {}".format(position))
        rate = write_rate(port, FEED_RATE_SECONDS)
        stop.set()
        arrived = receive.recv()
        child.join(30)
    finally:
        stop.set()
        proc.terminate()
        proc.wait(60)
    delays = [at - answered[position - 1] for position, times in arrived.items() for at in times]
    return FeedRow(store, subscribers, delays, rate, grown, refused.value)


def _wait(done: Callable[[], bool], what: str, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise RuntimeError("bench.py: waited {:.0f} s for {}".format(seconds, what))
        time.sleep(0.0005)


def feeds() -> List[FeedRow]:
    """The feed on SQLite, and on PostgreSQL where its server and psycopg are here: the
    write rate with no one listening, then with each number of subscribers."""
    import resource as limits
    soft, hard = limits.getrlimit(limits.RLIMIT_NOFILE)  # a socket per subscriber, twice
    limits.setrlimit(limits.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    rows = []
    with _store_servers("notes-feed-") as (env, temp, server):
        for name in ("SQLite", "PostgreSQL"):
            if name == "PostgreSQL" and server is None:
                continue
            for count in (0,) + FEED_SUBSCRIBERS:
                db = os.path.join(temp, "{}.db".format(count)) if name == "SQLite" \
                    else server.new_database()
                if count == 0:  # no feed at all: the write rate alone, warmed up alike
                    proc, port = _serve(FEED_WORKERS, FEED_THREADS, dict(env, NOTES_DB=db))
                    try:
                        _warm_up(port)
                        rows.append(FeedRow(name, 0, [], write_rate(port, FEED_RATE_SECONDS), 0,
                                            0))
                    finally:
                        proc.terminate()
                        proc.wait(60)
                    continue
                rows.append(feed_row(name, dict(env, NOTES_DB=db), count))
    return rows


def feed_table(rows: List[FeedRow]) -> str:
    lines = ["| store | subscribers | a write's delay to them: median | p99 | writes/s while "
             "they listen | workers' memory for them | 503s, tried again |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    alone = {row.store: row.writes_per_second for row in rows if not row.subscribers}
    for row in rows:
        delays = sorted(row.delays)
        cells = ["-", "-", "{:,.0f}".format(row.writes_per_second), "-", "-"]
        if row.subscribers:
            cells = ["{:.1f} ms".format(statistics.median(delays) * 1000),
                     "{:.1f} ms".format(delays[int(0.99 * (len(delays) - 1))] * 1000),
                     "{:,.0f} ({:.2f}x)".format(row.writes_per_second,
                                                row.writes_per_second / alone[row.store]),
                     "{:+.1f} MiB".format(row.feeds_rss / 2 ** 20), "{:,}".format(row.refused)]
        lines.append("| {} | {} | {} |".format(row.store, "{:,}".format(row.subscribers)
                                               if row.subscribers else "none", " | ".join(cells)))
    return "\n".join(lines) + (
        "\n\ngunicorn, {} workers of {:,} threads (the README's command: a worker holds 300 "
        "feeds, a thread each, and answers one more 503), on this machine; the subscribers in "
        "one process (asyncio, JSON Lines; each 503 tried again after its Retry-After, and "
        "every subscriber answered, or the run stops), the writes from another: {} PUTs one "
        "at a time, each once every subscriber has the one before, then {:.0f} s of PUTs "
        "from 8 clients.".format(FEED_WORKERS, FEED_THREADS, FEED_WRITES, FEED_RATE_SECONDS))


# ---------------------------------------------------------------------------
# Streams: items per second from a generator view to a JSON Lines client
# ---------------------------------------------------------------------------

STREAM_TARGET = 1.1


def stream_items(count: int) -> Any:
    return ({"id": n, "name": "item {}".format(n), "done": n % 2 == 0} for n in range(count))


def stream_apps(count: int) -> Tuple[Flask, Flask]:
    """A FlaskAPI generator view, and bare Flask streaming the same items as JSON lines."""
    from flask_api import FlaskAPI
    flaskapi, flask = FlaskAPI(__name__), Flask(__name__)
    flaskapi.add_url_rule("/items/", "items", lambda: stream_items(count))
    flask.add_url_rule("/items/", "items", lambda: Response(
        (json.dumps(item) + "\n" for item in stream_items(count)), mimetype="application/jsonl"))
    return flaskapi, flask


def streams(count: int, rounds: int) -> Tuple[int, List[float], List[float], Any]:
    """Items per second each round (FlaskAPI, bare Flask, alternating), and bytecodes per
    item of each (over 2,000 items)."""
    flaskapi, flask = stream_apps(count)
    call = Call("GET", "/items/", "application/jsonl")
    for app in (flaskapi, flask):  # the same lines, and the stream type
        status, body, headers = call(app)
        assert status == "200 OK" and headers["Content-Type"] == "application/jsonl", headers
        assert [json.loads(line) for line in body.splitlines()] == list(stream_items(count))
    rates = ([], [])  # type: Tuple[List[float], List[float]]
    for index in range(rounds):
        order = [(flaskapi, rates[0]), (flask, rates[1])]
        for app, found in order if index % 2 == 0 else order[::-1]:
            found.append(count / call.loop(app, 1))
    small = stream_apps(2000)
    counts = [bytecodes(call, app, 1) for app in small]
    per_item = [found / 2000 for found in counts if found is not None] or None  # 3.6: None
    return count, rates[0], rates[1], per_item


def stream_table(result: Tuple[int, List[float], List[float], Any]) -> str:
    count, mine, bare, per_item = result
    ratio = statistics.median(bare) / statistics.median(mine)  # time per item: bare is 1
    lines = ["| {:,}-item stream to a JSON Lines client | items/s | bytecodes/item |".format(count),
             "|---|---:|---:|"]
    for name, rates, index in (("FlaskAPI generator view", mine, 0),
                               ("bare Flask, json.dumps lines", bare, 1)):
        lines.append("| {} | {:,.0f} ({:,.0f}-{:,.0f}) | {} |".format(
            name, statistics.median(rates), min(rates), max(rates),
            "-" if per_item is None else "{:.1f}".format(per_item[index])))
    verdict = "ok" if ratio <= STREAM_TARGET else "over"
    lines.append("| time per item, FlaskAPI / bare Flask | {:.2f}x (target {:.1f}x) | {} |".format(
        ratio, STREAM_TARGET, verdict))
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

def _cell(times: List[float]) -> str:
    return "{:.1f} ({:.1f}-{:.1f})".format(statistics.median(times), min(times), max(times))


def table(results: List[Result]) -> str:
    """The timings as a Markdown table."""
    lines = [
        "| Scenario | Measured µs/req | Baseline | Baseline µs/req | Ratio | Target | |",
        "|---|---:|---|---:|---:|---:|---|",
    ]
    for result in results:
        scenario = result.scenario
        ratio = statistics.median(result.times) / statistics.median(result.base_times)
        base = "bare Flask" if scenario.base == "flask" else "FlaskAPI JSON list"
        verdict = _verdict(ratio, scenario.target)
        if _noisy(result.times) or _noisy(result.base_times):
            verdict += " (noisy: rerun)"
        lines.append("| {} | {} | {} | {} | {:.2f}x | {:.2f}x | {} |".format(
            scenario.name, _cell(result.times), base, _cell(result.base_times), ratio,
            scenario.target, verdict))
    return "\n".join(lines)


def bytecode_table(results: List[Result]) -> str:
    """Python bytecodes per request, a count that does not vary between runs."""
    lines = ["| Scenario | Measured bytecodes/req | Baseline bytecodes/req | Ratio | Target | |",
             "|---|---:|---:|---:|---:|---|"]
    for result in results:
        if result.bytecodes is None or result.base_bytecodes is None:
            return "(bytecode counts need Python 3.7+)"
        ratio = result.bytecodes / result.base_bytecodes
        lines.append("| {} | {:.0f} | {:.0f} | {:.3f}x | {:.2f}x | {} |".format(
            result.scenario.name, result.bytecodes, result.base_bytecodes, ratio,
            result.scenario.target, _verdict(ratio, result.scenario.target)))
    return "\n".join(lines)


def _verdict(ratio: float, target: float) -> str:
    return "ok" if ratio <= target else "over"


def _noisy(times: List[float]) -> bool:
    """Rounds more than 15% apart: something else was using the CPU."""
    return max(times) > 1.15 * min(times)


def memory_table(report: Dict[str, Dict[str, Any]], requests: int) -> str:
    """Peak memory for the 1,000-note JSON list, one row per app."""
    lines = [
        "| 1,000-note JSON list | Peak RSS (VmHWM) | ru_maxrss | tracemalloc peak, one request |",
        "|---|---:|---:|---:|",
    ]
    for which, label in (("flaskapi", "FlaskAPI"), ("flask", "bare Flask")):
        row = report[which]
        lines.append("| {} | {} | {} | {:.0f} KiB |".format(
            label, _mib(row["hwm_kib"]), _mib(row["maxrss_kib"]), row["tracemalloc_peak_kib"]))
    lines.append("")
    lines.append("Each app in a process of its own, after {} requests. On Linux ru_maxrss keeps "
                 "the parent's peak across exec, so it is a floor set by the benchmark itself; "
                 "VmHWM is the child's own.".format(requests))
    return "\n".join(lines)


def _mib(kib: Optional[int]) -> str:
    return "n/a" if kib is None else "{:.1f} MiB".format(kib / 1024)


def environment(rounds: int) -> str:
    """One line: versions and the machine."""
    return ("Python {}, Flask {}, Werkzeug {}; {}, {} ({} CPUs); {} rounds, "
            "µs per request, median (min-max across rounds).").format(
                platform.python_version(), _version("flask"), _version("werkzeug"),
                platform.platform(terse=True), _cpu_model(), os.cpu_count(), rounds)


def _version(dist: str) -> str:
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:  # Python < 3.8
        return getattr(__import__(dist), "__version__", "?")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description="FlaskAPI against bare Flask, per request.")
    parser.add_argument("--quick", action="store_true", help="3 short rounds (CI smoke test)")
    parser.add_argument("--rounds", type=int, help="rounds per scenario (default 7)")
    parser.add_argument("--memory", choices=["flaskapi", "flask"], help=argparse.SUPPRESS)
    parser.add_argument("--memory-requests", type=int, default=200, help=argparse.SUPPRESS)
    parser.add_argument("--big-pages", action="store_true",
                        help="only the big pages: 20,000 and 100,000 items, 1,000,000 "
                        "strings in a list and in an object, Chromium included")
    parser.add_argument("--stream-page", action="store_true",
                        help="only the page under a live stream: 10,000 items a second for "
                        "ten seconds, in Chromium")
    parser.add_argument("--page-weight", action="store_true",
                        help="only the page's bytes per navigation and a first visit's time "
                        "to interactive, in Chromium")
    parser.add_argument("--compare", action="store_true",
                        help="only the page's comparison of two answers of 20,000 items, "
                        "in Chromium")
    parser.add_argument("--stores", action="store_true",
                        help="only the notes stores under gunicorn, over real sockets")
    parser.add_argument("--feed", action="store_true",
                        help="only the notes' change feed under gunicorn: a write's delay to "
                        "1, 100 and 1,000 subscribers, and the write rate while they listen")
    args = parser.parse_args(argv)
    if args.memory:
        return memory_child(args.memory, args.memory_requests)
    if args.stores:
        print(store_table(stores(6000)))
        return None
    if args.feed:
        print(feed_table(feeds()))
        return None
    if args.stream_page:
        print(stream_page_table(stream_page()))
        return None
    if args.page_weight:
        print(page_weight_table(page_weight(9)))
        return None
    if args.compare:
        print(compare_table(compare_page()))
        return None
    if args.big_pages:
        print(big_page_table(big_pages(big_bodies([20000, 100000], 1000000), 3, browser=True)))
        return None
    rounds = args.rounds or (3 if args.quick else 7)
    round_seconds = 0.04 if args.quick else 0.4  # both apps together
    results = run_all(rounds, round_seconds)
    requests = 20 if args.quick else 200
    mem = memory(requests)
    print(table(results))
    print()
    print(bytecode_table(results))
    print()
    print(memory_table(mem, requests))
    print()
    print(stream_table(streams(20000 if args.quick else 100000, rounds)))
    print()
    if args.quick:  # the server's side, at one size
        print(big_page_table(big_pages(big_bodies([20000]), 3, browser=False)))
    else:
        print(big_page_table(big_pages(big_bodies([20000, 100000], 1000000), 3, browser=True)))
        print()
        print(stream_page_table(stream_page()))  # ten seconds: not in --quick
        print()
        print(compare_table(compare_page()))
    print()
    print(page_weight_table(page_weight(3 if args.quick else 9)))
    print()
    print(environment(rounds))


if __name__ == "__main__":
    main()
