"""Screenshots of the browsable page for the README: docs/list.png and docs/detail.png.

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
with sync_playwright() as p:
    chromium = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    browser = p.chromium.launch(executable_path=chromium,
                                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
    page = browser.new_page(viewport={"width": 1100, "height": 700}, color_scheme="light",
                            device_scale_factor=1)
    for name, path in [("list", "/"), ("detail", "/1/")]:
        page.goto(base + path)
        page.screenshot(path=os.path.join(out, name + ".png"), full_page=True)
    browser.close()
server.shutdown()
