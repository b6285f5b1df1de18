import { withDatabase } from "~/server/db/db.server";
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
