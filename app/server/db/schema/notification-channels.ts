import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { users } from "./auth";
import { notifications } from "./notifications";

/**
 * Notification channels beyond the bell (docs/product.md#notification-channels,
 * docs/decisions/0029-notification-channels.md): what a member chose to receive by push and by text
 * message, their mobile number for texts, and the text messages' outbox.
 *
 * The trigger on `notifications` (migrations 0048_web_push and notification_channels) reads the
 * choices and queues, in the notification's own transaction, one push per live device and one text
 * per verified number, for the groups the member chose.
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * One row per member, channel and group the member answered; a group without a row has the
 * channel's default (push: chosen, SMS: not; app/domain/notification-channels.ts). Updated in place:
 * a preference, like member_settings; each change is in the audit log.
 */
export const notificationChannelChoices = pgTable(
  "notification_channel_choices",
  {
    member_id: text("member_id")
      .notNull()
      .references(() => users.id),
    channel: text("channel", { enum: ["push", "sms"] }).notNull(),
    /** A group of app/domain/notification-channels.ts (security, payments, ...). */
    group_key: text("group_key").notNull(),
    chosen: boolean("chosen").notNull(),
    updated_at: timestamptz("updated_at").defaultNow().notNull(),
  },
  (t) => [primaryKey({ columns: [t.member_id, t.channel, t.group_key] })],
);

/**
 * A member's mobile number for text messages. One live number per member; a new one replaces it.
 * Texts go only to a verified number (a code sent to it and typed back). Nothing is deleted: a
 * number replaced or removed gets `removed_at`.
 */
export const smsNumbers = pgTable(
  "sms_numbers",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id")
      .notNull()
      .references(() => users.id),
    /** The number in E.164 (+12025550143), encrypted with DATA_ENCRYPTION_KEY (associated data `sms_numbers.number:<member id>`). */
    number: text("number").notNull(),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    verified_at: timestamptz("verified_at"),
    /** The pending verification code's keyed hash (null once verified, or when no code is pending). */
    code_hash: text("code_hash"),
    code_expires_at: timestamptz("code_expires_at"),
    /** Wrong codes typed for the pending code. */
    code_attempts: integer("code_attempts").notNull().default(0),
    removed_at: timestamptz("removed_at"),
    removed_reason: text("removed_reason", { enum: ["replaced", "removed"] }),
  },
  (t) => [
    uniqueIndex("sms_numbers_one_live_per_member")
      .on(t.member_id)
      .where(sql`${t.removed_at} is null`),
    check("sms_numbers_removed_complete", sql`(${t.removed_at} is null) = (${t.removed_reason} is null)`),
    check("sms_numbers_code_attempts_not_negative", sql`${t.code_attempts} >= 0`),
  ],
);

/**
 * The text messages' outbox: a verification code (its text encrypted here) or a notification (its
 * text read from the notification when sent). A message is sent at most once: it is claimed
 * (`sending`) before the provider is called, and one whose outcome was never recorded (the process
 * stopped, the provider timed out) is not tried again.
 */
export const smsMessages = pgTable(
  "sms_messages",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id")
      .notNull()
      .references(() => users.id),
    number_id: bigint("number_id", { mode: "number" })
      .notNull()
      .references(() => smsNumbers.id),
    purpose: text("purpose", { enum: ["verification", "notification"] }).notNull(),
    notification_id: bigint("notification_id", { mode: "number" }).references(() => notifications.id),
    /** A verification code's text, encrypted (associated data `sms_messages.body:<member id>`); null for a notification. */
    body: text("body"),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    status: text("status", { enum: ["queued", "sending", "sent", "failed"] })
      .notNull()
      .default("queued"),
    attempts: integer("attempts").notNull().default(0),
    next_attempt_at: timestamptz("next_attempt_at").defaultNow().notNull(),
    sent_at: timestamptz("sent_at"),
    /** The provider's id for the message (Twilio's SM…), to trace it with the provider. */
    provider_message_id: text("provider_message_id"),
    /** The last refusal ("HTTP 500", "timeout"): never the number or the text. */
    error: text("error"),
  },
  (t) => [
    uniqueIndex("sms_messages_once")
      .on(t.notification_id, t.number_id)
      .where(sql`${t.notification_id} is not null`),
    index("sms_messages_queued_idx")
      .on(t.next_attempt_at)
      .where(sql`${t.status} = 'queued'`),
    index("sms_messages_member_idx").on(t.member_id, t.created_at),
    check(
      "sms_messages_purpose_complete",
      sql`(${t.purpose} = 'verification') = (${t.body} is not null) and (${t.purpose} = 'notification') = (${t.notification_id} is not null)`,
    ),
    check("sms_messages_attempts_not_negative", sql`${t.attempts} >= 0`),
  ],
);
