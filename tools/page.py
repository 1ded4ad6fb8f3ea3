"""The browsable page's sources, page/, written into flask_api.py; and their checks.

    python tools/page.py            # after editing page/: write it into flask_api.py
    npm ci && python tools/page.py --check   # the module is what page/ makes; node, eslint

page/page.html is the template's markup (Jinja), page/page.css its style, and page/script/
its script, one file per section in the order a reader meets the page (their numbers say
it). flask_api.py stays the one file a user copies: this tool writes the three into its
last section, between the two marker lines, as raw strings, and test_all.py fails when
that block is not what page/ makes. The script's files share one function scope, which
this tool opens before the first and closes after the last, calling start() last of all
(eslint.config.mjs lints each file inside the same scope, so its line numbers are the
file's own). page/test/ holds what only the tests' build has (`script(tests=True)`): the
hand-over of the pure parts to the unit tests. Stdlib only, and Python 3.6, like
test_all.py, which imports it.
"""

import argparse
import glob
import os
import subprocess
import sys
from typing import List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "page")
MODULE = os.path.join(ROOT, "flask_api.py")
ESLINT = os.path.join(ROOT, "node_modules", ".bin", "eslint")

BEGIN = "# <page/>: written by tools/page.py from page/; edit those files, then run it.\n"
END = "# </page/>\n"

# The one function scope the script's files share: no globals (eslint.config.mjs knows it too).
SCRIPT_OPEN = '(function () {\n"use strict";\n\n'
SCRIPT_CLOSE = "\nstart();\n}());\n"


def _read(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as source:
        return source.read()


def script_files() -> List[str]:
    """The script's files, in their order: the order a reader meets the page."""
    return sorted(glob.glob(os.path.join(PAGE, "script", "*.js")))


def test_files() -> List[str]:
    """What the tests' build adds after the sections: the hand-over of the pure parts."""
    return sorted(glob.glob(os.path.join(PAGE, "test", "*.js")))


def script(tests: bool = False) -> str:
    """The page's script: its files, one after another, in their one scope; ``tests``: the
    tests' build, which also hands the script's pure parts to the unit tests."""
    files = script_files() + (test_files() if tests else [])
    return SCRIPT_OPEN + "\n".join(_read(path) for path in files) + SCRIPT_CLOSE


def sources() -> List[Tuple[str, str, str]]:
    """(name in flask_api.py, language, text) of the markup, the style and the script."""
    return [("_PAGE_MARKUP", "Jinja2", _read(os.path.join(PAGE, "page.html"))),
            ("_PAGE_STYLE", "CSS", _read(os.path.join(PAGE, "page.css"))),
            ("_PAGE_SCRIPT", "JavaScript", script())]


def block() -> str:
    """flask_api.py's page block, as page/ makes it: each source a raw string."""
    parts = [BEGIN]
    for name, language, text in sources():
        if '"""' in text or text.endswith("\\"):
            raise ValueError("{} cannot be a raw string: it has \"\"\" or ends in \\".format(name))
        parts.append('\n# language={}\n{} = r"""\n{}"""\n'.format(language, name, text))
    return "".join(parts) + END


def _module_parts() -> Tuple[str, str, str]:
    """flask_api.py as (before the block, the block, after it)."""
    text = _read(MODULE)
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise LookupError("flask_api.py has no page block: its marker lines are gone")
    end += len(END)
    return text[:start], text[start:end], text[end:]


def is_written() -> bool:
    """Whether flask_api.py's page block is what page/ makes."""
    return _module_parts()[1] == block()


def write() -> bool:
    """Write page/ into flask_api.py; whether that changed it."""
    before, current, after = _module_parts()
    new = block()
    if new == current:
        return False
    with open(MODULE, "w", encoding="utf-8", newline="") as out:
        out.write(before + new + after)
    return True


def check() -> List[str]:
    """What ``node --check`` (each file alone) and eslint (each file in the whole script) find
    in the page's script, at the files' own lines; [] for nothing."""
    commands = [["node", "--check", path] for path in script_files() + test_files()]
    commands.append([ESLINT, "--max-warnings", "0", "page"])
    findings = []
    for command in commands:
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        if done.returncode:
            findings.append("{}:\n{}".format(" ".join(command), done.stdout))
    return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="check that flask_api.py is what page/ makes, and lint the script")
    args = parser.parse_args()
    if not args.check:
        print("flask_api.py: written from page/." if write() else "flask_api.py: already so.")
        return 0
    findings = [] if is_written() else [
        "flask_api.py's page block is not what page/ makes: run python tools/page.py"]
    findings += check()
    for finding in findings:
        print(finding)
    if not findings:
        print("The page: flask_api.py is what page/ makes; node --check and eslint found nothing.")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
