/**
 * The one PostgreSQL schema (docs/architecture.md#database). Each area keeps its tables in its
 * own file; this file gathers them for Drizzle and drizzle-kit.
 */
export * from "./schema/public-site";
export * from "./schema/ledger";
export * from "./schema/auth";
export * from "./schema/members";
export * from "./schema/mail";
export * from "./schema/audit";
export * from "./schema/cards";
export * from "./schema/admin";
export * from "./schema/payments";
export * from "./schema/notifications";
export * from "./schema/back-office-money";
export * from "./schema/jobs";
export * from "./schema/statements";
export * from "./schema/bill-pay";
export * from "./schema/scheduled-transfers";
export * from "./schema/ach-inbound";
export * from "./schema/mobile-deposits";
export * from "./schema/dividends";
export * from "./schema/disputes";
export * from "./schema/sanctions";
export * from "./schema/taxpayer-ids";
export * from "./schema/electronic-delivery";
export * from "./schema/secure-messages";
export * from "./schema/push";
export * from "./schema/books";
export * from "./schema/loans";
export * from "./schema/alerts";
export * from "./schema/linked-accounts";
export * from "./schema/notification-channels";
export * from "./schema/loan-statements";
export * from "./schema/lines-of-credit";
export * from "./schema/credit-line-changes";
export * from "./schema/line-statements";
export * from "./schema/share-pledges";
export * from "./schema/loan-staff-actions";
