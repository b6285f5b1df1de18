import { withDatabase } from "~/server/db/db.server";
import {
  exportPaperDeliveryCsv,
  paperDeliveryMembers,
  PAPER_REASON_LABELS,
} from "~/server/electronic-delivery/electronic-delivery.server";

/** The back office's paper list (its view-model, docs/product.md#paper-delivery): opens the database itself. */
export const paperDeliveryList = withDatabase(async (db) => {
  const members = await paperDeliveryMembers(db);
  return members.map((m) => ({
    member_id: m.member_id,
    name: m.name,
    email: m.email,
    address: [m.street, [m.city, m.state, m.postal_code].filter(Boolean).join(" "), m.country]
      .filter((part) => part && part.trim())
      .join(", "),
    reason: PAPER_REASON_LABELS[m.choice ?? "none"],
    since: m.since?.toISOString() ?? null,
    statements_to_mail: m.statements_to_mail,
    notices_to_mail: m.notices_to_mail,
  }));
});

export const paperDeliveryCsv = withDatabase(exportPaperDeliveryCsv);
