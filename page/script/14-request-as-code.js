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
