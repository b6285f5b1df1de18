import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

import { pathRedirects, policyPages } from "./config/redirects";

/**
 * The explicit route table (docs/product.md#routes). Pages that share one module (policy pages,
 * redirects) get their own ids.
 */
export default [
  layout("routes/public/layout.tsx", [
    index("routes/public/home.tsx"),
    route("about", "routes/public/about.tsx"),
    route("products", "routes/public/products.tsx"),
    route("products/:slug", "routes/public/product.tsx"),
    route("contact", "routes/public/contact.tsx"),
    route("calculators", "routes/public/calculators.tsx"),
    route("locations", "routes/public/locations.tsx"),
    ...policyPages.map((page) => route(page, "routes/public/policy.tsx", { id: `policy-${page}` })),
    // Identity (docs/product.md#applications-and-review, docs/product.md#sign-in): applying,
    // signing in and out, passwords, the applicant's status.
    route("signup", "routes/auth/signup.tsx"),
    route("registration-success", "routes/auth/registration-success.tsx"),
    route("login", "routes/auth/login.tsx"),
    route("logout", "routes/auth/logout.tsx"),
    route("forgot-password", "routes/auth/forgot-password.tsx"),
    route("reset-password", "routes/auth/reset-password.tsx"),
    // A temporary password set by staff is replaced here at first sign-in
    // (docs/product.md#passwords).
    route("change-password", "routes/auth/change-password.tsx"),
    route("pending-approval", "routes/auth/pending-approval.tsx"),
    route("not-approved", "routes/auth/not-approved.tsx"),
    // Demo mode only (404 otherwise): the demo people's mail, since the demo sends none.
    route("demo/inbox", "routes/auth/demo-inbox.tsx"),
    // Profile and Account Settings (docs/product.md#settings): pages for direct links and no-JS;
    // the dialogs' data.
    route("settings/profile", "routes/settings/profile.tsx"),
    route("settings/account", "routes/settings/account.tsx"),
    route("*", "routes/public/not-found.tsx"),
  ]),
  route("register", "routes/auth/register.tsx"),
  // A profile image, only for its owner and staff (docs/product.md#settings;
  // docs/architecture.md#files).
  route("settings/profile-image/:userId", "routes/settings/profile-image.tsx"),
  // Reset Transfer Counts (docs/product.md#reset-transfer-counts), staff only, with its own header.
  route("admin/reset-transfers", "routes/admin/reset-transfers.tsx"),
  // Back office (docs/product.md#back-office): staff only; every loader and action checks.
  route("admin", "routes/admin/layout.tsx", [
    index("routes/admin/index.tsx"),
    route("audit", "routes/admin/audit.tsx"),
    route("outbox", "routes/admin/outbox.tsx"),
    route("messages", "routes/admin/messages.tsx"),
    // Secure messages from signed-in members: the shared inbox and one conversation (docs/product.md#secure-messages-inbox).
    route("inbox", "routes/admin/inbox.tsx"),
    route("inbox/:conversationId", "routes/admin/inbox-conversation.tsx"),
    route("jobs", "routes/admin/jobs.tsx"),
    // Pause outgoing payments and currency rates for wires (docs/product.md#payment-controls).
    route("payments", "routes/admin/payments.tsx"),
    // Payment queues: ACH and wires waiting to be exported or cancelled (docs/product.md#payment-queues).
    route("queues", "routes/admin/queues.tsx"),
    route("sanctions", "routes/admin/sanctions.tsx"),
    route("sanctions/screenings/:screeningId", "routes/admin/sanctions-screening.tsx"),
    // Suspicious activity reports: opened from a confirmed match or a reviewed credit, approved by a
    // second staff member, marked filed (docs/product.md#suspicious-activity-reports).
    route("sar", "routes/admin/sar.tsx"),
    route("sar/:sarId", "routes/admin/sar-case.tsx"),
    // Add Transactions for one member: the detail pane's table and CSV post here
    // (docs/product.md#add-transactions); a page of its own without JavaScript.
    route("members/:memberId/transactions", "routes/admin/add-transactions.tsx"),
    // Post card transaction: staff stand in for the card network (docs/product.md#card-transactions-staff).
    route("members/:memberId/cards", "routes/admin/card-transactions.tsx"),
    // Error resolution cases, nearest deadline first, and one case with its actions (docs/product.md#disputes).
    route("disputes", "routes/admin/disputes.tsx"),
    route("disputes/new", "routes/admin/dispute-new.tsx"),
    route("disputes/:caseId", "routes/admin/dispute.tsx"),
    route("disputes/:caseId/attachments/:attachmentId", "routes/admin/dispute-attachment.tsx"),
    // A taxpayer number in full, for a stated reason, audited (docs/product.md#taxpayer-identification).
    route("members/:memberId/tin", "routes/admin/member-tin.tsx"),
    // Members who get paper by mail: no consent to electronic delivery (docs/product.md#paper-delivery).
    route("paper-delivery", "routes/admin/paper-delivery.tsx"),
    // Change-in-terms notices: each new disclosure version, when it takes effect, who was told (docs/product.md#disclosures).
    route("disclosures", "routes/admin/disclosures.tsx"),
    // Loan applications waiting for a decision, and one with its decision (docs/product.md#loans).
    route("loans", "routes/admin/loans.tsx"),
    route("loans/:applicationId", "routes/admin/loan.tsx"),
    // A booked loan for staff: its figures, history, and corrections (docs/product.md#booked-loans-staff).
    route("loans/booked/:loanId", "routes/admin/booked-loan.tsx"),
    // An open line of credit for staff: freeze, close, change in terms (docs/product.md#line-of-credit-servicing).
    route("loans/lines/:lineId", "routes/admin/line-of-credit.tsx"),
  ]),
  // The institution's books (docs/product.md#books): staff and accountants, in their own frame.
  route("admin/books", "routes/books/layout.tsx", [
    index("routes/books/accounts.tsx"),
    route("accounts/:type", "routes/books/account.tsx"),
    route("trial-balance", "routes/books/trial-balance.tsx"),
    route("settlement", "routes/books/settlement.tsx"),
    route("entries", "routes/books/entries.tsx"),
  ]),
  route("admin/books/trial-balance.csv", "routes/books/trial-balance-csv.tsx"),
  route("admin/books/trial-balance.pdf", "routes/books/trial-balance-pdf.tsx"),
  route("admin/books/gl-export.csv", "routes/books/gl-export-csv.tsx"),
  route("admin/paper-delivery.csv", "routes/admin/paper-delivery-csv.tsx"),
  // A year's Form 1099-INT figures as CSV (docs/product.md#tax-forms).
  route("admin/tax-forms/:year", "routes/admin/tax-forms-csv.tsx"),
  // Back-office downloads (no layout): the audit log as CSV, an applicant's ID document.
  route("admin/audit.csv", "routes/admin/audit-csv.tsx"),
  route("admin/queues/files/:fileId", "routes/admin/queues-file.tsx"),
  route("admin/queues/returns/:fileId", "routes/admin/queues-return-file.tsx"),
  // A mobile deposit's check photo (front or back), for the staff who review deposits.
  route("admin/queues/deposits/:depositId/:side", "routes/admin/deposit-image.tsx"),
  route("admin/transactions-template.csv", "routes/admin/transactions-template.tsx"),
  route("admin/members/:memberId/document", "routes/admin/member-document.tsx"),
  // A secure message's file, for staff and reviewers, every view audited.
  route("admin/inbox/:conversationId/attachments/:attachmentId", "routes/admin/inbox-attachment.tsx"),
  // Session keep-alive ("Stay signed in") and status, for the idle warning.
  route("session", "routes/auth/session.tsx"),
  // The benchmark's reference page: one component, no layout. 404 unless MUTUAL_BENCH=1.
  route("bench/minimal", "routes/bench-minimal.tsx"),
  // Member banking app (docs/product.md#member-app): the top bar's frame, the dashboard with
  // transfers, history, notifications; resource routes for the recipient lookup and the CSV export.
  layout("routes/member/layout.tsx", { id: "member" }, [
    route("dashboard", "routes/member/dashboard.tsx"),
    route("dashboard/transactions", "routes/member/transactions.tsx"),
    route("dashboard/notifications", "routes/member/notifications.tsx"),
    // Transfers to other banks: Pending (cancel), Sent, Cancelled (docs/product.md#payment-queues).
    route("dashboard/payments", "routes/member/payments.tsx"),
    // An international wire's remittance transfer receipt, and its cancellation within 30 minutes
    // (docs/product.md#remittance-transfers).
    route("dashboard/payments/:paymentId", "routes/member/payment-receipt.tsx"),
    // Monthly statements per account (docs/product.md#statements).
    route("dashboard/statements", "routes/member/statements.tsx"),
    // Mobile Deposit: a check's photos, pending review, then posted or rejected (docs/product.md#mobile-deposit).
    route("dashboard/deposit", "routes/member/deposit.tsx"),
    // Bill Pay: payees, scheduled and recurring payments, history (docs/product.md#bill-pay).
    route("dashboard/bill-pay", "routes/member/bill-pay.tsx"),
    // Scheduled and repeating transfers: the list, edit, skip, cancel (docs/product.md#scheduled-transfers).
    route("dashboard/scheduled-transfers", "routes/member/scheduled-transfers.tsx"),
    // Alerts the member chooses: balance below, transaction above, deposit, payments, card declined,
    // sign-in from a new device (docs/product.md#alerts).
    route("settings/alerts", "routes/member/alerts.tsx"),
    // Accounts at other banks, verified by micro-deposits (docs/product.md#linked-accounts).
    route("dashboard/linked-accounts", "routes/member/linked-accounts.tsx"),
    // Pulling money in from a verified linked account (docs/product.md#move-money-in).
    route("dashboard/linked-accounts/move-money-in", "routes/member/move-money-in.tsx"),
    // Card Services: the member's debit cards and their controls (docs/product.md#cards).
    route("dashboard/cards", "routes/member/cards.tsx"),
    // Report a problem with a transaction, and the member's cases (docs/product.md#disputes).
    route("dashboard/disputes", "routes/member/disputes.tsx"),
    route("dashboard/disputes/new", "routes/member/dispute-new.tsx"),
    route("dashboard/disputes/:caseId", "routes/member/dispute.tsx"),
    route("dashboard/disputes/:caseId/attachments/:attachmentId", "routes/member/dispute-attachment.tsx"),
    // Secure messages with staff: the list, a new one (optionally about a transaction), one conversation
    // and its files (docs/product.md#secure-messages).
    route("dashboard/messages", "routes/member/messages.tsx"),
    route("dashboard/messages/new", "routes/member/message-new.tsx"),
    route("dashboard/messages/:conversationId", "routes/member/message.tsx"),
    // Consent to electronic delivery (E-SIGN) and the member's disclosures (docs/product.md#electronic-delivery).
    route("dashboard/electronic-delivery", "routes/member/electronic-delivery.tsx"),
    // Loans: the products to apply for, an application, an offer with its Truth in Lending
    // disclosure, a decline's notice (docs/product.md#loans).
    route("dashboard/loans", "routes/member/loans.tsx"),
    route("dashboard/loans/apply/:product", "routes/member/loan-apply.tsx"),
    route("dashboard/loans/applications/:applicationId", "routes/member/loan-application.tsx"),
    route("dashboard/loans/:loanId", "routes/member/loan.tsx"),
    // A line of credit: draw, pay, autopay (docs/product.md#lines-of-credit).
    route("dashboard/loans/lines/:lineId", "routes/member/line-of-credit.tsx"),
  ]),
  route("dashboard/messages/:conversationId/attachments/:attachmentId", "routes/member/message-attachment.tsx"),
  route("dashboard/loans/applications/:applicationId/disclosure.pdf", "routes/member/loan-disclosure-pdf.tsx"),
  route("dashboard/loans/:loanId/statements/:month", "routes/member/loan-statement-pdf.tsx"),
  route("dashboard/loans/lines/:lineId/statements/:closedOn", "routes/member/line-statement-pdf.tsx"),
  route("dashboard/electronic-delivery/sample.pdf", "routes/member/electronic-delivery-sample.tsx"),
  route("dashboard/statements/export", "routes/member/statements-export.tsx"),
  route("dashboard/statements/:accountId/:month", "routes/member/statement-pdf.tsx"),
  route("dashboard/statements/tax/:year", "routes/member/tax-form-pdf.tsx"),
  route("dashboard/payments/:paymentId/receipt.pdf", "routes/member/payment-receipt-pdf.tsx"),
  route("dashboard/transactions.csv", "routes/member/transactions-csv.tsx"),
  route("dashboard/verify-recipient", "routes/member/verify-recipient.tsx"),
  ...Object.keys(pathRedirects).map((path) => route(path, "routes/public/redirect.tsx", { id: `redirect-${path}` })),
] satisfies RouteConfig;
