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
