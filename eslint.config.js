import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import floors from "./app/server/floors.json" with { type: "json" };

// The route rules, shared by route modules and their view-models (below).
const DB_IN_ROUTE = {
  group: ["~/server/db", "~/server/db/*", "**/server/db", "**/server/db/*", "drizzle-orm", "drizzle-orm/*"],
  message: "Routes call services in app/server, never the database.",
};
const LEDGER_IN_ROUTE = {
  group: ["~/server/ledger", "~/server/ledger/*", "**/server/ledger", "**/server/ledger/*"],
  message: "Routes call services in app/server, never the ledger: money moves through a service.",
};
const GET_AUTH_IN_ROUTE = {
  name: "~/server/auth/auth.server",
  importNames: ["getAuth"],
  message:
    "Routes never hold the database handle: call a function of the screen's view-model (<screen>.server.ts beside the route) that opens it.",
};
const DB_HANDLE =
  "Routes never hold the database handle: call a function of the screen's view-model (<screen>.server.ts beside the route, withDatabase) that opens it.";
const DB_HANDLE_IN_ROUTE = [
  { selector: "ObjectPattern > Property[key.name=/^(db|database)$/]", message: DB_HANDLE },
  { selector: "MemberExpression[property.name=/^(db|database)$/]", message: DB_HANDLE },
];

// The floors of app/server, lowest first (app/server/floors.json; docs/architecture.md#dependency-directions). A folder may
// import its own floor and the floors below, never one above: the plumbing knows no service, the
// ledger knows no payment, a payment knows no back-office screen, and nothing imports the start-up
// work (jobs, seed, maintenance) that drives them all. Folder-level loops inside a floor are
// caught by tests/unit/server-layers.test.ts, which also checks every folder is on a floor.
export const SERVER_FLOORS = floors;

/** ESLint's rule for one floor: every folder of the floors above it is out of reach. */
function serverFloorRule(index) {
  const above = SERVER_FLOORS.slice(index + 1)
    .flatMap((floor) => floor.folders)
    .filter((folder) => !folder.endsWith(".ts"));
  const floor = SERVER_FLOORS[index];
  return {
    files: floor.folders.map((folder) => (folder.endsWith(".ts") ? `app/server/${folder}` : `app/server/${folder}/**`)),
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: above.map((folder) => ({
            group: [
              `~/server/${folder}`,
              `~/server/${folder}/*`,
              `**/server/${folder}/*`,
              `../${folder}/*`,
              `../../${folder}/*`,
            ],
            message: `app/server's ${floor.name} floor may not import ${folder}/, a floor above it (docs/architecture.md#dependency-directions).`,
          })),
        },
      ],
    },
  };
}

export default tseslint.config(
  {
    ignores: [
      "build/",
      "build-*/",
      "node_modules/",
      ".react-router/",
      "data/",
      "test-results/",
      "playwright-report/",
      "app/server/db/migrations/",
      "bench/results/tmp/",
    ],
  },
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
      "no-restricted-globals": [
        "error",
        { name: "parseFloat", message: "Use parseDollarsToCents from ~/domain/money for amounts." },
      ],
    },
  },
  // The directions of docs/architecture.md#dependency-directions, enforced. A fixture test proves
  // each fires (tests/unit/import-directions.test.ts).
  {
    // Routes are thin: they parse, authorize and call a service in app/server; never SQL, the
    // database handle or the ledger (money moves only through a service).
    files: ["app/routes/**"],
    ignores: ["app/routes/**/*.server.ts"],
    rules: {
      "no-restricted-imports": ["error", { paths: [GET_AUTH_IN_ROUTE], patterns: [DB_IN_ROUTE, LEDGER_IN_ROUTE] }],
      // Nor do they hold the database handle that a helper or service could hand them: they call
      // functions that open the database themselves (a view-model's, see below).
      "no-restricted-syntax": ["error", ...DB_HANDLE_IN_ROUTE],
    },
  },
  {
    // A screen's view-model beside its route (app/routes/<area>/<screen>.server.ts) shapes what
    // the page shows and hands the route functions that open the database themselves
    // (withDatabase in ~/server/db/db.server). It may open the database, nothing more: no SQL,
    // no schema, no ledger (those live in app/server, in the module named for what it holds).
    files: ["app/routes/**/*.server.ts"],
    rules: {
      // Types (Db for a parameter) are fine: they hold nothing.
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^|/)server/db(/(?!db\\.server$).*)?$|^drizzle-orm(/|$)",
              allowTypeImports: true,
              message:
                "A view-model opens the database (withDatabase from ~/server/db/db.server) and calls services in app/server; the SQL lives there.",
            },
            { ...LEDGER_IN_ROUTE, allowTypeImports: true },
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
        {
          patterns: [
            {
              group: ["~/server", "~/server/*", "**/server/*"],
              allowTypeImports: true,
              message:
                "Components import app/server for types only (import type); the data comes from the route's loader.",
            },
          ],
        },
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
          paths: [
            "fs",
            "fs/promises",
            "path",
            "crypto",
            "net",
            "http",
            "https",
            "os",
            "child_process",
            "pg",
            "better-auth",
            "react-router",
          ].map((name) => ({
            name,
            message: "app/domain is pure: no I/O, no server, no database.",
          })),
          patterns: [
            {
              group: [
                "~/server",
                "~/server/*",
                "**/server/*",
                "~/config/*.server",
                "node:*",
                "drizzle-orm",
                "drizzle-orm/*",
                "@electric-sql/*",
                "better-auth/*",
              ],
              message: "app/domain is pure: no I/O, no server, no database.",
            },
          ],
        },
      ],
    },
  },
  // app/server's floors, each kept from the ones above it.
  ...SERVER_FLOORS.slice(0, -1).map((_, index) => serverFloorRule(index)),
);
