// ---- The form from the schema: the body the app's OpenAPI document describes, as fields ----

// Whatever the schema, the form is built in bounded time and stack, or not at all: no spread of
// a schema's lists into a call's arguments, no recursion but along a depth that is counted.
const MOST_DEPTH = 32;  // objects and arrays nested deeper are boxes of JSON; so are groups
const MOST_CHOICES = 1000;  // an enum of more values is a line of text, checked against them
const MOST_PREFILLED = 100;  // a list shown with more items is a box of JSON, not fields

// The schema form for the described body, or why there is none ({form} or {why}): the server's
// sentence (a schema past its limits), or the page's (one past what a form can show).
function formFromSchema(model) {
  try {
    const found = bodySchema();
    return found && !found.why ? {form: schemaForm(found, model)} : {why: found?.why};
  } catch (error) {
    return {why: error.why || "This page could not make a form of the request body's schema (" +
      error.message + "), so this form is built from the data."};
  }
}

// The described body the form is built from: {method, content: its media types, schema,
// methods}; {why} where the server sent the reason it has none (its "fallback"); else null.
function bodySchema() {
  const block = document.getElementById("api-schemas");
  const all = block && parseJSON(block.textContent);
  const [method, found] = all?.type === "object" && all.entries[0] || [];  // POST's, else PUT's
  const body = keywords(found);
  if (body.fallback?.type === "string") return {why: body.fallback.value};
  if (!readSchema(keywords(body.schema)).k.properties?.entries?.length) return null;
  const content = (body.content?.type === "array" ? body.content.items : []).map((type) =>
    type.value).filter((type) => typeof type === "string");
  return {method, schema: body.schema, content, methods: all.entries.length};
}

// A schema node's keywords by name, each still a node: numbers and data stay whole.
function keywords(node) {
  return node && node.type === "object" ? Object.fromEntries(node.entries) : {};
}

// A schema's keywords, the kind of field it makes, whether it may be null, and for an anyOf or
// oneOf of several objects the keywords of each ("shapes": the field is a choice of them).
function schemaKind(node) {
  const {k, nullable, shapes} = readSchema(keywords(node));
  if (shapes) return {k, kind: "shapes", nullable, shapes};
  const [types] = typesOf(k);
  let kind = types.length > 1 ? "json" : types[0] || (k.properties ? "object" : "any");
  if (k.enum?.type === "array" || kind === "boolean") kind = "choice";
  else if (kind === "string" && k.format?.value === "binary") kind = "file";
  else if (kind === "object" && !k.properties?.entries?.length || kind === "array" && !k.items ||
    !["object", "array", "string", "integer", "number", "any"].includes(kind)) kind = "json";
  return {k, kind, nullable, shapes: null};
}

// A schema's keywords read through the wrappers libraries write around one schema: an allOf of
// it (apispec's 3.0 $ref, a description or readOnly beside it), an anyOf or oneOf of it and null
// (3.1's nullable; 3.0's, with {"type": "object", "nullable": true} as the null), the wrapper's
// own keywords winning. `schema`: its keywords (see keywords()). {k, nullable, shapes}: shapes,
// where an anyOf or oneOf has several objects, their keywords (read through too, `depth` levels
// down), else null.
function readSchema(schema, depth = 0) {
  let k = schema, nullable = false;
  for (let level = 0; level < MOST_DEPTH; level += 1) {
    const {allOf, anyOf, oneOf, ...own} = k, union = [anyOf, oneOf].find((list) =>
      list?.type === "array");
    const branches = union ? unionBranches(union.items.map(keywords)) : {kept: [], nullable: false};
    nullable = nullable || typesOf(k)[1] || branches.nullable;
    const inner = (allOf?.type === "array" ? allOf.items.map(keywords) : []).concat(
      branches.kept.length === 1 ? branches.kept : []);
    if (branches.kept.length > 1 && !inner.length) {
      const found = shapesOf(branches.kept, depth);
      return {k, nullable: nullable || found.nullable, shapes: found.shapes};
    }
    if (branches.kept.length > 1) own[union === anyOf ? "anyOf" : "oneOf"] = union;
    if (!inner.length) return {k: own, nullable, shapes: null};
    k = {...mergedKeywords(inner), ...own};
  }
  return {k, nullable, shapes: null};
}

// The non-null types a schema's keywords name, and whether they allow null (a type "null", or
// 3.0's nullable: true): [types, nullable].
function typesOf(k) {
  const named = (k.type?.type === "array" ? k.type.items : k.type ? [k.type] : []).filter(
    (type) => type.type === "string").map((type) => type.value);
  const types = named.filter((type) => type !== "null");
  return [types, types.length < named.length || k.nullable?.text === "true"];
}

const ONLY_NULL_KEYS = ["type", "nullable", "title", "description"];

// An anyOf's or oneOf's branches that are more than a way to say null ({"type": "null"}, or 3.0's
// {"type": "object", "nullable": true} beside an object), and whether one allows null.
function unionBranches(branches) {
  const onlyNull = (k) => typesOf(k)[1] && Object.keys(k).every((key) =>
    ONLY_NULL_KEYS.includes(key));
  const covered = new Set();
  for (const k of branches.filter((branch) => !onlyNull(branch))) {
    for (const type of typesOf(k)[0].concat(k.properties ? ["object"] : [])) covered.add(type);
  }
  return {kept: branches.filter((k) => !onlyNull(k) || typesOf(k)[0].some((type) =>
    !covered.has(type))), nullable: branches.some((k) => typesOf(k)[1])};
}

// Several schemas' keywords as one (an allOf's): properties and required joined, any other
// keyword the first one's.
function mergedKeywords(list) {
  if (list.length === 1) return list[0];
  const merged = new Map(), properties = [], required = [];
  for (const k of list) {
    for (const [key, value] of Object.entries(k)) if (!merged.has(key)) merged.set(key, value);
    for (const member of k.properties?.type === "object" ? k.properties.entries : []) {
      properties.push(member);  // one by one: concat() would copy them all for each schema
    }
    for (const name of k.required?.type === "array" ? k.required.items : []) required.push(name);
  }
  if (properties.length) merged.set("properties", {type: "object", entries: properties});
  if (required.length) merged.set("required", {type: "array", items: required});
  return Object.fromEntries(merged);
}

// The shapes of an anyOf or oneOf of several schemas: {shapes, nullable} where each is an object
// with fields (a choice of at most MOST_CHOICES), else {shapes: null} (a field of any JSON).
function shapesOf(branches, depth) {
  if (branches.length > MOST_CHOICES || depth >= MOST_DEPTH) return {shapes: null, nullable: false};
  const read = branches.map((k) => readSchema(k, depth + 1));
  return read.every(({k, shapes}) => !shapes && k.properties?.entries?.length &&
    typesOf(k)[0].every((type) => type === "object")) ? {shapes: read.map(({k}) => k),
      nullable: read.some((one) => one.nullable)} : {shapes: null, nullable: false};
}

// The form's top fieldset: the body's fields, marked with the method whose body it is. Past
// MOST_FIELDS fields it throws, saying why; once built, "Add an item" adds as many as asked.
function schemaForm(found, model) {
  const ids = {count: 0, most: MOST_FIELDS}, many = found.methods > 1 ||
    document.querySelectorAll("form[data-api] button[name=_method]").length > 1;
  const root = objectFieldset(many ? found.method + " body, as documented" : "Body, as documented",
    readSchema(keywords(found.schema)).k, model, {ids, depth: 0, blank: false});
  ids.most = Infinity;
  for (const type of ["input", "change", "click"]) {  // a click adds or removes an item
    root.addEventListener(type, () => requireWhereFilled(root));
  }
  requireWhereFilled(root);
  root.dataset.root = "";
  root.dataset.required = "";
  root.dataset.content = found.content.join("\n");
  root.dataset.method = found.method;
  if (found.method !== "PATCH") {  // a PATCH with another method's schema: only what is filled in
    for (const button of document.querySelectorAll("form[data-api] button[value=PATCH]")) {
      button.formNoValidate = true;
    }
  }
  if (!found.content.includes("multipart/form-data")) {
    for (const input of root.querySelectorAll("input[type=file]")) {
      input.disabled = true;
      input.closest(".field").append(el("p", {class: "hint"}, ["This operation takes no " +
        "multipart/form-data body, so no file can be sent from this form."]));
    }
  }
  return root;
}

// An object's fields in a fieldset, each prefilled from the value's member of its name.
function objectFieldset(legend, k, value, context) {
  const required = new Set(k.required?.type === "array" ? k.required.items.map((name) =>
    name.value) : []);
  const values = new Map(value && value.type === "object" ? value.entries : []);
  const fieldset = el("fieldset", {"data-kind": "object"}, [el("legend", {}, [legend])]);
  for (const [name, node] of k.properties.entries) {
    if (readSchema(keywords(node)).k.readOnly?.text === "true") continue;  // not sent
    fieldset.append(schemaField(name, node, required.has(name), values.get(name), context));
  }
  return fieldset;
}

// An array's items, each with a button to remove it, and a button to add one.
function arrayFieldset(name, k, value, context) {
  const items = el("div", {class: "items"}), add = el("button", {type: "button"},
    ["Add an item to " + name]);
  const added = {...context, blank: false};  // an item is there to be filled in
  let count = 0;
  // One more item, prefilled from a node (undefined: from the items' schema).
  function addItem(node) {
    const label = name + " " + (count += 1);
    const field = schemaField(label, k.items, true, node, added);
    field.append(el("button", {type: "button", class: "remove", onclick: () => {
      field.remove();
      add.focus();
    }}, ["Remove " + label]));
    items.append(field);
    return field;
  }
  add.addEventListener("click", () => {
    addItem().querySelector("input, select, textarea")?.focus();
  });
  for (const node of value && value.type === "array" ? value.items : []) addItem(node);
  return el("fieldset", {"data-kind": "array"}, [el("legend", {}, [name]), items, add]);
}

// A field for a schema, labelled, its checks and hint from the schema; prefilled from the value
// shown, else the schema's default or first example, but not an optional object or list, nor
// what is in one, that the value does not fill: it starts blank, and is left out while it is.
// `context`: {ids, depth, blank} of its fieldset.
function schemaField(name, node, required, value, context) {
  const id = fieldId(context.ids), {k, kind: read, nullable, shapes} = schemaKind(node);
  const blank = context.blank || !required && ["object", "array", "shapes"].includes(read);
  const initial = value || (blank ? null : k.default ||
    (k.examples?.type === "array" ? k.examples.items[0] : null));
  const kind = fieldKind(read, initial, context.depth), inner = {ids: context.ids,
    depth: context.depth + 1, blank: context.blank || !required && !value};
  const slot = kind === "object" ? objectFieldset(name, k, initial, inner) : kind === "array" ?
    arrayFieldset(name, k, initial, inner) : kind === "shapes" ? shapesFieldset(id, name, shapes,
      required, initial, inner) : schemaInput(id, kind, k, initial);
  Object.assign(slot.dataset, {kind, key: name}, required ? {required: ""} : {});
  if (kind === "array" && value?.type === "array") slot.dataset.shown = "";  // emptied: sent []
  state.schemas.set(slot, k);
  const parts = slot.matches("fieldset") ? [slot] : [el("label", required ? {for: id,
    class: "required"} : {for: id}, [name]), slot];
  const hint = schemaHint(k, kind, required);
  if (hint) {
    parts.push(el("p", {class: "hint", id: id + "-hint"}, [hint]));
    slot.setAttribute("aria-describedby", id + "-hint");
  }
  const nullChoice = kind === "choice" && k.enum?.items?.some((one) => one.type === "null");
  if (nullable && kind !== "file" && !nullChoice) {  // an enum with null has its own choice
    parts.push(nullBox(slot, initial?.type === "null"));
  }
  return el("div", {class: "field " + kind, "data-name": name}, parts);
}

// The next field's id; past the form's most fields (while it is built), an error saying so.
function fieldId(ids) {
  if ((ids.count += 1) > ids.most) {
    throw Object.assign(new RangeError("too many fields"), {why: "The request body's schema has " +
      "more than " + grouped(ids.most) + " fields, so this form is built from the data."});
  }
  return "api-schema-" + ids.count;
}

// The kind of field a value gets: a box of JSON for an object or array nested past MOST_DEPTH,
// or a list shown with more than MOST_PREFILLED items; else the kind its schema says.
function fieldKind(read, initial, depth) {
  const deep = ["object", "array", "shapes"].includes(read) && depth >= MOST_DEPTH;
  const long = read === "array" && initial?.type === "array" &&
    initial.items.length > MOST_PREFILLED;
  return deep || long ? "json" : read;
}

// The browser's own checks of a required field hold only where it will be sent: in an optional
// object once something in it is filled in, for an optional object left blank is left out.
function requireWhereFilled(root) {
  const filled = new Map();  // an optional fieldset's filledIn(), found once a pass
  for (const slot of root.querySelectorAll(":is(input, select, textarea)[data-required]")) {
    let wanted = true;
    for (let box = slot.parentElement.closest("fieldset"); wanted && box && box !== root;
      box = box.parentElement.closest("fieldset")) {
      if (box.hasAttribute("data-required")) continue;
      if (!filled.has(box)) filled.set(box, filledIn(box));
      wanted = filled.get(box);
    }
    slot.required = wanted;
  }
}

// Whether anything in a fieldset is filled in: a value, a choice, a file, a null box, an item.
function filledIn(fieldset) {
  for (const control of fieldset.querySelectorAll("input, select, textarea")) {
    if (control.type === "checkbox" ? control.checked : control.type === "file" ?
      control.files.length > 0 : control.value !== "") return true;
  }
  return fieldset.querySelector(".items > .field") !== null;
}

// A choice of shape for a value that may be one of several objects, then the chosen one's fields:
// at first the shape the value shown fits best, if there is one.
function shapesFieldset(id, name, shapes, required, value, context) {
  const labels = shapes.map(shapeLabel);
  const select = el("select", {id}, [el("option", {value: ""}, ["(none)"])]);
  labels.forEach((label, index) => select.append(el("option", {value: String(index)}, [label])));
  if (required) select.dataset.required = "";
  const fieldset = el("fieldset", {"data-kind": "shapes"}, [el("legend", {}, [name]),
    el("div", {class: "field choice"}, [el("label", required ? {for: id, class: "required"} :
      {for: id}, ["Shape of " + name]), select])]);
  // The chosen shape's fields in place of the last one's, prefilled from a value.
  function showChosen(node) {
    fieldset.querySelector(":scope > [data-kind=object]")?.remove();
    if (!select.value) return;
    const chosen = objectFieldset(labels[select.value], shapes[select.value], node,
      {...context, blank: false});  // chosen to be filled in
    chosen.dataset.required = "";  // a shape chosen is sent, if only as {}
    fieldset.append(chosen);
  }
  select.addEventListener("change", () => showChosen());
  select.value = bestShape(shapes, value);
  showChosen(value);
  return fieldset;
}

// A shape's name in the choice: its title, else the values it fixes ("kind: cat"), else its fields.
function shapeLabel(k, index) {
  if (k.title?.type === "string") return k.title.value;
  const fixed = [], names = [];
  for (const [name, node] of k.properties.entries) {
    const value = fixedValue(keywords(node));
    if (value) fixed.push(name + ": " + (value.type === "string" ? value.value : writeJSON(value)));
    names.push(name);
  }
  return (index + 1) + ". " + (fixed.length ? fixed : names.slice(0, 4).concat(names.length > 4 ?
    ["\u2026"] : [])).join(", ");
}

// The one value a schema allows: its const, or an enum of one; else undefined.
function fixedValue(k) {
  return k.const || (k.enum?.type === "array" && k.enum.items.length === 1 ? k.enum.items[0] :
    undefined);
}

// Which shape a value fits best, as the select's value ("" for no value): its fixed values met,
// then the most of its members among the shape's fields, the fewest not.
function bestShape(shapes, value) {
  if (value?.type !== "object") return "";
  let best = "", most = -Infinity;
  shapes.forEach((k, index) => {
    const fields = new Map(k.properties.entries);
    let fit = 0;
    for (const [name, member] of value.entries) {
      const fixed = fields.has(name) ? fixedValue(keywords(fields.get(name))) : undefined;
      fit += !fields.has(name) ? -1 : !fixed ? 1 : writeJSON(fixed, "") === writeJSON(member, "") ?
        MOST_FIELDS : -MOST_FIELDS;
    }
    if (fit > most) [best, most] = [String(index), fit];
  });
  return best;
}

// The control for a value: a select of its choices (a line of text where they are more than
// MOST_CHOICES), a file input, a box of JSON, or a line of text.
function schemaInput(id, kind, k, initial) {
  const choices = k.enum?.type === "array" ? k.enum.items : ["true", "false"].map((text) =>
    ({type: "boolean", text}));
  if (kind === "choice" && choices.length <= MOST_CHOICES) {
    const select = el("select", {id}, [el("option", {value: ""}, ["(none)"])]);
    for (const node of choices) {
      select.append(el("option", {value: writeJSON(node, "")}, [node.type === "string" ?
        node.value : writeJSON(node, "")]));
    }
    select.value = initial ? writeJSON(initial, "") : "";
    return select;
  }
  if (kind === "file") return el("input", {id, type: "file"});
  const box = el(kind === "json" ? "textarea" : "input", kind === "json" ? {id, class: "json",
    rows: "3"} : {id, type: {email: "email", uri: "url", date: "date"}[k.format?.value] || "text"});
  if (kind === "integer" || kind === "number") {
    box.setAttribute("inputmode", kind === "integer" ? "numeric" : "decimal");
  }
  if (k.minLength) box.setAttribute("minlength", k.minLength.text);
  if (k.maxLength) box.setAttribute("maxlength", k.maxLength.text);
  box.value = !initial || initial.type === "null" ? "" : initial.type !== "string" ?
    writeJSON(initial, kind === "json" ? "  " : "") : kind !== "any" || !isJSON(initial.value) ?
      initial.value : writeJSON(initial, "");
  return box;
}

// The JSON of the value a line of text names among an enum's: a string as it is, another value as
// its JSON; undefined for none of them.
function enumValue(choices, text) {
  for (const node of choices) {
    if (node.type === "string" ? node.value === text : writeJSON(node, "") === text.trim()) {
      return writeJSON(node, "");
    }
  }
  return undefined;
}

// Whether a text is JSON. Most texts that are not (a note's "buy milk") do not begin as JSON
// can, and are told without parsing: a parse that fails throws, and the first error a tab
// makes costs a few ms as the form is built (its stack's places are worked out then).
function isJSON(text) {
  if (!/^[ \t\n\r]*[-0-9{["tfn]/.test(text)) return false;
  try { return Boolean(parseJSON(text)); } catch { return false; }
}

// Each bound on a number: [keyword, [lowest and highest compareNumbers() it allows, words]].
const NUMBER_BOUNDS = [["minimum", [0, 1, "at least "]], ["maximum", [-1, 0, "at most "]],
  ["exclusiveMinimum", [1, 1, "more than "]], ["exclusiveMaximum", [-1, -1, "less than "]]];

// What a field takes, said beside it: the schema's description, then its rules; of an optional
// object, that it is left out while blank.
function schemaHint(k, kind, required) {
  const rules = [];
  if (kind === "integer" || kind === "number") {
    rules.push(kind === "integer" ? "A whole number" : "A number");
    for (const [key, words] of NUMBER_BOUNDS) {
      if (k[key]?.type === "number") rules.push(words[2] + k[key].text);
    }
  }
  if (kind === "any") rules.push("Any JSON value; other text is sent as a string");
  if (kind === "choice" && k.enum?.items?.length > MOST_CHOICES) {
    rules.push("One of " + grouped(k.enum.items.length) + " values, typed as shown" +
      " (a string as it is, another value as its JSON)");
  }
  if (k.pattern?.type === "string") rules.push((rules.length ? "m" : "M") + "atching " +
    k.pattern.value + (patternSteps(k.pattern.value) ? "" : " (not checked here)"));
  const described = k.description?.type === "string" ? [k.description.value] : [];
  const optional = kind === "object" && !required ? ["Left out until something in it is " +
    "filled in."] : [];
  return described.concat(rules.length ? [rules.join(", ") + "."] : [], optional).join(" ");
}

// Why a number's text breaks its schema ("" if it does not): compared as decimals, never doubles.
function numberProblem(text, k, integer) {
  if (!new RegExp("^" + NUMBER.source + "$").test(text)) {
    return "A number such as 12 or 2.5 is expected.";
  }
  if (integer && !/^-?[0-9]+$/.test(text)) return "A whole number is expected.";
  for (const [key, [low, high, words]] of NUMBER_BOUNDS) {
    if (k[key]?.type !== "number") continue;
    const order = compareNumbers(text, k[key].text);
    if (order < low || order > high) return "A number " + words + k[key].text + " is expected.";
  }
  return "";
}

// A JSON number's text as {negative, digits: its significant ones, point: digits before the point}.
function decimal(text) {
  const [, sign, whole, fraction = "", power = "0"] =
    /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(text);
  const all = (whole + fraction).replace(/^0+/, ""), digits = all.replace(/0+$/, "");
  return {negative: sign === "-" && digits !== "", digits,
    point: all.length - fraction.length + parseInt(power, 10)};
}

// -1, 0 or 1 as one JSON number is below, at or above another: digit by digit, exactly.
function compareNumbers(one, other) {
  const a = decimal(one), b = decimal(other);
  if (a.negative !== b.negative) return a.negative ? -1 : 1;
  let order;
  if (!a.digits || !b.digits) order = (a.digits ? 1 : 0) - (b.digits ? 1 : 0);
  else if (a.point !== b.point) order = a.point > b.point ? 1 : -1;
  else {
    const size = Math.max(a.digits.length, b.digits.length);
    const x = a.digits.padEnd(size, "0"), y = b.digits.padEnd(size, "0");
    order = x === y ? 0 : x > y ? 1 : -1;
  }
  return a.negative ? -order : order;
}

// A field's value as JSON text (undefined: an optional one left blank, or any one in a partial
// update); one that breaks its schema throws an error naming it (error.input).
function slotJSON(slot, partial) {
  const kind = slot.dataset.kind, k = state.schemas.get(slot), text = slot.value;
  if (kind === "file" || kind === "array" && schemaKind(k.items).kind === "file") {
    return undefined;  // sent as parts of a multipart body, not as JSON
  }
  if (slot.disabled) return "null";  // its "null" box is checked
  if (kind === "shapes") {
    const chosen = slot.querySelector(":scope > [data-kind=object]");
    return chosen ? slotJSON(chosen, partial) : undefined;
  }
  if (kind === "object" || kind === "array") return membersJSON(slot, kind, partial);
  if (text === "" && (partial || !slot.required)) return undefined;
  const problem = (message) => Object.assign(new Error(message), {input: slot});
  if (kind === "choice" && slot.tagName === "SELECT") return text;  // the option's JSON text
  if (kind === "choice") {
    const chosen = enumValue(k.enum.items, text);
    if (chosen === undefined) throw problem("The value must be one of the schema's values.");
    return chosen;
  }
  if (kind === "integer" || kind === "number") {
    const message = numberProblem(text.trim(), k, kind === "integer");
    if (message) throw problem(message);
    return text.trim();
  }
  if (kind === "string" && k.pattern?.type === "string" && !matchesPattern(k.pattern.value, text)) {
    throw problem("The value must match " + k.pattern.value + ".");
  }
  if (kind === "string") return JSON.stringify(text);
  try { return writeJSON(parseJSON(text), ""); } catch (error) {
    if (kind === "any") return JSON.stringify(text);
    throw problem("Not JSON: " + error.message);
  }
}

// An object's or array's JSON from its fields; undefined where it is left out: an optional
// object with nothing filled in, an optional list with no items that the value shown had not.
function membersJSON(slot, kind, partial) {
  const required = !partial && slot.hasAttribute("data-required");
  if (kind === "object" && !slot.hasAttribute("data-required") && !filledIn(slot)) return undefined;
  const members = [];
  for (const field of slot.querySelectorAll(":scope > .field, :scope > .items > .field")) {
    const value = slotJSON(field.querySelector(":scope > [data-kind]"), partial);
    if (value === undefined) continue;
    members.push(kind === "array" ? value : JSON.stringify(field.dataset.name) + ": " + value);
  }
  if (kind === "array") {
    return members.length || required || slot.hasAttribute("data-shown") ?
      "[" + members.join(", ") + "]" : undefined;
  }
  return members.length || required ? "{" + members.join(", ") + "}" : undefined;
}

// Whether a text matches a schema's pattern, as RegExp's test() would (ECMA-262 with "u",
// anywhere in it); true where this page cannot tell (see patternSteps).
function matchesPattern(pattern, text) {
  const steps = patternSteps(pattern);
  return !steps || runSteps(steps, text) !== false;
}

// A pattern is never run by RegExp, whose backtracking takes exponential time on ^(a+)+$ and a
// value of 30 characters. A Worker that could be stopped is refused by the page's CSP (worker-src
// falls back to the script's hash), and a length bound would not hold for values shown from the
// data. So the page runs the pattern itself, as a Thompson NFA: all its states at once, one pass
// over the text, its work bounded by MOST_STEPS whatever the pattern and the value. What needs
// backtracking (a backreference, a lookaround) is not checked here; the server still checks it.
const MOST_STEPS = 1000000;  // a check's work at the most (about 20 ms); past it, not checked
const MOST_STATES = 5000;  // a pattern's steps at the most, a{n} written out n times
const QUANTIFIER = /(?:([*+?])|\{([0-9]+)(,?)([0-9]*)\})\??/y;
const ESCAPE = new RegExp("\\\\(?:[pP]\\{[^}]*\\}|u\\{[0-9a-fA-F]+\\}|u[dD][89abAB][0-9a-fA-F]{2}" +
  "\\\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[a-zA-Z]|0(?![0-9])|[^0-9k])",
  "y");  // one escaped character (a backreference, \1 or \k<name>, is none)
const WORD = /^[A-Za-z0-9_]$/;  // what \b and \B see as a word's character

// A pattern's steps (see writeSteps); null where RegExp cannot read it or this page cannot run it.
function patternSteps(pattern) {
  try {
    RegExp(pattern, "u");  // throws where the pattern is not ECMA-262's; it is never run
    return writeSteps(patternTree(pattern));
  } catch { return null; }
}

// A pattern as a tree: {alt: [...]}, {seq: [...]}, {repeat, min, max}, {atom: its source, one
// character's test}, {assert: "^", "$", "b" or "B"}; it throws at what needs backtracking.
function patternTree(source) {
  let at = 0;
  // Alternatives up to a ")" or the end.
  function alternatives(depth) {
    if (depth > MOST_DEPTH) throw new RangeError("groups nested too deeply");
    const options = [sequence(depth)];
    while (source[at] === "|") {
      at += 1;
      options.push(sequence(depth));
    }
    return {alt: options};
  }
  // One alternative: its terms, each with its quantifier.
  function sequence(depth) {
    const items = [];
    while (at < source.length && source[at] !== "|" && source[at] !== ")") {
      items.push(quantified(term(depth)));
    }
    return {seq: items};
  }
  // An assertion, a group, or an atom that matches one character.
  function term(depth) {
    const from = at, next = source[at + 1];
    if (source[at] === "^" || source[at] === "$") return {assert: source[at++]};
    if (source[at] === "\\" && (next === "b" || next === "B")) {
      at += 2;
      return {assert: next};
    }
    if (source[at] !== "(") {
      at = atomEnd(source, at);
      return {atom: source.slice(from, at)};
    }
    at = groupStart(source, at);
    const inner = alternatives(depth + 1);
    at += 1;  // its ")"
    return inner;
  }
  // A term with its quantifier, if it has one: {repeat, min, max}.
  function quantified(node) {
    QUANTIFIER.lastIndex = at;
    const found = QUANTIFIER.exec(source);
    if (!found) return node;
    at = QUANTIFIER.lastIndex;
    const [, sign, low, comma, high] = found;
    const min = sign ? Number(sign === "+") : Number(low);
    const max = sign === "?" ? 1 : sign || comma && !high ? Infinity : comma ? Number(high) : min;
    return {repeat: node, min, max};
  }
  return alternatives(0);
}

// Where an atom that matches one character ends: a class, an escape, or one character; it throws
// at a backreference.
function atomEnd(source, at) {
  if (source[at] === "[") {
    let end = at + 1;
    while (end < source.length && source[end] !== "]") end += source[end] === "\\" ? 2 : 1;
    return end + 1;
  }
  if (source[at] !== "\\") return at + (source.codePointAt(at) > 0xffff ? 2 : 1);
  ESCAPE.lastIndex = at;
  if (!ESCAPE.test(source)) throw new TypeError("a backreference");
  return ESCAPE.lastIndex;
}

// Past a group's opening, "(", "(?:" or "(?<name>"; it throws at a lookaround or a modifier.
function groupStart(source, at) {
  if (source[at + 1] !== "?") return at + 1;
  if (source[at + 2] === ":") return at + 3;
  if (source[at + 2] === "<" && source[at + 3] !== "=" && source[at + 3] !== "!") {
    return source.indexOf(">", at) + 1;
  }
  throw new TypeError("a lookaround");
}

// A tree as the steps of a Thompson NFA: {op: "char", test}, {op: "split", to: [a, b]},
// {op: "jump", to}, {op: "assert", kind}, then {op: "match"}; it throws past MOST_STATES.
function writeSteps(tree) {
  const steps = [];
  let work = 0;
  // A split whose second way is filled in once known.
  function split() {
    const step = {op: "split", to: [steps.length + 1]};
    steps.push(step);
    return step;
  }
  // A node's steps; a repeat's copies each written anew.
  function write(node) {
    if ((work += 1) > 4 * MOST_STATES || steps.length > MOST_STATES) {
      throw new RangeError("a pattern too big to check");
    }
    if (node.atom !== undefined) steps.push({op: "char", test: charTest(node.atom)});
    else if (node.assert) steps.push({op: "assert", kind: node.assert});
    else if (node.seq) for (const item of node.seq) write(item);
    else if (node.alt) {
      const jumps = [];
      for (const option of node.alt.slice(0, -1)) {
        const choice = split();
        write(option);
        jumps.push({op: "jump"});
        steps.push(jumps[jumps.length - 1]);
        choice.to.push(steps.length);
      }
      write(node.alt[node.alt.length - 1]);
      for (const jump of jumps) jump.to = steps.length;
    } else writeRepeat(node, write, split, steps);
  }
  write(tree);
  steps.push({op: "match"});
  return steps;
}

// A repeat's steps: its least number of copies, then a loop, or an optional copy each up to
// its most.
function writeRepeat(node, write, split, steps) {
  for (let copy = 0; copy < node.min; copy += 1) write(node.repeat);
  const skips = [];
  for (let copy = node.min; copy < node.max && (copy === node.min || node.max < Infinity);
    copy += 1) {
    const loop = steps.length;
    skips.push(split());
    write(node.repeat);
    if (node.max === Infinity) steps.push({op: "jump", to: loop});
  }
  for (const skip of skips) skip.to.push(steps.length);
}

// One character's test against an atom: equality for a plain character, else a RegExp of that
// atom alone (a class, ".", an escape), which has one character to try and nothing to backtrack.
function charTest(atom) {
  if (!/^[\\.[]/.test(atom)) return (char) => char === atom;
  const regexp = new RegExp("^(?:" + atom + ")$", "u");
  return (char) => regexp.test(char);
}

// Whether the steps match anywhere in a text: every state at once, one character at a time;
// undefined past MOST_STEPS.
function runSteps(steps, text) {
  const chars = Array.from(text), seen = new Int32Array(steps.length).fill(-1), todo = [];
  let current = [], next = [], work = 0, matched = false;
  // Enter a step at a place, and the steps its splits, jumps and assertions lead on to.
  function enter(states, first, at) {
    todo.push(first);
    while (todo.length) {
      const index = todo.pop(), step = steps[index];
      if (seen[index] === at) continue;
      seen[index] = at;
      work += 1;
      if (step.op === "char") states.push(index);
      else if (step.op === "split") todo.push(step.to[1], step.to[0]);
      else if (step.op === "jump") todo.push(step.to);
      else if (step.op === "match") matched = true;
      else if (holds(step.kind, chars, at)) todo.push(index + 1);
    }
  }
  for (let at = 0; ; at += 1) {
    enter(current, 0, at);  // a match may start at any place
    if (matched) return true;
    if (at === chars.length) return false;
    if (work > MOST_STEPS) return undefined;
    next.length = 0;
    for (const index of current) {
      work += 1;
      if (steps[index].test(chars[at])) enter(next, index + 1, at + 1);
    }
    [current, next] = [next, current];  // the lists are kept: no garbage a character
  }
}

// Whether an assertion holds at a place: ^ and $ at the text's ends, \b and \B at a word's edge.
function holds(kind, chars, at) {
  if (kind === "^") return at === 0;
  if (kind === "$") return at === chars.length;
  const edge = WORD.test(chars[at - 1] || "") !== WORD.test(chars[at] || "");
  return kind === "b" ? edge : !edge;
}

// The schema form's request: JSON, or form fields where the operation takes no JSON, multipart
// where it takes files; null after saying on a field why it cannot be sent. `partial`: a PATCH
// sends the fields filled in, required or not.
function schemaRequest(root, partial) {
  requireWhereFilled(root);
  let body;
  try { body = slotJSON(root, partial) || "{}"; } catch (error) {
    if (!error.input) throw error;
    refuse(error.input, error.message);
    return null;
  }
  const types = root.dataset.content.split("\n");
  const json = types.find((type) => type.includes("json"));
  const files = root.querySelectorAll("input[type=file]:enabled");
  if (json && !files.length) return {body, type: json};
  const fields = new URLSearchParams(parseJSON(body).entries.map(([key, node]) => [key,
    node.type === "string" ? node.value : writeJSON(node, "")])).toString();
  if (!files.length && !types.includes("multipart/form-data")) {
    return {body: fields, type: "application/x-www-form-urlencoded"};
  }
  const request = rawRequest(fields, "multipart/form-data");  // the fields, then the files
  for (const input of files) {
    const name = input.closest("[data-root] > .field").dataset.name;
    for (const file of input.files) request.body.append(name, file);
  }
  return request;
}
