import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // MUTUAL_BUILD_DIR lets two browser-test runs side by side (E2E_PORT) keep separate builds.
  buildDirectory: process.env.MUTUAL_BUILD_DIR ?? "build",
} satisfies Config;
