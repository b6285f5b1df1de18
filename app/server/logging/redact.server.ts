import { pino, type LoggerOptions } from "pino";

/**
 * What the logs may not hold: cookies (a live session), Authorization headers, tokens and codes
 * in addresses (a password-reset link), SQL parameters (a step-up code, a member's email or date
 * of birth). One set of rules for both loggers, the HTTP entry's (server.ts) and the one inside
 * the React Router build (logger.server.ts), so a new log line cannot forget them:
 * - addresses keep their path and query names, never query values (redactUrl);
 * - errors keep their type, SQL text (with $1 placeholders), message and stack, never the values
 *   the query was run with (serializeError);
 * - keys that name a secret (cookie, authorization, password, token, secret, params, and a
 *   taxpayer number: tin, joint_tin, ssn, itin, taxpayer_id) are replaced
 *   wherever they appear in a logged object (the pino `redact` paths and scrubLogObject);
 * - HTTP responses are logged by status code only, without their headers (Set-Cookie).
 */
export const REDACTED = "[redacted]";

/** Query parameters whose values are React Router's own (route ids), never a person's input. */
const KEPT_QUERY_KEYS = new Set(["_routes", "index"]);

/** `url` (a path or an absolute address) with every query value replaced, except React Router's own. */
export function redactUrl(url: string): string {
  const start = url.indexOf("?");
  if (start === -1) return url;
  const query = url.slice(start + 1).split("#")[0]!;
  const kept = query
    .split("&")
    .filter((pair) => pair !== "")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const key = equals === -1 ? pair : pair.slice(0, equals);
      if (KEPT_QUERY_KEYS.has(key)) return pair;
      // A lone value (`?abc123`) may itself be a token.
      return equals === -1 ? REDACTED : `${key}=${REDACTED}`;
    });
  return `${url.slice(0, start)}?${kept.join("&")}`;
}

/**
 * Keys whose values never reach a log line, at any depth. The mail ones are nodemailer's: a
 * failed delivery's error carries the recipients' addresses (`rejected`, `accepted`,
 * `recipient`, `envelope`) and the mail server's reply, which often quotes the address.
 */
const SECRET_KEY =
  /^(params|parameters|queryoptions|cookie|cookies|set-cookie|authorization|proxy-authorization|x-api-key|otp|totp|rejected|accepted|recipient|recipients|envelope|response)$|password|token|secret|^(joint_)?(tin|ssn|itin)$|taxpayer/i;
/** `code` is a one-time code in a form body, but an error's code elsewhere (SQLSTATE "23505", "ECONNRESET", "INVALID_OTP"): those are kept. */
const ERROR_CODE = /^([0-9A-Z]{5}|[A-Z][A-Z0-9_]+)$/;
/** Keys whose string values are addresses, logged without their query values. */
const URL_KEY = /^(url|href|location|referer|referrer|originalurl)$/i;

/** A field's value as it may be logged, judged by its key. */
function scrubField(key: string, value: unknown, secrets: Secrets, depth: number, seen: WeakSet<object>): unknown {
  if (SECRET_KEY.test(key)) return REDACTED;
  if (/^code$/i.test(key) && !(typeof value === "string" && ERROR_CODE.test(value)))
    return value === undefined || value === null ? value : REDACTED;
  if (URL_KEY.test(key) && typeof value === "string") return scrubText(redactUrl(value), secrets);
  return scrubValue(value, secrets, depth, seen);
}
const MAX_DEPTH = 8;

/** Values a failed query was run with (Drizzle's error and the driver's error under it carry them). */
function queryParameters(error: unknown, seen = new Set<unknown>()): unknown[][] {
  if (!error || typeof error !== "object" || seen.has(error)) return [];
  seen.add(error);
  const found: unknown[][] = [];
  const record = error as Record<string, unknown>;
  for (const key of ["params", "parameters"]) {
    if (Array.isArray(record[key])) found.push(record[key] as unknown[]);
  }
  found.push(...queryParameters(record.cause, seen));
  if (Array.isArray(record.errors)) for (const inner of record.errors) found.push(...queryParameters(inner, seen));
  return found;
}

/** Texts to cut out of an error's strings: parameter lists as Drizzle prints them, and single values. */
interface Secrets {
  lists: string[];
  values: string[];
}
const NO_SECRETS: Secrets = { lists: [], values: [] };

/** The texts to cut out of an error: each parameter list as Drizzle prints it, and each value long enough to be worth hiding. */
function secretTexts(parameterLists: unknown[][]): Secrets {
  const values = new Set<string>();
  for (const list of parameterLists) {
    for (const value of list) {
      const text =
        typeof value === "string"
          ? value
          : typeof value === "number" || typeof value === "bigint"
            ? String(value)
            : value instanceof Date
              ? value.toISOString()
              : null;
      // Shorter values ("1", "NH", "true") would cut words out of the SQL text and hide nothing.
      if (text !== null && text.length >= 4) values.add(text);
    }
  }
  // Longest first, so a value that contains another is replaced whole.
  return { lists: parameterLists.map((list) => String(list)), values: [...values].sort((a, b) => b.length - a.length) };
}

/**
 * A message or stack with the query's values taken out: Drizzle's "params: …" line, PostgreSQL's
 * quoted input ("invalid input syntax for type date: \"2024-02-31\"") and key values in its details
 * ("Key (email)=(…) already exists", "Failing row contains (…)").
 */
export function scrubText(text: string, secrets: Secrets = NO_SECRETS): string {
  let out = text;
  for (const list of secrets.lists) if (list) out = out.split(`params: ${list}`).join(`params: ${REDACTED}`);
  for (const value of secrets.values) out = out.split(value).join(REDACTED);
  return out
    .replace(/(^|\n)(\s*params: )[^\n]*/g, `$1$2${REDACTED}`)
    .replace(/(invalid input (?:syntax|value) for [^:\n]*: )"(?:[^"\\]|\\.)*"/g, `$1"${REDACTED}"`)
    .replace(
      /(Key \([^)]*\)=\().*?(\) (?:already exists|is not present|is still referenced|conflicts with))/gs,
      `$1${REDACTED}$2`,
    )
    .replace(/(Failing row contains \().*\)/gs, `$1${REDACTED})`);
}

function isErrorLike(value: unknown): value is Error {
  return (
    value instanceof Error ||
    (typeof value === "object" &&
      value !== null &&
      typeof (value as Error).message === "string" &&
      typeof (value as Error).stack === "string")
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function scrubValue(value: unknown, secrets: Secrets, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === "string") return scrubText(value, secrets);
  if (typeof value !== "object" || value === null) return value;
  if (seen.has(value) || depth > MAX_DEPTH) return "[not logged]";
  if (isErrorLike(value)) return serializeError(value);
  if (Array.isArray(value)) {
    seen.add(value);
    return value.map((item) => scrubValue(item, secrets, depth + 1, seen));
  }
  // Other class instances (a Request, a Buffer, a Date) are left to pino's own JSON rules.
  if (!isPlainObject(value)) return value;
  seen.add(value);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = scrubField(key, inner, secrets, depth + 1, seen);
  return out;
}

/**
 * pino's error serializer (type, message with its causes, stack with its causes, own fields), then
 * every query value removed. Accepts the error itself or pino-http's already serialized copy.
 */
export function serializeError(value: unknown): unknown {
  const raw =
    typeof value === "object" && value !== null && isErrorLike((value as { raw?: unknown }).raw)
      ? (value as { raw: Error }).raw
      : value;
  if (!isErrorLike(raw)) return scrubValue(value, NO_SECRETS, 0, new WeakSet());
  const secrets = secretTexts(queryParameters(raw));
  const serialized = pino.stdSerializers.err(raw) as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(serialized)) {
    out[key] = scrubField(key, inner, secrets, 1, new WeakSet());
  }
  return out;
}

/** An error as text for a plain console line (start-up failures), with the same rules. */
export function errorText(error: unknown): string {
  const serialized = serializeError(error) as { stack?: unknown; message?: unknown };
  return typeof serialized.stack === "string" ? serialized.stack : String(serialized.message ?? serialized);
}

/** Keys with serializers of their own (the request, the response, the error) are left to them. */
const SERIALIZED_KEYS = new Set(["req", "res", "err", "error"]);

/** Every other field of a log line: secret keys replaced, errors serialized, query values cut from text. */
export function scrubLogObject(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (SERIALIZED_KEYS.has(key)) out[key] = value;
    else out[key] = scrubField(key, value, NO_SECRETS, 0, new WeakSet());
  }
  return out;
}

/** Header paths hidden even if a log line carries headers. */
const REDACTED_PATHS = ["cookie", "authorization", '["set-cookie"]'].flatMap((header) => [
  `headers.${header}`,
  `*.headers.${header}`,
  `*.*.headers.${header}`,
]);

/** The options both loggers are built with. */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
    serializers: { err: serializeError, error: serializeError },
    formatters: { log: scrubLogObject },
    hooks: {
      // The message itself: `logger.error(error)` and `logger.error({ err })` use the error's
      // message, which for a failed query lists its parameters.
      logMethod(args, method) {
        const [first, ...rest] = args as unknown[];
        if (isErrorLike(first)) {
          const message =
            typeof rest[0] === "string" ? rest.shift() : (serializeError(first) as { message?: string }).message;
          return method.apply(this, [
            { err: first },
            scrubText(String(message)),
            ...rest.map((item) => (typeof item === "string" ? scrubText(item) : item)),
          ] as never);
        }
        const error = typeof first === "object" && first !== null ? (first as { err?: unknown }).err : undefined;
        if (isErrorLike(error) && typeof rest[0] !== "string")
          rest.unshift((serializeError(error) as { message?: string }).message ?? "");
        return method.apply(
          this,
          [first, ...rest].map((item) => (typeof item === "string" ? scrubText(item) : item)) as never,
        );
      },
    },
  };
}

/** pino-http's fields: the request as method, redacted address and id; the response as its status only. */
export const httpLogSerializers = {
  req: (req: { id?: unknown; method?: string; url?: string }) => ({
    id: req.id,
    method: req.method,
    url: typeof req.url === "string" ? redactUrl(req.url) : req.url,
  }),
  res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
  err: serializeError,
};
