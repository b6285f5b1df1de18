import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";

// The UI libraries are bundled into the server build, so that only the components, icons and
// chart parts the pages use are in it: loaded from node_modules, each brings every file of its
// package (lucide-react all its icons, react-aria-components and recharts hundreds of modules), and
// loading those was most of the production server's start-up. Everything else stays in
// node_modules: React and React Router (one copy, shared with server.ts), the database, auth and
// native or WebAssembly packages (@electric-sql/pglite, @node-rs/argon2, sharp, pg).
const bundledForServer = [
  /^lucide-react/,
  /^react-aria-components/,
  /^react-aria(\/|$)/,
  /^react-stately(\/|$)/,
  /^@react-aria\//,
  /^@react-stately\//,
  /^@react-types\//,
  /^@internationalized\//,
  /^recharts/,
  /^victory-vendor/,
  /^d3-/,
  /^internmap/,
  /^@reduxjs\/toolkit/,
  /^react-redux/,
  /^redux(-thunk)?(\/|$)/,
  /^reselect/,
  /^immer/,
  /^es-toolkit/,
  /^decimal\.js-light/,
  /^eventemitter3/,
];

export default defineConfig({
  plugins: [tailwindcss(), reactRouter()],
  resolve: { alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) } },
  build: { target: "es2022" },
  ssr: { noExternal: bundledForServer },
});
