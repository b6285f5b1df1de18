/**
 * "The database cannot be reached right now": PostgreSQL restarting or stopped, a connection
 * killed, a network failure, a server too busy or too slow to answer. Such a failure is nobody's
 * mistake and passes: the app answers 503 (try again) and keeps running, never 500 or a crash.
 *
 * The drivers wrap what happened (Drizzle's "Failed query" error carries the driver's error as its
 * `cause`; a failed connection to "localhost" is an AggregateError of one error per address), so
 * the whole chain is read.
 */
export class DatabaseUnavailableError extends Error {
  /** The SQLSTATE or Node.js error code that decided it, when there is one. */
  readonly code: string | undefined;
  constructor(cause: unknown, code?: string) {
    super("The database is unavailable", { cause });
    this.name = "DatabaseUnavailableError";
    this.code = code;
  }
}

/** Socket-level failures reaching or talking to the server. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs that mean the server or the connection is gone or cannot serve: class 08 (connection
 * exception), 57P01/57P02/57P03 (shut down by an administrator, after a crash, or still starting),
 * 53300 (too many connections), 25P03 (a transaction left idle too long: the server closed the
 * connection), 25006 (a write on a server that is read-only now: a standby, or a primary being
 * demoted in a failover; the next connection goes to the new primary).
 */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "25P03", "25006"]);

/** node-postgres and pg-pool report these without a code. */
const DRIVER_MESSAGES = [
  /^Connection terminated/, // the socket closed under a client ("unexpectedly", or "due to connection timeout")
  /^timeout exceeded when trying to connect/, // no pooled connection free within the connect timeout
  /^Query read timeout/, // the server stopped answering a statement
  /is not queryable/, // a client whose connection already failed
];

/** The DatabaseUnavailableError an error amounts to, or null when it is any other failure. */
export function databaseUnavailable(error: unknown): DatabaseUnavailableError | null {
  if (error instanceof DatabaseUnavailableError) return error;
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0 && seen.size < 20) {
    const current = pending.shift();
    if (current === null || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    if (current instanceof DatabaseUnavailableError) return current;
    const { code, message, cause, errors, name } = current as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
      name?: unknown;
    };
    // One made by the other module graph (the server entry's and the React Router build's each
    // have this class; the database they share was opened by one of them): not instanceof this one.
    if (name === "DatabaseUnavailableError")
      return new DatabaseUnavailableError(error, typeof code === "string" ? code : undefined);
    const text = typeof message === "string" ? message : "";
    if (typeof code === "string") {
      if (NETWORK_CODES.has(code) || code.startsWith("08") || UNAVAILABLE_SQLSTATES.has(code))
        return new DatabaseUnavailableError(error, code);
      // Class 58: the server's own disk or files failed (an I/O error, a file gone). And a file of
      // the server's it may no longer open (42501 from EACCES: a data folder made unreachable, as
      // the failover test does to a killed primary whose backends still run): not a privilege the
      // app lacks, which stays a 500.
      if (code.startsWith("58") || (code === "42501" && /^could not (open|read|write|stat|create) file/.test(text)))
        return new DatabaseUnavailableError(error, code);
      // 57014 is also a cancelled statement; only the statement timeout means "too slow to answer".
      if (code === "57014" && /statement timeout/.test(text)) return new DatabaseUnavailableError(error, code);
    }
    if (DRIVER_MESSAGES.some((pattern) => pattern.test(text)))
      return new DatabaseUnavailableError(error, typeof code === "string" ? code : undefined);
    pending.push(cause);
    if (Array.isArray(errors)) pending.push(...(errors as unknown[]));
  }
  return null;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return databaseUnavailable(error) !== null;
}

/**
 * What to log about a database failure: the innermost code and message only. Never the error
 * itself, whose message may hold the SQL text and its parameters (personal data, codes).
 */
export function describeDatabaseError(error: unknown): { code?: string; message: string } {
  let innermost: unknown = error;
  for (let depth = 0; depth < 10; depth++) {
    const next =
      (innermost as { cause?: unknown } | null)?.cause ?? (innermost as { errors?: unknown[] } | null)?.errors?.[0];
    if (next === undefined || next === null || typeof next !== "object") break;
    innermost = next;
  }
  const { code, message } = (innermost ?? {}) as { code?: unknown; message?: unknown };
  // A driver message is about the connection ("connect ECONNREFUSED 127.0.0.1:5432",
  // "terminating connection due to administrator command"); cut it short all the same.
  const text =
    typeof message === "string" && !message.startsWith("Failed query") ? message.slice(0, 200) : "database error";
  return typeof code === "string" ? { code, message: text } : { message: text };
}
