// eslint's rules for the browsable page's script, page/script/ (`npx eslint page`, or
// `python tools/page.py --check`, which CI runs). The page runs the script's files as one
// script: tools/page.py writes them one after another into one function scope. So each file
// is linted inside that whole, as the page runs it, and its findings are given at its own lines.
import fs from "node:fs";
import path from "node:path";
import js from "@eslint/js";

const PAGE = path.join(import.meta.dirname, "page");
// The scope tools/page.py opens before the first file and closes after the last (SCRIPT_OPEN,
// SCRIPT_CLOSE there): these two must say the same as those.
const OPEN = '(function () {\n"use strict";\n\n';
const CLOSE = "\nstart();\n}());\n";

const newlines = (text) => text.split("\n").length - 1;
const placed = new Map();  // a file being linted: {first, count}, its lines in the whole
const filesIn = (folder) => fs.readdirSync(path.join(PAGE, folder)).filter(
  (name) => name.endsWith(".js")).sort().map((name) => path.join(PAGE, folder, name));

// Each file of the script, linted as the whole script the page runs, its findings its own; a
// file of page/test/, as the tests' build, the script's sections and it.
const wholeScript = {
  meta: {name: "flask-api-page-script"},
  preprocess(text, filename) {
    const own = path.resolve(filename);
    const files = filesIn("script").concat(path.dirname(own) === path.join(PAGE, "test") ?
      [own] : []);
    let line = newlines(OPEN) + 1;
    const texts = files.map((file) => {
      const body = file === own ? text : fs.readFileSync(file, "utf8");
      if (file === own) placed.set(filename, {first: line, count: newlines(body)});
      line += newlines(body) + 1;  // and the blank line that joins the next
      return body;
    });
    return [{text: OPEN + texts.join("\n") + CLOSE, filename: "page.js"}];
  },
  postprocess([messages], filename) {
    const {first, count} = placed.get(filename);
    placed.delete(filename);
    const own = (line) => line >= first && line < first + count;
    return messages.filter((message) => own(message.line)).map((message) => ({
      ...message, line: message.line - first + 1,
      ...(message.endLine ? {endLine: message.endLine - first + 1} : {}),
      fix: undefined, suggestions: undefined}));
  },
  supportsAutofix: false,
};

export default [
  js.configs.recommended,
  {
    files: ["page/script/*.js", "page/test/*.js"],
    processor: wholeScript,
  },
  {
    files: ["page/script/*.js/*.js", "page/test/*.js/*.js"],  // as wholeScript hands them on
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      // What the script uses of the browser, and nothing else: a new name is a deliberate choice.
      globals: {
        window: "readonly", document: "readonly", history: "readonly", navigator: "readonly",
        performance: "readonly", sessionStorage: "readonly", fetch: "readonly",
        setTimeout: "readonly", clearTimeout: "readonly", URL: "readonly",
        URLSearchParams: "readonly", FormData: "readonly", DOMParser: "readonly",
        CustomEvent: "readonly",
        // a stream, live: read as it comes, stopped at will, drawn once a frame, its clock ticking
        TextDecoder: "readonly", AbortController: "readonly", requestAnimationFrame: "readonly",
        setInterval: "readonly", clearInterval: "readonly", Intl: "readonly",
        // a stream's page, read as the browser parses it; a last event id as Last-Event-ID
        MutationObserver: "readonly", TextEncoder: "readonly",
        // signing in: PKCE's random values and SHA-256, Basic's and JWTs' base64
        crypto: "readonly", atob: "readonly", btoa: "readonly",
        // the history's big bodies, gzipped for sessionStorage
        Blob: "readonly", Response: "readonly", CompressionStream: "readonly",
        DecompressionStream: "readonly",
      },
    },
    rules: {
      strict: ["error", "function"],  // one function scope, in strict mode: no globals
      "no-implicit-globals": "error",
      "no-shadow": ["error", {hoist: "all"}],
      "no-use-before-define": ["error", {functions: false}],  // the page's order, top down
      "no-var": "error",
      "prefer-const": "error",
      eqeqeq: "error",
      "no-param-reassign": "error",
      "no-implied-eval": "error",
      "no-new-func": "error",
      "no-control-regex": "off",  // JSON's strings exclude control characters: the parser says so
      // No markup from strings: data reaches the page as text nodes and attributes only.
      "no-restricted-properties": ["error",
        {property: "innerHTML"}, {property: "outerHTML"}, {property: "insertAdjacentHTML"},
        {object: "document", property: "write"}, {object: "document", property: "writeln"}],
    },
  },
];
