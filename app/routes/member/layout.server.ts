import { withDatabase } from "~/server/db/db.server";
import { institution } from "~/config/institution.server";
import type { SessionUser } from "~/server/auth/session.server";
import { bellNotifications } from "~/server/notifications/notifications.server";
import { memberUnreadCount } from "~/server/secure-messages/secure-messages.server";
import { deliveryStatus } from "~/server/electronic-delivery/electronic-delivery.server";
import { loanApplicationsOpen } from "~/server/loans/products.server";

/** What the member app's frame (the top bar) shows (its view-model): opens the database itself. */

/** How a refused member reaches the credit union: the profile's own contact details and hours. */
export function support() {
  const p = institution();
  return { email: p.support_email, phone: p.support_phone, hours: p.support_hours };
}

/** How many of the newest notifications the top bar's bell lists. */
const BELL_COUNT = 8;

export const memberShell = withDatabase(async (database, user: SessionUser) => {
  const bell = await bellNotifications(database, user.id, BELL_COUNT);
  // Asked on every page until they answer (docs/product.md#electronic-delivery): statements and
  // notices are mailed until then, and again when the E-SIGN disclosure has a new version.
  const delivery = await deliveryStatus(database, user.id);
  return {
    name: user.name,
    email: user.email,
    is_staff: false,
    notifications: bell.notifications.map((n) => ({ ...n, created_at: n.created_at.toISOString() })),
    unread: bell.unread,
    messages_unread: await memberUnreadCount(database, user.id),
    support: support(),
    /** Loans in the menu once members may apply (docs/product.md#loans). */
    loans: loanApplicationsOpen(),
    ask_electronic_delivery: delivery.latest === null || delivery.new_disclosure,
    session: { expires_in_ms: user.expires_in_ms, ends_absolutely: user.ends_absolutely },
  };
});
