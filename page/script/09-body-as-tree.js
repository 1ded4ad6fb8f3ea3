// ---- The body as a tree: fold, unfold, filter, links; lines built when first shown ----

const FIRST_LINES = 2000;  // lines shown unfolded at first; the rest starts folded
const MOST_LINES = 10000;  // lines "Unfold all" shows at the most
const GROUP = 100;  // a longer array or object shows its members in groups of 100, 10,000, ...
const MOST_MATCHES = 1000;  // matches of the filter shown at the most
// A URL in text, as the server's _URL_RE finds one (a test holds them to it): balanced
// parentheses are part of it, the punctuation of a sentence around it is not.
const URL_IN_TEXT = /https?:\/\/[^\s"<>\\()]*(?:\([^\s"<>\\()]*\)[^\s"<>\\()]*)*(?<![.,;:!?'\]])/g;

// The tree and its tools, after the body's text, which the page hides (or shows, for no JSON).
function jsonTree(model) {
  const body = document.querySelector("pre.response .body");
  const shown = document.documentElement.classList;
  shown.toggle("json-tree", Boolean(body) && model !== undefined);
  if (!shown.contains("json-tree")) return;
  try {
    const tree = el("span", {class: "tree", onclick: foldClick, onkeydown: foldKey});
    body.after(tree);
    document.querySelector("pre.response").before(treeTools(tree, model));
    showTree(tree, model, FIRST_LINES);
  } catch (error) {
    shown.remove("json-tree");  // the text, as it is
    throw error;
  }
}

// Show the model from its root, unfolded breadth first up to a number of lines.
function showTree(tree, model, lines, label = "the body") {
  const root = treeLine(null, {node: model}, true, label);
  tree.replaceChildren(root);
  return unfoldLines(root, lines);
}

// One line: a fold button for a container (named after its key, or label), the key (or the
// index), then the value or brackets.
function treeLine(key, data, last, label = "value") {
  const node = data.node, group = data.from !== undefined;
  const container = group || node.type === "object" || node.type === "array";
  const line = el("span", {class: group ? "line group" : "line"});
  state.lines.set(line, data);
  if (container && (group || childCount(data))) {
    const name = key !== null ? key : group ? (node.type === "object" ? "keys " : "items ") +
      data.from + " to " + (data.to - 1) : label;
    line.append(el("button", {type: "button", class: "fold", "aria-expanded": "false",
      "aria-label": "Unfold " + name}));
  }
  if (data.index !== undefined) {  // shown, not copied
    line.append(el("span", {class: "index", "data-index": data.index}));
  }
  if (group) {
    line.append(el("span", {class: "range", "data-range": "[" + data.from + " \u2026 " +
      (data.to - 1) + "]"}), el("span", {class: "kids"}));
    return line;
  }
  if (key !== null) line.append(el("span", {class: "k"}, [JSON.stringify(key)]), ": ");
  if (!container) line.append(scalar(node));
  else {
    const object = node.type === "object";
    line.append(object ? "{" : "[", el("span", {class: "more", "data-more": foldedText(node)}),
      el("span", {class: "kids"}), object ? "}" : "]");
  }
  if (!last) line.append(",");
  return line;
}

// How a folded container reads: "... 3 keys", "... 100,000 items" (with an ellipsis).
function foldedText(node) {
  const count = membersOf(node).length;
  return count ? "\u2026 " + counted(count, node.type === "object" ? "key" : "item") : "";
}

// A string, number, true, false or null, as JSON, with the URLs in a string as links.
function scalar(node) {
  if (node.type !== "string") {
    return el("span", {class: node.type === "number" ? "n" : "l"}, [node.text]);
  }
  const text = JSON.stringify(node.value), span = el("span", {class: "s"});
  let end = 0;
  for (const found of text.matchAll(URL_IN_TEXT)) {
    span.append(text.slice(end, found.index), el("a", {href: found[0]}, [found[0]]));
    end = found.index + found[0].length;
  }
  span.append(text.slice(end));
  return span;
}

// True for a container the filter narrows: on the way to a match, not a match itself.
function filtered(data) {
  return state.filter !== null && data.from === undefined && !state.filter.hits.has(data.node);
}

// The indexes of the members of a container that the filter keeps: those on the way to a match.
function keptMembers(node) {
  const object = node.type === "object", indexes = [];
  membersOf(node).forEach((member, index) => {
    if (state.filter.keep.has(object ? member[1] : member)) indexes.push(index);
  });
  return indexes;
}

// The size of the groups that a run of this many items is shown in (1: the items).
function groupSize(count) {
  let size = 1;
  while (count / size > GROUP) size *= GROUP;
  return size;
}

// How many lines a container's children take: its members, or its groups of members.
function childCount(data) {
  if (filtered(data)) return keptMembers(data.node).length;
  const from = data.from || 0, to = data.to === undefined ? membersOf(data.node).length : data.to;
  return Math.ceil((to - from) / groupSize(to - from));
}

// The lines of a container's (or group's) children, in groups: a million keys are 100 lines.
function childLines(data) {
  const node = data.node, count = membersOf(node).length;
  if (filtered(data)) {
    const kept = keptMembers(node), labelled = node.type === "array";
    return kept.map((index, at) => memberLine(node, index, at === kept.length - 1, labelled));
  }
  const from = data.from || 0, to = data.to === undefined ? count : data.to;
  const size = groupSize(to - from), lines = [];
  for (let at = from; at < to; at += size) {
    lines.push(size === 1 ? memberLine(node, at, at === count - 1, false) :
      treeLine(null, {node, from: at, to: Math.min(at + size, to)}, true));
  }
  return lines;
}

// A member's line: an object's key and value, an array's item (labelled, where some are left out).
function memberLine(node, index, last, labelled) {
  const member = membersOf(node)[index];
  if (node.type === "object") return treeLine(member[0], {node: member[1]}, last);
  return treeLine(null, labelled ? {node: member, index} : {node: member}, last, "item " + index);
}

// Unfold or fold a line; its children are built the first time it is unfolded.
function setOpen(line, open) {
  const button = line.querySelector(":scope > button.fold");
  if (!button) return;
  const kids = line.querySelector(":scope > .kids");
  if (open && !kids.hasChildNodes()) kids.append(...childLines(state.lines.get(line)));
  line.classList.toggle("open", open);
  button.setAttribute("aria-expanded", String(open));
  button.setAttribute("aria-label", button.getAttribute("aria-label")
    .replace(/^(Un)?[Ff]old/, open ? "Fold" : "Unfold"));
}

// Unfold from a line down, breadth first, up to a limit of lines; true if all is unfolded.
function unfoldLines(root, limit) {
  let shown = 1, level = [root];
  while (level.length) {
    const next = [];
    for (const line of level) {
      const data = state.lines.get(line);
      if (!line.querySelector(":scope > button.fold")) continue;
      if (line !== root && state.filter && state.filter.hits.has(data.node)) continue;
      shown += childCount(data);
      if (line !== root && shown > limit) return false;
      setOpen(line, true);
      next.push(...line.querySelector(":scope > .kids").children);
    }
    level = next;
  }
  return true;
}

// A click on a fold button unfolds its line, or folds it.
function foldClick(event) {
  const line = event.target.closest("button.fold")?.parentElement;
  if (line) setOpen(line, !line.classList.contains("open"));
}

// Keys on a fold button: right unfolds, left folds, or goes to the enclosing line.
function foldKey(event) {
  const button = event.target.closest("button.fold");
  if (!button || (event.key !== "ArrowRight" && event.key !== "ArrowLeft")) return;
  const line = button.parentElement, open = line.classList.contains("open");
  event.preventDefault();
  if (event.key === "ArrowRight") setOpen(line, true);
  else if (open) setOpen(line, false);
  else {
    const outer = line.parentElement.closest(".line");
    if (outer) outer.querySelector(":scope > button.fold").focus();
  }
}

// The tree's tools: fold all, unfold all, copy the JSON, and the filter.
function treeTools(tree, model) {
  const status = el("span", {class: "hint", role: "status"});
  const copy = el("button", {type: "button",
    onclick: () => copied(copy, navigator.clipboard.writeText(writeJSON(model, "")))},
    ["Copy JSON"]);
  const filter = filterBox("Filter keys and values", status,
    (text) => filterTree(tree, model, text));
  return el("div", {class: "bar tree-tools", role: "group", "aria-label": "Body"}, [
    el("button", {type: "button", onclick: () => {
      showTree(tree, model, 1);
      status.textContent = "";
    }}, ["Fold all"]),
    el("button", {type: "button", onclick: () => {
      status.textContent = showTree(tree, model, MOST_LINES) ? "" : "Unfolded the first " +
        grouped(MOST_LINES) + " lines; unfold the rest one by one, or filter.";
    }}, ["Unfold all"]), copy, filter, status]);
}

// A search box that runs a filter once typing pauses, and puts what it found in a status.
function filterBox(label, status, filter) {
  let timer = null;
  const box = el("input", {type: "search", "aria-label": label, placeholder: label,
    oninput: () => {
      clearTimeout(timer);
      timer = setTimeout(() => { status.textContent = filter(box.value); }, 200);
    }});
  return box;
}

// Say "Copied" on a button once its copy is done, and go back to its label after a moment.
async function copied(button, done) {
  const label = button.textContent;
  try {
    await done;
    button.textContent = "Copied";
  } catch { button.textContent = "Not copied"; }
  announce(button.textContent);
  setTimeout(() => { button.textContent = label; }, 1500);
}

// Show only what matches the filter (in keys and values, folded or not); what it found.
function filterTree(tree, model, text) {
  const query = text.trim().toLowerCase();
  state.filter = null;
  if (!query) { showTree(tree, model, FIRST_LINES); return ""; }
  const found = {keep: new Set(), hits: new Set()};
  findMatches(model, null, query, found);
  state.filter = found;
  showTree(tree, model, Infinity);
  for (const line of tree.querySelectorAll(".line")) {
    const data = state.lines.get(line);
    line.classList.toggle("hit", found.hits.has(data.node) && data.from === undefined);
  }
  const count = found.hits.size;
  if (!count) return "Nothing matches.";
  return count >= MOST_MATCHES ? "The first " + grouped(count) + " matches." :
    counted(count, "match", "matches") + ".";
}

// Mark the nodes that match (key or value) and those on the way to them; true if any.
function findMatches(node, key, query, found) {
  if (found.hits.size >= MOST_MATCHES) return false;
  const own = node.type === "string" ? node.value : node.text;
  if ((key !== null && key.toLowerCase().includes(query)) ||
      (own !== undefined && own.toLowerCase().includes(query))) {
    found.hits.add(node);
    found.keep.add(node);
    return true;
  }
  let any = false;
  if (node.type === "object") {
    for (const [name, child] of node.entries) any = findMatches(child, name, query, found) || any;
  } else if (node.type === "array") {
    for (const child of node.items) any = findMatches(child, null, query, found) || any;
  }
  if (any) found.keep.add(node);
  return any;
}

// Copying a selection across lines of the tree copies the JSON of the value that holds it.
function copyTree(event) {
  const selection = window.getSelection();
  if (!selection.rangeCount || selection.isCollapsed) return;
  const range = selection.getRangeAt(0), holder = range.commonAncestorContainer;
  const tree = (holder.nodeType === 1 ? holder : holder.parentElement).closest(".tree");
  if (!tree) return;  // more than a tree: as it reads
  const lineOf = (place) => (place.nodeType === 1 ? place : place.parentElement).closest(".line");
  const first = lineOf(range.startContainer);
  if (first && first === lineOf(range.endContainer)) return;  // within a line: as it reads
  let line = holder === tree ? tree.firstChild : lineOf(holder);
  while (state.lines.get(line).from !== undefined) line = line.parentElement.closest(".line");
  event.clipboardData.setData("text/plain", writeJSON(state.lines.get(line).node, "    "));
  event.preventDefault();
}
