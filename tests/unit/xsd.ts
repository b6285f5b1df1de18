import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";

/**
 * Validates XML against the ISO 20022 pain.001.001.09 schema with Debian's xmllint (package
 * libxml2-utils), a validator that shares nothing with the code that wrote the message, and reads
 * values back with XPath. Fails loudly when xmllint is missing: an unchecked wire file is a
 * failed payment.
 */
export const PAIN001_XSD = path.join(import.meta.dirname, "..", "fixtures", "iso20022", "pain.001.001.09.xsd");

function xmllint(args: string[], input: string) {
  const result = spawnSync("xmllint", args, { input, encoding: "utf8" });
  if (result.error)
    throw new Error(
      `xmllint is needed for these tests (sudo apt-get install -y libxml2-utils): ${result.error.message}`,
    );
  return result;
}

export function validatePain001(xml: string): { valid: boolean; errors: string } {
  const result = xmllint(["--noout", "--schema", PAIN001_XSD, "-"], xml);
  return { valid: result.status === 0, errors: result.stderr };
}

function localPath(steps: string): string {
  return steps
    .split("/")
    .map((step) => (step.startsWith("@") ? step : `*[local-name()='${step}']`))
    .join("/");
}

/** The string value of the n-th (1-based) node at `a/b/@c` (local names, namespace ignored), as a parser reads it: entities decoded. */
export function xpathValue(xml: string, steps: string, n = 1): string {
  const [elements, attribute] = steps.includes("/@") ? steps.split("/@") : [steps, undefined];
  const expression = `string((//${localPath(elements!)})[${n}]${attribute ? `/@${attribute}` : ""})`;
  return execFileSync("xmllint", ["--xpath", expression, "-"], { input: xml, encoding: "utf8" }).replace(/\n$/, "");
}

export function xpathCount(xml: string, steps: string): number {
  return Number(
    execFileSync("xmllint", ["--xpath", `count(//${localPath(steps)})`, "-"], { input: xml, encoding: "utf8" }).trim(),
  );
}
