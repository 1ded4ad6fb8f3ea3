// ---- Copy as curl: the command for the response shown, and for each form's request ----

const JSON_WANTED = {"Accept": "application/json"};  // what curl asks for: the API's JSON

// A word for a POSIX shell: in single quotes, each ' written as '\''.
function shellQuote(text) {
  return "'" + String(text).split("'").join("'\\''") + "'";
}

// The curl command for a request: method, URL, headers, then the body as its type says.
function curlCommand(method, url, headers, body, type) {
  const words = method === "GET" ? ["curl"] : ["curl", "-X", method];
  const all = type && type !== "multipart/form-data" ? {...headers, "Content-Type": type} : headers;
  words.push(shellQuote(url));
  for (const [name, value] of Object.entries(all)) {
    words.push("-H", shellQuote(name + ": " + value));
  }
  if (body instanceof FormData) {
    // --form-string: with -F, curl would read a local file for a value starting "@" or "<"
    for (const [key, value] of body) {
      words.push(...typeof value === "string" ? ["--form-string", shellQuote(key + "=" + value)] :
        ["-F", shellQuote(key + "=@" + value.name)]);  // a file: the user's copy of it
    }
  } else if (body) words.push("--data-binary", shellQuote(body));
  return words.join(" ");
}

// A "Copy as curl" button: writes the command to the clipboard and shows it, selectable.
function curlButton(label, command, place) {
  const button = el("button", {type: "button", class: "copy", onclick: () => {
    const text = command();
    if (text === null) return;
    let shown = place.nextElementSibling;
    if (!shown || !shown.classList.contains("curl")) {
      shown = el("pre", {class: "curl", tabindex: "0", "aria-label": "curl command"});
      place.after(shown);
    }
    shown.textContent = text;
    copied(button, navigator.clipboard.writeText(text).catch((error) => {
      window.getSelection().selectAllChildren(shown);  // the user copies it from there
      throw error;
    }));
  }}, [label]);
  return button;
}

// One button for the response shown, and one per method of the request form.
function curlButtons() {
  const section = document.getElementById("api-curl");
  if (section) {
    section.replaceChildren(curlButton("Copy as curl", responseCurl, section));
    section.hidden = false;
  }
  const bar = document.querySelector("form[data-api] fieldset > .bar");
  if (!bar) return;
  const form = bar.closest("form"), methods = bar.querySelectorAll("button[name=_method]");
  for (const button of methods) {
    const label = methods.length > 1 ? "Copy " + button.value + " as curl" : "Copy as curl";
    bar.append(curlButton(label, () => {
      const request = formRequest(form, button.value);
      return request && curlCommand(button.value, window.location.href, panelHeaders(JSON_WANTED),
        request.body, request.type);
    }, bar));
  }
}

// The request behind the response shown: its method and URL, with the body the page sent; a
// stream's page asks for the stream.
function responseCurl() {
  const shown = Object.assign({method: "GET", url: window.location.href},
    document.querySelector("pre.response")?.dataset);
  const sent = state.sent && state.sent.method === shown.method ? state.sent : {};
  return curlCommand(shown.method, new URL(shown.url, window.location.href).href,
    panelHeaders(shown.stream ? {"Accept": shown.stream} : JSON_WANTED), sent.body, sent.type);
}
