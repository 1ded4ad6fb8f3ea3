// ---- The body as data: its JSON, kept whole ----
// As nodes that keep what JavaScript's own values lose (9007199254740993, 2.0, a "__proto__"
// key, key order): {type: "string", value}, {type: "number" | "boolean" | "null", text},
// {type: "object", entries: [[key, node], ...]}, {type: "array", items: [node, ...]}.

// A JSON number, as RFC 8259 writes it: the parser reads them, the form's number fields take them.
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/;

// JSON text as nodes that keep what JavaScript's values would lose (see the section's head).
function parseJSON(text) {
  const space = /[ \t\n\r]*/y, word = /true|false|null/y, number = new RegExp(NUMBER, "y");
  const plain = /"[^"\\\u0000-\u001f]*"/y;
  const escaped = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
  let at = 0;
  // The text the pattern matches here, moving past it; null where it does not match.
  function take(pattern) {
    pattern.lastIndex = at;
    const found = pattern.exec(text);
    if (found) at = pattern.lastIndex;
    return found && found[0];
  }
  // Fail with where, and what was found there.
  function fail(wanted) {
    throw new SyntaxError("JSON: " + wanted + " expected at " + at);
  }
  // A string's value: most have no escape to undo.
  function string() {
    const found = take(plain);
    if (found !== null) return found.slice(1, -1);
    return JSON.parse(take(escaped) || fail("a string"));
  }
  // Items up to the closing bracket, each read by read().
  function sequence(close, read) {
    const items = [];
    at += 1;
    take(space);
    if (text[at] === close) { at += 1; return items; }
    for (;;) {
      items.push(read());
      take(space);
      const next = text[at++];
      if (next === close) return items;
      if (next !== ",") { at -= 1; fail("',' or '" + close + "'"); }
    }
  }
  // An object's member: its key, then its value.
  function member() {
    take(space);
    if (text[at] !== '"') fail("a key");
    const key = string();
    take(space);
    if (text[at++] !== ":") { at -= 1; fail("':'"); }
    return [key, value()];
  }
  // Any value.
  function value() {
    take(space);
    const first = text[at];
    if (first === "{") return {type: "object", entries: sequence("}", member)};
    if (first === "[") return {type: "array", items: sequence("]", value)};
    if (first === '"') return {type: "string", value: string()};
    const found = take(number) || take(word) || fail("a value");
    const type = found === "null" ? "null" : found === "true" || found === "false" ? "boolean" :
      "number";
    return {type, text: found};
  }
  const root = value();
  take(space);
  if (at !== text.length) fail("the end");
  return root;
}

// A node as JSON text: as the API writes it (", " and ": ") where indent is "", else indented.
function writeJSON(node, indent, newline = "\n") {
  if (node.type === "string") return JSON.stringify(node.value);
  if (node.type !== "object" && node.type !== "array") return node.text;
  const object = node.type === "object", inner = newline + indent, members = [];
  for (const member of membersOf(node)) {  // not map(): two frames more a level, on deep JSON
    members.push(object ? JSON.stringify(member[0]) + ": " + writeJSON(member[1], indent, inner) :
      writeJSON(member, indent, inner));
  }
  const [open, close] = object ? ["{", "}"] : ["[", "]"];
  if (!members.length) return open + close;
  if (!indent) return open + members.join(", ") + close;
  return open + inner + members.join("," + inner) + newline + close;
}

// A container's members: an object's [key, value] entries, an array's items.
function membersOf(node) {
  return node.type === "object" ? node.entries : node.items;
}

// The response body's model, or undefined where the body is not JSON.
function bodyModel() {
  const body = document.querySelector("pre.response .body");
  try { return body ? parseJSON(body.textContent) : undefined; } catch { return undefined; }
}
