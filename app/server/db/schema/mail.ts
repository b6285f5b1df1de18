import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { bytes } from "./columns";

/**
 * Every email the system sends or tries to send (docs/architecture.md#email): written first, then
 * delivered by SMTP when SMTP_URL is set. The back office reads it at /admin/outbox; it is the
 * only mailbox when no mail server is configured.
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const OUTBOX_KINDS = [
  "application_received",
  "sign_in_code",
  "password_reset",
  "account_locked",
  "security_alert",
  "login_alert",
  "password_changed",
  "application_approved",
  "application_rejected",
  "info_requested",
  "statement",
  // Regulation E error resolution: each step told to the member; the deadline job's word to staff.
  "dispute",
  "dispute_deadline",
  // The compliance-deadlines job's word to staff: screening, credit reviews and SARs at a deadline.
  "compliance_deadline",
  // An international wire's remittance transfer receipt (Regulation E 1005.31(b)(2)), with its PDF.
  "remittance_receipt",
  // A Regulation CC exception hold notice on a deposited check (12 CFR 229.13(g)).
  "deposit_hold_notice",
  // A change-in-terms notice (Regulation E 1005.8(a), Truth in Savings 1030.5(a), Regulation CC 229.18(e)).
  "disclosure_notice",
  // Secure messages: "You have a new message", never its content (docs/product.md#secure-messages).
  "secure_message",
  // A scheduled or recurring transfer that could not be sent on its date, and why.
  "scheduled_transfer_failed",
  // A loan application: received, an offer, the adverse action notice (Regulation B 1002.9), the accepted disclosure.
  "loan",
  // An alert the member chose on an account (docs/product.md#alerts).
  "account_alert",
  // Money moved in from a linked account, or a micro-deposit, that the other bank returned (docs/product.md#move-money-in).
  "money_in",
] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];

export const outbox = pgTable(
  "outbox",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    to_email: text("to_email").notNull(),
    subject: text("subject").notNull(),
    /** What is delivered: for a sign-in code or a reset link, the usable secret itself. */
    text_body: text("text_body").notNull(),
    /**
     * The same text with its secret replaced, for a message that carries one (null otherwise).
     * Staff read this form in the back office, never the deliverable one; after SMTP delivery it
     * also replaces `text_body`, so the table keeps no usable secret.
     */
    redacted_text_body: text("redacted_text_body"),
    html_body: text("html_body"),
    kind: text("kind").notNull(),
    /** The user the message is about, when there is one. */
    user_id: text("user_id"),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    sent_at: timestamptz("sent_at"),
    /** The last delivery error, when delivery failed. */
    error: text("error"),
    attempts: integer("attempts").notNull().default(0),
  },
  (t) => [
    index("outbox_created_at_idx").on(t.created_at),
    index("outbox_to_email_idx").on(t.to_email, t.created_at),
    index("outbox_unsent_idx")
      .on(t.created_at)
      .where(sql`${t.sent_at} is null`),
    check("outbox_attempts_not_negative", sql`${t.attempts} >= 0`),
  ],
);

/**
 * Files sent with an outbox message (a statement PDF for "Email it to me"), kept apart from the
 * message so the back office's outbox list never reads their content: staff see only each file's
 * name, type and size.
 */
export const outboxAttachments = pgTable(
  "outbox_attachments",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    outbox_id: bigint("outbox_id", { mode: "number" })
      .notNull()
      .references(() => outbox.id),
    file_name: text("file_name").notNull(),
    content_type: text("content_type").notNull(),
    size_bytes: integer("size_bytes").notNull(),
    content: bytes("content").notNull(),
  },
  (t) => [
    index("outbox_attachments_outbox_idx").on(t.outbox_id),
    check("outbox_attachments_size", sql`${t.size_bytes} = octet_length(${t.content})`),
  ],
);
