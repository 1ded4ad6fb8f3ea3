"""Sphinx configuration for the manual: Markdown pages (MyST) in Pallets' theme, as Flask's.

    .venv/bin/pip install -e '.[docs]'
    .venv/bin/sphinx-build -W --keep-going -n -b html docs docs/_build/html
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import flask_api  # noqa: E402

project = "flask_api.py"
author = "flask_api.py's authors"
copyright = "flask_api.py's authors, BSD-3-Clause"
release = version = flask_api.__version__  # the one source of the version

extensions = ["myst_parser", "sphinx.ext.autodoc", "pallets_sphinx_themes"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "screenshots"]
root_doc = "index"

# Links between pages are to headings (page.md#anchor); a link to one that is missing is a
# warning, and the build treats every warning as an error.
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
nitpicky = True
# What the signatures name from outside this module, which no inventory here resolves (the
# build reads no network): Python's, Flask's and werkzeug's own types.
nitpick_ignore_regex = [
    ("py:class", r"(typing|collections|werkzeug|flask|jinja2|markupsafe|types|io|json)\..*"),
    ("py:class", r"(Any|Optional|Union|Dict|List|Tuple|Sequence|Iterable|Set|FrozenSet|"
                 r"Callable|Type|Iterator|Response|Request|Flask|MultiDict|Headers|"
                 r"HTTPException|MediaType|APIException|NoneType|bytes|str|int|dict|list|"
                 r"object|bool|float|tuple)"),
    ("py:class", r"flask_api\._.*"),
    ("py:class", r"flask_api\.BaseNegotiation"),  # a base outside __all__, shown in its text
]
suppress_warnings = ["myst.header"]  # a page may start its headings below #

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "none"  # the pages say what each takes; the signature stays short

html_theme = "flask"
html_title = "flask_api.py {}".format(version)
html_static_path = []
html_context = {"project_links": []}


def _skip_module_docstring(app, what, name, obj, options, lines):
    """The module's docstring is the map of the file for its readers, not this page's text."""
    if what == "module" and name == "flask_api":
        lines[:] = []


NAMESPACES = "<!-- the Flask-API 3.x namespaces, from flask_api -->"


def _namespaces():
    """The sub-namespaces of ``__all__`` (``flask_api.status`` and the rest), each with the
    names it holds, read from the module."""
    out = []
    for name in flask_api.__all__:
        module = getattr(flask_api, name)
        if not isinstance(module, type(flask_api)):
            continue
        names = sorted(vars(module), key=list(vars(flask_api)).index)
        names = [n for n in names if not n.startswith("__")]
        out.append("(flask_api.{0})=\n### `flask_api.{0}`\n\n{1} It holds: {2}.\n".format(
            name, module.__doc__, ", ".join(
                "{{py:obj}}`{0} <flask_api.{0}>`".format(n) if hasattr(getattr(module, n),
                                                                 "__doc__") and
                n in flask_api.__all__ else "`{}`".format(n) for n in names)))
    return "\n".join(out)


def _fill_namespaces(app, docname, source):
    source[0] = source[0].replace(NAMESPACES, _namespaces())


def setup(app):
    app.connect("autodoc-process-docstring", _skip_module_docstring)
    app.connect("source-read", _fill_namespaces)
