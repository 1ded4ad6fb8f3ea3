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
