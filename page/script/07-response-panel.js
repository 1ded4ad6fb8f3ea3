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
