import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

export default tseslint.config(
  { ignores: ["build/", "build-e2e-*/", "node_modules/", ".react-router/", "data/", "test-results/", "playwright-report/", "app/server/db/migrations/", "bench/results/tmp/"] },
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
  // The directions of docs/architecture.md#dependency-directions, enforced. A fixture test proves
  // each fires (tests/unit/import-directions.test.ts).
  {
    // Routes are thin: they parse, authorize and call a service in app/server; never SQL, the
    // database handle or the ledger (money moves only through a service).
    files: ["app/routes/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["~/server/db", "~/server/db/*", "**/server/db", "**/server/db/*", "drizzle-orm", "drizzle-orm/*"], message: "Routes call services in app/server, never the database." },
            { group: ["~/server/ledger", "~/server/ledger/*", "**/server/ledger", "**/server/ledger/*"], message: "Routes call services in app/server, never the ledger: money moves through a service." },
          ],
        },
      ],
    },
  },
  {
    // Components also run in the browser: from app/server they take types only.
    files: ["app/components/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        { patterns: [{ group: ["~/server", "~/server/*", "**/server/*"], allowTypeImports: true, message: "Components import app/server for types only (import type); the data comes from the route's loader." }] },
      ],
    },
  },
  {
    // The domain is pure (rules, schemas, messages): nothing with I/O, so it runs and is tested
    // anywhere, the browser included.
    files: ["app/domain/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: ["fs", "fs/promises", "path", "crypto", "net", "http", "https", "os", "child_process", "pg", "better-auth", "react-router"].map((name) => ({
            name,
            message: "app/domain is pure: no I/O, no server, no database.",
          })),
          patterns: [
            {
              group: ["~/server", "~/server/*", "**/server/*", "~/config/*.server", "node:*", "drizzle-orm", "drizzle-orm/*", "@electric-sql/*", "better-auth/*"],
              message: "app/domain is pure: no I/O, no server, no database.",
            },
          ],
        },
      ],
    },
  },
);
