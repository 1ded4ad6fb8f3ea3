"""Screenshots of the browsable page for the README, into docs/:

list.png and detail.png (light), dark.png, phone.png (a phone's width), headers.png
(the request headers panel in use), form.png (the HTML form tab) and tree.png (20,000
notes as a tree, filtered).

    .venv/bin/python docs/screenshots.py      # from the repository root, Chromium installed
"""
import os
import sys
import threading

from playwright.sync_api import sync_playwright
from werkzeug.serving import make_server

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import notes_app  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "docs"
server = make_server("127.0.0.1", 0, notes_app.create_app(), threaded=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
base = "http://127.0.0.1:{}".format(server.server_port)
many = {key: "note number {} of 20,000".format(key) for key in range(20000)}
big_server = make_server("127.0.0.1", 0, notes_app.create_app(notes=many), threaded=True)
threading.Thread(target=big_server.serve_forever, daemon=True).start()


def shot(browser, name, path, scheme="light", width=1100, height=700, full_page=True,
         then=None, site=None):
    page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme,
                            device_scale_factor=1)
    page.goto((site or base) + path)
    if then:
        then(page)
    page.screenshot(path=os.path.join(out, name + ".png"), full_page=full_page)
    page.close()


def with_headers(page):
    page.locator("#api-headers summary").click()
    page.get_by_label("Header name").fill("Authorization")
    page.get_by_label("Header value").fill("Bearer 3f6c1d")
    page.get_by_role("button", name="Add header").click()
    page.get_by_text("Request headers: Authorization").wait_for()


def with_filter(page):
    page.get_by_label("Filter keys and values").fill("number 1999")
    page.get_by_role("status").get_by_text("matches").wait_for()


def with_curl(page):
    page.get_by_label("text", exact=True).fill("paint the door red")
    page.locator("form[data-api]").get_by_role("button", name="Copy as curl").click()
    page.locator("form[data-api] pre.curl").wait_for()


with sync_playwright() as p:
    chromium = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    browser = p.chromium.launch(executable_path=chromium,
                                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
    shot(browser, "list", "/")
    shot(browser, "detail", "/1/")
    shot(browser, "dark", "/?page=1", scheme="dark")
    shot(browser, "phone", "/1/", width=390, height=844)
    shot(browser, "headers", "/2/", then=with_headers)
    shot(browser, "form", "/2/", then=with_curl)
    shot(browser, "tree", "/", height=900, full_page=False, then=with_filter,
         site="http://127.0.0.1:{}".format(big_server.server_port))
    browser.close()
server.shutdown()
big_server.shutdown()
