import { and, desc, eq, gt, isNull } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { staffSignInCodes } from "~/server/db/schema";
import { CODE_PATTERN, codeMatches, generateCode, hashCode } from "./codes.server";
import { STAFF_CODE_FORMAT_MESSAGE, STAFF_CODE_TRIVIAL_MESSAGE, isTrivialCode } from "~/domain/application-review";

/**
 * Staff-issued sign-in codes (docs/product.md#second-factors): for a member who cannot receive an
 * email code or use an authenticator app, after staff checked their identity by phone or at a
 * branch. A code is bound to one member, works once, expires after 24 hours, and is stored only as
 * a keyed hash: it is shown to staff once, when issued.
 */
export const STAFF_CODE_VALID_MS = 24 * 60 * 60 * 1000;
/** How many live codes are compared for one member (issuing one removes the earlier ones). */
const LIVE_CODES_MAX = 10;

export class InvalidStaffCodeError extends Error {}

/** A generated code is held to the same rule as a typed one (30 codes in a million are redrawn). */
function untrivialCode(): string {
  for (;;) {
    const code = generateCode();
    if (!isTrivialCode(code)) return code;
  }
}

export interface IssuedStaffCode {
  id: number;
  /** The code itself: shown once to the staff member, never stored. */
  code: string;
  expires_at: Date;
}

/**
 * Issues a code for a member: generated, or typed by staff (exactly 6 digits, and not one of the
 * first guesses: no digit six times, no run like 123456). A member has at most one live code:
 * issuing a new one removes the earlier ones.
 */
export async function issueStaffCode(
  db: Db,
  input: { user_id: string; issued_by: string | null; code?: string; now?: Date },
): Promise<IssuedStaffCode> {
  const code = input.code ?? untrivialCode();
  if (!CODE_PATTERN.test(code)) throw new InvalidStaffCodeError(STAFF_CODE_FORMAT_MESSAGE);
  if (isTrivialCode(code)) throw new InvalidStaffCodeError(STAFF_CODE_TRIVIAL_MESSAGE);
  const now = input.now ?? new Date();
  const expires_at = new Date(now.getTime() + STAFF_CODE_VALID_MS);
  return db.transaction(async (tx) => {
    await tx
      .update(staffSignInCodes)
      .set({ removed_at: now })
      .where(
        and(
          eq(staffSignInCodes.user_id, input.user_id),
          isNull(staffSignInCodes.used_at),
          isNull(staffSignInCodes.removed_at),
        ),
      );
    const [row] = await tx
      .insert(staffSignInCodes)
      .values({
        user_id: input.user_id,
        code_hash: hashCode("staff-sign-in", input.user_id, code),
        issued_by: input.issued_by,
        created_at: now,
        expires_at,
      })
      .returning({ id: staffSignInCodes.id });
    return { id: row!.id, code, expires_at };
  });
}

/**
 * Uses a member's staff code if `code` matches a live one. Returns true exactly once per code:
 * the update that marks it used is conditional, so two simultaneous uses cannot both succeed.
 */
export async function consumeStaffCode(
  db: DbOrTx,
  input: { user_id: string; code: string; now?: Date },
): Promise<boolean> {
  if (!CODE_PATTERN.test(input.code)) return false;
  const now = input.now ?? new Date();
  const live = await db
    .select({ id: staffSignInCodes.id, code_hash: staffSignInCodes.code_hash })
    .from(staffSignInCodes)
    .where(
      and(
        eq(staffSignInCodes.user_id, input.user_id),
        isNull(staffSignInCodes.used_at),
        isNull(staffSignInCodes.removed_at),
        gt(staffSignInCodes.expires_at, now),
      ),
    )
    .orderBy(desc(staffSignInCodes.created_at))
    .limit(LIVE_CODES_MAX);
  const match = live.find((row) => codeMatches(row.code_hash, "staff-sign-in", input.user_id, input.code));
  if (!match) return false;
  const used = await db
    .update(staffSignInCodes)
    .set({ used_at: now })
    .where(
      and(eq(staffSignInCodes.id, match.id), isNull(staffSignInCodes.used_at), isNull(staffSignInCodes.removed_at)),
    )
    .returning({ id: staffSignInCodes.id });
  return used.length === 1;
}

export interface StaffCodeListing {
  id: number;
  user_id: string;
  issued_by: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  removed_at: Date | null;
  state: "valid" | "used" | "expired" | "removed";
}

/** A member's codes, newest first, masked (the code itself is never stored). */
export async function listStaffCodes(
  db: Db,
  input: { user_id: string; limit?: number; now?: Date },
): Promise<StaffCodeListing[]> {
  const now = input.now ?? new Date();
  const rows = await db
    .select({
      id: staffSignInCodes.id,
      user_id: staffSignInCodes.user_id,
      issued_by: staffSignInCodes.issued_by,
      created_at: staffSignInCodes.created_at,
      expires_at: staffSignInCodes.expires_at,
      used_at: staffSignInCodes.used_at,
      removed_at: staffSignInCodes.removed_at,
    })
    .from(staffSignInCodes)
    .where(eq(staffSignInCodes.user_id, input.user_id))
    .orderBy(desc(staffSignInCodes.created_at))
    .limit(Math.min(input.limit ?? 50, 200));
  return rows.map((row) => ({
    ...row,
    state: row.used_at ? "used" : row.removed_at ? "removed" : row.expires_at <= now ? "expired" : "valid",
  }));
}

/** Removes a live code before it is used. Returns false when it was no longer live. */
export async function removeStaffCode(db: Db, input: { id: number; now?: Date }): Promise<boolean> {
  const removed = await db
    .update(staffSignInCodes)
    .set({ removed_at: input.now ?? new Date() })
    .where(
      and(eq(staffSignInCodes.id, input.id), isNull(staffSignInCodes.used_at), isNull(staffSignInCodes.removed_at)),
    )
    .returning({ id: staffSignInCodes.id });
  return removed.length === 1;
}
