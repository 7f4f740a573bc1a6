// ESLint over the field app (plain ES modules, no build step) and its Node unit tests.
// The recommended rules everywhere; globals by where the code runs: the page, the service worker, Node.
import js from "@eslint/js";
import globals from "globals";
import { importX, createNodeResolver } from "eslint-plugin-import-x";

const PWA = "inspect_api/static/pwa/js";

export default [
  { ignores: ["node_modules/", ".venv/", "test-artifacts/", "build/", "dist/", "inspect_api/static/pwa/vendor/"] },
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
    // The app's layout: only the router (app.js) imports screens; what two screens share lives in
    // js/ui/, which imports no screen, so a screen changes without reaching into the others.
    // Imports are the browser's (relative paths to .js files), which Node's resolution finds as well.
    files: ["inspect_api/static/pwa/**/*.js"],
    plugins: { "import-x": importX },
    settings: { "import-x/resolver-next": [createNodeResolver()] },
    rules: {
      // In a module loop one module runs before a module it imports has finished (an imported
      // `const` is still unset when it is read), and which one depends on where the app entered.
      "import-x/no-cycle": "error",
      // The layout above: a screen imports no screen; js/ui/ imports no screen.
      "import-x/no-restricted-paths": ["error", {
        basePath: import.meta.dirname,
        zones: [
          { target: `${PWA}/screens`, from: `${PWA}/screens`,
            message: "A screen does not import another screen: shared widgets belong in js/ui/." },
          { target: `${PWA}/ui`, from: `${PWA}/screens`,
            message: "js/ui/ is shared by the screens, so it imports none of them." },
        ],
      }],
    },
  },
  {
    // The public pages' few scripts (inspect_api/public/static): ES modules in the page.
    files: ["inspect_api/public/static/**/*.js"],
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
