import { withDatabase } from "~/server/db/db.server";
import { institution } from "~/config/institution.server";
import { formatCents } from "~/domain/money";
import type { ElectronicDeliveryData } from "~/components/settings/types";
import { chooseConsentWithdrawal, deliveryStatus } from "~/server/electronic-delivery/electronic-delivery.server";
import {
  cancelTotpEnrollment as cancelTotpEnrollmentIn,
  changeOwnPassword as changeOwnPasswordIn,
  confirmTotpEnrollment as confirmTotpEnrollmentIn,
  disableTotp as disableTotpIn,
  getAccountSettings as getAccountSettingsIn,
  pendingTotpSetup as pendingTotpSetupIn,
  startTotpEnrollment as startTotpEnrollmentIn,
  updateNotificationSettings as updateNotificationSettingsIn,
} from "~/server/settings/settings.server";

/** What Account Settings (password, authenticator app, notifications) calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const cancelTotpEnrollment = withDatabase(cancelTotpEnrollmentIn);
export const changeOwnPassword = withDatabase(changeOwnPasswordIn);
export const confirmTotpEnrollment = withDatabase(confirmTotpEnrollmentIn);
export const disableTotp = withDatabase(disableTotpIn);
export const getAccountSettings = withDatabase(getAccountSettingsIn);
export const pendingTotpSetup = withDatabase(pendingTotpSetupIn);
export const startTotpEnrollment = withDatabase(startTotpEnrollmentIn);
export const updateNotificationSettings = withDatabase(updateNotificationSettingsIn);
export const withdrawElectronicDelivery = withDatabase(chooseConsentWithdrawal);

/** A member's delivery of statements and notices, as the Account Settings section shows it. */
export const electronicDelivery = withDatabase(async (db, member_id: string): Promise<ElectronicDeliveryData> => {
  const status = await deliveryStatus(db, member_id);
  const fee = institution().electronic_delivery.withdrawal_fee_cents;
  return {
    delivery: status.delivery,
    answered: status.latest !== null,
    since: status.latest?.at.toISOString() ?? null,
    withdrawal_fee: fee ? formatCents(fee) : null,
  };
});
