import type { Actor } from "~/domain/actor";
import { refusalStatus } from "~/server/http/form.server";
import { withDatabase } from "~/server/db/db.server";
import type { Db } from "~/server/db/client.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { INBOUND_FILE_MAX_BYTES } from "~/domain/nacha/reader";
import { formatCents } from "~/domain/money";
import {
  exportReturnFile,
  markReturnHandled,
  recentInboundFiles,
  recentReturnFiles,
  returnedItems,
  returnFile,
} from "~/server/rails/inbound-returns.server";
import { applyNotificationOfChange, markChangeHandled, waitingChanges } from "~/server/rails/inbound-noc.server";
import {
  DUPLICATE_WINDOW_BUSINESS_DAYS,
  heldEntries,
  postHeldEntry,
  returnHeldEntry,
} from "~/server/rails/inbound-held.server";
import { releaseCreditReview, returnCreditReview, waitingCreditReviews } from "~/server/rails/inbound-review.server";

/**
 * What /admin/queues calls for ACH in (docs/product.md#ach-in), opening the database itself so
 * the route holds no handle: the upload, the Returned items and Notifications of change
 * sections' rows and buttons, the return file export and its download.
 */

/** Room for the form's other fields and the multipart framing around the file. */
const FORM_OVERHEAD_BYTES = 16 * 1024;
const INBOUND_FILE_MAX_MEGABYTES = INBOUND_FILE_MAX_BYTES / (1024 * 1024);

/** A row with its dates as ISO text. */
function iso<T extends object>(row: T): { [K in keyof T]: T[K] extends Date ? string : T[K] } {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])) as {
    [K in keyof T]: T[K] extends Date ? string : T[K];
  };
}

/** The Returned items and ACH in sections' rows, dates as the ISO text they travel as. */
export const achInPage = withDatabase(async (database: Db) => {
  const [returned, inbound, returns, changes, held, credit_reviews] = await Promise.all([
    returnedItems(database),
    recentInboundFiles(database),
    recentReturnFiles(database),
    waitingChanges(database),
    heldEntries(database),
    waitingCreditReviews(database),
  ]);
  return {
    returned: returned.map(iso),
    held: held.map(({ earlier, ...row }) => ({ ...iso(row), earlier: earlier ? iso(earlier) : null })),
    duplicate_window_days: DUPLICATE_WINDOW_BUSINESS_DAYS,
    credit_reviews: credit_reviews.map(iso),
    changes: changes.map(iso),
    inbound_files: inbound.map(iso),
    return_files: returns.map(iso),
    max_megabytes: INBOUND_FILE_MAX_MEGABYTES,
  };
});

/** Reads and posts an uploaded inbound NACHA file (refused whole, or posted entry by entry). */
export const uploadAchFile = withDatabase(receiveAchFile);

const markHandled = withDatabase(markReturnHandled);
const postHeld = withDatabase(postHeldEntry);
const returnHeld = withDatabase(returnHeldEntry);
const applyChange = withDatabase(applyNotificationOfChange);
const markChange = withDatabase(markChangeHandled);
const releaseCredit = withDatabase(releaseCreditReview);
const returnCredit = withDatabase(returnCreditReview);

/** Sends the waiting returns as one return file. */
export const exportReturns = withDatabase(exportReturnFile);

/** A return file downloaded (/admin/queues/returns/:fileId), byte for byte; every download is audited. */
export const downloadReturnFile = withDatabase(
  async (database: Db, input: { staff: Actor; origin: AuditOrigin; id: number }) => {
    const file = await returnFile(database, input.id);
    if (!file) return null;
    await recordAudit(database, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "ach_return_file.download",
      subject_type: "ach_return_file",
      subject_id: file.id,
      after: { file_name: file.file_name, sha256: file.sha256 },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
    });
    return file;
  },
);

function tooLarge(bytes: number): string {
  return `The file was refused, nothing was posted: it is ${(bytes / (1024 * 1024)).toFixed(1)} MB; the largest accepted is ${INBOUND_FILE_MAX_MEGABYTES} MB.`;
}

export interface AchInAnswer {
  status: number;
  tone: "success" | "error";
  message: string;
  /** A refused Mark as handled of a notification of change: shown next to its note field. */
  noc_error?: { noc_id: number; message: string };
  /** A refused Return of a credit to review: shown next to its reason field. */
  credit_review_error?: { review_id: number; message: string };
}

/**
 * A body declared larger than the biggest inbound file is refused before it is read (the request
 * guards make every post declare its length: docs/decisions/0003-request-guards.md); null when
 * the declared length is acceptable.
 */
export function refuseTooLarge(request: Request): AchInAnswer | null {
  const declared = Number(request.headers.get("content-length") ?? "0");
  return declared > INBOUND_FILE_MAX_BYTES + FORM_OVERHEAD_BYTES
    ? { status: 413, tone: "error", message: tooLarge(declared) }
    : null;
}

/** The upload form's answer: the file posted (with what became of its entries) or why not. */
export async function achUpload(form: FormData, staff: Actor, origin: AuditOrigin): Promise<AchInAnswer> {
  const file = form.get("file");
  if (!(file instanceof File) || file.size === 0) {
    return {
      status: 400,
      tone: "error",
      message:
        file instanceof File && file.name
          ? "The file was refused, nothing was posted: the file is empty."
          : "Please choose the inbound NACHA file to upload.",
    };
  }
  if (file.size > INBOUND_FILE_MAX_BYTES) return { status: 413, tone: "error", message: tooLarge(file.size) };
  const result = await uploadAchFile({
    bytes: new Uint8Array(await file.arrayBuffer()),
    file_name: file.name,
    staff,
    origin,
  });
  if (!result.ok) return { status: result.reason === "duplicate" ? 409 : 422, tone: "error", message: result.message };
  const parts = [
    `${result.posted.toLocaleString("en-US")} posted`,
    `${result.returned.toLocaleString("en-US")} returned`,
  ];
  const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
  if (result.applied) parts.push(`${plural(result.applied, "return", "returns")} of our payments applied`);
  if (result.unmatched) parts.push(`${plural(result.unmatched, "return", "returns")} to look into`);
  if (result.noted) parts.push(`${plural(result.noted, "prenote", "prenotes")} noted`);
  if (result.changes) parts.push(`${plural(result.changes, "notification", "notifications")} of change to see to`);
  if (result.held) parts.push(`${plural(result.held, "possible duplicate", "possible duplicates")} held`);
  return {
    status: 200,
    tone: "success",
    message: `${result.file_name}${result.resumed ? " (finished)" : ""}: ${result.entry_count.toLocaleString("en-US")} ${result.entry_count === 1 ? "entry" : "entries"}, ${parts.join(", ")}.`,
  };
}

/** The Export return file button's answer. */
export async function achReturnsExport(staff: Actor, origin: AuditOrigin): Promise<AchInAnswer> {
  const result = await exportReturns(staff, origin);
  if (!result.ok)
    return { status: result.reason === "nothing_waiting" ? 409 : 422, tone: "error", message: result.message };
  const f = result.file;
  return {
    status: 200,
    tone: "success",
    message: `${f.entry_count} ${f.entry_count === 1 ? "return" : "returns"} (${formatCents(f.credit_total_cents + f.debit_total_cents)}) exported as ${f.file_name}.`,
  };
}

/** Mark as handled, on a return of ours staff looked into: its note is required. */
export async function achReturnHandled(form: FormData, staff: Actor, origin: AuditOrigin): Promise<AchInAnswer> {
  const id = /^\d{1,15}$/.test(String(form.get("entry_id") ?? "")) ? Number(form.get("entry_id")) : 0;
  const result = await markHandled(id, String(form.get("note") ?? ""), staff, origin);
  if (!result.ok) return { status: refusalStatus(result.kind), tone: "error", message: result.message };
  return { status: 200, tone: "success", message: "The return was marked as handled." };
}

/** Apply, or Mark as handled (its note required), on a notification of change. */
export async function achChange(
  intent: "ach_noc_apply" | "ach_noc_handled",
  form: FormData,
  staff: Actor,
  origin: AuditOrigin,
): Promise<AchInAnswer> {
  const id = /^\d{1,15}$/.test(String(form.get("noc_id") ?? "")) ? Number(form.get("noc_id")) : 0;
  const result =
    intent === "ach_noc_apply"
      ? await applyChange(id, staff, origin)
      : await markChange(id, String(form.get("note") ?? ""), staff, origin);
  if (!result.ok)
    return {
      status: refusalStatus(result.kind),
      tone: "error",
      message: result.message,
      ...(result.field === "note" ? { noc_error: { noc_id: id, message: result.message } } : {}),
    };
  return { status: 200, tone: "success", message: result.message };
}

/** Post, or Return as a duplicate, on an entry held as a possible duplicate. */
export async function achDuplicate(
  intent: "ach_duplicate_post" | "ach_duplicate_return",
  form: FormData,
  staff: Actor,
  origin: AuditOrigin,
): Promise<AchInAnswer> {
  const id = /^\d{1,15}$/.test(String(form.get("entry_id") ?? "")) ? Number(form.get("entry_id")) : 0;
  const result =
    intent === "ach_duplicate_post" ? await postHeld(id, staff, origin) : await returnHeld(id, staff, origin);
  if (!result.ok) return { status: refusalStatus(result.kind), tone: "error", message: result.message };
  return { status: 200, tone: "success", message: result.message };
}

/** Release, or Return (R17 or R23, chosen), on an incoming credit held for review. */
export async function achCreditReview(
  intent: "ach_credit_release" | "ach_credit_return",
  form: FormData,
  staff: Actor,
  origin: AuditOrigin,
): Promise<AchInAnswer> {
  const id = /^\d{1,15}$/.test(String(form.get("review_id") ?? "")) ? Number(form.get("review_id")) : 0;
  const result =
    intent === "ach_credit_release"
      ? await releaseCredit(id, staff, origin)
      : await returnCredit(id, String(form.get("return_code") ?? ""), staff, origin);
  if (!result.ok)
    return {
      status: refusalStatus(result.kind),
      tone: "error",
      message: result.message,
      ...(result.field === "return_code" ? { credit_review_error: { review_id: id, message: result.message } } : {}),
    };
  return { status: 200, tone: "success", message: result.message };
}
