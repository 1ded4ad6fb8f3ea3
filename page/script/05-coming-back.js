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
