import { pino } from "pino";
import { loggerOptions } from "./logging/redact.server";

/**
 * One logger for code inside the React Router build; lines carry the request id they serve.
 * Cookies, tokens, codes and query values are kept out of it (logging/redact.server.ts).
 */
export const logger = pino(loggerOptions(process.env.LOG_LEVEL ?? "info"));
