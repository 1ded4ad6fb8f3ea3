// eslint's rules for the browsable page's script, _PAGE_SCRIPT in flask_api.py, which
// tools/page_script.py hands to it: `python tools/page_script.py --check` (CI runs it).
import js from "@eslint/js";

export default [
  js.configs.recommended,
  {
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
