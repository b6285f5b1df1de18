/**
 * Which notifications go where (docs/product.md#notification-channels): every notification is in
 * the bell; a member chooses, per group of kinds, which also go by push to their devices and which
 * by text message (SMS) to their verified mobile number. Members choose among a few groups they
 * understand, not among the twenty-odd kinds the code writes.
 *
 * The database's `notification_group(kind)` (migration notification_channels) repeats this table
 * for the trigger that queues pushes and texts; tests/integration/notifications/channels.test.ts
 * checks that the two agree for every kind.
 */
export const NOTIFICATION_GROUPS = [
  "alerts",
  "security",
  "payments",
  "deposits",
  "cards",
  "accounts",
  "messages",
] as const;
export type NotificationGroup = (typeof NOTIFICATION_GROUPS)[number];

export const NOTIFICATION_GROUP_LABELS: Record<NotificationGroup, { label: string; description: string }> = {
  alerts: {
    label: "Your alerts",
    description: "The alerts you set up: a low balance, a large transaction, a deposit, a payment sent or returned.",
  },
  security: { label: "Security", description: "A sign-in to your account." },
  payments: {
    label: "Payments and transfers",
    description:
      "Transfers sent and received, payments to other banks, bill payments, scheduled transfers that failed.",
  },
  deposits: {
    label: "Deposits",
    description: "Mobile deposits decided, direct deposits and debits, returned payments.",
  },
  cards: { label: "Cards", description: "A card locked or unlocked, a limit or PIN changed, a purchase declined." },
  accounts: {
    label: "Accounts, loans and disputes",
    description: "Corrections and status changes on your accounts, applications, loans and reported problems.",
  },
  messages: {
    label: "Messages, statements and notices",
    description: "A reply from us, a statement ready, a change in terms.",
  },
};

/**
 * Every notification kind (app/server/db/schema/notifications.ts) in one group: a new kind does not
 * compile until it is given one here (app/server/notifications/channels.server.ts checks) and in
 * the SQL function.
 */
export const NOTIFICATION_KIND_GROUPS = {
  account_alert: "alerts",
  sign_in_alert: "security",
  transfer_sent: "payments",
  transfer_received: "payments",
  payment_pending: "payments",
  payment_sent: "payments",
  payment_cancelled: "payments",
  bill_paid: "payments",
  bill_payment_failed: "payments",
  scheduled_transfer_failed: "payments",
  deposit_decision: "deposits",
  ach_received: "deposits",
  ach_returned: "deposits",
  card_activity: "cards",
  account_correction: "accounts",
  account_status: "accounts",
  application_decision: "accounts",
  loan_update: "accounts",
  dispute_update: "accounts",
  secure_message: "messages",
  statement_ready: "messages",
  disclosure_change: "messages",
} as const satisfies Record<string, NotificationGroup>;
export type GroupedNotificationKind = keyof typeof NOTIFICATION_KIND_GROUPS;

export const NOTIFICATION_CHANNELS = ["push", "sms"] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/**
 * What a member who never chose gets: pushes of everything (allowing a device is already the
 * member's choice to see the bell there, as before choices existed), and no text messages (each
 * costs the credit union, and a number is only verified, not yet wanted for any of them).
 */
export const CHANNEL_DEFAULT_CHOSEN: Record<NotificationChannel, boolean> = { push: true, sms: false };

export type ChannelChoices = Record<NotificationGroup, boolean>;

/** The stored choices (missing groups take the channel's default). */
export function channelChoices(
  channel: NotificationChannel,
  stored: readonly { group_key: string; chosen: boolean }[],
): ChannelChoices {
  const choices = Object.fromEntries(
    NOTIFICATION_GROUPS.map((g) => [g, CHANNEL_DEFAULT_CHOSEN[channel]]),
  ) as ChannelChoices;
  for (const row of stored) if (isNotificationGroup(row.group_key)) choices[row.group_key] = row.chosen;
  return choices;
}

export function isNotificationGroup(value: string): value is NotificationGroup {
  return (NOTIFICATION_GROUPS as readonly string[]).includes(value);
}

/** A posted form's checkboxes `<channel>_<group>`: a box present (checked) chooses the group. */
export function choicesFromForm(channel: NotificationChannel, form: { get(name: string): unknown }): ChannelChoices {
  return Object.fromEntries(
    NOTIFICATION_GROUPS.map((g) => {
      const value = form.get(`${channel}_${g}`);
      return [g, value === "on" || value === "true"];
    }),
  ) as ChannelChoices;
}

/** Whether a notification of `kind` goes by `channel` for a member with these choices. */
export function sendsBy(choices: ChannelChoices, kind: GroupedNotificationKind): boolean {
  return choices[NOTIFICATION_KIND_GROUPS[kind]];
}
