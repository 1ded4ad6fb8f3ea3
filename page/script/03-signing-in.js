// ---- Signing in: what the API asks for, offered; the credential kept like the headers ----
// What the API asks for is the page's api-auth block (see "Signing in" in flask_api.py): its
// schemes, what each method needs, the answer's challenges, its token endpoints' origins. A
// credential is kept for this tab, sent by send() to this origin only, and shown masked; the
// one other place a secret goes is a token endpoint on this origin or one of the block's. The
// OAuth 2.0 authorization code flow (PKCE S256, a state) leaves for the authorization server,
// which sends the browser back to this very page with ?code=...&state=...: start() takes that
// out of the URL at once, and loaded() trades the code, once, then shows this page again.

const SIGNIN_KEY = "flask-api-signin";  // sessionStorage: the credentials, [credential, ...]
const PENDING_KEY = "flask-api-signin-pending";  // sessionStorage: a sign-in gone to a server
const FORM_KEY = "flask-api-signin-form";  // sessionStorage: the way chosen, each one's client ID
// The tabs of one sign-in (see sharedRefresh()): a BroadcastChannel of this origin, and Web Locks
// "flask-api-signin <grant> <refreshes>" (held, shared, by each tab at that refresh of it) and
// "flask-api-refresh <grant>" (held by the tab refreshing it).
const CHANNEL_NAME = "flask-api-signin";
const GRANT_LOCK = "flask-api-signin ", REFRESH_LOCK = "flask-api-refresh ";
const HANDOVER_MS = 10000;  // how long a tab waits for another's newer tokens before giving up
// An authorization server's answer (RFC 6749, 4.1.2; RFC 9207's iss): what leaves the URL.
const ANSWER_PARAMS = ["code", "state", "error", "error_description", "error_uri", "iss",
  "session_state"];
const FLOW_WORDS = {authorizationCode: "authorization code", clientCredentials:
  "client credentials", implicit: "implicit", password: "password"};
const BEARER_ERRORS = {invalid_request: "the request was malformed (invalid_request)",
  invalid_token: "it is expired, revoked or not valid (invalid_token)",
  insufficient_scope: "it lacks the scope needed (insufficient_scope)"};
const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;  // a token (RFC 6265, 4.1.1)
const COOKIE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;  // no space " , ; or \

// The page's api-auth block: {schemes: a Map of name to scheme, operations: [[method,
// requirements], ...], challenges, origins}; null where the page has none.
function authBlock() {
  const node = document.getElementById("api-auth");
  let block;
  try { block = node && JSON.parse(node.textContent); } catch { block = null; }
  if (!block || typeof block !== "object") return null;
  const entries = (value) => value && typeof value === "object" && !Array.isArray(value) ?
    Object.entries(value) : [];
  const list = (value) => Array.isArray(value) ? value : [];
  return {schemes: new Map(entries(block.schemes).filter(([, one]) => typeof one?.type ===
    "string")), operations: entries(block.operations).filter(([, one]) => Array.isArray(one)),
  challenges: list(block.challenges).filter((one) => typeof one?.scheme === "string"),
  origins: list(block.origins)};
}

// The credentials this tab signed in with, those it can send: [{scheme, words, place ("header",
// "query" or "cookie"), name, value, who, obtained, expires, refresh: {url, client, token}}].
function credentials() {
  let list;
  try { list = JSON.parse(sessionStorage.getItem(SIGNIN_KEY)) || []; } catch { list = []; }
  return Array.isArray(list) ? list.filter((one) => typeof one?.name === "string" &&
    typeof one.value === "string" && ["header", "query", "cookie"].includes(one.place) &&
    !(one.place === "header" && headerProblem(one.name, one.value))) : [];
}

// Keep these credentials (the cookie of any other cleared).
function keepCredentials(list) {
  for (const one of credentials()) {
    if (one.place === "cookie" && !list.some((kept) => kept.place === "cookie" &&
      kept.name === one.name)) document.cookie = one.name + "=; Path=/; Max-Age=0";
  }
  if (list.length) store(SIGNIN_KEY, JSON.stringify(list));
  else sessionStorage.removeItem(SIGNIN_KEY);
  return holdGrants();
}

// Keep a value in this tab's storage; where the browser will not, why, in words.
function store(key, value) {
  try {
    sessionStorage.setItem(key, value);
  } catch (error) {
    throw new Error(error.name === "QuotaExceededError" ? "this tab's storage for this site " +
      "is full (what the site's pages keep in it), so the sign-in could not be kept: sign in " +
      "from a new tab, or clear the site's data in the browser's settings." : "this browser " +
      "keeps nothing for this tab (" + error.message + "), so the sign-in could not be kept.",
    {cause: error});
  }
}

// Keep a new credential in place of the one of its scheme, or the one sent where it goes.
function addCredential(fresh) {
  keepCredentials(credentials().filter((one) => one.scheme !== fresh.scheme &&
    !(one.place === fresh.place && one.name.toLowerCase() === fresh.name.toLowerCase()))
    .concat([fresh]));
}

// Whether anything is kept to send with the page's requests: headers, or a sign-in's credential.
function storedCredentials() {
  return savedHeaders().length > 0 || credentials().length > 0;
}

// What is kept, by name: the headers, then where each credential goes.
function storedNames() {
  return savedHeaders().map((pair) => pair[0]).concat(credentials().map(placeWords)).join(", ");
}

// Where a credential goes: "Authorization", "the query's api_key", "the cookie api_key".
function placeWords(one) {
  return (one.place === "header" ? "" : one.place === "query" ? "the query's " : "the cookie ") +
    one.name;
}

// A credential as the page shows it: where it goes, and its value masked.
function masked(one) {
  const scheme = one.place === "header" && /^(?:Basic|Bearer) /.exec(one.value);
  return placeWords(one) + ": " + (scheme ? scheme[0] : "") + "\u2022".repeat(8);
}

// A request to this site with the credentials: into its headers (in place of the panel's of the
// same name), a query key into the URL fetch() gets (never one the page writes); a token about
// to expire is refreshed first.
async function signedURL(target, headers) {
  const url = new URL(target.href);
  if (url.origin !== window.location.origin) return url;  // which send() refuses already
  await refreshDue();
  for (const one of credentials()) {
    if (one.place === "query") url.searchParams.set(one.name, one.value);
    if (one.place !== "header") continue;
    for (const name of Object.keys(headers)) {  // one value a header: fetch() would join two
      if (name.toLowerCase() === one.name.toLowerCase()) delete headers[name];
    }
    headers[one.name] = one.value;
  }
  return url;
}

// A URL as the page may write it (in the history, a link, the address bar): without a query key.
function withoutKeys(href) {
  const url = new URL(href, window.location.href), keys = credentials().filter((one) =>
    one.place === "query" && url.searchParams.get(one.name) === one.value);
  for (const one of keys) url.searchParams.delete(one.name);
  return keys.length ? url.href : href;
}

// Take a query key out of what the server wrote of the URL it was asked: the request line, the
// panel's URL, the links.
function scrubKeys() {
  const panel = document.querySelector("pre.response"), line = panel?.querySelector(".key");
  if (!panel || !credentials().some((one) => one.place === "query")) return;
  for (const link of document.querySelectorAll("a[href]")) {
    const href = withoutKeys(link.href);
    if (href !== link.href) link.setAttribute("href", href);
  }
  panel.dataset.url = withoutKeys(panel.dataset.url || "");
  const url = new URL(panel.dataset.url, window.location.href);
  if (line) line.textContent = line.textContent.replace(/ \S*$/, " " + url.pathname + url.search);
}

// This page's address as an authorization server's answer comes back to it (no query).
function here() {
  return window.location.origin + window.location.pathname;
}

// What the block says, in words.

// A JWT's claims, read for display only (nothing here checks its signature); null for none.
function jwtClaims(token) {
  const parts = typeof token === "string" ? token.split(".") : [];
  if (parts.length !== 3 || !/^[A-Za-z0-9_-]+$/.test(parts[1])) return null;
  try {
    const bytes = Uint8Array.from(atob(parts[1].replace(/-/g, "+").replace(/_/g, "/")),
      (char) => char.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder("utf-8", {fatal: true}).decode(bytes));
    return claims && typeof claims === "object" && !Array.isArray(claims) ? claims : null;
  } catch { return null; }
}

// Whom a token is for, from its claims: "Ann (ann)", or "ann"; "" where they do not say.
function whoOf(claims) {
  const text = (value) => typeof value === "string" ? value.slice(0, 100) : "";
  const sub = text(claims?.sub), name = text(claims?.name) || text(claims?.preferred_username);
  return name && sub && name !== sub ? name + " (" + sub + ")" : name || sub;
}

// When a token expires, in ms, from its claims' exp (in seconds); null where they do not say.
function expiresAt(claims) {
  return typeof claims?.exp === "number" && claims.exp > 0 ? claims.exp * 1000 : null;
}

// A countdown: "expires in 4:59", "expires in 1:00:00", or "expired".
function clockText(ms) {
  if (!(ms > 0)) return "expired";
  const seconds = Math.ceil(ms / 1000), two = (n) => String(n).padStart(2, "0");
  const hours = Math.floor(seconds / 3600), minutes = Math.floor(seconds / 60) % 60;
  return "expires in " + (hours ? hours + ":" + two(minutes) : minutes) + ":" + two(seconds % 60);
}

// What a scheme is: "HTTP Basic (a username and password)", "an API key in the header X-Key"...
function schemeWords(scheme) {
  const http = String(scheme.scheme || "").toLowerCase();
  if (scheme.type === "http" && http === "basic") return "HTTP Basic (a username and password)";
  if (scheme.type === "http" && http === "bearer") {
    return "a bearer token" + (scheme.bearerFormat ? " (" + scheme.bearerFormat + ")" : "");
  }
  if (scheme.type === "apiKey") {
    return "an API key in the " + (scheme.in === "query" ? "query parameter" : scheme.in) + " " +
      scheme.name;
  }
  return scheme.type === "http" ? "HTTP " + scheme.scheme : {oauth2: "OAuth 2.0", openIdConnect:
    "OpenID Connect", mutualTLS: "a TLS client certificate"}[scheme.type] || scheme.type;
}

// What one challenge asks for: its scheme, its parameters (realm, scope...), and for a bearer
// token refused, what its error says was wrong (RFC 6750, 3.1).
function challengeWords(challenge) {
  const scheme = challenge.scheme, lower = scheme.toLowerCase(), bearer = lower === "bearer";
  const params = challenge.params && typeof challenge.params === "object" ? challenge.params : {};
  const shown = Object.entries(params).filter(([name]) => !bearer || !name.startsWith("error"));
  let text = lower === "basic" ? "HTTP Basic (a username and password)" : bearer ?
    "a bearer token" : "the scheme " + scheme + (challenge.token68 ? " (with a token)" : "");
  for (const [name, value] of shown) text += ", " + name + " \"" + value + "\"";
  if (bearer && params.error) {
    text += "; the token sent was refused: " + (BEARER_ERRORS[params.error] || params.error) +
      (params.error_description ? ", \"" + params.error_description + "\"" : "") +
      (params.error_uri ? " (see " + params.error_uri + ")" : "");
  }
  return text;
}

// What an answer's challenges ask for, in a sentence.
function challengesText(challenges) {
  return "This answer asks for " + challenges.map(challengeWords).join("; or ") + ".";
}

// What each method needs, as the document's requirements say: "GET, HEAD: basic, or bearer",
// "DELETE: nothing". `operations`: [[method, requirements], ...].
function needsText(operations) {
  const lines = new Map();
  for (const [method, requirements] of operations) {
    const ways = requirements.filter((one) => Object.keys(one || {}).length).map((one) =>
      Object.entries(one).map(([name, scopes]) => name + (Array.isArray(scopes) &&
        scopes.length ? " (" + scopes.join(" ") + ")" : "")).join(" and "));
    const optional = ways.length < requirements.length ? "nothing (signing in is optional)" : "";
    const line = ways.length ? ways.join(", or ") + (optional && ", or " + optional) :
      optional || "nothing";
    lines.set(line, (lines.get(line) || []).concat([method]));
  }
  return Array.from(lines, ([line, methods]) => methods.join(", ") + ": " + line);
}

// The ways to sign in, and the panel.

// The ways to sign in the block offers: one a scheme (an OAuth 2.0 scheme's, one a flow), then one
// for a Basic or Bearer challenge that no scheme answers: {name, scheme, key (the flow's, or the
// scheme's type), flow, words, code (it goes to an authorization server), why (what keeps this
// page from it; "" for nothing)}.
function signinWays(block) {
  const ways = [];
  for (const [name, scheme] of block.schemes) {
    const flows = scheme.type === "oauth2" && scheme.flows && typeof scheme.flows === "object" ?
      Object.entries(scheme.flows) : [[scheme.type, null]];
    for (const [key, flow] of flows) {
      ways.push({name, scheme, key, flow, code: key === "authorizationCode" ||
        key === "openIdConnect", words: flow ? "OAuth 2.0, " + (FLOW_WORDS[key] || key) :
        schemeWords(scheme), why: flow ? flowProblem(key, flow) : schemeProblem(scheme)});
    }
  }
  for (const challenge of block.challenges) {
    const http = challenge.scheme.toLowerCase(), scheme = {type: "http", scheme: http};
    if (["basic", "bearer"].includes(http) && !ways.some((way) => wayAnswers(way) === http)) {
      ways.push({name: challenge.scheme, scheme, key: "http", flow: null, code: false,
        words: schemeWords(scheme), why: ""});
    }
  }
  return ways;
}

// Why this page does not take an OAuth 2.0 flow ("" where it does).
function flowProblem(key, flow) {
  if (key === "implicit" || key === "password") {
    return "Not offered here: OAuth 2.0's security best practice (RFC 9700) says not to use the " +
      FLOW_WORDS[key] + " flow. Sign in with the authorization code flow.";
  }
  if (!flow.tokenUrl || key === "authorizationCode" && !flow.authorizationUrl) {
    return "The API's document names no usable URL for this flow's endpoints.";
  }
  return FLOW_WORDS[key] ? "" : "This page does not know this flow.";
}

// Why this page does not take a scheme ("" where it does).
function schemeProblem(scheme) {
  const http = String(scheme.scheme || "").toLowerCase();
  if (scheme.type === "http" && http !== "basic" && http !== "bearer") {
    return "This page cannot answer HTTP " + scheme.scheme + " itself: add the Authorization " +
      "header it takes under Request headers.";
  }
  if (scheme.type === "apiKey" && (!["header", "query", "cookie"].includes(scheme.in) ||
    !scheme.name)) return "The API's document does not say where this key goes.";
  if (scheme.type === "apiKey" && scheme.in === "header") return headerProblem(scheme.name, "");
  if (scheme.type === "apiKey" && scheme.in === "cookie" && !COOKIE_NAME.test(scheme.name)) {
    return "\"" + scheme.name + "\" cannot be a cookie's name.";
  }
  if (scheme.type === "openIdConnect" && !scheme.openIdConnectUrl) {
    return "The API's document names no discovery URL that this page may read.";
  }
  if (scheme.type === "mutualTLS") return "The browser offers its certificate itself.";
  return ["http", "apiKey", "openIdConnect"].includes(scheme.type) ? "" :
    "This page does not know this scheme.";
}

// The challenge a way answers: "basic", "bearer" (an OAuth token is one too), or "".
function wayAnswers(way) {
  if (way.key === "http") return String(way.scheme.scheme).toLowerCase();
  return way.scheme.type === "oauth2" || way.scheme.type === "openIdConnect" ? "bearer" : "";
}

// What the method of the answer shown needs, as the document says: its requirements.
function shownNeeds(block) {
  const method = document.querySelector("pre.response")?.dataset.method || "GET";
  return block.operations.find(([name]) => name === method)?.[1] || [];
}

// The way the form starts with: one the answer's challenges ask for, else one the method shown
// needs, else the first this page can take.
function firstWay(ways, block) {
  const challenged = block.challenges.map((one) => one.scheme.toLowerCase());
  const needed = shownNeeds(block).flatMap((one) => Object.keys(one || {}));
  const usable = ways.filter((way) => !way.why);
  return usable.find((way) => challenged.includes(wayAnswers(way))) ||
    usable.find((way) => needed.includes(way.name)) || usable[0] || ways[0];
}

// The scopes to ask for at first: those the method shown needs of the scheme, then those the
// answer's bearer challenges ask for besides ({scopes, fromAnswer}: see mergedScopes).
function wantedScopes(way, block) {
  const needed = shownNeeds(block).flatMap((one) => Array.isArray(one?.[way.name]) ?
    one[way.name] : []);
  const challenged = block.challenges.flatMap((challenge) => challenge.scheme.toLowerCase() ===
    "bearer" && typeof challenge.params?.scope === "string" ? challenge.params.scope.split(" ") :
    []);
  return mergedScopes(needed, challenged);
}

// The document's scopes and a challenge's, each once, in that order: {scopes, fromAnswer (those
// only the challenge asks for)}.
function mergedScopes(needed, challenged) {
  const scopes = Array.from(new Set(needed.concat(challenged).filter(Boolean)));
  return {scopes, fromAnswer: scopes.filter((scope) => !needed.includes(scope))};
}

// The sign-in panel: how this tab stands (signed in as whom, until when; a sign-in waiting for
// its answer), what the answer shown asks for, what each method needs, and the form.
function signinPanel() {
  const section = document.getElementById("api-signin"), block = authBlock();
  const list = credentials(), said = state.signinSaid, live = liveCredentials(list);
  clearInterval(state.signinClock);
  if (!section || !block && !list.length) return;
  scrubKeys();
  state.signinSaid = null;
  const details = el("details", {ontoggle: () => { state.signinOpen = details.open; }}, [
    el("summary", {}, [signinHeading(list)]),
    el("p", {id: "api-signin-status", class: said?.error || !said && list.length > live.length ?
      "hint error" : "hint", tabindex: "-1"}, [said ? said.text : standing(list)]),
    signedInList(), ...waitingLine(), ...block ? askedFor(block) : []]);
  const ways = block ? signinWays(block) : [];
  const refused = document.querySelector("pre.response[data-error]") && block && !live.length &&
    shownNeeds(block).every((one) => Object.keys(one || {}).length);  // [] too: some() is not
  if (ways.length) {  // signed in, and nothing asked for: the form folded away under the list
    const form = signinForm(block, ways);
    form.hidden = live.length > 0 && !block.challenges.length && !refused && !state.signinFormOpen;
    details.append(...live.length ? [el("button", {type: "button", class: "signin-again",
      "aria-controls": form.id, "aria-expanded": String(!form.hidden), onclick: (event) => {
        form.hidden = !form.hidden;
        state.signinFormOpen = !form.hidden;
        event.currentTarget.setAttribute("aria-expanded", String(!form.hidden));
      }}, ["Sign in again, or another way"])] : [], form);
  }
  details.open = state.signinOpen || Boolean(said || block?.challenges.length || refused);
  section.replaceChildren(details);
  section.hidden = false;
  section.classList.toggle("active", live.length > 0);
  if (list.some((one) => one.expires)) state.signinClock = setInterval(signinTick, 1000);
}

// The credentials that are not past their expiry (whether or not the API still takes them).
function liveCredentials(list) {
  const now = Date.now();
  return list.filter((one) => !one.expires || one.expires > now);
}

// The panel's heading: "Signed in: Ann (ann)", "Sign-in expired: ann", or "Sign in".
function signinHeading(list) {
  const live = liveCredentials(list), whom = (some) => some.map((one) => one.who || one.scheme)
    .join(", ");
  return live.length ? "Signed in: " + whom(live) : list.length ? "Sign-in expired: " +
    whom(list) : "Sign in";
}

// How this tab stands, in a sentence: signed in with what, expired, or not signed in.
function standing(list) {
  const live = liveCredentials(list), schemes = (some) => some.map((one) => one.scheme)
    .join(" and ");
  return live.length ? "Signed in with " + schemes(live) + "." : list.length ? "The sign-in " +
    "with " + schemes(list) + " has expired: sign in again." : "Not signed in.";
}

// The credentials signed in with: each one's scheme, whom it is for, where it goes (masked), its
// clock, and its buttons: Refresh now (with a refresh token), Sign out.
function signedInList() {
  return el("ul", {id: "api-signin-list", "aria-label": "Signed in with"}, credentials().map(
    (one) => el("li", {}, [el("strong", {}, [one.scheme]), " (" + one.words + ")" + (one.who ?
      ", as " + one.who : "") + ": ", el("code", {}, [masked(one)]), ...one.expires ? [
      " \u00b7 ", el("span", {class: "clock", "data-expires": String(one.expires)},
        [clockText(one.expires - Date.now())])] : [], one.refreshed ? " \u00b7 refreshed " +
      counted(one.refreshed, "time") : "", " ", ...one.refresh ? [el("button", {type: "button",
      onclick: () => refreshNow(one)}, ["Refresh now"]), " "] : [], el("button", {type: "button",
      onclick: () => signOut(one)}, ["Sign out of " + one.scheme])])));
}

// A sign-in gone to an authorization server and not back: said, with a button to cancel it.
function waitingLine() {
  const pending = waitingSignin();
  const line = pending && el("p", {class: "hint"}, ["A sign-in with " + pending.scheme +
    " is waiting for the authorization server's answer. ", el("button", {type: "button",
    onclick: () => {
      sessionStorage.removeItem(PENDING_KEY);
      line.remove();
      signinNote("Cancelled: an answer to that sign-in will be refused.", false, true);
    }}, ["Cancel it"])]);
  return line ? [line] : [];
}

// The sign-in this tab has sent to an authorization server, if any.
function waitingSignin() {
  let pending;
  try { pending = JSON.parse(sessionStorage.getItem(PENDING_KEY)); } catch { pending = null; }
  return typeof pending?.state === "string" ? pending : null;
}

// What the answer shown asks for (its challenges), and what each method needs.
function askedFor(block) {
  const parts = block.challenges.length ? [el("p", {}, [challengesText(block.challenges)])] : [];
  const needs = needsText(block.operations);
  return parts.concat(needs.length ? [el("p", {class: "hint"}, ["What each method needs, as " +
    "the API's document says:"]), el("ul", {"aria-label": "What each method needs"},
    needs.map((line) => el("li", {}, [line])))] : []);
}

// The form that signs in: the way chosen, its fields and button; what stops it said in it.
function signinForm(block, ways) {
  const fields = el("div"), problem = el("p", {class: "hint error", role: "alert"});
  const choice = el("select", {id: "api-signin-way", onchange: () => {
    rememberForm(ways[choice.value]);
    fields.replaceChildren(...wayFields(ways[choice.value], block));
    problem.textContent = "";
  }}, ways.map((way, index) => el("option", {value: String(index)}, [way.name + ": " +
    way.words])));
  choice.value = String(ways.indexOf(keptWay(ways, block) || firstWay(ways, block)));
  fields.replaceChildren(...wayFields(ways[choice.value], block));
  return el("form", {id: "api-signin-form", class: "signin-form", "aria-label": "Sign in",
    onsubmit: (event) => signinSubmit(event, ways[choice.value], problem), oninput: () => {
      problem.textContent = "";
    }}, [el("label", {for: "api-signin-way"}, ["Sign in with"]), choice, fields, problem]);
}

// What the form keeps for this tab, so that a sign-out, a refused refresh or an expiry leaves
// nothing to retype but a secret: {way: the way last chosen (wayId), clients: {wayId: client ID}}.
function formMemory() {
  let kept;
  try { kept = JSON.parse(sessionStorage.getItem(FORM_KEY)); } catch { kept = null; }
  return {way: typeof kept?.way === "string" ? kept.way : "", clients: kept?.clients &&
    typeof kept.clients === "object" && !Array.isArray(kept.clients) ? kept.clients : {}};
}

// A way's name in the form's memory: its scheme's name and its flow (or type).
function wayId(way) {
  return way.name + " " + way.key;
}

// Keep the way chosen, and the client ID given for it (never a secret); a full storage keeps
// nothing, and the form starts as the answer asks.
function rememberForm(way, client) {
  const memory = formMemory();
  memory.way = wayId(way);
  if (typeof client === "string") memory.clients[wayId(way)] = client;
  try { sessionStorage.setItem(FORM_KEY, JSON.stringify(memory)); } catch { /* see above */ }
}

// The way this tab chose last, where the page takes it and it answers what the answer asks.
function keptWay(ways, block) {
  const challenged = block.challenges.map((one) => one.scheme.toLowerCase()), kept = formMemory();
  return ways.find((way) => !way.why && wayId(way) === kept.way && (!challenged.length ||
    challenged.includes(wayAnswers(way)))) || null;
}

// A labelled input of the sign-in form.
function signinField(name, label, attributes) {
  const id = "api-signin-" + name.replace("_", "-");
  return [el("label", {for: id}, [label]), el("input", {id, name, ...attributes})];
}

// A way's fields and button, or why this page cannot take it.
function wayFields(way, block) {
  if (way.why) return [el("p", {class: "hint"}, [way.why])];
  const parts = way.scheme.description ? [el("p", {class: "hint"}, [way.scheme.description])] : [];
  const http = way.key === "http" && String(way.scheme.scheme).toLowerCase();
  const secret = {type: "password", autocomplete: "off", required: ""};
  if (http === "basic") {
    parts.push(...signinField("username", "Username", {autocomplete: "username", required: ""}),
      ...signinField("password", "Password", {type: "password",
        autocomplete: "current-password"}));
  } else if (http === "bearer") parts.push(...signinField("token", "Token", secret));
  else if (way.key === "apiKey") {
    parts.push(...signinField("key", "API key (" + way.scheme.name + ")", secret));
    if (way.scheme.in === "cookie") {
      parts.push(el("p", {class: "hint"}, ["Kept by the browser as the cookie " + way.scheme.name +
        " (SameSite=Strict), which it sends with every request to this host, from any tab, " +
        "until you sign out or close the browser: a page cannot send a cookie of its own."]));
    }
  } else parts.push(...clientFields(way, block));
  return parts.concat([el("button", {}, [!way.code ? "Sign in" : way.flow ? "Sign in at " +
    new URL(way.flow.authorizationUrl, window.location.href).host : "Sign in at the provider"])]);
}

// An OAuth client's fields: its ID (its secret too, for client credentials), and the scopes.
function clientFields(way, block) {
  const parts = signinField("client_id", "Client ID", {required: "", autocomplete: "off",
    value: String(formMemory().clients[wayId(way)] || "")});
  if (way.key === "clientCredentials") {
    parts.push(...signinField("client_secret", "Client secret", {type: "password",
      autocomplete: "off", required: ""}));
  }
  const {scopes: wanted, fromAnswer} = wantedScopes(way, block);
  const described = way.flow?.scopes && typeof way.flow.scopes === "object" ? way.flow.scopes : {};
  const scopes = Object.entries(described).concat(fromAnswer.filter((scope) =>
    !Object.hasOwn(described, scope)).map((scope) => [scope, ""]));
  const asked = fromAnswer.length ? [el("p", {id: "api-signin-scopes-asked", class: "hint"}, [
    "This answer's challenge asks for " + fromAnswer.join(" ") + ", besides what the API's " +
    "document says this method needs."])] : [];
  const describedBy = asked.length ? {"aria-describedby": "api-signin-scopes-asked"} : {};
  if (!way.flow) {  // OpenID Connect: the provider's scopes, "openid" among them
    parts.push(...signinField("scope", "Scopes, separated by spaces", {value: mergedScopes(
      ["openid"], wanted).scopes.join(" "), ...describedBy}), ...asked);
  } else if (scopes.length) {
    parts.push(el("fieldset", {class: "scopes", ...describedBy}, [el("legend", {}, ["Scopes"])]
      .concat(scopes.map(([scope, text], index) => {
        const box = el("input", {type: "checkbox", id: "api-signin-scope-" + index,
          name: "scope", value: scope});
        box.checked = wanted.includes(scope);
        return el("div", {}, [box, el("label", {for: box.id}, [scope + (text ? ": " + text :
          "") + (fromAnswer.includes(scope) ? " (asked for by this answer)" : "")])]);
      }), asked)));
  }
  return way.code ? parts.concat([el("p", {class: "hint"}, ["You sign in at the authorization " +
    "server, which sends you back to this page (its redirect URI: " + here() + ")."])]) : parts;
}

// Each second: the clocks count down, and a token about to expire is refreshed.
function signinTick() {
  for (const clock of document.querySelectorAll("#api-signin .clock")) {
    clock.textContent = clockText(Number(clock.dataset.expires) - Date.now());
  }
  refreshDue();
  const expired = credentials().filter((one) => one.expires && one.expires <= Date.now() &&
    !state.expiredSaid.has(one.value));
  for (const one of expired) state.expiredSaid.add(one.value);
  if (expired.length) {
    signedInAnew();
    signinNote(standing(credentials()), true, false);
  }
}

// Say something in the panel (an error in its colour) and to screen readers, without building
// it again (what is typed in it stays); focus it where the user's action led there.
function signinNote(text, error, focus) {
  const status = document.getElementById("api-signin-status");
  if (status) {
    status.textContent = text;
    status.className = error ? "hint error" : "hint";
    status.closest("details").open = state.signinOpen = true;
    if (focus) status.focus();
  }
  announce(text);
}

// The credentials' list anew (after a refresh), focus kept in the panel if it was in the list.
function signedInAnew() {
  const old = document.getElementById("api-signin-list"), list = credentials();
  const focused = old?.contains(document.activeElement), section = old?.closest("#api-signin");
  old?.replaceWith(signedInList());
  if (!section) return;
  section.querySelector("summary").textContent = signinHeading(list);
  section.classList.toggle("active", liveCredentials(list).length > 0);
  const fold = section.querySelector(".signin-again"), form = section.querySelector(".signin-form");
  if (fold && !liveCredentials(list).length) {  // nothing to fold the form under any more
    fold.remove();
    if (form) form.hidden = false;
  }
  if (focused) document.getElementById("api-signin-status")?.focus();
}

// This page again with the credentials as they now are, the panel open: focus on its status,
// which is said before the answer's.
async function reshow(said, error) {
  state.signinOpen = true;
  state.signinSaid = {text: said, error};
  try {
    await navigate(window.location.href, false, "#api-signin-status");
  } finally {
    document.documentElement.classList.remove("refetch");
  }
  announce(said + " " + (document.getElementById("api-live")?.textContent || ""));
}

// The credentials: from the form, or from a token endpoint.

// Sign in the way chosen: a credential kept (from the fields, or a token endpoint's answer) and
// this page again with it; or off to an authorization server. What stops it is said in the form.
async function signinSubmit(event, way, problem) {
  event.preventDefault();
  try {
    const credential = await wayCredential(way, event.target.elements);
    if (!credential) return;  // gone to the authorization server
    addCredential(credential);
    await reshow("Signed in with " + way.name + (credential.who ? " as " + credential.who :
      "") + ".");
  } catch (error) {
    problem.textContent = error.message[0].toUpperCase() + error.message.slice(1);
  }
}

// The credential a way's fields make; null where the way goes to an authorization server.
async function wayCredential(way, fields) {
  const base = {scheme: way.name, words: way.words, who: ""};
  rememberForm(way);
  const http = way.key === "http" && String(way.scheme.scheme).toLowerCase();
  if (http === "basic") {
    return {...base, place: "header", name: "Authorization", who: fields.username.value,
      value: basicCredential(fields.username.value, fields.password.value)};
  }
  if (http === "bearer") return bearerCredential(base, fields.token.value.trim());
  if (way.key === "apiKey") return keyCredential(base, way.scheme, fields.key.value);
  const client = fields.client_id.value.trim(), scope = mergedScopes(Array.from(fields).filter(
    (input) => input.name === "scope" && (input.type !== "checkbox" || input.checked)).flatMap(
    (input) => input.value.split(" ")), []).scopes.join(" ");  // each once
  rememberForm(way, client);
  if (way.key === "clientCredentials") {
    return tokenCredential({...base, who: client, refresh: null}, await tokenRequest(
      way.flow.tokenUrl, {grant_type: "client_credentials", scope}, basicCredential(
        formEncoded(client), formEncoded(fields.client_secret.value))));
  }
  await authorize(way, client, scope);
  return null;
}

// An HTTP Basic credential: "Basic " and the base64 of "user-id:password" in UTF-8 (RFC 7617),
// which a user-id with a colon, or control characters, cannot be.
function basicCredential(user, password) {
  if (user.includes(":")) {
    throw new Error("A username with a colon cannot be sent with HTTP Basic.");
  }
  if (/[\u0000-\u001f\u007f]/.test(user + password)) {
    throw new Error("A username or password with control characters cannot be sent.");
  }
  return "Basic " + btoa(Array.from(new TextEncoder().encode(user + ":" + password), (byte) =>
    String.fromCharCode(byte)).join(""));
}

// A value as a form writes it: a client's ID and secret, before Basic (RFC 6749, 2.3.1).
function formEncoded(value) {
  return new URLSearchParams({v: value}).toString().slice(2);
}

// A bearer token as typed in: whom it is for and when it expires, where it is a JWT.
function bearerCredential(base, token) {
  const value = "Bearer " + token, claims = jwtClaims(token);
  if (!token || headerProblem("Authorization", value)) {
    throw new Error("A token is Latin-1 text without control characters: paste it as given.");
  }
  const expires = expiresAt(claims);
  if (expires && expires <= Date.now()) {  // a sign-in that would never be one
    throw new Error("This token has expired (its exp: " + new Date(expires).toISOString()
      .slice(0, 19).replace("T", " ") + " UTC): paste a fresh one.");
  }
  return {...base, place: "header", name: "Authorization", value, who: whoOf(claims),
    obtained: typeof claims?.iat === "number" ? claims.iat * 1000 : Date.now(), expires};
}

// An API key where its scheme says: a header, a query parameter, or a cookie, which the browser
// then keeps and sends itself (a page cannot send a Cookie header).
function keyCredential(base, scheme, value) {
  const problem = !value ? "Type the key first." : scheme.in === "header" ?
    headerProblem(scheme.name, value) : scheme.in === "cookie" && !COOKIE_VALUE.test(value) ?
      "A cookie cannot hold this key: no spaces, quotes, commas, semicolons or \\." : "";
  if (problem) throw new Error(problem);
  if (scheme.in === "cookie") {
    document.cookie = scheme.name + "=" + value + "; Path=/; SameSite=Strict" +
      (window.location.protocol === "https:" ? "; Secure" : "");
  }
  return {...base, place: scheme.in, name: scheme.name, value};
}

// A credential from a token endpoint's answer: the access token as a bearer token, when it
// expires (expires_in, else its exp), whom it is for (an ID token's claims, else its own, else
// the client), and the refresh token (the last one kept where a refresh gives none: RFC 6749, 6).
function tokenCredential(base, tokens) {
  const claims = jwtClaims(tokens.id_token) || jwtClaims(tokens.access_token);
  const now = Date.now(), lifetime = Number(tokens.expires_in), value = "Bearer " +
    tokens.access_token, token = typeof tokens.refresh_token === "string" ?
    tokens.refresh_token : base.refresh?.token;
  if (headerProblem("Authorization", value)) {
    throw new Error("the token endpoint's access token cannot be sent in a header.");
  }
  return {...base, place: "header", name: "Authorization", value, obtained: now,
    expires: lifetime > 0 ? now + lifetime * 1000 : expiresAt(claims), who: whoOf(claims) ||
    base.who, refresh: base.refresh && token ? {...base.refresh, token} : null,
    grant: base.grant || (base.refresh && token ? randomToken() : "")};
}

// A URL this page may send a secret to (a token endpoint, a discovery document): http(s), on
// this page's origin or one the API's document names (the block's origins); else null.
function allowedEndpoint(url, page, origins) {
  if (typeof url !== "string") return null;  // not "undefined", a path of this page's
  let endpoint;
  try { endpoint = new URL(url, page); } catch { return null; }
  return /^https?:$/.test(endpoint.protocol) && !endpoint.username && !endpoint.password &&
    (endpoint.origin === new URL(page).origin || origins.includes(endpoint.origin)) ?
    endpoint : null;
}

// POST a token request (form fields; a client's secret as Basic) to a token endpoint this page
// may send secrets to: the tokens it answers, or an error saying why not (error.refused: the
// server's own OAuth error, such as invalid_grant).
async function tokenRequest(url, fields, secret) {
  const endpoint = allowedEndpoint(url, window.location.href, authBlock()?.origins || []);
  if (!endpoint) {
    throw new Error("the token endpoint " + url + " is on an origin that this API's document " +
      "does not name, so nothing was sent there.");
  }
  const headers = secret ? {"Accept": "application/json", "Authorization": secret} :
    {"Accept": "application/json"};
  let response, answer;
  try {
    response = await fetch(endpoint.href, {method: "POST", headers, body: new URLSearchParams(
      Object.entries(fields).filter((field) => field[1])), credentials: "omit", cache:
      "no-store", redirect: "error", referrerPolicy: "no-referrer"});
  } catch (error) {
    throw new Error(await unreachable(endpoint) ? "the token endpoint " + endpoint.origin +
      " could not be reached (" + error.message + ")." : "the token endpoint " +
      endpoint.origin + " does not let this page read its answers: it refuses this page's " +
      "origin (CORS). Its server must allow " + window.location.origin + " (the header " +
      "Access-Control-Allow-Origin: " + window.location.origin + ", and Authorization among " +
      "Access-Control-Allow-Headers).", {cause: error});
  }
  try { answer = await response.json(); } catch { answer = {}; }
  if (!response.ok || typeof answer?.error === "string") {
    const said = typeof answer?.error === "string" ? " " + answer.error + (typeof
      answer.error_description === "string" ? " (" + answer.error_description + ")" : "") : "";
    throw Object.assign(new Error("the token endpoint answered " + response.status + said +
      "."), {refused: true});
  }
  if (typeof answer.access_token !== "string" || !/^bearer$/i.test(answer.token_type)) {
    throw new Error("the token endpoint gave no bearer token, the only kind this page sends.");
  }
  return answer;
}

// Whether an endpoint whose answer this page could not read is unreachable (true), or answers
// but not to this page's origin (CORS): a request that does not read the answer, and so needs no
// CORS (no-cors), says which. It carries nothing: no body, no credential, no cookie.
async function unreachable(endpoint) {
  try {
    await fetch(endpoint.href, {mode: "no-cors", credentials: "omit", cache: "no-store",
      referrerPolicy: "no-referrer"});
    return false;
  } catch {
    return true;
  }
}

// An OpenID Connect provider's metadata, read from the scheme's discovery URL as a sign-in needs
// it: its issuer the one the URL names (OpenID Connect Discovery 1.0, 4.3).
async function discover(scheme) {
  const url = allowedEndpoint(scheme.openIdConnectUrl, window.location.href,
    authBlock()?.origins || []);
  if (!url) throw new Error("The API's document names no discovery URL that this page may read.");
  let metadata;
  try {
    metadata = await (await fetch(url.href, {headers: {"Accept": "application/json"},
      credentials: "omit", redirect: "error", referrerPolicy: "no-referrer"})).json();
  } catch (error) {
    throw new Error("The provider's discovery document could not be read (" + error.message +
      ").", {cause: error});
  }
  const issuer = url.href.replace(/\/\.well-known\/openid-configuration$/, "");
  if (typeof metadata !== "object" || !metadata || issuer !== url.href && metadata.issuer !==
    issuer) throw new Error("The discovery document at " + url.href + " is not " + issuer + "'s.");
  return metadata;
}

// The token endpoint and refresh URL of a scheme's flow: the document's, or for OpenID Connect,
// its provider's.
async function tokenURLs(name, key) {
  const scheme = authBlock()?.schemes.get(name);
  if (scheme?.type === "openIdConnect") {
    const metadata = await discover(scheme), scopes = metadata.scopes_supported;
    return {token: metadata.token_endpoint, refresh: metadata.token_endpoint, offline:
      Array.isArray(scopes) && scopes.includes("offline_access")};
  }
  const flow = scheme?.flows && Object.hasOwn(scheme.flows, key) ? scheme.flows[key] : null;
  if (!flow?.tokenUrl) throw new Error("the API's document names its token URL no more.");
  return {token: flow.tokenUrl, refresh: flow.refreshUrl || flow.tokenUrl};
}

// Random bytes as base64url text: a state, a nonce, a PKCE verifier (RFC 7636, 4.1: 43
// characters, from 32 bytes).
function randomToken() {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

// Bytes as base64url text without padding (RFC 4648, 5).
function base64url(bytes) {
  return btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(""))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// PKCE's S256 challenge of a verifier: base64url(SHA-256(verifier)) (RFC 7636, 4.2).
async function pkceChallenge(verifier) {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256",
    new TextEncoder().encode(verifier))));
}

// An authorization request's URL: the endpoint's, with the request's parameters (those given).
function authorizationURL(endpoint, params) {
  const url = new URL(endpoint);
  if (!/^https?:$/.test(url.protocol)) throw new Error("The authorization URL is not http(s).");
  for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value);
  return url.href;
}

// Off to the authorization server (the authorization code flow with PKCE S256 and a new state;
// a nonce for OpenID Connect), once this tab keeps what its answer is checked against.
async function authorize(way, client, scope) {
  if (!window.crypto?.subtle) {
    throw new Error("Signing in with OAuth needs this page on https (or localhost): PKCE needs " +
      "the browser's crypto.subtle, which it gives secure pages only.");
  }
  const metadata = way.flow ? null : await discover(way.scheme);
  if (!(metadata?.code_challenge_methods_supported || ["S256"]).includes("S256")) {
    throw new Error("The provider does not take PKCE's S256, which this page needs.");
  }
  const offline = Boolean(metadata) && scope.split(" ").includes("offline_access");
  const verifier = randomToken(), pending = {state: randomToken(), verifier, client,
    nonce: metadata ? randomToken() : "", scheme: way.name, key: way.key, words: way.words, scope,
    issuer: metadata ? String(metadata.issuer) : "", redirect: here(),
    back: withoutKeys(window.location.href)};
  const url = authorizationURL(metadata ? metadata.authorization_endpoint :
    way.flow.authorizationUrl, {response_type: "code", client_id: client, scope,
    redirect_uri: pending.redirect, state: pending.state, code_challenge: await
    pkceChallenge(verifier), code_challenge_method: "S256", nonce: pending.nonce,
    prompt: offline ? "consent" : ""});  // OpenID Connect Core 1.0, 11: offline access asks
  store(PENDING_KEY, JSON.stringify(pending));
  window.location.assign(url);
}

// The authorization server's answer, back on this page.

// An authorization server's answer in a URL's query: {code, state, error...} as given; null where
// the query holds none (a state, and a code or an error).
function authorizationAnswer(search) {
  const params = new URLSearchParams(search);
  if (!params.has("state") || !params.has("code") && !params.has("error")) return null;
  return Object.fromEntries(ANSWER_PARAMS.filter((name) => params.has(name)).map((name) =>
    [name, params.get(name)]));
}

// A URL without an authorization answer's parameters.
function withoutAnswer(href) {
  const url = new URL(href);
  for (const name of ANSWER_PARAMS) url.searchParams.delete(name);
  return url.href;
}

// Why an answer is refused ("" where it is not): checked against the sign-in this tab keeps
// waiting (null for none) and the page (here()) it came back to.
function answerProblem(answer, pending, page) {
  const again = " Nothing was sent; sign in again.";
  if (!pending) {
    return "Refused an authorization answer: this tab has no sign-in waiting for one (its " +
      "code was used already, or it was cancelled, signed out of or started elsewhere)." + again;
  }
  if (answer.state !== pending.state) {
    return "Refused an authorization answer whose state is not the one this tab sent: it may " +
      "be forged." + again;
  }
  if (page !== pending.redirect) {
    return "Refused an authorization answer that came to another page than the one that asked " +
      "for it." + again;
  }
  if (pending.issuer && answer.iss !== undefined && answer.iss !== pending.issuer) {
    return "Refused an authorization answer from " + answer.iss + ", not the issuer asked (" +
      pending.issuer + ")." + again;
  }
  return answer.error || !answer.code ? "The authorization server did not sign you in: " +
    (answer.error || "no code") + (answer.error_description ? " (" + answer.error_description +
    ")" : "") + "." : "";
}

// As the page loads: an authorization server's answer in its URL, {answer, pending, problem,
// ours}, or null for none. Where this tab waits for one, the answer leaves the URL (and so the
// history) at once, and the sign-in waiting is taken: its code is traded once, or never.
function landedAnswer() {
  const answer = authorizationAnswer(window.location.search), pending = waitingSignin();
  if (!answer) return null;
  if (pending) {
    sessionStorage.removeItem(PENDING_KEY);
    history.replaceState(history.state, "", withoutAnswer(window.location.href));
  }
  return {answer, pending, problem: answerProblem(answer, pending, here()), ours: Boolean(
    pending && answer.state === pending.state && pending.redirect === here())};
}

// Once the page is parsed, the answer start() found: ours, traded for tokens (true: this page is
// shown again); else refused, said, and out of the URL (false). Such a query on a page whose
// API offers no such sign-in is the app's own, and left alone.
function signinLanded(landing) {
  const block = authBlock();
  if (!landing.pending && !(block && signinWays(block).some((way) => way.code))) return false;
  if (landing.ours) {
    tradeCode(landing);
    return true;
  }
  history.replaceState(history.state, "", withoutAnswer(window.location.href));
  signinNote(landing.problem, true, true);
  return false;
}

// Trade an answer's code for tokens, once, at the token endpoint of the sign-in that asked; then
// this page as it was before leaving, with them. What went wrong is said there.
async function tradeCode({answer, pending, problem}) {
  let said = problem;
  if (!said) {
    try {
      const urls = await tokenURLs(pending.scheme, pending.key), tokens = await tokenRequest(
        urls.token, {grant_type: "authorization_code", code: answer.code, client_id:
        pending.client, redirect_uri: pending.redirect, code_verifier: pending.verifier});
      if (pending.nonce && tokens.id_token && jwtClaims(tokens.id_token)?.nonce !==
        pending.nonce) throw new Error("its ID token is for another sign-in (its nonce).");
      const credential = tokenCredential({scheme: pending.scheme, words: pending.words, who:
        pending.client, refresh: {url: urls.refresh, client: pending.client}}, tokens);
      addCredential(credential);
      said = "Signed in with " + pending.scheme + " as " + credential.who + "." + (urls.offline &&
        !credential.refresh ? " No refresh token came with it, so this sign-in ends when its " +
        "token expires: " + (String(pending.scope).split(" ").includes("offline_access") ?
        "the provider gave none for offline_access either." : "this provider gives one for " +
        "the scope offline_access, which you may add to the scopes.") : "");
    } catch (error) {
      said = "Not signed in: " + error.message;
    }
  }
  const back = new URL(pending.back, window.location.href);
  history.replaceState({fromSignin: true}, "", back.origin === window.location.origin ?
    back.href : here());
  await reshow(said, !credentials().some((one) => one.scheme === pending.scheme));
}

// Refresh the credential whose token is about to expire (a refresh token given), one refresh at
// a time: two would spend one rotating refresh token twice. Before a request, and each second.
function refreshDue() {
  const due = credentials().find((one) => one.refresh && one.expires && one.expires -
    Date.now() < Math.min(30000, (one.expires - one.obtained) / 4) &&
    one.value !== state.unrefreshed);
  if (due && !state.refreshing) {
    state.refreshing = refresh(due).finally(() => { state.refreshing = null; });
  }
  return state.refreshing || Promise.resolve();
}

// "Refresh now": refresh a credential's token as it is kept now; focus on how it went.
async function refreshNow(credential) {
  const kept = credentials().find((one) => one.scheme === credential.scheme && one.refresh);
  state.unrefreshed = "";
  if (kept && await (state.refreshing || refresh(kept))) signinNote("Refreshed.", false, true);
  else document.getElementById("api-signin-status")?.focus();  // why not, said by refresh()
}

// Refresh a credential (true: its tokens are fresh), one tab of its sign-in at a time.
function refresh(credential) {
  return credential.grant && navigator.locks ? sharedRefresh(credential) :
    refreshHere(credential);
}

// Trade a credential's refresh token for new tokens and the refresh token that comes with them
// (true), and hand them to the other tabs of its sign-in; refused, that sign-in ends (here and
// there). Unreachable, it stays till it expires.
async function refreshHere(credential) {
  const {url, client, token} = credential.refresh;
  let tokens;
  try {
    tokens = await tokenRequest(url, {grant_type: "refresh_token", refresh_token: token,
      client_id: client});
  } catch (error) {
    const said = error.refused ? "Signed out of " + credential.scheme + ": " + error.message +
      (await othersHold(credential.grant) ? " Another tab of this page is signed in with it " +
      "too, and may have used its refresh token, which is used once." : "") + " Sign in again." :
      "Not refreshed: " + error.message;
    if (error.refused) {
      keepCredentials(credentials().filter((one) => one.value !== credential.value));
      state.channel?.postMessage({grant: credential.grant, refused: said});
      signedInAnew();
    } else state.unrefreshed = credential.value;  // not each second, nor each request
    signinNote(said, true, false);
    return false;
  }
  const list = credentials(), at = list.findIndex((one) => one.value === credential.value);
  if (at >= 0) {
    list[at] = tokenCredential({...credential, refreshed: (credential.refreshed || 0) + 1}, tokens);
    try {
      await keepCredentials(list);  // its lock held before the refresh's is let go
    } catch (error) {
      signinNote("Refreshed, but " + error.message, true, false);
      return false;
    }
    if (list[at].grant) state.channel?.postMessage({grant: list[at].grant, credential: list[at]});
  }
  signedInAnew();
  return at >= 0;
}

// Tabs that share a sign-in. A tab opened from this one starts with a copy of its sign-in, the
// same refresh token in it, and a provider that rotates refresh tokens takes each once: one
// presented again may revoke the whole sign-in (RFC 9700, 4.14.2). So the tabs of a sign-in (its
// `grant`, made as it begins) refresh it one at a time, under a Web Lock; the one that refreshed
// hands the new tokens to the others (BroadcastChannel: this origin's tabs only); and each holds
// a shared lock named for the refresh it is at, which tells a tab that missed the news (it was
// loading) that its refresh token is spent, and to ask for the newer one.

// Refresh a credential's sign-in under its lock: where another tab refreshed it meanwhile, its
// tokens (handed over, or asked for) serve; else this tab refreshes it.
function sharedRefresh(credential) {
  return navigator.locks.request(REFRESH_LOCK + credential.grant, async () => {
    let kept = ownGrant(credential.grant);
    const newest = await newestRefresh(credential.grant);
    if (kept && newest > (kept.refreshed || 0)) kept = await handedOver(kept, newest);
    if (!kept) return false;
    return kept.refresh?.token !== credential.refresh.token || refreshHere(kept);
  });
}

// This tab's credential of a sign-in (its grant), if it still has it.
function ownGrant(grant) {
  return credentials().find((one) => one.grant === grant) || null;
}

// The newest refresh any tab of this origin is at for a sign-in, from the locks they hold.
async function newestRefresh(grant) {
  const held = (await navigator.locks.query()).held || [];
  return Math.max(0, ...held.filter((lock) => lock.name.startsWith(GRANT_LOCK + grant + " "))
    .map((lock) => Number(lock.name.split(" ").pop()) || 0));
}

// Whether another tab holds this sign-in too (its lock, besides this tab's).
async function othersHold(grant) {
  if (!grant || !navigator.locks) return false;
  const held = (await navigator.locks.query()).held || [];
  return held.filter((lock) => lock.name.startsWith(GRANT_LOCK + grant + " ")).length > 1;
}

// This tab's credential once another tab has handed over its newer tokens (asked for now);
// null where none does in time, and this tab does not refresh it: its refresh token is spent.
function handedOver(kept, newest) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      state.handovers.delete(kept.grant);
      state.unrefreshed = kept.value;
      signinNote("Not refreshed: another tab of this page refreshed this sign-in and has not " +
        "handed its tokens over. Refresh now tries again.", true, false);
      resolve(null);
    }, HANDOVER_MS);
    state.handovers.set(kept.grant, () => {
      const fresh = ownGrant(kept.grant);
      if (fresh && (fresh.refreshed || 0) < newest) return;
      clearTimeout(timer);
      state.handovers.delete(kept.grant);
      resolve(fresh);
    });
    state.channel?.postMessage({grant: kept.grant, ask: kept.refreshed || 0});
  });
}

// Hold the lock of each sign-in this tab has at the refresh it is at (and no other): resolved
// once they are held.
function holdGrants() {
  if (!navigator.locks) return Promise.resolve();
  const names = new Set(credentials().filter((one) => one.grant).map((one) => GRANT_LOCK +
    one.grant + " " + (one.refreshed || 0)));
  for (const [name, lock] of state.held) {
    if (!names.has(name)) {
      lock.release();
      state.held.delete(name);
    }
  }
  return Promise.all(Array.from(names, (name) => {
    if (!state.held.has(name)) {
      let release, granted;
      const kept = new Promise((resolve) => { release = resolve; });
      const held = new Promise((resolve) => { granted = resolve; });
      navigator.locks.request(name, {mode: "shared"}, () => { granted(); return kept; });
      state.held.set(name, {release, held});
    }
    return state.held.get(name).held;
  }));
}

// News of a sign-in from another tab of this origin: its newer tokens, kept; its refusal, a
// sign-out here too; a tab asking for the newest, answered where this one has newer.
function grantNews(event) {
  const news = event.data, list = credentials();
  const at = typeof news?.grant === "string" ? list.findIndex((one) => one.grant && one.grant ===
    news.grant) : -1, mine = list[at];
  if (!mine) return;
  if (typeof news.ask === "number" && (mine.refreshed || 0) > news.ask) {
    state.channel.postMessage({grant: mine.grant, credential: mine});
  } else if (typeof news.refused === "string") {
    keepCredentials(list.filter((one) => one !== mine));
    signedInAnew();
    signinNote(news.refused.replace(/^Signed out of \S+: /, "Signed out of " + mine.scheme +
      " in another tab: "), true, false);
  } else if (news.credential && typeof news.credential.value === "string" &&
    (news.credential.refreshed || 0) > (mine.refreshed || 0)) {
    const {value, obtained, expires, who, refreshed} = news.credential, fresh = news.credential;
    list[at] = {...mine, value, obtained, expires, who, refreshed, refresh: fresh.refresh};
    try {
      keepCredentials(list);
    } catch (error) {
      signinNote("Another tab refreshed this sign-in, but " + error.message, true, false);
      return;
    }
    signedInAnew();
    state.handovers.get(mine.grant)?.();
  }
}

// As the page loads: listen to the other tabs of this origin, hold this tab's sign-ins' locks,
// and ask for any newer tokens of them (those handed over while this page was not here to hear:
// loading, on another site, or in the browser's back-forward cache).
function shareSignins() {
  if (!window.BroadcastChannel) return;
  state.channel = new window.BroadcastChannel(CHANNEL_NAME);
  state.channel.addEventListener("message", grantNews);
  holdGrants();
  askNewest();
  window.addEventListener("pageshow", (event) => { if (event.persisted) askNewest(); });
}

// Ask the other tabs for newer tokens of each sign-in this tab has.
function askNewest() {
  for (const one of credentials().filter((kept) => kept.grant)) {
    state.channel.postMessage({grant: one.grant, ask: one.refreshed || 0});
  }
}

// Sign out of a credential: forgotten (its cookie too), and no sign-in left waiting for an
// answer; then this page again without it.
function signOut(credential) {
  keepCredentials(credentials().filter((one) => one.scheme !== credential.scheme));
  sessionStorage.removeItem(PENDING_KEY);
  reshow("Signed out of " + credential.scheme + ".");
}

// A message from another window is never a way in: an authorization answer or a token posted to
// this page (as some servers' pop-ups do) is refused, and the panel says so.
function refuseMessage(event) {
  const data = event.data, keys = ["code", "state", "access_token", "id_token", "token"];
  if (!(data && typeof data === "object" ? keys.some((key) => key in data) :
    /\b(?:code|state|access_token|id_token)=/.test(String(data)))) return;
  signinNote("Refused a sign-in answer posted from another window (" + (event.origin ||
    "of no origin") + "): this page takes an authorization server's answer only in its own " +
    "address, in the tab that asked for it.", true, false);
}
