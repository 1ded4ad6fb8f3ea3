"""The page script's lint: node --check and eslint on each file of page/script/, as
tools/page.py runs them, and their messages named by the file's own lines.

They need node and eslint (``npm ci``), so they are not part of the README's test command,
which a machine without npm runs whole; CI runs them (.ci/run), and so does

    nox -s page-lint          # npm ci, then tools/page.py --check and these tests
"""
import json
import os
import shutil
import subprocess

import pytest


def test_page_script_passes_node_check_and_eslint():
    from tools import page
    if not shutil.which("node") or not os.path.exists(page.ESLINT):
        pytest.fail("the page script's checks need node, and eslint: npm ci")
    assert page.check() == []


def test_page_script_lint_names_the_line_of_the_file_it_is_in(tmp_path):
    from tools import page
    if not shutil.which("node") or not os.path.exists(page.ESLINT):
        pytest.fail("the page script's checks need node, and eslint: npm ci")
    copy = str(tmp_path / "repo")
    shutil.copytree(page.PAGE, os.path.join(copy, "page"))
    shutil.copy(os.path.join(page.ROOT, "eslint.config.mjs"), copy)
    os.symlink(os.path.join(page.ROOT, "node_modules"), os.path.join(copy, "node_modules"))
    path = os.path.join(copy, "page", "script", "05-coming-back.js")
    with open(path, encoding="utf-8") as js:
        lines = js.read().split("\n")
    lines.insert(9, "const unused = missingName;")  # line 10 of the file
    with open(path, "w", encoding="utf-8") as js:
        js.write("\n".join(lines))
    done = subprocess.run([page.ESLINT, "--format", "json", "page"], cwd=copy,
                          stdout=subprocess.PIPE, universal_newlines=True)
    found = {(os.path.basename(result["filePath"]), message["line"], message["ruleId"])
             for result in json.loads(done.stdout) for message in result["messages"]}
    assert found == {("05-coming-back.js", 10, "no-unused-vars"),
                     ("05-coming-back.js", 10, "no-undef")}


def test_page_script_as_served_is_the_same_code_as_written(tmp_path):
    """The served script leaves its whole lines of comment empty: the same tokens as the
    module's script (a line of a template literal that looked like a comment would differ)."""
    import re

    import flask_api
    espree = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node_modules", "espree")
    if not shutil.which("node") or not os.path.exists(espree):
        pytest.fail("the page script's checks need node, and espree (eslint's): npm ci")
    served = re.sub(r"(?m)^[ \t]*//.*$", "", flask_api._PAGE_SCRIPT)
    assert flask_api._SCRIPT_COMMENT_LINE.sub("", flask_api._PAGE_SCRIPT) == served
    (tmp_path / "written.js").write_text(flask_api._PAGE_SCRIPT, encoding="utf-8")
    (tmp_path / "served.js").write_text(served, encoding="utf-8")
    tokens = ("const espree = require({!r}); const fs = require('fs');"
              "const tokens = (name) => JSON.stringify(espree.tokenize(fs.readFileSync(name, "
              "'utf8'), {{ecmaVersion: 2022}}).map((t) => [t.type, t.value]));"
              "process.stdout.write(String(tokens('written.js') === tokens('served.js')));"
              ).format(espree)
    done = subprocess.run(["node", "-e", tokens], cwd=str(tmp_path), stdout=subprocess.PIPE,
                          universal_newlines=True)
    assert done.stdout == "true"
