import { sql } from "drizzle-orm";
import { bigint, bigserial, check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./auth";
import { notifications } from "./notifications";

/**
 * Web Push (docs/product.md#notifications, docs/decisions/0023-web-push.md). A member's devices
 * that agreed to show notifications, and one delivery row for each notification and device,
 * written by a trigger on `notifications` in the notification's own transaction (migration
 * 0048_web_push): a notification that commits has its pushes queued, one that rolls back has none.
 * Nothing is deleted: a device turned off or refused by its push service gets `removed_at`.
 */
const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const pushSubscriptions = pgTable(
  "push_subscriptions",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    member_id: text("member_id")
      .notNull()
      .references(() => users.id),
    /**
     * The browser's subscription (its push service URL and keys) as JSON, encrypted with
     * DATA_ENCRYPTION_KEY (associated data `push_subscriptions.subscription:<member id>`): the URL
     * identifies the device to its push service.
     */
    subscription: text("subscription").notNull(),
    /** A keyed hash of the push service URL: finds "this device" without decrypting every row. */
    endpoint_hash: text("endpoint_hash").notNull(),
    /** "Chrome on Windows": from the browser's user agent, to tell the member's devices apart. */
    device: text("device").notNull(),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    /** Turned off by the member, or refused by the push service (404/410): never sent to again. */
    removed_at: timestamptz("removed_at"),
    removed_reason: text("removed_reason", { enum: ["turned_off", "gone"] }),
  },
  (t) => [
    index("push_subscriptions_member_idx").on(t.member_id),
    uniqueIndex("push_subscriptions_live_endpoint_unique")
      .on(t.endpoint_hash)
      .where(sql`${t.removed_at} is null`),
    check("push_subscriptions_removed_complete", sql`(${t.removed_at} is null) = (${t.removed_reason} is null)`),
  ],
);

export const pushDeliveries = pgTable(
  "push_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    notification_id: bigint("notification_id", { mode: "number" })
      .notNull()
      .references(() => notifications.id),
    subscription_id: bigint("subscription_id", { mode: "number" })
      .notNull()
      .references(() => pushSubscriptions.id),
    created_at: timestamptz("created_at").defaultNow().notNull(),
    /** The push service accepted it (201). */
    sent_at: timestamptz("sent_at"),
    attempts: integer("attempts").notNull().default(0),
    /** The last refusal ("410 Gone", "timeout"): no personal data. */
    error: text("error"),
  },
  (t) => [
    uniqueIndex("push_deliveries_once").on(t.notification_id, t.subscription_id),
    index("push_deliveries_unsent_idx")
      .on(t.id)
      .where(sql`${t.sent_at} is null`),
    check("push_deliveries_attempts_not_negative", sql`${t.attempts} >= 0`),
  ],
);

export type PushSubscriptionRow = typeof pushSubscriptions.$inferSelect;
