"""The browsable page's script as a file of its own, and its checks: ``node --check``, then
eslint (the version pinned in package.json, the rules in eslint.config.mjs).

    python tools/page_script.py page.js     # write the script to page.js
    npm ci && python tools/page_script.py --check    # check it; exit status 1 on a finding

The script is ``_PAGE_SCRIPT`` in flask_api.py, a raw string that the template puts into the
page unchanged (a test holds it to that), so the file is the very text the page runs. Stdlib
only, and Python 3.6, like test_all.py, whose test of the script runs ``--check``.
"""

import argparse
import os
import subprocess
import sys
from typing import List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ESLINT = os.path.join(ROOT, "node_modules", ".bin", "eslint")
NAME = "flask_api_page_script.js"  # what the findings call the script


def script() -> str:
    """The page's script, from the flask_api.py next to this folder."""
    sys.path.insert(0, ROOT)
    import flask_api
    return flask_api._PAGE_SCRIPT


def first_line() -> int:
    """The line of flask_api.py where the script's raw string opens: its line n is n - 1 below."""
    with open(os.path.join(ROOT, "flask_api.py"), encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            if line.startswith('_PAGE_SCRIPT = r"""'):
                return number
    raise LookupError("flask_api.py has no _PAGE_SCRIPT")


def check() -> List[str]:
    """What ``node --check`` and eslint find in the script, given on stdin; [] for nothing."""
    commands = [["node", "--check", "-"],
                [ESLINT, "--max-warnings", "0", "--stdin", "--stdin-filename", NAME]]
    findings = []
    for command in commands:
        done = subprocess.run(command, input=script(), cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        if done.returncode:
            findings.append("{}:\n{}".format(" ".join(command), done.stdout))
    return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", help="write the script to this file")
    parser.add_argument("--check", action="store_true", help="run node --check and eslint")
    args = parser.parse_args()
    if args.path:
        with open(args.path, "w", encoding="utf-8") as out:
            out.write(script())
    if not args.check:
        return 0
    findings = check()
    for finding in findings:
        print(finding)
    if findings:
        print("Line n of the script is line {} + n of flask_api.py.".format(first_line() - 1))
        return 1
    print("The page's script: node --check and eslint found nothing.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
