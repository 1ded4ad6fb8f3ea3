// ---- The form tab: fields from the body's model, sent back without loss ----

const MOST_FIELDS = 1000;  // fields the form tab offers at the most; past that, the raw box
// Keys that mark an object as one page of a list: {"count": 2, "next": ..., "results": [...]}.
const PAGE_KEYS = ["count", "next", "previous", "prev", "total", "page", "pages", "offset",
  "limit", "cursor", "per_page", "page_size", "total_pages"];

// The form tab's fields: an object's, or blank ones for what a list's items share; none for errors.
function formFields(model) {
  if (!model || document.querySelector("pre.response[data-error]")) return null;
  const items = model.type === "array" ? model.items : pageItems(model);
  if (items) return sharedFields(items);
  return model.type === "object" ? {entries: model.entries, blank: false} : null;
}

// The items of a paginated wrapper: its one list of objects, if it has a page's keys.
function pageItems(model) {
  if (model.type !== "object" ||
      !model.entries.some((member) => PAGE_KEYS.includes(member[0].toLowerCase()))) return null;
  const lists = model.entries.filter((member) => member[1].type === "array" &&
    member[1].items.length && member[1].items.every((item) => item.type === "object"));
  return lists.length === 1 ? lists[0][1].items : null;
}

// Blank fields for the keys every item has, typed after the first item's values.
function sharedFields(items) {
  if (!items.length || !items.every((item) => item.type === "object")) return null;
  const entries = items[0].entries.filter((member) => items.every((item) =>
    item.entries.some((other) => other[0] === member[0])));
  return {entries, blank: true};
}

// The "HTML form" and "Raw" tabs of the request form; the form is the default if it has fields.
// Where the form does not follow the documented schema, a hint at its head says why.
function formTabs(model) {
  const content = document.querySelector("form[data-api] textarea[name=_content]");
  if (!content) return;
  const shown = document.querySelector("pre.response[data-method=GET]:not([data-error])");
  const {form, why} = formFromSchema(shown ? model : undefined);
  const fields = form ? null : formFields(model), fieldset = content.closest("fieldset");
  const hint = why ? [el("p", {class: "hint", id: "api-form-why"}, [why])] : [];
  if (!form && (!fields || !fields.entries.length || fields.entries.length > MOST_FIELDS)) {
    fieldset.querySelector("legend").after(...hint);
    return;
  }
  const raw = el("div", {id: "api-raw", role: "tabpanel", "aria-label": "Raw"},
    Array.from(fieldset.children).filter((node) => node.tagName !== "LEGEND" &&
      !node.classList.contains("bar")));
  const panel = el("div", {id: "api-fields", role: "tabpanel", "aria-label": "HTML form"},
    hint.concat(form ? [form] : fields.entries.map((member, index) => formField(member[0],
      member[1], index, fields.blank))));
  const tabs = el("div", {class: "tabs", role: "tablist", "aria-label": "Edit as",
    onkeydown: (event) => tabKey(tabs, event), onclick: (event) => {
      const tab = event.target.closest("[role=tab]");
      if (tab) selectTab(tabs, tab.getAttribute("aria-controls"));
    }}, [el("button", {type: "button", role: "tab", "aria-controls": "api-fields"}, ["HTML form"]),
    el("button", {type: "button", role: "tab", "aria-controls": "api-raw"}, ["Raw"])]);
  fieldset.querySelector("legend").after(tabs, panel, raw);
  selectTab(tabs, "api-fields");
}

// Show one tab's panel, hide the other's; the selected tab is the tablist's one tab stop.
function selectTab(tabs, id) {
  for (const tab of tabs.children) {
    const selected = tab.getAttribute("aria-controls") === id;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    const panel = document.getElementById(tab.getAttribute("aria-controls"));
    panel.hidden = !selected;
    // a hidden schema form's fields are not checked: its required ones would stop the Raw tab
    for (const root of panel.querySelectorAll("[data-root]")) root.disabled = !selected;
  }
}

// Arrow keys, Home and End move to another tab and select it (the ARIA tabs pattern).
function tabKey(tabs, event) {
  const list = Array.from(tabs.children), at = list.indexOf(event.target);
  const to = {ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: list.length - 1}[event.key];
  if (at < 0 || to === undefined) return;
  event.preventDefault();
  const tab = list[(to + list.length) % list.length];
  selectTab(tabs, tab.getAttribute("aria-controls"));
  tab.focus();
}

// A labelled input for a value (a box of JSON for an object or array), and a "null" box.
function formField(key, node, index, blank) {
  const id = "api-field-" + index;
  const kind = node.type === "object" || node.type === "array" ? "json" : node.type;
  let input;
  if (kind === "json") {
    input = el("textarea", {id, class: "json", rows: "3"});
    input.value = blank ? "" : writeJSON(node, "  ");
  } else if (kind === "boolean") {
    input = el("input", {id, type: "checkbox"});
    input.checked = !blank && node.text === "true";
  } else if (kind === "string" && !blank && node.value.includes("\n")) {
    input = el("textarea", {id, rows: "3"});  // an input would drop its line breaks
    input.value = node.value;
  } else {
    input = el("input", {id, type: "text"});
    if (kind === "number") input.setAttribute("inputmode", "decimal");
    input.value = blank || kind === "null" ? "" : kind === "number" ? node.text : node.value;
  }
  input.dataset.key = key;
  input.dataset.kind = kind;
  if (blank) input.dataset.blank = "";
  const parts = [el("label", {for: id}, [key]), input];
  if (kind !== "boolean") parts.push(nullBox(input, kind === "null" && !blank));
  return el("div", {class: "field " + kind}, parts);
}

// A "null" checkbox for a field: while it is checked, the field is sent as null.
function nullBox(input, checked) {
  const box = el("input", {type: "checkbox", class: "null", "aria-label": input.dataset.key +
    " is null", onchange: () => { input.disabled = box.checked; }});
  box.checked = input.disabled = checked;
  return el("label", {class: "null"}, [box, "null"]);
}

// The request the form would send for a method: {body, type}, or null after reporting a bad field.
function formRequest(form, method) {
  const fields = document.getElementById("api-fields");
  if (!fields || fields.hidden) {
    return rawRequest(form.elements._content.value, form.elements._content_type.value);
  }
  const root = fields.querySelector("[data-root]");
  if (root) return schemaRequest(root, method === "PATCH" && root.dataset.method !== "PATCH");
  const members = [];
  for (const input of fields.querySelectorAll("[data-key]")) {
    let value;
    try {
      value = fieldJSON(input.dataset.kind, input.value, input.checked, input.disabled,
        input.hasAttribute("data-blank"));
    } catch (error) {
      refuse(input, "Not JSON: " + error.message);
      return null;
    }
    if (value !== undefined) members.push(JSON.stringify(input.dataset.key) + ": " + value);
  }
  return {body: "{" + members.join(", ") + "}", type: "application/json"};
}

// The raw box's request: its text as it is, or as multipart fields where that type is chosen.
function rawRequest(text, type) {
  if (type !== "multipart/form-data") return {body: text, type};
  const body = new FormData();
  for (const [key, value] of new URLSearchParams(text)) body.append(key, value);
  return {body, type};
}

// A field's value as JSON text (undefined: a blank left out); a value not of its kind throws.
function fieldJSON(kind, text, checked, isNull, blank) {
  if (kind === "boolean") return String(checked);
  if (isNull) return "null";  // its "null" box is checked
  if (text === "" && blank) return undefined;
  if (kind === "string" || kind === "null") return JSON.stringify(text);
  if (kind === "json") return writeJSON(parseJSON(text), "");
  if (new RegExp("^" + NUMBER.source + "$").test(text.trim())) return text.trim();
  throw new SyntaxError("a number such as 12 or 2.5 is expected");
}

// Say on a field why its value cannot be sent, until the user changes it.
function refuse(input, message) {
  input.setCustomValidity(message);
  input.reportValidity();
  input.addEventListener("input", () => input.setCustomValidity(""), {once: true});
}
