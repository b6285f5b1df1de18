import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

export default tseslint.config(
  { ignores: ["build/", "build-e2e-*/", "node_modules/", ".react-router/", "data/", "test-results/", "playwright-report/", "app/server/db/migrations/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      // Money is integer cents: parseFloat on an amount is almost always a bug.
      "no-restricted-globals": ["error", { name: "parseFloat", message: "Use parseDollarsToCents from ~/domain/money for amounts." }],
    },
  },
  {
    // Routes are thin: no SQL, no database handle (ARCHITECTURE "Layout").
    files: ["app/routes/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["~/server/db/*", "drizzle-orm", "drizzle-orm/*"], message: "Routes call services in app/server, never the database." }] }],
    },
  },
);
