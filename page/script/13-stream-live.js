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
