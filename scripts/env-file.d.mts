// Types of scripts/env-file.mjs, a plain JavaScript module (scripts/with-env.mjs runs without a build).
export function parseEnvironmentFile(text: string): {
  values: Record<string, string>;
  skipped: { line: number; name: string }[];
};
export const PASSED_THROUGH: readonly string[];
