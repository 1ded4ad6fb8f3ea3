"""flask_api: a browsable web API for Flask, in one file.

The file, part by part, lowest level first, each under a banner comment of its name that
says what outside code may call in it:

    Status codes          HTTP_200_OK and the rest, is_success() and friends
    Exceptions            APIException, and one class per error: {"detail": ...}
    Media types and ...   MediaType; Accept and Content-Type negotiation, cached by size
    Parsers               request bodies by Content-Type: JSON, URL-encoded, multipart
    Renderers             response bodies by Accept: JSON (through app.json), HTML
    Request and response  APIRequest (request.data, the negotiation memo), APIResponse
    The app's routes      one description of the routes, for the index, page and OpenAPI
    The page's body ...   the data as the page shows it (a big body a line an item), its links
    The page's context    BrowsableAPIRenderer: (request, response, data) in, what it shows out
    The page's responses  its template and CSP, its script and style as files a browser
                          keeps (served by the middleware), a JSON response (or a 401's
                          challenge) as the page, late headers, index
    Streams               a view's generator sent as its items come: JSON, JSON Lines, NDJSON or
                          server-sent events (ServerSentEvent), and its page, shown live
    The application       FlaskAPI, set_parsers/set_renderers
    Plain forms           the page's forms send any method without JavaScript: the middleware
    Any Flask app         BrowsableAPI(app): the page for any Flask app's JSON
    The OpenAPI document  /openapi.json, built from the routes' description
    The form from ...     a request body's schema, from the document, for the page's form
    Signing in            what the API asks for (its schemes, a 401's challenges), for the page
    Flask-API 3.x ...     names and sub-modules kept only for code written for 3.x
    The page template     _PAGE, last: its markup, style and script, written as raw strings
                          by tools/page.py from the repository's page/: page.html, page.css
                          and script/, a file per section, as a reader meets the page:
                          state; request headers; signing in; requests; coming back; the query
                          form; the response panel; the body as data, as a tree; the form tab;
                          the form from the schema; copy as curl; a stream, live; the
                          request as code; history; compare; start

Where to start: a renderer or parser of your own subclasses BaseRenderer or BaseParser
and goes in DEFAULT_RENDERERS / DEFAULT_PARSERS or @set_renderers / @set_parsers; what
the page shows is BrowsableAPIRenderer.get_context; its look is _PAGE_STYLE and its
tools _PAGE_SCRIPT (edited as page/page.css and page/script/), or a template of yours
(``template`` on a subclass, or BROWSABLE_API_TEMPLATE). Where a new feature of this file
goes: a renderer in Renderers (in Streams if it frames a stream); a new step of the page a
get_* method of BrowsableAPIRenderer (The page's context), its helpers in the page's
sections; a new tool of the page a file of page/script/, in the order a reader meets it,
with its markup in page/page.html; their tests in test_all.py's class of the same name
(the manual, docs/development.md).

Views return lists and dicts; content negotiation renders them as JSON for API
clients and as a browsable HTML page for people::

    from flask_api import FlaskAPI, status
    app = FlaskAPI(__name__)

    @app.route("/")
    def hello():
        return {"hello": "world"}, status.HTTP_200_OK

Drop this file into a project, or ``pip install`` it. It replaces the older
Flask-API 3.x package: ``from flask_api.exceptions import NotFound`` still works.
"""

__version__ = "4.0.0"
__all__ = [
    "FlaskAPI", "APIRequest", "APIResponse", "set_parsers", "set_renderers", "status",
    "APIException", "ParseError", "AuthenticationFailed", "NotAuthenticated",
    "PermissionDenied", "NotFound", "MethodNotAllowed", "NotAcceptable",
    "UnsupportedMediaType", "Throttled", "MediaType", "parse_accept_header",
    "DefaultNegotiation", "BaseParser", "JSONParser", "URLEncodedParser", "MultiPartParser",
    "BaseRenderer", "JSONRenderer", "JSONLinesRenderer", "NDJSONRenderer", "EventStreamRenderer",
    "HTMLRenderer", "BrowsableAPIRenderer", "ServerSentEvent", "BrowsableAPI",
    "openapi_document", "set_openapi",
    "exceptions", "parsers", "renderers",
]

import base64
import codecs
import collections.abc
import contextlib
import functools
import gzip
import hashlib
import importlib
import inspect
import io
import itertools
import json
import re
import select
import socket
import sys
import types
import typing
from http import HTTPStatus
from json.encoder import (  # type: ignore[attr-defined]
    c_make_encoder,
    encode_basestring,
    encode_basestring_ascii,
)
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple, Union, cast
from urllib.parse import parse_qsl, quote, urlencode, urljoin, urlsplit

import click
import jinja2
from flask import (
    Flask,
    Request,
    Response,
    current_app,
    has_app_context,
    has_request_context,
    request,
)
from flask import json as flask_json
from markupsafe import Markup, escape
from werkzeug import routing
from werkzeug.datastructures import Headers, ImmutableMultiDict, MultiDict
from werkzeug.exceptions import (
    HTTPException,
    RequestEntityTooLarge,
    SecurityError,
    default_exceptions,
)
from werkzeug.exceptions import MethodNotAllowed as _MethodNotAllowed  # not the APIExceptions
from werkzeug.exceptions import NotFound as _NotFound
from werkzeug.formparser import FormDataParser
from werkzeug.http import parse_list_header, parse_options_header
from werkzeug.wsgi import get_content_length, get_current_url, get_input_stream

# The objects behind Flask's proxies: each use of a proxy costs a context lookup, which
# the per-request hot path cannot afford many of.
_current_app = current_app  # type: Any
_request = request  # type: Any

# Flask 3.2 hands its dispatch methods (dispatch_request, handle_user_exception, ...) the app
# context first; older Flask, nothing. FlaskAPI's overrides take ``ctx=None`` and pass on what
# they got; where flask_api calls one itself, ``*_ctx()`` comes first: this is what knows.
if "ctx" in inspect.signature(Flask.dispatch_request).parameters:
    from flask.globals import app_ctx
    _app_ctx = app_ctx  # type: Any

    def _ctx() -> Tuple[Any, ...]:
        return (_app_ctx._get_current_object(),)
else:
    def _ctx() -> Tuple[Any, ...]:
        return ()

try:  # Flask 2.2+ serializes through the app's JSON provider, app.json
    from flask.json.provider import DefaultJSONProvider
except ImportError:  # Flask 1.1 to 2.1: through the app's json_encoder
    DefaultJSONProvider = None  # type: ignore[assignment,misc]

try:  # optional: Markdown for view docstrings on the browsable page
    import markdown as _markdown_lib
except ImportError:  # pragma: no cover - exercised by the no-markdown matrix run
    _markdown_lib = None


# ---------------------------------------------------------------------------
# Status codes
# ---------------------------------------------------------------------------
# Public: every HTTP_* constant, is_informational(), is_success(), is_redirect(),
# is_client_error() and is_server_error(), also as flask_api.status. All that follows reads them.

HTTP_100_CONTINUE = 100
HTTP_101_SWITCHING_PROTOCOLS = 101
HTTP_102_PROCESSING = 102
HTTP_103_EARLY_HINTS = 103
HTTP_200_OK = 200
HTTP_201_CREATED = 201
HTTP_202_ACCEPTED = 202
HTTP_203_NON_AUTHORITATIVE_INFORMATION = 203
HTTP_204_NO_CONTENT = 204
HTTP_205_RESET_CONTENT = 205
HTTP_206_PARTIAL_CONTENT = 206
HTTP_207_MULTI_STATUS = 207
HTTP_208_ALREADY_REPORTED = 208
HTTP_226_IM_USED = 226
HTTP_300_MULTIPLE_CHOICES = 300
HTTP_301_MOVED_PERMANENTLY = 301
HTTP_302_FOUND = 302
HTTP_303_SEE_OTHER = 303
HTTP_304_NOT_MODIFIED = 304
HTTP_305_USE_PROXY = 305
HTTP_306_RESERVED = 306
HTTP_307_TEMPORARY_REDIRECT = 307
HTTP_308_PERMANENT_REDIRECT = 308
HTTP_400_BAD_REQUEST = 400
HTTP_401_UNAUTHORIZED = 401
HTTP_402_PAYMENT_REQUIRED = 402
HTTP_403_FORBIDDEN = 403
HTTP_404_NOT_FOUND = 404
HTTP_405_METHOD_NOT_ALLOWED = 405
HTTP_406_NOT_ACCEPTABLE = 406
HTTP_407_PROXY_AUTHENTICATION_REQUIRED = 407
HTTP_408_REQUEST_TIMEOUT = 408
HTTP_409_CONFLICT = 409
HTTP_410_GONE = 410
HTTP_411_LENGTH_REQUIRED = 411
HTTP_412_PRECONDITION_FAILED = 412
HTTP_413_REQUEST_ENTITY_TOO_LARGE = 413
HTTP_414_REQUEST_URI_TOO_LONG = 414
HTTP_415_UNSUPPORTED_MEDIA_TYPE = 415
HTTP_416_REQUESTED_RANGE_NOT_SATISFIABLE = 416
HTTP_417_EXPECTATION_FAILED = 417
HTTP_418_IM_A_TEAPOT = 418
HTTP_421_MISDIRECTED_REQUEST = 421
HTTP_422_UNPROCESSABLE_ENTITY = 422
HTTP_423_LOCKED = 423
HTTP_424_FAILED_DEPENDENCY = 424
HTTP_425_TOO_EARLY = 425
HTTP_426_UPGRADE_REQUIRED = 426
HTTP_428_PRECONDITION_REQUIRED = 428
HTTP_429_TOO_MANY_REQUESTS = 429
HTTP_431_REQUEST_HEADER_FIELDS_TOO_LARGE = 431
HTTP_451_UNAVAILABLE_FOR_LEGAL_REASONS = 451
HTTP_500_INTERNAL_SERVER_ERROR = 500
HTTP_501_NOT_IMPLEMENTED = 501
HTTP_502_BAD_GATEWAY = 502
HTTP_503_SERVICE_UNAVAILABLE = 503
HTTP_504_GATEWAY_TIMEOUT = 504
HTTP_505_HTTP_VERSION_NOT_SUPPORTED = 505
HTTP_506_VARIANT_ALSO_NEGOTIATES = 506
HTTP_507_INSUFFICIENT_STORAGE = 507
HTTP_508_LOOP_DETECTED = 508
HTTP_509_BANDWIDTH_LIMIT_EXCEEDED = 509
HTTP_510_NOT_EXTENDED = 510
HTTP_511_NETWORK_AUTHENTICATION_REQUIRED = 511


def is_informational(code: int) -> bool:
    """True for 1xx codes."""
    return 100 <= code <= 199


def is_success(code: int) -> bool:
    """True for 2xx codes."""
    return 200 <= code <= 299


def is_redirect(code: int) -> bool:
    """True for 3xx codes."""
    return 300 <= code <= 399


def is_client_error(code: int) -> bool:
    """True for 4xx codes."""
    return 400 <= code <= 499


def is_server_error(code: int) -> bool:
    """True for 5xx codes."""
    return 500 <= code <= 599


# ---------------------------------------------------------------------------
# Exceptions
# ---------------------------------------------------------------------------
# Public: APIException and one subclass per error, raised by views and by flask_api alike;
# each renders as {"detail": ...} with its status_code (see FlaskAPI.handle_api_exception).

class APIException(Exception):
    """An error that renders as ``{"detail": ...}`` with its ``status_code``."""

    status_code = HTTP_500_INTERNAL_SERVER_ERROR
    detail = "A server error occurred."  # type: Any

    def __init__(self, detail: Any = None) -> None:
        if detail is not None:
            self.detail = detail
        super().__init__(self.detail)

    def __str__(self) -> str:
        return str(self.detail)

    def get_headers(self) -> Dict[str, str]:
        """Extra response headers; subclasses such as `Throttled` add some."""
        return {}


class ParseError(APIException):
    status_code = HTTP_400_BAD_REQUEST
    detail = "Malformed request."


class AuthenticationFailed(APIException):
    status_code = HTTP_401_UNAUTHORIZED
    detail = "Incorrect authentication credentials."


class NotAuthenticated(APIException):
    status_code = HTTP_401_UNAUTHORIZED
    detail = "Authentication credentials were not provided."


class PermissionDenied(APIException):
    status_code = HTTP_403_FORBIDDEN
    detail = "You do not have permission to perform this action."


class NotFound(APIException):
    status_code = HTTP_404_NOT_FOUND
    detail = "This resource does not exist."


class MethodNotAllowed(APIException):
    status_code = HTTP_405_METHOD_NOT_ALLOWED
    detail = "Request method is not allowed."


class NotAcceptable(APIException):
    status_code = HTTP_406_NOT_ACCEPTABLE
    detail = "Could not satisfy the request Accept header."


class UnsupportedMediaType(APIException):
    status_code = HTTP_415_UNSUPPORTED_MEDIA_TYPE
    detail = "Unsupported media type in the request Content-Type header."


class Throttled(APIException):
    status_code = HTTP_429_TOO_MANY_REQUESTS
    detail = "Request was throttled."

    def __init__(self, detail: Any = None, wait: Optional[int] = None) -> None:
        self.wait = wait
        if detail is None and wait is not None:
            detail = "{} Expected available in {} seconds.".format(self.detail, wait)
        super().__init__(detail)

    def get_headers(self) -> Dict[str, str]:
        return {} if self.wait is None else {"Retry-After": str(self.wait)}


# ---------------------------------------------------------------------------
# Media types and content negotiation
# ---------------------------------------------------------------------------
# Public: MediaType. Called from outside this section through: _select_renderer (APIRequest,
# FlaskAPI, BrowsableAPI), _select_parser (APIRequest), _url_format and _parser_for (APIRequest's
# route caches), _negotiate (those, BrowsableAPI's middleware, the plain forms), _media_type,
# and _accepted and _unimplemented (the base classes, 3.x).

class MediaType:
    """A parsed media type such as ``application/json; indent=4``."""

    def __init__(self, media_type: str) -> None:
        full_type, params = parse_options_header(media_type or "")
        main_type, _, sub_type = full_type.partition("/")
        self.main_type = main_type.strip().lower() or "*"
        self.sub_type = sub_type.strip().lower() or "*"
        # Always strings: werkzeug 2.0 gives None for an empty value such as "boundary=".
        self.params = {key.lower(): value or "" for key, value in params.items()}

    @property
    def full_type(self) -> str:
        return self.main_type + "/" + self.sub_type

    @property
    def quality(self) -> float:
        """The ``q`` parameter clamped to 0..1; an unreadable one counts as 1."""
        try:
            return min(max(float(self.params.get("q", 1)), 0.0), 1.0)
        except ValueError:
            return 1.0

    @property
    def precedence(self) -> int:
        """0 for ``*/*``, 1 for ``type/*``, 2 for ``type/sub``, 3 with parameters."""
        if self.main_type == "*":
            return 0
        if self.sub_type == "*":
            return 1
        return 3 if any(key != "q" for key in self.params) else 2

    def satisfies(self, other: "MediaType") -> bool:
        """True if this type fits where ``other`` is asked for: wildcards either side,
        and each of this type's parameters (but ``q``) is in ``other`` with its value."""
        for key, value in self.params.items():
            if key != "q" and other.params.get(key) != value:
                return False
        return _types_match(self, other)

    def __str__(self) -> str:
        """Parameters sorted and quoted, ``q`` last and bare, as RFC 9110 writes it."""
        params = "".join('; {}="{}"'.format(key, value.replace("\\", "\\\\").replace('"', '\\"'))
                         for key, value in sorted(self.params.items()) if key != "q")
        if "q" in self.params:
            params += "; q=" + self.params["q"]
        return self.full_type + params

    def __repr__(self) -> str:
        return "<MediaType {!r}>".format(str(self))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, MediaType) and self.full_type == other.full_type
                and self.params == other.params)

    def __hash__(self) -> int:
        return hash(str(self))


def _types_match(one: MediaType, other: MediaType) -> bool:
    if "*" not in (one.sub_type, other.sub_type) and one.sub_type != other.sub_type:
        return False
    return "*" in (one.main_type, other.main_type) or one.main_type == other.main_type


#: Headers are read up to this many characters, so that what they cost to parse is
#: bounded by size, not only by count.
_LONGEST_HEADER = 1024
#: Longer values are parsed afresh on each request, not cached, so that every cache is
#: bounded in bytes too: a browser's Accept is ~150 characters; a query of that size or
#: more is rarely seen twice, and a Content-Type with a multipart boundary never.
_CACHED_ACCEPT = 256
_LONGEST_CACHED = 64  # Content-Types


class _BoundedCache(dict):
    """What ``function(text, *rest)`` gives, looked up as ``cache[text, *rest]``, where
    ``text`` is what a client sent: longer than ``longest``, it is worked out afresh each time
    and never kept, so the cache is bounded in bytes (``maxsize`` keys of at most ``longest``
    characters; the caller bounds the rest), not only in entries. Full, it starts again.
    A hit is a plain dict lookup, cheaper than a call: a JSON request makes one or two."""

    def __init__(self, function: Any, maxsize: int, longest: int) -> None:
        super().__init__()
        self.function, self.maxsize, self.longest = function, maxsize, longest

    def __missing__(self, key: Tuple[Any, ...]) -> Any:
        value = self.function(*key)
        if len(key[0]) <= self.longest:
            if len(self) >= self.maxsize:
                self.clear()
            self[key] = value
        return value


def _bounded_cache(maxsize: int, longest: int) -> Any:
    """Decorator: the function as a `_BoundedCache`."""
    return lambda function: _BoundedCache(function, maxsize, longest)


@_bounded_cache(64, _CACHED_ACCEPT)  # each entry up to ~60 media types: about 2 MiB in all
def _accepted(accept: str) -> Tuple[MediaType, ...]:
    """The media ranges of an Accept header, cut at ``_LONGEST_HEADER``, in order."""
    items = parse_list_header(_cut(accept))
    return tuple(MediaType(item) for item in items if "/" in item.partition(";")[0])


def _cut(accept: str) -> str:
    """An Accept header cut after its last whole media range within `_LONGEST_HEADER`."""
    return accept if len(accept) <= _LONGEST_HEADER else accept[:_LONGEST_HEADER].rpartition(
        ",")[0]


@functools.lru_cache(maxsize=64)
def _media_type(value: str) -> MediaType:
    return MediaType(value)


def _agreement(offer: MediaType, wanted: MediaType) -> Optional[int]:
    """How many parameters a renderer's type shares with an accepted range, or None
    if it cannot serve it: the types differ, or a parameter named on both sides does
    not agree. One named on a single side (``indent``, ``charset``) does not count."""
    if not _types_match(offer, wanted):
        return None
    agreed = 0
    for key, value in wanted.params.items():
        mine = offer.params.get(key)
        if key == "q" or mine is None:
            continue
        if mine != value and not (key == "charset" and mine.lower() == value.lower()):
            return None
        agreed += 1
    return agreed


def _merged(offer: MediaType, wanted: MediaType) -> MediaType:
    """The renderer's type with the client's extra parameters (``indent``), without ``q``."""
    if wanted.precedence < 2:
        return offer
    merged = MediaType(offer.full_type)
    merged.params = {key: value for key, value in wanted.params.items() if key != "q"}
    merged.params.update(offer.params)
    return merged


@_bounded_cache(1024, _CACHED_ACCEPT)
def _negotiate(accept: str, url_format: Optional[str], renderers: Tuple["BaseRenderer", ...]
               ) -> Optional[Tuple["BaseRenderer", MediaType]]:
    """Pick (renderer, media type) by RFC 9110: for each renderer the most specific
    range that takes it, then quality, specificity, agreeing parameters, server order."""
    if url_format:
        for renderer in renderers:
            if renderer.format == url_format:
                return renderer, _media_type(renderer.media_type)
        return None
    accepted = _accepted[(accept,)]
    if not accepted:
        return renderers[0], _media_type(renderers[0].media_type)
    best = None
    for index, renderer in enumerate(renderers):
        match = _best_range(_media_type(renderer.media_type), accepted)
        if match is None:
            continue
        wanted, agreed = match
        rank = (wanted.quality, wanted.precedence, agreed, -index)
        if wanted.quality > 0 and (best is None or rank > best[0]):
            best = (rank, renderer, wanted)
    return None if best is None else (best[1], _merged(_media_type(best[1].media_type), best[2]))


def _best_range(offer: MediaType, accepted: Sequence[MediaType]
                ) -> Optional[Tuple[MediaType, int]]:
    """The most specific accepted range that takes ``offer``, and their shared parameters."""
    best = None  # type: Optional[Tuple[MediaType, int]]
    for wanted in accepted:
        agreed = _agreement(offer, wanted)
        if agreed is None:
            continue
        if best is None or (wanted.precedence, agreed, wanted.quality) > (
                best[0].precedence, best[1], best[0].quality):
            best = (wanted, agreed)
    return best


@_bounded_cache(256, _LONGEST_CACHED)  # a multipart boundary makes most headers unique
def _parser_for(content_type: str, parsers: Tuple["BaseParser", ...]
                ) -> Tuple[Optional["BaseParser"], MediaType]:
    """The first parser for a Content-Type header, and the header parsed."""
    media_type = MediaType(content_type)
    for parser in parsers:
        if _media_type(parser.media_type).satisfies(media_type):
            return parser, media_type
    return None, media_type


@_bounded_cache(256, _CACHED_ACCEPT)
def _query_value(query_string: str, key: str) -> Optional[str]:
    """One query parameter, without building werkzeug's ``request.args`` just for it."""
    return next((value for name, value in parse_qsl(query_string) if name == key), None)


def _unimplemented(instance: Any, method: str) -> NotImplementedError:
    """The error an abstract method raises, worded as Flask-API 3.x's."""
    return NotImplementedError('`{}()` method must be implemented for class "{}"'.format(
        method, type(instance).__name__))


def _select_parser(parsers: Tuple[Any, ...], environ: Dict[str, Any]) -> Tuple[Any, MediaType]:
    header = environ.get("CONTENT_TYPE", "")
    if len(header) > _LONGEST_HEADER:  # no media type that a parser takes
        raise UnsupportedMediaType()
    found = _parser_for[header, parsers]
    if found[0] is None:
        raise UnsupportedMediaType(
            "Unsupported media type \"{}\" in request.".format(found[1].full_type))
    return found


def _select_renderer(renderers: Tuple[Any, ...], environ: Dict[str, Any],
                     app: Any = None) -> Tuple[Any, MediaType]:
    query = environ.get("QUERY_STRING")
    result = _negotiate[environ.get("HTTP_ACCEPT", ""), query and _url_format(query, app),
                        renderers]
    if result is None:
        raise NotAcceptable()
    return result


def _url_format(query: str, app: Any = None) -> Optional[str]:
    """The format a query string asks for (``?format=json``), or None."""
    override = (app or current_app).config.get("URL_FORMAT_OVERRIDE", "format")
    url_format = override and _query_value[query, override]
    if url_format and len(url_format) > _LONGEST_CACHED:  # no renderer's, nor a cache key
        raise NotAcceptable()
    return url_format or None


# ---------------------------------------------------------------------------
# Parsers
# ---------------------------------------------------------------------------
# Public: BaseParser, JSONParser, URLEncodedParser, MultiPartParser. APIRequest calls a
# parser's parse(stream, media_type, **options) and reads its flags (streaming, handles_...).

class BaseParser:
    """Turns a request body into data; subclasses set ``media_type`` and ``parse``.

    ``parse(stream, media_type, content_length=None)`` may raise `ParseError`, or
    ``ValueError``, ``UnicodeError`` or ``LookupError``: over HTTP each is a 400.
    """

    media_type = None  # type: Optional[str]
    handles_file_uploads = False  # parse returns (data, files); the files are request.files
    handles_form_data = False  # the data is request.form too
    #: True: ``parse`` gets the raw, unread request stream (large uploads);
    #: False: a buffer of the body, so ``request.get_data()`` keeps working too.
    streaming = False

    def parse(self, stream: Any, media_type: Any, **options: Any) -> Any:
        """Return the parsed data, or ``(data, files)`` if ``handles_file_uploads``."""
        raise _unimplemented(self, "parse")


def _as_media_type(media_type: Any) -> MediaType:
    return media_type if isinstance(media_type, MediaType) else _media_type(str(media_type))


def _reject_constant(name: str) -> None:
    raise ValueError("JSON does not allow " + name)


#: The encodings JSON may come in (RFC 8259 8.1, and UTF-16/32 from RFC 7159).
_JSON_CHARSETS = frozenset(["utf8", "utf16", "utf16le", "utf16be", "utf32", "utf32le",
                            "utf32be"])
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class JSONParser(BaseParser):
    """Any JSON value. NaN and Infinity, other charsets than UTF-8/16/32, and lone
    surrogates (``"\\ud800"``, which no UTF can encode) are a `ParseError`."""

    media_type = "application/json"

    def parse(self, stream: Any, media_type: Any, **options: Any) -> Any:
        try:
            charset = media_type.params.get("charset")
        except AttributeError:  # a string, from code that calls the parser itself
            charset = _as_media_type(media_type).params.get("charset")
        try:
            if (charset is not None and
                    charset.lower().replace("-", "").replace("_", "") not in _JSON_CHARSETS):
                raise LookupError("JSON is never in " + charset)
            text = stream.read().decode(charset or "utf-8")
            if "NaN" not in text and "Infinity" not in text:  # a hook costs a new decoder
                data = _json_loads(text)
            else:
                data = _json_loads(text, parse_constant=_reject_constant)
            if _SURROGATE_ESCAPE.search(text):  # a pair is one character; a lone one fails
                json.dumps(data, ensure_ascii=False).encode("utf-8")
        except (ValueError, LookupError, RecursionError) as exc:  # UnicodeError is a ValueError
            raise ParseError() from exc
        return data


class _FormParser(BaseParser):
    """Forms go through werkzeug's form parser, which enforces Flask's size limits."""

    streaming = True
    handles_form_data = True
    name = "Form"  # for the error message

    def parse(self, stream: Any, media_type: Any, **options: Any) -> Any:
        media_type = _as_media_type(media_type)
        parser = request.make_form_data_parser() if has_request_context() else FormDataParser()
        parser.silent = False  # a broken body is an error, not an empty form
        try:
            _, form, files = parser.parse(stream, media_type.full_type,
                                          options.get("content_length"), media_type.params)
        except ValueError as exc:
            raise ParseError("{} parse error - {}".format(self.name, exc)) from exc
        return (form, files) if self.handles_file_uploads else form


class URLEncodedParser(_FormParser):
    media_type = "application/x-www-form-urlencoded"


class MultiPartParser(_FormParser):
    media_type = "multipart/form-data"
    name = "Multipart"
    handles_file_uploads = True

    def parse(self, stream: Any, media_type: Any, **options: Any) -> Any:
        if not _as_media_type(media_type).params.get("boundary"):
            raise ParseError("Multipart message missing boundary in Content-Type header")
        return super().parse(stream, media_type, **options)


# ---------------------------------------------------------------------------
# Renderers
# ---------------------------------------------------------------------------
# Public: BaseRenderer, JSONRenderer, HTMLRenderer (a stream's renderers are in Streams, the
# page's in The page's context). Called from outside this section through: _json_dumps and
# _json_loads, how every part writes and reads JSON by the app's settings; _item_encoder
# (the page's big bodies, a stream's items).

class BaseRenderer:
    """Turns data into a response body; subclasses set ``media_type`` and ``render``.

    ``render(data, media_type, **options)`` gets the negotiated `MediaType` and, in
    ``options``, the response's ``status`` ("201 CREATED"), ``status_code`` and ``headers``.
    """

    media_type = None  # type: Optional[str]
    charset = "utf-8"  # type: Optional[str]  # added to Content-Type for text/* types
    format = None  # type: Optional[str]
    handles_empty_responses = False  # True: a ``None, 204`` result is rendered too, as a 200
    response_headers = ()  # type: Sequence[Tuple[str, str]]  # sent with all it renders

    def render(self, data: Any, media_type: MediaType, **options: Any) -> Any:
        """Return the body as ``str`` or ``bytes``."""
        raise _unimplemented(self, "render")

    @property
    def content_type(self) -> str:
        """The media type, with the charset for a ``text/*`` type that names none."""
        return _content_type(self.media_type or "", self.charset)


@functools.lru_cache(maxsize=64)
def _content_type(media_type: str, charset: Optional[str]) -> str:
    if charset and media_type.startswith("text/") and "charset" not in MediaType(media_type).params:
        return "{}; charset={}".format(media_type, charset)
    return media_type


class JSONRenderer(BaseRenderer):
    """JSON through the app's JSON provider; ``; indent=N`` in Accept indents (0 to 8)."""

    media_type = "application/json"
    charset = None  # JSON is always UTF-8 and has no charset parameter (RFC 8259)
    format = "json"
    # A view's stream (a generator, see `FlaskAPI._stream`) in a renderer's framing:
    # ``stream_opening``, each item's JSON between ``stream_prefix`` and ``stream_suffix``,
    # ``stream_separator`` between items, ``stream_closing`` at its end. An error after the
    # first item ends it with ``stream_error`` (the ``{"detail": ...}`` JSON in its ``{}``),
    # in a shape no item has; JSON's array is left unterminated, so that no parser takes a
    # part for the whole.
    stream_opening, stream_prefix, stream_suffix, stream_separator, stream_closing = (
        "[", "", "", ",", "]")
    stream_error = None  # type: Optional[str]

    def render(self, data: Any, media_type: MediaType, **options: Any) -> str:
        indent = options.get("indent", media_type.params.get("indent"))  # Accept: ...; indent=4
        return _json_dumps(data, None if indent is None else _indent(indent))


def _indent(value: Any) -> Optional[int]:
    try:
        return min(max(int(value), 0), 8)
    except ValueError:
        return None


class HTMLRenderer(BaseRenderer):
    """Passes through HTML the view already rendered as a string."""

    media_type = "text/html"
    format = "html"

    def render(self, data: Any, media_type: MediaType, **options: Any) -> Any:
        if isinstance(data, (str, bytes)):
            return data
        text = _json_dumps(data, indent=4)
        return Markup("<pre>{}</pre>").format(text)  # markupsafe escapes the argument


def _json_dumps(data: Any, indent: Optional[int] = None, app: Any = None) -> str:
    """``app.json.dumps(data, ensure_ascii=False, indent=indent)``, as Flask-API 3.x wrote
    JSON (Flask's old ``json_encoder`` before Flask 2.2), and as fast as Flask can; ``app``:
    the current one, if the caller has it at hand."""
    try:
        provider = getattr(app or _current_app._get_current_object(), "json", None)  # 2.2+
    except RuntimeError:  # outside an app: the standard library's
        return json.dumps(data, ensure_ascii=False, indent=indent)
    if type(provider) is DefaultJSONProvider:  # Flask's own, whose settings are attributes
        try:  # unindented, the C encoder called straight, as a stream's items are
            encode = (_item_encoder(provider.default, provider.sort_keys) if indent is None else
                      _json_encoder(provider.default, provider.sort_keys, indent).encode)
        except TypeError:  # settings that cannot be a cache key, such as an unhashable default
            return provider.dumps(data, ensure_ascii=False, indent=indent)
        try:
            return encode(data)
        except RecursionError:  # a cycle (which only Flask's encoder calls one), or too deep
            pass
        return provider.dumps(data, ensure_ascii=False, indent=indent)  # raises what it is
    if provider is not None:
        return provider.dumps(data, ensure_ascii=False, indent=indent)
    return flask_json.dumps(data, ensure_ascii=False, indent=indent)


@functools.lru_cache(maxsize=64)
def _json_encoder(default: Any, sort_keys: bool, indent: Optional[int]) -> json.JSONEncoder:
    """What Flask's provider would build for these settings, built once: making an
    encoder per call, as ``json.dumps`` does, costs as much as encoding a small dict."""
    return json.JSONEncoder(ensure_ascii=False, sort_keys=sort_keys, default=default,
                            indent=indent)


@functools.lru_cache(maxsize=64)
def _item_encoder(default: Any, sort_keys: bool, ensure_ascii: bool = False,
                  line_safe: bool = False) -> Any:
    """`_json_encoder`'s encoding, called straight: ``JSONEncoder.encode`` makes a new C
    encoder on every call, which for each item of a big list costs as much again as
    encoding it. (No ``markers``, so that threads may share it: a cycle is a RecursionError.)
    ``line_safe``: its text `_line_safe`, in the same call (a stream's items)."""
    if c_make_encoder is None:  # a Python without the C speedups
        encode = json.JSONEncoder(ensure_ascii=ensure_ascii, sort_keys=sort_keys,
                                  default=default).encode
        return (lambda value: _line_safe(encode(value))) if line_safe else encode
    strings = encode_basestring_ascii if ensure_ascii else encode_basestring
    encoder = c_make_encoder(None, default, strings, None, ": ", ", ", sort_keys, False, True)
    if not line_safe:
        return lambda value: "".join(encoder(value, 0))
    search, table = _LINE_ENDS.search, _LINE_SAFE

    def encode_line(value: Any) -> str:
        text = "".join(encoder(value, 0))
        return text.translate(table) if search(text) else text
    return encode_line


def _json_loads(text: str, **kwargs: Any) -> Any:
    try:
        provider = getattr(_current_app._get_current_object(), "json", None)
    except RuntimeError:  # a parser used on its own, outside an app
        return json.loads(text, **kwargs)
    if type(provider) is DefaultJSONProvider:  # whose loads() is json.loads(): skip a call
        return json.loads(text, **kwargs)
    if provider is not None:
        return provider.loads(text, **kwargs)
    return flask_json.loads(text, **kwargs)


# ---------------------------------------------------------------------------
# Request and response
# ---------------------------------------------------------------------------
# Public: APIRequest, APIResponse. Called from outside this section through: _render and
# _finish_rendered (every path that renders), _resolve (classes to instances), _status_line,
# _phrase, _status_code and _DATA (FlaskAPI), and _ReadGuard (the middleware).

@functools.lru_cache(maxsize=256)
def _resolve(items: Tuple[Any, ...], setting: str) -> Tuple[Any, ...]:
    """Parser or renderer instances for classes, instances or dotted import strings."""
    return tuple(_import(item, setting)() if isinstance(item, str) else
                 item() if isinstance(item, type) else item for item in items)


def _import(dotted: str, setting: str) -> Any:
    """A class named by its dotted path; the error reads as Flask-API 3.x's did."""
    module_name, _, name = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError, ValueError) as exc:
        message = "Could not import '{}' for API setting '{}'. {}.".format(dotted, setting, exc)
        raise ImportError(message) from exc


def _as_tuple(classes: Any) -> Tuple[Any, ...]:
    """A setting's classes: a list, or one class or dotted string alone."""
    return tuple(classes) if isinstance(classes, (list, tuple)) else (classes,)


@functools.lru_cache(maxsize=512)
def _view_classes(view: Any, method: str, attribute: str) -> Any:
    """What ``set_parsers``/``set_renderers`` put on a view: on the view function, or
    on a ``MethodView``'s method, whose decorator runs last and so wins."""
    view_class = getattr(view, "view_class", None)
    classes = getattr(getattr(view_class, method.lower(), None), attribute, None)
    return classes or getattr(view, attribute, None)


_DATA = (list, dict)  # what views return for rendering
_EMPTY = ImmutableMultiDict()  # type: MultiDict
_NOTHING_PARSED = (_EMPTY, _EMPTY, _EMPTY)
# werkzeug 2.3+ limits request.stream to MAX_CONTENT_LENGTH itself; older ones do not.
_STREAM_HAS_LIMIT = "max_content_length" in inspect.signature(get_input_stream).parameters


@functools.lru_cache(maxsize=1024)  # 1,024 short strings at most
def _status_line(code: int) -> str:
    """``201 CREATED``, as renderers get it as ``status``: werkzeug's own status line,
    upper-cased as werkzeug wrote it before 3.2 (and Flask-API 3.x renderers read it)."""
    return cast(str, Response(status=code).status).upper()


def _phrase(code: int) -> str:
    """``Not Found``: the page's name for a status, Python's (as werkzeug 3.2 names them)."""
    try:
        return HTTPStatus(code).phrase
    except ValueError:
        return ""


class _ReadGuard(io.RawIOBase):
    """A request body read in bounded pieces, where a failed read (a broken chunked
    body, a client gone, the server's own read error) is a `ParseError`, not a 500.

    The middleware puts one around every chunked body: with no Content-Length, a
    read to the end trusts the chunk sizes the client declares.
    """

    limit = None  # type: Optional[int]  # a 413 past this many bytes (MAX_CONTENT_LENGTH)

    def __init__(self, stream: Any) -> None:
        super().__init__()
        self._stream = stream
        self._read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self._stream.read(len(buffer))
        except (HTTPException, APIException):  # 413 and friends say it better
            raise
        except Exception as exc:
            raise ParseError() from exc
        self._read += len(data)
        if self.limit is not None and self._read >= self.limit and (
                self._read > self.limit or self._stream.read(1)):  # one byte past: too long
            raise RequestEntityTooLarge()
        buffer[:len(data)] = data
        return len(data)


class APIRequest(Request):
    """Flask's request, plus ``data`` parsed by Content-Type and the negotiation result."""

    parser_classes = None  # type: Optional[Sequence[Any]]
    renderer_classes = None  # type: Optional[Sequence[Any]]
    _api_negotiated = None  # type: Optional[Tuple[Any, Tuple[BaseRenderer, MediaType]]]
    _api_parsed = None  # type: Optional[Tuple[Any, MultiDict, MultiDict]]

    def _classes(self, attribute: str, setting: str, decorator: str,
                 app: Any = None) -> Tuple[Any, ...]:
        """Classes set on the request (by a decorator or a hook), else the view's
        decorator's, else the app's setting.

        The decorator may be on the view, or on a ``MethodView``'s method: that one is
        found here too, so a write's early check sees it before the method runs.
        """
        app = app or _current_app._get_current_object()
        classes = getattr(self, attribute)
        if classes:
            return _resolve(_as_tuple(classes), decorator)
        rule = self.url_rule  # None before routing, and for an unknown route
        view = app.view_functions.get(rule.endpoint) if rule is not None else None
        configured = app.config[setting]
        return _route_classes(view, self.method, attribute, decorator, tuple(configured)
                              if type(configured) is not str else (configured,), setting)

    @property
    def parsers(self) -> Tuple[BaseParser, ...]:
        return self._classes("parser_classes", "DEFAULT_PARSERS", "set_parsers")

    @property
    def renderers(self) -> Tuple[BaseRenderer, ...]:
        return self._classes("renderer_classes", "DEFAULT_RENDERERS", "set_renderers")

    @property
    def last_event_id(self) -> Optional[str]:
        """The ``Last-Event-ID`` header, which an EventSource sends as it reconnects: the id of
        the last server-sent event it got, to go on from; None without one."""
        value = self.headers.get("Last-Event-ID")
        try:  # EventSource sends it as UTF-8, which WSGI hands over as Latin-1
            return value.encode("latin-1").decode("utf-8") if value is not None else None
        except UnicodeError:
            return value

    @property
    def accepted_renderer(self) -> BaseRenderer:
        """The renderer for this request's Accept, negotiated on first use."""
        return self._negotiated()[0]

    @property
    def accepted_media_type(self) -> MediaType:
        """The media type it renders, with the client's parameters (``indent``)."""
        return self._negotiated()[1]

    def _negotiated(self, app: Any = None) -> Tuple[BaseRenderer, MediaType]:
        """(renderer, media type), once per request: the view, the early 406 check of a
        write and rendering share it, unless the renderer classes change in between.

        Without classes on the request, the route's answer is remembered: what the view's
        (and method's) ``set_renderers``, else the app's ``DEFAULT_RENDERERS``, make of
        Accept and ``?format=`` (`_route_negotiation`). Each part of that key is read on
        every request, so a view replaced or a setting changed, even in place, counts."""
        memo, classes = self._api_negotiated, self.renderer_classes
        if memo is not None and memo[0] is classes:
            return memo[1]
        app = app or _current_app._get_current_object()
        environ = self.environ
        if classes:  # set by a hook or the view: resolved afresh
            renderers = self._classes("renderer_classes", "DEFAULT_RENDERERS", "set_renderers",
                                      app)
            result = _select_renderer(renderers, environ, app)
        else:
            rule, query = self.url_rule, environ.get("QUERY_STRING")  # no rule: a 404's
            configured = app.config["DEFAULT_RENDERERS"]
            result = _route_negotiation[
                environ.get("HTTP_ACCEPT", ""), query and _url_format(query, app),
                rule and app.view_functions.get(rule.endpoint), self.method,
                tuple(configured) if type(configured) is not str else (configured,)]
            if result is None:
                raise NotAcceptable()
        self._api_negotiated = (classes, result)
        return result

    @property
    def data(self) -> Any:
        """The body parsed by Content-Type, once, on first access."""
        return self._parsed()[0]

    @property
    def form(self) -> MultiDict:  # type: ignore[override]
        """The fields of a form body; empty for any other body, never a 415."""
        return self._parsed()[1] if self._parses("handles_form_data") else _EMPTY

    @property
    def files(self) -> MultiDict:  # type: ignore[override]
        """The files of a multipart body; empty for any other body, never a 415."""
        return self._parsed()[2] if self._parses("handles_file_uploads") else _EMPTY

    def _parses(self, flag: str) -> bool:
        """True if the body is parsed already, or its parser sets ``flag``."""
        if self._api_parsed is not None:
            return True
        try:
            parser = self._parser()[0]
        except UnsupportedMediaType:
            return False
        return getattr(parser, flag, False)

    def _parser(self) -> Tuple[BaseParser, MediaType]:
        """(parser, media type) for the body's Content-Type, or `UnsupportedMediaType`.
        Without classes on the request, the route's answer is remembered, as `_negotiated`
        remembers its own (`_route_parser`); what it cannot keep, `_select_parser` says."""
        environ, classes = self.environ, self.parser_classes
        if not classes:
            app, rule = _current_app._get_current_object(), self.url_rule
            configured = app.config["DEFAULT_PARSERS"]
            found = _route_parser[
                environ.get("CONTENT_TYPE", ""), rule and app.view_functions.get(rule.endpoint),
                self.method, tuple(configured) if type(configured) is not str else (configured,)]
            if found is not None:
                return found
        return _select_parser(self.parsers, environ)  # or its error

    def _parsed(self) -> Tuple[Any, MultiDict, MultiDict]:
        parsed = self._api_parsed
        if parsed is None:
            try:
                parsed = self._api_parsed = self._parse()
            except Exception:
                # Raised once; later reads find nothing, as in Flask-API 3.x, so that
                # an error handler that reads request.data does not fail in turn.
                self._api_parsed = _NOTHING_PARSED
                raise
        return parsed

    def _check_length(self, length: Optional[int]) -> None:
        """A 413 for a body over MAX_CONTENT_LENGTH: now, if its length says so, else as
        a chunked one comes in. werkzeug < 2.3 does neither; newer ones cut a chunked body
        short at the limit, which would parse a truncated form as if it were whole."""
        limit = self.max_content_length
        if limit is not None and (length or 0) > limit:
            raise RequestEntityTooLarge()
        guard = self.environ.get("wsgi.input")
        if limit is not None and length is None and isinstance(guard, _ReadGuard):
            guard.limit = limit

    def _parse(self) -> Tuple[Any, MultiDict, MultiDict]:
        length = get_content_length(self.environ)  # None if chunked
        if not length and "HTTP_TRANSFER_ENCODING" not in self.environ:  # "Chunked" too
            return _NOTHING_PARSED
        parser, media_type = self._parser()
        if length is None or not _STREAM_HAS_LIMIT:  # see _check_length
            self._check_length(length)
        if parser.streaming:  # werkzeug makes a failed read a 400; chunked: see _ReadGuard
            stream = self.stream  # type: Any
        else:  # a buffer, cached so that get_data() and get_json() work too
            try:
                stream = io.BytesIO(self.get_data(cache=True))
            except (HTTPException, APIException):  # 413 and friends say it better
                raise
            except Exception as exc:  # a client gone, the server's read error: see _ReadGuard
                raise ParseError() from exc
        try:
            result = parser.parse(stream, media_type, content_length=length)
        except (ParseError, ValueError, LookupError, RecursionError) as exc:
            raise ParseError() from exc  # its own message stays on the exception's cause
        files = _EMPTY
        if parser.handles_file_uploads:
            result, files = result
            self.__dict__["files"] = files  # where werkzeug's Request.close() closes uploads
        return result, result if parser.handles_form_data else _EMPTY, files


@_bounded_cache(256, _LONGEST_CACHED)  # as _parser_for's: the rest of the key is the app's
def _route_parser(content_type: str, view: Any, method: str, configured: Tuple[Any, ...]
                  ) -> Optional[Tuple[BaseParser, MediaType]]:
    """What `_select_parser` picks among a view's parsers (its ``set_parsers``, else the
    app's ``configured`` ones) for a Content-Type, found once per route; None for an error."""
    if len(content_type) > _LONGEST_HEADER:
        return None
    parsers = _route_classes(view, method, "parser_classes", "set_parsers", configured,
                             "DEFAULT_PARSERS")
    found = _parser_for[content_type, parsers]
    return found if found[0] is not None else None


@_bounded_cache(1024, _CACHED_ACCEPT)  # as _negotiate's: the rest of the key is the app's
def _route_negotiation(accept: str, url_format: Optional[str], view: Any, method: str,
                       configured: Tuple[Any, ...]) -> Optional[Tuple[BaseRenderer, MediaType]]:
    """What `_negotiate` picks among a view's renderers (its ``set_renderers``, else the
    app's ``configured`` ones): what `APIRequest._classes` finds, found once per route."""
    renderers = _route_classes(view, method, "renderer_classes", "set_renderers", configured,
                               "DEFAULT_RENDERERS")
    return _negotiate[accept, url_format, renderers]


def _route_classes(view: Any, method: str, attribute: str, decorator: str,
                   configured: Tuple[Any, ...], setting: str) -> Tuple[Any, ...]:
    """A route's parsers or renderers, as instances: what its view's (or method's)
    ``decorator`` set, else the app's ``configured`` ones, from ``setting``."""
    classes = _view_classes(view, method, attribute)
    return _resolve(_as_tuple(classes), decorator) if classes else _resolve(configured, setting)


def _render(data: Any, status: int, headers: Any = None, fallback: bool = False,
            app: Any = None) -> Tuple[BaseRenderer, Any]:
    """Render data for the current request; ``fallback`` uses the first renderer on a 406."""
    req = _request._get_current_object()
    try:
        renderer, media_type = req._negotiated(app)
    except NotAcceptable:
        if not fallback:
            raise
        renderer = req._classes("renderer_classes", "DEFAULT_RENDERERS", "set_renderers", app)[0]
        media_type = _media_type(renderer.media_type)
    if type(renderer) is JSONRenderer:  # its render(), without options it does not read
        indent = media_type.params.get("indent")
        body = _json_dumps(data, None if indent is None else _indent(indent), app)  # type: Any
    else:
        body = renderer.render(data, media_type, status=_status_line(status),
                               status_code=status, headers=headers)
    if isinstance(body, str):
        try:
            body = body.encode(renderer.charset or "utf-8")
        except UnicodeEncodeError:  # a lone surrogate the app handed over: an escape, not a 500
            body = body.encode(renderer.charset or "utf-8", "backslashreplace")
    return renderer, body


class APIResponse(Response):
    """Flask's response class; a list or dict as content is rendered by negotiation
    wherever a request is active: in views, error handlers and Flask-API 3.x code."""

    def __init__(self, content: Any = None, *args: Any, **kwargs: Any) -> None:
        if isinstance(content, _DATA) and _is_data(content) and has_request_context():
            self._render(content, args, kwargs)
        else:
            super().__init__(content, *args, **kwargs)

    def _render(self, content: Any, args: Any, kwargs: Dict[str, Any]) -> None:
        status = kwargs.get("status", args[0] if args else None)
        code = HTTP_200_OK if status is None else _status_code(status)
        renderer, body = _render(content, code, kwargs.get("headers"),
                                 fallback=code >= HTTP_400_BAD_REQUEST)
        if "mimetype" not in kwargs:
            kwargs.setdefault("content_type", renderer.content_type)
        super().__init__(body, *args, **kwargs)
        _finish_rendered(self, renderer, kwargs.get("headers"))


def _finish_rendered(response: Response, renderer: BaseRenderer, given: Any,
                     fresh: bool = False) -> Response:
    """What every rendered response carries besides its body and type: ``Vary: Accept`` (the
    app's own Vary kept), the renderer's ``response_headers`` (the page's CSP), and on the
    page, the headers added once it is rendered (`_show_late_headers`); ``given``: the view's
    own. Every path that renders ends here; `FlaskAPI.render_response` inlines it for JSON.

    ``fresh``: a response made just now, with no header of the app's to keep or replace, so
    each is added plainly (setting one scans the list: 2% of a small page)."""
    headers = response.headers
    if fresh:
        headers.add("Vary", "Accept")
    else:
        response.vary.add("Accept")
    for name, value in renderer.response_headers:
        (headers.add if fresh else headers.set)(name, value)
    if isinstance(renderer, BrowsableAPIRenderer):
        _show_late_headers(response, given)
    return response


def _is_data(content: Any) -> bool:
    """A list or dict to render; a list of bytes is a WSGI body, as test clients make."""
    if isinstance(content, list):
        return not (content and isinstance(content[0], bytes))
    return isinstance(content, dict)


def _status_code(status: Any) -> int:
    return status if isinstance(status, int) else int(str(status).split()[0])


# ---------------------------------------------------------------------------
# The app's routes: one description, read by the route index, the page and OpenAPI
# ---------------------------------------------------------------------------
# Called from outside this section through: _described_routes (the route index, the form's
# schemas, the OpenAPI document, the sign-in), _allowed_methods, _view_for, _rule_for,
# _view_name and _view_doc (the page, OPTIONS), _url_adapter and _routes (the breadcrumbs).

class _Route(typing.NamedTuple):
    """What one URL rule of the app offers."""

    rule: Any  # werkzeug's Rule
    view: Any  # the view function, or its MethodView (or Resource) class
    methods: Tuple[str, ...]  # HEAD and OPTIONS only where the view names them
    views: Dict[str, Any]  # method: the function that answers it (a MethodView's method)
    doc: str  # the view's docstring up to a line ``---``
    parsers: Dict[str, Tuple[BaseParser, ...]]  # method: the parsers in force
    renderers: Dict[str, Tuple[BaseRenderer, ...]]  # method: the renderers in force


class _Routes(typing.NamedTuple):
    """The app's routes, described once for the route index, the page and the document."""

    size: Tuple[int, int]  # how many views and rules: routes changed if these did
    routes: List[_Route]  # all but static files', sorted by rule
    allowed: Dict[Tuple[str, Any, Any], List[str]]  # a URL pattern's methods, as in Allow
    schemas: Dict[Any, Any]  # the page's form schemas (`get_schemas`), found as asked for


def _described_routes(app: Flask) -> _Routes:
    """The description of the app's routes, built again when routes change."""
    size = (len(app.view_functions), len(list(app.url_map.iter_rules())))
    described = app.extensions.get("flask_api_routes")
    if described is None or described.size != size:
        rules = sorted(app.url_map.iter_rules(), key=lambda rule: rule.rule)
        allowed = {}  # type: Dict[Tuple[str, Any, Any], Set[str]]
        for rule in rules:
            allowed.setdefault((rule.rule, rule.host, rule.subdomain), set()).update(
                rule.methods or ())
        described = app.extensions["flask_api_routes"] = _Routes(size, [
            _describe(app, rule) for rule in rules
            if rule.endpoint != "static" and not rule.endpoint.endswith(".static")],
            {pattern: sorted(methods) for pattern, methods in allowed.items()}, {})
    return cast(_Routes, described)


def _describe(app: Flask, rule: Any) -> _Route:
    view = app.view_functions.get(rule.endpoint)
    view_class = getattr(view, "view_class", None)
    methods = tuple(sorted(method for method in rule.methods or () if (
        method not in ("HEAD", "OPTIONS") or hasattr(view_class, method.lower())
        or (method == "OPTIONS" and getattr(rule, "provide_automatic_options", True) is False))))
    views = {method: getattr(view_class, method.lower(), None) or view for method in methods}
    return _Route(rule, view_class or view, methods, views, _view_doc(view_class or view),
                  {method: _in_force(app, view, method, "parser_classes") for method in methods},
                  {method: _in_force(app, view, method, "renderer_classes") for method in methods})


def _in_force(app: Flask, view: Any, method: str, attribute: str) -> Tuple[Any, ...]:
    """The parsers or renderers a request would get, as `APIRequest` chooses them. An app
    that is not a FlaskAPI is assumed to read JSON, and renders what `BrowsableAPI` does."""
    if not isinstance(app, FlaskAPI):
        if attribute == "parser_classes":
            return _resolve((JSONParser,), "parsers")
        return _resolve(tuple(BrowsableAPI.renderer_classes), "renderer_classes")
    classes = _view_classes(view, method, attribute)
    setting = "DEFAULT_PARSERS" if attribute == "parser_classes" else "DEFAULT_RENDERERS"
    try:
        return _resolve(_as_tuple(classes or app.config[setting]), setting)
    except ImportError:  # a typo in one view: its own requests say so, not every page
        return ()


def _allowed_methods(app: Flask, req: Request) -> List[str]:
    """The methods of the request's URL pattern, as the ``Allow`` header lists them."""
    rule = req.url_rule
    if rule is None:  # routing failed; for a 405, werkzeug names the methods allowed
        return sorted(getattr(req.routing_exception, "valid_methods", None) or ())
    pattern = (rule.rule, rule.host, rule.subdomain)
    described = app.extensions.get("flask_api_routes")
    if described is None or pattern not in described.allowed:  # not yet, or a new route
        described = _described_routes(app)
    return described.allowed.get(pattern, [])


def _view_for(app: Flask, req: Request) -> Any:
    """The view function (or its ``MethodView`` class) that handles this request; for a
    method the URL does not allow (a GET of a POST-only login), the one for those it does."""
    rule = _rule_for(app, req)
    view = app.view_functions.get(rule.endpoint if rule else "")
    return getattr(view, "view_class", view)


def _rule_for(app: Flask, req: Request) -> Any:
    """The request's URL rule; for a method the URL does not allow, that of one it does."""
    if req.url_rule is None and isinstance(req.routing_exception, _MethodNotAllowed):
        with contextlib.suppress(HTTPException, AttributeError, IndexError):  # no adapter...
            return _url_adapter(app, req).match(method=_allowed_methods(app, req)[0],
                                                return_rule=True)[0]
    return req.url_rule


def _view_name(view: Any) -> str:
    """``NoteDetailView`` or ``note_detail`` becomes ``Note Detail``."""
    return _title(getattr(view, "__name__", ""))


@functools.lru_cache(maxsize=256)
def _title(name: str) -> str:
    name = re.sub(r"(?<=.)View$", "", name)
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").split()
    return " ".join(word[:1].upper() + word[1:] for word in words)


def _view_doc(view: Any) -> str:
    """The view's own docstring (``inspect.getdoc`` would inherit ``MethodView``'s)."""
    doc = getattr(view, "__doc__", None) if view else None
    return _description(doc) if doc else ""


@functools.lru_cache(maxsize=256)  # docstrings: a few per app
def _description(doc: str) -> str:
    """A docstring up to a line ``---``, after which flasgger and flask-smorest keep YAML."""
    return re.split(r"^---[ \t]*$", inspect.cleandoc(doc), maxsplit=1, flags=re.M)[0].rstrip()


def _url_adapter(app: Flask, req: Request) -> Any:
    try:
        return app.create_url_adapter(req)
    except HTTPException:  # Flask 3.1 rejects an untrusted Host here as well
        return None


def _routes(adapter: Any, path: str) -> bool:
    try:
        return bool(adapter.test(path, "GET"))
    except HTTPException:  # a redirect-to-slash is a route too, but not this one
        return False


# ---------------------------------------------------------------------------
# The page's body and links: the data as the page shows it, its URLs as links
# ---------------------------------------------------------------------------
# Called from outside this section only by the page's context, BrowsableAPIRenderer's steps
# (_page_json, _linked_body, _markdown, _href, _breadcrumbs, _format_url, _relations,
# _linked_header), and by the late headers (_linked_header, _URL_HEADERS, _href), the plain
# forms (_parent_href) and the sign-in (_SAFE_TARGET).

#: A body with a list or object of more items than this is big: on its page each item of
#: a list or object of more than `_ITEMS_A_LINE` items is one compact line (see `_indented`).
#: Indenting every value made a 20,000-item list's page 7x the JSON's time and 3x its bytes,
#: and no easier to read.
_BIG_CONTAINER = 1000
_ITEMS_A_LINE = 100


class _BigBody(Exception):
    """`_indented` met a list or object of more than `_BIG_CONTAINER` items."""


def _answer_size(data: Any) -> int:
    """The bytes of ``data`` as JSON as an API client gets it by default, as the page says."""
    return len(_json_dumps(data).encode("utf-8", "backslashreplace"))


def _page_json(data: Any) -> str:
    """The data as the page shows it: as ``app.json.dumps(data, indent=4)`` writes it, or
    for a big body, with the items of its long lists and objects a line each.

    The standard library indents in pure Python, the costliest step of the page; for
    Flask's own JSON provider and JSON's own types, `_indented` writes the same text
    at twice the speed, with the C encoder for every scalar. Any other case (a type only
    the app's encoder knows, a provider of the app's own) is `_json_dumps`'s.
    """
    provider = getattr(_current_app._get_current_object(), "json", None)  # type: Any
    flasks_own = type(provider) is DefaultJSONProvider
    if not flasks_own and not _is_big(data):
        return _json_dumps(data, indent=4)  # its errors are the JSON client's, once
    try:
        if flasks_own:
            with contextlib.suppress(_BigBody):  # found on the way, where it is: no search
                return _indented(data, "\n", provider.sort_keys)
        encode = _compact_encoder(provider)
        return _indented(data, "\n", _sorts_keys(encode), encode)
    except (TypeError, ValueError, RecursionError):
        return _json_dumps(data, indent=4)


def _is_big(data: Any) -> bool:
    """True if the data has a list or object of more than `_BIG_CONTAINER` items. Each is
    looked at once: on data with a cycle, which has no JSON, the search ends too."""
    pending, seen = [data], set()
    while pending:
        value = pending.pop()
        if not isinstance(value, (dict, list, tuple)) or id(value) in seen:
            continue
        if len(value) > _BIG_CONTAINER:
            return True
        seen.add(id(value))
        pending.extend(value.values() if isinstance(value, dict) else value)
    return False


def _compact_encoder(provider: Any) -> Any:
    """A function writing compact JSON as `_json_dumps` does, fast to call once per item."""
    if type(provider) is DefaultJSONProvider:
        try:
            return _item_encoder(provider.default, provider.sort_keys)
        except TypeError:  # an unhashable default: no cached encoder
            pass
    return _json_dumps


def _sorts_keys(encode: Any) -> bool:
    """Whether the app's JSON sorts keys (``sort_keys``, ``JSON_SORT_KEYS``), asked of it."""
    return encode({"b": 0, "a": 0})[2] == "a"


_scalar_json = json.JSONEncoder(ensure_ascii=False).encode  # a TypeError for other types


def _indented(value: Any, newline: str, sort_keys: bool, encode: Any = None) -> str:
    """``json.dumps(value, indent=4)``'s text, or `_BigBody` for a big one. Given ``encode``
    (a big body), each item of a list or object of more than `_ITEMS_A_LINE` items is a line
    written by it."""
    inner = newline + "    "
    if isinstance(value, (dict, list, tuple)) and encode is None and len(value) > _BIG_CONTAINER:
        raise _BigBody()
    if isinstance(value, dict) and value:
        keys = sorted(value) if sort_keys else list(value)
        if any(type(key) is not str for key in keys):
            raise TypeError("non-string keys: the standard library's rules apply")
        if encode is not None and len(keys) > _ITEMS_A_LINE:
            return "{" + inner + ("," + inner).join([
                _scalar_json(key) + ": " + encode(value[key]) for key in keys]) + newline + "}"
        return "{" + ",".join(inner + _scalar_json(key) + ": " + _indented(
            value[key], inner, sort_keys, encode) for key in keys) + newline + "}"
    if isinstance(value, (list, tuple)) and value:
        if encode is not None and len(value) > _ITEMS_A_LINE:
            return "[" + inner + ("," + inner).join(map(encode, value)) + newline + "]"
        return "[" + ",".join(inner + _indented(item, inner, sort_keys, encode)
                              for item in value) + newline + "]"
    if encode is not None:
        return cast(str, encode(value))
    if isinstance(value, (dict, list, tuple, str, int, float)) or value is None:
        return _scalar_json(value)  # also {} and []
    raise TypeError("not one of JSON's types")


def _escape_text(text: str) -> str:
    """Text for an element's content, where only "&", "<" and ">" need escaping: markupsafe
    escapes quotes too, for attributes, and made a JSON body's page half again as big."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# URLs in the page's escaped text (`_escape_text`): a run of characters but space, '"',
# "<", ">", "\\", "&" and parentheses, with "&amp;" and balanced parentheses (``/wiki/A_(b)``)
# in it, that does not end in the punctuation of a sentence around it ("see 'http://x/a')."
# links http://x/a). Unrolled so that runs are matched in C.
_URL_RE = re.compile(r"(https?://{0}*(?:(?:&amp;|\({0}*\)){0}*)*(?<![.,;:!?'\]]))".format(
    r'[^\s"<>\\&()]'))


def _linked_body(text: str) -> Markup:
    """The body as HTML for the page's ``<pre>``, its URLs as links: the text escaped, then
    each (escaped) URL wrapped in a link, by C-level calls only (no Python per URL)."""
    parts = _URL_RE.split(_escape_text(text))  # text, URL, text, URL, ..., text
    parts[1::2] = map('<a href="{0}">{0}</a>'.format, parts[1::2])
    return Markup(_in_blocks("".join(parts)))


def _in_blocks(html: str) -> str:
    """HTML text of more than `_BLOCK` characters, cut at line ends into blocks, each laid
    out by the browser only when it scrolls into view (``content-visibility: auto``): with
    JavaScript off, a page of 100,000 items then shows in 1 s, not 26 s (Chromium's own view
    of the JSON: 4 to 6 s). The text itself is the same."""
    if len(html) <= _BLOCK:
        return html
    blocks, start = ['<span class="chunk">'], 0
    while start < len(html):
        end = html.find("\n", start + _BLOCK) + 1 or len(html)
        blocks += [html[start:end], '</span><span class="chunk">']
        start = end
    blocks[-1] = "</span>"
    return "".join(blocks)


_BLOCK = 65536  # characters of the body in one block of the page (`_in_blocks`)
# A link target the page (a header, a docstring) may link: http(s), or a reference without a scheme
# ("javascript:" has one); no space, control character, quote or "\".
_SAFE_TARGET = re.compile(r'(?:https?://|(?![A-Za-z][\w+.-]*:))[^\x00-\x20\x7f"<>\\]*\Z')


@functools.lru_cache(maxsize=256)
def _markdown(text: str) -> Optional[Markup]:
    """The docstring as HTML when Markdown is installed. The developer's text, but on every
    visitor's page: its raw HTML is shown as text, and its links lose script URLs."""
    if not (_markdown_lib and text):
        return None
    converter = _markdown_lib.Markdown()
    converter.preprocessors.deregister("html_block")  # raw HTML as text: Markdown 3's way
    converter.inlinePatterns.deregister("html")
    converter.treeprocessors.register(_WebLinksOnly(), "flask_api_links", -1)  # the last
    return Markup(converter.convert(text))


class _WebLinksOnly:
    """Markdown's last step on a docstring: a link or image keeps its URL only if it is http(s)
    or relative (`_SAFE_TARGET`) as a browser reads it, entities decoded (``&#106;avascript:``)."""

    def run(self, root: Any) -> None:
        for node in root.iter():
            for name in ("href", "src"):
                url = node.get(name)
                if url is not None and not _SAFE_TARGET.match(Markup(url).unescape()):
                    del node.attrib[name]


# What a link's path keeps as it is: RFC 3986's path characters. The rest ("\", "%",
# whitespace, control characters, non-ASCII) is percent-encoded: browsers read "\" as "/"
# and drop tabs and newlines, so "/\evil.test/" left as it is would be a link to evil.test.
_PATH_SAFE = "/:@!$&'()*+,;="
# A path that needs none of that: the common case, which skips quote() (a tenth of the page).
_PLAIN_PATH = re.compile(r"/(?!/)[\w/:@!$&'()*+,;=.~-]*\Z", re.ASCII)
_PLAIN_QUERY = re.compile(r"[\w/:@!$&'()*+,;=.~?%-]*\Z", re.ASCII)


def _href(path: str, query: Union[str, bytes] = "") -> str:
    """A link to this site's ``path`` (decoded, as in ``request.path``) and raw ``query``."""
    if _PLAIN_PATH.match(path) and (not query or (
            isinstance(query, str) and _PLAIN_QUERY.match(query))):
        return path + "?" + query if query else path
    href = quote(path, safe=_PATH_SAFE, errors="replace")
    if href.startswith("//"):  # "//evil.test/" is a link to another host
        href = "/%2F" + href[2:]
    if query:
        href += "?" + quote(query, safe=_PATH_SAFE + "?%")
    return href


def _breadcrumbs(app: Flask, req: Request) -> List[Tuple[str, str]]:
    """One link per path prefix that routes somewhere (``/things/``, else ``/things``),
    ending with this page."""
    crumbs = [("Home", _href(req.script_root + "/"))]
    segments = [segment for segment in req.path.split("/") if segment]
    adapter = None  # made only if there is a prefix to test
    for index, segment in enumerate(segments, 1):
        path = "/" + "/".join(segments[:index]) + "/"
        if index == len(segments):
            path = req.path
        else:
            adapter = adapter or _url_adapter(app, req)
            prefix = path
            for path in (prefix, prefix[:-1]):
                if adapter is not None and _routes(adapter, path):
                    break
            else:
                continue
        crumbs.append((segment, _href(req.script_root + path)))
    return crumbs


def _parent_href(app: Flask, environ: Dict[str, Any]) -> str:
    """The nearest path prefix that routes somewhere, as the breadcrumbs link it."""
    crumbs = _breadcrumbs(app, app.request_class(environ))
    return crumbs[-2][1] if len(crumbs) > 1 else crumbs[0][1]


def _format_url(app: Flask, req: Request, url_format: str) -> Optional[str]:
    """This URL with ``?format=`` set, other query arguments kept; None if turned off."""
    override = app.config.get("URL_FORMAT_OVERRIDE", "format")
    if not override:
        return None
    if not req.query_string:  # the common case: the query is the format alone
        return _href(req.script_root + req.path, _format_query(override, url_format))
    args = [(k, v) for k, v in req.args.items(multi=True) if k != override]
    return _href(req.script_root + req.path, urlencode(args + [(override, url_format)]))


@functools.lru_cache(maxsize=16)
def _format_query(override: str, url_format: str) -> str:
    return urlencode([(override, url_format)])


_URL_HEADERS = frozenset(["location", "content-location", "link"])
_LINK_TARGET_RE = re.compile(r"<([^<>]*)>")  # RFC 8288: <target>; rel="next", ...
_LINK_VALUE_RE = re.compile(r'<([^<>]*)>((?:[^,"<]|"[^"]*")*)')
_REL_RE = re.compile(r';\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))', re.IGNORECASE)
_REL_ORDER = {"first": 0, "prev": 1, "previous": 1, "next": 2, "last": 3}


def _linked_header(name: str, value: str) -> str:
    """A Location, Content-Location or Link header's value with its URLs as links."""
    if name.lower() != "link":
        return _link(value) if _SAFE_TARGET.match(value) else value
    parts = _LINK_TARGET_RE.split(value)  # text, target, text, target, ..., text
    return Markup("".join(
        "&lt;%s&gt;" % (_link(part) if _SAFE_TARGET.match(part) else escape(part))
        if index % 2 else escape(part) for index, part in enumerate(parts)))


def _link(url: str) -> Markup:
    """A link to ``url`` that shows it. (Here and in the page's other per-line markup, ``%``
    on escaped parts: a fifth of the bytecodes of ``Markup.format``, the same HTML.)"""
    url = escape(url)
    return Markup('<a href="%s">%s</a>' % (url, url))


def _relations(headers: Any) -> List[Tuple[str, str]]:
    """(rel, target) for each relation in the response's Link headers: first, prev,
    next and last in that order, then the others as given."""
    items = headers.items() if isinstance(headers, dict) else headers
    found = []
    for name, value in items:
        if str(name).lower() != "link":
            continue
        for target, params in _LINK_VALUE_RE.findall(str(value)):
            rel = _REL_RE.search(params)
            if rel and _SAFE_TARGET.match(target):
                found += [(word, target) for word in (rel.group(1) or rel.group(2)).split()]
    return sorted(found, key=lambda relation: _REL_ORDER.get(relation[0].lower(), 4))


# ---------------------------------------------------------------------------
# The page's context: (request, response, data) in, all the template shows out
# ---------------------------------------------------------------------------
# Public: BrowsableAPIRenderer, whose render, render_context, get_context and each of its
# steps (get_name, get_headers, ...: a subclass may override any) are called from outside, as
# is response_headers; and _script_json (the JSON blocks of the schema form and the sign-in).

class BrowsableAPIRenderer(BaseRenderer):
    """The HTML page a browser gets: the response, with forms to send more requests.

    Replace the page with the ``template`` attribute of a subclass (a template
    string), or name a template of the app in config ``BROWSABLE_API_TEMPLATE``;
    either may ``{% extends base %}`` and override its blocks. The page's own script and
    style are files a browser fetches once (block ``assets`` links them); what a template
    adds to blocks ``script`` and ``style`` is inline in the ``<head>``, and must be the
    same on every render: the Content-Security-Policy allows it by hash, computed on a
    template's first render.
    """

    media_type = "text/html"
    format = "api"
    template = None  # type: Optional[str]

    @property
    def response_headers(self) -> Sequence[Tuple[str, str]]:  # type: ignore[override]
        """No framing by other sites (clickjacking), and a CSP allowing only this page's script
        and style (its files, and the template's inline additions), and requests to the origins
        of its sign-in block (`get_auth`), which `get_context` keeps in the environ."""
        req = _request._get_current_object()
        inline = getattr(self.get_template(), "_flask_api_inline", _NO_INLINE)
        headers = _page_headers(req, inline)
        offer = req.environ.get(_AUTH_KEY)
        origins = offer.get("origins") if offer else None
        return _with_auth_origins(headers, tuple(origins)) if origins else headers

    def render(self, data: Any, media_type: MediaType, **options: Any) -> str:
        """The page; ``size``: the bytes of the answer it shows, if not its JSON's."""
        status = options.get("status_code") or HTTP_200_OK
        context = self.get_context(data, status, options.get("headers"))
        if not context["stream"]:  # a stream's page counts its items' bytes as they come
            context["size"] = options.get("size") or _answer_size(data)
        return self.render_context(context)

    def render_context(self, context: Dict[str, Any]) -> str:
        """The page for a `get_context` (which a caller may have changed); the template's
        first render also gives its CSP the hashes of any inline script and style it adds."""
        template = self.get_template()
        html = template.render(context)
        if not hasattr(template, "_flask_api_inline"):
            template._flask_api_inline = _inline_sources(html)
        return html

    def get_template(self) -> Any:
        """The compiled page, made once per app; a template named in config wins."""
        app = _current_app._get_current_object()
        name = app.config.get("BROWSABLE_API_TEMPLATE")
        if name:
            return app.jinja_env.get_template(name)
        return _compiled(app, self.template) if self.template else _page()

    def get_context(self, data: Any, status: int, headers: Any) -> Dict[str, Any]:
        """Everything the page shows, so the template stays logic-free: made of the steps
        below, each a method a subclass may override (as the route index does)."""
        app, req = _current_app._get_current_object(), _request._get_current_object()
        view = _view_for(app, req)
        allowed = self.get_allowed_methods(app, req, status, headers)
        stream = req.environ.get(_STREAM_KEY)  # a stream's page: its items follow it
        body = "" if stream else _page_json(data)
        description = self.get_description(view)
        schemas = self.get_schemas(app, req, allowed)
        auth = req.environ[_AUTH_KEY] = self.get_auth(app, req, allowed, headers)  # and late
        return {
            "base": _page(),
            "assets": _asset_urls(req.script_root),  # the URLs of the page's script and style
            "branding": app.config.get("BROWSABLE_API_BRANDING", "Flask API"),
            "title": self.get_name(view, status),
            "description": description,
            "description_html": _markdown(description),
            "root_url": _href(req.script_root + "/"),
            "breadcrumbs": self.get_breadcrumbs(app, req),
            "method": "GET" if req.method == "HEAD" else req.method,  # HEAD: GET's headers
            "path": _href(req.script_root + req.path, req.query_string),
            "status_line": "{} {}".format(status, _phrase(status)),
            "status_ok": is_success(status),
            "headers": self.get_headers(allowed, headers),
            "links": self.get_links(headers),
            "body": body,  # the text, for a template of your own
            "body_html": _linked_body(body),
            "allowed": allowed,
            "content": self.get_form_content(data, body, status, req.method),
            "schemas": schemas and _script_json(schemas),  # the JSON block the form comes from
            "auth": _offers(auth) and _script_json(auth),  # the JSON block of the sign-in
            "json_url": self.get_json_url(app, req),
            "stream": stream,
            "stream_url": stream and _format_url(app, req, _STREAM_FORMATS.get(stream, "jsonl")),
            "csrf_token": _csrf_token() if "csrf" in app.extensions else None,
        }

    def get_name(self, view: Any, status: int) -> str:
        """The page's title: the view's name (``NoteDetailView`` is "Note Detail")."""
        return _view_name(view) or _phrase(status) or "Error"

    def get_description(self, view: Any) -> str:
        """The view's docstring, up to a line ``---``; Markdown where it is installed."""
        return _view_doc(view)

    def get_breadcrumbs(self, app: Flask, req: Request) -> List[Tuple[str, str]]:
        """(name, href) for each path prefix that routes somewhere, ending with this page."""
        return _breadcrumbs(app, req)

    def get_allowed_methods(self, app: Flask, req: Request, status: int,
                            headers: Any) -> List[str]:
        """The methods the page offers forms for, as the ``Allow`` header lists them: the
        URL's, or those a 405 names itself (Flask-RESTful's, a view's own)."""
        if status == HTTP_405_METHOD_NOT_ALLOWED:
            named = sorted(parse_list_header(Headers(headers).get("Allow", "")))
            if named:
                return named
        return _allowed_methods(app, req)

    def get_headers(self, allowed: List[str], headers: Any) -> List[Tuple[str, str]]:
        """The response headers an API client gets, as the page lists them."""
        return _shown_headers(allowed, headers)

    def get_links(self, headers: Any) -> List[Tuple[str, str]]:
        """(rel, href) of the response's ``Link`` header, shown as buttons."""
        return _relations(headers) if headers else []

    def get_form_content(self, data: Any, body: str, status: int, method: str) -> str:
        """What the raw form's box starts with: an object the GET answered, to edit and send."""
        return body if (isinstance(data, dict) and method == "GET" and is_success(status)
                        and len(body) <= _RAW_CONTENT) else ""

    def get_json_url(self, app: Flask, req: Request) -> Optional[str]:
        """The "View as JSON" link: this URL with ``?format=json``; None for none."""
        return _format_url(app, req, "json")

    def get_schemas(self, app: Flask, req: Request, allowed: List[str]) -> Dict[str, Any]:
        """What the form's fields come from: ``{method: {"content": [media types], "schema":
        schema}}`` for each of POST, PUT and PATCH whose body the app's OpenAPI document
        describes with properties, each ``$ref`` resolved; {} for the form from the data. Read
        once per rule and document (see `_operation_schemas`)."""
        if not _BODY_METHODS.intersection(allowed):
            return {}
        rule = req.url_rule or _rule_for(app, req)
        cache = (app.extensions.get("flask_api_routes") or _described_routes(app)).schemas
        key = (id(rule), tuple(allowed))
        if key not in cache:
            cache[key] = _Schemas(_operation_schemas(app, rule, allowed) if rule else {})
        return cache[key]

    def get_auth(self, app: Flask, req: Request, allowed: List[str],
                 headers: Any) -> Dict[str, Any]:
        """What the page's sign-in offers: ``{"schemes", "operations", "challenges",
        "origins"}`` from the app's OpenAPI document and the response's WWW-Authenticate
        (the shape is `_auth_offer`'s); the page has its block if there is a scheme or a
        challenge. The document's part is read once per rule and document, the challenges
        per response."""
        return _auth_offer(app, req.url_rule or _rule_for(app, req), allowed, headers,
                           req.script_root)


#: The raw form's box is filled with a dict body up to this many characters: a bigger one
#: would double the page (the form tab takes its fields from the body itself).
_RAW_CONTENT = 65536


def _shown_headers(allowed: Iterable[str], headers: Any) -> List[Tuple[str, str]]:
    """The headers an API client gets with this response; the response's own win."""
    items = headers.items() if isinstance(headers, dict) else headers or []
    given = [(str(name), str(value)) for name, value in items]
    names = {name.lower() for name, _ in given}
    if names & _URL_HEADERS:  # their URLs are links, as the body's are
        given = [(name, _linked_header(name, value)) for name, value in given]
    shown = [("Content-Type", "application/json"), ("Vary", "Accept")]
    if allowed:
        shown.insert(0, ("Allow", ", ".join(sorted(allowed))))
    return [(name, value) for name, value in shown if name.lower() not in names] + given


def _script_json(data: Any) -> Markup:
    """Data as JSON for a ``<script type="application/json">`` block: "<", ">" and "&" as
    ``\\u`` escapes, so no text in it ends the block; keys in their order (a form's fields).
    A `_Schemas` has it written already."""
    return getattr(data, "script", None) or jinja2.utils.htmlsafe_json_dumps(
        data, json.dumps, default=str)


def _csrf_token() -> str:
    """The session's token when Flask-WTF's CSRFProtect guards the app: the page's
    requests carry it, so writes from the page pass the check."""
    from flask_wtf.csrf import generate_csrf  # only apps that use Flask-WTF get here
    return cast(str, generate_csrf())


# ---------------------------------------------------------------------------
# The page's responses: the template and its CSP, a response as the page, the index
# ---------------------------------------------------------------------------
# Called from outside this section through: _as_page (a response any view made, as the page:
# FlaskAPI, BrowsableAPI), _show_late_headers (_finish_rendered), _page_bytes and
# _UNSHOWN_HEADERS (a stream's page); _page, _compiled, _page_headers, _inline_sources,
# _asset_urls (BrowsableAPIRenderer's template, its headers and context); _ASSETS_PATH and
# _send_asset (the middleware: the page's script and style, as files a browser keeps).

@functools.lru_cache(maxsize=None)
def _page() -> Any:
    """The built-in page, compiled once, in an environment of its own: Flask's template
    globals, which Jinja copies into the context of every render, would cost the page
    about 4% and it uses none. (A subclass's ``template`` is the app's, with them.)"""
    environment = jinja2.Environment(autoescape=True)
    environment.globals.clear()
    return environment.from_string(_PAGE)


def _compiled(app: Flask, source: str) -> Any:
    cache = app.extensions.setdefault("flask_api_templates", {})
    if source not in cache:
        cache[source] = app.jinja_env.from_string(source)
    return cache[source]


# What the page may load and run: its own script and style, at their URLs (`_assets`) and
# no other of this site's, and any inline ones a template of the app's adds to its head (by
# hash); requests to this site; no plugin, no frame of it on another site, no <base>.
_CSP = ("default-src 'none'; script-src {}; style-src {}; connect-src 'self'; "
        "img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'")
_INLINE_RE = re.compile(r"<(script|style)>(.*?)</\1>", re.DOTALL)
# A Host header that can stand in a CSP source as it is: a name or address, and a port.
_PLAIN_HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?\Z")


def _inline_sources(html: str) -> Dict[str, str]:
    """The CSP sources of the inline scripts and styles in a page's ``<head>`` (none in
    what it shows), a template's own additions: ``{"script": " 'sha256-...'", "style": ""}``."""
    hashes = {"script": "", "style": ""}
    for tag, text in _INLINE_RE.findall(html, 0, html.find("</head>")):  # no </head>: none
        digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest())
        hashes[tag] += " 'sha256-{}'".format(digest.decode("ascii"))
    return hashes


_NO_INLINE = _inline_sources("")  # before a template's first render: none known


def _page_headers(req: Request, inline: Dict[str, str]) -> Tuple[Tuple[str, str], ...]:
    """The page's headers: no framing, its CSP, and the mark of a page its script swaps in."""
    try:
        host = req.host
    except SecurityError:  # a Host the app does not trust: its 400's page gets no files
        host = ""
    return _page_headers_for(host, req.script_root, inline["script"], inline["style"])


@functools.lru_cache(maxsize=64)  # a few hosts and roots an app is reached by; each a header
def _page_headers_for(host: str, root: str, *inline: str) -> Tuple[Tuple[str, str], ...]:
    """The page's headers for a host and root. The CSP names the page's script and style by
    their URL on the request's host, so that a script or style served from anywhere else on
    this site (an upload) cannot run or style it; a host that cannot stand in a CSP gets
    none, so then the page shows without them. ``inline``: the script's and style's sources
    of a template's additions."""
    plain = _PLAIN_HOST.match(host)
    sources = []
    for kind, added in zip(("script", "style"), inline):
        # ; and , end a CSP's directive and policy: in a URL's path they are escaped
        url = host + _asset_urls(root)[kind].replace(";", "%3B").replace(",", "%2C")
        sources.append(((url if plain else "") + added).strip() or "'none'")
    return (("X-Frame-Options", "SAMEORIGIN"),
            ("Content-Security-Policy", _CSP.format(*sources)),
            ("X-Flask-API-Page", "1"))


# The page's style and script are files of their own, so that a browser keeps them: each at
# a URL under the app's root that names a hash of its content, kept for a year without
# asking again ("immutable": a new version has a new URL), gzipped once for a browser that
# takes it. The middleware answers them before the app runs, as werkzeug's debugger serves
# its own files, so that no route of the app (``static_url_path=""``) and no hook (a sign-in
# every request must have) stands between a page and them.
_ASSETS_PATH = "/_flask_api/"
_ASSET_CACHE = "public, max-age=31536000, immutable"


class _Asset(typing.NamedTuple):
    """One of the page's files as it is served."""
    kind: str  # "script" or "style"
    body: bytes
    content_type: str
    etag: str  # the hash its URL names


# A whole line of comment in the page's script: a browser fetches the line empty. They are a
# quarter of its gzipped bytes; the line stays, so a line the browser names is the module's.
_SCRIPT_COMMENT_LINE = re.compile(r"^[ \t]*//.*$", re.MULTILINE)


@functools.lru_cache(maxsize=None)
def _assets() -> Dict[str, _Asset]:
    """The page's script and style by their URL's file name (``page.<hash>.js``), made once."""
    assets = {}
    for kind, text, extension, content_type in (
            ("script", _SCRIPT_COMMENT_LINE.sub("", _PAGE_SCRIPT), "js",
             "text/javascript; charset=utf-8"),
            ("style", _PAGE_STYLE, "css", "text/css; charset=utf-8")):
        body = text.encode("utf-8")
        digest = hashlib.sha256(body).hexdigest()[:20]
        assets["page.{}.{}".format(digest, extension)] = _Asset(kind, body, content_type, digest)
    return assets


@functools.lru_cache(maxsize=2)  # one for each file
def _gzipped(name: str) -> bytes:
    """An asset's body gzipped, once (no time stamp in it: the same bytes every time)."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9, mtime=0) as packed:
        packed.write(_assets()[name].body)
    return out.getvalue()


@functools.lru_cache(maxsize=16)  # the roots an app is reached under: one or two
def _asset_urls(root: str) -> Dict[str, str]:
    """The URLs of the page's script and style under an app's root (``request.script_root``),
    as the page links them."""
    return {asset.kind: _href(root + _ASSETS_PATH + name) for name, asset in _assets().items()}


def _send_asset(environ: Dict[str, Any], start_response: Any) -> Any:
    """Answer a request for one of the page's files: the file (gzipped if the browser takes
    it), a 304 if the browser has it, a 404 for any other name, a 405 for a method but GET."""
    req = Request(environ)
    name = req.path[len(_ASSETS_PATH):]
    asset = _assets().get(name)
    if asset is None or req.method not in ("GET", "HEAD"):
        code, detail = (404, NotFound.detail) if asset is None else (405, MethodNotAllowed.detail)
        response = Response(json.dumps({"detail": detail}), code, mimetype="application/json")
        if code == 405:
            response.headers["Allow"] = "GET, HEAD"
        return response(environ, start_response)
    packed = req.accept_encodings["gzip"] > 0
    response = Response(_gzipped(name) if packed else asset.body,
                        content_type=asset.content_type)
    response.headers.update({
        "Cache-Control": _ASSET_CACHE, "Vary": "Accept-Encoding",
        "X-Content-Type-Options": "nosniff", "Cross-Origin-Resource-Policy": "same-origin"})
    if packed:
        response.headers["Content-Encoding"] = "gzip"
    response.set_etag(asset.etag + ("-gzip" if packed else ""))  # a tag for each encoding
    return response.make_conditional(req)(environ, start_response)


# The headers of a JSON response that the page does not show: the page's own, and cookies,
# whose values a script could then read from the page even when they are HttpOnly.
_UNSHOWN_HEADERS = frozenset(["content-type", "content-length", "set-cookie"])


def _as_page(response: Response, renderer: BrowsableAPIRenderer,
             media_type: MediaType) -> Response:
    """For a request that negotiated the page: a JSON response made by any view, as the
    page; a 404 at the root, as the index of routes; a 401 of another type that asks for a
    sign-in (WWW-Authenticate), as the page with its body as text. Any other response
    stands."""
    if response.status_code == HTTP_404_NOT_FOUND and _wants_index():  # JSON 404s too
        return _index_page(renderer, media_type)
    if (response.mimetype == "application/json" and not response.direct_passthrough
            and not response.is_streamed):
        return _json_page(response, renderer, media_type)
    if response.mimetype in _STREAM_TYPES:
        return _stream_page(response, renderer, media_type)
    if (response.status_code == HTTP_401_UNAUTHORIZED and "WWW-Authenticate" in response.headers
            and not response.direct_passthrough and not response.is_streamed
            and "X-Flask-API-Page" not in response.headers):  # not the page already
        return _challenge_page(response, renderer, media_type)
    return response


def _json_page(response: Response, renderer: BrowsableAPIRenderer,
               media_type: MediaType) -> Response:
    """The page shown in place of a JSON response: its status, headers and data."""
    try:
        data = _json_loads(response.get_data(as_text=True))
    except (ValueError, RecursionError):  # not JSON after all: not ours to show
        return response
    code = response.status_code
    if code == HTTP_405_METHOD_NOT_ALLOWED and "Allow" not in response.headers:
        # RFC 9110 asks it of every 405; flask-smorest's error handler drops werkzeug's.
        app, req = _current_app._get_current_object(), _request._get_current_object()
        response.headers["Allow"] = ", ".join(_allowed_methods(app, req))
    headers = [(name, value) for name, value in response.headers
               if name.lower() not in _UNSHOWN_HEADERS]
    body = renderer.render(data, media_type, status=_status_line(code),
                           status_code=code, headers=headers, size=response.content_length)
    response.set_data(_page_bytes(body))
    response.content_type = renderer.content_type
    return _finish_rendered(response, renderer, headers)


def _challenge_page(response: Response, renderer: BrowsableAPIRenderer,
                    media_type: MediaType) -> Response:
    """The page shown in place of a 401 that is not JSON but asks for a sign-in (its
    WWW-Authenticate: Flask-HTTPAuth's default "Unauthorized Access", werkzeug's HTML
    401): its body as the text it came as, its own Content-Type listed, and the sign-in
    panel for its challenges."""
    text = response.get_data().decode("utf-8", "replace")
    headers = [(name, value) for name, value in response.headers
               if name.lower() not in ("content-length", "set-cookie")]
    context = renderer.get_context(text, HTTP_401_UNAUTHORIZED, headers)
    context.update(body=text, body_html=_linked_body(text), content="")
    response.set_data(_page_bytes(renderer.render_context(context)))
    response.content_type = renderer.content_type
    return _finish_rendered(response, renderer, headers)


#: Where the page lists headers added after it was rendered (see `_show_late_headers`).
_LATE_HEADERS = b"<!--flask-api: late headers-->"


def _show_late_headers(response: Response, given: Any) -> None:
    """Have the page list the headers its response gets once rendered: those of Flask's
    ``after_request`` hooks (Flask-CORS), or of a decorator around the view (Flask-HTTPAuth's
    ``WWW-Authenticate``). They are written in as the response is sent, at `_LATE_HEADERS`,
    unless a hook has compressed the body. Only pages pay for it, not JSON clients."""
    items = given.items() if isinstance(given, dict) else given or []
    shown = frozenset(str(name).lower() for name, _ in items)  # the view's own, listed
    # A partial of plain data pickles, so a cache can keep the page (Flask-Caching); the
    # cycle it makes through the response ends as the page is sent, which frees it then.
    response.get_wsgi_response = functools.partial(  # type: ignore[method-assign]
        _send_page, response, len(response.headers), shown)


def _send_page(response: Response, rendered: int, shown: FrozenSet[str],
               environ: Dict[str, Any]) -> Any:
    """The page's WSGI response, listing the headers added after its first ``rendered`` that
    it does not list by name already (a hook's Vary, changed once a session is saved)."""
    del response.get_wsgi_response  # the class's again: no cycle, and written in once
    if len(response.headers) > rendered:  # the view's own headers, at least, and maybe others
        headers = response.headers.to_wsgi_list()
        listed = shown.union(_UNSHOWN_HEADERS, (name.lower() for name, _ in headers[:rendered]))
        late = [(name, value) for name, value in headers[rendered:] if name.lower() not in listed]
        _write_late_headers(response, late)
        _write_late_challenges(response, late, environ)
    return response.get_wsgi_response(environ)


def _write_late_headers(response: Response, late: List[Tuple[str, str]]) -> None:
    """Write the ``late`` headers into the page (a stream's: into the part before its
    items, not yet sent), unless a hook has compressed it."""
    stream = response.response if isinstance(response.response, _PageStream) else None
    if (not late or (response.is_streamed and stream is None)
            or "Content-Encoding" in response.headers):
        return
    body = response.get_data() if stream is None else stream.head
    at = body.rfind(_LATE_HEADERS)
    if at >= 0:
        lines = "".join('<span class="key">%s:</span> %s\n' % (escape(name), escape(
            _linked_header(name, value) if name.lower() in _URL_HEADERS else value))
            for name, value in late)
        body = body[:at] + lines.encode("utf-8") + body[at:]
        if stream is None:
            response.set_data(body)
        else:
            stream.head = body


def _page_bytes(body: str) -> bytes:
    """The page as UTF-8; a lone surrogate in the data is escaped, as `_render` does."""
    try:
        return body.encode("utf-8")
    except UnicodeEncodeError:
        return body.encode("utf-8", "backslashreplace")


def _wants_index() -> bool:
    """A GET of the root that no route takes, on an app that keeps the index on."""
    req = _request._get_current_object()
    return (req.path == "/" and req.url_rule is None and req.method in ("GET", "HEAD")
            and _current_app.config.get("BROWSABLE_API_INDEX", True))


_INDEX_DOC = "The routes of this app; those without arguments are links."


class _RouteIndex:
    """The page's steps that differ for the index of routes, which has no JSON counterpart:
    no Content-Type to show, no "View as JSON"."""

    def get_name(self, view: Any, status: int) -> str:
        return "Routes"

    def get_description(self, view: Any) -> str:
        return _INDEX_DOC

    def get_headers(self, allowed: List[str], headers: Any) -> List[Tuple[str, str]]:
        return [("Vary", "Accept")]

    def get_json_url(self, app: Flask, req: Request) -> Optional[str]:
        return None


@functools.lru_cache(maxsize=16)  # one per page renderer class: a few per app
def _index_renderer(renderer_class: Any) -> BrowsableAPIRenderer:
    """The app's page renderer (its template, its steps), with the index's steps first."""
    return cast(BrowsableAPIRenderer, type("RouteIndex", (_RouteIndex, renderer_class), {})())


def _index_page(renderer: BrowsableAPIRenderer, media_type: MediaType) -> Response:
    """The page listing the app's routes, each a link where it takes no arguments."""
    app, req = _current_app._get_current_object(), _request._get_current_object()
    index = _index_renderer(cast(Any, type(renderer)))
    body = index.render_context(index.get_context(_route_index(app, req), HTTP_200_OK, []))
    response = app.response_class(_page_bytes(body), content_type=renderer.content_type)
    return _finish_rendered(response, renderer, [], fresh=True)


def _route_index(app: Flask, req: Request) -> List[Dict[str, Any]]:
    """Rule, methods and docstring's first line of each route but static files'."""
    index = []
    for described in _described_routes(app).routes:
        rule = described.rule
        route = {"rule": rule.rule, "methods": list(described.methods),
                 "doc": described.doc.partition("\n")[0]}  # type: Dict[str, Any]
        if not rule.arguments and "GET" in described.methods:
            route["url"] = req.host_url[:-1] + _href(req.script_root + rule.rule)
        index.append(route)
    url = app.config.get("OPENAPI_URL")
    if url and not any(route["rule"] == url for route in index):  # the document's own
        index.append({"rule": url, "methods": ["GET"], "doc": _view_doc(_openapi_response),
                      "url": req.host_url[:-1] + _href(req.script_root + url)})
        index.sort(key=lambda route: route["rule"])
    return index


# ---------------------------------------------------------------------------
# Streams: a view's generator, sent as its items come, and shown live on the page
# ---------------------------------------------------------------------------
# Public: JSONLinesRenderer, NDJSONRenderer, EventStreamRenderer, ServerSentEvent. Called from
# outside this section through: FlaskAPI._stream (_stream_offer, _stream_encoder,
# _event_writer, _streamed, _is_raw, _rejoined, _close, _bound_unread, _client_ready,
# _stream_page, _END_ID, _NO_ITEM), _as_page (_stream_page), the page's context (_STREAM_KEY,
# _STREAM_FORMATS), the late headers (_PageStream), the OpenAPI document (_STREAM_RENDERERS,
# _STREAM_TYPES), the template (_STREAM_ITEMS) and _item_encoder (_LINE_ENDS, _LINE_SAFE).

class JSONLinesRenderer(BaseRenderer):
    """JSON Lines: a stream's items a line of JSON each, as they come; a value alone, a line."""

    media_type = "application/jsonl"
    charset = None
    format = "jsonl"
    stream_opening = stream_closing = stream_prefix = stream_separator = ""
    stream_suffix = "\n"
    stream_error = "error: {}\n"  # a line no JSON value starts so: not an item, for any reader

    def render(self, data: Any, media_type: MediaType, **options: Any) -> str:
        """A value alone, a line, as a stream's items are written."""
        if has_app_context():
            line = _stream_encoder(_current_app._get_current_object())(data)
        else:  # a renderer used on its own
            line = _line_safe(json.dumps(data, ensure_ascii=False))
        return self.stream_prefix + line + self.stream_suffix


# Where a line reader may end a line: what str.splitlines() does that JSON does not escape,
# and the line ends a JSON writer of the app's own may put between tokens.
_LINE_ENDS = re.compile("[\n\r\x85\u2028\u2029]")
_LINE_SAFE = {0x0A: " ", 0x0D: " ", 0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def _line_safe(text: str) -> str:
    """JSON text on one line for every line reader: U+2028, U+2029 and U+0085, which JSON
    lets stand in strings, escaped; a newline, which valid JSON only has between tokens, a
    space."""
    return text.translate(_LINE_SAFE) if _LINE_ENDS.search(text) else text


class NDJSONRenderer(JSONLinesRenderer):
    """JSON Lines under its older name, for clients that ask for it."""

    media_type = "application/x-ndjson"
    format = "ndjson"


#: The id of the event that ends a stream (`ServerSentEvent.END`) or reports its error: a
#: request whose Last-Event-ID is this one, an EventSource's reconnection, gets a 204.
_END_ID = "flask-api:end"


class EventStreamRenderer(JSONLinesRenderer):
    """Server-sent events: a stream's items an event each, its data a line of JSON."""

    media_type = "text/event-stream"
    format = "sse"
    stream_prefix, stream_suffix = "data: ", "\n\n"
    # Not "error", which EventSource hands to its onerror with its own connection errors; the
    # id, as `ServerSentEvent.END`'s, has EventSource's reconnection answered with a 204.
    stream_error = "data: {}\nevent: stream-error\nid: " + _END_ID + "\n\n"
    response_headers = (("Cache-Control", "no-cache"),)  # a proxy's cached events are stale


# A view's stream: a generator (or any other iterator) of JSON values, sent as they come;
# one of str or bytes is Flask's own, sent as Flask sends it (see `FlaskAPI._stream`).
# The formats it is offered in, JSON's array first: what a client that names none gets.
_STREAM_RENDERERS = (JSONRenderer, JSONLinesRenderer, NDJSONRenderer, EventStreamRenderer)
_STREAM_HEADERS = (("X-Accel-Buffering", "no"),)  # nginx: pass each item on as it comes
_NO_ITEM = object()
_ITERATOR = collections.abc.Iterator
_RAW_ITEMS = (str, bytes, bytearray)  # what Flask's own streams are made of
_RESERVED_EVENTS = frozenset(["stream-end", "stream-error"])  # the stream's own


class ServerSentEvent:
    """A stream's item with a server-sent event's own fields: in server-sent events, its
    ``data`` (any JSON value) goes with its ``event`` (type), ``id`` (what a client sends back
    as Last-Event-ID when it reconnects) and ``retry`` (the reconnection delay in ms); the
    other formats write its data alone. ``ServerSentEvent.END`` ends a stream for good.

    What the standard cannot carry is refused here, not sent broken: an ``id`` or ``event``
    with a line end, an ``id`` with NUL, a ``retry`` that is no whole number of 0 or more.
    """

    __slots__ = ("data", "event", "id", "retry", "_fields")
    #: The id of `END` (and of the event that ends a stream with an error), reserved: a
    #: request whose Last-Event-ID is this one gets an empty 204 before the view's
    #: generator runs, which is how the standard tells EventSource to stop reconnecting.
    END_ID = _END_ID
    END: typing.ClassVar["ServerSentEvent"]  # yield it last: in server-sent events, the end said

    def __init__(self, data: Any, id: Any = None, event: Optional[str] = None,
                 retry: Optional[int] = None) -> None:
        self.data, self.retry = data, retry
        self.id = None if id is None else _event_field("id", id, "\r\n\0")
        self.event = None if event is None else _event_field("event", event, "\r\n")
        if self.id == _END_ID or self.event in _RESERVED_EVENTS:
            raise ValueError("{!r} is reserved for the events that end a stream: yield "
                             "ServerSentEvent.END to end one".format(id or event))
        if retry is not None and (type(retry) is not int or retry < 0):
            raise ValueError("retry is a delay in milliseconds, a whole number of 0 or more, "
                             "not {!r}".format(retry))
        self._fields = "".join("\n{}: {}".format(name, value) for name, value in (
            ("event", self.event), ("id", self.id), ("retry", retry)) if value is not None)

    def __repr__(self) -> str:
        if self is ServerSentEvent.END:
            return "ServerSentEvent.END"
        fields = "".join(", {}={!r}".format(name, getattr(self, name))
                         for name in ("id", "event", "retry") if getattr(self, name) is not None)
        return "ServerSentEvent({!r}{})".format(self.data, fields)


def _event_field(name: str, value: Any, refused: str) -> str:
    """An event's field as text, or a ValueError for what it cannot carry."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError("a ServerSentEvent's {} is text or a number, not {!r}".format(
            name, value))
    text = str(value)
    if any(character in text for character in refused):
        raise ValueError("a ServerSentEvent's {} cannot hold {}: {!r}".format(
            name, " or ".join(repr(character) for character in refused), text))
    text.encode("utf-8")  # a lone surrogate, which no byte can carry: UnicodeEncodeError
    return text


def _end_event() -> ServerSentEvent:
    """`ServerSentEvent.END`, made past the constructor's refusal of its reserved fields."""
    end = ServerSentEvent(None)
    end.event, end.id = "stream-end", _END_ID
    end._fields = "\nevent: stream-end\nid: " + _END_ID
    return end


ServerSentEvent.END = _end_event()


class _StreamEnd(Exception):
    """`ServerSentEvent.END` met: the stream is over, after ``text``, its event's (in
    server-sent events; nothing in the other formats)."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.text = text


def _event_data(item: Any) -> Any:
    """A stream item's JSON value: an event's data; `ServerSentEvent.END`, the end."""
    if not isinstance(item, ServerSentEvent):
        return item
    if item is ServerSentEvent.END:
        raise _StreamEnd()
    return item.data


@functools.lru_cache(maxsize=64)
def _with_events(default: Any) -> Any:
    """The app's JSON ``default``, which also writes a `ServerSentEvent` as its data: JSON
    meets one only where it has no type for it, so other items pay nothing for events."""
    return lambda value: (_event_data(value) if isinstance(value, ServerSentEvent)
                          else default(value))


def _event_writer(encode: Any) -> Any:
    """Server-sent events' items: an event's data, then its own fields; any other, its JSON."""
    def write(item: Any) -> str:
        if not isinstance(item, ServerSentEvent):
            return encode(item)
        text = encode(item.data) + item._fields  # type: str
        if item is ServerSentEvent.END:
            raise _StreamEnd(text)
        return text
    return write


def _is_raw(first: Any, headers: Any) -> bool:
    """Whether a view's stream is Flask's own: its first item text or bytes, or no item and
    a Content-Type of the view's. A stream of JSON values cannot have a Content-Type of the
    view's, which its negotiated format would replace: that is refused, before it is sent."""
    if isinstance(first, _RAW_ITEMS):
        return True
    named = headers is not None and "Content-Type" in Headers(headers)
    if named and first is not _NO_ITEM:
        raise TypeError("A stream of JSON values is sent as the client asks (JSON, JSON Lines "
                        "or server-sent events), in a Content-Type of its own, but the view "
                        "names one: leave it out, or yield str or bytes to send your own "
                        "format, as Flask does (the first item was {}).".format(
                            type(first).__name__))
    return named


def _rejoined(first: Any, items: Any) -> Any:
    """The items again, the ``first`` already taken included; closing it closes them. It
    is started here, so that a close before the server reads it closes them too (a HEAD)."""
    def rejoined() -> Any:
        try:
            yield None
            if first is not _NO_ITEM:
                yield first
                yield from items
        finally:
            _close(items)
    body = rejoined()
    next(body)
    return body


def _close(items: Any) -> None:
    close = getattr(items, "close", None)
    if close is not None:
        close()


@functools.lru_cache(maxsize=64)
def _stream_offer(renderers: Tuple[BaseRenderer, ...]) -> Tuple[BaseRenderer, ...]:
    """A stream's formats, and the page if the view's renderers have it."""
    pages = [renderer for renderer in renderers if isinstance(renderer, BrowsableAPIRenderer)]
    return _resolve(_STREAM_RENDERERS, "renderers") + tuple(pages[:1])


def _stream_encoder(app: Flask) -> Any:
    """Each item's JSON on one line, as the app's JSON settings write it (``ensure_ascii``
    and ``sort_keys`` included), without the app's context, which is gone by the time a
    stream is read (unless the view used ``stream_with_context``)."""
    provider = getattr(app, "json", None)  # Flask 2.2+
    if type(provider) is DefaultJSONProvider:
        ascii_only = bool(provider.ensure_ascii)  # ASCII JSON has no line end to escape
        try:
            return _item_encoder(_with_events(provider.default), provider.sort_keys,
                                 ascii_only, not ascii_only)
        except TypeError:  # an unhashable default: no cached encoder
            pass
    if provider is None:  # Flask 1.1 to 2.1: its settings, JSON_AS_ASCII and JSON_SORT_KEYS
        dumps = functools.partial(flask_json.dumps, app=app)
    else:
        dumps = provider.dumps
    return lambda item: _line_safe(dumps(_event_data(item)))


def _streamed(first: Any, items: Any, renderer: Any, encode: Any, app: Flask,
              where: str, ready: Any = None) -> Any:
    """The body of a stream: its items' JSON in the renderer's framing, as they come, the
    ``first`` already made. It yields None first, once the first item is written: until
    then, an error is the request's (an item that is no JSON, a 500). After it, an error
    ends the stream as the format can tell it, and is logged. `ServerSentEvent.END` ends it
    (said so in server-sent events), and nothing after it is read. The items are closed
    however it ends: a client gone closes it too, and so does one that has left it unread
    (``ready()`` false: see `_client_ready`), with a warning, one line."""
    prefix, suffix = renderer.stream_prefix, renderer.stream_suffix
    before = renderer.stream_separator + prefix
    try:
        head = renderer.stream_opening
        try:
            if first is not _NO_ITEM:
                head += prefix + encode(first) + suffix
        except _StreamEnd as end:  # the first item is the end: no more are read
            head, first = head + (end.text and prefix + end.text + suffix), _NO_ITEM
        yield None
        try:
            if head:
                yield head.encode("utf-8", "backslashreplace")
            for text in map(encode, items if first is not _NO_ITEM else ()):
                if ready is not None and not ready():
                    app.logger.warning("The stream of %s was cut: its client had left it "
                                       "unread for STREAM_WRITE_TIMEOUT", where)
                    return
                yield (before + text + suffix).encode("utf-8", "backslashreplace")
        except _StreamEnd as end:
            if end.text:
                yield (before + end.text + suffix).encode("utf-8", "backslashreplace")
        except Exception as exc:
            app.logger.error("Exception in the stream of %s", where, exc_info=exc)
            if renderer.stream_error is not None:
                yield renderer.stream_error.format(_stream_error(exc)).encode()
            return
        if renderer.stream_closing:
            yield renderer.stream_closing.encode()
    finally:
        _close(items)


# Where a WSGI server hands the app its client's socket: gunicorn's workers, werkzeug's server.
_SERVER_SOCKETS = ("gunicorn.socket", "werkzeug.socket")


def _bound_unread(response: Response, environ: Dict[str, Any], app: Flask) -> Response:
    """``STREAM_WRITE_TIMEOUT`` (seconds), where the server hands over its client's socket,
    as the socket's timeout while the stream is sent: a write its client leaves unread that
    long fails as a write to a client gone does, which closes the stream and frees the
    worker or thread. The socket's own timeout is back once the stream is closed."""
    seconds = app.config.get("STREAM_WRITE_TIMEOUT")
    sock = next(filter(None, map(environ.get, _SERVER_SOCKETS)), None)
    if seconds is not None and sock is not None:
        response.call_on_close(functools.partial(_set_timeout, sock, sock.gettimeout()))
        sock.settimeout(seconds)
    return response


def _client_ready(environ: Dict[str, Any], app: Flask) -> Any:
    """Where `_bound_unread` applies to a real socket, and poll() is there: a function that
    waits until the client's socket can take a write, ``STREAM_WRITE_TIMEOUT`` at most, and
    says whether it can; if not, it shuts the socket, so that the server's next write finds
    the client gone.
    A stream's items are each far smaller than the socket's buffer, so a client that stops
    reading is found here, before a write, rather than by the write's own timeout, which
    gunicorn logs as an error, traceback and all. None elsewhere."""
    seconds = app.config.get("STREAM_WRITE_TIMEOUT")
    sock = next(filter(None, map(environ.get, _SERVER_SOCKETS)), None)  # type: Any
    if seconds is None or not hasattr(sock, "fileno") or not hasattr(select, "poll"):
        return None
    poller = select.poll()
    poller.register(sock, select.POLLOUT)

    def ready() -> bool:
        if poller.poll(seconds * 1000):
            return True
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        return False
    return ready


def _set_timeout(sock: Any, seconds: Optional[float]) -> None:
    with contextlib.suppress(OSError):  # a socket the server has closed already
        sock.settimeout(seconds)


def _stream_error(exc: Exception) -> str:
    """The ``{"detail": ...}`` of an error in a stream: an API or HTTP error's own, else
    that of a 500, which tells the client nothing of the server's insides."""
    if isinstance(exc, APIException):
        detail = exc.detail
    else:
        error = exc if isinstance(exc, HTTPException) else default_exceptions[500]()
        detail = error.description
    return _line_safe(json.dumps({"detail": detail}, ensure_ascii=False, default=str))


#: The media types of a stream of JSON items, which the page shows as they arrive.
_STREAM_TYPES = frozenset(["text/event-stream", "application/jsonl", "application/x-ndjson"])
_STREAM_KEY = "flask_api.stream"  # in the environ of a stream's page: the stream's type
_STREAM_FORMATS = {"text/event-stream": "sse", "application/x-ndjson": "ndjson"}  # else jsonl
#: On a stream's page, an item (a line of JSON Lines, an event's data) past this many bytes
#: keeps only its first ones, and says how many it had: the rest is counted, never held, so
#: that a line without end fills neither the server's memory nor the tab's.
_ITEM_BYTES = 1024 * 1024
#: A stream's page carries this many bytes of items at the most, then ends, and says so:
#: Chromium keeps what a page loads until its load ends (a page that drops each item once
#: read still grows by its bytes), so an endless stream would fill the tab. The page's script
#: reads a page it fetches without keeping it, and lifts the bound with the request header
#: ``X-Flask-API-Page: fetch`` (see `_PAGE_FETCH`).
_PAGE_ITEMS_BYTES = 64 * 1024 * 1024
#: And this many items at the most: without JavaScript every item stays in the document, its
#: nodes weighing far more than its bytes (measured in Chromium: 1,000,000 items of 14 bytes,
#: 14 MB of stream, held 3.2 GB of heap; 100,000, 330 MiB), so a flood of small items would
#: fill the tab long before its bytes reach `_PAGE_ITEMS_BYTES`.
_PAGE_ITEMS = 100000
_PAGE_FETCH = "fetch"
#: What a stream's page is sent with besides the view's headers: no cache may keep a page
#: that is one moment of a stream, and nginx must pass each item on as it comes.
_STREAM_PAGE_HEADERS = (("Cache-Control", "no-store"), ("X-Accel-Buffering", "no"))


def _stream_page(response: Response, renderer: BrowsableAPIRenderer,
                 media_type: MediaType) -> Response:
    """The page shown in place of a stream, sent as the stream comes: the page, then each
    item as it arrives, then how the stream ended (see `_PageStream`). So the view runs
    once, for the page, whose items show without JavaScript too; its script takes them
    from there. The page's mark says "stream", for the script that fetches one."""
    _request.environ[_STREAM_KEY] = response.mimetype
    code = response.status_code
    kept = [(name, value) for name, value in response.headers
            if name.lower() not in _UNSHOWN_HEADERS]
    shown = kept + [("Content-Type", response.content_type)]
    html = renderer.render(None, media_type, status=_status_line(code),
                           status_code=code, headers=shown)
    page = _current_app.response_class(_PageStream(html, response), status=code,
                                       content_type=renderer.content_type)
    page.call_on_close(response.close)  # whatever a hook wraps the body in
    page.headers.extend(kept)
    for name, value in _STREAM_PAGE_HEADERS:  # before the late headers are counted
        page.headers.set(name, value)
    _finish_rendered(page, renderer, shown)
    page.headers.set("X-Flask-API-Page", "stream")
    return page


#: Where the page's template puts a stream's items: last in its body, after all the page
#: shows, so that the page is whole while the items still come.
_STREAM_ITEMS = "<!--flask-api: stream items-->"
_ITEMS_OPENING = Markup(
    '<section id="api-items" class="wrap stream-items" aria-labelledby="api-items-title">\n'
    '<h2 id="api-items-title">The stream\'s items, as they arrive</h2>\n'
    '<ol id="api-items-list">\n')  # this line, alone: where a fetched page's items start
_ITEMS_CLOSING = Markup("</section>\n")


class _PageStream:
    """A stream's page as the body that sends it: the page up to its items' place, each
    item as `_StreamItems` reads it from the stream, how the stream ended, and the rest of
    the page. An error of the app's stream ends it on the page, and is logged. The page's
    response closes the stream when it is closed (the page sent, a client gone, a HEAD):
    the view's generator too."""

    def __init__(self, html: str, source: Response) -> None:
        at, end = html.find(_STREAM_ITEMS), len(_STREAM_ITEMS)
        if at < 0:  # a template of the app's without the place: the end of its body
            at, end = html.rfind("</body>"), 0
        at = len(html) if at < 0 else at
        self.head, self.tail = _page_bytes(html[:at]), _page_bytes(html[at + end:])
        self.source, self.app = source, _current_app._get_current_object()
        self.where = "{} [{}]".format(_request.path, _request.method)  # for the log
        fetched = _request.headers.get("X-Flask-API-Page") == _PAGE_FETCH
        self.most = None if fetched else _PAGE_ITEMS_BYTES  # type: Optional[int]
        self.most_items = None if fetched else _PAGE_ITEMS  # type: Optional[int]
        self.parts = iter(())  # type: Any

    def __iter__(self) -> Any:
        self.parts = self._parts()
        return self.parts

    def _parts(self) -> Any:
        items = _StreamItems(self.source.mimetype == "text/event-stream", self.most_items)
        yield self.head + _ITEMS_OPENING.encode("utf-8")
        cause, sent = None, 0  # type: Optional[str], int
        try:
            for chunk in self.source.iter_encoded():
                html = items.read(chunk)
                sent += len(html)
                if html:
                    yield html
                if items.full or self.most is not None and sent >= self.most:
                    cause = "full"  # the rest is not read: the stream is closed with the page
                    break
        except Exception as exc:  # the app's generator failed: no item comes after this
            self.app.logger.error("Exception in the stream of %s", self.where, exc_info=exc)
            cause = "broke"
        yield items.end(cause) + _ITEMS_CLOSING.encode("utf-8") + self.tail

    def close(self) -> None:
        close = getattr(self.parts, "close", None)
        if close is not None:
            close()


_EVENT_LINE_ENDS = re.compile(b"\r\n|\r|\n")  # server-sent events' (JSON Lines': LF, CR LF)
_Item = Tuple[str, Tuple[Tuple[str, str], ...], int]  # a stream's item: data, fields, size
_DIGITS = re.compile("[0-9]+")
_utf8 = codecs.getincrementaldecoder("utf-8")


class _StreamItems:
    """A stream's items as its page shows them, from its bytes as they arrive: an ``<li>``
    each, its data and fields escaped by markupsafe. A line (or an event's data) past
    `_ITEM_BYTES` bytes keeps only its first ones. JSON Lines' lines end at LF or CR LF
    (JSON Lines says so); server-sent events are read as the HTML standard says. The error
    a stream ends with (`_error_detail`) is held back, and shown as the stream's end only
    if nothing follows it: data that looks like one is an item like any other. Past ``most``
    items (None: no bound), an item is not shown: the stream is ``full``."""

    def __init__(self, sse: bool, most: Optional[int] = None) -> None:
        self.sse, self.first = sse, True
        self.most, self.full = most, False
        self.held, self.size = b"", 0  # the line so far: its first _ITEM_BYTES bytes, its size
        self.after_cr = False  # the last piece ended with CR: an LF first in the next ends nothing
        self.bytes = self.count = 0
        self.error = None  # type: Optional[_Item]
        self.out = []  # type: List[Markup]
        self.data = []  # type: List[bytes]  # the event's data lines, up to _ITEM_BYTES
        self.data_size, self.event, self.retry = 0, "", ""
        self.id, self.last_id = "", ""  # an event's "id:" field, and the last id dispatched

    def read(self, chunk: bytes) -> bytes:
        """The page's HTML for the items that ``chunk`` ends (b"" for none)."""
        self.bytes += len(chunk)
        for line, size in self._lines(chunk):
            if self.full:  # the page ends before this line: nothing after it is read
                break
            self._line(line, size)
        return self._html()

    def end(self, cause: Optional[str] = None) -> bytes:
        """The rest of the items, then how the stream ended: at its end (the last line of
        JSON Lines counts without its LF; an event without its blank line does not, as the
        standard says), or ``cause``: "broke" (the app's stream failed), "full" (the page)."""
        if not self.sse and cause is None and self.size:
            self._line(self.held, self.size)
        if cause is not None and self.error is not None:  # not the stream's last, then
            self._show(self.error)
            self.error = None
        detail = None if self.error is None else _error_detail(self.error, self.sse)
        return self._html() + _ending(self.count, self.bytes, self.last_id if self.sse else None,
                                      detail, cause).encode("utf-8")

    def _lines(self, chunk: bytes) -> List[Tuple[bytes, int]]:
        """The lines ``chunk`` ends, each (its first _ITEM_BYTES bytes, its size)."""
        if self.after_cr and chunk[:1] == b"\n":  # the LF of a CR LF split in two
            chunk = chunk[1:]
        self.after_cr = self.sse and chunk[-1:] == b"\r"
        parts = _EVENT_LINE_ENDS.split(chunk) if self.sse else chunk.split(b"\n")
        lines = []
        for part in parts[:-1]:  # each part but the last ends a line
            self._add(part)
            lines.append((self.held, self.size))
            self.held, self.size = b"", 0
        self._add(parts[-1])
        return lines

    def _add(self, part: bytes) -> None:
        """Add a part of a line: kept up to _ITEM_BYTES bytes, counted whole."""
        if len(self.held) < _ITEM_BYTES:
            self.held += part[:_ITEM_BYTES - len(self.held)]
        self.size += len(part)

    def _line(self, line: bytes, size: int) -> None:
        """One line, as JSON Lines or an event stream reads it; a BOM first in a stream goes."""
        if self.first:
            self.first = False
            if line.startswith(codecs.BOM_UTF8):
                line, size = line[3:], size - 3
        if self.sse:
            self._event_line(line, size)
        elif line.endswith(b"\r") and len(line) == size:  # CR LF
            self._line_item(line[:-1], size - 1)
        else:
            self._line_item(line, size)

    def _line_item(self, line: bytes, size: int) -> None:
        """A line of JSON Lines: an item, unless it is blank."""
        if line.strip():
            self._offer((_text(line, size), (), size))

    def _event_line(self, line: bytes, size: int) -> None:
        """A line of an event stream: a field of the event it builds, or its end (a blank
        line); a comment (":" first) and any other field are ignored."""
        if not line:
            self._dispatch()
            return
        field, _, value = line.partition(b":")
        if value[:1] == b" ":
            value = value[1:]
        size -= len(line) - len(value)  # the value's: a cut line's rest is its value's
        if field == b"data":
            self._event_data(value, size)
        elif field == b"event":
            self.event = _text(value, size)
        elif field == b"id" and b"\0" not in value:
            self.id = _text(value, size)
        elif field == b"retry" and _DIGITS.fullmatch(value.decode("latin-1")):
            self.retry = value.decode("ascii")

    def _event_data(self, value: bytes, size: int) -> None:
        """A data line: joined to the event's others by LF, up to _ITEM_BYTES bytes."""
        joined = 1 if self.data else 0  # the LF before it
        if self.data_size < _ITEM_BYTES:
            self.data.append(value)
        self.data_size += joined + size

    def _dispatch(self) -> None:
        """An event's end: an item, if it has data (each event keeps the last id seen)."""
        shown_id, self.last_id = self.last_id, self.id
        if self.data:
            size = self.data_size
            fields = tuple((name, value) for name, value in (
                ("event", self.event), ("id", self.last_id), ("retry", self.retry)) if value)
            self._offer((_text(b"\n".join(self.data)[:_ITEM_BYTES], size), fields, size))
            if self.full:  # not on the page: a resume goes on from the last one that is
                self.last_id = shown_id
        self.data, self.data_size, self.event, self.retry = [], 0, "", ""

    def _offer(self, item: _Item) -> None:
        """Show an item; hold back one that may be the stream's error, until another comes.
        The event that says the stream is finished (`ServerSentEvent.END`) is not an item."""
        if self.sse and ("event", "stream-end") in item[1]:
            return
        if self.error is not None:
            self._show(self.error)
            self.error = None
        if _error_detail(item, self.sse) is None:
            self._show(item)
        else:
            self.error = item

    def _show(self, item: _Item) -> None:
        if self.most is not None and self.count >= self.most:
            self.full = True  # one more than the page carries: it ends here
            return
        self.count += 1
        self.out.append(_item_html(*item))

    def _html(self) -> bytes:
        html, self.out = Markup("").join(self.out), []
        return html.encode("utf-8")


def _text(data: bytes, size: int) -> str:
    """A stream's bytes as text, as browsers decode UTF-8: a byte that is not is U+FFFD; of
    bytes cut short of their ``size``, a character cut in two at the end goes."""
    if size > len(data):
        return cast(str, _utf8("replace").decode(data, False))
    return data.decode("utf-8", "replace")


_JSON_LINES_ERROR = "error: "  # then {"detail": ...}: no JSON value starts so


def _error_detail(item: _Item, sse: bool) -> Optional[str]:
    """The detail of the error that ends a stream, if ``item`` has its shape: an event
    ``stream-error`` (its data's "detail", or its data), or a JSON Lines line "error: "
    then a {"detail": ...} object. No JSON value can start "error", nor an event of data
    be named so by chance."""
    data, fields, _ = item
    if sse:
        if ("event", "stream-error") not in fields:
            return None
        detail = _detail(data)
        return data if detail is None else detail
    if not data.startswith(_JSON_LINES_ERROR):
        return None
    return _detail(data[len(_JSON_LINES_ERROR):])


def _detail(text: str) -> Optional[str]:
    """The "detail" of a JSON object, as text (JSON if it is not a string); None if none."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or "detail" not in value:
        return None
    detail = value["detail"]
    return detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)


_ITEM = "<li>%s</li>\n"  # data alone, escaped: fewer nodes for the browser to make
_ITEM_WITH_FIELDS = Markup('<li{}><span class="key">{}</span> <span class="data">{}</span></li>\n')
_ITEM_FIELD = Markup(' data-{}="{}"')
_NEWLINES = {"\n": Markup("&#10;"), "\r": Markup("&#13;")}  # an item is a line of the page
_LINE_END = re.compile("[\r\n]")


def _item_html(data: str, fields: Tuple[Tuple[str, str], ...], size: int) -> Markup:
    """An item as its page's ``<li>``: its data (a line of the page: line ends as references),
    its fields (event, id, retry) shown and in data attributes, and if cut, its size."""
    text = data  # type: Union[str, Markup]  # escaped by escape() below, unless done here
    if "\n" in data or "\r" in data:
        text = Markup(_LINE_END.sub(lambda found: _NEWLINES[found.group()], Markup.escape(data)))
    if not fields and size <= _ITEM_BYTES:
        return Markup(_ITEM % escape(text))
    shown = ["{}: {}".format(name, value) for name, value in fields]
    if size > _ITEM_BYTES:
        fields += (("bytes", str(size)),)
        shown.append("(cut: its first {:,} bytes of {:,})".format(len(data.encode("utf-8")), size))
    attributes = Markup("").join(_ITEM_FIELD.format(name, value) for name, value in fields)
    return _ITEM_WITH_FIELDS.format(attributes, " \u00b7 ".join(shown), text)


_ENDINGS = {"ended": "Ended", "error": "Ended with an error: {}",
            "broke": "Broke off: the app's stream failed (the server's log says why)",
            "full": "Stopped: a page carries {:,} of a stream's items, or {:,} bytes of them, at "
                    "the most (a browser keeps all a page loads until it ends)".format(
                        _PAGE_ITEMS, _PAGE_ITEMS_BYTES)}


def _ending(count: int, size: int, last_id: Optional[str], detail: Optional[str],
            cause: Optional[str]) -> Markup:
    """How a stream ended, on its page: its items counted and bytes; for the script, how in
    ``data-end`` ("ended", "error", or a ``cause``: "broke", "full"), its bytes, the error's
    detail and, for an event stream, the last id (to resume from)."""
    end = cause or ("ended" if detail is None else "error")
    said = _ENDINGS[end].format(detail) if end == "error" else _ENDINGS[end]
    attributes = [("end", end), ("bytes", str(size))]
    if detail is not None:
        attributes.append(("detail", detail))
    if last_id is not None:
        attributes.append(("last-id", last_id))
    return Markup('</ol>\n<p class="stream-end{}"{}>{} \u00b7 {:,} {} \u00b7 {:,} {}</p>\n').format(
        "" if end == "ended" else " error",
        Markup("").join(_ITEM_FIELD.format(name, value) for name, value in attributes),
        said, count, "item" if count == 1 else "items", size, "byte" if size == 1 else "bytes")


# ---------------------------------------------------------------------------
# The application and the decorators
# ---------------------------------------------------------------------------
# Public: FlaskAPI, set_parsers, set_renderers. _DEFAULT_PARSERS and _DEFAULT_RENDERERS are
# read by BrowsableAPI, the plain forms and the 3.x APISettings too.

#: What an app that names none parses and renders: FlaskAPI's config, BrowsableAPI, the page's
#: plain forms and Flask-API 3.x's APISettings all read them here. JSON first: a client that
#: takes anything gets JSON.
_DEFAULT_PARSERS = (JSONParser, URLEncodedParser, MultiPartParser)
_DEFAULT_RENDERERS = (JSONRenderer, BrowsableAPIRenderer)


_SAFE_METHODS = frozenset(["GET", "HEAD", "OPTIONS", "TRACE"])


def _split_result(rv: Any) -> Tuple[Any, Any, Any]:
    """A view's return value as (body, status, headers), as Flask reads tuples."""
    size = len(rv) if isinstance(rv, tuple) else 0
    if size == 2:
        second = rv[1]
        if isinstance(second, (dict, list, tuple)) or hasattr(second, "to_wsgi_list"):
            return rv[0], None, second
        return rv[0], second, None
    return rv if size == 3 else (rv, None, None)


class _HTTPError(APIException):
    """A werkzeug HTTP error (an unknown route, a 405, a 413) as an `APIException`, so
    that ``handle_api_exception`` can read ``detail`` and ``status_code`` of every error."""

    def __init__(self, error: HTTPException) -> None:
        self.status_code = error.code or HTTP_500_INTERNAL_SERVER_ERROR
        self.http_exception = error
        super().__init__(error.description)

    def get_headers(self) -> Headers:  # type: ignore[override]
        """werkzeug's headers (``Allow`` on a 405), but its HTML Content-Type."""
        return Headers([(name, value) for name, value in self.http_exception.get_headers()
                        if name.lower() != "content-type"])


def _by_code(exc: APIException) -> HTTPException:
    """werkzeug's error for an `APIException`'s status code, carrying it along, so that
    handlers registered by code (``@app.errorhandler(404)``) see it as they see abort()."""
    error = default_exceptions.get(exc.status_code, HTTPException)(description=exc.detail)
    error.code = exc.status_code
    error.api_exception = exc  # type: ignore[attr-defined]
    return error


#: How Flask puts a view's tuple's headers on its response: Flask 2.0 (which brought
#: ``ensure_sync``) replaces those of the same name, Flask 1.1 adds them beside.
_REPLACES_HEADERS = hasattr(Flask, "ensure_sync")


def _as_flask_finishes(response: Response, status: Any, headers: Any) -> Response:
    """A rendered response with a view's tuple's status and headers, as Flask's
    ``make_response`` puts them on one: a status text keeps its own reason phrase. (Handing
    the tuple back to Flask would cost a list with headers a tenth of its time.)"""
    if status is not None and isinstance(status, (str, bytes, bytearray)):
        response.status = status  # type: ignore[assignment]
    if headers:
        if _REPLACES_HEADERS:
            response.headers.update(headers)
        else:
            response.headers.extend(headers)
    return response


class FlaskAPI(Flask):
    """Flask, where views may return lists and dicts rendered by content negotiation."""

    request_class = APIRequest
    response_class = APIResponse

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.config.setdefault("DEFAULT_PARSERS", list(_DEFAULT_PARSERS))
        self.config.setdefault("DEFAULT_RENDERERS", list(_DEFAULT_RENDERERS))
        self.config.setdefault("URL_FORMAT_OVERRIDE", "format")
        self.config.setdefault("BROWSABLE_API_BRANDING", "Flask API")
        self.api_settings = APISettings(self.config)
        self.register_error_handler(APIException, self._handle_by_code)
        self.register_error_handler(HTTPException, self._handle_http_exception)
        self.wsgi_app = _Middleware(self.wsgi_app, self)  # type: ignore[method-assign]
        _add_openapi_command(self)

    def openapi(self) -> Dict[str, Any]:
        """This app's OpenAPI 3.1 document, as served at ``OPENAPI_URL``."""
        return openapi_document(self)

    def make_response(self, rv: Any) -> Response:
        """Render a list or dict (alone or in a Flask tuple), then let Flask finish."""
        try:
            if isinstance(rv, _DATA):  # the common case: nothing left for Flask to do
                return self.render_response(rv, HTTP_200_OK)
            if isinstance(rv, self.response_class):  # a response, finished: as Flask returns it
                return self._browsable(rv)
            body, status, headers = _split_result(rv)
            if body is None and status is not None and _status_code(status) == HTTP_204_NO_CONTENT:
                return super().make_response(self._no_content(headers) + (headers,))
            elif isinstance(body, _DATA):
                code = HTTP_200_OK if status is None else _status_code(status)
                return _as_flask_finishes(self.render_response(body, code, headers), status,
                                          headers)
            elif isinstance(body, _ITERATOR) and not isinstance(body, io.IOBase):  # not a file
                return self._stream(body, HTTP_200_OK if status is None else status, headers)
            else:  # jsonify() and other responses: the page for a browser if JSON
                return self._browsable(super().make_response(rv))
        except NotAcceptable as exc:  # raised after the view, so Flask has not handled it
            handled = self.handle_user_exception(*_ctx(), exc)  # type: ignore[call-arg]
            return self.make_response(handled)

    def _stream(self, items: Any, status: Any, headers: Any) -> Response:
        """A view's iterator. Its first item is made here, while the app's error handlers can
        still answer (an abort(404) before it stays a 404), and tells what it is: of str or
        bytes, Flask's own stream, sent as Flask sends it; of JSON values, streamed in the
        negotiated format, or, for a browser, the page with the items in it as they come,
        framed as server-sent events (so with their ``id``, ``event`` and ``retry``): the view
        runs once for it."""
        req = _request._get_current_object()  # type: APIRequest
        if req.environ.get("HTTP_LAST_EVENT_ID") == _END_ID:  # an EventSource told to stop
            _close(items)
            return self._stream_over(headers)
        try:
            first = next(items, _NO_ITEM)
            raw = _is_raw(first, headers)
        except Exception as exc:
            _close(items)
            handled = self.handle_user_exception(*_ctx(), exc)  # type: ignore[call-arg]
            return self.make_response(handled)
        if raw:  # what Flask 2.2+ makes of it, on every Flask
            raw_response = self.response_class(_rejoined(first, items), status=status,
                                               headers=headers)
            return self._browsable(_bound_unread(raw_response, req.environ, self))
        try:
            renderer, media_type = _select_renderer(_stream_offer(req.renderers), req.environ,
                                                    self)
        except NotAcceptable:
            _close(items)
            raise
        page = None
        if isinstance(renderer, BrowsableAPIRenderer):  # the page, its items as events
            page = (renderer, media_type)
            renderer = _resolve((EventStreamRenderer,), "renderers")[0]
        encode = _stream_encoder(self)
        if isinstance(renderer, EventStreamRenderer):
            encode = _event_writer(encode)
        body = _streamed(first, items, renderer, encode, self,
                         "{} [{}]".format(req.path, req.method), _client_ready(req.environ, self))
        try:
            next(body)  # the first item's JSON, while the app's error handlers can answer
        except Exception as exc:
            handled = self.handle_user_exception(*_ctx(), exc)  # type: ignore[call-arg]
            return self.make_response(handled)
        response = self.response_class(body, status, headers, content_type=renderer.content_type)
        response.vary.add("Accept")
        for name, value in _STREAM_HEADERS + tuple(renderer.response_headers):
            response.headers.setdefault(name, value)
        sent = response if page is None else _stream_page(response, *page)  # type: Response
        return _bound_unread(sent, req.environ, self)

    def _stream_over(self, headers: Any) -> Response:
        """The answer to a reconnection after `ServerSentEvent.END` or a stream's error: an
        empty 204, the standard's one way of telling EventSource not to reconnect again."""
        response = self.response_class(status=HTTP_204_NO_CONTENT, headers=headers)
        del response.headers["Content-Type"]
        return response

    def _browsable(self, response: Response) -> Response:
        """A response made by Flask, as the page if it is JSON and a browser asks."""
        try:
            renderer, media_type = _request._get_current_object()._negotiated(self)
        except NotAcceptable:  # the app's response stands, as it would without us
            return response
        if isinstance(renderer, BrowsableAPIRenderer):
            return _as_page(response, renderer, media_type)
        return response

    def _no_content(self, headers: Any) -> Tuple[Response, int]:
        """``None, 204``: an empty 204, or, for a renderer that ``handles_empty_responses``,
        its rendering of ``""`` as a 200 (as Flask-API 3.x did)."""
        try:
            renderer = _request._get_current_object()._negotiated(self)[0]
        except NotAcceptable:  # nothing to send, so nothing to refuse
            renderer = None
        if renderer is not None and renderer.handles_empty_responses:
            return self.render_response("", HTTP_200_OK, headers), HTTP_200_OK
        response = self.response_class(status=HTTP_204_NO_CONTENT)
        del response.headers["Content-Type"]  # no body, so no type either
        return response, HTTP_204_NO_CONTENT

    def dispatch_request(self, ctx=None) -> Any:  # ctx: Flask 3.2's, unannotated as it asks
        """Flask's dispatch, after refusing a write whose Accept no renderer satisfies.

        A request that may change data gets its 406 before the view runs, not after.
        Safe methods negotiate when they render, so a GET of a file or an image with
        its own Accept header still works as in plain Flask. (A before_request hook
        would do the same at about ten times the cost per request.) A URL no route
        takes may be the OpenAPI document's.
        """
        req = _request._get_current_object()  # type: APIRequest
        if req.routing_exception is None:
            if req.method not in _SAFE_METHODS:
                req._negotiated(self)  # or NotAcceptable; rendering reuses the result
        elif _is_document_request(self, req):
            return _openapi_response(self)
        if ctx is None:  # Flask before 3.2
            return super().dispatch_request()
        return super().dispatch_request(ctx)  # type: ignore[call-arg]

    def render_response(self, data: Any, status: int, headers: Any = None,
                        fallback: bool = False) -> Response:
        """A response with ``data`` rendered by the negotiated renderer."""
        renderer, body = _render(data, status, headers, fallback, self)
        response = self.response_class(body, status=status, content_type=renderer.content_type)
        if renderer.response_headers:  # the page's: JSON has none
            return _finish_rendered(response, renderer, headers, fresh=True)
        # For JSON, all that _finish_rendered does, inline: a call would cost every JSON
        # response 8 bytecodes, and a fresh response has no Vary of its own to keep.
        response.headers.add("Vary", "Accept")
        return response

    def handle_api_exception(self, exc: APIException) -> Any:
        """Render an error as ``{"detail": ...}`` with its status and headers.

        Every error arrives here as an `APIException`: werkzeug's too (an unknown route,
        405, 413), with ``detail`` and ``status_code``. Override it to change them all.
        """
        headers = list(exc.get_headers().items())
        response = self.render_response({"detail": exc.detail}, exc.status_code, headers,
                                        fallback=True)
        _drain_once_sent(response, _request._get_current_object().environ)
        return _as_flask_finishes(response, None, headers)

    def _handle_by_code(self, exc: APIException) -> Any:
        """An `APIException` goes to a handler registered for its status code, if any,
        through Flask's own lookup (blueprints, most specific first); else straight to
        ``handle_api_exception``. The look at the registry spares the common case
        Flask's lookup, which would cost the 404 row about a tenth of its time."""
        code = exc.status_code
        if any(code in handlers for handlers in self.error_handler_spec.values()):
            return self.handle_http_exception(*_ctx(), _by_code(exc))  # type: ignore[call-arg]
        return self.handle_api_exception(exc)

    def _handle_http_exception(self, exc: HTTPException) -> Any:
        if exc.response is not None or exc.code is None:
            return exc.response or exc  # abort(response), or a redirect-like exception
        api_exception = getattr(exc, "api_exception", None) or _HTTPError(exc)
        return self.handle_api_exception(api_exception)

    def make_default_options_response(self, ctx=None) -> Response:  # ctx: as dispatch_request
        """OPTIONS: the ``Allow`` header, and a description of the view as data."""
        default = super().make_default_options_response(*(() if ctx is None else (ctx,)))
        allow = ", ".join(sorted(default.allow))
        view = _view_for(self, request)
        data = {
            "name": _view_name(view),
            "description": _view_doc(view),
            "renders": [renderer.media_type for renderer in cast(APIRequest, request).renderers],
            "parses": [parser.media_type for parser in cast(APIRequest, request).parsers],
        }
        response = self.render_response(data, HTTP_200_OK, [("Allow", allow)])
        response.headers["Allow"] = allow
        return response


#: A request body that an error is answered without reading (over ``MAX_CONTENT_LENGTH``, a
#: multipart body with no boundary, a 404 or 405 to an upload) is read, up to this many bytes,
#: and dropped once the answer is sent, where the server's ``wsgi.input`` ends at the body's end
#: (``wsgi.input_terminated``: gunicorn). gunicorn reads 64 KiB of what is left and closes; a
#: close while the client is still sending is a reset, and a browser uploading a file too big
#: shows that reset, not the 413 page. Past this, the client is left to the reset.
_DRAINED_BYTES = 16 * 1024 * 1024


def _drain_once_sent(response: Response, environ: Dict[str, Any]) -> None:
    """Have an error's ``response``, once sent, read what is left of the request's body (see
    `_DRAINED_BYTES`); nothing for a request without one."""
    if environ.get("wsgi.input_terminated") and (
            environ.get("CONTENT_LENGTH", "0") not in ("", "0")
            or "HTTP_TRANSFER_ENCODING" in environ):
        response.call_on_close(functools.partial(_drain, environ["wsgi.input"]))


def _drain(stream: Any) -> None:
    left = _DRAINED_BYTES
    with contextlib.suppress(OSError, ValueError, HTTPException, APIException):  # client gone
        while left > 0:
            chunk = stream.read(min(left, 64 * 1024))
            if not chunk:
                return
            left -= len(chunk)


def _per_view(attribute: str, classes: Sequence[Any]) -> Any:
    if len(classes) == 1 and isinstance(classes[0], (list, tuple)):
        classes = classes[0]
    classes = tuple(classes)

    def decorator(view: Any) -> Any:
        call = view
        if inspect.iscoroutinefunction(view):  # Flask 2.0+ runs it, as it runs async views
            def call(*args: Any, **kwargs: Any) -> Any:
                return current_app.ensure_sync(view)(*args, **kwargs)

        @functools.wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            setattr(request, attribute, classes)
            return call(*args, **kwargs)
        setattr(wrapper, attribute, classes)  # for OPTIONS and errors raised before the view
        return wrapper
    return decorator


def set_parsers(*parsers: Any) -> Any:
    """Decorator: the parsers for one view, as classes, or one list of them."""
    return _per_view("parser_classes", parsers)


def set_renderers(*renderers: Any) -> Any:
    """Decorator: the renderers for one view, as classes, or one list of them."""
    return _per_view("renderer_classes", renderers)


# ---------------------------------------------------------------------------
# Plain forms: the page's methods without JavaScript, and the middleware
# ---------------------------------------------------------------------------
# Called from outside this section only through: _Middleware, which FlaskAPI and BrowsableAPI
# put around their WSGI app.

# The page's plain forms, without JavaScript: a same-origin urlencoded POST from a browser (it
# accepts ``text/html``) with a ``_method`` field becomes that method before routing, and
# ``_content`` / ``_content_type`` become its body. A request from another site passes through
# untouched: no foreign form can use this. Neither can an API client's form by chance.
_OVERRIDE_METHODS = frozenset(["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
_OVERRIDE_MAX_BODY = 1024 * 1024


def _wants_page(environ: Dict[str, Any]) -> bool:
    """True if the request's Accept negotiates the page before JSON, as a browser's does
    (not one that names ``text/html;q=0``)."""
    renderers = _resolve(_DEFAULT_RENDERERS, "renderers")
    found = _negotiate.function(environ.get("HTTP_ACCEPT", ""), None, renderers)
    return found is not None and isinstance(found[0], BrowsableAPIRenderer)


def _same_origin(environ: Dict[str, Any]) -> bool:
    if environ.get("HTTP_SEC_FETCH_SITE", "none") not in ("same-origin", "none"):
        return False
    origin = environ.get("HTTP_ORIGIN")
    return origin is None or _netloc(urlsplit(origin).netloc) == _netloc(
        environ.get("HTTP_HOST", ""))


def _see_other_for_no_content(app: Flask, environ: Dict[str, Any], start_response: Any) -> Any:
    """A plain form answered without a body would leave the browser on an empty document:
    send it to the page again, or after a DELETE (its URL is gone) to the parent's page."""
    method = environ["REQUEST_METHOD"]

    def wrapped(status: str, headers: List[Tuple[str, str]], exc_info: Any = None) -> Any:
        if _without_body(status, headers):
            url = _parent_href(app, environ) if method == "DELETE" else get_current_url(environ)
            headers = [(name, value) for name, value in headers if name.lower() != "location"]
            status, headers = "303 See Other", headers + [("Location", url)]
        return start_response(status, headers, exc_info)
    return wrapped


def _without_body(status: str, headers: List[Tuple[str, str]]) -> bool:
    """A 204 or 205, or a 200 of length 0 (``return "", 200``)."""
    return status[:3] in ("204", "205") or status[:3] == "200" and any(
        name.lower() == "content-length" and value.strip() == "0" for name, value in headers)


def _netloc(netloc: str) -> str:
    return re.sub(r":(80|443)$", "", netloc.lower())


def _apply_override(environ: Dict[str, Any]) -> bool:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    if not 0 < length <= _OVERRIDE_MAX_BODY:
        return False
    body = environ["wsgi.input"].read(length)
    environ["wsgi.input"] = io.BytesIO(body)
    fields = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    method = fields.get("_method", "").upper()
    if method not in _OVERRIDE_METHODS:
        return False
    if fields.get("csrf_token") and "HTTP_X_CSRFTOKEN" not in environ:
        environ["HTTP_X_CSRFTOKEN"] = fields["csrf_token"]  # Flask-WTF reads it there too
    content_type = fields.get("_content_type") or "application/json"
    content = fields.get("_content", "").encode("utf-8")
    if content_type.startswith("multipart/form-data"):
        from werkzeug.test import encode_multipart  # only this rare path needs it
        pairs = parse_qsl(content.decode("utf-8"), keep_blank_values=True)
        boundary, content = encode_multipart(MultiDict(pairs))
        content_type = "multipart/form-data; boundary=" + boundary
    environ.pop("wsgi.input_terminated", None)
    environ.update({"REQUEST_METHOD": method, "CONTENT_TYPE": content_type,
                    "CONTENT_LENGTH": str(len(content)), "wsgi.input": io.BytesIO(content)})
    return True


class _Middleware:
    """WSGI middleware: reads chunked bodies through a `_ReadGuard`, and lets the
    browsable page's plain HTML form send any method (`_apply_override`)."""

    def __init__(self, wsgi_app: Any, app: Flask, guard_reads: bool = True) -> None:
        self.wsgi_app, self.app = wsgi_app, app
        self.guard_reads = guard_reads  # False: request bodies read as the app reads them

    def __call__(self, environ: Dict[str, Any], start_response: Any) -> Any:
        if environ.get("PATH_INFO", "").startswith(_ASSETS_PATH):  # the page's script, style
            return _send_asset(environ, start_response)  # before the app and its hooks
        if "HTTP_TRANSFER_ENCODING" in environ and self.guard_reads:  # chunked, even with a length
            environ["wsgi.input"] = _ReadGuard(environ["wsgi.input"])
        if (environ.get("REQUEST_METHOD") == "POST" and _same_origin(environ) and
                environ.get("CONTENT_TYPE", "").startswith("application/x-www-form-urlencoded")
                and _wants_page(environ) and _apply_override(environ)):
            start_response = _see_other_for_no_content(self.app, environ, start_response)
        return self.wsgi_app(environ, start_response)


# ---------------------------------------------------------------------------
# Any Flask app: BrowsableAPI(app)
# ---------------------------------------------------------------------------
# Public: BrowsableAPI (and its init_app). Nothing else here is called from outside.

class BrowsableAPI:
    """The browsable page for the JSON responses of any Flask app: ``BrowsableAPI(app)``,
    or ``BrowsableAPI().init_app(app)`` in an app factory.

    A browser gets the page in place of a JSON response the app made (by ``jsonify``,
    Flask-RESTful, flask-smorest or any view), and the index of routes at ``/`` if no
    route is there. Other responses, and all that JSON clients get, stay the app's own.
    The request class and request parsing stay Flask's.
    """

    renderer_classes = _DEFAULT_RENDERERS  # type: Sequence[Any]  # negotiated as in FlaskAPI

    def __init__(self, app: Optional[Flask] = None) -> None:
        self.renderers = _resolve(tuple(self.renderer_classes), "renderer_classes")
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Flask) -> None:
        """Show ``app``'s JSON as the page, and let the page's plain forms send any method."""
        app.config.setdefault("BROWSABLE_API_INDEX", True)
        app.extensions["flask_api_browsable"] = self
        if isinstance(app, FlaskAPI):  # which does all of this already
            return
        _add_openapi_command(app)
        app.wsgi_app = _BrowsableMiddleware(  # type: ignore[method-assign]
            app.wsgi_app, app, self.renderers)
        # The page replaces a JSON response as Flask makes it, in the request's context.
        # An after_request hook would do the same, but Flask's hook loop alone costs an
        # API client 2% of a small request; this wrapper, one lookup in the environ.
        make_response = app.make_response

        def make_page_for_browsers(rv: Any) -> Response:
            response = make_response(rv)
            req = _request._get_current_object()
            if req.url_rule is None and _is_document_request(app, req):
                response = _openapi_response(app)
            negotiated = req.environ.get(_PAGE_KEY)
            if negotiated is None:
                return response  # an API client's
            if isinstance(rv, _MethodNotAllowed):  # werkzeug's HTML 405, as data for the page
                response.set_data(_json_dumps({"detail": rv.description}))
                response.mimetype = "application/json"
            return _as_page(response, *negotiated)
        app.make_response = make_page_for_browsers  # type: ignore[method-assign]


_PAGE_KEY = "flask_api.page"  # in the environ of a request that negotiated the page


class _BrowsableMiddleware(_Middleware):
    """`_Middleware` without the read guard (request bodies stay the app's to read),
    which also puts the page's negotiation in the environ of a browser's request."""

    def __init__(self, wsgi_app: Any, app: Flask, renderers: Tuple[Any, ...]) -> None:
        super().__init__(wsgi_app, app, guard_reads=False)
        self.renderers = renderers

    def __call__(self, environ: Dict[str, Any], start_response: Any) -> Any:
        if environ.get("PATH_INFO", "").startswith(_ASSETS_PATH):  # the page's script, style
            return _send_asset(environ, start_response)  # before the app and its hooks
        if "format=" not in environ.get("QUERY_STRING", ""):  # cached: cheap for clients
            negotiated = _page_for[environ.get("HTTP_ACCEPT", ""), self.renderers]
        else:
            try:
                negotiated = _the_page(_select_renderer(self.renderers, environ, self.app))
            except NotAcceptable:  # the app's responses stand, as they would without us
                negotiated = None
        if negotiated is None:
            return self.wsgi_app(environ, start_response)  # an API client: nothing to do
        environ[_PAGE_KEY] = negotiated
        return super().__call__(environ, start_response)


@_bounded_cache(1024, _CACHED_ACCEPT)  # as _negotiate's
def _page_for(accept: str, renderers: Tuple[Any, ...]) -> Optional[Tuple[Any, MediaType]]:
    """`_negotiate`'s answer for an Accept if it is the page, else None: what BrowsableAPI's
    middleware asks of every request, in one lookup."""
    return _the_page(_negotiate[accept, None, renderers])


def _the_page(negotiated: Optional[Tuple[Any, MediaType]]) -> Optional[Tuple[Any, MediaType]]:
    """A negotiation's (renderer, media type) if it is the page, else None."""
    if negotiated is not None and isinstance(negotiated[0], BrowsableAPIRenderer):
        return negotiated
    return None


# ---------------------------------------------------------------------------
# The OpenAPI document
# ---------------------------------------------------------------------------
# Public: openapi_document(app), set_openapi (and FlaskAPI.openapi). Called from outside this
# section through: _is_document_request, _openapi_response and _add_openapi_command (FlaskAPI,
# BrowsableAPI), _BODY_METHODS (the page's context), and _built, _path, _target and
# _Unreadable (the schema form and the sign-in read the document).

_BODY_METHODS = frozenset(["POST", "PUT", "PATCH"])
_BODIED_METHODS = _BODY_METHODS | {"QUERY"}  # the document's: a QUERY's body is its query
# The methods an OpenAPI 3.1 path item has a field for. 3.2 adds "query", and keeps any
# other method under "additionalOperations"; a 3.1 document has no place for them.
_OPERATION_METHODS = frozenset(["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH",
                                "TRACE"])
_ERROR_CODES = {  # the errors the framework itself answers with, and when
    HTTP_400_BAD_REQUEST: "The body could not be parsed.",
    HTTP_404_NOT_FOUND: "No such resource.",
    HTTP_406_NOT_ACCEPTABLE: "No renderer for the Accept header or ?format=.",
    HTTP_413_REQUEST_ENTITY_TOO_LARGE: "The body is over the app's limit.",
    HTTP_415_UNSUPPORTED_MEDIA_TYPE: "No parser for the body's Content-Type.",
}
_ERROR_SCHEMA = {"type": "object", "properties": {"detail": {"type": "string"}},
                 "required": ["detail"]}
# A rule's variable part, ``<int(min=1):key>``: converter, its arguments, the name.
_RULE_VARIABLE = re.compile(r"<(?:(\w+)(?:\((.*?)\))?:)?(\w+)>")


def openapi_document(app: Flask) -> Dict[str, Any]:
    """The app's OpenAPI 3.1 document, built on first use and again when routes change."""
    return cast(Dict[str, Any], _built(app)[1])


def _built(app: Flask) -> Tuple[_Routes, Dict[str, Any], Dict[Any, str]]:
    """The routes, the document and its notes: why it left out a fragment, by (path, method),
    or the app's library's document (None), in a sentence for the page's form to show."""
    routes = _described_routes(app)
    cached = app.extensions.get("flask_api_openapi")
    if cached is None or cached[0] is not routes:
        notes = {}  # type: Dict[Any, str]
        cached = app.extensions["flask_api_openapi"] = (
            routes, _document(app, routes.routes, notes), notes)
    return cast(Tuple[_Routes, Dict[str, Any], Dict[Any, str]], cached)


def _document(app: Flask, routes: List[_Route], notes: Dict[Any, str]) -> Dict[str, Any]:
    paths = {}  # type: Dict[str, Dict[str, Any]]
    taken = set()  # type: Set[str]
    own, components = _library_document(app, notes)
    version = _openapi_version(app)
    for route in routes:
        path, parameters = _path(route.rule)
        item = paths.setdefault(path, {})
        for method in route.methods:  # of two rules with one path, the first is matched
            place = _place(item, method, version)
            if place is not None and place[1] not in place[0]:
                place[0][place[1]], note = _operation(app, route, method, parameters, taken,
                                                      own.get((path, method.lower()), {}))
                if note:
                    notes[path, method] = note
    tags = sorted({tag for item in paths.values() for operation in _operations(item)
                   for tag in operation.get("tags", ())})
    if isinstance(app, FlaskAPI):  # its errors' schema, which wins over a library's "Error"
        components.setdefault("schemas", {})["Error"] = _ERROR_SCHEMA
    security = _app_security(app, components)
    _add_media_types((components.get("responses") or {}).values(), [  # a library's, by $ref
        renderer for route in routes for renderers in route.renderers.values()
        for renderer in renderers])
    document = {"openapi": _openapi_version(app), "info": _info(app),
                "paths": {path: item for path, item in paths.items() if item}}  # type: Any
    if components:
        document["components"] = components
    if tags:
        document["tags"] = [{"name": tag} for tag in tags]
    if security is not None:
        document["security"] = security
    return document


def _app_security(app: Flask, components: Dict[str, Any]) -> Optional[List[Any]]:
    """``OPENAPI_SECURITY_SCHEMES`` added to the components (each replacing a library's of its
    name), and ``OPENAPI_SECURITY``: the requirements of every operation that states none.
    (Not ``SECURITY_SCHEMES``, APIFlask's, nor ``API_SPEC_OPTIONS``, flask-smorest's.)"""
    schemes = app.config.get("OPENAPI_SECURITY_SCHEMES")
    if isinstance(schemes, dict) and schemes:
        components["securitySchemes"] = dict(components.get("securitySchemes") or {}, **{
            name: _deep_merged({}, scheme) if isinstance(scheme, dict) else scheme
            for name, scheme in schemes.items()})  # copies: the document is not the config
    security = app.config.get("OPENAPI_SECURITY")
    return list(security) if isinstance(security, (list, tuple)) else None


def _openapi_version(app: Flask) -> str:
    """``OPENAPI_DOCUMENT_VERSION``: "3.1.0", or "3.2.0" for streams' ``itemSchema`` and
    methods but the eight of 3.1. (Not ``OPENAPI_VERSION``: flask-smorest's and APIFlask's,
    for their own documents.)"""
    return str(app.config.get("OPENAPI_DOCUMENT_VERSION") or "3.1.0")


def _place(item: Dict[str, Any], method: str, version: str) -> Optional[Tuple[Dict[str, Any], str]]:
    """Where a path item keeps a method's operation: under its field ("get"), 3.2's "query"
    too, or any other method in 3.2's ``additionalOperations`` by its name as sent. None
    in 3.1, which has no place for them (the route index still lists them)."""
    from_3_2 = re.match(r"3\.([2-9]|\d\d)", version) is not None
    if method in _OPERATION_METHODS or method == "QUERY" and from_3_2:
        return item, method.lower()
    if from_3_2:
        return item.setdefault("additionalOperations", {}), method
    return None


def _operations(item: Dict[str, Any]) -> List[Dict[str, Any]]:
    """A path item's operations, those under ``additionalOperations`` too."""
    return [operation for key, operation in item.items() if key != "additionalOperations"] + list(
        (item.get("additionalOperations") or {}).values())


def _info(app: Flask) -> Dict[str, Any]:
    """The document's info; ``API_TITLE`` and ``API_VERSION`` are flask-smorest's keys too."""
    module = sys.modules.get(app.import_name)
    info = {"title": str(app.config.get("API_TITLE") or _title(app.name) or app.name),
            "version": str(app.config.get("API_VERSION")
                           or getattr(module, "__version__", None) or "0")}
    if app.config.get("API_DESCRIPTION"):
        info["description"] = str(app.config["API_DESCRIPTION"])
    return info


def _path(rule: Any) -> Tuple[str, List[Dict[str, Any]]]:
    """``/<int:key>/`` as ``/{key}/``, and its parameters typed from their converters."""
    names = [match.group(3) for match in _RULE_VARIABLE.finditer(rule.rule)]
    parameters = [{"name": name, "in": "path", "required": True,
                   "schema": _converter_schema(rule._converters.get(name))} for name in names]
    return _RULE_VARIABLE.sub(r"{\3}", rule.rule), parameters


def _converter_schema(converter: Any) -> Dict[str, Any]:
    """werkzeug's converters as JSON Schema; one it does not ship is a string."""
    if isinstance(converter, (routing.IntegerConverter, routing.FloatConverter)):
        number = "integer" if isinstance(converter, routing.IntegerConverter) else "number"
        return _bounded(number, converter.min, converter.max, converter.signed)
    if isinstance(converter, routing.UUIDConverter):
        return {"type": "string", "format": "uuid"}
    if isinstance(converter, routing.AnyConverter):  # werkzeug 1.0 keeps its items in its regex
        items = getattr(converter, "items", None) or [
            re.sub(r"\\(.)", r"\1", item) for item in re.split(r"(?<!\\)\|", converter.regex[3:-1])]
        return {"type": "string", "enum": sorted(items)}
    lengths = re.fullmatch(r"\[\^/\]\{(\d+)(,?)(\d*)\}", getattr(converter, "regex", ""))
    if isinstance(converter, routing.UnicodeConverter) and lengths:  # [^/]{1,} or [^/]{2,8}
        low, comma, high = lengths.groups()
        schema = {"type": "string", "minLength": int(low)}  # type: Dict[str, Any]
        if high or not comma:
            schema["maxLength"] = int(high or low)
        return schema
    return {"type": "string"}


def _bounded(number: str, low: Any, high: Any, signed: bool) -> Dict[str, Any]:
    """Flask's int and float take no sign unless ``signed=True``: their minimum is 0."""
    schema = {"type": number}  # type: Dict[str, Any]
    if not signed:
        low = 0 if low is None else max(low, 0)
    if low is not None:
        schema["minimum"] = low
    if high is not None:
        schema["maximum"] = high
    return schema


def _operation(app: Flask, route: _Route, method: str, parameters: List[Dict[str, Any]],
               taken: Set[str], own: Dict[str, Any]) -> Tuple[Dict[str, Any], Optional[str]]:
    """A method's operation: our guesses, what the app's library (``own``) and the view's
    fragments say merged in; and, where the fragments had to be left out, why."""
    summary, _, description = (_view_doc(route.views[method]) or route.doc).partition("\n")
    operation = {"operationId": _operation_id(route.rule.endpoint, method, taken)}  # type: Any
    if summary.strip():
        operation["summary"] = summary.strip()
    if description.strip():
        operation["description"] = inspect.cleandoc(description)
    blueprint = route.rule.endpoint.rpartition(".")[0]
    if blueprint:
        operation["tags"] = [blueprint]
    parameters = parameters + _query_parameters(app, route.renderers[method])
    if parameters:
        operation["parameters"] = parameters
    if method in _BODIED_METHODS and "requestBody" not in own:  # a library's stays as written
        operation["requestBody"] = {"content": {
            str(parser.media_type): {"schema": {} if "json" in str(parser.media_type) else
                                {"type": "object"}} for parser in route.parsers[method]}}
    operation["responses"] = _responses(app, route, method)
    try:
        return _finished(app, route, method, _with_fragments(operation, route, method, own)), None
    except Exception as exc:  # whatever a fragment holds, /openapi.json must not be a 500
        why = str(exc) if isinstance(exc, _Unreadable) else (
            "could not be merged into the document ({})".format(type(exc).__name__))
        app.logger.warning("The OpenAPI document leaves out the fragments of %s %s: the "
                           "set_openapi fragment %s", method, route.rule.rule, why)
        return _finished(app, route, method, operation), (
            "This view's set_openapi fragment {}, so the document leaves it out and this form "
            "is built from the data.".format(why))


def _finished(app: Flask, route: _Route, method: str, operation: Dict[str, Any]
              ) -> Dict[str, Any]:
    """The operation with its responses' media types, and its stream's where it streams;
    checked to be something JSON can write, so that serving the document cannot fail."""
    _add_media_types(operation.get("responses", {}).values(), route.renderers[method])
    if _streams(app, route.views[method], operation):
        _add_stream_types(app, operation, _openapi_version(app))
    json.dumps(operation, default=str)  # a key JSON has no form for, or a loop, raises here
    return operation


def _successes(operation: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The content (media types) of each success an operation documents."""
    return [response["content"] for code, response in operation.get("responses", {}).items()
            if str(code)[0] == "2" and isinstance(response, dict)
            and isinstance(response.get("content"), dict)]


def _streams(app: Flask, view: Any, operation: Dict[str, Any]) -> bool:
    """A streaming operation: a FlaskAPI view that is a generator function, or one whose
    `set_openapi` names a stream's media type or an ``itemSchema`` for a success."""
    if isinstance(app, FlaskAPI) and inspect.isgeneratorfunction(inspect.unwrap(view)):
        return True
    return any(media_type in _STREAM_TYPES or isinstance(entry, dict) and "itemSchema" in entry
               for content in _successes(operation) for media_type, entry in content.items())


def _add_stream_types(app: Flask, operation: Dict[str, Any], version: str) -> None:
    """A stream's media types in each success (all of FlaskAPI's formats on its apps), and
    its item schema (``itemSchema`` of any of them, as `set_openapi` gives it) where the
    document's version has it: OpenAPI 3.2's ``itemSchema``, else an array's ``items``. An
    event stream's schema is an event's, whose ``data`` is the item's JSON."""
    override = app.config.get("URL_FORMAT_OVERRIDE", "format")
    for parameter in operation.get("parameters", ()):  # FlaskAPI's ?format= takes them too
        schema = parameter.get("schema") if isinstance(parameter, dict) else None
        if isinstance(schema, dict) and isinstance(schema.get("enum"), list) and (
                parameter.get("in"), parameter.get("name")) == ("query", override):
            parameter["schema"] = dict(schema, enum=sorted(set(schema["enum"]) | {
                renderer.format for renderer in _STREAM_RENDERERS}))
    for content in _successes(operation):
        found = [entry.pop("itemSchema") for entry in content.values()
                 if isinstance(entry, dict) and "itemSchema" in entry]
        if isinstance(app, FlaskAPI):
            for renderer in _STREAM_RENDERERS:
                content.setdefault(renderer.media_type, {})
        for media_type, entry in content.items():
            if not found or not isinstance(entry, dict) or "schema" in entry or not (
                    media_type in _STREAM_TYPES or media_type == "application/json"):
                continue
            where = "itemSchema" if version.startswith("3.2") else "schema"
            if media_type == "text/event-stream":  # each event (in 3.1 too, as tools read it)
                entry[where] = {"type": "object", "required": ["data"], "properties": {
                    "event": {"type": "string"}, "data": {
                        "type": "string", "contentMediaType": "application/json",
                        "contentSchema": found[0]}}}
            elif media_type == "application/json" or where == "schema":
                entry["schema"] = {"type": "array", "items": found[0]}
            else:
                entry["itemSchema"] = found[0]


def _add_media_types(responses: Iterable[Any], renderers: Iterable[BaseRenderer]) -> None:
    """Each renderer's media type in each response with content (the success, a fragment's):
    any of them renders any data."""
    for response in responses:
        content = response.get("content") if isinstance(response, dict) else None
        if isinstance(content, dict):
            for renderer in renderers:
                content.setdefault(str(renderer.media_type), {})


def _operation_id(endpoint: str, method: str, taken: Set[str]) -> str:
    """``bp.view`` and GET make ``bp_view_get``: only ``[A-Za-z0-9_]``, unique in the app."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", endpoint) + "_" + method.lower()
    found = base
    for number in itertools.count(2):
        if found not in taken:
            break
        found = "{}_{}".format(base, number)
    taken.add(found)
    return found


def _query_parameters(app: Flask, renderers: Tuple[Any, ...]) -> List[Dict[str, Any]]:
    """``?format=``: empty, as if absent (the Accept header's choice); another format gets a
    406 from FlaskAPI, but the app's own answer from an app `BrowsableAPI` wraps."""
    override = app.config.get("URL_FORMAT_OVERRIDE", "format")
    formats = sorted({renderer.format for renderer in renderers if renderer.format})
    if not (override and formats):
        return []
    schema = ({"type": "string", "enum": [""] + formats} if isinstance(app, FlaskAPI)
              else {"type": "string", "examples": formats})
    return [{"name": override, "in": "query", "required": False, "schema": schema,
             "description": "The response's format, in place of the Accept header."}]


def _responses(app: Flask, route: _Route, method: str) -> Dict[str, Any]:
    """A success, 200 (`_operation` adds its media types), and 2XX for any other the view
    may choose, which the route does not tell (its body unsaid: a 204 has none). On a
    FlaskAPI app, the framework's own errors as ``{"detail": ...}``; on another, the
    app's own answers as the default."""
    responses = {"200": {"description": "Success.", "content": {}}, "2XX": {
        "description": "Another success, where the view answers one (201, 204)."}
    }  # type: Dict[str, Any]
    if not isinstance(app, FlaskAPI):
        return dict(responses, default={"description": "The app's own answer."})
    codes = [HTTP_406_NOT_ACCEPTABLE]
    if route.rule.arguments:
        codes.append(HTTP_404_NOT_FOUND)
    if method in _BODIED_METHODS:
        codes += [HTTP_400_BAD_REQUEST, HTTP_413_REQUEST_ENTITY_TOO_LARGE,
                  HTTP_415_UNSUPPORTED_MEDIA_TYPE]
    error = {str(renderer.media_type): {"schema": {"$ref": "#/components/schemas/Error"}
                                        if "json" in str(renderer.media_type) else
                                        {"type": "string"}}
             for renderer in route.renderers[method]}
    for code in sorted(codes):
        responses[str(code)] = {"description": _ERROR_CODES[code], "content": error}
    return responses


def _with_fragments(operation: Dict[str, Any], route: _Route, method: str,
                    own: Dict[str, Any]) -> Dict[str, Any]:
    """The operation with what the app's own OpenAPI library says of it (``own``), then what
    `set_openapi` put on the view (or its class), then on the method's own function, merged
    in. Where they name a success (2xx), it replaces ours."""
    owners = [route.view] + ([route.views[method]] if route.views[method] is not route.view
                             else [])
    methods = _OPERATION_METHODS.union(["QUERY"], route.methods)  # keys that name a method
    fragments = [own]
    for owner in owners:
        fragment = getattr(owner, "openapi", None) or {}
        for part in ({key: value for key, value in fragment.items()
                      if str(key).upper() not in methods}, fragment.get(method.lower()) or {}):
            if _deeper_than(part, _DEEPEST_FRAGMENT):  # before anything recurses into it
                raise _Unreadable("is nested more than {} levels deep".format(
                    _DEEPEST_FRAGMENT))
            fragments.append(part)
    named = {str(code) for fragment in fragments for code, response in (
        fragment.get("responses") or {}).items() if response is not None and str(code)[0] == "2"}
    if named:  # the view's own successes: our guesses (200, 2XX) go, but what it names
        operation = dict(operation, responses={
            code: response for code, response in operation["responses"].items()
            if code not in ("200", "2XX") or code in named})
    for fragment in fragments:
        operation = _deep_merged(operation, fragment)
    return operation


def _deep_merged(base: Dict[str, Any], fragment: Dict[str, Any]) -> Dict[str, Any]:
    """``fragment`` merged into a copy of ``base``, dict by dict (responses by status, a body
    by media type), parameters by name and place; a None value removes, a ``$ref`` replaces.
    Each dict is copied: the document must not share (and then change) the fragment's."""
    merged = dict(base)
    for key, value in fragment.items():
        below = merged.get(key)
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and "$ref" not in value:
            merged[key] = _deep_merged(below if isinstance(below, dict) else {}, value)
        elif key == "parameters" and isinstance(value, list) and isinstance(below, list):
            merged[key] = _merged_parameters(below, value)
        else:
            merged[key] = value
    return merged


def _merged_parameters(base: List[Any], fragment: List[Any]) -> List[Any]:
    """A fragment's parameter replaces ours of the same name and place (``in``); the others
    are added after ours, in the fragment's order."""
    def key(parameter: Any) -> Any:
        if not isinstance(parameter, dict):
            return id(parameter)
        return (parameter.get("name"), parameter.get("in"), parameter.get("$ref"))
    theirs = {key(parameter): parameter for parameter in fragment}
    return [theirs.pop(key(parameter), parameter) for parameter in base] + list(theirs.values())


#: A `set_openapi` fragment, or a library's document, nested deeper than this is left out of
#: the document (and the page says so): what merges, converts and writes them recurses, and
#: a fragment 500 deep would exhaust Python's stack. Real ones nest a few dozen levels.
_DEEPEST_FRAGMENT = 100


class _Unreadable(Exception):
    """Why the document leaves something out, or the page's form falls back to the data: the
    end of a sentence ("is nested more than 100 levels deep")."""


def _deeper_than(value: Any, most: int) -> bool:
    """Whether lists and dicts nest in ``value`` more than ``most`` levels deep (a dict that
    holds itself, always). Level by level, not by recursion, which a deep one would exhaust."""
    level = [value]  # the values at one level: after n steps, those n levels below
    for _ in range(most):
        level = [below for one in level if isinstance(one, (dict, list, tuple))
                 for below in (one.values() if isinstance(one, dict) else one)]
    return any(isinstance(one, (dict, list, tuple)) for one in level)


def _library_document(app: Flask, notes: Dict[Any, str]
                      ) -> Tuple[Dict[Tuple[str, str], Any], Dict[str, Any]]:
    """What the app's own OpenAPI library (flask-smorest, APIFlask) documents: each
    operation's parameters, body, responses and security requirements (its own, else its
    document's) by (path, method), and the components they refer to, in OpenAPI 3.1. None
    where it has none; where it fails, none, and a note why."""
    operations, components = {}, {}  # type: Dict[Tuple[str, str], Any], Dict[str, Any]
    try:
        for spec in _library_specs(app):
            if _deeper_than(spec, _DEEPEST_FRAGMENT):
                raise _Unreadable("is nested more than {} levels deep".format(_DEEPEST_FRAGMENT))
            if str(spec.get("openapi", "")).startswith("3.0"):
                spec = _in_3_1(spec)
            components = _deep_merged(components, spec.get("components") or {})
            for path, item in (spec.get("paths") or {}).items():
                for method, operation in item.items():
                    if method.upper() in _OPERATION_METHODS or method == "query":
                        operation = {key: operation[key] for key in (
                            "parameters", "requestBody", "responses", "security")
                            if key in operation}
                        if "security" in spec:  # its document's, for its own operations
                            operation.setdefault("security", spec["security"])
                        operations[path, method] = _form_data_in_body(_deep_merged(
                            {"parameters": item.get("parameters") or []}, operation), spec)
    except Exception as exc:  # a library's trouble must not cost the app its document
        library = "flask-smorest" if app.extensions.get("flask-smorest") else "APIFlask"
        why = str(exc) if isinstance(exc, _Unreadable) else "could not be read ({})".format(
            type(exc).__name__)
        app.logger.warning("The OpenAPI document leaves out %s's, which %s", library, why,
                           exc_info=not isinstance(exc, _Unreadable))
        notes[None] = "{}'s description of this API {}, so this form is built from the " \
                      "data.".format(library, why)
        return {}, {}
    return operations, components


def _library_specs(app: Flask) -> List[Dict[str, Any]]:
    """The documents of flask-smorest's ``Api`` objects, or APIFlask's ``app.spec``."""
    apis = app.extensions.get("flask-smorest", {}).get("apis", {})
    specs = [api["ext_obj"].spec.to_dict() for api in apis.values()]
    if isinstance(getattr(type(app), "spec", None), property):  # APIFlask's, built anew
        # It keeps what it serves at its own URL (servers from the Host of the request that
        # made it): ours, built anew here, must not replace that.
        served = getattr(app, "_spec", None)
        try:
            with app.app_context():
                specs.append(app.spec)  # type: ignore[attr-defined]
        finally:
            app._spec = served  # type: ignore[attr-defined]
    return [spec for spec in specs if isinstance(spec, dict)]  # not APIFlask's YAML


# Where OpenAPI 3 has parameters: not 2.0's "formData" and "body", which it sends as the body.
_PARAMETER_PLACES = frozenset(["query", "header", "path", "cookie"])
_FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


def _form_data_in_body(operation: Dict[str, Any], spec: Dict[str, Any]) -> Dict[str, Any]:
    """A library's operation with OpenAPI 2.0's ``in: formData`` parameters (flask-smorest
    writes them for ``location="form"`` beside ``"files"``) as fields of its form body, which
    is where clients send them and the view reads them. Beside a JSON body, which cannot carry
    them, they are left out, as are parameters of any other place 3.x lacks (``in: body``)."""
    parameters = operation.get("parameters") or []
    kept = [parameter for parameter in parameters if not isinstance(parameter, dict)
            or "$ref" in parameter or parameter.get("in") in _PARAMETER_PLACES]
    if len(kept) == len(parameters):
        return operation
    fields = [parameter for parameter in parameters if isinstance(parameter, dict)
              and parameter.get("in") == "formData" and isinstance(parameter.get("name"), str)]
    operation = dict(operation, parameters=kept)
    if fields:
        operation["requestBody"] = _with_fields(operation.get("requestBody"), fields, spec)
    return operation


def _with_fields(body: Any, fields: List[Dict[str, Any]], spec: Dict[str, Any]) -> Any:
    """A request body whose form types' schemas have these formData parameters as fields too;
    a form body of them where there was no body."""
    properties = {field["name"]: dict(field.get("schema") or {}, **{
        key: field[key] for key in ("description", "deprecated") if key in field})
        for field in fields}
    required = [field["name"] for field in fields if field.get("required") is True]
    if body is None:
        files = any(schema.get("format") == "binary" for schema in properties.values())
        body = {"content": {_FORM_TYPES[0 if files else 1]: {}}, "required": bool(required)}
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or not any(name in content for name in _FORM_TYPES):
        return body  # none of form type: the fields are left out
    content = dict(content)
    for name in _FORM_TYPES:
        if isinstance(content.get(name), dict):
            schema = _with_properties(content[name].get("schema"), properties, required, spec)
            content[name] = dict(content[name], schema=schema)
    return dict(body, content=content)


def _with_properties(schema: Any, properties: Dict[str, Any], required: List[str],
                     spec: Dict[str, Any]) -> Dict[str, Any]:
    """An object schema with these properties added (a ``$ref``'s target copied: the
    component stays as written, for the other operations that may use it)."""
    schema = schema or {"type": "object"}
    if isinstance(schema.get("$ref"), str):
        schema = dict(_target(schema["$ref"], spec), **{
            key: value for key, value in schema.items() if key != "$ref"})
    needed = list(schema.get("required") or [])
    needed += [name for name in required if name not in needed]
    schema = dict(schema, properties=dict(schema.get("properties") or {}, **properties))
    if needed:
        schema["required"] = needed
    return schema


# Where a 3.0 document holds schemas: keys whose value is one (or a list of them), and keys
# whose value maps names to them. Examples, defaults and enums are data, left as they are.
_SCHEMA_KEYS = frozenset(["schema", "items", "additionalProperties", "not", "allOf", "anyOf",
                          "oneOf"])
_SCHEMA_MAPS = frozenset(["properties", "patternProperties", "$defs", "schemas"])
_DATA_KEYS = frozenset(["example", "examples", "default", "enum", "const"])


def _in_3_1(value: Any, schema: bool = False) -> Any:
    """A copy of part of an OpenAPI 3.0 document, its schemas in 3.1's JSON Schema."""
    if isinstance(value, list):
        return [_in_3_1(item, schema) for item in value]
    if not isinstance(value, dict):
        return value
    copied = {}  # type: Dict[str, Any]
    for key, below in value.items():
        if key in _SCHEMA_MAPS and isinstance(below, dict):
            copied[key] = {name: _in_3_1(one, True) for name, one in below.items()}
        else:
            copied[key] = below if key in _DATA_KEYS else _in_3_1(below, key in _SCHEMA_KEYS)
    return _schema_3_1(copied) if schema else copied


def _schema_3_1(schema: Dict[str, Any]) -> Dict[str, Any]:
    """A 3.0 schema's ``nullable: true`` as a type "null", its ``example`` as ``examples``."""
    if "example" in schema:
        schema["examples"] = [schema.pop("example")]
    if schema.pop("nullable", None) is not True:
        return schema
    if not isinstance(schema.get("type"), str):  # a $ref, or any type already
        return {"anyOf": [schema, {"type": "null"}]}
    schema["type"] = [schema["type"], "null"]
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = schema["enum"] + [None]
    return schema


def _target(ref: str, document: Any) -> Any:
    """What a local ``$ref`` ("#/components/schemas/Pet") points at in the document."""
    target = document
    try:
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target[int(part)] if isinstance(target, list) else target[part]
    except (LookupError, TypeError, ValueError):
        raise _Unreadable("refers to {}, which the document does not have".format(
            ref if len(ref) <= 100 else ref[:99] + "\u2026")) from None
    return target


def set_openapi(fragment: Dict[str, Any]) -> Any:
    """Decorator: merge an OpenAPI fragment into the document's operations for this view.

    Keys named by a method (``"post"``) go into that method's operation only; a None
    value removes what the document had there. On a ``MethodView``, decorate the class
    or one of its methods. Setting the view's ``openapi`` attribute does the same.
    """
    def decorator(view: Any) -> Any:
        view.openapi = fragment
        return view
    return decorator


def _is_document_request(app: Flask, req: Request) -> bool:
    """A GET of ``OPENAPI_URL`` that no route of the app takes (but one with a slash added,
    ``/<key>/``). The document has no route of its own, so that it never takes a URL the app
    wants, nor shows in the app's rules (which its own OpenAPI library would then document)."""
    url = app.config.get("OPENAPI_URL")
    return (bool(url) and req.path == url and req.method in ("GET", "HEAD")
            and isinstance(req.routing_exception, (_NotFound, routing.RequestRedirect)))


def _openapi_response(app: Flask) -> Response:
    """This app's OpenAPI document, as JSON; browsers get the page, as for any JSON."""
    return app.response_class(json.dumps(openapi_document(app), default=str),  # a fragment's
                              mimetype="application/json")  # date, as its text


def _add_openapi_command(app: Flask) -> None:
    """Serve the document at ``OPENAPI_URL`` (None: nowhere), read on each request that no
    route takes, and print it with ``flask openapi``."""
    app.config.setdefault("OPENAPI_URL", "/openapi.json")
    if "openapi" not in app.cli.commands:
        @app.cli.command("openapi")
        def print_openapi() -> None:
            """Print the app's OpenAPI document."""
            click.echo(json.dumps(openapi_document(app), indent=2, default=str))


# ---------------------------------------------------------------------------
# The form from the schema: a request body's fields, from the document, for the page
# ---------------------------------------------------------------------------
# Called from outside this section only through: BrowsableAPIRenderer.get_schemas
# (_operation_schemas, _Schemas), and _DEEPEST_REF (the sign-in's bound).

#: A request body's schema that the page's form is built from has at most this many parts
#: (each key and each array item counts, an enum's values too) and nests objects and arrays
#: at most this many levels deep, ``$ref``s resolved; past either, the form comes from the
#: data and says why. A ``$ref`` back into itself (a tree's children), or more than
#: `_DEEPEST_REF` deep, is cut there, and becomes a box of JSON.
_MOST_SCHEMA_NODES = 5000
_DEEPEST_SCHEMA = 64
_DEEPEST_REF = 16


def _operation_schemas(app: Flask, rule: Any, allowed: List[str]) -> Dict[str, Any]:
    """For each body method of the rule, what its form comes from: ``{"content": [media
    types], "schema": schema}``, its operation's body schema that has fields, the JSON one
    else a form type's; or ``{"content": [...], "fallback": sentence}``, why there is none
    where something stood in the way. Nothing for a body without fields."""
    methods = [method for method in ("POST", "PUT", "PATCH") if method in allowed]
    try:
        _, document, notes = _built(app)
    except Exception as exc:  # not a 500 for the page, whose data stands on its own
        why = "The app's OpenAPI document could not be built ({}), so this form is built " \
              "from the data.".format(type(exc).__name__)
        return {method: {"content": [], "fallback": why} for method in methods}
    path = _path(rule)[0]
    item = document["paths"].get(path) or {}
    found = {}  # type: Dict[str, Any]
    for method in methods:
        form = _body_form(document, item.get(method.lower()),
                          notes.get((path, method)) or notes.get(None))
        if form:
            found[method] = form
    return found


def _body_form(document: Dict[str, Any], operation: Any, note: Optional[str]
               ) -> Optional[Dict[str, Any]]:
    """What one operation's form comes from (see `_operation_schemas`): its schema, or why
    not (``note``: why the document left out what described it)."""
    content = {}  # type: Any
    try:
        body = operation.get("requestBody") if isinstance(operation, dict) else None
        if isinstance(body, dict) and isinstance(body.get("$ref"), str):
            body = _target(body["$ref"], document)
        content = (body or {}).get("content") or {}
        for name in sorted(content, key=lambda name: (
                "json" not in name, name != "multipart/form-data")):
            schema = _resolved(content[name].get("schema"), document, (), [_MOST_SCHEMA_NODES])
            if _has_fields(schema):
                return {"content": list(content), "schema": schema}
    except _Unreadable as exc:
        note = "The request body's schema {}, so this form is built from the data.".format(exc)
    except Exception as exc:  # a library's or a fragment's document of another shape
        note = "The request body's description could not be read ({}), so this form is " \
               "built from the data.".format(type(exc).__name__)
    if not note:
        return None
    return {"content": [str(name) for name in content] if isinstance(content, dict) else [],
            "fallback": note}


def _has_fields(schema: Any) -> bool:
    """Whether a schema gives a form fields: its properties, or those of a member of its
    ``allOf``, ``anyOf`` or ``oneOf`` (a library's wrapper, or a choice of shapes)."""
    if not isinstance(schema, dict):
        return False
    if isinstance(schema.get("properties"), dict) and schema["properties"]:
        return True
    return any(_has_fields(member) for key in ("allOf", "anyOf", "oneOf")
               if isinstance(schema.get(key), list) for member in schema[key])


def _resolved(value: Any, document: Dict[str, Any], refs: Tuple[str, ...],
              budget: List[int], depth: int = 0, kind: str = "schema") -> Any:
    """A copy of a schema with each local ``$ref`` replaced by what it points at (its other
    keys kept), every part counted into ``budget`` and bounded as `_MOST_SCHEMA_NODES`,
    `_DEEPEST_SCHEMA` and `_DEEPEST_REF` say. ``kind``: "schema"; "names", a map of
    schemas by name (``properties``); or "data" (an enum, a default), copied unresolved."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _Unreadable("has more than {:,} parts".format(_MOST_SCHEMA_NODES))
    if not isinstance(value, (dict, list)):
        return value
    if depth >= _DEEPEST_SCHEMA:
        raise _Unreadable("is nested more than {} levels deep".format(_DEEPEST_SCHEMA))
    if isinstance(value, list):
        return [_resolved(item, document, refs, budget, depth + 1, kind) for item in value]
    ref = value.get("$ref")
    if isinstance(ref, str) and kind != "data":
        if ref in refs or len(refs) >= _DEEPEST_REF or not ref.startswith("#/"):
            return {}
        budget[0] += 1  # what it points at takes its place, and is counted itself
        siblings = {key: below for key, below in value.items() if key != "$ref"}
        return _resolved(dict(_target(ref, document), **siblings), document, refs + (ref,),
                         budget, depth, kind)
    return {key: _resolved(below, document, refs, budget, depth + 1, _kind_below(kind, key))
            for key, below in value.items()}


def _kind_below(kind: str, key: str) -> str:
    """What the value of ``key`` is, in a dict of this kind (see `_resolved`): in data, data;
    in a map by name, a schema; in a schema, as its keyword says."""
    if kind != "schema":
        return "data" if kind == "data" else "schema"
    return "data" if key in _DATA_KEYS else "names" if key in _SCHEMA_MAPS else "schema"


class _Schemas(dict):
    """What `BrowsableAPIRenderer.get_schemas` found for a rule, with its JSON written once."""

    def __init__(self, schemas: Dict[str, Any]) -> None:
        super().__init__(schemas)
        self.script = _script_json(schemas)


# ---------------------------------------------------------------------------
# Signing in: what the API asks for, from its document and its 401s, for the page
# ---------------------------------------------------------------------------
# Called from outside this section only through: BrowsableAPIRenderer.get_auth (_auth_offer)
# and response_headers (_AUTH_KEY, _with_auth_origins), and _send_page (_write_late_challenges).
#
# What the page's sign-in reads is one JSON block, <script type="application/json"
# id="api-auth">, written as the schemas' is (`_script_json`) and only where there is
# something to offer: a scheme in the document, or a challenge in the response. Its shape,
# which the page's script is built against:
#
#   {"schemes": {name: scheme, ...},
#       each of the document's components.securitySchemes, its $ref resolved, with only the
#       keys type, scheme, bearerFormat, in, name, description, flows and openIdConnectUrl,
#       each of the type OpenAPI gives it (others left out). "flows" holds only implicit,
#       password, clientCredentials and authorizationCode, each with only authorizationUrl,
#       tokenUrl, refreshUrl (strings) and scopes ({scope: description}). A URL is kept
#       only if it is http(s) on a plain origin (no user, no quote, space or "\\"), or a
#       relative reference, which is resolved here against the app's root (OpenAPI's
#       default server, "/") into a path on the page's own origin; any other is left out.
#    "operations": {METHOD: [requirement, ...], ...},
#       for each of the page's allowed methods the document has an operation for (HEAD:
#       GET's), its security requirements as OpenAPI writes them: each {scheme name:
#       [scope, ...]}, all of one needed; any one requirement will do; [] none needed; a {}
#       among them, signing in is optional. The operation's own ``security``, else the
#       document's, else []. A method the document does not describe is not there.
#    "challenges": [{"scheme": "Bearer", "token68": null, "params": {"realm": "api"}}, ...],
#       the response's WWW-Authenticate challenges in order (RFC 9110, 11.6.1): the scheme
#       as sent (compare it without case), a token68 (a string) or auth-params (names in
#       lower case, values unquoted), never both. Basic's charset (RFC 7617) is kept only
#       as "UTF-8", Bearer's error_uri (RFC 6750) only as an absolute http(s) URL.
#    "origins": ["https://auth.example", ...]}
#       the origins the page may send a credential-bearing request to besides its own:
#       each flow's tokenUrl and refreshUrl's, and each openIdConnectUrl's, from the
#       document only (absolute URLs only; a relative one is the page's own origin). The
#       page's CSP lets its script reach exactly these (connect-src 'self' and them).
#
# The document's part is made once per rule and document, as the form's schemas are; the
# challenges are read per response, of the page only: JSON clients pay nothing for any of it.

#: A scheme's keys and flows that the page reads, and the URLs among them.
_SCHEME_KEYS = ("type", "scheme", "bearerFormat", "in", "name", "description", "openIdConnectUrl")
_FLOW_NAMES = ("implicit", "password", "clientCredentials", "authorizationCode")
_FLOW_URLS = ("authorizationUrl", "tokenUrl", "refreshUrl")
#: Bounds on what the block holds, whatever the document says: a scheme's scopes, the
#: schemes, an operation's requirements, and the origins (each is in every page's header).
_MOST_SCOPES = 256
_MOST_SCHEMES = 64
_MOST_REQUIREMENTS = 64
_MOST_ORIGINS = 8
#: A plain http(s) origin, lower case: a DNS name or an IP address, and a port.
_PLAIN_ORIGIN = re.compile(r"https?://(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
                           r"(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?"
                           r"|\[[0-9a-f:.]{2,45}\])(?::[0-9]{1,5})?\Z")
_AUTH_KEY = "flask_api.auth"  # in a page's environ: its offer, for a challenge added late


class _DocumentAuth(typing.NamedTuple):
    """What the app's document asks for, read once per document."""

    routes: Any  # the `_Routes` the document was built from: rebuilt when they change
    document: Dict[str, Any]
    origins: Tuple[str, ...]  # the block's "origins", and the CSP's connect-src
    offers: Dict[Any, Any]  # (rule, methods, script root): its `_AuthOffer`


class _AuthOffer(dict):
    """The block's document part for one rule (no challenges), with its JSON written once."""

    def __init__(self, offer: Dict[str, Any]) -> None:
        super().__init__(offer)
        self.script = _script_json(offer) if _offers(offer) else None


def _offers(offer: Dict[str, Any]) -> bool:
    """Whether there is something to sign in with: a scheme, or a challenge."""
    return bool(offer and (offer.get("schemes") or offer.get("challenges")))


def _auth_offer(app: Flask, rule: Any, allowed: List[str], headers: Any,
                root: str) -> Dict[str, Any]:
    """The block for a page (see above): the rule's, with this response's challenges;
    ``root``: the request's script root, which a relative URL is a path from."""
    known = _document_auth(app)
    key = (id(rule), tuple(allowed), root)  # None (a page no rule takes) too
    offer = known.offers.get(key)
    if offer is None:
        offer = known.offers[key] = _rule_offer(known, rule, allowed, root)
    challenges = _challenges(headers)
    return dict(offer, challenges=challenges) if challenges else offer


def _document_auth(app: Flask) -> _DocumentAuth:
    """What the document asks for, read again when it is built again; nothing (and a
    warning in the log) where it cannot be built, as the page's form says of its schemas."""
    routes = app.extensions.get("flask_api_routes") or _described_routes(app)
    known = app.extensions.get("flask_api_auth")  # type: Optional[_DocumentAuth]
    if known is None or known.routes is not routes:
        try:
            routes, document, _ = _built(app)
            origins = _origins(_offered_schemes(document, "/"))
        except Exception as exc:  # not a 500 for the page, which stands without sign-in
            app.logger.warning("The page offers no sign-in: the OpenAPI document could not "
                               "be read (%s)", type(exc).__name__)
            document, origins = {"paths": {}}, ()
        known = app.extensions["flask_api_auth"] = _DocumentAuth(routes, document, origins, {})
    return known


def _rule_offer(known: _DocumentAuth, rule: Any, allowed: List[str], root: str) -> _AuthOffer:
    """The block's document part for a rule (None: a page no rule takes) and methods."""
    try:
        schemes = _offered_schemes(known.document, root + "/")
        operations = _operations_security(known.document, rule, allowed) if rule else {}
    except Exception:  # a document of another shape: the challenges alone
        schemes, operations = {}, {}
    return _AuthOffer({"schemes": schemes, "operations": operations, "challenges": [],
                       "origins": list(known.origins)})


def _offered_schemes(document: Dict[str, Any], root: str) -> Dict[str, Any]:
    """The document's security schemes as the page gets them (see above)."""
    components = document.get("components")
    schemes = components.get("securitySchemes") if isinstance(components, dict) else None
    offered = {}  # type: Dict[str, Any]
    for name, scheme in list(schemes.items() if isinstance(schemes, dict) else ())[
            :_MOST_SCHEMES]:
        with contextlib.suppress(_Unreadable):
            found = _offered_scheme(_dereferenced(scheme, document), root)
            if found is not None and isinstance(name, str):
                offered[name] = found
    return offered


def _dereferenced(value: Any, document: Dict[str, Any]) -> Any:
    """What a ``$ref`` (to a ``$ref``, ...) points at; a loop or a remote one, nothing."""
    for _ in range(_DEEPEST_REF):
        ref = value.get("$ref") if isinstance(value, dict) else None
        if not isinstance(ref, str):
            return value
        if not ref.startswith("#/"):
            return None
        value = _target(ref, document)
    return None


def _offered_scheme(scheme: Any, root: str) -> Optional[Dict[str, Any]]:
    """A Security Scheme Object with the keys the page reads, of their types; its URLs
    kept as `_web_url` allows them. None for what is not one."""
    if not isinstance(scheme, dict) or not isinstance(scheme.get("type"), str):
        return None
    offered = {key: scheme[key] for key in _SCHEME_KEYS
               if isinstance(scheme.get(key), str)}  # type: Dict[str, Any]
    if "openIdConnectUrl" in offered:
        url = _web_url(offered.pop("openIdConnectUrl"), root)
        if url:
            offered["openIdConnectUrl"] = url
    flows = scheme.get("flows")
    if isinstance(flows, dict):
        offered["flows"] = {name: _offered_flow(flow, root) for name, flow in flows.items()
                            if name in _FLOW_NAMES and isinstance(flow, dict)}
    return offered


def _offered_flow(flow: Dict[str, Any], root: str) -> Dict[str, Any]:
    """An OAuth Flow Object: its URLs that `_web_url` allows, and its scopes."""
    offered = {}  # type: Dict[str, Any]
    for key in _FLOW_URLS:
        url = _web_url(flow[key], root) if isinstance(flow.get(key), str) else None
        if url:
            offered[key] = url
    scopes = flow.get("scopes")
    if isinstance(scopes, dict):
        offered["scopes"] = {scope: text for scope, text in list(scopes.items())[:_MOST_SCOPES]
                             if isinstance(scope, str) and isinstance(text, str)}
    return offered


def _web_url(url: str, root: str) -> Optional[str]:
    """An http(s) URL on a plain origin as it is, or a relative reference as a path from
    ``root`` on the page's origin; None for any other (``javascript:``, ``//host``, a quote)."""
    if not _SAFE_TARGET.match(url) or url.startswith("//"):
        return None
    if url.startswith(("http://", "https://")):
        return url if _origin(url) else None
    return urljoin(root, url)


def _origin(url: str) -> Optional[str]:
    """An absolute http(s) URL's origin, if it is a plain one (`_PLAIN_ORIGIN`)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # "https://[::1;x]/": not an IPv6 address
        return None
    origin = "{}://{}".format(parts.scheme, parts.netloc).lower()
    return origin if len(origin) <= 300 and _PLAIN_ORIGIN.match(origin) else None


def _origins(schemes: Dict[str, Any]) -> Tuple[str, ...]:
    """The origins of the schemes' token, refresh and OpenID Connect URLs, the first
    `_MOST_ORIGINS` of them: a page's header must not grow with its document."""
    urls = [url for scheme in schemes.values() for url in [scheme.get("openIdConnectUrl")] + [
        flow.get(key) for flow in (scheme.get("flows") or {}).values()
        for key in ("tokenUrl", "refreshUrl")]]
    found = []  # type: List[str]
    for url in urls:
        origin = _origin(url) if url and url.startswith(("http://", "https://")) else None
        if origin and origin not in found:
            found.append(origin)
    return tuple(found[:_MOST_ORIGINS])


def _operations_security(document: Dict[str, Any], rule: Any,
                         allowed: List[str]) -> Dict[str, List[Dict[str, List[str]]]]:
    """Each allowed method's security requirements, as the block has them (see above)."""
    item = document.get("paths", {}).get(_path(rule)[0])
    if not isinstance(item, dict):
        return {}
    extra = item.get("additionalOperations")
    default = document.get("security") or []
    found = {}  # type: Dict[str, List[Dict[str, List[str]]]]
    for method in allowed:
        operation = item.get(method.lower()) or (
            extra.get(method) if isinstance(extra, dict) else None)
        if method == "HEAD" and operation is None:  # answered by the GET view
            operation = item.get("get")
        if isinstance(operation, dict):
            found[method] = _requirements(operation.get("security", default))
    return found


def _requirements(security: Any) -> List[Dict[str, List[str]]]:
    """Security requirements as OpenAPI writes them, each {name: [scopes]}; what is not
    one is left out."""
    found = []
    for requirement in security[:_MOST_REQUIREMENTS] if isinstance(security, list) else ():
        if isinstance(requirement, dict) and all(
                isinstance(name, str) and isinstance(scopes, list)
                and all(isinstance(scope, str) for scope in scopes)
                for name, scopes in requirement.items()):
            found.append({name: list(scopes) for name, scopes in requirement.items()})
    return found


@functools.lru_cache(maxsize=64)
def _with_auth_origins(headers: Tuple[Tuple[str, str], ...],
                       origins: Tuple[str, ...]) -> Tuple[Tuple[str, str], ...]:
    """The page's headers with these origins in its CSP's connect-src: the template's
    hashes, computed once, and the document's origins, checked once (`_origins`)."""
    sources = " ".join(origin for origin in origins if _PLAIN_ORIGIN.match(origin))
    return tuple((name, value.replace("connect-src 'self';", "connect-src 'self' {};".format(
        sources), 1) if name == "Content-Security-Policy" and sources else value)
        for name, value in headers)


# RFC 9110, 11.6.1: challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ], in a list.
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_CHALLENGE_SCHEME = re.compile(r"[ \t,]*({})(?=[ \t,]|\Z)".format(_TOKEN))
_TOKEN68 = re.compile(r"[ \t]+([A-Za-z0-9._~+/-]+=*)[ \t]*(?=,|\Z)")
_AUTH_PARAM = r'({0})[ \t]*=[ \t]*(?:({0})|"([^"\\]*(?:\\.[^"\\]*)*)")[ \t]*(?=,|\Z)'.format(
    _TOKEN)
_FIRST_PARAM = re.compile(r"[ \t]+" + _AUTH_PARAM)
_NEXT_PARAM = re.compile(r"[ \t]*,[ \t,]*" + _AUTH_PARAM)
_LIST_GOES_ON = re.compile(r"[ \t]*(?:,|\Z)")
_QUOTED_PAIR = re.compile(r"\\(.)")
#: A response's challenges are read from the first this many characters of its
#: WWW-Authenticate headers, at most this many, of at most this many parameters each: a
#: header of 100 KB or of 10,000 challenges costs the page little, and shows a few.
_CHALLENGE_TEXT = 8192
_MOST_CHALLENGES = 16
_MOST_PARAMS = 16


def _challenges(headers: Any) -> List[Dict[str, Any]]:
    """The WWW-Authenticate challenges of a response's headers (see above); [] for none,
    and for what does not parse from where it stops parsing."""
    if not headers:
        return []
    items = headers.items() if isinstance(headers, dict) else headers
    values = [str(value) for name, value in items if str(name).lower() == "www-authenticate"]
    if not values:
        return []
    text = ", ".join(values)  # one header or several: the same list (RFC 9110, 5.3)
    found, end = _parsed_challenges(text[:_CHALLENGE_TEXT])
    if end == _CHALLENGE_TEXT < len(text):
        found.pop()  # the last one runs to where the text was cut: it may be cut short
    return [_checked(challenge) for challenge in found]


def _parsed_challenges(text: str) -> Tuple[List[Dict[str, Any]], int]:
    """Each challenge in a WWW-Authenticate value, up to one that does not parse, and
    where the last one ends."""
    found, end = [], 0  # type: List[Dict[str, Any]], int
    while len(found) < _MOST_CHALLENGES:
        scheme = _CHALLENGE_SCHEME.match(text, end)
        if scheme is None:  # the end, or what no challenge starts with
            break
        challenge = {"scheme": scheme.group(1), "token68": None, "params": {}}  # type: Any
        token68 = _TOKEN68.match(text, scheme.end())
        if token68:
            challenge["token68"], at = token68.group(1), token68.end()
        else:
            at = _parsed_params(text, scheme.end(), challenge["params"])
            if not _LIST_GOES_ON.match(text, at):  # neither a comma nor the end: not one
                break
        found.append(challenge)
        end = at
    return found, end


def _parsed_params(text: str, at: int, params: Dict[str, str]) -> int:
    """Read a challenge's auth-params from ``at`` into ``params``; where they end. A name
    given twice keeps its first value (RFC 9110 lets each be given once)."""
    param = _FIRST_PARAM.match(text, at)
    while param is not None:
        name, token, quoted = param.groups()
        if len(params) < _MOST_PARAMS:
            params.setdefault(name.lower(), token if quoted is None else _QUOTED_PAIR.sub(
                r"\1", quoted))
        at = param.end()
        param = _NEXT_PARAM.match(text, at)
    return at


def _checked(challenge: Dict[str, Any]) -> Dict[str, Any]:
    """A challenge with what its scheme's RFC does not allow left out: a Basic charset
    but "UTF-8" (RFC 7617), a Bearer error_uri that is not an http(s) URL (RFC 6750)."""
    params, scheme = challenge["params"], challenge["scheme"].lower()
    if scheme == "basic" and "charset" in params:
        charset = params.pop("charset")
        if charset.lower() == "utf-8":
            params["charset"] = "UTF-8"
    if scheme == "bearer" and "error_uri" in params and not (
            params["error_uri"].startswith(("http://", "https://"))
            and _web_url(params["error_uri"], "/")):
        del params["error_uri"]
    return challenge


#: The block, as the template writes it, and where a page without one gets it.
_AUTH_BLOCK = '<script type="application/json" id="api-auth">{}</script>'
_AUTH_OPENING = _AUTH_BLOCK.split("{}")[0].encode("ascii")


def _write_late_challenges(response: Response, late: List[Tuple[str, str]],
                           environ: Dict[str, Any]) -> None:
    """A WWW-Authenticate added after the page was rendered (Flask-HTTPAuth's decorator adds
    it to the response its error handler made): its challenges written into the page's
    block, or a block added before ``</body>``, unless a hook has compressed the page."""
    if (_AUTH_KEY not in environ or response.is_streamed
            or not any(name.lower() == "www-authenticate" for name, _ in late)
            or "Content-Encoding" in response.headers):  # last: werkzeug raises for a no
        return
    offer = dict(environ[_AUTH_KEY] or {}, challenges=_challenges(response.headers))
    if not _offers(offer):
        return
    block = Markup(_AUTH_BLOCK).format(_script_json(offer)).encode("utf-8")
    body = response.get_data()
    start = body.find(_AUTH_OPENING)
    if start >= 0:
        end = body.find(b"</script>", start) + len(b"</script>")
    else:
        start = end = body.rfind(b"</body>")
    if start >= 0 and end >= start:
        response.set_data(body[:start] + block + body[end:])


# ---------------------------------------------------------------------------
# Flask-API 3.x compatibility: names and sub-modules kept only for code written for 3.x
# ---------------------------------------------------------------------------
# Public: parse_accept_header, BaseNegotiation, DefaultNegotiation, APISettings (FlaskAPI
# keeps one), default_settings, and the sub-modules flask_api.status, .exceptions, ....

def parse_accept_header(accept: str) -> List[Set[MediaType]]:
    """An Accept header as sets of media types, the most specific set first (Flask-API 3.x).

    Quality values do not order the sets; negotiation weighs them itself.
    """
    by_precedence = [set(), set(), set(), set()]  # type: List[Set[MediaType]]
    for media_type in _accepted[(accept,)]:
        by_precedence[3 - media_type.precedence].add(media_type)
    return [media_types for media_types in by_precedence if media_types]


class BaseNegotiation:
    """Chooses a parser by Content-Type and a renderer by Accept (Flask-API 3.x name)."""

    def select_parser(self, parsers: Sequence[Any], req: Any = None) -> Tuple[Any, MediaType]:
        raise _unimplemented(self, "select_parser")

    def select_renderer(self, renderers: Sequence[Any], req: Any = None,
                        app: Any = None) -> Tuple[Any, MediaType]:
        raise _unimplemented(self, "select_renderer")


class DefaultNegotiation(BaseNegotiation):
    """3.x's negotiation object, for code that calls it; requests negotiate without it."""

    def select_parser(self, parsers: Sequence[Any], req: Any = None) -> Tuple[Any, MediaType]:
        """The first parser for the request's Content-Type, or `UnsupportedMediaType`."""
        return _select_parser(tuple(parsers), (req or request).environ)

    def select_renderer(self, renderers: Sequence[Any], req: Any = None,
                        app: Any = None) -> Tuple[Any, MediaType]:
        """The renderer for the request's Accept (or ``?format=``), or `NotAcceptable`."""
        return _select_renderer(tuple(renderers), (req or request).environ, app)


class APISettings:
    """3.x's ``app.api_settings``: the configured parser and renderer classes."""

    def __init__(self, user_config: Optional[Dict[str, Any]] = None) -> None:
        self.user_config = user_config or {}

    def _classes(self, key: str, default: List[Any]) -> Any:
        """The classes a setting names; one dotted string alone is one class, as in 3.x."""
        items = self.user_config.get(key, default)
        if isinstance(items, str):
            return _import(items, key)
        return [_import(item, key) if isinstance(item, str) else item for item in items]

    @property
    def DEFAULT_PARSERS(self) -> Any:
        return self._classes("DEFAULT_PARSERS", list(_DEFAULT_PARSERS))

    @property
    def DEFAULT_RENDERERS(self) -> Any:
        return self._classes("DEFAULT_RENDERERS", list(_DEFAULT_RENDERERS))


default_settings = APISettings()


def _namespace(name: str, names: Iterable[str]) -> types.ModuleType:
    module = types.ModuleType(__name__ + "." + name, "Flask-API 3.x compatible names.")
    module.__dict__.update((n, globals()[n]) for n in names)
    sys.modules[module.__name__] = module
    return module


status = _namespace("status", [n for n in list(globals())
                               if re.match(r"HTTP_[0-9]{3}_|is_", n)])
exceptions = _namespace("exceptions", [
    "APIException", "ParseError", "AuthenticationFailed", "NotAuthenticated", "PermissionDenied",
    "NotFound", "MethodNotAllowed", "NotAcceptable", "UnsupportedMediaType", "Throttled"])
mediatypes = _namespace("mediatypes", ["MediaType", "parse_accept_header"])
negotiation = _namespace("negotiation", ["BaseNegotiation", "DefaultNegotiation"])
parsers = _namespace("parsers", ["BaseParser", "JSONParser", "URLEncodedParser",
                                 "MultiPartParser"])
renderers = _namespace("renderers", ["BaseRenderer", "JSONRenderer", "HTMLRenderer",
                                     "BrowsableAPIRenderer"])
decorators = _namespace("decorators", ["set_parsers", "set_renderers"])
settings = _namespace("settings", ["APISettings", "default_settings"])
app = _namespace("app", ["FlaskAPI"])
response = _namespace("response", ["APIResponse"])
request_module = _namespace("request", ["APIRequest"])  # ``request`` is Flask's proxy here


# ---------------------------------------------------------------------------
# The page template: its markup, style and script, written here from page/
# ---------------------------------------------------------------------------
# Called from outside this section only through: _PAGE, which _page() compiles, and whose
# blocks a template of the app's may extend. Autoescaped however the app's Jinja is
# configured; no request leaves this host: the style and script are inline. Their sources
# are the repository's page/ (page.html, page.css, and script/, a file per section): this
# file keeps them as raw strings so that it stays the one file to copy.

# <page/>: written by tools/page.py from page/; edit those files, then run it.

# language=Jinja2
_PAGE_MARKUP = r"""
{#- The browsable page's markup, a Jinja template, autoescaped: tools/page.py writes it into
    flask_api.py as _PAGE_MARKUP. Its style (page.css) and script (script/) go in where their
    blocks hold a placeholder (see _PAGE there), as the mark of _LATE_HEADERS does. What the
    script needs to know of the exchange is in the response panel's data attributes, not in
    its text. -#}
{% autoescape true %}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>{% block title %}{{ title }} &middot; {{ branding }}{% endblock %}</title>
{#- The page's style and script, files a browser fetches once and keeps (_assets): the
    script loads before the body, as it must start first (see start()) -#}
{% block assets %}
<link rel="stylesheet" href="{{ assets["style"] }}">
<script src="{{ assets["script"] }}"></script>
{%- endblock %}
{#- What a template of the app's adds to these two blocks is inline, allowed by its hash -#}
{% set _own_style %}{% block style %}{% endblock %}{% endset %}
{%- set _own_script %}{% block script %}{% endblock %}{% endset %}
{%- if _own_style %}<style>{{ _own_style }}</style>{% endif %}
{%- if _own_script %}<script>{{ _own_script }}</script>{% endif %}
</head>
<body>
<header><div class="wrap">
  <a class="brand" href="{{ root_url }}">{% block branding %}{{ branding }}{% endblock %}</a>
  <nav class="crumbs" aria-label="Breadcrumbs"><ol>
    {%- for name, href in breadcrumbs %}
    <li><a href="{{ href }}"{% if loop.last %} aria-current="page"{% endif %}>{{ name }}</a></li>
    {%- endfor %}
  </ol></nav>
</div></header>
<main class="wrap">
{#- Hidden by the style, unless the script could not run: then it says why the page is plain -#}
<p class="assets-missing">This page's style or script could not be loaded (offline, blocked, or
saved without them). What the API answered is all here, as text; the links and forms work.</p>
{% block content %}
<h1>{{ title }}</h1>
{% if description_html %}<div class="description">{{ description_html }}</div>
{% elif description %}<pre class="description">{{ description }}</pre>{% endif %}

{#- Filled by the script: request headers for every request it sends -#}
<section id="api-headers" class="tools" aria-label="Request headers" hidden></section>
{#- Filled by the script: sign in as the API asks (the api-auth block, below) -#}
<section id="api-signin" class="tools" aria-label="Sign in"{% if not auth %} hidden{% endif %}>
{%- if auth %}<p class="hint">Signing in from this page needs JavaScript. Without it, your
browser asks for a username and password itself where the API answers with an HTTP Basic
challenge; a token, an API key or OAuth needs JavaScript, or another client (curl).</p>
{%- endif %}</section>

<div class="bar" role="group" aria-label="Requests">
  {% if "GET" in allowed %}
  <a class="button" href="{{ path }}">GET</a>
  {% if json_url %}<a class="button" href="{{ json_url }}">View as JSON</a>{% endif %}
  {% endif %}
  {% for verb in ("OPTIONS", "DELETE") if verb in allowed %}
  <form method="post" data-api><input type="hidden" name="_method" value="{{ verb }}">
    {%- if csrf_token %}<input type="hidden" name="csrf_token" value="{{ csrf_token }}">{% endif %}
    <button{% if verb == "DELETE" %} class="danger"{% endif %}>{{ verb }}</button></form>
  {% endfor %}
</div>

{#- Filled by the script: this URL's query parameters, to edit and send as a GET -#}
<section id="api-query" class="tools" aria-label="Query parameters" hidden></section>

{#- The response's Link header relations (RFC 8288), as buttons -#}
{% if links %}<div class="bar" role="navigation" aria-label="Links">
  {%- for rel, href in links %}
  <a class="button" rel="{{ rel }}" href="{{ href }}">{{ rel }}</a>
  {%- endfor %}
</div>{% endif %}

<pre class="response" data-method="{{ method }}" data-url="{{ path }}"
  {%- if size %} data-size="{{ size }}"{% endif %}
  data-status="{{ (status_line or "").split(" ")[0] }}"
  {%- if stream %} data-stream="{{ stream }}"{% endif %}
  {%- if not status_ok %} data-error{% endif %}><span class="key">{{ method }} {{ path }}</span>

<span class="status{% if not status_ok %} error{% endif %}">HTTP {{ status_line }}</span>
{% for name, value in headers %}<span class="key">{{ name }}:</span> {{ value }}
{% endfor %}{# _LATE_HEADERS #}
<span class="body">{{ body_html }}
{%- if stream %}This response is a stream ({{ stream }}): its items follow the page as they
arrive, <a href="#api-items">below it</a>; or
{%- if stream_url %} <a href="{{ stream_url }}">open the raw stream</a>.
{%- else %} ask for it with an Accept: {{ stream }} header (curl -H).{% endif %}
{%- endif %}</span></pre>
{#- Filled by the script: "Copy as curl" for the request behind this response -#}
<div id="api-curl" class="bar" hidden></div>
{%- if auth %}<script type="application/json" id="api-auth">{{ auth }}</script>{% endif %}

{% if "POST" in allowed or "PUT" in allowed or "PATCH" in allowed %}
{%- if schemas %}
<script type="application/json" id="api-schemas">{{ schemas }}</script>
{%- endif %}
<form method="post" data-api>
{%- if csrf_token %}<input type="hidden" name="csrf_token" value="{{ csrf_token }}">{% endif %}
<fieldset><legend>Send a request</legend>
  <label for="api-media-type">Media type</label>
  <select id="api-media-type" name="_content_type">
    <option>application/json</option>
    <option>application/x-www-form-urlencoded</option>
    <option>multipart/form-data</option>
  </select>
  <label for="api-content">Content</label>
  <textarea id="api-content" name="_content"
    placeholder='JSON such as {"text": "..."}, or text=... for the form types'
    >{{ content }}</textarea>
  <div class="bar">
  {%- for verb in ("POST", "PUT", "PATCH") if verb in allowed %}
    <button name="_method" value="{{ verb }}">{{ verb }}</button>
  {%- endfor %}
  </div>
</fieldset>
</form>
{% endif %}
{#- Filled by the script: the requests this tab sent, their answers kept (sessionStorage) -#}
<section id="api-history" class="tools" aria-label="History" hidden></section>
{% endblock %}
</main>
{# _STREAM_ITEMS #}</body>
</html>
{% endautoescape %}
"""

# language=CSS
_PAGE_STYLE = r"""
/* The browsable page's style: tools/page.py writes it into flask_api.py as _PAGE_STYLE. */
:root { --bg: #fff; --fg: #1c2330; --muted: #5a6474; --line: #d9dee6; --panel: #f4f6f9;
  --accent: #0a5cc2; --ok: #137a39; --err: #b3261e; --mark: #fff1a8; --edge: #7f8896; }
@media (prefers-color-scheme: dark) { :root { --bg: #101318; --fg: #e4e8ee; --muted: #9ba4b1;
  --line: #2b313b; --panel: #181c23; --accent: #73b4ff; --ok: #52d083; --err: #ff8a80;
  --mark: #403500; --edge: #6b7482; } }
/* --line draws the page's parts; --edge a control's bounds, at 3:1 (WCAG 1.4.11) */
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header { background: var(--panel); border-bottom: 1px solid var(--line); }
.wrap { max-width: 62rem; margin: 0 auto; padding: .75rem 1rem; }
a { color: var(--accent); }
.brand { font-weight: 700; color: var(--fg); text-decoration: none; }
.crumbs ol { display: flex; flex-wrap: wrap; gap: .35rem; list-style: none;
  margin: .35rem 0 0; padding: 0; }
.crumbs li + li::before { content: "/"; color: var(--muted); margin-right: .35rem; }
h1 { font-size: 1.6rem; margin: 1rem 0 .5rem; }
.description { color: var(--muted); }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .8rem;
  overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
.status { font-weight: 700; color: var(--ok); }
.status.error { color: var(--err); }
.key { color: var(--muted); }
.bar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .75rem 0; }
.bar form { margin: 0; }
.button, button, select, textarea { font: inherit; color: inherit; background: var(--bg);
  border: 1px solid var(--edge); border-radius: 6px; }
.button, button { padding: .35rem 1rem; background: var(--panel); font-weight: 600;
  text-decoration: none; cursor: pointer; }
.button:hover, button:hover, .button:focus-visible, button:focus-visible {
  border-color: var(--accent); }
button.danger { color: var(--err); border-color: var(--err); }
select { padding: .35rem; max-width: 100%; }
textarea { width: 100%; min-height: 9rem; padding: .6rem; }
pre, textarea { font: 14px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
fieldset { border: 1px solid var(--line); border-radius: 8px; margin: 0; padding: .5rem 1rem 1rem;
  min-width: 0; }
main { padding-bottom: 2rem; }
.crumbs [aria-current] { color: var(--fg); font-weight: 600; text-decoration: none; }
label { display: block; font-weight: 600; margin: .6rem 0 .25rem; }
/* Said only where the script did not run though the browser runs scripts: it failed to load */
.assets-missing { display: none; }
@media (scripting: enabled) { html:not(.enhanced) .assets-missing { display: block; } }
.assets-missing { border: 1px solid var(--err); border-radius: 8px; padding: .5rem .8rem; }
/* The tools the script adds: headers panel, query form, form tabs, curl */
[hidden] { display: none !important; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip-path: inset(50%); white-space: nowrap; }
input { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--edge);
  border-radius: 6px; padding: .3rem .5rem; max-width: 100%; }
details { background: var(--panel); border: 1px solid var(--line); border-radius: 8px;
  padding: .4rem .8rem; margin: .5rem 0; }
summary { cursor: pointer; font-weight: 600; }
.tools.active summary { color: var(--accent); }
.tools ul { margin: .25rem 0; padding-left: 1.2rem; }
.tools li { margin: .2rem 0; }
.hint { color: var(--muted); margin: .3rem 0; }
.hint.error { color: var(--err); }
.bar label { margin: 0; }
code, pre.curl { font: 14px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.tabs { display: flex; gap: .25rem; margin: .25rem 0 .5rem; }
[role=tab][aria-selected=true] { border-color: var(--accent); color: var(--accent); }
.field input:not([type=checkbox]), .field textarea { width: 100%; }
.field.boolean label { display: inline-block; margin-right: .5rem; }
textarea.json { min-height: 4.5rem; }
pre.curl { user-select: all; }
.chunk { display: block; content-visibility: auto; contain-intrinsic-size: auto 10000px; }
/* The body's JSON tree */
.json-tree pre.response > .body { display: none; }
.refetch body { visibility: hidden; }
.tree { display: block; padding-left: 24px; }
.tree .line { display: block; }
.tree .kids { display: none; padding-left: 2ch; }
.tree .open > .kids { display: block; }
.tree .open > .more, .tree .open > .range::after { display: none; }
.tree .more::after { content: attr(data-more); color: var(--muted); }
.tree .range::before { content: attr(data-range); color: var(--muted); }
.tree .index::before { content: "[" attr(data-index) "] "; color: var(--muted); }
/* fold buttons 24 px square (WCAG 2.5.8), so a line with one is 24 px high */
.tree .fold { border: 0; background: none; padding: 0; margin-left: -24px; width: 24px;
  height: 24px; vertical-align: top; font-weight: 400; color: var(--muted); }
.tree .fold::before { content: "\25B8"; }
.tree .open > .fold::before { content: "\25BE"; }
.tree .k { color: var(--fg); font-weight: 600; }
.tree .s { color: var(--ok); }
.tree .n, .tree .l { color: var(--accent); }
.tree .hit > .k, .tree .hit > .s, .tree .hit > .n, .tree .hit > .l { background: var(--mark); }
.tree-tools input[type=search] { flex: 1 1 12rem; }
.field .null { display: inline-flex; gap: .3rem; font-weight: 400; margin: .2rem 0 0; }
.rows .bar { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr) auto; }
.rows input { width: 100%; }
.tree .s { overflow-wrap: anywhere; }
/* A finger, not a mouse: every control at least 44 px to tap; the tree's fold buttons keep
   their lines' height and tap wider than they look */
@media (pointer: coarse) {
  button, .button, select, summary, input { min-height: 44px; }
  .button { display: inline-flex; align-items: center; }
  summary { line-height: 44px; }
  input[type=checkbox] { width: 44px; height: 44px; margin: 0; }
  .tree .fold { min-height: 0; position: relative; }
  .tree .fold::after { content: ""; position: absolute; inset: -.7rem -.5rem; }
}
.field.null > input[type=text]::placeholder { color: var(--muted); }
/* The form from the schema: a required field's mark, nested objects and arrays */
/* "*" seen, not read: the field's required attribute is what is announced */
label.required::after { content: " *" / ""; color: var(--err); }
.field > fieldset, [data-kind=shapes] > fieldset { margin: .6rem 0 0; }
.field > .remove { margin: .3rem 0 0; }
/* Windows high contrast: system colours replace the page's, so what only a colour said (the
   selected tab, the filter's matches) says it with theirs; nothing on the page moves by itself */
@media (forced-colors: active) {
  [role=tab][aria-selected=true], .tree .hit > * { forced-color-adjust: none;
    background: Highlight; color: HighlightText; }
  .tree .fold { color: ButtonText; }
}
/* A request's timing line; a stream's items, the last ones kept, an error in the error colour */
.timing, .stream-line { color: var(--muted); font-weight: 400; }
.stream-line, .items, .item { display: block; }
.items { contain: content; }
.item { content-visibility: auto; contain-intrinsic-size: auto 4.5em; }
.item + .item { border-top: 1px solid var(--line); }
.stream-line.error, .item.error > .key { color: var(--err); }
/* A stream's items as the server sends them after the page: shown so without JavaScript */
.stream-items ol { padding-left: 4ch; }
.stream-items li { font: 14px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.stream-items .key { margin-right: .5ch; }
.stream-end.error { color: var(--err); }
/* The sign-in panel: its fields, its scopes as boxes of 24 px, the list it is signed in with */
.signin-form input:not([type=checkbox]), .signin-form select { width: 100%; max-width: 30rem; }
.signin-form > div > button { margin-top: .75rem; }
.scopes > div { display: flex; align-items: center; gap: .5rem; }
.scopes label { font-weight: 400; margin: .15rem 0; }
.scopes input { width: 24px; height: 24px; margin: 0; flex: none; }
@media (pointer: coarse) { .scopes input { width: 44px; height: 44px; } }
#api-signin-list:empty { display: none; }
/* The history: its entries, each a line and its buttons; an entry opened, under the list */
ol.history { padding-left: 3ch; }
ol.history li { margin: .3rem 0; }
ol.history code { overflow-wrap: anywhere; }
#api-history-shown h2 { font-size: 1.1rem; margin: .75rem 0 .25rem; }
/* The request as code: the language, the buttons, and whether to include stored values */
.code-tools label { display: inline-flex; gap: .4rem; align-items: center; font-weight: 400; }
.code-tools input[type=checkbox] { width: 24px; height: 24px; margin: 0; }
#api-history-shown textarea { min-height: 3.5rem; }
/* A comparison: each change's kind in words, coloured too */
ol.diff { padding-left: 3ch; }
ol.diff li { margin: .2rem 0; overflow-wrap: anywhere; }
.change { font-weight: 600; }
.change.added { color: var(--ok); }
.change.removed { color: var(--err); }
.change.changed { color: var(--accent); }
"""

# language=JavaScript
_PAGE_SCRIPT = r"""
(function () {
"use strict";

// The page's tools, which its plain links and forms work without: one scope, no globals; the
// functions in the order a reader meets the page, then start(), which runs as the page loads.
//
// Its sections, in that order, each a file of page/script/ under a banner that says what it
// owns (tools/page.py writes them one after another into this one scope, and calls start()):
//   The script's state, and a DOM builder   state, the one object it keeps; el(), counted()
//   Request headers     the headers panel: headers kept for this tab, checked, added, removed
//   Signing in          the sign-in panel: the API's schemes offered, a credential kept for
//                       this tab like the headers; OAuth 2.0 (PKCE), refresh (shared by the
//                       tabs of a sign-in), sign-out
//   Requests            send() and what calls it: links, the request form, navigation
//   Coming back         reloads, Back and Forward, pages another site sent the user to
//   The query form      this URL's parameters, edited and sent as a GET
//   The response panel  a response shown: request line, status, headers, body; timing, focus
//   The body as data    the body's JSON as nodes that lose nothing (parseJSON, writeJSON)
//   The body as a tree  the JSON tree: fold, unfold, filter, links, copy
//   The form tab        the request form's fields from the body, and the raw box
//   The form from the schema   the fields the app's OpenAPI document describes, and checks
//   Copy as curl        the curl command of the response shown, and of each form's request
//   A stream, live      a stream's items as they arrive: read, drawn, stopped, resumed
//   The request as code HTTPie, Python and fetch beside curl; an answer as a pytest test
//   History             every answer shown, kept for this tab: opened, resent, cleared
//   Compare             two answers' differences, by path, from the lossless JSON
//   Start               enhance() builds every tool; start() listens
// (page/test/hand-over.js hands the pure parts to the unit tests, in their build only.)

// ---- The script's state, and a DOM builder: what it keeps, and how it makes elements ----

// What the script keeps between events; all else it reads from the page as it needs it.
const state = {
  sent: null,  // the request the page last sent: {method, url, body, type}
  headersOpen: false,  // the headers panel stays open across page swaps
  navigation: 0,  // the latest navigation's number: an older one's answer is dropped
  filter: null,  // while filtering the tree: {keep: nodes on the way to a match, hits: matches}
  lines: new WeakMap(),  // a tree line's {node, from, to, index}: a value, or a group's range
  schemas: new WeakMap(),  // a schema form's field: its schema's keywords, for its checks
  times: new WeakMap(),  // a response's {started, firstByte}, from performance.now()
  stream: null,  // the stream shown live: see streamLive()
  parsed: false,  // this page's tools are built (a stream's page: as its items begin)
  signinOpen: false,  // the sign-in panel stays open across page swaps
  signinFormOpen: false,  // so does its form, unfolded under the credentials signed in with
  expiredSaid: new Set(),  // the credentials whose expiry the panel has said (their values)
  signinSaid: null,  // what the next sign-in panel says first: {text, error}
  signinClock: 0,  // the panel's clock, which counts down and refreshes: see signinTick()
  refreshing: null,  // the refresh under way, a promise: one at a time
  unrefreshed: "",  // a token whose refresh could not reach the server: tried again on demand
  channel: null,  // the BroadcastChannel to the other tabs of this origin: see shareSignins()
  held: new Map(),  // the Web Locks this tab holds for its sign-ins: name to {release, held}
  handovers: new Map(),  // a sign-in's grant to the call that takes another tab's newer tokens
  landing: null,  // an authorization server's answer in the URL the page loaded: landedAnswer()
  historyOpen: false,  // the history panel stays open across page swaps
  historySaid: "",  // what keeping the history last said: the storage full, in words
  testApp: "from app import app",  // how the app's tests get the app: see testOfEntry()
};

// A DOM builder: el("button", {type: "button", onclick: back}, ["Back"]); functions listen.
function el(tag, attributes, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (typeof value === "function") node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  node.append(...(children || []));
  return node;
}

// A whole number with its thousands marked, as Intl.NumberFormat("en") writes it: 1,000. Not
// Intl itself: a tab's first Intl object starts ICU, 20 ms of a first visit's start-up.
function grouped(count) {
  return String(count).replace(/\B(?=(?:[0-9]{3})+$)/g, ",");
}

// A count and its noun: "1 item", "2,000 items" ("1 match", "3 matches": the plural given).
function counted(count, one, many = one + "s") {
  return grouped(count) + " " + (count === 1 ? one : many);
}

// ---- Request headers: kept for this tab, checked, and edited in the panel ----

const HEADERS_KEY = "flask-api-headers";  // where sessionStorage keeps them

// Names a browser will not let a page set (the Fetch standard's forbidden request headers).
const FORBIDDEN_HEADER = new RegExp("^(accept-charset|accept-encoding|access-control-request-" +
  "headers|access-control-request-method|connection|content-length|cookie2?|date|dnt|expect|" +
  "host|keep-alive|origin|referer|set-cookie|te|trailer|transfer-encoding|upgrade|via|proxy-.*|" +
  "sec-.*)$", "i");

// The headers the user added, for this tab and origin: [[name, value], ...], those it can send.
function savedHeaders() {
  let list;
  try { list = JSON.parse(sessionStorage.getItem(HEADERS_KEY)) || []; } catch { list = []; }
  // any an older page kept that this one cannot send are left out, or every request would fail
  return Array.isArray(list) ? list.filter((pair) =>
    Array.isArray(pair) && !headerProblem(String(pair[0]), String(pair[1]))) : [];
}

// Why fetch() would refuse a header, or "": a name not a token, or forbidden; a value not Latin-1.
function headerProblem(name, value) {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    return "A header name is letters, digits and !#$%&'*+.^_`|~- only.";
  }
  if (FORBIDDEN_HEADER.test(name)) return "Browsers do not let a page send " + name + ".";
  if (!/^[\t\x20-\x7e\xa0-\xff]*$/.test(value)) {
    return "This value has a character a header cannot carry: only Latin-1 text goes.";
  }
  return "";
}

// The panel's headers as an object, plus the given ones.
function panelHeaders(extra) {
  return Object.assign(Object.fromEntries(savedHeaders()), extra);
}

// Keep new headers (forget them all, for none), fetch this page again with them, focus a place.
function changeHeaders(list, focusOn) {
  if (list.length) sessionStorage.setItem(HEADERS_KEY, JSON.stringify(list));
  else sessionStorage.removeItem(HEADERS_KEY);
  state.headersOpen = true;
  navigate(window.location.href, false, focusOn);
}

// The request headers panel: the active headers, a remove button each, add, clear all.
function headersPanel() {
  const section = document.getElementById("api-headers");
  if (!section) return;
  const list = savedHeaders(), names = list.map((pair) => pair[0]);
  const rows = list.map((pair, index) => el("li", {}, [
    el("code", {}, [pair[0] + ": " + pair[1]]), " ",
    el("button", {type: "button", "aria-label": "Remove " + pair[0],
      onclick: () => changeHeaders(list.filter((other, at) => at !== index), "#api-headers summary")
    }, ["Remove"])]));
  const details = el("details", {ontoggle: () => { state.headersOpen = details.open; }}, [
    el("summary", {}, [list.length ? "Request headers: " + names.join(", ") : "Request headers"]),
    el("p", {class: "hint"}, [list.length ? "Sent with every request this page makes, links " +
      "included; kept until this tab is closed." : "None set: add one to send it with every " +
      "request this page makes."]),
    el("ul", {"aria-label": "Active request headers"}, rows), addHeaderForm(list)]);
  if (list.length) {
    details.append(el("button", {type: "button",
      onclick: () => changeHeaders([], "#api-headers summary")},
      ["Clear headers"]));
  }
  details.open = state.headersOpen;
  section.replaceChildren(details);
  section.hidden = false;
  section.classList.toggle("active", list.length > 0);
}

// The form that adds a header (or replaces the one of its name), refusing what cannot be sent.
function addHeaderForm(list) {
  const name = el("input", {id: "api-header-name", placeholder: "Authorization", required: ""});
  const value = el("input", {id: "api-header-value", placeholder: "Bearer ..."});
  const problem = el("p", {class: "hint error", role: "alert"});
  const add = function (event) {
    event.preventDefault();
    const added = name.value.trim();
    problem.textContent = headerProblem(added, value.value);
    if (problem.textContent) return;  // refused here, or every request after would fail
    changeHeaders(list.filter((pair) => pair[0].toLowerCase() !== added.toLowerCase())
      .concat([[added, value.value]]), "#api-header-name");
  };
  return el("form", {class: "bar", "aria-label": "Add a request header", onsubmit: add,
    oninput: () => { problem.textContent = ""; }}, [
    el("label", {for: "api-header-name"}, ["Header name"]), name,
    el("label", {for: "api-header-value"}, ["Header value"]), value,
    el("button", {}, ["Add header"]), problem]);
}

// ---- Signing in: what the API asks for, offered; the credential kept like the headers ----
// What the API asks for is the page's api-auth block (see "Signing in" in flask_api.py): its
// schemes, what each method needs, the answer's challenges, its token endpoints' origins. A
// credential is kept for this tab, sent by send() to this origin only, and shown masked; the
// one other place a secret goes is a token endpoint on this origin or one of the block's. The
// OAuth 2.0 authorization code flow (PKCE S256, a state) leaves for the authorization server,
// which sends the browser back to this very page with ?code=...&state=...: start() takes that
// out of the URL at once, and loaded() trades the code, once, then shows this page again.

const SIGNIN_KEY = "flask-api-signin";  // sessionStorage: the credentials, [credential, ...]
const PENDING_KEY = "flask-api-signin-pending";  // sessionStorage: a sign-in gone to a server
const FORM_KEY = "flask-api-signin-form";  // sessionStorage: the way chosen, each one's client ID
// The tabs of one sign-in (see sharedRefresh()): a BroadcastChannel of this origin, and Web Locks
// "flask-api-signin <grant> <refreshes>" (held, shared, by each tab at that refresh of it) and
// "flask-api-refresh <grant>" (held by the tab refreshing it).
const CHANNEL_NAME = "flask-api-signin";
const GRANT_LOCK = "flask-api-signin ", REFRESH_LOCK = "flask-api-refresh ";
const HANDOVER_MS = 10000;  // how long a tab waits for another's newer tokens before giving up
// An authorization server's answer (RFC 6749, 4.1.2; RFC 9207's iss): what leaves the URL.
const ANSWER_PARAMS = ["code", "state", "error", "error_description", "error_uri", "iss",
  "session_state"];
const FLOW_WORDS = {authorizationCode: "authorization code", clientCredentials:
  "client credentials", implicit: "implicit", password: "password"};
const BEARER_ERRORS = {invalid_request: "the request was malformed (invalid_request)",
  invalid_token: "it is expired, revoked or not valid (invalid_token)",
  insufficient_scope: "it lacks the scope needed (insufficient_scope)"};
const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;  // a token (RFC 6265, 4.1.1)
const COOKIE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;  // no space " , ; or \

// The page's api-auth block: {schemes: a Map of name to scheme, operations: [[method,
// requirements], ...], challenges, origins}; null where the page has none.
function authBlock() {
  const node = document.getElementById("api-auth");
  let block;
  try { block = node && JSON.parse(node.textContent); } catch { block = null; }
  if (!block || typeof block !== "object") return null;
  const entries = (value) => value && typeof value === "object" && !Array.isArray(value) ?
    Object.entries(value) : [];
  const list = (value) => Array.isArray(value) ? value : [];
  return {schemes: new Map(entries(block.schemes).filter(([, one]) => typeof one?.type ===
    "string")), operations: entries(block.operations).filter(([, one]) => Array.isArray(one)),
  challenges: list(block.challenges).filter((one) => typeof one?.scheme === "string"),
  origins: list(block.origins)};
}

// The credentials this tab signed in with, those it can send: [{scheme, words, place ("header",
// "query" or "cookie"), name, value, who, obtained, expires, refresh: {url, client, token}}].
function credentials() {
  let list;
  try { list = JSON.parse(sessionStorage.getItem(SIGNIN_KEY)) || []; } catch { list = []; }
  return Array.isArray(list) ? list.filter((one) => typeof one?.name === "string" &&
    typeof one.value === "string" && ["header", "query", "cookie"].includes(one.place) &&
    !(one.place === "header" && headerProblem(one.name, one.value))) : [];
}

// Keep these credentials (the cookie of any other cleared).
function keepCredentials(list) {
  for (const one of credentials()) {
    if (one.place === "cookie" && !list.some((kept) => kept.place === "cookie" &&
      kept.name === one.name)) document.cookie = one.name + "=; Path=/; Max-Age=0";
  }
  if (list.length) store(SIGNIN_KEY, JSON.stringify(list));
  else sessionStorage.removeItem(SIGNIN_KEY);
  return holdGrants();
}

// Keep a value in this tab's storage; where the browser will not, why, in words.
function store(key, value) {
  try {
    sessionStorage.setItem(key, value);
  } catch (error) {
    throw new Error(error.name === "QuotaExceededError" ? "this tab's storage for this site " +
      "is full (what the site's pages keep in it), so the sign-in could not be kept: sign in " +
      "from a new tab, or clear the site's data in the browser's settings." : "this browser " +
      "keeps nothing for this tab (" + error.message + "), so the sign-in could not be kept.",
    {cause: error});
  }
}

// Keep a new credential in place of the one of its scheme, or the one sent where it goes.
function addCredential(fresh) {
  keepCredentials(credentials().filter((one) => one.scheme !== fresh.scheme &&
    !(one.place === fresh.place && one.name.toLowerCase() === fresh.name.toLowerCase()))
    .concat([fresh]));
}

// Whether anything is kept to send with the page's requests: headers, or a sign-in's credential.
function storedCredentials() {
  return savedHeaders().length > 0 || credentials().length > 0;
}

// What is kept, by name: the headers, then where each credential goes.
function storedNames() {
  return savedHeaders().map((pair) => pair[0]).concat(credentials().map(placeWords)).join(", ");
}

// Where a credential goes: "Authorization", "the query's api_key", "the cookie api_key".
function placeWords(one) {
  return (one.place === "header" ? "" : one.place === "query" ? "the query's " : "the cookie ") +
    one.name;
}

// A credential as the page shows it: where it goes, and its value masked.
function masked(one) {
  const scheme = one.place === "header" && /^(?:Basic|Bearer) /.exec(one.value);
  return placeWords(one) + ": " + (scheme ? scheme[0] : "") + "\u2022".repeat(8);
}

// A request to this site with the credentials: into its headers (in place of the panel's of the
// same name), a query key into the URL fetch() gets (never one the page writes); a token about
// to expire is refreshed first.
async function signedURL(target, headers) {
  const url = new URL(target.href);
  if (url.origin !== window.location.origin) return url;  // which send() refuses already
  await refreshDue();
  for (const one of credentials()) {
    if (one.place === "query") url.searchParams.set(one.name, one.value);
    if (one.place !== "header") continue;
    for (const name of Object.keys(headers)) {  // one value a header: fetch() would join two
      if (name.toLowerCase() === one.name.toLowerCase()) delete headers[name];
    }
    headers[one.name] = one.value;
  }
  return url;
}

// A URL as the page may write it (in the history, a link, the address bar): without a query key.
function withoutKeys(href) {
  const url = new URL(href, window.location.href), keys = credentials().filter((one) =>
    one.place === "query" && url.searchParams.get(one.name) === one.value);
  for (const one of keys) url.searchParams.delete(one.name);
  return keys.length ? url.href : href;
}

// Take a query key out of what the server wrote of the URL it was asked: the request line, the
// panel's URL, the links.
function scrubKeys() {
  const panel = document.querySelector("pre.response"), line = panel?.querySelector(".key");
  if (!panel || !credentials().some((one) => one.place === "query")) return;
  for (const link of document.querySelectorAll("a[href]")) {
    const href = withoutKeys(link.href);
    if (href !== link.href) link.setAttribute("href", href);
  }
  panel.dataset.url = withoutKeys(panel.dataset.url || "");
  const url = new URL(panel.dataset.url, window.location.href);
  if (line) line.textContent = line.textContent.replace(/ \S*$/, " " + url.pathname + url.search);
}

// This page's address as an authorization server's answer comes back to it (no query).
function here() {
  return window.location.origin + window.location.pathname;
}

// What the block says, in words.

// A JWT's claims, read for display only (nothing here checks its signature); null for none.
function jwtClaims(token) {
  const parts = typeof token === "string" ? token.split(".") : [];
  if (parts.length !== 3 || !/^[A-Za-z0-9_-]+$/.test(parts[1])) return null;
  try {
    const bytes = Uint8Array.from(atob(parts[1].replace(/-/g, "+").replace(/_/g, "/")),
      (char) => char.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder("utf-8", {fatal: true}).decode(bytes));
    return claims && typeof claims === "object" && !Array.isArray(claims) ? claims : null;
  } catch { return null; }
}

// Whom a token is for, from its claims: "Ann (ann)", or "ann"; "" where they do not say.
function whoOf(claims) {
  const text = (value) => typeof value === "string" ? value.slice(0, 100) : "";
  const sub = text(claims?.sub), name = text(claims?.name) || text(claims?.preferred_username);
  return name && sub && name !== sub ? name + " (" + sub + ")" : name || sub;
}

// When a token expires, in ms, from its claims' exp (in seconds); null where they do not say.
function expiresAt(claims) {
  return typeof claims?.exp === "number" && claims.exp > 0 ? claims.exp * 1000 : null;
}

// A countdown: "expires in 4:59", "expires in 1:00:00", or "expired".
function clockText(ms) {
  if (!(ms > 0)) return "expired";
  const seconds = Math.ceil(ms / 1000), two = (n) => String(n).padStart(2, "0");
  const hours = Math.floor(seconds / 3600), minutes = Math.floor(seconds / 60) % 60;
  return "expires in " + (hours ? hours + ":" + two(minutes) : minutes) + ":" + two(seconds % 60);
}

// What a scheme is: "HTTP Basic (a username and password)", "an API key in the header X-Key"...
function schemeWords(scheme) {
  const http = String(scheme.scheme || "").toLowerCase();
  if (scheme.type === "http" && http === "basic") return "HTTP Basic (a username and password)";
  if (scheme.type === "http" && http === "bearer") {
    return "a bearer token" + (scheme.bearerFormat ? " (" + scheme.bearerFormat + ")" : "");
  }
  if (scheme.type === "apiKey") {
    return "an API key in the " + (scheme.in === "query" ? "query parameter" : scheme.in) + " " +
      scheme.name;
  }
  return scheme.type === "http" ? "HTTP " + scheme.scheme : {oauth2: "OAuth 2.0", openIdConnect:
    "OpenID Connect", mutualTLS: "a TLS client certificate"}[scheme.type] || scheme.type;
}

// What one challenge asks for: its scheme, its parameters (realm, scope...), and for a bearer
// token refused, what its error says was wrong (RFC 6750, 3.1).
function challengeWords(challenge) {
  const scheme = challenge.scheme, lower = scheme.toLowerCase(), bearer = lower === "bearer";
  const params = challenge.params && typeof challenge.params === "object" ? challenge.params : {};
  const shown = Object.entries(params).filter(([name]) => !bearer || !name.startsWith("error"));
  let text = lower === "basic" ? "HTTP Basic (a username and password)" : bearer ?
    "a bearer token" : "the scheme " + scheme + (challenge.token68 ? " (with a token)" : "");
  for (const [name, value] of shown) text += ", " + name + " \"" + value + "\"";
  if (bearer && params.error) {
    text += "; the token sent was refused: " + (BEARER_ERRORS[params.error] || params.error) +
      (params.error_description ? ", \"" + params.error_description + "\"" : "") +
      (params.error_uri ? " (see " + params.error_uri + ")" : "");
  }
  return text;
}

// What an answer's challenges ask for, in a sentence.
function challengesText(challenges) {
  return "This answer asks for " + challenges.map(challengeWords).join("; or ") + ".";
}

// What each method needs, as the document's requirements say: "GET, HEAD: basic, or bearer",
// "DELETE: nothing". `operations`: [[method, requirements], ...].
function needsText(operations) {
  const lines = new Map();
  for (const [method, requirements] of operations) {
    const ways = requirements.filter((one) => Object.keys(one || {}).length).map((one) =>
      Object.entries(one).map(([name, scopes]) => name + (Array.isArray(scopes) &&
        scopes.length ? " (" + scopes.join(" ") + ")" : "")).join(" and "));
    const optional = ways.length < requirements.length ? "nothing (signing in is optional)" : "";
    const line = ways.length ? ways.join(", or ") + (optional && ", or " + optional) :
      optional || "nothing";
    lines.set(line, (lines.get(line) || []).concat([method]));
  }
  return Array.from(lines, ([line, methods]) => methods.join(", ") + ": " + line);
}

// The ways to sign in, and the panel.

// The ways to sign in the block offers: one a scheme (an OAuth 2.0 scheme's, one a flow), then one
// for a Basic or Bearer challenge that no scheme answers: {name, scheme, key (the flow's, or the
// scheme's type), flow, words, code (it goes to an authorization server), why (what keeps this
// page from it; "" for nothing)}.
function signinWays(block) {
  const ways = [];
  for (const [name, scheme] of block.schemes) {
    const flows = scheme.type === "oauth2" && scheme.flows && typeof scheme.flows === "object" ?
      Object.entries(scheme.flows) : [[scheme.type, null]];
    for (const [key, flow] of flows) {
      ways.push({name, scheme, key, flow, code: key === "authorizationCode" ||
        key === "openIdConnect", words: flow ? "OAuth 2.0, " + (FLOW_WORDS[key] || key) :
        schemeWords(scheme), why: flow ? flowProblem(key, flow) : schemeProblem(scheme)});
    }
  }
  for (const challenge of block.challenges) {
    const http = challenge.scheme.toLowerCase(), scheme = {type: "http", scheme: http};
    if (["basic", "bearer"].includes(http) && !ways.some((way) => wayAnswers(way) === http)) {
      ways.push({name: challenge.scheme, scheme, key: "http", flow: null, code: false,
        words: schemeWords(scheme), why: ""});
    }
  }
  return ways;
}

// Why this page does not take an OAuth 2.0 flow ("" where it does).
function flowProblem(key, flow) {
  if (key === "implicit" || key === "password") {
    return "Not offered here: OAuth 2.0's security best practice (RFC 9700) says not to use the " +
      FLOW_WORDS[key] + " flow. Sign in with the authorization code flow.";
  }
  if (!flow.tokenUrl || key === "authorizationCode" && !flow.authorizationUrl) {
    return "The API's document names no usable URL for this flow's endpoints.";
  }
  return FLOW_WORDS[key] ? "" : "This page does not know this flow.";
}

// Why this page does not take a scheme ("" where it does).
function schemeProblem(scheme) {
  const http = String(scheme.scheme || "").toLowerCase();
  if (scheme.type === "http" && http !== "basic" && http !== "bearer") {
    return "This page cannot answer HTTP " + scheme.scheme + " itself: add the Authorization " +
      "header it takes under Request headers.";
  }
  if (scheme.type === "apiKey" && (!["header", "query", "cookie"].includes(scheme.in) ||
    !scheme.name)) return "The API's document does not say where this key goes.";
  if (scheme.type === "apiKey" && scheme.in === "header") return headerProblem(scheme.name, "");
  if (scheme.type === "apiKey" && scheme.in === "cookie" && !COOKIE_NAME.test(scheme.name)) {
    return "\"" + scheme.name + "\" cannot be a cookie's name.";
  }
  if (scheme.type === "openIdConnect" && !scheme.openIdConnectUrl) {
    return "The API's document names no discovery URL that this page may read.";
  }
  if (scheme.type === "mutualTLS") return "The browser offers its certificate itself.";
  return ["http", "apiKey", "openIdConnect"].includes(scheme.type) ? "" :
    "This page does not know this scheme.";
}

// The challenge a way answers: "basic", "bearer" (an OAuth token is one too), or "".
function wayAnswers(way) {
  if (way.key === "http") return String(way.scheme.scheme).toLowerCase();
  return way.scheme.type === "oauth2" || way.scheme.type === "openIdConnect" ? "bearer" : "";
}

// What the method of the answer shown needs, as the document says: its requirements.
function shownNeeds(block) {
  const method = document.querySelector("pre.response")?.dataset.method || "GET";
  return block.operations.find(([name]) => name === method)?.[1] || [];
}

// The way the form starts with: one the answer's challenges ask for, else one the method shown
// needs, else the first this page can take.
function firstWay(ways, block) {
  const challenged = block.challenges.map((one) => one.scheme.toLowerCase());
  const needed = shownNeeds(block).flatMap((one) => Object.keys(one || {}));
  const usable = ways.filter((way) => !way.why);
  return usable.find((way) => challenged.includes(wayAnswers(way))) ||
    usable.find((way) => needed.includes(way.name)) || usable[0] || ways[0];
}

// The scopes to ask for at first: those the method shown needs of the scheme, then those the
// answer's bearer challenges ask for besides ({scopes, fromAnswer}: see mergedScopes).
function wantedScopes(way, block) {
  const needed = shownNeeds(block).flatMap((one) => Array.isArray(one?.[way.name]) ?
    one[way.name] : []);
  const challenged = block.challenges.flatMap((challenge) => challenge.scheme.toLowerCase() ===
    "bearer" && typeof challenge.params?.scope === "string" ? challenge.params.scope.split(" ") :
    []);
  return mergedScopes(needed, challenged);
}

// The document's scopes and a challenge's, each once, in that order: {scopes, fromAnswer (those
// only the challenge asks for)}.
function mergedScopes(needed, challenged) {
  const scopes = Array.from(new Set(needed.concat(challenged).filter(Boolean)));
  return {scopes, fromAnswer: scopes.filter((scope) => !needed.includes(scope))};
}

// The sign-in panel: how this tab stands (signed in as whom, until when; a sign-in waiting for
// its answer), what the answer shown asks for, what each method needs, and the form.
function signinPanel() {
  const section = document.getElementById("api-signin"), block = authBlock();
  const list = credentials(), said = state.signinSaid, live = liveCredentials(list);
  clearInterval(state.signinClock);
  if (!section || !block && !list.length) return;
  scrubKeys();
  state.signinSaid = null;
  const details = el("details", {ontoggle: () => { state.signinOpen = details.open; }}, [
    el("summary", {}, [signinHeading(list)]),
    el("p", {id: "api-signin-status", class: said?.error || !said && list.length > live.length ?
      "hint error" : "hint", tabindex: "-1"}, [said ? said.text : standing(list)]),
    signedInList(), ...waitingLine(), ...block ? askedFor(block) : []]);
  const ways = block ? signinWays(block) : [];
  const refused = document.querySelector("pre.response[data-error]") && block && !live.length &&
    shownNeeds(block).every((one) => Object.keys(one || {}).length);  // [] too: some() is not
  if (ways.length) {  // signed in, and nothing asked for: the form folded away under the list
    const form = signinForm(block, ways);
    form.hidden = live.length > 0 && !block.challenges.length && !refused && !state.signinFormOpen;
    details.append(...live.length ? [el("button", {type: "button", class: "signin-again",
      "aria-controls": form.id, "aria-expanded": String(!form.hidden), onclick: (event) => {
        form.hidden = !form.hidden;
        state.signinFormOpen = !form.hidden;
        event.currentTarget.setAttribute("aria-expanded", String(!form.hidden));
      }}, ["Sign in again, or another way"])] : [], form);
  }
  details.open = state.signinOpen || Boolean(said || block?.challenges.length || refused);
  section.replaceChildren(details);
  section.hidden = false;
  section.classList.toggle("active", live.length > 0);
  if (list.some((one) => one.expires)) state.signinClock = setInterval(signinTick, 1000);
}

// The credentials that are not past their expiry (whether or not the API still takes them).
function liveCredentials(list) {
  const now = Date.now();
  return list.filter((one) => !one.expires || one.expires > now);
}

// The panel's heading: "Signed in: Ann (ann)", "Sign-in expired: ann", or "Sign in".
function signinHeading(list) {
  const live = liveCredentials(list), whom = (some) => some.map((one) => one.who || one.scheme)
    .join(", ");
  return live.length ? "Signed in: " + whom(live) : list.length ? "Sign-in expired: " +
    whom(list) : "Sign in";
}

// How this tab stands, in a sentence: signed in with what, expired, or not signed in.
function standing(list) {
  const live = liveCredentials(list), schemes = (some) => some.map((one) => one.scheme)
    .join(" and ");
  return live.length ? "Signed in with " + schemes(live) + "." : list.length ? "The sign-in " +
    "with " + schemes(list) + " has expired: sign in again." : "Not signed in.";
}

// The credentials signed in with: each one's scheme, whom it is for, where it goes (masked), its
// clock, and its buttons: Refresh now (with a refresh token), Sign out.
function signedInList() {
  return el("ul", {id: "api-signin-list", "aria-label": "Signed in with"}, credentials().map(
    (one) => el("li", {}, [el("strong", {}, [one.scheme]), " (" + one.words + ")" + (one.who ?
      ", as " + one.who : "") + ": ", el("code", {}, [masked(one)]), ...one.expires ? [
      " \u00b7 ", el("span", {class: "clock", "data-expires": String(one.expires)},
        [clockText(one.expires - Date.now())])] : [], one.refreshed ? " \u00b7 refreshed " +
      counted(one.refreshed, "time") : "", " ", ...one.refresh ? [el("button", {type: "button",
      onclick: () => refreshNow(one)}, ["Refresh now"]), " "] : [], el("button", {type: "button",
      onclick: () => signOut(one)}, ["Sign out of " + one.scheme])])));
}

// A sign-in gone to an authorization server and not back: said, with a button to cancel it.
function waitingLine() {
  const pending = waitingSignin();
  const line = pending && el("p", {class: "hint"}, ["A sign-in with " + pending.scheme +
    " is waiting for the authorization server's answer. ", el("button", {type: "button",
    onclick: () => {
      sessionStorage.removeItem(PENDING_KEY);
      line.remove();
      signinNote("Cancelled: an answer to that sign-in will be refused.", false, true);
    }}, ["Cancel it"])]);
  return line ? [line] : [];
}

// The sign-in this tab has sent to an authorization server, if any.
function waitingSignin() {
  let pending;
  try { pending = JSON.parse(sessionStorage.getItem(PENDING_KEY)); } catch { pending = null; }
  return typeof pending?.state === "string" ? pending : null;
}

// What the answer shown asks for (its challenges), and what each method needs.
function askedFor(block) {
  const parts = block.challenges.length ? [el("p", {}, [challengesText(block.challenges)])] : [];
  const needs = needsText(block.operations);
  return parts.concat(needs.length ? [el("p", {class: "hint"}, ["What each method needs, as " +
    "the API's document says:"]), el("ul", {"aria-label": "What each method needs"},
    needs.map((line) => el("li", {}, [line])))] : []);
}

// The form that signs in: the way chosen, its fields and button; what stops it said in it.
function signinForm(block, ways) {
  const fields = el("div"), problem = el("p", {class: "hint error", role: "alert"});
  const choice = el("select", {id: "api-signin-way", onchange: () => {
    rememberForm(ways[choice.value]);
    fields.replaceChildren(...wayFields(ways[choice.value], block));
    problem.textContent = "";
  }}, ways.map((way, index) => el("option", {value: String(index)}, [way.name + ": " +
    way.words])));
  choice.value = String(ways.indexOf(keptWay(ways, block) || firstWay(ways, block)));
  fields.replaceChildren(...wayFields(ways[choice.value], block));
  return el("form", {id: "api-signin-form", class: "signin-form", "aria-label": "Sign in",
    onsubmit: (event) => signinSubmit(event, ways[choice.value], problem), oninput: () => {
      problem.textContent = "";
    }}, [el("label", {for: "api-signin-way"}, ["Sign in with"]), choice, fields, problem]);
}

// What the form keeps for this tab, so that a sign-out, a refused refresh or an expiry leaves
// nothing to retype but a secret: {way: the way last chosen (wayId), clients: {wayId: client ID}}.
function formMemory() {
  let kept;
  try { kept = JSON.parse(sessionStorage.getItem(FORM_KEY)); } catch { kept = null; }
  return {way: typeof kept?.way === "string" ? kept.way : "", clients: kept?.clients &&
    typeof kept.clients === "object" && !Array.isArray(kept.clients) ? kept.clients : {}};
}

// A way's name in the form's memory: its scheme's name and its flow (or type).
function wayId(way) {
  return way.name + " " + way.key;
}

// Keep the way chosen, and the client ID given for it (never a secret); a full storage keeps
// nothing, and the form starts as the answer asks.
function rememberForm(way, client) {
  const memory = formMemory();
  memory.way = wayId(way);
  if (typeof client === "string") memory.clients[wayId(way)] = client;
  try { sessionStorage.setItem(FORM_KEY, JSON.stringify(memory)); } catch { /* see above */ }
}

// The way this tab chose last, where the page takes it and it answers what the answer asks.
function keptWay(ways, block) {
  const challenged = block.challenges.map((one) => one.scheme.toLowerCase()), kept = formMemory();
  return ways.find((way) => !way.why && wayId(way) === kept.way && (!challenged.length ||
    challenged.includes(wayAnswers(way)))) || null;
}

// A labelled input of the sign-in form.
function signinField(name, label, attributes) {
  const id = "api-signin-" + name.replace("_", "-");
  return [el("label", {for: id}, [label]), el("input", {id, name, ...attributes})];
}

// A way's fields and button, or why this page cannot take it.
function wayFields(way, block) {
  if (way.why) return [el("p", {class: "hint"}, [way.why])];
  const parts = way.scheme.description ? [el("p", {class: "hint"}, [way.scheme.description])] : [];
  const http = way.key === "http" && String(way.scheme.scheme).toLowerCase();
  const secret = {type: "password", autocomplete: "off", required: ""};
  if (http === "basic") {
    parts.push(...signinField("username", "Username", {autocomplete: "username", required: ""}),
      ...signinField("password", "Password", {type: "password",
        autocomplete: "current-password"}));
  } else if (http === "bearer") parts.push(...signinField("token", "Token", secret));
  else if (way.key === "apiKey") {
    parts.push(...signinField("key", "API key (" + way.scheme.name + ")", secret));
    if (way.scheme.in === "cookie") {
      parts.push(el("p", {class: "hint"}, ["Kept by the browser as the cookie " + way.scheme.name +
        " (SameSite=Strict), which it sends with every request to this host, from any tab, " +
        "until you sign out or close the browser: a page cannot send a cookie of its own."]));
    }
  } else parts.push(...clientFields(way, block));
  return parts.concat([el("button", {}, [!way.code ? "Sign in" : way.flow ? "Sign in at " +
    new URL(way.flow.authorizationUrl, window.location.href).host : "Sign in at the provider"])]);
}

// An OAuth client's fields: its ID (its secret too, for client credentials), and the scopes.
function clientFields(way, block) {
  const parts = signinField("client_id", "Client ID", {required: "", autocomplete: "off",
    value: String(formMemory().clients[wayId(way)] || "")});
  if (way.key === "clientCredentials") {
    parts.push(...signinField("client_secret", "Client secret", {type: "password",
      autocomplete: "off", required: ""}));
  }
  const {scopes: wanted, fromAnswer} = wantedScopes(way, block);
  const described = way.flow?.scopes && typeof way.flow.scopes === "object" ? way.flow.scopes : {};
  const scopes = Object.entries(described).concat(fromAnswer.filter((scope) =>
    !Object.hasOwn(described, scope)).map((scope) => [scope, ""]));
  const asked = fromAnswer.length ? [el("p", {id: "api-signin-scopes-asked", class: "hint"}, [
    "This answer's challenge asks for " + fromAnswer.join(" ") + ", besides what the API's " +
    "document says this method needs."])] : [];
  const describedBy = asked.length ? {"aria-describedby": "api-signin-scopes-asked"} : {};
  if (!way.flow) {  // OpenID Connect: the provider's scopes, "openid" among them
    parts.push(...signinField("scope", "Scopes, separated by spaces", {value: mergedScopes(
      ["openid"], wanted).scopes.join(" "), ...describedBy}), ...asked);
  } else if (scopes.length) {
    parts.push(el("fieldset", {class: "scopes", ...describedBy}, [el("legend", {}, ["Scopes"])]
      .concat(scopes.map(([scope, text], index) => {
        const box = el("input", {type: "checkbox", id: "api-signin-scope-" + index,
          name: "scope", value: scope});
        box.checked = wanted.includes(scope);
        return el("div", {}, [box, el("label", {for: box.id}, [scope + (text ? ": " + text :
          "") + (fromAnswer.includes(scope) ? " (asked for by this answer)" : "")])]);
      }), asked)));
  }
  return way.code ? parts.concat([el("p", {class: "hint"}, ["You sign in at the authorization " +
    "server, which sends you back to this page (its redirect URI: " + here() + ")."])]) : parts;
}

// Each second: the clocks count down, and a token about to expire is refreshed.
function signinTick() {
  for (const clock of document.querySelectorAll("#api-signin .clock")) {
    clock.textContent = clockText(Number(clock.dataset.expires) - Date.now());
  }
  refreshDue();
  const expired = credentials().filter((one) => one.expires && one.expires <= Date.now() &&
    !state.expiredSaid.has(one.value));
  for (const one of expired) state.expiredSaid.add(one.value);
  if (expired.length) {
    signedInAnew();
    signinNote(standing(credentials()), true, false);
  }
}

// Say something in the panel (an error in its colour) and to screen readers, without building
// it again (what is typed in it stays); focus it where the user's action led there.
function signinNote(text, error, focus) {
  const status = document.getElementById("api-signin-status");
  if (status) {
    status.textContent = text;
    status.className = error ? "hint error" : "hint";
    status.closest("details").open = state.signinOpen = true;
    if (focus) status.focus();
  }
  announce(text);
}

// The credentials' list anew (after a refresh), focus kept in the panel if it was in the list.
function signedInAnew() {
  const old = document.getElementById("api-signin-list"), list = credentials();
  const focused = old?.contains(document.activeElement), section = old?.closest("#api-signin");
  old?.replaceWith(signedInList());
  if (!section) return;
  section.querySelector("summary").textContent = signinHeading(list);
  section.classList.toggle("active", liveCredentials(list).length > 0);
  const fold = section.querySelector(".signin-again"), form = section.querySelector(".signin-form");
  if (fold && !liveCredentials(list).length) {  // nothing to fold the form under any more
    fold.remove();
    if (form) form.hidden = false;
  }
  if (focused) document.getElementById("api-signin-status")?.focus();
}

// This page again with the credentials as they now are, the panel open: focus on its status,
// which is said before the answer's.
async function reshow(said, error) {
  state.signinOpen = true;
  state.signinSaid = {text: said, error};
  try {
    await navigate(window.location.href, false, "#api-signin-status");
  } finally {
    document.documentElement.classList.remove("refetch");
  }
  announce(said + " " + (document.getElementById("api-live")?.textContent || ""));
}

// The credentials: from the form, or from a token endpoint.

// Sign in the way chosen: a credential kept (from the fields, or a token endpoint's answer) and
// this page again with it; or off to an authorization server. What stops it is said in the form.
async function signinSubmit(event, way, problem) {
  event.preventDefault();
  try {
    const credential = await wayCredential(way, event.target.elements);
    if (!credential) return;  // gone to the authorization server
    addCredential(credential);
    await reshow("Signed in with " + way.name + (credential.who ? " as " + credential.who :
      "") + ".");
  } catch (error) {
    problem.textContent = error.message[0].toUpperCase() + error.message.slice(1);
  }
}

// The credential a way's fields make; null where the way goes to an authorization server.
async function wayCredential(way, fields) {
  const base = {scheme: way.name, words: way.words, who: ""};
  rememberForm(way);
  const http = way.key === "http" && String(way.scheme.scheme).toLowerCase();
  if (http === "basic") {
    return {...base, place: "header", name: "Authorization", who: fields.username.value,
      value: basicCredential(fields.username.value, fields.password.value)};
  }
  if (http === "bearer") return bearerCredential(base, fields.token.value.trim());
  if (way.key === "apiKey") return keyCredential(base, way.scheme, fields.key.value);
  const client = fields.client_id.value.trim(), scope = mergedScopes(Array.from(fields).filter(
    (input) => input.name === "scope" && (input.type !== "checkbox" || input.checked)).flatMap(
    (input) => input.value.split(" ")), []).scopes.join(" ");  // each once
  rememberForm(way, client);
  if (way.key === "clientCredentials") {
    return tokenCredential({...base, who: client, refresh: null}, await tokenRequest(
      way.flow.tokenUrl, {grant_type: "client_credentials", scope}, basicCredential(
        formEncoded(client), formEncoded(fields.client_secret.value))));
  }
  await authorize(way, client, scope);
  return null;
}

// An HTTP Basic credential: "Basic " and the base64 of "user-id:password" in UTF-8 (RFC 7617),
// which a user-id with a colon, or control characters, cannot be.
function basicCredential(user, password) {
  if (user.includes(":")) {
    throw new Error("A username with a colon cannot be sent with HTTP Basic.");
  }
  if (/[\u0000-\u001f\u007f]/.test(user + password)) {
    throw new Error("A username or password with control characters cannot be sent.");
  }
  return "Basic " + btoa(Array.from(new TextEncoder().encode(user + ":" + password), (byte) =>
    String.fromCharCode(byte)).join(""));
}

// A value as a form writes it: a client's ID and secret, before Basic (RFC 6749, 2.3.1).
function formEncoded(value) {
  return new URLSearchParams({v: value}).toString().slice(2);
}

// A bearer token as typed in: whom it is for and when it expires, where it is a JWT.
function bearerCredential(base, token) {
  const value = "Bearer " + token, claims = jwtClaims(token);
  if (!token || headerProblem("Authorization", value)) {
    throw new Error("A token is Latin-1 text without control characters: paste it as given.");
  }
  const expires = expiresAt(claims);
  if (expires && expires <= Date.now()) {  // a sign-in that would never be one
    throw new Error("This token has expired (its exp: " + new Date(expires).toISOString()
      .slice(0, 19).replace("T", " ") + " UTC): paste a fresh one.");
  }
  return {...base, place: "header", name: "Authorization", value, who: whoOf(claims),
    obtained: typeof claims?.iat === "number" ? claims.iat * 1000 : Date.now(), expires};
}

// An API key where its scheme says: a header, a query parameter, or a cookie, which the browser
// then keeps and sends itself (a page cannot send a Cookie header).
function keyCredential(base, scheme, value) {
  const problem = !value ? "Type the key first." : scheme.in === "header" ?
    headerProblem(scheme.name, value) : scheme.in === "cookie" && !COOKIE_VALUE.test(value) ?
      "A cookie cannot hold this key: no spaces, quotes, commas, semicolons or \\." : "";
  if (problem) throw new Error(problem);
  if (scheme.in === "cookie") {
    document.cookie = scheme.name + "=" + value + "; Path=/; SameSite=Strict" +
      (window.location.protocol === "https:" ? "; Secure" : "");
  }
  return {...base, place: scheme.in, name: scheme.name, value};
}

// A credential from a token endpoint's answer: the access token as a bearer token, when it
// expires (expires_in, else its exp), whom it is for (an ID token's claims, else its own, else
// the client), and the refresh token (the last one kept where a refresh gives none: RFC 6749, 6).
function tokenCredential(base, tokens) {
  const claims = jwtClaims(tokens.id_token) || jwtClaims(tokens.access_token);
  const now = Date.now(), lifetime = Number(tokens.expires_in), value = "Bearer " +
    tokens.access_token, token = typeof tokens.refresh_token === "string" ?
    tokens.refresh_token : base.refresh?.token;
  if (headerProblem("Authorization", value)) {
    throw new Error("the token endpoint's access token cannot be sent in a header.");
  }
  return {...base, place: "header", name: "Authorization", value, obtained: now,
    expires: lifetime > 0 ? now + lifetime * 1000 : expiresAt(claims), who: whoOf(claims) ||
    base.who, refresh: base.refresh && token ? {...base.refresh, token} : null,
    grant: base.grant || (base.refresh && token ? randomToken() : "")};
}

// A URL this page may send a secret to (a token endpoint, a discovery document): http(s), on
// this page's origin or one the API's document names (the block's origins); else null.
function allowedEndpoint(url, page, origins) {
  if (typeof url !== "string") return null;  // not "undefined", a path of this page's
  let endpoint;
  try { endpoint = new URL(url, page); } catch { return null; }
  return /^https?:$/.test(endpoint.protocol) && !endpoint.username && !endpoint.password &&
    (endpoint.origin === new URL(page).origin || origins.includes(endpoint.origin)) ?
    endpoint : null;
}

// POST a token request (form fields; a client's secret as Basic) to a token endpoint this page
// may send secrets to: the tokens it answers, or an error saying why not (error.refused: the
// server's own OAuth error, such as invalid_grant).
async function tokenRequest(url, fields, secret) {
  const endpoint = allowedEndpoint(url, window.location.href, authBlock()?.origins || []);
  if (!endpoint) {
    throw new Error("the token endpoint " + url + " is on an origin that this API's document " +
      "does not name, so nothing was sent there.");
  }
  const headers = secret ? {"Accept": "application/json", "Authorization": secret} :
    {"Accept": "application/json"};
  let response, answer;
  try {
    response = await fetch(endpoint.href, {method: "POST", headers, body: new URLSearchParams(
      Object.entries(fields).filter((field) => field[1])), credentials: "omit", cache:
      "no-store", redirect: "error", referrerPolicy: "no-referrer"});
  } catch (error) {
    throw new Error(await unreachable(endpoint) ? "the token endpoint " + endpoint.origin +
      " could not be reached (" + error.message + ")." : "the token endpoint " +
      endpoint.origin + " does not let this page read its answers: it refuses this page's " +
      "origin (CORS). Its server must allow " + window.location.origin + " (the header " +
      "Access-Control-Allow-Origin: " + window.location.origin + ", and Authorization among " +
      "Access-Control-Allow-Headers).", {cause: error});
  }
  try { answer = await response.json(); } catch { answer = {}; }
  if (!response.ok || typeof answer?.error === "string") {
    const said = typeof answer?.error === "string" ? " " + answer.error + (typeof
      answer.error_description === "string" ? " (" + answer.error_description + ")" : "") : "";
    throw Object.assign(new Error("the token endpoint answered " + response.status + said +
      "."), {refused: true});
  }
  if (typeof answer.access_token !== "string" || !/^bearer$/i.test(answer.token_type)) {
    throw new Error("the token endpoint gave no bearer token, the only kind this page sends.");
  }
  return answer;
}

// Whether an endpoint whose answer this page could not read is unreachable (true), or answers
// but not to this page's origin (CORS): a request that does not read the answer, and so needs no
// CORS (no-cors), says which. It carries nothing: no body, no credential, no cookie.
async function unreachable(endpoint) {
  try {
    await fetch(endpoint.href, {mode: "no-cors", credentials: "omit", cache: "no-store",
      referrerPolicy: "no-referrer"});
    return false;
  } catch {
    return true;
  }
}

// An OpenID Connect provider's metadata, read from the scheme's discovery URL as a sign-in needs
// it: its issuer the one the URL names (OpenID Connect Discovery 1.0, 4.3).
async function discover(scheme) {
  const url = allowedEndpoint(scheme.openIdConnectUrl, window.location.href,
    authBlock()?.origins || []);
  if (!url) throw new Error("The API's document names no discovery URL that this page may read.");
  let metadata;
  try {
    metadata = await (await fetch(url.href, {headers: {"Accept": "application/json"},
      credentials: "omit", redirect: "error", referrerPolicy: "no-referrer"})).json();
  } catch (error) {
    throw new Error("The provider's discovery document could not be read (" + error.message +
      ").", {cause: error});
  }
  const issuer = url.href.replace(/\/\.well-known\/openid-configuration$/, "");
  if (typeof metadata !== "object" || !metadata || issuer !== url.href && metadata.issuer !==
    issuer) throw new Error("The discovery document at " + url.href + " is not " + issuer + "'s.");
  return metadata;
}

// The token endpoint and refresh URL of a scheme's flow: the document's, or for OpenID Connect,
// its provider's.
async function tokenURLs(name, key) {
  const scheme = authBlock()?.schemes.get(name);
  if (scheme?.type === "openIdConnect") {
    const metadata = await discover(scheme), scopes = metadata.scopes_supported;
    return {token: metadata.token_endpoint, refresh: metadata.token_endpoint, offline:
      Array.isArray(scopes) && scopes.includes("offline_access")};
  }
  const flow = scheme?.flows && Object.hasOwn(scheme.flows, key) ? scheme.flows[key] : null;
  if (!flow?.tokenUrl) throw new Error("the API's document names its token URL no more.");
  return {token: flow.tokenUrl, refresh: flow.refreshUrl || flow.tokenUrl};
}

// Random bytes as base64url text: a state, a nonce, a PKCE verifier (RFC 7636, 4.1: 43
// characters, from 32 bytes).
function randomToken() {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

// Bytes as base64url text without padding (RFC 4648, 5).
function base64url(bytes) {
  return btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(""))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// PKCE's S256 challenge of a verifier: base64url(SHA-256(verifier)) (RFC 7636, 4.2).
async function pkceChallenge(verifier) {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256",
    new TextEncoder().encode(verifier))));
}

// An authorization request's URL: the endpoint's, with the request's parameters (those given).
function authorizationURL(endpoint, params) {
  const url = new URL(endpoint);
  if (!/^https?:$/.test(url.protocol)) throw new Error("The authorization URL is not http(s).");
  for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value);
  return url.href;
}

// Off to the authorization server (the authorization code flow with PKCE S256 and a new state;
// a nonce for OpenID Connect), once this tab keeps what its answer is checked against.
async function authorize(way, client, scope) {
  if (!window.crypto?.subtle) {
    throw new Error("Signing in with OAuth needs this page on https (or localhost): PKCE needs " +
      "the browser's crypto.subtle, which it gives secure pages only.");
  }
  const metadata = way.flow ? null : await discover(way.scheme);
  if (!(metadata?.code_challenge_methods_supported || ["S256"]).includes("S256")) {
    throw new Error("The provider does not take PKCE's S256, which this page needs.");
  }
  const offline = Boolean(metadata) && scope.split(" ").includes("offline_access");
  const verifier = randomToken(), pending = {state: randomToken(), verifier, client,
    nonce: metadata ? randomToken() : "", scheme: way.name, key: way.key, words: way.words, scope,
    issuer: metadata ? String(metadata.issuer) : "", redirect: here(),
    back: withoutKeys(window.location.href)};
  const url = authorizationURL(metadata ? metadata.authorization_endpoint :
    way.flow.authorizationUrl, {response_type: "code", client_id: client, scope,
    redirect_uri: pending.redirect, state: pending.state, code_challenge: await
    pkceChallenge(verifier), code_challenge_method: "S256", nonce: pending.nonce,
    prompt: offline ? "consent" : ""});  // OpenID Connect Core 1.0, 11: offline access asks
  store(PENDING_KEY, JSON.stringify(pending));
  window.location.assign(url);
}

// The authorization server's answer, back on this page.

// An authorization server's answer in a URL's query: {code, state, error...} as given; null where
// the query holds none (a state, and a code or an error).
function authorizationAnswer(search) {
  const params = new URLSearchParams(search);
  if (!params.has("state") || !params.has("code") && !params.has("error")) return null;
  return Object.fromEntries(ANSWER_PARAMS.filter((name) => params.has(name)).map((name) =>
    [name, params.get(name)]));
}

// A URL without an authorization answer's parameters.
function withoutAnswer(href) {
  const url = new URL(href);
  for (const name of ANSWER_PARAMS) url.searchParams.delete(name);
  return url.href;
}

// Why an answer is refused ("" where it is not): checked against the sign-in this tab keeps
// waiting (null for none) and the page (here()) it came back to.
function answerProblem(answer, pending, page) {
  const again = " Nothing was sent; sign in again.";
  if (!pending) {
    return "Refused an authorization answer: this tab has no sign-in waiting for one (its " +
      "code was used already, or it was cancelled, signed out of or started elsewhere)." + again;
  }
  if (answer.state !== pending.state) {
    return "Refused an authorization answer whose state is not the one this tab sent: it may " +
      "be forged." + again;
  }
  if (page !== pending.redirect) {
    return "Refused an authorization answer that came to another page than the one that asked " +
      "for it." + again;
  }
  if (pending.issuer && answer.iss !== undefined && answer.iss !== pending.issuer) {
    return "Refused an authorization answer from " + answer.iss + ", not the issuer asked (" +
      pending.issuer + ")." + again;
  }
  return answer.error || !answer.code ? "The authorization server did not sign you in: " +
    (answer.error || "no code") + (answer.error_description ? " (" + answer.error_description +
    ")" : "") + "." : "";
}

// As the page loads: an authorization server's answer in its URL, {answer, pending, problem,
// ours}, or null for none. Where this tab waits for one, the answer leaves the URL (and so the
// history) at once, and the sign-in waiting is taken: its code is traded once, or never.
function landedAnswer() {
  const answer = authorizationAnswer(window.location.search), pending = waitingSignin();
  if (!answer) return null;
  if (pending) {
    sessionStorage.removeItem(PENDING_KEY);
    history.replaceState(history.state, "", withoutAnswer(window.location.href));
  }
  return {answer, pending, problem: answerProblem(answer, pending, here()), ours: Boolean(
    pending && answer.state === pending.state && pending.redirect === here())};
}

// Once the page is parsed, the answer start() found: ours, traded for tokens (true: this page is
// shown again); else refused, said, and out of the URL (false). Such a query on a page whose
// API offers no such sign-in is the app's own, and left alone.
function signinLanded(landing) {
  const block = authBlock();
  if (!landing.pending && !(block && signinWays(block).some((way) => way.code))) return false;
  if (landing.ours) {
    tradeCode(landing);
    return true;
  }
  history.replaceState(history.state, "", withoutAnswer(window.location.href));
  signinNote(landing.problem, true, true);
  return false;
}

// Trade an answer's code for tokens, once, at the token endpoint of the sign-in that asked; then
// this page as it was before leaving, with them. What went wrong is said there.
async function tradeCode({answer, pending, problem}) {
  let said = problem;
  if (!said) {
    try {
      const urls = await tokenURLs(pending.scheme, pending.key), tokens = await tokenRequest(
        urls.token, {grant_type: "authorization_code", code: answer.code, client_id:
        pending.client, redirect_uri: pending.redirect, code_verifier: pending.verifier});
      if (pending.nonce && tokens.id_token && jwtClaims(tokens.id_token)?.nonce !==
        pending.nonce) throw new Error("its ID token is for another sign-in (its nonce).");
      const credential = tokenCredential({scheme: pending.scheme, words: pending.words, who:
        pending.client, refresh: {url: urls.refresh, client: pending.client}}, tokens);
      addCredential(credential);
      said = "Signed in with " + pending.scheme + " as " + credential.who + "." + (urls.offline &&
        !credential.refresh ? " No refresh token came with it, so this sign-in ends when its " +
        "token expires: " + (String(pending.scope).split(" ").includes("offline_access") ?
        "the provider gave none for offline_access either." : "this provider gives one for " +
        "the scope offline_access, which you may add to the scopes.") : "");
    } catch (error) {
      said = "Not signed in: " + error.message;
    }
  }
  const back = new URL(pending.back, window.location.href);
  history.replaceState({fromSignin: true}, "", back.origin === window.location.origin ?
    back.href : here());
  await reshow(said, !credentials().some((one) => one.scheme === pending.scheme));
}

// Refresh the credential whose token is about to expire (a refresh token given), one refresh at
// a time: two would spend one rotating refresh token twice. Before a request, and each second.
function refreshDue() {
  const due = credentials().find((one) => one.refresh && one.expires && one.expires -
    Date.now() < Math.min(30000, (one.expires - one.obtained) / 4) &&
    one.value !== state.unrefreshed);
  if (due && !state.refreshing) {
    state.refreshing = refresh(due).finally(() => { state.refreshing = null; });
  }
  return state.refreshing || Promise.resolve();
}

// "Refresh now": refresh a credential's token as it is kept now; focus on how it went.
async function refreshNow(credential) {
  const kept = credentials().find((one) => one.scheme === credential.scheme && one.refresh);
  state.unrefreshed = "";
  if (kept && await (state.refreshing || refresh(kept))) signinNote("Refreshed.", false, true);
  else document.getElementById("api-signin-status")?.focus();  // why not, said by refresh()
}

// Refresh a credential (true: its tokens are fresh), one tab of its sign-in at a time.
function refresh(credential) {
  return credential.grant && navigator.locks ? sharedRefresh(credential) :
    refreshHere(credential);
}

// Trade a credential's refresh token for new tokens and the refresh token that comes with them
// (true), and hand them to the other tabs of its sign-in; refused, that sign-in ends (here and
// there). Unreachable, it stays till it expires.
async function refreshHere(credential) {
  const {url, client, token} = credential.refresh;
  let tokens;
  try {
    tokens = await tokenRequest(url, {grant_type: "refresh_token", refresh_token: token,
      client_id: client});
  } catch (error) {
    const said = error.refused ? "Signed out of " + credential.scheme + ": " + error.message +
      (await othersHold(credential.grant) ? " Another tab of this page is signed in with it " +
      "too, and may have used its refresh token, which is used once." : "") + " Sign in again." :
      "Not refreshed: " + error.message;
    if (error.refused) {
      keepCredentials(credentials().filter((one) => one.value !== credential.value));
      state.channel?.postMessage({grant: credential.grant, refused: said});
      signedInAnew();
    } else state.unrefreshed = credential.value;  // not each second, nor each request
    signinNote(said, true, false);
    return false;
  }
  const list = credentials(), at = list.findIndex((one) => one.value === credential.value);
  if (at >= 0) {
    list[at] = tokenCredential({...credential, refreshed: (credential.refreshed || 0) + 1}, tokens);
    try {
      await keepCredentials(list);  // its lock held before the refresh's is let go
    } catch (error) {
      signinNote("Refreshed, but " + error.message, true, false);
      return false;
    }
    if (list[at].grant) state.channel?.postMessage({grant: list[at].grant, credential: list[at]});
  }
  signedInAnew();
  return at >= 0;
}

// Tabs that share a sign-in. A tab opened from this one starts with a copy of its sign-in, the
// same refresh token in it, and a provider that rotates refresh tokens takes each once: one
// presented again may revoke the whole sign-in (RFC 9700, 4.14.2). So the tabs of a sign-in (its
// `grant`, made as it begins) refresh it one at a time, under a Web Lock; the one that refreshed
// hands the new tokens to the others (BroadcastChannel: this origin's tabs only); and each holds
// a shared lock named for the refresh it is at, which tells a tab that missed the news (it was
// loading) that its refresh token is spent, and to ask for the newer one.

// Refresh a credential's sign-in under its lock: where another tab refreshed it meanwhile, its
// tokens (handed over, or asked for) serve; else this tab refreshes it.
function sharedRefresh(credential) {
  return navigator.locks.request(REFRESH_LOCK + credential.grant, async () => {
    let kept = ownGrant(credential.grant);
    const newest = await newestRefresh(credential.grant);
    if (kept && newest > (kept.refreshed || 0)) kept = await handedOver(kept, newest);
    if (!kept) return false;
    return kept.refresh?.token !== credential.refresh.token || refreshHere(kept);
  });
}

// This tab's credential of a sign-in (its grant), if it still has it.
function ownGrant(grant) {
  return credentials().find((one) => one.grant === grant) || null;
}

// The newest refresh any tab of this origin is at for a sign-in, from the locks they hold.
async function newestRefresh(grant) {
  const held = (await navigator.locks.query()).held || [];
  return Math.max(0, ...held.filter((lock) => lock.name.startsWith(GRANT_LOCK + grant + " "))
    .map((lock) => Number(lock.name.split(" ").pop()) || 0));
}

// Whether another tab holds this sign-in too (its lock, besides this tab's).
async function othersHold(grant) {
  if (!grant || !navigator.locks) return false;
  const held = (await navigator.locks.query()).held || [];
  return held.filter((lock) => lock.name.startsWith(GRANT_LOCK + grant + " ")).length > 1;
}

// This tab's credential once another tab has handed over its newer tokens (asked for now);
// null where none does in time, and this tab does not refresh it: its refresh token is spent.
function handedOver(kept, newest) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      state.handovers.delete(kept.grant);
      state.unrefreshed = kept.value;
      signinNote("Not refreshed: another tab of this page refreshed this sign-in and has not " +
        "handed its tokens over. Refresh now tries again.", true, false);
      resolve(null);
    }, HANDOVER_MS);
    state.handovers.set(kept.grant, () => {
      const fresh = ownGrant(kept.grant);
      if (fresh && (fresh.refreshed || 0) < newest) return;
      clearTimeout(timer);
      state.handovers.delete(kept.grant);
      resolve(fresh);
    });
    state.channel?.postMessage({grant: kept.grant, ask: kept.refreshed || 0});
  });
}

// Hold the lock of each sign-in this tab has at the refresh it is at (and no other): resolved
// once they are held.
function holdGrants() {
  if (!navigator.locks) return Promise.resolve();
  const names = new Set(credentials().filter((one) => one.grant).map((one) => GRANT_LOCK +
    one.grant + " " + (one.refreshed || 0)));
  for (const [name, lock] of state.held) {
    if (!names.has(name)) {
      lock.release();
      state.held.delete(name);
    }
  }
  return Promise.all(Array.from(names, (name) => {
    if (!state.held.has(name)) {
      let release, granted;
      const kept = new Promise((resolve) => { release = resolve; });
      const held = new Promise((resolve) => { granted = resolve; });
      navigator.locks.request(name, {mode: "shared"}, () => { granted(); return kept; });
      state.held.set(name, {release, held});
    }
    return state.held.get(name).held;
  }));
}

// News of a sign-in from another tab of this origin: its newer tokens, kept; its refusal, a
// sign-out here too; a tab asking for the newest, answered where this one has newer.
function grantNews(event) {
  const news = event.data, list = credentials();
  const at = typeof news?.grant === "string" ? list.findIndex((one) => one.grant && one.grant ===
    news.grant) : -1, mine = list[at];
  if (!mine) return;
  if (typeof news.ask === "number" && (mine.refreshed || 0) > news.ask) {
    state.channel.postMessage({grant: mine.grant, credential: mine});
  } else if (typeof news.refused === "string") {
    keepCredentials(list.filter((one) => one !== mine));
    signedInAnew();
    signinNote(news.refused.replace(/^Signed out of \S+: /, "Signed out of " + mine.scheme +
      " in another tab: "), true, false);
  } else if (news.credential && typeof news.credential.value === "string" &&
    (news.credential.refreshed || 0) > (mine.refreshed || 0)) {
    const {value, obtained, expires, who, refreshed} = news.credential, fresh = news.credential;
    list[at] = {...mine, value, obtained, expires, who, refreshed, refresh: fresh.refresh};
    try {
      keepCredentials(list);
    } catch (error) {
      signinNote("Another tab refreshed this sign-in, but " + error.message, true, false);
      return;
    }
    signedInAnew();
    state.handovers.get(mine.grant)?.();
  }
}

// As the page loads: listen to the other tabs of this origin, hold this tab's sign-ins' locks,
// and ask for any newer tokens of them (those handed over while this page was not here to hear:
// loading, on another site, or in the browser's back-forward cache).
function shareSignins() {
  if (!window.BroadcastChannel) return;
  state.channel = new window.BroadcastChannel(CHANNEL_NAME);
  state.channel.addEventListener("message", grantNews);
  holdGrants();
  askNewest();
  window.addEventListener("pageshow", (event) => { if (event.persisted) askNewest(); });
}

// Ask the other tabs for newer tokens of each sign-in this tab has.
function askNewest() {
  for (const one of credentials().filter((kept) => kept.grant)) {
    state.channel.postMessage({grant: one.grant, ask: one.refreshed || 0});
  }
}

// Sign out of a credential: forgotten (its cookie too), and no sign-in left waiting for an
// answer; then this page again without it.
function signOut(credential) {
  keepCredentials(credentials().filter((one) => one.scheme !== credential.scheme));
  sessionStorage.removeItem(PENDING_KEY);
  reshow("Signed out of " + credential.scheme + ".");
}

// A message from another window is never a way in: an authorization answer or a token posted to
// this page (as some servers' pop-ups do) is refused, and the panel says so.
function refuseMessage(event) {
  const data = event.data, keys = ["code", "state", "access_token", "id_token", "token"];
  if (!(data && typeof data === "object" ? keys.some((key) => key in data) :
    /\b(?:code|state|access_token|id_token)=/.test(String(data)))) return;
  signinNote("Refused a sign-in answer posted from another window (" + (event.origin ||
    "of no origin") + "): this page takes an authorization server's answer only in its own " +
    "address, in the tab that asked for it.", true, false);
}

// ---- Requests: every one the page sends carries the panel's headers ----

// Send a request with the panel's headers, the CSRF token, HTML wanted (or the headers of
// more: {headers, signal}); null for a redirect shown. Its times are kept for timingText().
async function send(method, url, body, type, more = {}, hops = 0) {
  const target = new URL(url, window.location.href);
  // to this site only, checked here whatever CSP the page came with; redirects too, below
  if (target.origin !== window.location.origin) throw new Error("Not this site: " + target);
  if (state.stream?.parsing) stopStream();  // after this fetch, its window.stop() would end it
  // the panel's headers, but not with {bare: true}: a stream of a page that came without them
  // "fetch": a stream's page read here, which keeps no more than it shows (see streamLive)
  const headers = Object.assign(more.bare ? {} : panelHeaders(),
    {"Accept": "text/html", "X-Flask-API-Page": "fetch", ...more.headers});
  const token = document.querySelector("input[name=csrf_token]");
  if (token) headers["X-CSRFToken"] = token.value;
  if (type && !(body instanceof FormData)) headers["Content-Type"] = type;
  state.sent = {method, url: target.href, body, type};
  // a sign-in's credential, and a query key, go where the stored headers go
  const signed = more.bare ? target : await signedURL(target, headers);
  const started = performance.now(), signal = more.signal;
  const response = await fetch(signed.href, {method, headers, body, signal, redirect: "manual"});
  state.times.set(response, {started, firstByte: performance.now()});
  if (response.type !== "opaqueredirect") return response;
  const next = method === "GET" && hops < 5 ? await redirectTarget(target) : null;
  if (next && next.origin === window.location.origin && next.href !== target.href) {
    return send("GET", next.href, undefined, undefined, more, hops + 1);
  }
  showRedirect(method, target, next);
  return null;
}

// Where a GET of a URL is redirected, asked without the panel's headers; null if unknown.
async function redirectTarget(target) {
  try {
    return new URL((await fetch(target.href, {headers: {"Accept": "text/html"}})).url);
  } catch { return null; }  // another site, which the page's CSP does not let it ask
}

// Whether a response is HTML, by its Content-Type.
function isHTML(response) {
  return (response.headers.get("Content-Type") || "").startsWith("text/html");
}

// Whether a response is this API's page, to swap in: the server's mark, HTML, not a download.
function isPage(response) {  // the mark is a header, which an uploaded HTML file cannot have
  return response.headers.has("X-Flask-API-Page") && isHTML(response) &&
    !/^\s*attachment/i.test(response.headers.get("Content-Disposition") || "");
}

// GET a URL of this site with the panel's headers; push it to the history unless going Back.
async function navigate(url, push, focusOn) {
  const turn = ++state.navigation;
  const response = await send("GET", url);
  if (turn !== state.navigation) return;  // the user went on (Back, then Forward) meanwhile
  if (push && response && isHTML(response) && !isPage(response)) {
    window.location.assign(withoutKeys(response.url));  // a visit, under its own headers
    return;
  }
  if (push) history.pushState(null, "", response ? withoutKeys(response.url) : url);
  await show(response, focusOn);
}

// With headers set, a link of this site is followed with fetch, so that they go along.
function followLink(event) {
  const link = event.target.closest("a[href]:not([data-plain])");
  if (!link || !storedCredentials() || event.defaultPrevented || event.button !== 0 ||
      event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(link.href, window.location.href);
  if (url.origin !== window.location.origin) return;
  event.preventDefault();
  navigate(url.href, true);
}

// The request form: the real method with fetch, its body from the active tab.
async function submitForm(event) {
  const form = event.target;
  if (!form.hasAttribute("data-api")) return;
  event.preventDefault();
  const button = event.submitter;
  const method = button && button.name === "_method" ? button.value : form.elements._method.value;
  if (method === "DELETE" && !window.confirm("Delete this resource?")) return;
  const request = method === "DELETE" || method === "OPTIONS" ? {} : formRequest(form, method);
  if (request === null) return;  // a field the user must fix first
  show(await send(method, window.location.href, request.body, request.type));
}

// ---- Coming back: reloads, Back and Forward, and pages another site sent the user to ----

// Whether the browser came here from this site (a link; a reload, Back or Forward to a page no
// other site sent it to). Another site may send it to any URL of the API (a link, a script, a
// new tab with a copy of this tab's headers, then Back): fetching that again with the headers
// would send a request of that site's choosing.
function cameFromHere() {
  // no referrer: a typed URL, a bookmark, or another site that hid it
  const from = document.referrer && new URL(document.referrer).origin;
  if (from === window.location.origin) return true;
  const entry = performance.getEntriesByType("navigation")[0];
  return !from && !history.state?.fromElsewhere && Boolean(entry) &&
    (entry.type === "reload" || entry.type === "back_forward");
}

// Fetch a page the browser loaded itself (without the headers) again with them, and say so.
async function withHeaders() {
  const names = storedNames();
  try {
    await navigate(window.location.href, false);
    document.getElementById("api-headers")?.after(el("p", {class: "hint", id: "api-refetched"},
      ["Fetched again with your request headers (" + names + "): the browser loads a page " +
        "without them."]));
  } finally {
    document.documentElement.classList.remove("refetch");
  }
}

// On a page from elsewhere (or a typed URL), shown as it came: a button to fetch it with them.
function offerRefetch() {
  document.getElementById("api-headers")?.after(el("p", {class: "hint", id: "api-refetch"}, [
    "Loaded without your request headers. ", el("button", {type: "button",
      onclick: () => withHeaders()}, ["Fetch again with your stored headers"])]));
}

// Back and Forward: the entry's page again, with the headers unless it came from elsewhere.
function wentBack(event) {
  if (storedCredentials() && !event.state?.fromElsewhere) navigate(window.location.href, false);
  else window.location.reload();
}

// Back to this page from the browser's cache: fetched again with the headers, if any are set.
function cameBack(event) {
  if (storedCredentials() && event.persisted && !history.state?.fromElsewhere) withHeaders();
}

// ---- The query form: this URL's parameters, to edit and send as a GET ----

// The query form: this URL's parameters as rows to edit, add and remove; sent as a GET.
function queryPanel() {
  const section = document.getElementById("api-query");
  if (!section) return;
  const params = Array.from(new URLSearchParams(window.location.search));
  const rows = el("div", {class: "rows"}, params.length ? params.map(([name, value]) =>
    queryRow(name, value)) : [queryRow("", "")]);
  const submit = function (event) {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const row of rows.children) {
      const [name, value] = row.querySelectorAll("input");
      if (name.value) query.append(name.value, value.value);
    }
    const url = new URL(window.location.href);  // this very page: never a "//host/" path
    url.search = String(query);
    if (storedCredentials()) navigate(url.href, true); else window.location.assign(url.href);
  };
  const details = el("details", {}, [
    el("summary", {}, ["Query parameters" + (params.length ? " (" + params.length + ")" : "")]),
    el("form", {"aria-label": "Query", onsubmit: submit}, [rows, el("div", {class: "bar"}, [
      el("button", {type: "button", onclick: () => rows.append(queryRow("", ""))},
        ["Add parameter"]), el("button", {}, ["Send GET"])])])]);
  details.open = params.length > 0;
  section.replaceChildren(details);
  section.hidden = false;
}

// One query parameter: name, value and a button that removes the row.
function queryRow(name, value) {
  const row = el("div", {class: "bar"}, [
    el("input", {"aria-label": "Parameter name", placeholder: "name", value: name}),
    el("input", {"aria-label": "Parameter value", placeholder: "value", value: value}),
    el("button", {type: "button", onclick: () => row.remove()}, ["Remove"])]);
  return row;
}

// ---- The response panel: the request, its status, its headers and its body ----

// Show a response (none: a redirect, shown already): the API's page replaces this one's body,
// anything else goes in the panel; then focus goes to it (or focusOn) and it is announced.
async function show(response, focusOn = "pre.response") {
  stopStream();
  if (response && isStreamPage(response)) return showStreamPage(response, focusOn);
  const bytes = response ? new Uint8Array(await response.arrayBuffer()) : new Uint8Array(0);
  const text = new TextDecoder().decode(bytes);
  const times = response && {...state.times.get(response), end: performance.now(),
    bytes: bytes.length};
  document.documentElement.classList.remove("refetch");  // hidden, it could not take focus
  if (text && isPage(response)) {
    swapPage(text);
    times.bytes = answerSize();  // the API's answer, not the page that shows it
  } else if (response) {
    const panel = showPanel(state.sent, "HTTP " + response.status + " " + response.statusText,
      !response.ok, response.headers, text ? [text] : [el("span", {class: "hint"},
        ["No content."])]);
    if (panel) panel.dataset.status = response.status;
    if (panel && !text) panel.after(wayOn());  // 204 to a DELETE, an empty 200: where to go
  }
  if (response) {
    remember(times, isPage(response) && text ? null :
      {headers: Array.from(response.headers), body: text});
  }
  if (times) showTiming(times);
  showResult(focusOn);
}

// Put a page of this API in this one's place (its body, its title), and build its tools.
function swapPage(html, fetched) {
  const page = new DOMParser().parseFromString(html, "text/html");
  const live = document.getElementById("api-live");
  document.title = page.title;
  document.body.replaceWith(document.adoptNode(page.body));
  if (live) document.body.append(live);  // a new live region would not be read
  enhance(fetched);
}

// Show a stream's page as a fetch brings it: the page once it is whole, then its items live.
async function showStreamPage(response, focusOn) {
  const reader = response.body.getReader(), parts = streamPageParts(reader);
  document.documentElement.classList.remove("refetch");
  swapPage((await parts.next()).value.head, {response, reader, parts});
  remember(null);
  showResult(focusOn);
}

// A request's time to first byte, time in all and body size (if known): the timing line.
function timingText(times) {
  const ms = (from, to) => grouped(Math.round(to - from)) + " ms";
  return "first byte in " + ms(times.started, times.firstByte) + " \u00b7 " +
    ms(times.started, times.end) + " in all" +
    (times.bytes === undefined ? "" : " \u00b7 " + counted(times.bytes, "byte"));
}

// Put the timing line after the panel's status (the page's own load: its Navigation Timing).
function showTiming(times) {
  document.querySelector("pre.response > .status")?.after(" ", el("span", {class: "timing"},
    [timingText(times)]));
}

// The page's own load as timingText() takes it, from its Navigation Timing entry.
function pageTiming() {
  const entry = performance.getEntriesByType("navigation")[0];
  return entry && {started: entry.requestStart || entry.startTime, firstByte: entry.responseStart,
    end: entry.responseEnd, bytes: answerSize(), status: entry.responseStatus};
}

// The bytes of the answer the page shows as the API sends it, which the server writes on the
// panel; not those of the HTML page around it. None where there is no answer (the routes).
function answerSize() {
  const size = document.querySelector("pre.response")?.dataset.size;
  return size === undefined ? undefined : Number(size);
}

// Focus the result (the response panel, or focusOn), and say its status and size.
function showResult(focusOn) {
  const panel = document.querySelector("pre.response"), place = document.querySelector(focusOn);
  if (!panel || !place) return;
  if (place === panel) panel.setAttribute("tabindex", "-1");
  place.focus();
  const size = panel.querySelector(".tree > .line > .more")?.dataset.more.replace("\u2026 ", "");
  announce([panel.querySelector(".status")?.textContent, panel.querySelector(".hint")
    ?.textContent || size, panel.querySelector(".timing")?.textContent].filter(Boolean)
    .join(": "));
}

// Say something to screen readers, in one polite live region, kept across page swaps.
function announce(text) {
  let live = document.getElementById("api-live");
  if (!live) {
    live = el("p", {id: "api-live", class: "visually-hidden", role: "status"});
    document.body.append(live);
  }
  live.textContent = text;
}

// Fill the response panel: the request's line, the status, the headers, then the body's nodes.
function showPanel(sent, status, error, headers, body) {
  const panel = document.querySelector("pre.response");
  if (!panel) return null;
  const url = new URL(sent.url, window.location.href);
  Object.assign(panel.dataset, {method: sent.method, url: url.href});
  panel.toggleAttribute("data-error", error);
  delete panel.dataset.status;  // show() sets it: a redirect not followed has none
  const lines = [el("span", {class: "key"}, [sent.method + " " + url.pathname + url.search]),
    "\n\n", el("span", {class: error ? "status error" : "status"}, [status]), "\n"];
  for (const [name, value] of headers) {
    lines.push(el("span", {class: "key"}, [name + ":"]), " " + value + "\n");
  }
  panel.replaceChildren(...lines, "\n", ...body);
  for (const stale of document.querySelectorAll(".tree-tools, #api-way-on")) stale.remove();
  return panel;
}

// A redirect not followed with the panel's headers: say so, and link it as a plain visit.
function showRedirect(method, target, next) {
  const href = (next || target).href, to = next ? "another site" : "a place the page cannot see";
  showPanel({method, url: target.href}, "A redirect, to " + to + ": not followed with your " +
    "request headers.", false, [], ["Visit it without them: ", el("a", {href, "data-plain": ""},
    [href])]);
}

// Where to go from an answer without a body: the collection above this URL, or back.
function wayOn() {
  const crumbs = document.querySelectorAll(".crumbs a"), up = crumbs[crumbs.length - 2];
  const back = el("button", {type: "button", onclick: () => history.back()}, ["Back"]);
  return el("div", {id: "api-way-on", class: "bar"},
    up ? [el("a", {class: "button", href: up.href}, ["Go to " + up.textContent]), back] : [back]);
}

// ---- The body as data: its JSON, kept whole ----
// As nodes that keep what JavaScript's own values lose (9007199254740993, 2.0, a "__proto__"
// key, key order): {type: "string", value}, {type: "number" | "boolean" | "null", text},
// {type: "object", entries: [[key, node], ...]}, {type: "array", items: [node, ...]}.

// A JSON number, as RFC 8259 writes it: the parser reads them, the form's number fields take them.
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/;

// JSON text as nodes that keep what JavaScript's values would lose (see the section's head).
function parseJSON(text) {
  const space = /[ \t\n\r]*/y, word = /true|false|null/y, number = new RegExp(NUMBER, "y");
  const plain = /"[^"\\\u0000-\u001f]*"/y;
  const escaped = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
  let at = 0;
  // The text the pattern matches here, moving past it; null where it does not match.
  function take(pattern) {
    pattern.lastIndex = at;
    const found = pattern.exec(text);
    if (found) at = pattern.lastIndex;
    return found && found[0];
  }
  // Fail with where, and what was found there.
  function fail(wanted) {
    throw new SyntaxError("JSON: " + wanted + " expected at " + at);
  }
  // A string's value: most have no escape to undo.
  function string() {
    const found = take(plain);
    if (found !== null) return found.slice(1, -1);
    return JSON.parse(take(escaped) || fail("a string"));
  }
  // Items up to the closing bracket, each read by read().
  function sequence(close, read) {
    const items = [];
    at += 1;
    take(space);
    if (text[at] === close) { at += 1; return items; }
    for (;;) {
      items.push(read());
      take(space);
      const next = text[at++];
      if (next === close) return items;
      if (next !== ",") { at -= 1; fail("',' or '" + close + "'"); }
    }
  }
  // An object's member: its key, then its value.
  function member() {
    take(space);
    if (text[at] !== '"') fail("a key");
    const key = string();
    take(space);
    if (text[at++] !== ":") { at -= 1; fail("':'"); }
    return [key, value()];
  }
  // Any value.
  function value() {
    take(space);
    const first = text[at];
    if (first === "{") return {type: "object", entries: sequence("}", member)};
    if (first === "[") return {type: "array", items: sequence("]", value)};
    if (first === '"') return {type: "string", value: string()};
    const found = take(number) || take(word) || fail("a value");
    const type = found === "null" ? "null" : found === "true" || found === "false" ? "boolean" :
      "number";
    return {type, text: found};
  }
  const root = value();
  take(space);
  if (at !== text.length) fail("the end");
  return root;
}

// A node as JSON text: as the API writes it (", " and ": ") where indent is "", else indented.
function writeJSON(node, indent, newline = "\n") {
  if (node.type === "string") return JSON.stringify(node.value);
  if (node.type !== "object" && node.type !== "array") return node.text;
  const object = node.type === "object", inner = newline + indent, members = [];
  for (const member of membersOf(node)) {  // not map(): two frames more a level, on deep JSON
    members.push(object ? JSON.stringify(member[0]) + ": " + writeJSON(member[1], indent, inner) :
      writeJSON(member, indent, inner));
  }
  const [open, close] = object ? ["{", "}"] : ["[", "]"];
  if (!members.length) return open + close;
  if (!indent) return open + members.join(", ") + close;
  return open + inner + members.join("," + inner) + newline + close;
}

// A container's members: an object's [key, value] entries, an array's items.
function membersOf(node) {
  return node.type === "object" ? node.entries : node.items;
}

// The response body's model, or undefined where the body is not JSON.
function bodyModel() {
  const body = document.querySelector("pre.response .body");
  try { return body ? parseJSON(body.textContent) : undefined; } catch { return undefined; }
}

// ---- The body as a tree: fold, unfold, filter, links; lines built when first shown ----

const FIRST_LINES = 2000;  // lines shown unfolded at first; the rest starts folded
const MOST_LINES = 10000;  // lines "Unfold all" shows at the most
const GROUP = 100;  // a longer array or object shows its members in groups of 100, 10,000, ...
const MOST_MATCHES = 1000;  // matches of the filter shown at the most
// A URL in text, as the server's _URL_RE finds one (a test holds them to it): balanced
// parentheses are part of it, the punctuation of a sentence around it is not.
const URL_IN_TEXT = /https?:\/\/[^\s"<>\\()]*(?:\([^\s"<>\\()]*\)[^\s"<>\\()]*)*(?<![.,;:!?'\]])/g;

// The tree and its tools, after the body's text, which the page hides (or shows, for no JSON).
function jsonTree(model) {
  const body = document.querySelector("pre.response .body");
  const shown = document.documentElement.classList;
  shown.toggle("json-tree", Boolean(body) && model !== undefined);
  if (!shown.contains("json-tree")) return;
  try {
    const tree = el("span", {class: "tree", onclick: foldClick, onkeydown: foldKey});
    body.after(tree);
    document.querySelector("pre.response").before(treeTools(tree, model));
    showTree(tree, model, FIRST_LINES);
  } catch (error) {
    shown.remove("json-tree");  // the text, as it is
    throw error;
  }
}

// Show the model from its root, unfolded breadth first up to a number of lines.
function showTree(tree, model, lines, label = "the body") {
  const root = treeLine(null, {node: model}, true, label);
  tree.replaceChildren(root);
  return unfoldLines(root, lines);
}

// One line: a fold button for a container (named after its key, or label), the key (or the
// index), then the value or brackets.
function treeLine(key, data, last, label = "value") {
  const node = data.node, group = data.from !== undefined;
  const container = group || node.type === "object" || node.type === "array";
  const line = el("span", {class: group ? "line group" : "line"});
  state.lines.set(line, data);
  if (container && (group || childCount(data))) {
    const name = key !== null ? key : group ? (node.type === "object" ? "keys " : "items ") +
      data.from + " to " + (data.to - 1) : label;
    line.append(el("button", {type: "button", class: "fold", "aria-expanded": "false",
      "aria-label": "Unfold " + name}));
  }
  if (data.index !== undefined) {  // shown, not copied
    line.append(el("span", {class: "index", "data-index": data.index}));
  }
  if (group) {
    line.append(el("span", {class: "range", "data-range": "[" + data.from + " \u2026 " +
      (data.to - 1) + "]"}), el("span", {class: "kids"}));
    return line;
  }
  if (key !== null) line.append(el("span", {class: "k"}, [JSON.stringify(key)]), ": ");
  if (!container) line.append(scalar(node));
  else {
    const object = node.type === "object";
    line.append(object ? "{" : "[", el("span", {class: "more", "data-more": foldedText(node)}),
      el("span", {class: "kids"}), object ? "}" : "]");
  }
  if (!last) line.append(",");
  return line;
}

// How a folded container reads: "... 3 keys", "... 100,000 items" (with an ellipsis).
function foldedText(node) {
  const count = membersOf(node).length;
  return count ? "\u2026 " + counted(count, node.type === "object" ? "key" : "item") : "";
}

// A string, number, true, false or null, as JSON, with the URLs in a string as links.
function scalar(node) {
  if (node.type !== "string") {
    return el("span", {class: node.type === "number" ? "n" : "l"}, [node.text]);
  }
  const text = JSON.stringify(node.value), span = el("span", {class: "s"});
  let end = 0;
  for (const found of text.matchAll(URL_IN_TEXT)) {
    span.append(text.slice(end, found.index), el("a", {href: found[0]}, [found[0]]));
    end = found.index + found[0].length;
  }
  span.append(text.slice(end));
  return span;
}

// True for a container the filter narrows: on the way to a match, not a match itself.
function filtered(data) {
  return state.filter !== null && data.from === undefined && !state.filter.hits.has(data.node);
}

// The indexes of the members of a container that the filter keeps: those on the way to a match.
function keptMembers(node) {
  const object = node.type === "object", indexes = [];
  membersOf(node).forEach((member, index) => {
    if (state.filter.keep.has(object ? member[1] : member)) indexes.push(index);
  });
  return indexes;
}

// The size of the groups that a run of this many items is shown in (1: the items).
function groupSize(count) {
  let size = 1;
  while (count / size > GROUP) size *= GROUP;
  return size;
}

// How many lines a container's children take: its members, or its groups of members.
function childCount(data) {
  if (filtered(data)) return keptMembers(data.node).length;
  const from = data.from || 0, to = data.to === undefined ? membersOf(data.node).length : data.to;
  return Math.ceil((to - from) / groupSize(to - from));
}

// The lines of a container's (or group's) children, in groups: a million keys are 100 lines.
function childLines(data) {
  const node = data.node, count = membersOf(node).length;
  if (filtered(data)) {
    const kept = keptMembers(node), labelled = node.type === "array";
    return kept.map((index, at) => memberLine(node, index, at === kept.length - 1, labelled));
  }
  const from = data.from || 0, to = data.to === undefined ? count : data.to;
  const size = groupSize(to - from), lines = [];
  for (let at = from; at < to; at += size) {
    lines.push(size === 1 ? memberLine(node, at, at === count - 1, false) :
      treeLine(null, {node, from: at, to: Math.min(at + size, to)}, true));
  }
  return lines;
}

// A member's line: an object's key and value, an array's item (labelled, where some are left out).
function memberLine(node, index, last, labelled) {
  const member = membersOf(node)[index];
  if (node.type === "object") return treeLine(member[0], {node: member[1]}, last);
  return treeLine(null, labelled ? {node: member, index} : {node: member}, last, "item " + index);
}

// Unfold or fold a line; its children are built the first time it is unfolded.
function setOpen(line, open) {
  const button = line.querySelector(":scope > button.fold");
  if (!button) return;
  const kids = line.querySelector(":scope > .kids");
  if (open && !kids.hasChildNodes()) kids.append(...childLines(state.lines.get(line)));
  line.classList.toggle("open", open);
  button.setAttribute("aria-expanded", String(open));
  button.setAttribute("aria-label", button.getAttribute("aria-label")
    .replace(/^(Un)?[Ff]old/, open ? "Fold" : "Unfold"));
}

// Unfold from a line down, breadth first, up to a limit of lines; true if all is unfolded.
function unfoldLines(root, limit) {
  let shown = 1, level = [root];
  while (level.length) {
    const next = [];
    for (const line of level) {
      const data = state.lines.get(line);
      if (!line.querySelector(":scope > button.fold")) continue;
      if (line !== root && state.filter && state.filter.hits.has(data.node)) continue;
      shown += childCount(data);
      if (line !== root && shown > limit) return false;
      setOpen(line, true);
      next.push(...line.querySelector(":scope > .kids").children);
    }
    level = next;
  }
  return true;
}

// A click on a fold button unfolds its line, or folds it.
function foldClick(event) {
  const line = event.target.closest("button.fold")?.parentElement;
  if (line) setOpen(line, !line.classList.contains("open"));
}

// Keys on a fold button: right unfolds, left folds, or goes to the enclosing line.
function foldKey(event) {
  const button = event.target.closest("button.fold");
  if (!button || (event.key !== "ArrowRight" && event.key !== "ArrowLeft")) return;
  const line = button.parentElement, open = line.classList.contains("open");
  event.preventDefault();
  if (event.key === "ArrowRight") setOpen(line, true);
  else if (open) setOpen(line, false);
  else {
    const outer = line.parentElement.closest(".line");
    if (outer) outer.querySelector(":scope > button.fold").focus();
  }
}

// The tree's tools: fold all, unfold all, copy the JSON, and the filter.
function treeTools(tree, model) {
  const status = el("span", {class: "hint", role: "status"});
  const copy = el("button", {type: "button",
    onclick: () => copied(copy, navigator.clipboard.writeText(writeJSON(model, "")))},
    ["Copy JSON"]);
  const filter = filterBox("Filter keys and values", status,
    (text) => filterTree(tree, model, text));
  return el("div", {class: "bar tree-tools", role: "group", "aria-label": "Body"}, [
    el("button", {type: "button", onclick: () => {
      showTree(tree, model, 1);
      status.textContent = "";
    }}, ["Fold all"]),
    el("button", {type: "button", onclick: () => {
      status.textContent = showTree(tree, model, MOST_LINES) ? "" : "Unfolded the first " +
        grouped(MOST_LINES) + " lines; unfold the rest one by one, or filter.";
    }}, ["Unfold all"]), copy, filter, status]);
}

// A search box that runs a filter once typing pauses, and puts what it found in a status.
function filterBox(label, status, filter) {
  let timer = null;
  const box = el("input", {type: "search", "aria-label": label, placeholder: label,
    oninput: () => {
      clearTimeout(timer);
      timer = setTimeout(() => { status.textContent = filter(box.value); }, 200);
    }});
  return box;
}

// Say "Copied" on a button once its copy is done, and go back to its label after a moment.
async function copied(button, done) {
  const label = button.textContent;
  try {
    await done;
    button.textContent = "Copied";
  } catch { button.textContent = "Not copied"; }
  announce(button.textContent);
  setTimeout(() => { button.textContent = label; }, 1500);
}

// Show only what matches the filter (in keys and values, folded or not); what it found.
function filterTree(tree, model, text) {
  const query = text.trim().toLowerCase();
  state.filter = null;
  if (!query) { showTree(tree, model, FIRST_LINES); return ""; }
  const found = {keep: new Set(), hits: new Set()};
  findMatches(model, null, query, found);
  state.filter = found;
  showTree(tree, model, Infinity);
  for (const line of tree.querySelectorAll(".line")) {
    const data = state.lines.get(line);
    line.classList.toggle("hit", found.hits.has(data.node) && data.from === undefined);
  }
  const count = found.hits.size;
  if (!count) return "Nothing matches.";
  return count >= MOST_MATCHES ? "The first " + grouped(count) + " matches." :
    counted(count, "match", "matches") + ".";
}

// Mark the nodes that match (key or value) and those on the way to them; true if any.
function findMatches(node, key, query, found) {
  if (found.hits.size >= MOST_MATCHES) return false;
  const own = node.type === "string" ? node.value : node.text;
  if ((key !== null && key.toLowerCase().includes(query)) ||
      (own !== undefined && own.toLowerCase().includes(query))) {
    found.hits.add(node);
    found.keep.add(node);
    return true;
  }
  let any = false;
  if (node.type === "object") {
    for (const [name, child] of node.entries) any = findMatches(child, name, query, found) || any;
  } else if (node.type === "array") {
    for (const child of node.items) any = findMatches(child, null, query, found) || any;
  }
  if (any) found.keep.add(node);
  return any;
}

// Copying a selection across lines of the tree copies the JSON of the value that holds it.
function copyTree(event) {
  const selection = window.getSelection();
  if (!selection.rangeCount || selection.isCollapsed) return;
  const range = selection.getRangeAt(0), holder = range.commonAncestorContainer;
  const tree = (holder.nodeType === 1 ? holder : holder.parentElement).closest(".tree");
  if (!tree) return;  // more than a tree: as it reads
  const lineOf = (place) => (place.nodeType === 1 ? place : place.parentElement).closest(".line");
  const first = lineOf(range.startContainer);
  if (first && first === lineOf(range.endContainer)) return;  // within a line: as it reads
  let line = holder === tree ? tree.firstChild : lineOf(holder);
  while (state.lines.get(line).from !== undefined) line = line.parentElement.closest(".line");
  event.clipboardData.setData("text/plain", writeJSON(state.lines.get(line).node, "    "));
  event.preventDefault();
}

// ---- The form tab: fields from the body's model, sent back without loss ----

const MOST_FIELDS = 1000;  // fields the form tab offers at the most; past that, the raw box
// Keys that mark an object as one page of a list: {"count": 2, "next": ..., "results": [...]}.
const PAGE_KEYS = ["count", "next", "previous", "prev", "total", "page", "pages", "offset",
  "limit", "cursor", "per_page", "page_size", "total_pages"];

// The form tab's fields: an object's, or blank ones for what a list's items share; none for errors.
function formFields(model) {
  if (!model || document.querySelector("pre.response[data-error]")) return null;
  const items = model.type === "array" ? model.items : pageItems(model);
  if (items) return sharedFields(items);
  return model.type === "object" ? {entries: model.entries, blank: false} : null;
}

// The items of a paginated wrapper: its one list of objects, if it has a page's keys.
function pageItems(model) {
  if (model.type !== "object" ||
      !model.entries.some((member) => PAGE_KEYS.includes(member[0].toLowerCase()))) return null;
  const lists = model.entries.filter((member) => member[1].type === "array" &&
    member[1].items.length && member[1].items.every((item) => item.type === "object"));
  return lists.length === 1 ? lists[0][1].items : null;
}

// Blank fields for the keys every item has, typed after the first item's values.
function sharedFields(items) {
  if (!items.length || !items.every((item) => item.type === "object")) return null;
  const entries = items[0].entries.filter((member) => items.every((item) =>
    item.entries.some((other) => other[0] === member[0])));
  return {entries, blank: true};
}

// The "HTML form" and "Raw" tabs of the request form; the form is the default if it has fields.
// Where the form does not follow the documented schema, a hint at its head says why.
function formTabs(model) {
  const content = document.querySelector("form[data-api] textarea[name=_content]");
  if (!content) return;
  const shown = document.querySelector("pre.response[data-method=GET]:not([data-error])");
  const {form, why} = formFromSchema(shown ? model : undefined);
  const fields = form ? null : formFields(model), fieldset = content.closest("fieldset");
  const hint = why ? [el("p", {class: "hint", id: "api-form-why"}, [why])] : [];
  if (!form && (!fields || !fields.entries.length || fields.entries.length > MOST_FIELDS)) {
    fieldset.querySelector("legend").after(...hint);
    return;
  }
  const raw = el("div", {id: "api-raw", role: "tabpanel", "aria-label": "Raw"},
    Array.from(fieldset.children).filter((node) => node.tagName !== "LEGEND" &&
      !node.classList.contains("bar")));
  const panel = el("div", {id: "api-fields", role: "tabpanel", "aria-label": "HTML form"},
    hint.concat(form ? [form] : fields.entries.map((member, index) => formField(member[0],
      member[1], index, fields.blank))));
  const tabs = el("div", {class: "tabs", role: "tablist", "aria-label": "Edit as",
    onkeydown: (event) => tabKey(tabs, event), onclick: (event) => {
      const tab = event.target.closest("[role=tab]");
      if (tab) selectTab(tabs, tab.getAttribute("aria-controls"));
    }}, [el("button", {type: "button", role: "tab", "aria-controls": "api-fields"}, ["HTML form"]),
    el("button", {type: "button", role: "tab", "aria-controls": "api-raw"}, ["Raw"])]);
  fieldset.querySelector("legend").after(tabs, panel, raw);
  selectTab(tabs, "api-fields");
}

// Show one tab's panel, hide the other's; the selected tab is the tablist's one tab stop.
function selectTab(tabs, id) {
  for (const tab of tabs.children) {
    const selected = tab.getAttribute("aria-controls") === id;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    const panel = document.getElementById(tab.getAttribute("aria-controls"));
    panel.hidden = !selected;
    // a hidden schema form's fields are not checked: its required ones would stop the Raw tab
    for (const root of panel.querySelectorAll("[data-root]")) root.disabled = !selected;
  }
}

// Arrow keys, Home and End move to another tab and select it (the ARIA tabs pattern).
function tabKey(tabs, event) {
  const list = Array.from(tabs.children), at = list.indexOf(event.target);
  const to = {ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: list.length - 1}[event.key];
  if (at < 0 || to === undefined) return;
  event.preventDefault();
  const tab = list[(to + list.length) % list.length];
  selectTab(tabs, tab.getAttribute("aria-controls"));
  tab.focus();
}

// A labelled input for a value (a box of JSON for an object or array), and a "null" box.
function formField(key, node, index, blank) {
  const id = "api-field-" + index;
  const kind = node.type === "object" || node.type === "array" ? "json" : node.type;
  let input;
  if (kind === "json") {
    input = el("textarea", {id, class: "json", rows: "3"});
    input.value = blank ? "" : writeJSON(node, "  ");
  } else if (kind === "boolean") {
    input = el("input", {id, type: "checkbox"});
    input.checked = !blank && node.text === "true";
  } else if (kind === "string" && !blank && node.value.includes("\n")) {
    input = el("textarea", {id, rows: "3"});  // an input would drop its line breaks
    input.value = node.value;
  } else {
    input = el("input", {id, type: "text"});
    if (kind === "number") input.setAttribute("inputmode", "decimal");
    input.value = blank || kind === "null" ? "" : kind === "number" ? node.text : node.value;
  }
  input.dataset.key = key;
  input.dataset.kind = kind;
  if (blank) input.dataset.blank = "";
  const parts = [el("label", {for: id}, [key]), input];
  if (kind !== "boolean") parts.push(nullBox(input, kind === "null" && !blank));
  return el("div", {class: "field " + kind}, parts);
}

// A "null" checkbox for a field: while it is checked, the field is sent as null.
function nullBox(input, checked) {
  const box = el("input", {type: "checkbox", class: "null", "aria-label": input.dataset.key +
    " is null", onchange: () => { input.disabled = box.checked; }});
  box.checked = input.disabled = checked;
  return el("label", {class: "null"}, [box, "null"]);
}

// The request the form would send for a method: {body, type}, or null after reporting a bad field.
function formRequest(form, method) {
  const fields = document.getElementById("api-fields");
  if (!fields || fields.hidden) {
    return rawRequest(form.elements._content.value, form.elements._content_type.value);
  }
  const root = fields.querySelector("[data-root]");
  if (root) return schemaRequest(root, method === "PATCH" && root.dataset.method !== "PATCH");
  const members = [];
  for (const input of fields.querySelectorAll("[data-key]")) {
    let value;
    try {
      value = fieldJSON(input.dataset.kind, input.value, input.checked, input.disabled,
        input.hasAttribute("data-blank"));
    } catch (error) {
      refuse(input, "Not JSON: " + error.message);
      return null;
    }
    if (value !== undefined) members.push(JSON.stringify(input.dataset.key) + ": " + value);
  }
  return {body: "{" + members.join(", ") + "}", type: "application/json"};
}

// The raw box's request: its text as it is, or as multipart fields where that type is chosen.
function rawRequest(text, type) {
  if (type !== "multipart/form-data") return {body: text, type};
  const body = new FormData();
  for (const [key, value] of new URLSearchParams(text)) body.append(key, value);
  return {body, type};
}

// A field's value as JSON text (undefined: a blank left out); a value not of its kind throws.
function fieldJSON(kind, text, checked, isNull, blank) {
  if (kind === "boolean") return String(checked);
  if (isNull) return "null";  // its "null" box is checked
  if (text === "" && blank) return undefined;
  if (kind === "string" || kind === "null") return JSON.stringify(text);
  if (kind === "json") return writeJSON(parseJSON(text), "");
  if (new RegExp("^" + NUMBER.source + "$").test(text.trim())) return text.trim();
  throw new SyntaxError("a number such as 12 or 2.5 is expected");
}

// Say on a field why its value cannot be sent, until the user changes it.
function refuse(input, message) {
  input.setCustomValidity(message);
  input.reportValidity();
  input.addEventListener("input", () => input.setCustomValidity(""), {once: true});
}

// ---- The form from the schema: the body the app's OpenAPI document describes, as fields ----

// Whatever the schema, the form is built in bounded time and stack, or not at all: no spread of
// a schema's lists into a call's arguments, no recursion but along a depth that is counted.
const MOST_DEPTH = 32;  // objects and arrays nested deeper are boxes of JSON; so are groups
const MOST_CHOICES = 1000;  // an enum of more values is a line of text, checked against them
const MOST_PREFILLED = 100;  // a list shown with more items is a box of JSON, not fields

// The schema form for the described body, or why there is none ({form} or {why}): the server's
// sentence (a schema past its limits), or the page's (one past what a form can show).
function formFromSchema(model) {
  try {
    const found = bodySchema();
    return found && !found.why ? {form: schemaForm(found, model)} : {why: found?.why};
  } catch (error) {
    return {why: error.why || "This page could not make a form of the request body's schema (" +
      error.message + "), so this form is built from the data."};
  }
}

// The described body the form is built from: {method, content: its media types, schema,
// methods}; {why} where the server sent the reason it has none (its "fallback"); else null.
function bodySchema() {
  const block = document.getElementById("api-schemas");
  const all = block && parseJSON(block.textContent);
  const [method, found] = all?.type === "object" && all.entries[0] || [];  // POST's, else PUT's
  const body = keywords(found);
  if (body.fallback?.type === "string") return {why: body.fallback.value};
  if (!readSchema(keywords(body.schema)).k.properties?.entries?.length) return null;
  const content = (body.content?.type === "array" ? body.content.items : []).map((type) =>
    type.value).filter((type) => typeof type === "string");
  return {method, schema: body.schema, content, methods: all.entries.length};
}

// A schema node's keywords by name, each still a node: numbers and data stay whole.
function keywords(node) {
  return node && node.type === "object" ? Object.fromEntries(node.entries) : {};
}

// A schema's keywords, the kind of field it makes, whether it may be null, and for an anyOf or
// oneOf of several objects the keywords of each ("shapes": the field is a choice of them).
function schemaKind(node) {
  const {k, nullable, shapes} = readSchema(keywords(node));
  if (shapes) return {k, kind: "shapes", nullable, shapes};
  const [types] = typesOf(k);
  let kind = types.length > 1 ? "json" : types[0] || (k.properties ? "object" : "any");
  if (k.enum?.type === "array" || kind === "boolean") kind = "choice";
  else if (kind === "string" && k.format?.value === "binary") kind = "file";
  else if (kind === "object" && !k.properties?.entries?.length || kind === "array" && !k.items ||
    !["object", "array", "string", "integer", "number", "any"].includes(kind)) kind = "json";
  return {k, kind, nullable, shapes: null};
}

// A schema's keywords read through the wrappers libraries write around one schema: an allOf of
// it (apispec's 3.0 $ref, a description or readOnly beside it), an anyOf or oneOf of it and null
// (3.1's nullable; 3.0's, with {"type": "object", "nullable": true} as the null), the wrapper's
// own keywords winning. `schema`: its keywords (see keywords()). {k, nullable, shapes}: shapes,
// where an anyOf or oneOf has several objects, their keywords (read through too, `depth` levels
// down), else null.
function readSchema(schema, depth = 0) {
  let k = schema, nullable = false;
  for (let level = 0; level < MOST_DEPTH; level += 1) {
    const {allOf, anyOf, oneOf, ...own} = k, union = [anyOf, oneOf].find((list) =>
      list?.type === "array");
    const branches = union ? unionBranches(union.items.map(keywords)) : {kept: [], nullable: false};
    nullable = nullable || typesOf(k)[1] || branches.nullable;
    const inner = (allOf?.type === "array" ? allOf.items.map(keywords) : []).concat(
      branches.kept.length === 1 ? branches.kept : []);
    if (branches.kept.length > 1 && !inner.length) {
      const found = shapesOf(branches.kept, depth);
      return {k, nullable: nullable || found.nullable, shapes: found.shapes};
    }
    if (branches.kept.length > 1) own[union === anyOf ? "anyOf" : "oneOf"] = union;
    if (!inner.length) return {k: own, nullable, shapes: null};
    k = {...mergedKeywords(inner), ...own};
  }
  return {k, nullable, shapes: null};
}

// The non-null types a schema's keywords name, and whether they allow null (a type "null", or
// 3.0's nullable: true): [types, nullable].
function typesOf(k) {
  const named = (k.type?.type === "array" ? k.type.items : k.type ? [k.type] : []).filter(
    (type) => type.type === "string").map((type) => type.value);
  const types = named.filter((type) => type !== "null");
  return [types, types.length < named.length || k.nullable?.text === "true"];
}

const ONLY_NULL_KEYS = ["type", "nullable", "title", "description"];

// An anyOf's or oneOf's branches that are more than a way to say null ({"type": "null"}, or 3.0's
// {"type": "object", "nullable": true} beside an object), and whether one allows null.
function unionBranches(branches) {
  const onlyNull = (k) => typesOf(k)[1] && Object.keys(k).every((key) =>
    ONLY_NULL_KEYS.includes(key));
  const covered = new Set();
  for (const k of branches.filter((branch) => !onlyNull(branch))) {
    for (const type of typesOf(k)[0].concat(k.properties ? ["object"] : [])) covered.add(type);
  }
  return {kept: branches.filter((k) => !onlyNull(k) || typesOf(k)[0].some((type) =>
    !covered.has(type))), nullable: branches.some((k) => typesOf(k)[1])};
}

// Several schemas' keywords as one (an allOf's): properties and required joined, any other
// keyword the first one's.
function mergedKeywords(list) {
  if (list.length === 1) return list[0];
  const merged = new Map(), properties = [], required = [];
  for (const k of list) {
    for (const [key, value] of Object.entries(k)) if (!merged.has(key)) merged.set(key, value);
    for (const member of k.properties?.type === "object" ? k.properties.entries : []) {
      properties.push(member);  // one by one: concat() would copy them all for each schema
    }
    for (const name of k.required?.type === "array" ? k.required.items : []) required.push(name);
  }
  if (properties.length) merged.set("properties", {type: "object", entries: properties});
  if (required.length) merged.set("required", {type: "array", items: required});
  return Object.fromEntries(merged);
}

// The shapes of an anyOf or oneOf of several schemas: {shapes, nullable} where each is an object
// with fields (a choice of at most MOST_CHOICES), else {shapes: null} (a field of any JSON).
function shapesOf(branches, depth) {
  if (branches.length > MOST_CHOICES || depth >= MOST_DEPTH) return {shapes: null, nullable: false};
  const read = branches.map((k) => readSchema(k, depth + 1));
  return read.every(({k, shapes}) => !shapes && k.properties?.entries?.length &&
    typesOf(k)[0].every((type) => type === "object")) ? {shapes: read.map(({k}) => k),
      nullable: read.some((one) => one.nullable)} : {shapes: null, nullable: false};
}

// The form's top fieldset: the body's fields, marked with the method whose body it is. Past
// MOST_FIELDS fields it throws, saying why; once built, "Add an item" adds as many as asked.
function schemaForm(found, model) {
  const ids = {count: 0, most: MOST_FIELDS}, many = found.methods > 1 ||
    document.querySelectorAll("form[data-api] button[name=_method]").length > 1;
  const root = objectFieldset(many ? found.method + " body, as documented" : "Body, as documented",
    readSchema(keywords(found.schema)).k, model, {ids, depth: 0, blank: false});
  ids.most = Infinity;
  for (const type of ["input", "change", "click"]) {  // a click adds or removes an item
    root.addEventListener(type, () => requireWhereFilled(root));
  }
  requireWhereFilled(root);
  root.dataset.root = "";
  root.dataset.required = "";
  root.dataset.content = found.content.join("\n");
  root.dataset.method = found.method;
  if (found.method !== "PATCH") {  // a PATCH with another method's schema: only what is filled in
    for (const button of document.querySelectorAll("form[data-api] button[value=PATCH]")) {
      button.formNoValidate = true;
    }
  }
  if (!found.content.includes("multipart/form-data")) {
    for (const input of root.querySelectorAll("input[type=file]")) {
      input.disabled = true;
      input.closest(".field").append(el("p", {class: "hint"}, ["This operation takes no " +
        "multipart/form-data body, so no file can be sent from this form."]));
    }
  }
  return root;
}

// An object's fields in a fieldset, each prefilled from the value's member of its name.
function objectFieldset(legend, k, value, context) {
  const required = new Set(k.required?.type === "array" ? k.required.items.map((name) =>
    name.value) : []);
  const values = new Map(value && value.type === "object" ? value.entries : []);
  const fieldset = el("fieldset", {"data-kind": "object"}, [el("legend", {}, [legend])]);
  for (const [name, node] of k.properties.entries) {
    if (readSchema(keywords(node)).k.readOnly?.text === "true") continue;  // not sent
    fieldset.append(schemaField(name, node, required.has(name), values.get(name), context));
  }
  return fieldset;
}

// An array's items, each with a button to remove it, and a button to add one.
function arrayFieldset(name, k, value, context) {
  const items = el("div", {class: "items"}), add = el("button", {type: "button"},
    ["Add an item to " + name]);
  const added = {...context, blank: false};  // an item is there to be filled in
  let count = 0;
  // One more item, prefilled from a node (undefined: from the items' schema).
  function addItem(node) {
    const label = name + " " + (count += 1);
    const field = schemaField(label, k.items, true, node, added);
    field.append(el("button", {type: "button", class: "remove", onclick: () => {
      field.remove();
      add.focus();
    }}, ["Remove " + label]));
    items.append(field);
    return field;
  }
  add.addEventListener("click", () => {
    addItem().querySelector("input, select, textarea")?.focus();
  });
  for (const node of value && value.type === "array" ? value.items : []) addItem(node);
  return el("fieldset", {"data-kind": "array"}, [el("legend", {}, [name]), items, add]);
}

// A field for a schema, labelled, its checks and hint from the schema; prefilled from the value
// shown, else the schema's default or first example, but not an optional object or list, nor
// what is in one, that the value does not fill: it starts blank, and is left out while it is.
// `context`: {ids, depth, blank} of its fieldset.
function schemaField(name, node, required, value, context) {
  const id = fieldId(context.ids), {k, kind: read, nullable, shapes} = schemaKind(node);
  const blank = context.blank || !required && ["object", "array", "shapes"].includes(read);
  const initial = value || (blank ? null : k.default ||
    (k.examples?.type === "array" ? k.examples.items[0] : null));
  const kind = fieldKind(read, initial, context.depth), inner = {ids: context.ids,
    depth: context.depth + 1, blank: context.blank || !required && !value};
  const slot = kind === "object" ? objectFieldset(name, k, initial, inner) : kind === "array" ?
    arrayFieldset(name, k, initial, inner) : kind === "shapes" ? shapesFieldset(id, name, shapes,
      required, initial, inner) : schemaInput(id, kind, k, initial);
  Object.assign(slot.dataset, {kind, key: name}, required ? {required: ""} : {});
  if (kind === "array" && value?.type === "array") slot.dataset.shown = "";  // emptied: sent []
  state.schemas.set(slot, k);
  const parts = slot.matches("fieldset") ? [slot] : [el("label", required ? {for: id,
    class: "required"} : {for: id}, [name]), slot];
  const hint = schemaHint(k, kind, required);
  if (hint) {
    parts.push(el("p", {class: "hint", id: id + "-hint"}, [hint]));
    slot.setAttribute("aria-describedby", id + "-hint");
  }
  const nullChoice = kind === "choice" && k.enum?.items?.some((one) => one.type === "null");
  if (nullable && kind !== "file" && !nullChoice) {  // an enum with null has its own choice
    parts.push(nullBox(slot, initial?.type === "null"));
  }
  return el("div", {class: "field " + kind, "data-name": name}, parts);
}

// The next field's id; past the form's most fields (while it is built), an error saying so.
function fieldId(ids) {
  if ((ids.count += 1) > ids.most) {
    throw Object.assign(new RangeError("too many fields"), {why: "The request body's schema has " +
      "more than " + grouped(ids.most) + " fields, so this form is built from the data."});
  }
  return "api-schema-" + ids.count;
}

// The kind of field a value gets: a box of JSON for an object or array nested past MOST_DEPTH,
// or a list shown with more than MOST_PREFILLED items; else the kind its schema says.
function fieldKind(read, initial, depth) {
  const deep = ["object", "array", "shapes"].includes(read) && depth >= MOST_DEPTH;
  const long = read === "array" && initial?.type === "array" &&
    initial.items.length > MOST_PREFILLED;
  return deep || long ? "json" : read;
}

// The browser's own checks of a required field hold only where it will be sent: in an optional
// object once something in it is filled in, for an optional object left blank is left out.
function requireWhereFilled(root) {
  const filled = new Map();  // an optional fieldset's filledIn(), found once a pass
  for (const slot of root.querySelectorAll(":is(input, select, textarea)[data-required]")) {
    let wanted = true;
    for (let box = slot.parentElement.closest("fieldset"); wanted && box && box !== root;
      box = box.parentElement.closest("fieldset")) {
      if (box.hasAttribute("data-required")) continue;
      if (!filled.has(box)) filled.set(box, filledIn(box));
      wanted = filled.get(box);
    }
    slot.required = wanted;
  }
}

// Whether anything in a fieldset is filled in: a value, a choice, a file, a null box, an item.
function filledIn(fieldset) {
  for (const control of fieldset.querySelectorAll("input, select, textarea")) {
    if (control.type === "checkbox" ? control.checked : control.type === "file" ?
      control.files.length > 0 : control.value !== "") return true;
  }
  return fieldset.querySelector(".items > .field") !== null;
}

// A choice of shape for a value that may be one of several objects, then the chosen one's fields:
// at first the shape the value shown fits best, if there is one.
function shapesFieldset(id, name, shapes, required, value, context) {
  const labels = shapes.map(shapeLabel);
  const select = el("select", {id}, [el("option", {value: ""}, ["(none)"])]);
  labels.forEach((label, index) => select.append(el("option", {value: String(index)}, [label])));
  if (required) select.dataset.required = "";
  const fieldset = el("fieldset", {"data-kind": "shapes"}, [el("legend", {}, [name]),
    el("div", {class: "field choice"}, [el("label", required ? {for: id, class: "required"} :
      {for: id}, ["Shape of " + name]), select])]);
  // The chosen shape's fields in place of the last one's, prefilled from a value.
  function showChosen(node) {
    fieldset.querySelector(":scope > [data-kind=object]")?.remove();
    if (!select.value) return;
    const chosen = objectFieldset(labels[select.value], shapes[select.value], node,
      {...context, blank: false});  // chosen to be filled in
    chosen.dataset.required = "";  // a shape chosen is sent, if only as {}
    fieldset.append(chosen);
  }
  select.addEventListener("change", () => showChosen());
  select.value = bestShape(shapes, value);
  showChosen(value);
  return fieldset;
}

// A shape's name in the choice: its title, else the values it fixes ("kind: cat"), else its fields.
function shapeLabel(k, index) {
  if (k.title?.type === "string") return k.title.value;
  const fixed = [], names = [];
  for (const [name, node] of k.properties.entries) {
    const value = fixedValue(keywords(node));
    if (value) fixed.push(name + ": " + (value.type === "string" ? value.value : writeJSON(value)));
    names.push(name);
  }
  return (index + 1) + ". " + (fixed.length ? fixed : names.slice(0, 4).concat(names.length > 4 ?
    ["\u2026"] : [])).join(", ");
}

// The one value a schema allows: its const, or an enum of one; else undefined.
function fixedValue(k) {
  return k.const || (k.enum?.type === "array" && k.enum.items.length === 1 ? k.enum.items[0] :
    undefined);
}

// Which shape a value fits best, as the select's value ("" for no value): its fixed values met,
// then the most of its members among the shape's fields, the fewest not.
function bestShape(shapes, value) {
  if (value?.type !== "object") return "";
  let best = "", most = -Infinity;
  shapes.forEach((k, index) => {
    const fields = new Map(k.properties.entries);
    let fit = 0;
    for (const [name, member] of value.entries) {
      const fixed = fields.has(name) ? fixedValue(keywords(fields.get(name))) : undefined;
      fit += !fields.has(name) ? -1 : !fixed ? 1 : writeJSON(fixed, "") === writeJSON(member, "") ?
        MOST_FIELDS : -MOST_FIELDS;
    }
    if (fit > most) [best, most] = [String(index), fit];
  });
  return best;
}

// The control for a value: a select of its choices (a line of text where they are more than
// MOST_CHOICES), a file input, a box of JSON, or a line of text.
function schemaInput(id, kind, k, initial) {
  const choices = k.enum?.type === "array" ? k.enum.items : ["true", "false"].map((text) =>
    ({type: "boolean", text}));
  if (kind === "choice" && choices.length <= MOST_CHOICES) {
    const select = el("select", {id}, [el("option", {value: ""}, ["(none)"])]);
    for (const node of choices) {
      select.append(el("option", {value: writeJSON(node, "")}, [node.type === "string" ?
        node.value : writeJSON(node, "")]));
    }
    select.value = initial ? writeJSON(initial, "") : "";
    return select;
  }
  if (kind === "file") return el("input", {id, type: "file"});
  const box = el(kind === "json" ? "textarea" : "input", kind === "json" ? {id, class: "json",
    rows: "3"} : {id, type: {email: "email", uri: "url", date: "date"}[k.format?.value] || "text"});
  if (kind === "integer" || kind === "number") {
    box.setAttribute("inputmode", kind === "integer" ? "numeric" : "decimal");
  }
  if (k.minLength) box.setAttribute("minlength", k.minLength.text);
  if (k.maxLength) box.setAttribute("maxlength", k.maxLength.text);
  box.value = !initial || initial.type === "null" ? "" : initial.type !== "string" ?
    writeJSON(initial, kind === "json" ? "  " : "") : kind !== "any" || !isJSON(initial.value) ?
      initial.value : writeJSON(initial, "");
  return box;
}

// The JSON of the value a line of text names among an enum's: a string as it is, another value as
// its JSON; undefined for none of them.
function enumValue(choices, text) {
  for (const node of choices) {
    if (node.type === "string" ? node.value === text : writeJSON(node, "") === text.trim()) {
      return writeJSON(node, "");
    }
  }
  return undefined;
}

// Whether a text is JSON. Most texts that are not (a note's "buy milk") do not begin as JSON
// can, and are told without parsing: a parse that fails throws, and the first error a tab
// makes costs a few ms as the form is built (its stack's places are worked out then).
function isJSON(text) {
  if (!/^[ \t\n\r]*[-0-9{["tfn]/.test(text)) return false;
  try { return Boolean(parseJSON(text)); } catch { return false; }
}

// Each bound on a number: [keyword, [lowest and highest compareNumbers() it allows, words]].
const NUMBER_BOUNDS = [["minimum", [0, 1, "at least "]], ["maximum", [-1, 0, "at most "]],
  ["exclusiveMinimum", [1, 1, "more than "]], ["exclusiveMaximum", [-1, -1, "less than "]]];

// What a field takes, said beside it: the schema's description, then its rules; of an optional
// object, that it is left out while blank.
function schemaHint(k, kind, required) {
  const rules = [];
  if (kind === "integer" || kind === "number") {
    rules.push(kind === "integer" ? "A whole number" : "A number");
    for (const [key, words] of NUMBER_BOUNDS) {
      if (k[key]?.type === "number") rules.push(words[2] + k[key].text);
    }
  }
  if (kind === "any") rules.push("Any JSON value; other text is sent as a string");
  if (kind === "choice" && k.enum?.items?.length > MOST_CHOICES) {
    rules.push("One of " + grouped(k.enum.items.length) + " values, typed as shown" +
      " (a string as it is, another value as its JSON)");
  }
  if (k.pattern?.type === "string") rules.push((rules.length ? "m" : "M") + "atching " +
    k.pattern.value + (patternSteps(k.pattern.value) ? "" : " (not checked here)"));
  const described = k.description?.type === "string" ? [k.description.value] : [];
  const optional = kind === "object" && !required ? ["Left out until something in it is " +
    "filled in."] : [];
  return described.concat(rules.length ? [rules.join(", ") + "."] : [], optional).join(" ");
}

// Why a number's text breaks its schema ("" if it does not): compared as decimals, never doubles.
function numberProblem(text, k, integer) {
  if (!new RegExp("^" + NUMBER.source + "$").test(text)) {
    return "A number such as 12 or 2.5 is expected.";
  }
  if (integer && !/^-?[0-9]+$/.test(text)) return "A whole number is expected.";
  for (const [key, [low, high, words]] of NUMBER_BOUNDS) {
    if (k[key]?.type !== "number") continue;
    const order = compareNumbers(text, k[key].text);
    if (order < low || order > high) return "A number " + words + k[key].text + " is expected.";
  }
  return "";
}

// A JSON number's text as {negative, digits: its significant ones, point: digits before the point}.
function decimal(text) {
  const [, sign, whole, fraction = "", power = "0"] =
    /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(text);
  const all = (whole + fraction).replace(/^0+/, ""), digits = all.replace(/0+$/, "");
  return {negative: sign === "-" && digits !== "", digits,
    point: all.length - fraction.length + parseInt(power, 10)};
}

// -1, 0 or 1 as one JSON number is below, at or above another: digit by digit, exactly.
function compareNumbers(one, other) {
  const a = decimal(one), b = decimal(other);
  if (a.negative !== b.negative) return a.negative ? -1 : 1;
  let order;
  if (!a.digits || !b.digits) order = (a.digits ? 1 : 0) - (b.digits ? 1 : 0);
  else if (a.point !== b.point) order = a.point > b.point ? 1 : -1;
  else {
    const size = Math.max(a.digits.length, b.digits.length);
    const x = a.digits.padEnd(size, "0"), y = b.digits.padEnd(size, "0");
    order = x === y ? 0 : x > y ? 1 : -1;
  }
  return a.negative ? -order : order;
}

// A field's value as JSON text (undefined: an optional one left blank, or any one in a partial
// update); one that breaks its schema throws an error naming it (error.input).
function slotJSON(slot, partial) {
  const kind = slot.dataset.kind, k = state.schemas.get(slot), text = slot.value;
  if (kind === "file" || kind === "array" && schemaKind(k.items).kind === "file") {
    return undefined;  // sent as parts of a multipart body, not as JSON
  }
  if (slot.disabled) return "null";  // its "null" box is checked
  if (kind === "shapes") {
    const chosen = slot.querySelector(":scope > [data-kind=object]");
    return chosen ? slotJSON(chosen, partial) : undefined;
  }
  if (kind === "object" || kind === "array") return membersJSON(slot, kind, partial);
  if (text === "" && (partial || !slot.required)) return undefined;
  const problem = (message) => Object.assign(new Error(message), {input: slot});
  if (kind === "choice" && slot.tagName === "SELECT") return text;  // the option's JSON text
  if (kind === "choice") {
    const chosen = enumValue(k.enum.items, text);
    if (chosen === undefined) throw problem("The value must be one of the schema's values.");
    return chosen;
  }
  if (kind === "integer" || kind === "number") {
    const message = numberProblem(text.trim(), k, kind === "integer");
    if (message) throw problem(message);
    return text.trim();
  }
  if (kind === "string" && k.pattern?.type === "string" && !matchesPattern(k.pattern.value, text)) {
    throw problem("The value must match " + k.pattern.value + ".");
  }
  if (kind === "string") return JSON.stringify(text);
  try { return writeJSON(parseJSON(text), ""); } catch (error) {
    if (kind === "any") return JSON.stringify(text);
    throw problem("Not JSON: " + error.message);
  }
}

// An object's or array's JSON from its fields; undefined where it is left out: an optional
// object with nothing filled in, an optional list with no items that the value shown had not.
function membersJSON(slot, kind, partial) {
  const required = !partial && slot.hasAttribute("data-required");
  if (kind === "object" && !slot.hasAttribute("data-required") && !filledIn(slot)) return undefined;
  const members = [];
  for (const field of slot.querySelectorAll(":scope > .field, :scope > .items > .field")) {
    const value = slotJSON(field.querySelector(":scope > [data-kind]"), partial);
    if (value === undefined) continue;
    members.push(kind === "array" ? value : JSON.stringify(field.dataset.name) + ": " + value);
  }
  if (kind === "array") {
    return members.length || required || slot.hasAttribute("data-shown") ?
      "[" + members.join(", ") + "]" : undefined;
  }
  return members.length || required ? "{" + members.join(", ") + "}" : undefined;
}

// Whether a text matches a schema's pattern, as RegExp's test() would (ECMA-262 with "u",
// anywhere in it); true where this page cannot tell (see patternSteps).
function matchesPattern(pattern, text) {
  const steps = patternSteps(pattern);
  return !steps || runSteps(steps, text) !== false;
}

// A pattern is never run by RegExp, whose backtracking takes exponential time on ^(a+)+$ and a
// value of 30 characters. A Worker that could be stopped is refused by the page's CSP (worker-src
// falls back to the script's hash), and a length bound would not hold for values shown from the
// data. So the page runs the pattern itself, as a Thompson NFA: all its states at once, one pass
// over the text, its work bounded by MOST_STEPS whatever the pattern and the value. What needs
// backtracking (a backreference, a lookaround) is not checked here; the server still checks it.
const MOST_STEPS = 1000000;  // a check's work at the most (about 20 ms); past it, not checked
const MOST_STATES = 5000;  // a pattern's steps at the most, a{n} written out n times
const QUANTIFIER = /(?:([*+?])|\{([0-9]+)(,?)([0-9]*)\})\??/y;
const ESCAPE = new RegExp("\\\\(?:[pP]\\{[^}]*\\}|u\\{[0-9a-fA-F]+\\}|u[dD][89abAB][0-9a-fA-F]{2}" +
  "\\\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[a-zA-Z]|0(?![0-9])|[^0-9k])",
  "y");  // one escaped character (a backreference, \1 or \k<name>, is none)
const WORD = /^[A-Za-z0-9_]$/;  // what \b and \B see as a word's character

// A pattern's steps (see writeSteps); null where RegExp cannot read it or this page cannot run it.
function patternSteps(pattern) {
  try {
    RegExp(pattern, "u");  // throws where the pattern is not ECMA-262's; it is never run
    return writeSteps(patternTree(pattern));
  } catch { return null; }
}

// A pattern as a tree: {alt: [...]}, {seq: [...]}, {repeat, min, max}, {atom: its source, one
// character's test}, {assert: "^", "$", "b" or "B"}; it throws at what needs backtracking.
function patternTree(source) {
  let at = 0;
  // Alternatives up to a ")" or the end.
  function alternatives(depth) {
    if (depth > MOST_DEPTH) throw new RangeError("groups nested too deeply");
    const options = [sequence(depth)];
    while (source[at] === "|") {
      at += 1;
      options.push(sequence(depth));
    }
    return {alt: options};
  }
  // One alternative: its terms, each with its quantifier.
  function sequence(depth) {
    const items = [];
    while (at < source.length && source[at] !== "|" && source[at] !== ")") {
      items.push(quantified(term(depth)));
    }
    return {seq: items};
  }
  // An assertion, a group, or an atom that matches one character.
  function term(depth) {
    const from = at, next = source[at + 1];
    if (source[at] === "^" || source[at] === "$") return {assert: source[at++]};
    if (source[at] === "\\" && (next === "b" || next === "B")) {
      at += 2;
      return {assert: next};
    }
    if (source[at] !== "(") {
      at = atomEnd(source, at);
      return {atom: source.slice(from, at)};
    }
    at = groupStart(source, at);
    const inner = alternatives(depth + 1);
    at += 1;  // its ")"
    return inner;
  }
  // A term with its quantifier, if it has one: {repeat, min, max}.
  function quantified(node) {
    QUANTIFIER.lastIndex = at;
    const found = QUANTIFIER.exec(source);
    if (!found) return node;
    at = QUANTIFIER.lastIndex;
    const [, sign, low, comma, high] = found;
    const min = sign ? Number(sign === "+") : Number(low);
    const max = sign === "?" ? 1 : sign || comma && !high ? Infinity : comma ? Number(high) : min;
    return {repeat: node, min, max};
  }
  return alternatives(0);
}

// Where an atom that matches one character ends: a class, an escape, or one character; it throws
// at a backreference.
function atomEnd(source, at) {
  if (source[at] === "[") {
    let end = at + 1;
    while (end < source.length && source[end] !== "]") end += source[end] === "\\" ? 2 : 1;
    return end + 1;
  }
  if (source[at] !== "\\") return at + (source.codePointAt(at) > 0xffff ? 2 : 1);
  ESCAPE.lastIndex = at;
  if (!ESCAPE.test(source)) throw new TypeError("a backreference");
  return ESCAPE.lastIndex;
}

// Past a group's opening, "(", "(?:" or "(?<name>"; it throws at a lookaround or a modifier.
function groupStart(source, at) {
  if (source[at + 1] !== "?") return at + 1;
  if (source[at + 2] === ":") return at + 3;
  if (source[at + 2] === "<" && source[at + 3] !== "=" && source[at + 3] !== "!") {
    return source.indexOf(">", at) + 1;
  }
  throw new TypeError("a lookaround");
}

// A tree as the steps of a Thompson NFA: {op: "char", test}, {op: "split", to: [a, b]},
// {op: "jump", to}, {op: "assert", kind}, then {op: "match"}; it throws past MOST_STATES.
function writeSteps(tree) {
  const steps = [];
  let work = 0;
  // A split whose second way is filled in once known.
  function split() {
    const step = {op: "split", to: [steps.length + 1]};
    steps.push(step);
    return step;
  }
  // A node's steps; a repeat's copies each written anew.
  function write(node) {
    if ((work += 1) > 4 * MOST_STATES || steps.length > MOST_STATES) {
      throw new RangeError("a pattern too big to check");
    }
    if (node.atom !== undefined) steps.push({op: "char", test: charTest(node.atom)});
    else if (node.assert) steps.push({op: "assert", kind: node.assert});
    else if (node.seq) for (const item of node.seq) write(item);
    else if (node.alt) {
      const jumps = [];
      for (const option of node.alt.slice(0, -1)) {
        const choice = split();
        write(option);
        jumps.push({op: "jump"});
        steps.push(jumps[jumps.length - 1]);
        choice.to.push(steps.length);
      }
      write(node.alt[node.alt.length - 1]);
      for (const jump of jumps) jump.to = steps.length;
    } else writeRepeat(node, write, split, steps);
  }
  write(tree);
  steps.push({op: "match"});
  return steps;
}

// A repeat's steps: its least number of copies, then a loop, or an optional copy each up to
// its most.
function writeRepeat(node, write, split, steps) {
  for (let copy = 0; copy < node.min; copy += 1) write(node.repeat);
  const skips = [];
  for (let copy = node.min; copy < node.max && (copy === node.min || node.max < Infinity);
    copy += 1) {
    const loop = steps.length;
    skips.push(split());
    write(node.repeat);
    if (node.max === Infinity) steps.push({op: "jump", to: loop});
  }
  for (const skip of skips) skip.to.push(steps.length);
}

// One character's test against an atom: equality for a plain character, else a RegExp of that
// atom alone (a class, ".", an escape), which has one character to try and nothing to backtrack.
function charTest(atom) {
  if (!/^[\\.[]/.test(atom)) return (char) => char === atom;
  const regexp = new RegExp("^(?:" + atom + ")$", "u");
  return (char) => regexp.test(char);
}

// Whether the steps match anywhere in a text: every state at once, one character at a time;
// undefined past MOST_STEPS.
function runSteps(steps, text) {
  const chars = Array.from(text), seen = new Int32Array(steps.length).fill(-1), todo = [];
  let current = [], next = [], work = 0, matched = false;
  // Enter a step at a place, and the steps its splits, jumps and assertions lead on to.
  function enter(states, first, at) {
    todo.push(first);
    while (todo.length) {
      const index = todo.pop(), step = steps[index];
      if (seen[index] === at) continue;
      seen[index] = at;
      work += 1;
      if (step.op === "char") states.push(index);
      else if (step.op === "split") todo.push(step.to[1], step.to[0]);
      else if (step.op === "jump") todo.push(step.to);
      else if (step.op === "match") matched = true;
      else if (holds(step.kind, chars, at)) todo.push(index + 1);
    }
  }
  for (let at = 0; ; at += 1) {
    enter(current, 0, at);  // a match may start at any place
    if (matched) return true;
    if (at === chars.length) return false;
    if (work > MOST_STEPS) return undefined;
    next.length = 0;
    for (const index of current) {
      work += 1;
      if (steps[index].test(chars[at])) enter(next, index + 1, at + 1);
    }
    [current, next] = [next, current];  // the lists are kept: no garbage a character
  }
}

// Whether an assertion holds at a place: ^ and $ at the text's ends, \b and \B at a word's edge.
function holds(kind, chars, at) {
  if (kind === "^") return at === 0;
  if (kind === "$") return at === chars.length;
  const edge = WORD.test(chars[at - 1] || "") !== WORD.test(chars[at] || "");
  return kind === "b" ? edge : !edge;
}

// The schema form's request: JSON, or form fields where the operation takes no JSON, multipart
// where it takes files; null after saying on a field why it cannot be sent. `partial`: a PATCH
// sends the fields filled in, required or not.
function schemaRequest(root, partial) {
  requireWhereFilled(root);
  let body;
  try { body = slotJSON(root, partial) || "{}"; } catch (error) {
    if (!error.input) throw error;
    refuse(error.input, error.message);
    return null;
  }
  const types = root.dataset.content.split("\n");
  const json = types.find((type) => type.includes("json"));
  const files = root.querySelectorAll("input[type=file]:enabled");
  if (json && !files.length) return {body, type: json};
  const fields = new URLSearchParams(parseJSON(body).entries.map(([key, node]) => [key,
    node.type === "string" ? node.value : writeJSON(node, "")])).toString();
  if (!files.length && !types.includes("multipart/form-data")) {
    return {body: fields, type: "application/x-www-form-urlencoded"};
  }
  const request = rawRequest(fields, "multipart/form-data");  // the fields, then the files
  for (const input of files) {
    const name = input.closest("[data-root] > .field").dataset.name;
    for (const file of input.files) request.body.append(name, file);
  }
  return request;
}

// ---- Copy as curl: the command for the response shown, and for each form's request ----

const JSON_WANTED = {"Accept": "application/json"};  // what curl asks for: the API's JSON

// A word for a POSIX shell: in single quotes, each ' written as '\''.
function shellQuote(text) {
  return "'" + String(text).split("'").join("'\\''") + "'";
}

// The curl command for a request: method, URL, headers, then the body as its type says.
function curlCommand(method, url, headers, body, type) {
  const words = method === "GET" ? ["curl"] : ["curl", "-X", method];
  const all = type && type !== "multipart/form-data" ? {...headers, "Content-Type": type} : headers;
  words.push(shellQuote(url));
  for (const [name, value] of Object.entries(all)) {
    words.push("-H", shellQuote(name + ": " + value));
  }
  if (body instanceof FormData) {
    // --form-string: with -F, curl would read a local file for a value starting "@" or "<"
    for (const [key, value] of body) {
      words.push(...typeof value === "string" ? ["--form-string", shellQuote(key + "=" + value)] :
        ["-F", shellQuote(key + "=@" + value.name)]);  // a file: the user's copy of it
    }
  } else if (body) words.push("--data-binary", shellQuote(body));
  return words.join(" ");
}

// A "Copy as curl" button: writes the command to the clipboard and shows it, selectable.
function curlButton(label, command, place) {
  const button = el("button", {type: "button", class: "copy", onclick: () => {
    const text = command();
    if (text === null) return;
    let shown = place.nextElementSibling;
    if (!shown || !shown.classList.contains("curl")) {
      shown = el("pre", {class: "curl", tabindex: "0", "aria-label": "curl command"});
      place.after(shown);
    }
    shown.textContent = text;
    copied(button, navigator.clipboard.writeText(text).catch((error) => {
      window.getSelection().selectAllChildren(shown);  // the user copies it from there
      throw error;
    }));
  }}, [label]);
  return button;
}

// One button for the response shown, and one per method of the request form.
function curlButtons() {
  const section = document.getElementById("api-curl");
  if (section) {
    section.replaceChildren(curlButton("Copy as curl", responseCurl, section));
    section.hidden = false;
  }
  const bar = document.querySelector("form[data-api] fieldset > .bar");
  if (!bar) return;
  const form = bar.closest("form"), methods = bar.querySelectorAll("button[name=_method]");
  for (const button of methods) {
    const label = methods.length > 1 ? "Copy " + button.value + " as curl" : "Copy as curl";
    bar.append(curlButton(label, () => {
      const request = formRequest(form, button.value);
      return request && curlCommand(button.value, window.location.href, panelHeaders(JSON_WANTED),
        request.body, request.type);
    }, bar));
  }
}

// The request behind the response shown: its method and URL, with the body the page sent; a
// stream's page asks for the stream.
function responseCurl() {
  const shown = Object.assign({method: "GET", url: window.location.href},
    document.querySelector("pre.response")?.dataset);
  const sent = state.sent && state.sent.method === shown.method ? state.sent : {};
  return curlCommand(shown.method, new URL(shown.url, window.location.href).href,
    panelHeaders(shown.stream ? {"Accept": shown.stream} : JSON_WANTED), sent.body, sent.type);
}

// ---- A stream, live: a stream's items read as they arrive, drawn, stopped and resumed ----
// A stream's page comes as the stream does, in one response (so the view runs once): the
// page, then each item as a <li> the server escaped (cut past a size), then how the stream
// ended. The script takes each item as the browser parses it and removes it, so the document
// stays small, and shows it in the response panel as a JSON tree; a stream's page that it
// fetches (Resume, a page fetched with the stored headers) it reads the same way. Items are
// drawn once a frame, and only the last MOST_ITEMS of KEPT_TEXT characters in all are kept:
// an endless stream, or one of big items, stays light.

const MOST_ITEMS = 1000;  // items kept on screen; older ones are let go, and counted
const KEPT_TEXT = 4 * 1024 * 1024;  // characters of their data kept, at the most
const TREE_TEXT = 64 * 1024;  // an item longer is shown as text: its tree would take too long
const SHOWN_TEXT = 16 * 1024;  // characters of an item shown as text that are laid out
const ITEM_LINES = 20;  // lines of an item's tree shown unfolded at first
const FRAME_ITEMS = 50;  // items drawn in a frame at the most: the rest wait for the next
const FRAME_MS = 8;  // and for this long at the most, so a busy machine draws fewer
const ITEMS_LIST = '<ol id="api-items-list">';  // the line of a stream's page its items follow

// A reader of lines from bytes as they arrive (null: the end, the last line unended too):
// UTF-8 split across pieces stays whole, a BOM at the start goes, a line ends at LF or CR LF.
function lineReader() {
  const decoder = new TextDecoder();
  let rest = "";
  return (bytes) => {
    const text = bytes ? decoder.decode(bytes, {stream: true}) : decoder.decode();
    if (bytes && !text.includes("\n")) {
      rest += text;  // a long line is joined once, when it ends
      return [];
    }
    const lines = (rest + text).split("\n");
    rest = bytes ? lines.pop() : "";
    if (!bytes && lines[lines.length - 1] === "") lines.pop();
    return lines.map((line) => line.endsWith("\r") ? line.slice(0, -1) : line);
  };
}

// A stream's page as a fetch brings it, from its body's reader, in parts: first {head}, the
// page before its items (HTML text), then {elements}: its items and ending, as they arrive.
async function* streamPageParts(reader) {
  const split = lineReader();
  let head = [];
  for (let done = false; !done;) {
    const piece = await reader.read();
    done = piece.done;
    let lines = split(done ? null : piece.value);
    if (head) {
      const at = lines.indexOf(ITEMS_LIST);
      head = head.concat(at < 0 ? lines : lines.slice(0, at + 1));
      if (at < 0 && !done) continue;
      yield {head: head.join("\n")};
      [head, lines] = [null, at < 0 ? [] : lines.slice(at + 1)];
    }
    if (lines.length) yield {elements: parsedElements(lines)};
  }
}

// The elements of lines of this site's stream page (each item's data escaped by the server),
// parsed inert: its items, and how it ended.
function parsedElements(lines) {
  return new DOMParser().parseFromString(lines.join("\n"), "text/html").body.children;
}

// An item of a stream's page, from its <li>: its data, its event fields, and if it was cut,
// the bytes it had.
function itemOf(li) {
  if (!li.attributes.length) return {data: li.textContent, event: "", id: "", retry: "", cut: 0};
  const {event = "", id = "", retry = "", bytes = 0} = li.dataset;
  return {data: li.lastElementChild?.textContent ?? "", event, id, retry, cut: Number(bytes)};
}

// How a stream ended, from its page's last line: its phase (as the stream line says it), if
// by an error of its own, its bytes, and the last event id (to resume from).
function endOf(p) {
  const {end, detail, bytes, lastId} = p.dataset;
  const phase = {ended: "Ended.", error: "Ended with an error: " + detail,
    broke: "Broke off: the app's stream failed (the server's log says why).",
    full: "Stopped: the page has carried as much of the stream as a page the browser loads " +
      "may. Resume reads on, and keeps no more than the items shown."}[end];
  return {phase, error: end === "error" || end === "broke", bytes: bytes && Number(bytes),
    lastId};
}

// A last event id as Last-Event-ID: the bytes of its UTF-8, a character each, as EventSource
// sends it (a header is bytes: fetch() refuses a character past U+00FF, such as "\u20ac").
function idHeader(id) {
  return Array.from(new TextEncoder().encode(id), (byte) => String.fromCharCode(byte)).join("");
}

// The live view of this page's stream, if it is one: read as the browser parses the page, or
// from a fetch of it (`fetched`: {response, reader, parts}); a stream shown before is stopped.
function streamLive(fetched) {
  stopStream();
  const panel = document.querySelector("pre.response[data-stream]");
  const body = panel?.querySelector(".body");
  if (!body) return;
  body.hidden = true;  // it says where the items are without JavaScript
  document.getElementById("api-items")?.setAttribute("hidden", "");
  const stream = state.stream = {url: panel.dataset.url, type: panel.dataset.stream,
    sse: panel.dataset.stream === "text/event-stream", query: "", stored: Boolean(fetched),
    lastId: "", line: el("span", {class: "stream-line"}), list: el("span", {class: "items",
      role: "list", "aria-label": "Items", onclick: foldClick, onkeydown: foldKey})};
  body.after(stream.line, stream.list);
  panel.before(streamTools(stream));
  freshItems(stream);
  readStream(stream, fetched ? (signal) => fetchedItems(stream, fetched, signal) :
    (signal) => parsedItems(stream, signal));
}

// Stop, Resume (and what it does), Copy, the filter, and what the filter found.
function streamTools(stream) {
  const status = el("span", {class: "hint", role: "status"});
  stream.stop = el("button", {type: "button", onclick: () => {
    stopStream();
    stream.resume.focus();
  }}, ["Stop"]);
  stream.resume = el("button", {type: "button", disabled: "", onclick: () => {
    resumeStream(stream);
    stream.stop.focus();
  }}, ["Resume"]);
  const copy = el("button", {type: "button", onclick: () => copied(copy,
    navigator.clipboard.writeText(stream.shown.filter((record) => !record.node.hidden)
      .map((record) => record.item.data + "\n").join("")))}, ["Copy items"]);
  const filter = filterBox("Filter items", status, (text) => filterItems(stream, text));
  stream.how = el("span", {class: "hint"}, [resumeHow(stream)]);
  return el("div", {class: "bar stream-tools", role: "group", "aria-label": "Stream"}, [
    stream.stop, stream.resume, copy, filter, status, stream.how]);
}

// What Resume does, from where and with which headers, and what stays on screen.
function resumeHow(stream) {
  const id = stream.lastId.length > 100 ? stream.lastId.slice(0, 100) + "\u2026" : stream.lastId;
  let how = !stream.sse ? "JSON Lines cannot say where to go on from: Resume fetches the " +
    "stream again from its start." : id ? "Resume asks for the events after id \u201c" + id +
    "\u201d (Last-Event-ID), as EventSource does." : "Resume asks for the stream again: no " +
    "event has had an id.";
  if (stream.sse && id.includes("\ufffd")) {
    how += " That id had bytes that are not UTF-8 (shown \ufffd): it goes as EventSource " +
      "would send it.";
  }
  if (storedCredentials() && !stream.stored) {
    how += " This page came without your stored headers and sign-in, and so does Resume.";
  }
  return how + " The last " + grouped(MOST_ITEMS) + " items (" +
    grouped(KEPT_TEXT) + " characters at the most) stay on screen; the filter and " +
    "Copy take those shown.";
}

// Stop reading the stream shown (Stop, another page shown): the server sees it closed.
function stopStream() {
  state.stream?.controller?.abort();
}

// Fetch the stream's page again (events from the last id seen, JSON Lines from their start),
// with the stored headers only if the page shown came with them, and read its items.
function resumeStream(stream) {
  const headers = stream.sse && stream.lastId ? {"Last-Event-ID": idHeader(stream.lastId)} : {};
  if (!stream.sse) freshItems(stream);
  readStream(stream, async (signal) => {
    const response = await send("GET", stream.url, undefined, undefined,
      {headers, signal, bare: !stream.stored});
    return response ? fetchedItems(stream, {response}, signal) : {phase: "Redirected."};
  });
}

// No items yet: the list emptied, and nothing counted.
function freshItems(stream) {
  stream.list.replaceChildren();
  Object.assign(stream, {shown: [], pending: [], count: 0, dropped: 0, text: 0});
}

// Read the stream with `read` (which gives how it ended) to its end, a failure, or Stop.
async function readStream(stream, read) {
  const controller = stream.controller = new AbortController();
  Object.assign(stream, {phase: "Streaming\u2026", started: undefined, end: 0, ended: null,
    bytes: undefined});
  stream.stop.disabled = false;
  stream.resume.disabled = true;
  const clock = setInterval(() => drawLine(stream), 500);
  let ended;
  try {
    ended = await read(controller.signal);
  } catch (error) {
    ended = {phase: "Failed: the connection broke (" + error.message + ").", error: true};
  }
  clearInterval(clock);
  if (controller.signal.aborted) ended = {phase: "Stopped."};
  if (stream.controller === controller) streamEnded(stream, ended);
}

// Read this page's own stream as the browser parses it, to its last line; Stop stops the
// page's load (window.stop(): the server sees the connection close).
function parsedItems(stream, signal) {
  const list = document.getElementById("api-items-list"), section = list?.parentElement;
  if (!section) return {phase: "Failed: the page has no place for its items.", error: true};
  const {started, firstByte, status} = pageTiming() || {};
  Object.assign(stream, {started, firstByte, status});
  return new Promise((resolve) => {
    const check = () => checkParsed(stream);
    stream.parsing = {list, section, resolve, check, watch: new MutationObserver(check)};
    stream.parsing.watch.observe(list, {childList: true});
    stream.parsing.watch.observe(section, {childList: true});
    document.addEventListener("readystatechange", check);  // the browser's Stop, say
    signal.addEventListener("abort", () => {
      if (!stream.parsing) return;  // over: window.stop() would end the page's fetches instead
      parsedEnd(stream, {phase: "Stopped."});
      window.stop();
      list.replaceChildren();
    });
    check();
  });
}

// Take what the browser has parsed of this page's stream; at its last line, or once the
// page's load is over without it, its end.
function checkParsed(stream) {
  const {list, section} = stream.parsing, last = section.lastElementChild;
  const end = last.matches(".stream-end") && last, over = end || document.readyState !== "loading";
  takeParsed(stream, list, over);
  stream.parsing.watch.takeRecords();  // those of the removal just made: nothing more to read
  if (over) {
    parsedEnd(stream, end ? endOf(end) : {phase: "Stopped: the page's load ended before its " +
      "stream did.", error: true});
  }
}

// This page's stream is over: stop watching it, and say how it ended.
function parsedEnd(stream, ended) {
  const {watch, check, resolve} = stream.parsing;
  watch.disconnect();
  document.removeEventListener("readystatechange", check);
  stream.parsing = null;
  resolve(ended);
}

// Take the items of this page's own stream that the browser has parsed whole (a node follows
// each), or all once it is over; they are removed at once, so the document stays small.
function takeParsed(stream, list, all) {
  const items = [], read = document.createRange();
  let node = list.firstChild;
  for (; node && (all || node.nextSibling); node = node.nextSibling) {
    if (node.nodeName === "LI") items.push(itemOf(node));
  }
  read.setStart(list, 0);
  if (node) read.setEndBefore(node);
  else read.setEnd(list, list.childNodes.length);
  read.deleteContents();
  received(stream, items);
}

// Read a stream's page that a fetch brings (`fetched`: {response}, or after a swap, with the
// reader and parts whose head it has read): a 204 says the stream has finished; an error, or a
// page that is not a stream's, says why; else its items, to the end it says.
async function fetchedItems(stream, fetched, signal) {
  const response = fetched.response;
  Object.assign(stream, state.times.get(response), {status: response.status});
  if (response.status === 204) {
    return {phase: "Finished: the stream has ended, and the server has nothing after it " +
      "(HTTP 204)."};
  }
  if (!fetched.parts && !isStreamPage(response)) return noStream(response);
  const reader = fetched.reader || response.body.getReader();
  signal.addEventListener("abort", () => reader.cancel());
  let ended = null;
  for await (const part of fetched.parts || streamPageParts(reader)) {
    if (part.elements && !ended) ended = takeElements(stream, part.elements);
  }
  return ended || {phase: "Failed: the page ended before its stream did.", error: true};
}

// Take the items of a fetched stream page, and how it ended if it says so (else null).
function takeElements(stream, elements) {
  const items = [];
  let ended = null;
  for (const element of elements) {
    if (element.classList.contains("stream-end")) ended = ended || endOf(element);
    else if (element.nodeName === "LI" && !ended) items.push(itemOf(element));
  }
  received(stream, items);
  return ended;
}

// Whether a response is a stream's page, sent as the stream comes.
function isStreamPage(response) {
  return isPage(response) && response.headers.get("X-Flask-API-Page") === "stream";
}

// Why a fetch of a stream's page brought no stream: its status, and its detail (or text).
async function noStream(response) {
  let text = await response.text();
  if (isPage(response)) {  // the page of an error: its body's text
    text = new DOMParser().parseFromString(text, "text/html")
      .querySelector("pre.response .body")?.textContent ?? "";
  }
  return {phase: "HTTP " + response.status + " " + response.statusText + ": " +
    (detailOf(text) ?? text.slice(0, 500)), error: true};
}

// What an error object in JSON text says: its "detail" (as JSON, if not a string); else null.
function detailOf(text) {
  let model;
  try { model = parseJSON(text); } catch { return null; }
  const found = model.type === "object" && model.entries.find((member) => member[0] === "detail");
  return !found ? null : found[1].type === "string" ? found[1].value : writeJSON(found[1], "");
}

// Count new items, and queue them for the next frames; the oldest go past what is kept.
function received(stream, items) {
  if (!items.length) return;
  for (const item of items) {
    item.number = ++stream.count;
    stream.text += item.data.length;
    if (stream.sse) stream.lastId = item.id;
  }
  stream.pending = stream.pending.concat(items);
  letGo(stream);
  if (!stream.frame) stream.frame = requestAnimationFrame(() => drawStream(stream));
}

// Let the oldest items go (those on screen first) until the rest fit what is kept: MOST_ITEMS,
// of KEPT_TEXT characters of data in all. The newest stays, whatever its size.
function letGo(stream) {
  let shown = 0, pending = 0;
  const over = () => stream.text > KEPT_TEXT ||
    stream.shown.length - shown + stream.pending.length - pending > MOST_ITEMS;
  const lastShown = stream.shown.length - (stream.pending.length ? 0 : 1);
  for (; over() && shown < lastShown; shown++) stream.text -= stream.shown[shown].item.data.length;
  for (; over() && pending < stream.pending.length - 1; pending++) {
    stream.text -= stream.pending[pending].data.length;
  }
  if (!shown && !pending) return;
  for (const record of stream.shown.slice(0, shown)) record.node.remove();
  [stream.shown, stream.pending] = [stream.shown.slice(shown), stream.pending.slice(pending)];
  stream.dropped += shown + pending;
}

// Show queued items, a frame's worth, then let the oldest go; the stream's line.
function drawStream(stream) {
  stream.frame = 0;
  const until = performance.now() + FRAME_MS, fresh = [];
  while (fresh.length < Math.min(FRAME_ITEMS, stream.pending.length) && performance.now() < until) {
    fresh.push(itemRecord(stream, stream.pending[fresh.length]));
  }
  stream.pending = stream.pending.slice(fresh.length);
  if (stream.pending.length) stream.frame = requestAnimationFrame(() => drawStream(stream));
  stream.list.append(...fresh.map((record) => record.node));
  stream.shown = stream.shown.concat(fresh);
  letGo(stream);
  drawLine(stream);
  if (!stream.pending.length && stream.ended) streamDone(stream, stream.ended);
}

// An item as shown: its number and fields, then its data as a JSON tree, or as text: an error
// for a JSON Lines line that is not JSON; of a long or cut one, its first SHOWN_TEXT characters.
function itemRecord(stream, item) {
  const fields = ["#" + item.number];
  for (const name of ["event", "id", "retry"]) {
    if (item[name]) fields.push(name + ": " + item[name]);
  }
  const whole = !item.cut && item.data.length <= TREE_TEXT;  // else never parsed: too long
  let model = null;
  if (whole) {
    try { model = parseJSON(item.data); } catch { if (!stream.sse) fields.push("(not JSON)"); }
  } else {
    fields.push(item.cut ? "(cut: the first " + counted(item.data.length, "character") +
      " of its " + counted(item.cut, "byte") + ")" : "(" + counted(item.data.length,
      "character") + ", shown as text)");
  }
  const node = el("span", {class: "item", role: "listitem"}, [
    el("span", {class: "key"}, [fields.join(" ")])]);
  node.classList.toggle("error", whole && !model && !stream.sse);
  if (model) {
    const tree = el("span", {class: "tree"});
    showTree(tree, model, ITEM_LINES, "item " + item.number);
    node.append(tree);
  } else {
    node.append(" ", el("span", {class: "s"}, [item.data.length > SHOWN_TEXT ?
      item.data.slice(0, SHOWN_TEXT) + "\u2026" : item.data]));
  }
  const record = {node, item};
  node.hidden = !itemMatches(record, stream.query);
  return record;
}

// Whether an item holds the filter's text, in its data or fields; all do for none.
function itemMatches(record, query) {
  if (!query) return true;
  record.text = record.text || record.node.firstChild.textContent.toLowerCase() + "\n" +
    record.item.data.toLowerCase();
  return record.text.includes(query);
}

// Show only the items that hold the filter's text; what it found.
function filterItems(stream, text) {
  stream.query = text.trim().toLowerCase();
  let count = 0;
  for (const record of stream.shown) {
    record.node.hidden = !itemMatches(record, stream.query);
    count += record.node.hidden ? 0 : 1;
  }
  if (!stream.query) return "";
  return grouped(count) + " of the " + grouped(stream.shown.length) +
    " items shown match.";
}

// The stream's line: how it stands, items counted and let go, then its timing line.
function drawLine(stream) {
  const items = counted(stream.count, "item") +
    (stream.dropped ? " (" + grouped(stream.dropped) + " let go)" : "");
  const times = stream.started === undefined ? "" : " \u00b7 HTTP " + stream.status + " \u00b7 " +
    timingText({...stream, end: stream.end || performance.now()});
  stream.line.textContent = stream.phase + " " + items + times;
}

// A stream ended, failed or stopped: once the items it sent are drawn, say so.
function streamEnded(stream, ended) {
  Object.assign(stream, {end: performance.now(), ended});
  if (!stream.frame) drawStream(stream);
}

// Once a stream's last items are shown: how it ended (its bytes and last id, where it says),
// Resume offered and explained, and all said (if still on the page).
function streamDone(stream, ended) {
  stream.ended = null;
  stream.phase = ended.phase;
  if (ended.bytes !== undefined) stream.bytes = ended.bytes;
  if (stream.sse && ended.lastId !== undefined) stream.lastId = ended.lastId;
  stream.line.classList.toggle("error", Boolean(ended.error));
  drawLine(stream);
  stream.how.textContent = resumeHow(stream);
  const focused = document.activeElement === stream.stop;
  stream.stop.disabled = true;
  stream.resume.disabled = false;
  if (focused) stream.resume.focus();
  if (stream.list.isConnected) announce(stream.line.textContent);
}

// ---- The request as code: HTTPie, Python and JavaScript beside curl; an answer as a test ----
// Each writes the request as the page would send it (method, URL, headers, the body as its
// type says: text as it is, multipart fields as strings and files by name). A stored header's
// value is a placeholder to fill, unless the person asks to include it.

const LANGUAGES = {  // the code the page writes: its name, and the function that writes it
  httpie: ["HTTPie", (...request) => httpieCommand(...request)],
  requests: ["Python (requests)", (...request) => pythonCode("requests", ...request)],
  httpx: ["Python (httpx)", (...request) => pythonCode("httpx", ...request)],
  fetch: ["JavaScript (fetch)", (...request) => fetchCode(...request)],
};

// The headers code sends: each stored one's value a placeholder, unless `include`; their
// values without the spaces at their ends, as fetch() sends them.
function codeHeaders(headers, stored, include) {
  const secret = new Set(include ? [] : stored.map((name) => name.toLowerCase()));
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name,
    secret.has(name.toLowerCase()) ? "<your " + name + ">" : value.replace(/^[\t ]+|[\t ]+$/g,
      "")]));
}

// The headers with the body's type, but not multipart's: the client writes it, with its boundary.
function typedHeaders(headers, type) {
  return type && type !== "multipart/form-data" ? {...headers, "Content-Type": type} : headers;
}

// A request item for HTTPie: its separators (: = @ ;) escaped; null where a backslash before
// one of them leaves no way to write it.
function httpieEscaped(text) {
  if (/\\[:=@;]/.test(text)) return null;
  return text.replace(/[:=@;]/g, "\\$&");
}

// The HTTPie command for a request: text bodies with --raw, multipart fields as its items
// (a file by its name); null where HTTPie cannot send a value as it is.
function httpieCommand(method, url, headers, body, type) {
  const words = ["http", "--ignore-stdin"], items = [], texts = [];
  if (Object.values(headers).some((value) => /[^\x00-\x7f]/.test(value))) return null;
  for (const [name, value] of Object.entries(typedHeaders(headers, type))) {
    items.push(value === "" ? name + ";" : name + ":" + httpieEscaped(value));
    texts.push(value);
  }
  if (body instanceof FormData) {
    words.push("--multipart");
    for (const [key, value] of body) {
      const file = typeof value !== "string";  // a file: the user's copy of it, by its name
      items.push(httpieEscaped(key) + (file ? "@" + value.name : "=" + httpieEscaped(value)));
      texts.push(key, file ? "" : value);
    }
  } else if (body !== undefined && body !== null) words.push("--raw=" + body);
  if (texts.some((text) => httpieEscaped(text) === null)) return null;
  return words.concat(method, url).map(shellQuote).concat(items.map(shellQuote)).join(" ");
}

// Python for a request, with requests or httpx: a text body as its bytes, multipart as files.
function pythonCode(library, method, url, headers, body, type) {
  const lines = ["import " + library, "", "response = " + library + ".request(",
    "    " + JSON.stringify(method) + ",", "    " + JSON.stringify(url) + ",",
    "    headers={"];
  for (const [name, value] of Object.entries(typedHeaders(headers, type))) {
    // httpx takes a header's text as ASCII only: past that, its bytes, Latin-1 as a browser's
    const bytes = library === "httpx" && /[^\x00-\x7f]/.test(value) ? ".encode(\"latin-1\")" : "";
    lines.push("        " + JSON.stringify(name) + ": " + JSON.stringify(value) + bytes + ",");
  }
  lines.push("    },");
  if (body instanceof FormData) {
    lines.push("    files=[");
    for (const [key, value] of body) {
      lines.push("        (" + JSON.stringify(key) + ", " + (typeof value === "string" ?
        "(None, " + JSON.stringify(value) + ")" : "(" + JSON.stringify(value.name) + ", open(" +
        JSON.stringify(value.name) + ", \"rb\"))") + "),");
    }
    lines.push("    ],");
  } else if (body !== undefined && body !== null) {
    lines.push("    " + (library === "httpx" ? "content" : "data") + "=" +
      JSON.stringify(String(body)) + ".encode(\"utf-8\"),");
  }
  return lines.concat(")", "print(response.status_code)", "print(response.text)", "")
    .join("\n");
}

// JavaScript for a request with fetch, as a module for Node 20 (or a page of the API's site).
function fetchCode(method, url, headers, body, type) {
  const lines = [], options = ["  method: " + JSON.stringify(method) + ","];
  options.push("  headers: " + JSON.stringify(typedHeaders(headers, type), null, 2)
    .replace(/\n/g, "\n  ") + ",");
  if (body instanceof FormData) {
    const files = Array.from(body).some((pair) => typeof pair[1] !== "string");
    if (files) lines.push("import {openAsBlob} from \"node:fs\";", "");
    lines.push("const body = new FormData();");
    for (const [key, value] of body) {
      lines.push("body.append(" + JSON.stringify(key) + ", " + (typeof value === "string" ?
        JSON.stringify(value) : "await openAsBlob(" + JSON.stringify(value.name) + "), " +
        JSON.stringify(value.name)) + ");");
    }
    options.push("  body,");
  } else if (body !== undefined && body !== null) {
    options.push("  body: " + JSON.stringify(String(body)) + ",");
  }
  return lines.concat("const response = await fetch(" + JSON.stringify(url) + ", {",
    ...options, "});", "console.log(response.status);", "console.log(await response.text());",
    "").join("\n");
}

// The code tools of a bar: the language, whether to include stored values, a button for each
// request (its label, and a function that gives {method, url, body, type}, or null).
function codeTools(place, requests) {
  const language = el("select", {}, Object.entries(LANGUAGES).map(([key, [name]]) =>
    el("option", {value: key}, [name])));
  const include = el("input", {type: "checkbox"});
  const bar = el("div", {class: "bar code-tools"}, [el("label", {}, ["Copy as ", language])]);
  const buttons = requests.map(([label, request]) => {
    const button = el("button", {type: "button", onclick: () => {
      const wanted = request();
      if (!wanted) return;
      const headers = codeHeaders(panelHeaders(wanted.headers || JSON_WANTED),
        savedHeaders().map((pair) => pair[0]), include.checked);
      const text = LANGUAGES[language.value][1](wanted.method, wanted.url, headers,
        wanted.body, wanted.type);
      showCode(button, bar, text === null ? "HTTPie cannot send this request as the page " +
        "does: a header's value past ASCII (HTTPie sends UTF-8), or a backslash before : = @ " +
        "or ;." : text,
      LANGUAGES[language.value][0] + " code", text !== null);
    }}, [label]);
    return button;
  });
  bar.append(...buttons, el("label", {}, [include, " Include stored secrets"]));
  place.after(bar);
}

// Show code after its bar, selectable, and copy it (or say why there is none).
function showCode(button, bar, text, name, copy) {
  let shown = bar.nextElementSibling;
  if (!shown || !shown.classList.contains("curl")) {
    shown = el("pre", {class: "curl", tabindex: "0"});
    bar.after(shown);
  }
  shown.setAttribute("aria-label", name);
  shown.textContent = text;
  if (!copy) {
    announce(text);
    return;
  }
  copied(button, navigator.clipboard.writeText(text).catch((error) => {
    window.getSelection().selectAllChildren(shown);  // the user copies it from there
    throw error;
  }));
}

// The code tools for the response shown, and for each method of the request form.
function codeButtons() {
  const section = document.getElementById("api-curl");
  if (section && !section.hidden) {
    codeTools(section, [["Copy the request", () => {
      const shown = Object.assign({method: "GET", url: window.location.href},
        document.querySelector("pre.response")?.dataset);
      const sent = state.sent && state.sent.method === shown.method ? state.sent : {};
      return {method: shown.method, url: new URL(shown.url, window.location.href).href,
        headers: shown.stream ? {"Accept": shown.stream} : JSON_WANTED, body: sent.body,
        type: sent.type};
    }]]);
  }
  const bar = document.querySelector("form[data-api] fieldset > .bar");
  if (!bar) return;
  const form = bar.closest("form"), methods = bar.querySelectorAll("button[name=_method]");
  codeTools(bar, Array.from(methods, (button) => [methods.length > 1 ? "Copy " +
    button.value + " as code" : "Copy as code", () => {
    const request = formRequest(form, button.value);
    return request && {method: button.value, url: window.location.href, ...request};
  }]));
}

// ---- An answer as a test: a pytest test, through Flask's test client, of an entry's request ----

// The paths a person leaves out, one a line: "/items/*/id" is ["items", "*", "id"].
function leftOutPaths(text) {
  return text.split("\n").map((line) => line.trim()).filter(Boolean).map((line) =>
    line.replace(/^\//, "").split("/").map((part) =>
      part.replace(/~1/g, "/").replace(/~0/g, "~")));
}

// A node without the values at a path ("*": every key or index); a removed item shifts the
// rest, as the test's _left_out() does.
function leaveOut(node, path) {
  if (!path.length || (node.type !== "object" && node.type !== "array")) return node;
  const [first, ...rest] = path, object = node.type === "object";
  const kept = [];
  (object ? node.entries : node.items).forEach((member, index) => {
    const key = object ? member[0] : String(index), value = object ? member[1] : member;
    const hit = first === "*" || first === key;
    if (hit && !rest.length) return;
    const left = hit ? leaveOut(value, rest) : value;
    kept.push(object ? [key, left] : left);
  });
  return object ? {type: "object", entries: kept} : {type: "array", items: kept};
}

// A node as a Python literal: as writeJSON() writes it, with True, False and None.
function pythonLiteral(node, indent = "    ", newline = "\n") {
  if (node.type === "string") return JSON.stringify(node.value);
  if (node.type === "boolean") return node.text === "true" ? "True" : "False";
  if (node.type === "null") return "None";
  if (node.type === "number") return node.text;
  const object = node.type === "object", inner = newline + indent, members = [];
  for (const member of membersOf(node)) {
    members.push(object ? JSON.stringify(member[0]) + ": " + pythonLiteral(member[1], indent,
      inner) : pythonLiteral(member, indent, inner));
  }
  const [open, close] = object ? ["{", "}"] : ["[", "]"];
  if (!members.length) return open + close;
  return open + inner + members.join("," + inner) + "," + newline + close;
}

// The Python that sends an entry's request through the test client: its keyword arguments.
function testClientArguments(entry) {
  const headers = {"Accept": "application/json"};
  for (const name of entry.headerNames) headers[name] = "<your " + name + ">";
  const sent = entry.sent, lines = [];
  if (sent && !sent.fields && sent.type) headers["Content-Type"] = sent.type;
  lines.push("        headers=" + pythonLiteral(parseJSON(JSON.stringify(headers)), "    ",
    "\n        ") + ",");
  if (sent?.fields) {
    lines.push("        data=MultiDict([");
    for (const [key, value] of sent.fields) {
      lines.push("            (" + JSON.stringify(key) + ", " + (typeof value === "string" ?
        JSON.stringify(value) : "(io.BytesIO(b\"\"), " + JSON.stringify(value.file) + ")") +
        "),");
    }
    lines.push("        ]),", "        content_type=\"multipart/form-data\",");
  } else if (sent && sent.text !== null) {
    lines.push("        data=" + JSON.stringify(sent.text) + ".encode(\"utf-8\"),");
  }
  return lines;
}

// A pytest test of an entry: its request through the app's test client, then the status and
// the data the page saw, the paths left out; `app` is how the app's tests get the app.
function pytestTest(entry, app, leftOut) {
  const url = new URL(entry.url), path = url.pathname + url.search;
  const name = "test_" + (entry.method + path).toLowerCase().replace(/[^a-z0-9]+/g, "_")
    .replace(/_+$/, "") + "_answers_as_the_page_saw";
  let data, expected = [];
  try { data = entry.body === null ? null : parseJSON(entry.body); } catch { data = null; }
  if (data) {
    for (const one of leftOut) data = leaveOut(data, one);
    expected = ["    data = response.get_json()", "    for path in LEFT_OUT:",
      "        data = _left_out(data, path)", "    assert data == " + pythonLiteral(data)];
  } else if (entry.body !== null) {
    expected = ["    assert response.get_data(as_text=True) == " + JSON.stringify(entry.body)];
  }
  const imports = entry.sent?.fields ? ["import io", "", "import pytest",
    "from werkzeug.datastructures import MultiDict"] : ["import pytest"];
  return [
    "\"\"\"" + entry.method + " " + path + " as the browsable page saw it at " +
      new Date(entry.at).toISOString() + ": written by its history.\"\"\"", "",
    ...imports, "", app, "", "# Values that change from run to run, left out of the comparison.",
    "LEFT_OUT = " + JSON.stringify(leftOut), "", "", "def _left_out(data, path):",
    "    \"\"\"The data without the values at a path (\"*\": any key or index).\"\"\"",
    "    if not path or not isinstance(data, (dict, list)):", "        return data",
    "    first, rest = path[0], path[1:]",
    "    members = data.items() if isinstance(data, dict) else enumerate(data)",
    "    kept = [(key, _left_out(value, rest) if first in (\"*\", str(key)) else value)",
    "            for key, value in members if rest or first not in (\"*\", str(key))]",
    "    return dict(kept) if isinstance(data, dict) else [value for _, value in kept]",
    "", "", "@pytest.fixture", "def client():", "    app.config[\"TESTING\"] = True",
    "    return app.test_client()", "", "",
    "def " + name + "(client):", "    response = client.open(",
    "        " + JSON.stringify(path) + ",", "        method=" + JSON.stringify(entry.method) + ",",
    ...testClientArguments(entry), "    )",
    "    assert response.status_code == " + entry.status, ...expected, ""].join("\n");
}

// ---- History: every answer the page shows, kept for this tab; opened again, resent, cleared ----
// Each answer the page shows (a page it loads or swaps in, an answer in the panel, a stream's
// page) is an entry, newest first, in sessionStorage: this tab only, kept across reloads and
// Back, gone with the tab. The stored headers' values are never kept: only their names.
// A body over HISTORY_BODY, up to HISTORY_BIG, is kept gzipped (CompressionStream) in base64
// under a key of its own, so the list stays small; the bytes bound counts it as stored.

const HISTORY_KEY = "flask-api-history";  // where sessionStorage keeps it
const HISTORY_ENTRIES = 50;  // entries kept at the most: the oldest go first
const HISTORY_BODY = 64 * 1024;  // bytes of a body kept at the most; a longer one is not kept
const HISTORY_BYTES = 1024 * 1024;  // bytes the whole history takes at the most, as stored
const HISTORY_BIG = 4 * 1024 * 1024;  // bytes of a body kept compressed at the most
const BODY_KEY = "flask-api-history-body-";  // a big body's own key: this, then its entry's name

// The time of day an entry was answered, 14:05:09, as Intl.DateTimeFormat("en-GB") writes it
// (not Intl itself: see grouped()).
function timeOfDay(at) {
  const time = new Date(at), two = (n) => String(n).padStart(2, "0");
  return [time.getHours(), time.getMinutes(), time.getSeconds()].map(two).join(":");
}

// The bytes a text takes in UTF-8, as a server counts them.
function utf8Length(text) {
  return new TextEncoder().encode(text).length;
}

// The history, newest first: [{at, method, url, sent, headerNames, status, ms, bytes, ...}].
function savedHistory() {
  let list;
  try { list = JSON.parse(sessionStorage.getItem(HISTORY_KEY)) || []; } catch { list = []; }
  return Array.isArray(list) ? list.filter((entry) => typeof entry?.url === "string" &&
    typeof entry.method === "string") : [];
}

// A request's body as kept: its text (too long: null), or its multipart fields, a file by name.
function keptBody(body, type) {
  if (body === undefined || body === null) return null;
  if (!(body instanceof FormData)) {
    const text = String(body);
    return {type, text: utf8Length(text) <= HISTORY_BODY ? text : null, bytes: utf8Length(text)};
  }
  return {type: "multipart/form-data", fields: Array.from(body, ([key, value]) =>
    [key, typeof value === "string" ? value : {file: value.name, bytes: value.size}])};
}

// An entry: the request (the stored headers by name, never their values), then its answer,
// whose body is kept if no longer than the bound.
function historyEntry(request, answer, at) {
  const bytes = answer.body === null ? null : utf8Length(answer.body);
  return {at, method: request.method, url: request.url, sent: keptBody(request.body,
    request.type), headerNames: request.headerNames || [], status: answer.status,
  ms: answer.ms ?? null, bytes, headers: answer.headers, stream: answer.stream || null,
  body: bytes !== null && bytes <= HISTORY_BODY ? answer.body : null};
}

// The bytes an entry takes as stored: its JSON (and its comma), and its big body's.
function storedSize(entry) {
  return utf8Length(JSON.stringify(entry)) + 1 + (entry.stored || 0);
}

// The history with an entry first, within the bounds: past the bytes, the oldest big bodies go
// first (their entries say so), then the oldest entries.
function boundedHistory(list, entry, most = HISTORY_ENTRIES, bytes = HISTORY_BYTES) {
  const kept = [entry].concat(list).slice(0, most);
  let total = kept.reduce((sum, one) => sum + storedSize(one), 1);
  for (let at = kept.length - 1; at > 0 && total > bytes; at -= 1) {
    if (!kept[at].bodyKey) continue;
    total -= storedSize(kept[at]);
    kept[at] = {...kept[at], bodyKey: null, stored: 0, lost: "room"};
    total += storedSize(kept[at]);
  }
  const sizes = kept.map(storedSize);
  while (kept.length > 1 && total > bytes) {
    total -= sizes[kept.length - 1];
    kept.pop();
  }
  return kept;
}

// Keep the history; where the browser's storage is full, the oldest go until it fits. What
// was not kept, in words ("" if all was).
function saveHistory(list) {
  for (let kept = list; ; kept = kept.slice(0, -1)) {
    forgetBodies(kept);
    try {
      if (kept.length) sessionStorage.setItem(HISTORY_KEY, JSON.stringify(kept));
      else sessionStorage.removeItem(HISTORY_KEY);
      return kept.length === list.length ? "" : "The browser's storage for this tab is full: " +
        (kept.length ? "the " + counted(list.length - kept.length, "oldest entry",
          "oldest entries") + " had to go." : "this answer could not be kept.");
    } catch (error) {
      if (!kept.length) return "The history could not be kept: " + error.message;
    }
  }
}

// Remove the big bodies no entry of the list names any more.
function forgetBodies(list) {
  const named = new Set(list.map((entry) => entry.bodyKey).filter(Boolean));
  for (let at = sessionStorage.length - 1; at >= 0; at -= 1) {
    const key = sessionStorage.key(at);
    if (key?.startsWith(BODY_KEY) && !named.has(key)) sessionStorage.removeItem(key);
  }
}

// A text gzipped, in base64.
async function packed(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

// The text of a gzipped base64.
async function unpacked(base64) {
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")))
    .text();
}

// The longest body kept: compressed where the browser can, else only as text.
function bodyBound() {
  return typeof CompressionStream === "function" ? HISTORY_BIG : HISTORY_BODY;
}

// Whether an entry's body is one to keep compressed: over HISTORY_BODY, up to the bound.
function isBig(entry, body) {
  return typeof body === "string" && entry.body === null && entry.bytes <= bodyBound();
}

// An entry with its big body kept under its own key; the storage full, the entry says so.
// What went wrong, in words ("" if nothing did).
async function keepBig(entry, body) {
  const key = BODY_KEY + entry.at + "-" + Math.random().toString(36).slice(2);
  let text;
  try { text = await packed(body); } catch (error) {
    return [{...entry, lost: "error"}, "This answer's body could not be compressed to be " +
      "kept: " + error.message];
  }
  forgetBodies(savedHistory());
  try { sessionStorage.setItem(key, text); } catch {
    return [{...entry, lost: "full"}, "The browser's storage for this tab is full: this " +
      "answer's body (" + counted(entry.bytes, "byte") + ") could not be kept."];
  }
  return [{...entry, bodyKey: key, stored: text.length + key.length}, ""];
}

// An entry's body: its text, from its own key if big; null where it was not kept.
async function entryText(entry) {
  if (entry.body !== null || !entry.bodyKey) return entry.body;
  const stored = sessionStorage.getItem(entry.bodyKey);
  return stored === null ? null : unpacked(stored);
}

// The headers the panel shows, as [name, value]: each key, then the text up to the next (not
// a comment, such as the server's mark for late headers).
function shownHeaders(panel) {
  const pairs = [];
  for (let node = panel.querySelector(".status")?.nextSibling;
    node && !node.classList?.contains("body"); node = node.nextSibling) {
    if (node.classList?.contains("key")) pairs.push([node.textContent.replace(/:$/, ""), ""]);
    else if (pairs.length && node.nodeType !== 8 && !node.classList?.contains("timing")) {
      pairs[pairs.length - 1][1] += node.textContent;
    }
  }
  return pairs.map(([name, value]) => [name, value.trim()]);
}

// Keep the answer just shown, read from the panel (raw: the headers and text of an answer that
// is not a page), with the request behind it; its time in ms, if known.
async function remember(times, raw) {
  const panel = document.querySelector("pre.response");
  if (!panel || !panel.dataset.status) return;
  const url = new URL(panel.dataset.url, window.location.href).href, method = panel.dataset.method;
  const sent = state.sent && state.sent.method === method && state.sent.url === url ? state.sent :
    {method, url};
  const answer = raw || {headers: shownHeaders(panel), stream: panel.dataset.stream,
    body: panel.dataset.stream ? null : panel.querySelector(".body")?.textContent ?? ""};
  const entry = historyEntry({...sent, headerNames: savedHeaders().map((pair) => pair[0])},
    {...answer, status: Number(panel.dataset.status),
      ms: times ? Math.round(times.end - times.started) : null}, Date.now());
  const big = isBig(entry, answer.body);
  state.historySaid = saveHistory(boundedHistory(savedHistory(), big ? {...entry,
    lost: "left"} : entry));  // at once: the tab may leave before the body is compressed
  historyPanel();
  if (big) keptLater(entry, ...await keepBig(entry, answer.body));
}

// Put an entry, its big body now kept, in the place it was saved at (still there?), within
// the bounds; say what went wrong.
function keptLater(entry, kept, said) {
  const list = savedHistory();
  const at = list.findIndex((one) => one.at === entry.at && one.url === entry.url);
  if (at < 0) return;
  list[at] = kept;
  state.historySaid = saveHistory(boundedHistory(list.slice(1), list[0])) || said;
  historyPanel();
}

// Keep the page the browser loaded itself: not one it shows again from Back (kept already),
// nor one about to be fetched again with the stored headers (that answer is kept).
function rememberLoad(times) {
  const entry = performance.getEntriesByType("navigation")[0];
  if (entry?.type === "back_forward" || document.documentElement.classList.contains("refetch")) {
    historyPanel();
  } else remember(times);
}

// An entry in a line: method, path, status, time of day, size, time taken.
function entryLine(entry) {
  const url = new URL(entry.url);
  return [entry.method + " " + url.pathname + url.search, entry.status ? "HTTP " +
    entry.status : "", timeOfDay(entry.at), entry.stream ? "a stream" : entry.bytes === null ?
    "" : counted(entry.bytes, "byte"), entry.ms === null ? "" : grouped(entry.ms) + " ms"]
    .filter(Boolean).join(" \u00b7 ");
}

// The entry's name, for its controls: "GET /1/ at 14:05:09".
function entryName(entry) {
  return entry.method + " " + new URL(entry.url).pathname + " at " + timeOfDay(entry.at);
}

// The history panel: its count; opened, its entries (built when opened), and what it said.
function historyPanel() {
  const section = document.getElementById("api-history");
  if (!section) return;
  const list = savedHistory();
  const details = el("details", {ontoggle: () => {
    state.historyOpen = details.open;
    if (details.open) historyBuilt(details);
  }}, [el("summary", {}, ["History: " + counted(list.length, "request")])]);
  const said = state.historySaid ? [el("p", {class: "hint error", role: "alert"},
    [state.historySaid])] : [];
  section.replaceChildren(...said, lastAnswerButton(list), details);
  details.open = state.historyOpen;
  section.hidden = false;
}

// The history's list in its panel, built the first time it is needed.
function historyBuilt(details) {
  if (!details.querySelector(":scope > .hint")) details.append(...historyList());
}

// The history's parts: what is kept, the entries with their buttons, compare and clear.
function historyList() {
  const list = savedHistory();
  const hint = el("p", {class: "hint"}, ["This tab's last " + HISTORY_ENTRIES + " requests, " +
    "newest first, kept until the tab is closed (" + HISTORY_BYTES / 1024 / 1024 + " MB at the " +
    "most, as stored); an answer's body if it is " + HISTORY_BODY / 1024 + " KB or less" +
    (bodyBound() > HISTORY_BODY ? ", or up to " + HISTORY_BIG / 1024 / 1024 + " MB " +
      "compressed (the oldest of these go first to make room)" : "") + ". Your stored " +
    "headers' values are never kept, only their names."]);
  if (!list.length) return [hint];
  const rows = list.map((entry, index) => el("li", {}, [
    el("input", {type: "checkbox", "data-index": index, "aria-label": "Pick " +
      entryName(entry) + " to compare"}), " ", el("code", {}, [entryLine(entry)]), " ",
    el("button", {type: "button", "aria-label": "Open " + entryName(entry),
      onclick: () => openEntry(entry)}, ["Open"]), " ",
    el("button", {type: "button", "aria-label": "Resend " + entryName(entry),
      onclick: () => resend(entry)}, ["Resend"]), " ",
    el("button", {type: "button", "aria-label": "As a test: " + entryName(entry),
      onclick: () => testOfEntry(entry)}, ["As a test"])]));
  const entries = el("ol", {"aria-label": "Requests, newest first", class: "history"}, rows);
  const compare = () => {
    const picked = Array.from(entries.querySelectorAll("input:checked"), (box) =>
      list[Number(box.dataset.index)]);
    if (picked.length === 2) compareEntries(picked[1], picked[0]);
    else {
      historyShown([el("p", {class: "hint", role: "alert"}, ["Pick two entries to compare: " +
        counted(picked.length, "is", "are") + " picked."])], "p");
    }
  };
  return [hint, entries, el("div", {class: "bar"}, [
    el("button", {type: "button", onclick: compare}, ["Compare the two picked"]),
    el("button", {type: "button", onclick: clearHistory}, ["Clear history"])])];
}

// Forget the whole history, and say so.
function clearHistory() {
  saveHistory([]);
  state.historySaid = "";
  historyPanel();
  document.querySelector("#api-history summary")?.focus();
  announce("History cleared.");
}

// Show something of the history (an entry, a comparison, a test) under its list; focus its
// first element of `focusOn`, and say what it is.
function historyShown(children, focusOn) {
  const details = document.querySelector("#api-history details");
  if (!details) return null;
  historyBuilt(details);
  details.open = true;
  let shown = document.getElementById("api-history-shown");
  if (!shown) {
    shown = el("div", {id: "api-history-shown"});
    details.append(shown);
  }
  shown.replaceChildren(...children);
  const place = shown.querySelector(focusOn);
  if (place) {
    place.setAttribute("tabindex", "-1");
    place.focus();
    announce(place.textContent);
  }
  return shown;
}

// An entry's answer as it was: its line, its status and headers, its body as a tree (as text
// if it is not JSON, or a note if it was not kept).
async function openEntry(entry) {
  const body = answerBody({...entry, body: await entryText(entry)});
  const headers = entry.headers.flatMap(([name, value]) => [el("span", {class: "key"},
    [name + ":"]), " " + value + "\n"]);
  const answer = el("pre", {class: "response", "aria-label": "The answer of " +
    entryName(entry)}, [el("span", {class: entry.status < 400 ? "status" : "status error"},
    ["HTTP " + entry.status]), "\n", ...headers, "\n", ...body]);
  historyShown([el("h2", {}, ["The answer of " + entryName(entry)]), answer], "h2");
}

// An entry's body as the panel would show it: a tree, its text, or why it is not there.
function answerBody(entry) {
  if (entry.body === null) {
    return [el("span", {class: "hint"}, [entry.stream ? "A stream: its items are not kept." :
      "Its body (" + counted(entry.bytes, "byte") + ") " + lostWhy(entry) + "."])];
  }
  let model;
  try { model = parseJSON(entry.body); } catch { return [entry.body]; }
  const tree = el("span", {class: "tree", onclick: foldClick, onkeydown: foldKey});
  showTree(tree, model, FIRST_LINES, "the answer");
  return [tree];
}

// Why an entry's body is not kept, in words.
function lostWhy(entry) {
  if (entry.lost === "room") {
    return "went to make room for newer answers (" + HISTORY_BYTES / 1024 / 1024 + " MB kept)";
  }
  if (entry.lost === "error") return "could not be kept: the browser could not compress it";
  if (entry.lost === "left") return "was not kept: the page was left while it was compressed";
  if (entry.lost === "full" || entry.bodyKey) return "could not be kept: the storage was full";
  return "was longer than the " + (entry.bytes > HISTORY_BIG ? HISTORY_BIG / 1024 / 1024 +
    " MB" : HISTORY_BODY / 1024 + " KB") + " kept";
}

// The request of an entry, to send again: {body, type}; null where a file of it was not kept.
function entryRequest(entry) {
  const sent = entry.sent;
  if (!sent) return {};
  if (!sent.fields) return sent.text === null ? null : {body: sent.text, type: sent.type};
  if (sent.fields.some((field) => typeof field[1] !== "string")) return null;
  const body = new FormData();
  for (const [key, value] of sent.fields) body.append(key, value);
  return {body, type: sent.type};
}

// Send an entry's request again, with the stored headers as they are now, and show its answer.
async function resend(entry) {
  const request = entryRequest(entry);
  if (request === null) {
    historyShown([el("p", {class: "hint", role: "alert"}, ["Not resent: the page does not " +
      "keep " + (entry.sent.fields ? "a request's files" : "a body this long") + "; send it " +
      "from the form."])], "p");
    return;
  }
  if (entry.method === "GET") return navigate(entry.url, true);
  if (entry.method === "DELETE" && !window.confirm("Delete this resource?")) return;
  if (entry.url !== window.location.href) history.pushState(null, "", entry.url);
  show(await send(entry.method, entry.url, request.body, request.type));
}

// An entry as a pytest test for the app's own suite: how its tests get the app, the values to
// leave out (they change from run to run), and the test, written again as either changes.
function testOfEntry(entry) {
  const app = el("textarea", {id: "api-test-app", rows: "2", spellcheck: "false"});
  app.value = state.testApp;
  const paths = el("textarea", {id: "api-test-left-out", rows: "3", spellcheck: "false",
    placeholder: "/created\n/items/*/id"});
  const code = el("pre", {class: "curl", tabindex: "0", "aria-label": "pytest test"});
  const write = () => {
    state.testApp = app.value;
    code.textContent = pytestTest(entry, app.value, leftOutPaths(paths.value));
  };
  const copy = el("button", {type: "button", class: "copy", onclick: () => {
    write();
    copied(copy, navigator.clipboard.writeText(code.textContent));
  }}, ["Copy the test"]);
  app.addEventListener("input", write);
  paths.addEventListener("input", write);
  write();
  historyShown([el("h2", {}, [entryName(entry) + " as a pytest test"]),
    el("p", {class: "hint"}, ["Through Flask's test client: the same request, then the status " +
      "and the data the page saw. Save it in your tests' folder and run pytest."]),
    el("label", {for: "api-test-app"}, ["How your tests get the app (Python)"]), app,
    el("label", {for: "api-test-left-out"}, ["Values to leave out: their paths, one a line " +
      "(* for any key or index)"]), paths, el("div", {class: "bar"}, [copy]), code], "h2");
}

// ---- Compare: two answers of the history, their data's differences by path ----
// Read from the lossless JSON nodes (see The body as data): a number is the text the API
// wrote, so 18446744073709551617 against 18446744073709551616 is a change, and 1.0 against 1
// is shown as each was written. Unchanged values are counted, not shown.

const MOST_CHANGES = 1000;  // changes listed at the most; the rest are counted
const ITEM_KEYS = ["id", "key", "pk", "uuid", "url", "slug"];  // members that may name an item

// The differences between two nodes, by path: {changes: [{path, kind, from, to}], same},
// kind "added", "removed" or "changed", same the count of values unchanged.
function diffJSON(before, after) {
  const changes = [];
  let same = 0;
  // Compare two nodes at a path: containers member by member, anything else as written.
  function walk(one, other, path) {
    if (one.type !== other.type || (one.type !== "object" && one.type !== "array")) {
      if (one.type === other.type && (one.type === "string" ? one.value === other.value :
        one.text === other.text)) same += 1;
      else changes.push({path, kind: "changed", from: one, to: other});
      return;
    }
    const named = one.type === "array" && itemKey(one.items, other.items);
    if (named) {
      walkItems(one.items, other.items, named, path);
      return;
    }
    if (one.type === "array") {
      const most = Math.max(one.items.length, other.items.length);
      for (let index = 0; index < most; index += 1) {
        const at = path.concat(index);
        if (index >= other.items.length) {
          changes.push({path: at, kind: "removed", from: one.items[index]});
        } else if (index >= one.items.length) {
          changes.push({path: at, kind: "added", to: other.items[index]});
        } else walk(one.items[index], other.items[index], at);
      }
      return;
    }
    if (sameKeys(one.entries, other.entries)) {  // the usual case: paired in order, no maps
      one.entries.forEach((member, index) => walk(member[1], other.entries[index][1],
        path.concat(member[0])));
      return;
    }
    const others = new Map(other.entries);
    for (const [key, value] of one.entries) {
      if (others.has(key)) walk(value, others.get(key), path.concat(key));
      else changes.push({path: path.concat(key), kind: "removed", from: value});
    }
    const ones = new Map(one.entries);
    for (const [key, value] of other.entries) {
      if (!ones.has(key)) changes.push({path: path.concat(key), kind: "added", to: value});
    }
  }
  // Compare two lists of items that each name themselves by a key: paired by it, so an item
  // inserted is one added, not every later one changed (at the newer list's indexes; a
  // removed one at the older's).
  function walkItems(ones, others, key, path) {
    const older = new Map(ones.map((item, index) => [itemName(item, key), index]));
    const paired = new Set();
    others.forEach((item, index) => {
      const at = older.get(itemName(item, key));
      if (at === undefined) changes.push({path: path.concat(index), kind: "added", to: item});
      else {
        paired.add(at);
        walk(ones[at], item, path.concat(index));
      }
    });
    ones.forEach((item, index) => {
      if (!paired.has(index)) changes.push({path: path.concat(index), kind: "removed", from: item});
    });
  }
  walk(before, after, []);
  return {changes, same};
}

// Whether two objects' members have the same keys in the same order.
function sameKeys(ones, others) {
  return ones.length === others.length && ones.every((member, index) =>
    member[0] === others[index][0]);
}

// An item's name by a key: its member's type and text; undefined where it has none.
function itemName(item, key) {
  if (item.type !== "object") return undefined;
  const member = item.entries.find((entry) => entry[0] === key);
  if (!member || (member[1].type !== "string" && member[1].type !== "number")) return undefined;
  return member[1].type + ":" + (member[1].type === "string" ? member[1].value : member[1].text);
}

// The key that names every item of both lists, once each in each; null if none does.
function itemKey(ones, others) {
  if (!ones.length || !others.length || ones[0].type !== "object") return null;
  return ITEM_KEYS.find((key) => [ones, others].every((items) => {
    const names = new Set();
    for (const item of items) {
      const name = itemName(item, key);
      if (name === undefined || names.has(name)) return false;
      names.add(name);
    }
    return true;
  })) || null;
}

// A path as a JSON Pointer: ["items", 3, "a/b"] is /items/3/a~1b; the root is "/".
function pointer(path) {
  return path.length ? path.map((part) => "/" + String(part).replace(/~/g, "~0")
    .replace(/\//g, "~1")).join("") : "/";
}

// The headers' differences, names in any case: [{path: [name], kind, from, to}] of strings.
function diffHeaders(before, after) {
  const lower = (pairs) => new Map(pairs.map(([name, value]) => [name.toLowerCase(),
    [name, value]]));
  const ones = lower(before), others = lower(after), changes = [];
  for (const [key, [name, value]] of ones) {
    if (!others.has(key)) changes.push({path: [name], kind: "removed", from: value});
    else if (others.get(key)[1] !== value) {
      changes.push({path: [name], kind: "changed", from: value, to: others.get(key)[1]});
    }
  }
  for (const [key, [name, value]] of others) {
    if (!ones.has(key)) changes.push({path: [name], kind: "added", to: value});
  }
  return changes;
}

// A value as the API wrote it, on one line, cut past 200 characters.
function shownValue(value) {
  const text = typeof value === "string" ? value : writeJSON(value, "");
  return text.length > 200 ? text.slice(0, 200) + "\u2026" : text;
}

// A change as a line: its path (a header's name), what it was and is; text only.
function changeLine(change, header) {
  const kind = el("span", {class: "change " + change.kind}, [change.kind]);
  const path = el("code", {}, [header ? change.path[0] : pointer(change.path)]);
  const values = change.kind === "added" ? [" ", el("code", {}, [shownValue(change.to)])] :
    change.kind === "removed" ? [" ", el("code", {}, [shownValue(change.from)])] :
      [" ", el("code", {}, [shownValue(change.from)]), " \u2192 ", el("code", {},
        [shownValue(change.to)])];
  return el("li", {}, [path, " ", kind, ...values]);
}

// The two bodies' differences as parts to show: a summary, then the changes by path.
function bodyDifferences(before, after) {
  if (before.body === null || after.body === null) {
    return [el("p", {class: "hint"}, ["The bodies are not compared: one of them was not kept."])];
  }
  let one, other;
  try { [one, other] = [parseJSON(before.body), parseJSON(after.body)]; } catch {
    return [el("p", {class: "hint"}, [before.body === after.body ? "The same body (not JSON)." :
      "The bodies differ (not JSON): open each to see it."])];
  }
  const {changes, same} = diffJSON(one, other);
  const counts = ["added", "removed", "changed"].map((kind) =>
    grouped(changes.filter((change) => change.kind === kind).length) + " " + kind);
  const parts = [el("p", {class: "diff-summary"}, ["Data: " + counts.join(", ") + "; " +
    counted(same, "value") + " the same, folded."])];
  if (changes.length) {
    parts.push(el("ol", {class: "diff", "aria-label": "Changes in the data"},
      changes.slice(0, MOST_CHANGES).map((change) => changeLine(change, false))));
  }
  if (changes.length > MOST_CHANGES) {
    parts.push(el("p", {class: "hint"}, ["And " + counted(changes.length - MOST_CHANGES,
      "change") + " more, not listed."]));
  }
  return parts;
}

// Compare two entries of the history, the older first: status, headers, then the data (a big
// body read from its own key).
async function compareEntries(before, after) {
  const [one, other] = await Promise.all([entryText(before), entryText(after)]);
  const headers = diffHeaders(before.headers, after.headers);
  const status = before.status === after.status ? "Status: HTTP " + after.status + ", both." :
    "Status: HTTP " + before.status + " \u2192 HTTP " + after.status + ".";
  historyShown([el("h2", {}, ["Compared: " + entryName(before) + " with " + entryName(after)]),
    el("p", {}, [status]),
    el("p", {}, [headers.length ? "Headers: " + counted(headers.length, "difference") + "." :
      "Headers: the same."]),
    ...headers.length ? [el("ol", {class: "diff", "aria-label": "Changes in the headers"},
      headers.map((change) => changeLine(change, true)))] : [],
    ...bodyDifferences({...before, body: one}, {...after, body: other})], "h2");
}

// One click: the answer shown against the last one before it from the same URL, if any.
function lastAnswerButton(list) {
  const panel = document.querySelector("pre.response");
  if (!panel || !panel.dataset.url) return "";
  const url = new URL(panel.dataset.url, window.location.href).href;
  const same = list.filter((entry) => entry.url === url && entry.method === panel.dataset.method);
  if (same.length < 2) return "";
  return el("button", {type: "button", onclick: () => compareEntries(same[1], same[0])},
    ["Compare with the previous answer from this URL"]);
}

// ---- Start: build the tools into each page shown, listen, and hand the tests their parts ----

// Build every tool into this page; again after each page swap (`fetched`: a stream's page's
// fetch, whose items are still to come: see streamLive).
function enhance(fetched) {
  const model = bodyModel();
  state.filter = null;  // the last page's
  jsonTree(model);  // first: the body stays hidden until it is built
  headersPanel();
  signinPanel();
  queryPanel();
  formTabs(model);
  curlButtons();
  codeButtons();
  historyPanel();
  if (!document.documentElement.classList.contains("refetch")) streamLive(fetched);
}

// Once the page is whole (see pageIsWhole): the tools, then this page again with
// the headers, or the offer. The stream that came without the headers is not read then.
function loaded() {
  if (state.parsed) return;
  state.parsed = true;
  const refetch = document.documentElement.classList.contains("refetch");
  const stream = Boolean(document.getElementById("api-items-list"));
  if (refetch && stream) window.stop();  // the server sees it go, before the fetch below
  enhance();
  const times = !stream && pageTiming();  // a stream's line has its own
  if (times) showTiming(times);
  rememberLoad(times);
  if (state.landing && signinLanded(state.landing)) return;  // traded, and shown again
  if (refetch) withHeaders();
  else if (storedCredentials()) offerRefetch();
}

// Whether the page is whole before DOMContentLoaded. A stream's is once its items begin (the
// event waits for the stream's end). Any other's is once the end of its content (the
// history's place) is parsed and its last byte in: the event comes a task later, and the
// browser may draw the page without its tools in between, 10 to 20 ms of a first visit
// before they are there. (A template's content without that place waits for the event.)
function pageIsWhole() {
  if (document.getElementById("api-items-list")) return true;
  return Boolean(document.getElementById("api-history")) &&
    !document.querySelector("pre.response[data-stream]") &&
    performance.getEntriesByType("navigation")[0]?.responseEnd > 0;
}

// Start the tools as soon as the page is whole (see pageIsWhole).
function watchForWhole() {
  const watch = new MutationObserver(() => {
    if (!pageIsWhole()) return;
    watch.disconnect();
    loaded();
  });
  watch.observe(document.documentElement, {childList: true, subtree: true});
  document.addEventListener("DOMContentLoaded", () => watch.disconnect());
}

// As the page loads: hide what is about to change, mark a page from elsewhere, and listen.
// (tools/page.py calls it last, once every section of the script is in.)
function start() {
  document.documentElement.classList.add("json-tree");  // its text is not laid out at all
  state.landing = landedAnswer();  // a sign-in's answer in the URL: out of it, now
  // "refetch": this page is fetched again with the stored headers as it loads (a sign-in's
  // answer to this tab: with the tokens it is traded for; see signinLanded())
  if (state.landing?.ours || storedCredentials() && (cameFromHere() ||
    history.state?.fromSignin)) document.documentElement.classList.add("refetch");
  else if (storedCredentials()) history.replaceState({fromElsewhere: true}, "");  // for Back
  document.addEventListener("DOMContentLoaded", loaded);
  watchForWhole();
  document.addEventListener("click", followLink);
  document.addEventListener("submit", submitForm);
  document.addEventListener("copy", copyTree);
  window.addEventListener("popstate", wentBack);
  window.addEventListener("pageshow", cameBack);
  window.addEventListener("message", refuseMessage);
  shareSignins();
  document.documentElement.classList.add("enhanced");  // the note of files not loaded stays hidden
}

start();
}());
"""
# </page/>

#: The page's one template, which an app's own template may extend (its blocks are public API).
#: Its style and script are not in it: the page links them (see `_assets`).
_PAGE = (_PAGE_MARKUP
         .replace("{# _LATE_HEADERS #}", _LATE_HEADERS.decode("ascii"))
         .replace("{# _STREAM_ITEMS #}", "{% if stream %}" + _STREAM_ITEMS + "{% endif %}"))
