import { pino } from "pino";

/** One logger for code inside the React Router build; lines carry the request id they serve. */
export const logger = pino({ level: process.env.LOG_LEVEL ?? "info" });
