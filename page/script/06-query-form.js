// ---- The query form: this URL's parameters, to edit and send as a GET ----

// The query form: this URL's parameters as rows to edit, add and remove; sent as a GET.
function queryPanel() {
  const section = document.getElementById("api-query");
  if (!section) return;
  const params = Array.from(new URLSearchParams(window.location.search));
  const rows = el("div", {class: "rows"}, params.length ? params.map(([name, value]) =>
    queryRow(name, value)) : [queryRow("", "")]);
  const submit = function (event) {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const row of rows.children) {
      const [name, value] = row.querySelectorAll("input");
      if (name.value) query.append(name.value, value.value);
    }
    const url = new URL(window.location.href);  // this very page: never a "//host/" path
    url.search = String(query);
    if (storedCredentials()) navigate(url.href, true); else window.location.assign(url.href);
  };
  const details = el("details", {}, [
    el("summary", {}, ["Query parameters" + (params.length ? " (" + params.length + ")" : "")]),
    el("form", {"aria-label": "Query", onsubmit: submit}, [rows, el("div", {class: "bar"}, [
      el("button", {type: "button", onclick: () => rows.append(queryRow("", ""))},
        ["Add parameter"]), el("button", {}, ["Send GET"])])])]);
  details.open = params.length > 0;
  section.replaceChildren(details);
  section.hidden = false;
}

// One query parameter: name, value and a button that removes the row.
function queryRow(name, value) {
  const row = el("div", {class: "bar"}, [
    el("input", {"aria-label": "Parameter name", placeholder: "name", value: name}),
    el("input", {"aria-label": "Parameter value", placeholder: "value", value: value}),
    el("button", {type: "button", onclick: () => row.remove()}, ["Remove"])]);
  return row;
}
