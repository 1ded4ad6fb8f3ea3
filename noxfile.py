"""Compatibility test matrix for flask_api.

Run from the repository root::

    pip install nox            # once, in any Python >= 3.10 environment
    nox                        # all five environments
    nox -s py36-flask11        # a single environment
    nox -s flask-api-3-suite   # Flask-API 3.1's published suite against this file
    nox -s next-flask          # the whole suite on the Flask and Werkzeug heads
    nox -s docs                # the manual, warnings as errors (not run by plain ``nox``)
    nox -s page-lint           # node --check and eslint on the page's script (needs npm)
    nox -s release             # build, twine, check-wheel-contents, the wheel served
    nox -- -q -x               # arguments after ``--`` go to pytest
    nox -r                     # reuse the existing .nox/ virtualenvs

Each session creates a clean ``venv`` under ``.nox/``, installs pinned
versions from ``constraints/<py>.txt`` (the pip download cache is shared, so
reruns are quick) and runs ``python -m pytest test_all.py`` with the repository
root as working directory. The project itself is not installed: the tests
import ``flask_api.py`` from the repository root.

Interpreters are looked up as ``pythonX.Y`` on PATH first; if that does not
work (e.g. a pyenv shim for a version that is not active), the newest
``$PYENV_ROOT/versions/X.Y.*/bin/pythonX.Y`` is used.
"""

import atexit
import glob
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import nox

nox.options.default_venv_backend = "venv"
nox.options.error_on_missing_interpreters = True

HERE = os.path.dirname(os.path.abspath(__file__))
# The development heads of Flask and Werkzeug, as wheels, beside the repository (see their README).
NEXT_WHEELS = os.path.join(os.path.dirname(HERE), "shared", "wheels")
CONSTRAINTS = os.path.join(HERE, "constraints")
TEST_FILE = "test_all.py"

# (session name, python version, constraints file, install markdown?)
MATRIX = [
    ("py36-flask11", "3.6", "py36.txt", True),
    ("py38-flask20", "3.8", "py38.txt", True),
    ("py311-flask23", "3.11", "py311.txt", True),
    ("py313-flask31", "3.13", "py313.txt", True),
    ("py313-nomarkdown", "3.13", "py313.txt", False),
]

_results = []  # (session name, (passed, failed, skipped) or None), printed at exit

_SHOW_VERSIONS = """
import sys
try:
    from importlib.metadata import version, PackageNotFoundError
except ImportError:  # Python < 3.8
    from importlib_metadata import version, PackageNotFoundError
out = ["python %d.%d.%d" % sys.version_info[:3]]
for dist in ("Flask", "Werkzeug", "Jinja2", "Markdown", "pytest"):
    try:
        out.append("%s %s" % (dist, version(dist)))
    except PackageNotFoundError:
        out.append("%s -" % dist)
print("versions: " + ", ".join(out))
if "--no-markdown" in sys.argv:
    try:
        import markdown  # noqa: F401
    except ImportError:
        pass
    else:
        sys.exit("markdown must not be installed in this environment")
"""


def _works(exe, version):
    try:
        out = subprocess.run(
            [exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return out.decode().strip() == version


def _interpreter(version):
    """Return an interpreter spec nox can use for ``version`` ("3.6")."""
    exe = shutil.which("python" + version)
    if exe and _works(exe, version):
        return version
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates = glob.glob(
        os.path.join(root, "versions", version + ".*", "bin", "python" + version)
    )

    def patch(path):
        m = re.search(r"versions/\d+\.\d+\.(\d+)/", path)
        return int(m.group(1)) if m else -1

    for exe in sorted(candidates, key=patch, reverse=True):
        if _works(exe, version):
            return exe
    return version  # let nox report it as missing


def _junit_counts(path):
    """Return (passed, failed, skipped) from a pytest junit xml file."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    tot = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites:
        for key in tot:
            tot[key] += int(suite.get(key, 0))
    failed = tot["failures"] + tot["errors"]
    return (tot["tests"] - failed - tot["skipped"], failed, tot["skipped"])


def _print_summary():
    if not _results:
        return
    width = max(len(name) for name, _ in _results)
    total = [0, 0, 0]
    print("\nflask_api matrix summary:")
    for name, counts in _results:
        if counts is None:
            text = "no test results (setup or collection failed, see log)"
        else:
            text = "%d passed, %d failed, %d skipped" % counts
            total = [a + b for a, b in zip(total, counts)]
        print("  %s  %s" % (name.ljust(width), text))
    print("matrix: %d passed, %d failed, %d skipped" % tuple(total))


atexit.register(_print_summary)


def _run_env(session, cfile, with_markdown, junit):
    # Upgrade pip first (3.6 ships pip 18, whose resolver is too old).
    session.run("python", "-m", "pip", "install", "-q", "-c", cfile, "pip")
    packages = ["Flask", "pytest"] + (["Markdown"] if with_markdown else [])
    session.run("python", "-m", "pip", "install", "-q", "-c", cfile, *packages)
    session.run("python", "-m", "pip", "check")
    # Print versions; without markdown, make sure it really is absent.
    script = os.path.join(session.create_tmp(), "show_versions.py")
    with open(script, "w") as f:
        f.write(_SHOW_VERSIONS)
    session.run("python", script, *([] if with_markdown else ["--no-markdown"]))
    session.run(
        "python", "-m", "pytest", TEST_FILE, "--junitxml=" + junit, *session.posargs
    )


def _make_session(name, version, constraints, with_markdown):
    cfile = os.path.join(CONSTRAINTS, constraints)

    @nox.session(name=name, python=_interpreter(version))
    def _session(session):
        junit = os.path.join(session.create_tmp(), "junit.xml")
        if os.path.exists(junit):
            os.remove(junit)
        try:
            _run_env(session, cfile, with_markdown, junit)
        finally:
            counts = _junit_counts(junit) if os.path.exists(junit) else None
            _results.append((name, counts))

    _session.__name__ = name.replace("-", "_")
    return _session


for _args in MATRIX:
    globals()[_args[0].replace("-", "_")] = _make_session(*_args)


@nox.session(name="flask-api-3-suite", python=_interpreter("3.13"))
def flask_api_3_suite(session):
    """Flask-API 3.1's own published tests, unchanged, against flask_api.py (newest Flask)."""
    cfile = os.path.join(CONSTRAINTS, "py313.txt")
    session.run("python", "-m", "pip", "install", "-q", "-c", cfile, "pip")
    session.run("python", "-m", "pip", "install", "-q", "-c", cfile, "Flask", "pytest",
                "Markdown")
    session.run("python", os.path.join(".ci", "flask_api_3_suite.py"))



@nox.session(name="next-flask", python=_interpreter("3.11"))
def next_flask(session):
    """The whole suite, with every test dependency, on the next Flask and Werkzeug (their
    development heads, as wheels in ../shared/wheels): a release that breaks us shows here
    first. DeprecationWarnings from flask_api.py are errors (pyproject's pytest settings)."""
    wheels = sorted(glob.glob(os.path.join(NEXT_WHEELS, "*.whl")))
    names = [os.path.basename(wheel).split("-")[0].lower() for wheel in wheels]
    if sorted(names) != ["flask", "werkzeug"]:
        session.error("no Flask and Werkzeug wheels in {}".format(NEXT_WHEELS))
    session.run("python", "-m", "pip", "install", "-q", "pip")
    session.run("python", "-m", "pip", "install", "-q", *wheels, ".[test]")
    session.run("python", "-m", "pip", "check")
    session.run("python", "-c", _SHOW_VERSIONS)
    junit = os.path.join(session.create_tmp(), "junit.xml")
    if os.path.exists(junit):
        os.remove(junit)
    try:
        session.run("python", "-m", "pytest", TEST_FILE, "--junitxml=" + junit,
                    *session.posargs)
    finally:
        _results.append(("next-flask", _junit_counts(junit) if os.path.exists(junit) else None))


@nox.session(name="docs", python=_interpreter("3.11"), default=False)  # .ci/run has its own step
def docs(session):
    """The manual, built as CI builds it: every warning an error, every internal link checked
    (nitpicky references, MyST's links to pages and headings)."""
    session.run("python", "-m", "pip", "install", "-q", "-e", ".[docs,markdown]")
    session.run("sphinx-build", "-W", "--keep-going", "-n", "-q", "-b", "html", "docs",
                os.path.join(session.create_tmp(), "html"))


@nox.session(name="page-lint", python=_interpreter("3.11"), default=False)  # as docs
def page_lint(session):
    """The page script's lint, which needs node and eslint (npm ci), and so is not in the
    README's test command: node --check and eslint on page/script/, and their tests."""
    session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
    session.run("python", "-m", "pip", "install", "-q", "pytest", "-e", ".")
    session.run("python", "tools/page.py", "--check")
    session.run("python", "-m", "pytest", "test_page_lint.py", *session.posargs)


@nox.session(name="release", python=_interpreter("3.11"), default=False)  # as docs
def release(session):
    """The wheel and sdist, checked by twine and check-wheel-contents, and the wheel serving
    the notes app from a fresh venv (.ci/release-check)."""
    session.run("python", "-m", "pip", "install", "-q", "build", "twine", "check-wheel-contents",
                "-e", ".")
    session.run("bash", os.path.join(".ci", "release-check"), external=True,
                env={"PYTHON": "python"})
