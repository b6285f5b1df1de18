import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { auditLog, users } from "~/server/db/schema";
import { logger } from "~/server/logger.server";
import { csvDocument, csvField } from "~/server/files/csv.server";

/**
 * The audit log (docs/product.md#nothing-deleted): who, what, when, before and after, for every
 * staff action and security event. Writers call `recordAudit` with the same transaction as the
 * change it records, so either both land or neither does. The table is append-only in the database
 * itself.
 */
export interface AuditEntry {
  /** The person who acted; null for the system or an anonymous visitor. */
  actor_id: string | null;
  actor_email?: string | null;
  /** Dotted verb, e.g. `application.approve`, `auth.sign_in.failed`. */
  action: string;
  subject_type?: string | null;
  subject_id?: string | number | null;
  /** The member concerned, for filtering (defaults to subject_id when subject_type is "member"). */
  member_id?: string | null;
  before?: unknown;
  after?: unknown;
  request_id?: string | null;
  ip?: string | null;
  at?: Date;
}

/** Where a request came from, for the audit row: from `requestInfoContext` in a route. */
export interface AuditOrigin {
  request_id: string | null;
  ip: string | null;
}

const ACTION_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
const TEXT_MAX_CHARS = 200;

export class AuditActionError extends Error {}

/** Appends one row. Throws (and so rolls back the caller's transaction) if it cannot be written. */
export async function recordAudit(db: DbOrTx, entry: AuditEntry): Promise<{ id: number }> {
  if (!ACTION_PATTERN.test(entry.action) || entry.action.length > 100)
    throw new AuditActionError(`bad audit action ${entry.action}`);
  const subject_id =
    entry.subject_id === null || entry.subject_id === undefined
      ? null
      : String(entry.subject_id).slice(0, TEXT_MAX_CHARS);
  const member_id = entry.member_id ?? (entry.subject_type === "member" ? subject_id : null);
  const [row] = await db
    .insert(auditLog)
    .values({
      actor_id: entry.actor_id,
      actor_email: entry.actor_email?.slice(0, TEXT_MAX_CHARS) ?? null,
      action: entry.action,
      subject_type: entry.subject_type ?? null,
      subject_id,
      member_id,
      before: entry.before === undefined ? null : toJson(entry.before),
      after: entry.after === undefined ? null : toJson(entry.after),
      request_id: entry.request_id?.slice(0, 100) ?? null,
      ip: entry.ip?.slice(0, 100) ?? null,
      ...(entry.at ? { at: entry.at } : {}),
    })
    .returning({ id: auditLog.id });
  return { id: row!.id };
}

/**
 * For the sign-in code (security events: sign-ins, wrong passwords, lockouts, codes, password
 * changes). Never throws: a security event must not break the sign-in it describes, so a failure
 * to record is logged instead. Staff actions use `recordAudit` inside their transaction.
 */
export async function recordSecurityEvent(
  db: DbOrTx,
  event: {
    action: `auth.${string}`;
    user_id?: string | null;
    email?: string | null;
    detail?: unknown;
    request_id?: string | null;
    ip?: string | null;
  },
): Promise<void> {
  try {
    await recordAudit(db, {
      actor_id: event.user_id ?? null,
      actor_email: event.email ?? null,
      action: event.action,
      subject_type: event.user_id ? "member" : event.email ? "email" : null,
      subject_id: event.user_id ?? event.email ?? null,
      member_id: event.user_id ?? null,
      after: event.detail,
      request_id: event.request_id ?? null,
      ip: event.ip ?? null,
    });
  } catch (error) {
    logger.error({ err: error, action: event.action }, "could not record a security event");
  }
}

function toJson(value: unknown): unknown {
  // Dates and other objects become plain JSON; undefined members vanish.
  return JSON.parse(JSON.stringify(value ?? null));
}

export interface AuditFilter {
  /** Actor: a user id, or part of an email address (prefix). */
  actor?: string | null;
  /** Member concerned: a user id, or an email address (exact). */
  member?: string | null;
  /** Action, exact or a prefix ending in "." (e.g. "application."). */
  action?: string | null;
  /** Inclusive day range, YYYY-MM-DD (UTC). */
  from?: string | null;
  to?: string | null;
}

export interface AuditListItem {
  id: number;
  at: Date;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  subject_type: string | null;
  subject_id: string | null;
  member_id: string | null;
  member_email: string | null;
  before: unknown;
  after: unknown;
  request_id: string | null;
  ip: string | null;
}

const PAGE_MAX = 200;
const EXPORT_ROWS_MAX = 50_000;

async function filterConditions(db: Db, filter: AuditFilter): Promise<SQL[] | null> {
  const conditions: SQL[] = [];
  const actor = filter.actor?.trim().toLowerCase();
  if (actor) {
    if (actor.includes("@") || !/^[A-Za-z0-9_-]{8,}$/.test(actor)) {
      conditions.push(sql`lower(${auditLog.actor_email}) like ${`${escapeLike(actor)}%`} escape '\\'`);
    } else {
      conditions.push(eq(auditLog.actor_id, filter.actor!.trim()));
    }
  }
  const member = filter.member?.trim();
  if (member) {
    if (member.includes("@")) {
      const [found] = await db.select({ id: users.id }).from(users).where(eq(users.email, member.toLowerCase()));
      if (!found) return null;
      conditions.push(eq(auditLog.member_id, found.id));
    } else {
      conditions.push(eq(auditLog.member_id, member));
    }
  }
  const action = filter.action?.trim();
  if (action) {
    if (action.endsWith(".")) conditions.push(sql`${auditLog.action} like ${`${escapeLike(action)}%`} escape '\\'`);
    else conditions.push(eq(auditLog.action, action));
  }
  const from = parseDay(filter.from);
  if (from) conditions.push(gte(auditLog.at, from));
  const to = parseDay(filter.to);
  if (to) conditions.push(lt(auditLog.at, new Date(to.getTime() + 24 * 60 * 60 * 1000)));
  return conditions;
}

function parseDay(value: string | null | undefined): Date | null {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const date = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Newest first, keyset-paged by id. `next_before_id` is set when there is another page. */
export async function listAudit(
  db: Db,
  filter: AuditFilter,
  options: { limit?: number; before_id?: number | null } = {},
): Promise<{ items: AuditListItem[]; next_before_id: number | null }> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), PAGE_MAX);
  const conditions = await filterConditions(db, filter);
  if (conditions === null) return { items: [], next_before_id: null };
  if (options.before_id) conditions.push(lt(auditLog.id, options.before_id));
  const rows = await selectAudit(db, conditions, limit + 1);
  const items = rows.slice(0, limit);
  return { items, next_before_id: rows.length > limit ? items[items.length - 1]!.id : null };
}

async function selectAudit(db: Db, conditions: SQL[], limit: number): Promise<AuditListItem[]> {
  return db
    .select({
      id: auditLog.id,
      at: auditLog.at,
      actor_id: auditLog.actor_id,
      actor_email: auditLog.actor_email,
      action: auditLog.action,
      subject_type: auditLog.subject_type,
      subject_id: auditLog.subject_id,
      member_id: auditLog.member_id,
      member_email: users.email,
      before: auditLog.before,
      after: auditLog.after,
      request_id: auditLog.request_id,
      ip: auditLog.ip,
    })
    .from(auditLog)
    .leftJoin(users, eq(users.id, auditLog.member_id))
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(limit);
}

/** The distinct actions recorded so far (for the filter's choices). */
export async function auditActions(db: Db): Promise<string[]> {
  const rows = await db.execute<{ action: string }>(
    sql`select distinct ${auditLog.action} as action from ${auditLog} order by 1 limit 200`,
  );
  return rows.rows.map((r) => r.action);
}

export const AUDIT_CSV_HEADER = [
  "id",
  "time",
  "actor_id",
  "actor_email",
  "action",
  "subject_type",
  "subject_id",
  "member_id",
  "member_email",
  "before",
  "after",
  "request_id",
  "ip",
] as const;

/** The filtered log as CSV, newest first (at most 50,000 rows per export). */
export async function exportAuditCsv(
  db: Db,
  filter: AuditFilter,
): Promise<{ csv: string; rows: number; truncated: boolean }> {
  const conditions = await filterConditions(db, filter);
  const rows = conditions === null ? [] : await selectAudit(db, conditions, EXPORT_ROWS_MAX + 1);
  const kept = rows.slice(0, EXPORT_ROWS_MAX);
  const lines = kept.map((r) =>
    [
      r.id,
      r.at,
      r.actor_id,
      r.actor_email,
      r.action,
      r.subject_type,
      r.subject_id,
      r.member_id,
      r.member_email,
      r.before,
      r.after,
      r.request_id,
      r.ip,
    ].map((value) => csvField(value)),
  );
  return { csv: csvDocument(AUDIT_CSV_HEADER, lines), rows: kept.length, truncated: rows.length > EXPORT_ROWS_MAX };
}
