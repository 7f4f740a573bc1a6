// ESLint over the field app (plain ES modules, no build step) and its Node unit tests.
// The recommended rules everywhere; globals by where the code runs: the page, the service worker, Node.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", ".venv/", "test-artifacts/", "build/", "dist/"] },
  js.configs.recommended,
  {
    // `const { bytes, ...rest } = item` is how the app drops a field from a copy: not an unused variable.
    rules: { "no-unused-vars": ["error", { ignoreRestSiblings: true }] },
  },
  {
    files: ["inspect_api/static/pwa/**/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["inspect_api/static/pwa/sw.js"],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
];
