import { marked } from "marked";
import { institution } from "~/config/institution.server";
import { formatCents } from "~/domain/money";
import { withDatabase } from "~/server/db/db.server";
import {
  chooseConsentWithdrawal,
  consentToElectronicDelivery,
  deliveryHistory,
  deliveryStatus,
  memberDisclosures,
  renderSamplePdf,
  sampleCode,
} from "~/server/electronic-delivery/electronic-delivery.server";

/** The consent page's view-model (docs/product.md#electronic-delivery): opens the database itself. */

/** Markdown from the institution's own profile; raw HTML escaped so a profile cannot inject script. */
const html = (markdown: string) => marked.parse(markdown.replace(/</g, "&lt;"), { async: false });

export const electronicDeliveryPage = withDatabase(async (db, member_id: string) => {
  const profile = institution();
  const status = await deliveryStatus(db, member_id);
  const history = await deliveryHistory(db, member_id);
  const { disclosures, notices } = await memberDisclosures(db, member_id);
  const esign = profile.disclosures.esign;
  const fees = profile.electronic_delivery;
  const agreed = history.find((h) => h.choice === "consented")?.disclosure_versions ?? null;
  return {
    delivery: status.delivery,
    answered: status.latest !== null,
    new_disclosure: status.new_disclosure,
    esign: { title: esign.title, version: esign.version, html: html(esign.body) },
    withdrawal_fee: fees.withdrawal_fee_cents ? formatCents(fees.withdrawal_fee_cents) : null,
    paper_copy_fee: fees.paper_copy_fee_cents ? formatCents(fees.paper_copy_fee_cents) : null,
    support: { phone: profile.support_phone, email: profile.support_email },
    history: history.map((h) => ({
      id: h.id,
      choice: h.choice,
      disclosure_version: h.disclosure_version,
      at: h.at.toISOString(),
    })),
    disclosures: disclosures.map((d) => ({
      kind: d.kind,
      title: d.title,
      version: d.version,
      effective_on: d.effective_on,
      agreed_version: agreed?.[d.kind] ?? null,
      html: html(d.body),
    })),
    notices: notices.map((n) => ({
      id: n.id,
      kind: n.kind,
      version: n.version,
      effective_on: n.effective_on,
      channel: n.channel,
      sent_at: n.sent_at.toISOString(),
    })),
  };
});

export const consent = withDatabase(consentToElectronicDelivery);
export const withdrawConsent = withDatabase(chooseConsentWithdrawal);
export const deliveryOfMember = withDatabase(deliveryStatus);

/** The sample PDF with the member's current code. */
export const samplePdf = withDatabase(async (db, member_id: string) =>
  renderSamplePdf(await sampleCode(db, member_id)),
);
