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
