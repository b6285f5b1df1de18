import { pino } from "pino";
import { loggerOptions } from "./logging/redact.server";

/**
 * One logger for code inside the React Router build; lines carry the request id they serve.
 * Cookies, tokens, codes and query values are kept out of it (logging/redact.server.ts).
 */
export const logger = pino(loggerOptions(knownLevel(process.env.LOG_LEVEL)));

/** A LOG_LEVEL pino does not know would throw here, before start-up can name the variable (env.server.ts does). */
function knownLevel(level: string | undefined): string {
  return level && ["fatal", "error", "warn", "info", "debug", "trace", "silent"].includes(level) ? level : "info";
}
