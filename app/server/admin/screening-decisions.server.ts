import type { Db } from "~/server/db/client.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import type { Actor } from "~/domain/actor";
import {
  decideScreening,
  type ScreeningDecision,
  type ScreeningDecisionResult,
} from "~/server/sanctions/screening.server";
import { declineForScreening, emailAfterScreeningDecline } from "./review.server";

/**
 * Staff's decision on a possible sanctions match, as the back office takes it
 * (docs/product.md#screening-queue): the screening's own steps (app/server/sanctions), and for a
 * confirmed match on an applicant the application declined in the same transaction (the review
 * lives on this floor, above sanctions), then the applicant's email once it has committed. For an
 * incoming IAT entry the caller passes the rails' callbacks (`iatScreeningDecisions`), which post
 * or block the entry in the same transaction: the rails import this floor, so it cannot import them.
 */
export async function decideScreeningCase(
  db: Db,
  input: {
    screening_id: number;
    decision: ScreeningDecision;
    reason: string;
    staff: Actor;
    origin: AuditOrigin;
  } & Pick<Parameters<typeof decideScreening>[1], "onEntryCleared" | "onEntryConfirmed">,
): Promise<ScreeningDecisionResult> {
  let declined: { user_id: string; first_name: string; email: string } | null = null;
  const result = await decideScreening(db, {
    ...input,
    onApplicationConfirmed: async (tx, screening) => {
      const applicant = await declineForScreening(tx, screening, input.staff, input.origin);
      declined = applicant ? { user_id: screening.subject_id, ...applicant } : null;
    },
  });
  if (result.ok && declined) await emailAfterScreeningDecline(db, declined);
  return result;
}
