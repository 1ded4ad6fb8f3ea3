// ---- Compare: two answers of the history, their data's differences by path ----
// Read from the lossless JSON nodes (see The body as data): a number is the text the API
// wrote, so 18446744073709551617 against 18446744073709551616 is a change, and 1.0 against 1
// is shown as each was written. Unchanged values are counted, not shown.

const MOST_CHANGES = 1000;  // changes listed at the most; the rest are counted
const ITEM_KEYS = ["id", "key", "pk", "uuid", "url", "slug"];  // members that may name an item

// The differences between two nodes, by path: {changes: [{path, kind, from, to}], same},
// kind "added", "removed" or "changed", same the count of values unchanged.
function diffJSON(before, after) {
  const changes = [];
  let same = 0;
  // Compare two nodes at a path: containers member by member, anything else as written.
  function walk(one, other, path) {
    if (one.type !== other.type || (one.type !== "object" && one.type !== "array")) {
      if (one.type === other.type && (one.type === "string" ? one.value === other.value :
        one.text === other.text)) same += 1;
      else changes.push({path, kind: "changed", from: one, to: other});
      return;
    }
    const named = one.type === "array" && itemKey(one.items, other.items);
    if (named) {
      walkItems(one.items, other.items, named, path);
      return;
    }
    if (one.type === "array") {
      const most = Math.max(one.items.length, other.items.length);
      for (let index = 0; index < most; index += 1) {
        const at = path.concat(index);
        if (index >= other.items.length) {
          changes.push({path: at, kind: "removed", from: one.items[index]});
        } else if (index >= one.items.length) {
          changes.push({path: at, kind: "added", to: other.items[index]});
        } else walk(one.items[index], other.items[index], at);
      }
      return;
    }
    if (sameKeys(one.entries, other.entries)) {  // the usual case: paired in order, no maps
      one.entries.forEach((member, index) => walk(member[1], other.entries[index][1],
        path.concat(member[0])));
      return;
    }
    const others = new Map(other.entries);
    for (const [key, value] of one.entries) {
      if (others.has(key)) walk(value, others.get(key), path.concat(key));
      else changes.push({path: path.concat(key), kind: "removed", from: value});
    }
    const ones = new Map(one.entries);
    for (const [key, value] of other.entries) {
      if (!ones.has(key)) changes.push({path: path.concat(key), kind: "added", to: value});
    }
  }
  // Compare two lists of items that each name themselves by a key: paired by it, so an item
  // inserted is one added, not every later one changed (at the newer list's indexes; a
  // removed one at the older's).
  function walkItems(ones, others, key, path) {
    const older = new Map(ones.map((item, index) => [itemName(item, key), index]));
    const paired = new Set();
    others.forEach((item, index) => {
      const at = older.get(itemName(item, key));
      if (at === undefined) changes.push({path: path.concat(index), kind: "added", to: item});
      else {
        paired.add(at);
        walk(ones[at], item, path.concat(index));
      }
    });
    ones.forEach((item, index) => {
      if (!paired.has(index)) changes.push({path: path.concat(index), kind: "removed", from: item});
    });
  }
  walk(before, after, []);
  return {changes, same};
}

// Whether two objects' members have the same keys in the same order.
function sameKeys(ones, others) {
  return ones.length === others.length && ones.every((member, index) =>
    member[0] === others[index][0]);
}

// An item's name by a key: its member's type and text; undefined where it has none.
function itemName(item, key) {
  if (item.type !== "object") return undefined;
  const member = item.entries.find((entry) => entry[0] === key);
  if (!member || (member[1].type !== "string" && member[1].type !== "number")) return undefined;
  return member[1].type + ":" + (member[1].type === "string" ? member[1].value : member[1].text);
}

// The key that names every item of both lists, once each in each; null if none does.
function itemKey(ones, others) {
  if (!ones.length || !others.length || ones[0].type !== "object") return null;
  return ITEM_KEYS.find((key) => [ones, others].every((items) => {
    const names = new Set();
    for (const item of items) {
      const name = itemName(item, key);
      if (name === undefined || names.has(name)) return false;
      names.add(name);
    }
    return true;
  })) || null;
}

// A path as a JSON Pointer: ["items", 3, "a/b"] is /items/3/a~1b; the root is "/".
function pointer(path) {
  return path.length ? path.map((part) => "/" + String(part).replace(/~/g, "~0")
    .replace(/\//g, "~1")).join("") : "/";
}

// The headers' differences, names in any case: [{path: [name], kind, from, to}] of strings.
function diffHeaders(before, after) {
  const lower = (pairs) => new Map(pairs.map(([name, value]) => [name.toLowerCase(),
    [name, value]]));
  const ones = lower(before), others = lower(after), changes = [];
  for (const [key, [name, value]] of ones) {
    if (!others.has(key)) changes.push({path: [name], kind: "removed", from: value});
    else if (others.get(key)[1] !== value) {
      changes.push({path: [name], kind: "changed", from: value, to: others.get(key)[1]});
    }
  }
  for (const [key, [name, value]] of others) {
    if (!ones.has(key)) changes.push({path: [name], kind: "added", to: value});
  }
  return changes;
}

// A value as the API wrote it, on one line, cut past 200 characters.
function shownValue(value) {
  const text = typeof value === "string" ? value : writeJSON(value, "");
  return text.length > 200 ? text.slice(0, 200) + "\u2026" : text;
}

// A change as a line: its path (a header's name), what it was and is; text only.
function changeLine(change, header) {
  const kind = el("span", {class: "change " + change.kind}, [change.kind]);
  const path = el("code", {}, [header ? change.path[0] : pointer(change.path)]);
  const values = change.kind === "added" ? [" ", el("code", {}, [shownValue(change.to)])] :
    change.kind === "removed" ? [" ", el("code", {}, [shownValue(change.from)])] :
      [" ", el("code", {}, [shownValue(change.from)]), " \u2192 ", el("code", {},
        [shownValue(change.to)])];
  return el("li", {}, [path, " ", kind, ...values]);
}

// The two bodies' differences as parts to show: a summary, then the changes by path.
function bodyDifferences(before, after) {
  if (before.body === null || after.body === null) {
    return [el("p", {class: "hint"}, ["The bodies are not compared: one of them was not kept."])];
  }
  let one, other;
  try { [one, other] = [parseJSON(before.body), parseJSON(after.body)]; } catch {
    return [el("p", {class: "hint"}, [before.body === after.body ? "The same body (not JSON)." :
      "The bodies differ (not JSON): open each to see it."])];
  }
  const {changes, same} = diffJSON(one, other);
  const counts = ["added", "removed", "changed"].map((kind) =>
    grouped(changes.filter((change) => change.kind === kind).length) + " " + kind);
  const parts = [el("p", {class: "diff-summary"}, ["Data: " + counts.join(", ") + "; " +
    counted(same, "value") + " the same, folded."])];
  if (changes.length) {
    parts.push(el("ol", {class: "diff", "aria-label": "Changes in the data"},
      changes.slice(0, MOST_CHANGES).map((change) => changeLine(change, false))));
  }
  if (changes.length > MOST_CHANGES) {
    parts.push(el("p", {class: "hint"}, ["And " + counted(changes.length - MOST_CHANGES,
      "change") + " more, not listed."]));
  }
  return parts;
}

// Compare two entries of the history, the older first: status, headers, then the data (a big
// body read from its own key).
async function compareEntries(before, after) {
  const [one, other] = await Promise.all([entryText(before), entryText(after)]);
  const headers = diffHeaders(before.headers, after.headers);
  const status = before.status === after.status ? "Status: HTTP " + after.status + ", both." :
    "Status: HTTP " + before.status + " \u2192 HTTP " + after.status + ".";
  historyShown([el("h2", {}, ["Compared: " + entryName(before) + " with " + entryName(after)]),
    el("p", {}, [status]),
    el("p", {}, [headers.length ? "Headers: " + counted(headers.length, "difference") + "." :
      "Headers: the same."]),
    ...headers.length ? [el("ol", {class: "diff", "aria-label": "Changes in the headers"},
      headers.map((change) => changeLine(change, true)))] : [],
    ...bodyDifferences({...before, body: one}, {...after, body: other})], "h2");
}

// One click: the answer shown against the last one before it from the same URL, if any.
function lastAnswerButton(list) {
  const panel = document.querySelector("pre.response");
  if (!panel || !panel.dataset.url) return "";
  const url = new URL(panel.dataset.url, window.location.href).href;
  const same = list.filter((entry) => entry.url === url && entry.method === panel.dataset.method);
  if (same.length < 2) return "";
  return el("button", {type: "button", onclick: () => compareEntries(same[1], same[0])},
    ["Compare with the previous answer from this URL"]);
}
