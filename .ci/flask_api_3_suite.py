"""Run Flask-API 3.1's own published test suite, unchanged, against flask_api.py.

    python .ci/flask_api_3_suite.py        # from the repository root, in an environment
                                           # with Flask, pytest and Markdown, and no Flask-API

The suite ships inside the Flask-API 3.1 wheel. This downloads the wheel, copies out its
``flask_api/tests/test_*.py`` files, runs them with this repository first on the import
path, and checks that every test passes except the documented differences (the manual,
docs/migrating.md). Exits non-zero on any other outcome.
"""

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WHEEL = "Flask-API==3.1"
# Deliberate differences, each with its reason in docs/migrating.md and CHANGELOG.md.
EXPECTED_FAILURES = {
    "test_app.AppTests.test_api_exception",  # the error body's key is "detail"
    "test_parsers.ParserTests.test_invalid_json",  # the detail is "Malformed request."
    "test_mediatypes.MediaTypeParsingTests.test_media_type_with_params",  # RFC 9110 str()
    "test_mediatypes.MediaTypeParsingTests.test_media_type_with_q_params",  # RFC 9110 str()
    "test_app.AppTests.test_none_200_response",  # Flask's TypeError, not 3.x's ValueError
}


def extract_suite(into: str) -> str:
    """Download the wheel and copy its test modules into a folder of their own."""
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", WHEEL,
                    "-d", into], check=True)
    wheel = next(name for name in os.listdir(into) if name.endswith(".whl"))
    suite = os.path.join(into, "suite")
    os.mkdir(suite)
    with zipfile.ZipFile(os.path.join(into, wheel)) as archive:
        for name in archive.namelist():
            base = os.path.basename(name)
            if name.startswith("flask_api/tests/test_") and base.endswith(".py"):
                with open(os.path.join(suite, base), "wb") as out:
                    out.write(archive.read(name))
    return suite


def run_suite(suite: str) -> dict:
    """Run pytest on the suite; return {test id: passed?}."""
    junit = os.path.join(suite, "junit.xml")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "--junitxml=" + junit, suite], cwd=suite, env=env)
    outcomes = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        test_id = "{}.{}".format(case.get("classname"), case.get("name"))
        outcomes[test_id] = not any(child.tag in ("failure", "error", "skipped")
                                    for child in case)
    return outcomes


def main() -> int:
    code = "import flask_api, os; print(os.path.dirname(os.path.abspath(flask_api.__file__)))"
    where = subprocess.run([sys.executable, "-c", code], cwd=tempfile.gettempdir(),
                           env=dict(os.environ, PYTHONPATH=ROOT), check=True,
                           stdout=subprocess.PIPE).stdout.decode().strip()
    if where != ROOT:
        print("flask_api imports from {}, not {}: uninstall Flask-API".format(where, ROOT))
        return 1
    with tempfile.TemporaryDirectory() as folder:
        outcomes = run_suite(extract_suite(folder))
    failed = {test for test, passed in outcomes.items() if not passed}
    print("Flask-API 3.1's suite: {} of {} passed".format(len(outcomes) - len(failed),
                                                          len(outcomes)))
    unexpected, missing = failed - EXPECTED_FAILURES, EXPECTED_FAILURES - set(outcomes)
    fixed = EXPECTED_FAILURES - failed - missing
    for label, tests in (("unexpected failure", unexpected), ("expected to fail, passed", fixed),
                         ("expected test not found", missing)):
        for test in sorted(tests):
            print("  {}: {}".format(label, test))
    if unexpected or fixed or missing:
        return 1
    print("The {} failures are exactly the documented differences.".format(len(failed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
