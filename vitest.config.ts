import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

const alias = { "~": fileURLToPath(new URL("./app", import.meta.url)) };

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node" },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Builds the compiled server once, for the tests that start it (tests/integration/app-server.ts).
          globalSetup: ["tests/integration/global-setup.ts"],
          // PGlite instances are memory-hungry; a few files at a time is plenty on 2 cores.
          maxWorkers: 2,
        },
      },
    ],
  },
});
