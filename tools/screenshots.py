"""The manual's screenshots, made from the running notes app in Chromium, into docs/screenshots/.

    .venv/bin/python tools/screenshots.py            # from the repository root; about 30 s

Each of six views of the page (the list, a note, the form, the tree, a stream, the sign-in
panel) in three looks: light and dark at 1100 x 760, and a phone's 390 x 844, as
``<view>-<look>.png``. What could change from one run to the next is fixed: the notes (a fresh
store, and 20,000 made-up ones for the tree), the host the pages are served as
(http://notes.test/, whatever port the server has), the Date and Server headers, the times on
the page's timing lines, the viewport and its scale, and the caret; animations are stopped. So
the same page gives the same pixels, and test_all.py's TestDocs fails when a committed
screenshot no longer matches what this makes, within a small tolerance (fonts are Debian's:
fonts-dejavu and the like).
"""
import contextlib
import os
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "docs", "screenshots")
HOST = "notes.test"

LOOKS = {  # name: (viewport, color scheme)
    "light": ({"width": 1100, "height": 760}, "light"),
    "dark": ({"width": 1100, "height": 760}, "dark"),
    "phone": ({"width": 390, "height": 844}, "light"),
}

# What changes with the clock on the page: a request's or a stream's times, written evenly.
_STEADY_TIMES = """() => {
  for (const node of document.querySelectorAll(".timing, .stream-line")) {
    node.textContent = node.textContent.replace(/[0-9][0-9.,]* ?(ms|s)\\b/g, "10 ms");
  }
}"""
_TWO_FRAMES = """() => new Promise((done) =>
  requestAnimationFrame(() => requestAnimationFrame(done)))"""
_STEADY_HEADERS = [("Date", "Sat, 28 Nov 2026 12:00:00 GMT"), ("Server", "notes_app")]

SECURITY_SCHEMES = {
    "oauth": {"type": "oauth2", "flows": {"authorizationCode": {
        "authorizationUrl": "https://login.example.com/authorize",
        "tokenUrl": "https://login.example.com/token",
        "scopes": {"notes:write": "Change notes"}}}},
    "key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
}


def _steady(app):
    """The app, with the Date and Server headers each response gets fixed."""
    def wsgi(environ, start_response):
        def start(status, headers, exc_info=None):
            headers = [(name, value) for name, value in headers
                       if name.lower() not in ("date", "server")] + _STEADY_HEADERS
            return start_response(status, headers, exc_info)
        return app(environ, start)
    return wsgi


def _apps():
    """The apps the views are taken from, by path prefix: the notes, 20,000 notes for the tree,
    and the notes with security schemes for the sign-in panel."""
    sys.path.insert(0, ROOT)
    from werkzeug.middleware.dispatcher import DispatcherMiddleware

    import notes_app

    many = {key: "note number {} of 20,000".format(key) for key in range(20000)}
    signin = notes_app.create_app(feed_seconds=1)
    signin.config["OPENAPI_SECURITY_SCHEMES"] = SECURITY_SCHEMES
    signin.config["OPENAPI_SECURITY"] = [{"oauth": ["notes:write"]}, {"key": []}]
    return _steady(DispatcherMiddleware(notes_app.create_app(feed_seconds=1), {
        "/many": notes_app.create_app(notes=many),
        "/signin": signin,
    }))


@contextlib.contextmanager
def _serving(app):
    from werkzeug.serving import make_server
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        thread.join(timeout=5)
        server.server_close()


def _send(port, path, method, text):
    """A note written as an API client writes it, outside the page."""
    import http.client
    import json
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, json.dumps({"text": text}), {
            "Host": HOST, "Content-Type": "application/json", "Accept": "application/json"})
        assert connection.getresponse().status in (200, 201)
    finally:
        connection.close()


def _form(page):
    page.locator("form[data-api]").get_by_role("tab", name="HTML form").click()
    page.get_by_label("text", exact=True).fill("paint the door red")
    page.locator("form[data-api]").get_by_role("button", name="Copy as curl").click()
    page.locator("form[data-api] pre.curl").wait_for()
    page.locator("form[data-api] pre.curl").scroll_into_view_if_needed()


def _tree(page):
    page.get_by_label("Filter keys and values").fill("number 1999")
    page.get_by_role("status").get_by_text("matches").wait_for()


def _stream(page):
    page.locator(".item").nth(1).wait_for()
    page.locator(".stream-line").get_by_text("Ended").wait_for(timeout=15000)
    page.locator("pre.response").scroll_into_view_if_needed()
    page.get_by_text('"water the plants"').wait_for()


def _signin(page):
    page.locator("#api-signin summary").click()
    page.get_by_label("Sign in with").wait_for()


VIEWS = {  # name: (path, what to do before the picture)
    "list": ("/", None),
    "note": ("/1/", None),
    "form": ("/2/", _form),
    "tree": ("/many/", _tree),
    "stream": ("/changes?after=0", _stream),
    "signin": ("/signin/1/", _signin),
}


def make(browser, out=OUT, views=None, looks=None):
    """Take the screenshots with ``browser`` (Playwright's Chromium) into ``out``; returns the
    files' names."""
    os.makedirs(out, exist_ok=True)
    made = []
    for look in looks or LOOKS:
        viewport, scheme = LOOKS[look]
        for view in views or VIEWS:
            with _serving(_apps()) as port:  # fresh notes for each picture
                made.append(_shoot(browser, port, out, view, look, viewport, scheme))
    return made


def _shoot(browser, port, out, view, look, viewport, scheme):
    path, then = VIEWS[view]
    # The server is the browser's proxy for http://notes.test/: werkzeug's server takes the
    # proxy's absolute URL and its Host, so the pages and their links name notes.test.
    context = browser.new_context(viewport=viewport, color_scheme=scheme, device_scale_factor=1,
                                  base_url="http://" + HOST, locale="en-US",
                                  timezone_id="UTC", reduced_motion="reduce",
                                  proxy={"server": "http://127.0.0.1:{}".format(port)})
    try:
        page = context.new_page()
        page.set_default_timeout(15000)
        if view == "stream":  # two changes for the feed to show
            _send(port, "/1/", "PUT", "water the plants")
            _send(port, "/", "POST", "call the plumber")
        page.goto(path, wait_until="commit" if view == "stream" else "load")
        if then:
            then(page)
        page.evaluate(_STEADY_TIMES)
        page.evaluate(_TWO_FRAMES)  # what was scrolled to, or changed, is drawn
        name = "{}-{}.png".format(view, look)
        page.screenshot(path=os.path.join(out, name), animations="disabled", caret="hide")
        return name
    finally:
        context.close()


def launch(playwright):
    """Chromium as the tests launch it: CHROMIUM_PATH, else Debian's."""
    return playwright.chromium.launch(
        executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"), headless=True,
        args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])


def main(argv):
    from playwright.sync_api import sync_playwright
    out = argv[1] if len(argv) > 1 else OUT
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            for name in make(browser, out):
                print(os.path.join(out, name))
        finally:
            browser.close()


if __name__ == "__main__":
    main(sys.argv)
