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

// The browser build, by default, makes one file per set of modules shared by a different set of
// pages: a public page loaded 30-50 files (each icon its own), and on a phone's connection every
// file costs a round trip. Grouped instead: the icons in one file (12 KB compressed, all of them),
// the site's frame (header, footer, links, with React Router, which they import) in another, the
// marketing pages' sections in a third. The parts loaded on demand (the signed-in menu, the
// settings dialogs, the market tabs) stay out of the groups, so that React Aria is not pulled into
// every public page.
const browserChunks = [
  {
    name: "icons",
    test: /node_modules[\\/]lucide-react[\\/]|app[\\/]components[\\/](site[\\/]icons|ui[\\/]static-icon)\./,
  },
  { name: "site", test: /app[\\/]components[\\/]site[\\/](?!user-menu-popover|site-settings-dialogs)/ },
  { name: "marketing", test: /app[\\/]components[\\/]marketing[\\/](?!market-tabs)/ },
];

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [tailwindcss(), reactRouter()],
  resolve: { alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) } },
  build: {
    target: "es2022",
    ...(isSsrBuild ? {} : { rolldownOptions: { output: { codeSplitting: { groups: browserChunks } } } }),
  },
  ssr: { noExternal: bundledForServer },
}));
