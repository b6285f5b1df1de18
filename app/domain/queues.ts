/**
 * The back office's payment queues (/admin/queues, docs/product.md#payment-queues): each section's
 * title, written once. The server's queue list (QUEUE_SECTIONS, with each section's count) and the
 * page's sections both read it; a new queue adds its title here.
 */
export const QUEUE_TITLES = {
  ach: "Pending ACH transfers",
  wire: "Pending wires",
  returns: "Returned items",
  duplicates: "Possible duplicates",
  credit_reviews: "Incoming credits to review",
  changes: "Notifications of change",
  deposits: "Mobile deposits",
  adjustments: "Staff postings waiting for a second approval",
  staff_grants: "Staff roles waiting for a second admin",
} as const;

export type QueueSectionId = keyof typeof QUEUE_TITLES;
