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
