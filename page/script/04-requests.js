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
