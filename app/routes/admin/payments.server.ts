import { withDatabase } from "~/server/db/db.server";
import { paymentControlsPage, setPaymentsPaused, setRate } from "~/server/payment-controls/payment-controls.server";

/** What the back office's Payments page calls (its view-model): each opens the database itself. */
export const paymentControls = withDatabase(paymentControlsPage);
export const pauseOrResumePayments = withDatabase(setPaymentsPaused);
export const saveCurrencyRate = withDatabase(setRate);
