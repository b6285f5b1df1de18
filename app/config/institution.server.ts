import fs from "node:fs";
import { ConfigurationError, env } from "./env.server";
import { demoInstitution } from "./demo-institution";
import { InstitutionSchema, type Institution } from "./institution";

/** Validates a profile; a bad one stops start-up with every problem named by its path. */
export function parseInstitution(raw: unknown, source: string): Institution {
  const result = InstitutionSchema.safeParse(raw);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw new ConfigurationError(`Invalid institution profile (${source}):\n${lines.join("\n")}`);
  }
  return result.data;
}

let cached: Institution | undefined;

export function institution(): Institution {
  if (cached) return cached;
  const file = env().INSTITUTION_CONFIG;
  if (!file) {
    cached = parseInstitution(demoInstitution, "demo default");
    return cached;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigurationError(`INSTITUTION_CONFIG: cannot read ${file} as JSON (${(error as Error).message})`);
  }
  cached = parseInstitution(raw, file);
  return cached;
}
