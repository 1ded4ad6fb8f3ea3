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
