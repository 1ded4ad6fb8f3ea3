"""Fuzz the notes app over real sockets: odd and malformed requests must never get a 5xx.

    python tools/fuzz_notes.py                               # 3000 requests, to gunicorn it starts
    python tools/fuzz_notes.py --requests 200 --seed 7       # a short run that repeats exactly
    python tools/fuzz_notes.py --url http://127.0.0.1:8000   # a notes server already running

Without ``--url`` it starts ``gunicorn --workers 1 --threads 8 notes_app:app`` (the setup the
README recommends) in the repository root, on 127.0.0.1, on a port the kernel picks, and stops
it at the end. With ``--url`` the server must be a notes app on this machine with its three
initial notes.

Each request is written byte by byte on a socket of its own, so it can be what client
libraries refuse to send: malformed and truncated JSON, broken chunked bodies, JSON with lone
surrogates, odd charsets (utf-7, unicode_escape, latin-1, utf-16, unknown ones), forms and
multipart bodies with odd boundaries, very long and repeated headers and odd bytes in them,
crafted paths (``/%5Cevil.test/``, ``//x``, ``/%00/``, long keys), every method, browser and API
``Accept`` headers, and the browsable page's ``_method``/``_content`` form.

It keeps a model of the store, the app's three initial notes changed only by the writes that
succeeded (201 or 200 from POST or PUT, 204 from DELETE, or the 303 that a page form's DELETE
becomes), and checks that

- no answer is a 5xx, and every well-formed request gets an answer within ``--timeout``;
- every JSON 4xx has a string ``detail``, and a write that succeeded answers with its note
  and, where the fuzzer knows what it sent, with that text;
- every ``--check-every`` requests, and at the end, ``GET /`` lists exactly the model's notes;
- when it started gunicorn itself: the server logs no traceback or error, and its worker
  stays under ``--max-memory`` MiB (each kind of request is charged with the growth after it).

It prints one line (requests, status histogram, seconds) and exits 0, or prints each kind
of violation with the seed, the request as sent, the answer and the server log lines it
caused, and exits 1 (2 when the server cannot be started or reached). The run is bounded
by ``--requests`` and ``--time-limit`` and sends to the loopback address only.

Two things gunicorn answers itself, before the app sees the request, are not sent: a
Transfer-Encoding it does not know (501, as RFC 9112 says) and a ``SCRIPT_NAME`` header the
path does not start with (500, gunicorn's own configuration error).
"""

import argparse
import collections
import html
import http.client
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, cast
from urllib.parse import quote_plus, urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # where notes_app.py is
# The notes app's store when it starts (notes_app.INITIAL_NOTES), as the README documents it.
INITIAL_NOTES = {0: "do the shopping", 1: "build the codez", 2: "paint the door"}
LOOPBACK = ("127.0.0.1", "localhost", "::1")
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
SERVER_PROBLEM = re.compile(r"Traceback|\[(ERROR|CRITICAL)\]")

Headers = List[Tuple[bytes, bytes]]


# ---------------------------------------------------------------------------
# A request on the wire, and its answer
# ---------------------------------------------------------------------------

class Probe:
    """One request as the bytes sent, and what the store model needs to know about it.

    ``key`` is the note its path routes to, ``lists`` says it routes to the list; ``text``
    is what a successful write must store, where the fuzzer knows it. ``may_drop``: the
    request is broken at the HTTP level, so the server may close without an answer.
    """

    def __init__(self, shape: str, method: str, target: str, headers: Optional[Headers] = None,
                 body: bytes = b"", key: Optional[int] = None, lists: bool = False,
                 text: Optional[str] = None, may_drop: bool = False,
                 raw_target: Optional[bytes] = None, version: bytes = b"HTTP/1.1",
                 host: bool = True) -> None:
        self.shape, self.method, self.target = shape, method, target
        self.headers = list(headers or [])
        self.body, self.key, self.lists, self.text = body, key, lists, text
        self.may_drop, self.version, self.host = may_drop, version, host
        self.raw_target = raw_target if raw_target is not None else target.encode("ascii")

    def wire(self, host: bytes) -> bytes:
        names = {name.lower() for name, _ in self.headers}
        head = [self.method.encode("latin-1") + b" " + self.raw_target + b" " + self.version]
        if self.host and b"host" not in names and self.version != b"HTTP/1.0":
            head.append(b"Host: " + host)
        head += [name + b": " + value for name, value in self.headers]
        head.append(b"Connection: close")
        return b"\r\n".join(head) + b"\r\n\r\n" + self.body

    def describe(self, host: bytes, limit: int = 700) -> str:
        sent = self.wire(host)
        shown = repr(sent[:limit]) + (" ... ({} bytes)".format(len(sent)) if len(sent) > limit
                                      else "")
        return "[{}] {}".format(self.shape, shown)


class Answer:
    """What came back: a status (None if the connection closed first) or a ``problem``."""

    def __init__(self, status: Optional[int] = None, headers: Optional[Dict[str, str]] = None,
                 body: bytes = b"", problem: str = "") -> None:
        self.status, self.headers, self.body, self.problem = status, headers or {}, body, problem

    @property
    def label(self) -> str:
        return str(self.status) if self.status is not None else self.problem

    def data(self) -> Any:
        """The body as data: JSON itself, or the JSON the browsable page shows."""
        content_type = self.headers.get("content-type", "")
        text = self.body.decode("utf-8", "replace")
        try:
            if content_type.startswith("application/json"):
                return json.loads(text)
            if content_type.startswith("text/html"):
                panel = re.search(r'<pre class="response"[^>]*>(.*?)</pre>', text, re.S)
                shown = html.unescape(re.sub(r"<[^>]*>", "", panel.group(1))) if panel else ""
                return json.loads(shown.split("\n\n", 2)[2])
        except (ValueError, IndexError):
            pass
        return None


def send(address: Tuple[str, int], probe: Probe, timeout: float) -> Answer:
    """Send the probe on a new connection, half-close it, and read the whole answer, read as
    it comes while the request is still being sent, as HTTP clients do: a server may answer
    a body it refuses (a 413, a broken multipart) before reading it, then close. Read only
    after the send, an answer bigger than the socket's buffers (a page) stays partly in the
    server's, and its close, with the body unread, resets the connection and drops it."""
    try:
        sock = connect(address, timeout)
    except OSError as exc:
        return Answer(problem="connect failed ({})".format(type(exc).__name__))
    with sock:
        sender = threading.Thread(target=_send_all, args=(sock, probe.wire(host_header(address))))
        sender.start()
        response = http.client.HTTPResponse(sock, method=probe.method)
        try:
            response.begin()
            body = response.read()
        except socket.timeout:
            return Answer(problem="no answer in {} s".format(timeout))
        except (http.client.HTTPException, OSError) as exc:
            return Answer(problem="closed ({})".format(type(exc).__name__))
        finally:
            response.close()
            sender.join()  # done: sent, or refused by the server's close (or the timeout)
        headers = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, headers, body)


def connect(address: Tuple[str, int], timeout: float) -> socket.socket:
    """A connection whose receive buffer takes a whole page at once (as big as the kernel
    allows, set before the connection, which sizes its window): the server's close, with a
    body it refused unread, then finds no answer left to send, which the reset would drop."""
    family, kind, proto, _, where = socket.getaddrinfo(*address, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
        sock.settimeout(timeout)
        sock.connect(where)
    except OSError:
        sock.close()
        raise
    return sock


def _send_all(sock: socket.socket, request: bytes) -> None:
    """The request, then the end of it (a truncated body ends here, not at a timeout)."""
    try:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # the server answered and closed before reading it all: that answer is read


def host_header(address: Tuple[str, int]) -> bytes:
    host = "[{}]".format(address[0]) if ":" in address[0] else address[0]
    return "{}:{}".format(host, address[1]).encode("ascii")


def headers_origin(address: Tuple[str, int]) -> str:
    return "http://" + host_header(address).decode("ascii")


# ---------------------------------------------------------------------------
# Request families: each a function of the draw that returns a Probe; ``generate`` picks
# one from FAMILIES by weight
# ---------------------------------------------------------------------------

TEXTS = ["", "water the plants", "caf\u00e9 \u00fcber \u2713", "emoji \U0001f389 \U0001f44d",
         "<script>alert(1)</script>", "line\u2028sep\u2029para", "tab\tnew\nline\r",
         '"quotes" and \\backslashes\\', "nul\x00byte", "{{ 7 * 7 }}", "%zz&=+;", "\ufeffbom",
         "\U0010fffd", "right-to-left \u202e", "a" * 3000]
LIST_TARGETS = ["/", "/?format=json", "/?format=api", "/?x=1&x=2", "/?"]
# Crafted request targets with the note key each routes to (None: no note), and the few
# that route to the list. "//1/" and "/%2F1/" reach note 1: the leading slashes collapse.
CRAFTED_TARGETS = [
    ("/%5Cevil.test/", None), ("/%5C%5Cevil.test/", None), ("/%09/evil.test/x", None),
    ("/%0A/evil.test/", None), ("//x", None), ("//evil.test/", None),
    ("/%2F%2Fevil.test/", None), ("/%00/", None), ("/%00", None), ("/%ff/", None),
    ("/caf%C3%A9/", None), ("/%E2%80%AE/", None), ("/..%2F..%2Fetc/passwd", None),
    ("/1", None), ("/1/extra/", None), ("/-1/", None), ("/1.5/", None), ("/.", None),
    ("/" + "9" * 19 + "/", None), ("/" + "1" * 4000 + "/", None), ("/" + "a" * 4000, None),
    ("*", None), ("/%", None), ("/%zz/", None), ("//1/", 1), ("/%2F1/", 1), ("/%31/", 1),
    ("/001/", 1), ("/1/?format=json&format=api", 1), ("//", None), ("/?format=xml", None),
]  # type: List[Tuple[str, Optional[int]]]
CRAFTED_LISTS = frozenset(["//", "/?format=xml"])
ACCEPTS = [
    None, "*/*", "application/json", "application/json; indent=4", BROWSER_ACCEPT, "text/html",
    "text/html;q=0.5, application/json", "application/json; indent=x", "application/xml",
    "*/*; q=abc", ",,,", "text/*; q=0, */*; q=0.1", "application/json;;;", "text/html; q=2",
    'application/json; api-version="1', "image/png; q=0", "", "*/*;q=0", "application/*",
    "text/html, application/json; indent=99", "\u00e9/\u00e8", "a" * 200,
]
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO", "get",
           "PROPFIND", "M-SEARCH"]
ODD_CHARSETS = ["bogus", "rot13", "hex", "base64", "zlib", "idna", "punycode", "undefined",
                "", "utf-8-sig", "ascii", "cp500", "utf-32", "utf-16-le", '"utf-8"',
                "mbcs", "uu", "x-user-defined", "UTF8"]
LONE_SURROGATES = ["\\ud800", "\\udfff", "a\\ud83d", "\\udc00\\u0041", "\\ud800\\ud800"]
JSON_PIECES = [b"{", b"}", b"[", b"]", b'"text"', b":", b",", b"null", b"NaN", b"Infinity",
               b"1e999", b"-", b"\xff", b"\xc3", b"\x00", b"\\u", b"\\ud800", b"'",
               b"\xef\xbb\xbf", b'"\\x41"', b"/* */", b"\r\n"]
FORM_PIECES = [b"text", b"=", b"&", b"%", b"%zz", b"%ff", b"+", b"\xff", b";", b"text=a",
               b"%00", b"=" * 3, b"_method=PUT"]


def random_text(rng: random.Random) -> str:
    if rng.random() < 0.7:
        return rng.choice(TEXTS)
    points = [rng.choice([rng.randrange(32, 127), rng.randrange(0xa0, 0xd800),
                          rng.randrange(0xe000, 0x110000)]) for _ in range(rng.randrange(1, 40))]
    return "".join(chr(point) for point in points)


class Draw:
    """What the families draw from: the run's seeded random source, the store model as the
    answers so far left it (a repair replaces it), and the server's address."""

    def __init__(self, rng: random.Random, model: Dict[int, str],
                 address: Tuple[str, int]) -> None:
        self.rng, self.model, self.address = rng, model, address

    def key(self) -> int:
        """Mostly a note that exists; else a free key, rarely the largest one allowed."""
        rng = self.rng
        if self.model and rng.random() < 0.6:
            return rng.choice(sorted(self.model))
        return 10 ** 18 - 1 if rng.random() < 0.002 else rng.randrange(0, 40)

    def target(self, key: Optional[int]) -> str:
        """A path to the note, or to the list for None, with an odd query or zeros at times."""
        if key is None:
            return self.rng.choice(LIST_TARGETS)
        shown = ("00" if self.rng.random() < 0.05 else "") + str(key)
        return "/{}/".format(shown) + self.rng.choice(["", "", "", "?format=json", "?x=%5C"])

    def write(self, shape: str, content_type: Optional[str], body: bytes,
              text: Optional[str] = None, extra: Optional[Headers] = None,
              **options: Any) -> Probe:
        """A POST to the list or a PUT to a note (sometimes another method) with this body."""
        rng = self.rng
        key = None if rng.random() < 0.45 else self.key()
        method = "POST" if key is None else "PUT"
        if rng.random() < 0.08:
            method = rng.choice(["PATCH", "DELETE", "GET", "POST" if key is not None else "PUT"])
        headers = list(extra or [])
        if content_type is not None:
            headers.append((b"Content-Type", content_type.encode("latin-1")))
        if not any(name.lower() in (b"transfer-encoding", b"content-length")
                   for name, _ in headers):
            headers.append((b"Content-Length", str(len(body)).encode()))
        accept = rng.choice([None, "application/json", BROWSER_ACCEPT, rng.choice(ACCEPTS)])
        if accept is not None:
            headers.append((b"Accept", accept.encode("utf-8")))
        return Probe(shape, method, self.target(key), headers, body, key=key, lists=key is None,
                     text=text, **options)


# -- JSON bodies: valid, of the wrong type, broken, with lone surrogates ---------------

def json_valid(draw: Draw) -> Probe:
    """A note as JSON, escaped or not, under the spellings of its content type."""
    text = random_text(draw.rng)
    fields = {"text": text}  # type: Dict[str, Any]
    if draw.rng.random() < 0.2:
        fields["other"] = [1, {"nested": None}]
    body = json.dumps(fields, ensure_ascii=draw.rng.random() < 0.5).encode("utf-8")
    content_type = draw.rng.choice(["application/json", "application/json; charset=utf-8",
                                    "APPLICATION/JSON", "application/json;charset=UTF-8"])
    return draw.write("json", content_type, body, text)


def json_non_string(draw: Draw) -> Probe:
    """A "text" that is a number, a bool, null, a list or an object."""
    value = draw.rng.choice([42, True, None, [1, "a"], {"a": 1}, 1.5, -0, 10 ** 30])
    body = json.dumps({"text": value}).encode("ascii")
    return draw.write("json-non-string", "application/json", body, str(value))


def json_not_object(draw: Draw) -> Probe:
    """Valid JSON that is not an object."""
    body = draw.rng.choice([b"[1, 2]", b'"text"', b"null", b"42", b"true", b'[{"text": 1}]'])
    return draw.write("json-not-object", "application/json", body)


def json_malformed(draw: Draw) -> Probe:
    """Broken JSON: random pieces, a cut document, deep nesting, NaN and infinities."""
    rng = draw.rng
    choice = rng.random()
    if choice < 0.4:
        body = b"".join(rng.choice(JSON_PIECES) for _ in range(rng.randrange(0, 14)))
    elif choice < 0.7:
        whole = json.dumps({"text": random_text(rng)}).encode("utf-8")
        body = whole[:rng.randrange(0, len(whole))]
    elif choice < 0.85:
        depth = rng.choice([100, 1000, 100000])
        body = b'{"text": ' + b"[" * depth + b"]" * depth + b"}"
    else:
        body = b'{"text": NaN}' if rng.random() < 0.5 else b'{"text": -Infinity}'
    return draw.write("json-malformed", "application/json", body)


def json_lone_surrogate(draw: Draw) -> Probe:
    """A "text" escaping a surrogate with no partner, which UTF-8 cannot store."""
    body = '{{"text": "{}"}}'.format(draw.rng.choice(LONE_SURROGATES)).encode("ascii")
    return draw.write("json-lone-surrogate", "application/json", body)


# -- Charsets: escapes and surrogates through them, unknown and odd ones ---------------

def charset(draw: Draw) -> Probe:
    """A JSON body in the charset its content type names, or one Python has but the web not."""
    rng = draw.rng
    text = rng.choice(["caf\u00e9", "plain", "\u00fcber", "\u2713 done"])
    charset = rng.choice(["utf-7", "unicode_escape", "raw_unicode_escape", "latin-1",
                          "utf-16", "unknown"])
    content_type = "application/json; charset=" + charset
    if charset in ("utf-7", "unicode_escape", "raw_unicode_escape") and rng.random() < 0.5:
        surrogate = "+2AA-" if charset == "utf-7" else rng.choice(LONE_SURROGATES)
        body = '{{"text": "{}"}}'.format(surrogate).encode("ascii")
        return draw.write("charset-{}-surrogate".format(charset), content_type, body)
    if charset == "unknown":
        charset = rng.choice(ODD_CHARSETS)
        content_type = "application/json; charset=" + charset
        body = json.dumps({"text": text}, ensure_ascii=False).encode("utf-8")
        return draw.write("charset-odd", content_type, body)
    document = json.dumps({"text": text}, ensure_ascii=False)
    try:
        body = document.encode(charset if "escape" not in charset else "ascii",
                               "backslashreplace")
    except UnicodeError:
        return draw.write("charset-" + charset, content_type, b"\xff\xfe\x00")
    if charset == "utf-16" and rng.random() < 0.3:
        return draw.write("charset-utf-16-odd-length", content_type, body[:-1])
    return draw.write("charset-" + charset, content_type, body, text)


# -- Forms, and multipart bodies with odd boundaries -----------------------------------

def form(draw: Draw) -> Probe:
    """A URL-encoded note, the field repeated, or garbage, under odd charsets."""
    rng = draw.rng
    text = random_text(rng)
    choice = rng.random()
    content_type = rng.choice(["application/x-www-form-urlencoded",
                               "application/x-www-form-urlencoded; charset=utf-8",
                               "application/x-www-form-urlencoded; charset=latin-1",
                               "application/x-www-form-urlencoded; charset=bogus"])
    if choice < 0.6:
        body = ("text=" + quote_plus(text)).encode("ascii")
        return draw.write("form", content_type, body, text)
    if choice < 0.7:
        body = ("text=" + quote_plus(text) + "&text=second").encode("ascii")
        return draw.write("form-repeated", content_type, body, text)
    body = b"".join(rng.choice(FORM_PIECES) for _ in range(rng.randrange(0, 12)))
    return draw.write("form-garbage", content_type, body)


def multipart(draw: Draw) -> Probe:
    """A multipart note under an odd, quoted, missing or overlong boundary."""
    rng = draw.rng
    text = random_text(rng)
    boundary = rng.choice(["b", "----WebKitFormBoundaryX3u", "a b", "'()+_,-./:=?", "x" * 70,
                           "x" * 2000, "\u00e9", "--", "=", "a;b", ""])
    quoted = '"{}"'.format(boundary) if rng.random() < 0.4 or " " in boundary else boundary
    content_type = "multipart/form-data; boundary=" + quoted
    if rng.random() < 0.15:
        content_type = rng.choice(["multipart/form-data", "multipart/form-data; boundary",
                                   "multipart/form-data; boundary=\"", "multipart/mixed"])
    body, expect = multipart_body(rng, boundary, text)
    if expect is not None and (len(boundary) > 70 or not re.fullmatch(r"[\w'()+,./:=? -]+",
                                                                      boundary)):
        expect = None  # outside RFC 2046's boundary syntax: a parser may refuse it
    return draw.write("multipart", content_type, body, expect)


def multipart_body(rng: random.Random, boundary: str, text: str) -> Tuple[bytes, Optional[str]]:
    """The body, well formed or not, and the text a success must store (None: unknown)."""
    delimiter = b"--" + boundary.encode("utf-8")
    part = (delimiter + b'\r\nContent-Disposition: form-data; name="text"\r\n\r\n'
            + text.encode("utf-8") + b"\r\n")
    closing = delimiter + b"--\r\n"
    choice = rng.random()
    if choice < 0.5:
        return part + closing, text if boundary else None
    if choice < 0.6:
        return part, None  # no closing delimiter
    if choice < 0.7:
        return part.replace(b"\r\n", b"\n") + closing, None
    if choice < 0.8:
        return (delimiter + b'\r\nContent-Disposition: form-data; name="text"; filename="t.txt"'
                b"\r\nContent-Type: text/plain\r\n\r\n" + text.encode("utf-8") + b"\r\n"
                + closing), None
    if choice < 0.9:
        return part * rng.choice([2, 1100]) + closing, None
    return b"--other\r\n\r\nx\r\n--other--\r\n", None


# -- HTTP framing: chunked bodies, Content-Length, the request line and Host -----------

def chunked(draw: Draw) -> Probe:
    """A note sent in chunks, well framed or broken, sometimes with a Content-Length too."""
    rng = draw.rng
    text = random_text(rng)
    content_type, document = chunked_document(rng, text)
    chunks = [document[start:start + size] for start, size in chunk_sizes(rng, len(document))]
    framed, ending, shape, expect, may_drop = frame_chunks(rng, chunks, text)
    encoding = rng.choice([b"chunked", b"chunked", b"Chunked", b"identity, chunked"])
    extra = [(b"Transfer-Encoding", encoding)]
    if rng.random() < 0.1:
        extra.append((b"Content-Length", b"5"))  # both: the smuggling shape
        shape, expect, may_drop = shape + "+content-length", None, True
    return draw.write(shape, content_type, b"".join(framed) + ending, expect, extra,
                      may_drop=may_drop)


def chunked_document(rng: random.Random, text: str) -> Tuple[str, bytes]:
    """The note as JSON, which is read whole, or as a form, which werkzeug's parser streams:
    both paths read chunks."""
    content_type = rng.choice(["application/json", "application/x-www-form-urlencoded",
                               "multipart/form-data; boundary=b"])
    if content_type == "application/json":
        return content_type, json.dumps({"text": text}).encode("utf-8")
    if content_type.startswith("multipart"):
        return content_type, (b'--b\r\nContent-Disposition: form-data; name="text"\r\n\r\n'
                              + text.encode("utf-8") + b"\r\n--b--\r\n")
    return content_type, ("text=" + quote_plus(text)).encode("ascii")


def chunk_sizes(rng: random.Random, length: int) -> List[Tuple[int, int]]:
    """Where each chunk of a document of ``length`` bytes starts, and its size (1 to 19)."""
    spans, start = [], 0
    while start < length:
        size = rng.randrange(1, 20)
        spans.append((start, size))
        start += size
    return spans


def frame_chunks(rng: random.Random, chunks: List[bytes], text: str
                 ) -> Tuple[List[bytes], bytes, str, Optional[str], bool]:
    """The chunks framed, well or in one of six broken ways, and the last chunk: with the
    shape, the text a success must store, and whether the server may close unanswered."""
    framed = [b"%x" % len(chunk) + b"\r\n" + chunk + b"\r\n" for chunk in chunks]
    choice = rng.random()
    if choice < 0.15:
        bad = rng.choice([b"zz", b"-1", b"0x10", b"ffffffffffffffffffff", b" 5", b"5 ", b"",
                          b"1" * 40, b"5;", b"5\x00"])
        framed[0] = bad + b"\r\n" + chunks[0] + b"\r\n"
        return framed, b"0\r\n\r\n", "chunked-bad-size", None, True
    if choice < 0.3:
        return framed, b"", "chunked-no-terminator", None, True
    if choice < 0.45:
        cut = rng.randrange(0, max(1, len(b"".join(framed))))
        return [b"".join(framed)[:cut]], b"", "chunked-truncated", None, True
    if choice < 0.55:
        framed = [chunk.replace(b"\r\n", b"", 1) for chunk in framed]
        return framed, b"0\r\n\r\n", "chunked-missing-crlf", None, True
    if choice < 0.65:
        framed = [b"%x;name=value\r\n" % len(chunk) + chunk + b"\r\n" for chunk in chunks]
        return framed, b"0\r\nX-Trailer: 1\r\n\r\n", "chunked-extensions", text, False
    if choice < 0.75:
        framed = [b"%X" % (len(chunk) + 5) + b"\r\n" + chunk + b"\r\n" for chunk in chunks]
        return framed, b"0\r\n\r\n", "chunked-wrong-size", None, True
    return framed, b"0\r\n\r\n", "chunked", text, False


def content_length(draw: Draw) -> Probe:
    """A JSON note whose Content-Length is off, malformed or given twice."""
    rng = draw.rng
    body = json.dumps({"text": random_text(rng)}).encode("utf-8")
    value = rng.choice([str(len(body) + 10), str(max(0, len(body) - 3)), "abc", "-1", "",
                        "1" * 30, "0x10", " {} ".format(len(body)), "+{}".format(len(body))])
    extra = [(b"Content-Length", value.encode("ascii"))]
    if rng.random() < 0.2:
        extra.append((b"Content-Length", b"1"))
    shape = "content-length-" + ("off" if value.strip().isdigit() else "bad")
    return draw.write(shape, "application/json", body, None, extra, may_drop=True)


def request_line(draw: Draw) -> Probe:
    """A GET with an odd request line or Host: HTTP/1.0, odd versions, an absolute target,
    raw bytes, a long target, an odd or missing Host, or a proxy's SCRIPT_NAME."""
    rng = draw.rng
    key = draw.key()
    choice = rng.randrange(8)
    path = "/{}/".format(key)
    if choice == 0:
        return Probe("http-1.0", "GET", path, key=key, version=b"HTTP/1.0")
    if choice == 1:
        version = rng.choice([b"HTTP/1.2", b"HTTP/2.0", b"HTTP/9.9", b"http/1.1", b"HTTP/1",
                              b"HTTP/1.1 extra"])
        return Probe("request-line-version", "GET", path, key=key, version=version,
                     may_drop=True)
    if choice == 2:
        target = "http://{}:{}/{}/".format(draw.address[0], draw.address[1], key)
        return Probe("request-line-absolute", "GET", target, key=key, may_drop=True)
    if choice == 3:
        raw = rng.choice([b"/\xc3\xa9/", b"/\xff/", b"/a b/", b"/\x00/", b"/\x7f/", b"/\t/"])
        return Probe("request-line-raw-bytes", "GET", raw.decode("latin-1"), raw_target=raw,
                     may_drop=True)
    if choice == 4:
        return Probe("request-line-long", "GET", "/" + "1" * rng.choice([8000, 9000]) + "/",
                     may_drop=True)
    if choice == 5:
        host = rng.choice([b"evil.test", b"", b"a b", b"\xff", b"localhost:99999", b"[::1"])
        return Probe("host-odd", "GET", path, [(b"Host", host)], key=key, may_drop=True)
    if choice == 6:
        return Probe("host-missing", "GET", path, key=key, may_drop=True, host=False)
    # a prefix from a proxy, as gunicorn takes it from 127.0.0.1: the path starts with it
    return Probe("script-name", "GET", "/api" + path, [(b"SCRIPT_NAME", b"/api")], key=key)


# -- Headers: Accept in every form, long, repeated and odd ones ------------------------

def accept_header(draw: Draw) -> Probe:
    """A read under an odd Accept, a long or much repeated one, or one of odd bytes."""
    rng = draw.rng
    key = None if rng.random() < 0.5 else draw.key()
    target = draw.target(key)
    method = rng.choice(["GET", "GET", "HEAD", "OPTIONS"])
    choice = rng.random()
    if choice < 0.4:
        accepts = [rng.choice(ACCEPTS)]
        shape = "accept"
    elif choice < 0.8:  # a new value each time, so no cache on the server can hold them all
        count = rng.choice([1, 1, 2, 20, 90])
        length = rng.choice([1000, 4000, 8000])
        accepts = [long_accept(rng, length) for _ in range(count)]
        shape = "accept-long" if count == 1 else "accept-repeated"
    else:
        odd = [b"\xff\xfe", b"text/html\x01", b"\x7f", b"\xc3\xa9/\xc3\xa8", b"text/\x80html"]
        headers = [(b"Accept", rng.choice(odd))]
        return Probe("accept-odd-bytes", method, target, headers, key=key, lists=key is None,
                     may_drop=True)
    headers = [(b"Accept", accept.encode("utf-8")) for accept in accepts if accept is not None]
    return Probe(shape, method, target, headers, key=key, lists=key is None)


def long_accept(rng: random.Random, length: int) -> str:
    """An Accept value of ``length`` characters: one random item, repeated."""
    item = rng.choice(["a/b{};q=0.{}, ", "text/html;level={};q=0.{}, ", "*/*;x={}{}, ",
                       "x{}{}"]).format(rng.randrange(10 ** 6), rng.randrange(10))
    return (item * (length // len(item) + 1))[:length]


def other_headers(draw: Draw) -> Probe:
    """A long User-Agent, very many headers, bad names, a folded line, or a repeated
    Content-Type with odd bytes beside it."""
    rng = draw.rng
    key = draw.key()
    choice = rng.randrange(5)
    if choice == 0:
        headers = [(b"User-Agent", b"u" * rng.choice([4000, 8100, 9000]))]
    elif choice == 1:
        headers = [(b"X-Many-%d" % index, b"v") for index in range(rng.choice([50, 99, 150]))]
    elif choice == 2:
        headers = [(rng.choice([b"X Bad", b"X:Bad", b"\xff", b"", b"X\x00"]), b"v")]
    elif choice == 3:
        headers = [(b"X-Folded", b"a\r\n b")]
    else:
        headers = [(b"Content-Type", b"application/json"), (b"Content-Type", b"text/plain"),
                   (b"X-Odd", b"\xff\x01\x7f")]
    headers.append((b"Accept", rng.choice([b"application/json", BROWSER_ACCEPT.encode()])))
    return Probe("headers-odd", rng.choice(["GET", "DELETE"]), "/{}/".format(key), headers,
                 key=key, may_drop=True)


# -- Paths and methods -----------------------------------------------------------------

def crafted_path(draw: Draw) -> Probe:
    """A crafted target (open-redirect shapes, NUL, overlong keys, ...), any common method."""
    rng = draw.rng
    target, key = rng.choice(CRAFTED_TARGETS)
    method = rng.choice(["GET", "GET", "HEAD", "OPTIONS", "DELETE", "PUT", "POST"])
    headers = [(b"Accept", rng.choice([BROWSER_ACCEPT, "application/json"]).encode())]
    body = b""
    text = None
    if method in ("PUT", "POST"):
        text = random_text(rng)
        body = json.dumps({"text": text}).encode("utf-8")
        headers += [(b"Content-Type", b"application/json"),
                    (b"Content-Length", str(len(body)).encode())]
    return Probe("path-crafted", method, target, headers, body, key=key,
                 lists=target in CRAFTED_LISTS, text=text, may_drop=target == "*")


def any_method(draw: Draw) -> Probe:
    """Any method, known or not, with no body, under any Accept."""
    rng = draw.rng
    key = None if rng.random() < 0.3 else draw.key()
    method = rng.choice(METHODS)
    accept = rng.choice(ACCEPTS)
    headers = [] if accept is None else [(b"Accept", accept.encode("utf-8"))]
    return Probe("method", method, draw.target(key), headers, key=key, lists=key is None,
                 may_drop=method in ("get", "M-SEARCH"))


def delete(draw: Draw) -> Probe:
    """A DELETE of a note, existing or not."""
    key = draw.key()
    accept = draw.rng.choice([None, "application/json", BROWSER_ACCEPT])
    headers = [] if accept is None else [(b"Accept", accept.encode())]
    return Probe("delete", "DELETE", draw.target(key), headers, key=key)


# -- The browsable page's form ---------------------------------------------------------

def page_form(draw: Draw) -> Probe:
    """The browsable page's plain form: a POST whose fields name the real request."""
    rng = draw.rng
    key = None if rng.random() < 0.4 else draw.key()
    method = rng.choice(["PUT", "POST", "DELETE", "PATCH", "OPTIONS", "GET", "put", ""])
    content_type = rng.choice(["application/json", "application/x-www-form-urlencoded",
                               "multipart/form-data", "", "text/plain"])
    text = random_text(rng)  # type: Optional[str]
    if content_type in ("", "application/json"):  # the middleware's default is JSON
        content = json.dumps({"text": text})
    else:
        content = "text=" + quote_plus(text or "")
    if rng.random() < 0.15:
        content, text = rng.choice(['{"text": "\\ud800"}', "{", "%zz", "text=%ff"]), None
    fields = [("_method", method), ("_content", content), ("_content_type", content_type)]
    body = "&".join(name + "=" + quote_plus(value) for name, value in fields)
    accept = rng.choice([BROWSER_ACCEPT, "text/html", "application/json"])
    origin = rng.choice([None, None, headers_origin(draw.address), "http://evil.test", "null"])
    site = rng.choice([None, None, "same-origin", "cross-site", "none"])
    headers = [(b"Content-Type", b"application/x-www-form-urlencoded"),
               (b"Content-Length", str(len(body)).encode()), (b"Accept", accept.encode())]
    headers += [(b"Origin", origin.encode())] if origin else []
    headers += [(b"Sec-Fetch-Site", site.encode())] if site else []
    if not overridden(draw, accept, method, origin, site):
        text = ""  # a plain POST: its fields are _method and the others, no text
    elif content_type == "text/plain":
        text = None
    return Probe("page-form", "POST", draw.target(key), headers, body.encode("ascii"),
                 key=key, lists=key is None, text=text)


def overridden(draw: Draw, accept: str, method: str, origin: Optional[str],
               site: Optional[str]) -> bool:
    """What the README promises: only a browser's same-origin form is turned into its method."""
    return ("text/html" in accept
            and method.upper() in ("POST", "PUT", "PATCH", "DELETE", "OPTIONS")
            and origin in (None, headers_origin(draw.address))
            and site in (None, "same-origin", "none"))


# Each family with how often it is drawn, out of their sum (the order is part of the seed's run).
FAMILIES: List[Tuple[Callable[[Draw], Probe], int]] = [
    (json_valid, 14), (json_non_string, 3), (json_not_object, 3), (json_malformed, 8),
    (json_lone_surrogate, 3), (charset, 6), (form, 7), (multipart, 7), (chunked, 8),
    (content_length, 3), (request_line, 4), (accept_header, 8), (other_headers, 3),
    (crafted_path, 7), (any_method, 6), (delete, 5), (page_form, 6),
]


def generate(draw: Draw) -> Probe:
    """One request, from a family drawn by weight."""
    make = draw.rng.choices([family for family, _ in FAMILIES],
                            [weight for _, weight in FAMILIES])[0]
    return make(draw)


# ---------------------------------------------------------------------------
# The server under test, and its log
# ---------------------------------------------------------------------------

class Server:
    """``gunicorn --workers 1 --threads 8 notes_app:app`` on 127.0.0.1, its output in a file."""

    def __init__(self, startup_timeout: float) -> None:
        handle, self.log_path = tempfile.mkstemp(prefix="fuzz-notes-gunicorn-", suffix=".log")
        command = [sys.executable, "-m", "gunicorn", "--workers", "1", "--threads", "8",
                   "--bind", "127.0.0.1:0", "--graceful-timeout", "3", "notes_app:app"]
        self.process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL,
                                        stdout=handle, stderr=subprocess.STDOUT)
        os.close(handle)
        self.offset = 0
        self.worker = None  # type: Optional[int]
        self.address = ("127.0.0.1", self._port(startup_timeout))

    def _port(self, startup_timeout: float) -> int:
        deadline = time.monotonic() + startup_timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            with open(self.log_path, "rb") as log:
                text = log.read().decode("utf-8", "replace")
            port = re.search(r"Listening at: http://127\.0\.0\.1:([0-9]+)", text)
            if port and "Booting worker" in text:
                self.read_log()  # past the start-up lines, and learn the worker's pid
                return int(port.group(1))
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("gunicorn did not start:\n" + self.read_log())

    def read_log(self) -> str:
        """What the server wrote since the last call."""
        with open(self.log_path, "rb") as log:
            log.seek(self.offset)
            new = log.read()
        self.offset += len(new)
        text = new.decode("utf-8", "replace")
        booted = re.findall(r"Booting worker with pid: ([0-9]+)", text)
        if booted:
            self.worker = int(booted[-1])
        return text

    def worker_memory(self) -> Optional[int]:
        """The worker's resident memory in KiB (Linux), or None where it can't be read."""
        try:
            with open("/proc/{}/status".format(self.worker)) as status:
                found = re.search(r"VmRSS:\s+([0-9]+) kB", status.read())
        except OSError:
            return None
        return int(found.group(1)) if found else None

    def remove_log(self) -> None:
        os.remove(self.log_path)

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def wait_until_answering(address: Tuple[str, int], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if send(address, Probe("ready", "GET", "/"), 2).status == 200:
            return True
        time.sleep(0.1)
    return False


def exception_summary(log: str) -> Tuple[str, str]:
    """The last exception in the log: its type with the innermost frame (to group alike
    ones by), and its line as logged. Empty when the log shows no traceback."""
    lines = [line for line in log.splitlines() if line and not line[0].isspace()
             and not line.startswith(("[", "Traceback", "During handling", "The above"))]
    if "Traceback" not in log or not lines:
        return "", ""
    frames = re.findall(r'File "([^"]+)", line [0-9]+, in (\S+)', log)
    where = "{}:{}".format(os.path.basename(frames[-1][0]), frames[-1][1]) if frames else ""
    return "{} in {}".format(lines[-1].split(":")[0], where), lines[-1][:200]


# ---------------------------------------------------------------------------
# A run: probes, the store model and the checks
# ---------------------------------------------------------------------------

def note_key(note: Any) -> Optional[int]:
    """The key in a note's url, or None if ``note`` is not a note."""
    if not (isinstance(note, dict) and set(note) == {"url", "text"}
            and isinstance(note["url"], str) and isinstance(note["text"], str)):
        return None
    match = re.search(r"/([0-9]+)/$", note["url"])
    return int(match.group(1)) if match else None


class Violation(Exception):
    """A check that failed: ``kind`` groups alike ones in the report."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(kind)
        self.kind, self.detail = kind, detail


class Findings:
    """What a run saw: how many requests, their statuses, the slowest, and the violations,
    with the report of them that names the seed and the request as sent."""

    def __init__(self, seed: int, address: Tuple[str, int]) -> None:
        self.seed, self.host = seed, host_header(address)
        self.sent = 0
        self.statuses = collections.Counter()  # type: collections.Counter
        self.slowest = (0.0, "")
        self.violations = []  # type: List[Dict[str, Any]]

    def answered(self, probe: Probe, answer: Answer, seconds: float) -> None:
        """Count the answer's status, and keep the slowest request's time and shape."""
        self.statuses[answer.label] += 1
        self.slowest = max(self.slowest, (seconds, probe.shape))

    def record(self, violation: Violation, probe: Probe, answer: Answer, logged: str) -> None:
        """A violation by one request: with the request as sent and what the server logged."""
        self.add(violation.kind, violation.detail, probe.shape, probe.describe(self.host),
                 answer.label, exception_summary(logged), logged.strip()[-3000:])

    def add(self, kind: str, detail: str, shape: str = "check", request: str = "",
            answer: str = "", exception: Tuple[str, str] = ("", ""), log: str = "") -> None:
        """A violation at the current request; a check of the whole store is shape "check"."""
        self.violations.append({
            "kind": kind, "detail": detail, "index": self.sent, "shape": shape,
            "request": request, "answer": answer, "exception": exception, "log": log})

    def summary(self, seconds: float, peak_memory: int) -> str:
        """The closing line: requests, seconds, seed, status histogram, violations."""
        histogram = " ".join("{}:{}".format(label, count)
                             for label, count in sorted(self.statuses.items()))
        memory = ", worker peak {} MiB".format(peak_memory) if peak_memory else ""
        return ("fuzz_notes: {} requests in {:.1f} s, seed {}: {}; slowest {:.2f} s ({}){}; "
                "{} violations").format(self.sent, seconds, self.seed, histogram,
                                        self.slowest[0], self.slowest[1], memory,
                                        len(self.violations))

    def report(self) -> str:
        """Each kind of violation once: how often, from which shapes, and its first case."""
        kinds = collections.OrderedDict()  # type: Dict[Tuple[str, str, str], List[Any]]
        for violation in self.violations:
            group = (violation["kind"], violation["answer"], violation["exception"][0])
            kinds.setdefault(group, []).append(violation)
        lines = []  # type: List[str]
        for (kind, answer, where), cases in kinds.items():
            lines += self.report_kind(kind, answer, where, cases)
        return "\n".join(lines)

    def report_kind(self, kind: str, answer: str, where: str, cases: List[Any]) -> List[str]:
        """One kind's lines: its count, shapes, first request, detail and server log."""
        shapes = collections.Counter(case["shape"] for case in cases)
        first = cases[0]
        lines = ["", "VIOLATION {} ({} x{}) seed {} request #{}".format(
            kind, answer or "-", len(cases), self.seed, first["index"]),
            "  shapes: " + ", ".join("{} x{}".format(*item) for item in shapes.most_common()),
            "  request: " + first["request"]]
        if first["detail"]:
            lines.append("  detail: " + first["detail"])
        if where:
            lines.append("  server: {} ({})".format(first["exception"][1], where))
        if first["log"]:
            lines += ["  log: " + line for line in first["log"].splitlines()[-12:]]
        return lines

    def fatal(self, what: str, probe: Optional[Probe]) -> str:
        """The report so far, and why the run stops here."""
        sent = probe.describe(self.host) if probe else ""
        return "{}\nfuzz_notes: stopped at request #{}, seed {}: {} {}".format(
            self.report(), self.sent, self.seed, what, sent)


class MemoryWatch:
    """The gunicorn worker's resident memory: its growth charged to the kind of request after
    which it grew, and its peak against ``--max-memory``."""

    def __init__(self, server: Optional[Server], limit: int) -> None:
        self.server, self.limit, self.peak = server, limit, 0
        self.last = server.worker_memory() if server else None
        self.growth = collections.Counter()  # type: collections.Counter  # KiB, by shape

    def measure(self, shape: str) -> None:
        """Charge the worker's growth in memory to the kind of request that caused it."""
        memory = self.server.worker_memory() if self.server else None
        if memory is not None and self.last is not None:
            self.growth[shape] += memory - self.last
        self.last = memory

    def over_limit(self, sent: int) -> Optional[str]:
        """Why the worker is past the limit, the first time it is (once reported is enough)."""
        if self.last is None:
            return None
        mib, first = self.last // 1024, self.peak <= self.limit
        self.peak = max(self.peak, mib)
        if not (mib > self.limit and first):
            return None
        grew = ", ".join("{} +{} MiB".format(shape, kib // 1024)
                         for shape, kib in self.growth.most_common(3) if kib >= 1024)
        return "{} MiB after request #{}; it grew after {}".format(
            mib, sent, grew or "many kinds of requests")


class Run:
    """Sends the probes one by one, keeps the model of the store, and checks each answer
    against it; at checkpoints, the whole store and the worker's memory."""

    def __init__(self, address: Tuple[str, int], seed: int, timeout: float,
                 server: Optional[Server], max_memory: int) -> None:
        self.address, self.seed, self.timeout, self.server = address, seed, timeout, server
        self.model = dict(INITIAL_NOTES)
        self.findings = Findings(seed, address)
        self.memory = MemoryWatch(server, max_memory)

    # -- one request: send it, check the answer, and repair the model after a violation ---

    def request(self, probe: Probe) -> None:
        answer = self.send_timed(probe)
        logged = self.server.read_log() if self.server else ""
        problems = self.problems(probe, answer, logged)
        for problem in problems:
            self.findings.record(problem, probe, answer, logged)
        if problems:
            self.repair(probe, answer)

    def send_timed(self, probe: Probe) -> Answer:
        """Send the probe, timed, and charge the worker's growth in memory to it."""
        self.findings.sent += 1
        started = time.monotonic()
        answer = send(self.address, probe, self.timeout)
        self.findings.answered(probe, answer, time.monotonic() - started)
        self.memory.measure(probe.shape)
        return answer

    def problems(self, probe: Probe, answer: Answer, logged: str) -> List[Violation]:
        """The answer's own problems, an error the server logged, and what the model says."""
        problems = list(self.answer_problems(probe, answer))
        if SERVER_PROBLEM.search(logged) and not problems:
            problems.append(Violation("server logged an error"))
        try:
            self.apply(probe, answer)
        except Violation as violation:
            problems.append(violation)
        return problems

    def answer_problems(self, probe: Probe, answer: Answer) -> Sequence[Violation]:
        if answer.status is None:
            if self.server and not self.server.alive():
                raise SystemExit(self.findings.fatal("the server exited", probe))
            return [] if probe.may_drop else [Violation("no answer", answer.problem)]
        if answer.status >= 500:
            return [Violation("5xx")]
        if 400 <= answer.status < 500 and probe.method != "HEAD" and answer.headers.get(
                "content-type", "").startswith("application/json"):
            data = answer.data()
            if not (isinstance(data, dict) and isinstance(data.get("detail"), str)):
                return [Violation("JSON 4xx without a string detail", repr(answer.body[:200]))]
        return []

    # -- the model of the store --------------------------------------------------------

    def apply(self, probe: Probe, answer: Answer) -> None:
        """Change the model as a successful write changed the store; check what it answered."""
        status, method = answer.status, probe.method
        if status == 201:
            data, expected = answer.data(), max(self.model, default=-1) + 1
            if not probe.lists or note_key(data) != expected:
                raise Violation("unexpected create", "expected key {} on a list path, got {!r}"
                                .format(expected, data))
            self.store(expected, data["text"], probe)
        elif status == 200 and method in ("PUT", "POST"):
            data = answer.data()
            key = note_key(data)
            if key is None:
                return  # an OPTIONS sent through the page's form
            if key != probe.key:
                raise Violation("unexpected write", "note {} written through a path for {}"
                                .format(key, probe.key))
            self.store(key, data["text"], probe)
        elif status in (204, 303) and method in ("DELETE", "POST"):
            if probe.key is None:
                raise Violation("unexpected delete", "a {} through a path for no note"
                                .format(status))
            self.model.pop(probe.key, None)

    def store(self, key: int, text: str, probe: Probe) -> None:
        self.model[key] = text
        if probe.text is not None and text != probe.text:
            raise Violation("stored text differs", "sent {!r}, stored {!r}"
                            .format(probe.text[:80], text[:80]))

    def repair(self, probe: Probe, answer: Answer) -> None:
        """After a violation the model is unknown: undo a write that may have half happened
        (a lone surrogate stored, then a 500 rendering it), then take the server's store."""
        failed = answer.status is None or answer.status >= 500
        if failed and probe.method in ("POST", "PUT"):
            key = max(self.model, default=-1) + 1 if probe.lists else probe.key
            if key is not None:
                send(self.address, Probe("repair", "DELETE", "/{}/".format(key),
                                         [(b"Accept", b"application/json")]), self.timeout)
        listed = self.listed()
        if listed is None:
            raise SystemExit(self.findings.fatal("GET / fails even after a repair", probe))
        self.model = listed

    # -- checks of the whole store and the worker --------------------------------------

    def listed(self) -> Optional[Dict[int, str]]:
        """The server's store as ``GET /`` lists it, or None if that fails."""
        answer = send(self.address, Probe("check", "GET", "/", [(b"Accept", b"application/json")]),
                      self.timeout)
        notes = answer.data() if answer.status == 200 else None
        if not isinstance(notes, list):
            return None
        listed = {}
        for note in notes:
            key = note_key(note)
            if key is None:
                return None
            listed[key] = note["text"]
        return listed

    def checkpoint(self) -> None:
        """``GET /`` must list exactly the model's notes, and the worker stay under its limit."""
        over = self.memory.over_limit(self.findings.sent)
        if over:
            self.findings.add("server memory over {} MiB".format(self.memory.limit), over,
                              request="(many)")
        listed = self.listed()
        if listed == self.model:
            return
        difference = "" if listed is None else "model only {}, server only {}".format(
            sorted(set(self.model.items()) - set(listed.items()))[:5],
            sorted(set(listed.items()) - set(self.model.items()))[:5])
        self.findings.add("GET / differs from the model" if listed else "GET / fails",
                          difference, request="GET /")
        if listed is None:
            raise SystemExit(self.findings.fatal("GET / fails", None))
        self.model = listed


def fuzz(run: Run, count: int, check_every: int, time_limit: float) -> bool:
    """Send up to ``count`` probes within ``time_limit`` s; True if all of them were sent."""
    draw = Draw(random.Random(run.seed), run.model, run.address)
    deadline = time.monotonic() + time_limit
    for index in range(1, count + 1):
        if time.monotonic() > deadline:
            return False
        draw.model = run.model  # a repair replaces it
        run.request(generate(draw))
        if index % check_every == 0:
            run.checkpoint()
    run.checkpoint()
    return True


def loopback_address(url: str) -> Optional[Tuple[str, int]]:
    """Where ``url`` points, if that is http on this machine's loopback address."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in LOOPBACK:
        return None
    return parts.hostname, parts.port or 80


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=3000, help="how many (default 3000)")
    parser.add_argument("--seed", type=int, help="the random seed (default: a new one)")
    parser.add_argument("--url", help="a running notes server on this machine, e.g. "
                        "http://127.0.0.1:5000 (default: start gunicorn)")
    parser.add_argument("--check-every", type=int, default=100, metavar="N",
                        help="compare GET / with the model every N requests (default 100)")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds to wait for one answer (default 10)")
    parser.add_argument("--time-limit", type=float, default=100.0,
                        help="stop sending after this many seconds (default 100)")
    parser.add_argument("--max-memory", type=int, default=128, metavar="MIB",
                        help="the most the gunicorn worker may use (default 128 MiB)")
    args = parser.parse_args(argv)
    if args.url and loopback_address(args.url) is None:
        parser.error("--url must be http:// on 127.0.0.1, localhost or [::1]")
    seed = args.seed if args.seed is not None else random.randrange(2 ** 32)
    server = None
    try:
        if args.url:
            address = cast(Tuple[str, int], loopback_address(args.url))
        else:
            server = Server(startup_timeout=30)
            address = server.address
        if not wait_until_answering(address, 30):
            print("fuzz_notes: no answer from http://{}/".format(host_header(address).decode()))
            return 2
        run = Run(address, seed, args.timeout, server, args.max_memory)
        started = time.monotonic()
        finished = fuzz(run, args.requests, args.check_every, args.time_limit)
        findings = run.findings
        print(findings.report().lstrip("\n") if findings.violations else "",
              end="\n" if findings.violations else "")
        if not finished:
            print("fuzz_notes: stopped by --time-limit {} s".format(args.time_limit))
        print(findings.summary(time.monotonic() - started, run.memory.peak))
        return 1 if findings.violations else 0
    except RuntimeError as exc:
        print("fuzz_notes: {}".format(exc))
        return 2
    finally:
        if server:
            server.stop()
            server.remove_log()


if __name__ == "__main__":
    sys.exit(main())
