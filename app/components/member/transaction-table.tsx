import type { MemberTransaction } from "~/server/accounts/history.server";
import { Amount, StatusBadge, formatDate } from "./amount";
import { cx } from "~/components/ui/field-styles";
import { useInstitutionDates } from "~/components/institution-dates";
import { Link } from "react-router";
import { isDisputable } from "~/domain/disputes";

/**
 * A member's transactions as one table for every width, rendered once (the dashboard's recent
 * list and the history page). On phones it shows the description with its date and category
 * beneath, and the amount; wider screens add the columns. `detailed` (history) adds each entry's
 * time, account, reference and reference number, and shows every row's status on phones; the
 * dashboard's shorter list shows the status on phones only when a transaction is not posted.
 */
export function TransactionTable({
  rows,
  caption,
  detailed = false,
}: {
  rows: MemberTransaction[];
  caption: string;
  detailed?: boolean;
}) {
  const { formatClock } = useInstitutionDates();
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead
          className={cx(
            detailed ? "border-b" : "border-y",
            "border-slate-100 bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase",
          )}
        >
          <tr>
            <th scope="col" className="hidden px-6 py-3 md:table-cell">
              Date
            </th>
            <th scope="col" className="px-4 py-3 md:px-3">
              Description
            </th>
            <th scope="col" className="hidden px-3 py-3 md:table-cell">
              Category
            </th>
            <th scope="col" className="hidden px-3 py-3 md:table-cell">
              Status
            </th>
            {detailed ? (
              <th scope="col" className="hidden px-3 py-3 md:table-cell">
                Reference
              </th>
            ) : null}
            <th scope="col" className="px-4 py-3 text-right md:px-6">
              Amount
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r) => (
            <tr key={r.entry_id} className="hover:bg-slate-50">
              <td className="hidden px-6 py-3 whitespace-nowrap text-slate-700 md:table-cell">
                {formatDate(r.effective_date)}
                {/* No time beside a date it was not written on: a payment scheduled ahead shows its payment date alone. */}
                {detailed && r.time ? (
                  <span className="block text-xs text-slate-600">{formatClock(r.time)}</span>
                ) : null}
              </td>
              <td
                className={cx(
                  "px-4 py-3.5 font-semibold text-slate-900 md:px-3 md:py-3 md:font-medium",
                  !detailed && "md:max-w-md md:truncate",
                )}
              >
                {r.description}
                <span className={cx("block text-xs font-normal text-slate-600 md:hidden", detailed && "mt-1")}>
                  <span className="whitespace-nowrap">{formatDate(r.effective_date)}</span> ·{" "}
                  <span className="whitespace-nowrap">{r.category}</span>
                  {detailed ? (
                    <>
                      {" · "}
                      <span className="whitespace-nowrap">{r.account_label}</span>
                    </>
                  ) : null}
                </span>
                <span className="hidden text-xs font-normal text-slate-600 md:block">
                  {r.account_label}
                  {detailed && r.reference ? ` · ${r.reference}` : ""}
                </span>
                {detailed && isDisputable(r.kind, r.status) ? (
                  <Link
                    to={`/dashboard/disputes/new?transaction=${r.transaction_id}`}
                    className="mt-1 inline-block text-xs font-semibold text-accent-700 underline-offset-2 hover:underline"
                    aria-label={`Report a problem with ${r.description}, ${r.reference_number}`}
                  >
                    Report a problem
                  </Link>
                ) : null}
                {detailed ? (
                  <Link
                    to={`/dashboard/messages/new?transaction=${r.transaction_id}`}
                    className={cx(
                      "mt-1 inline-block text-xs font-semibold text-accent-700 underline-offset-2 hover:underline",
                      isDisputable(r.kind, r.status) && "ml-3",
                    )}
                    aria-label={`Ask about this: ${r.description}, ${r.reference_number}`}
                  >
                    Ask about this
                  </Link>
                ) : null}
              </td>
              <td className="hidden px-3 py-3 text-slate-700 md:table-cell">{r.category}</td>
              <td className="hidden px-3 py-3 md:table-cell">
                <StatusBadge status={r.badge} label={r.status_label} />
                <SentOn row={r} />
              </td>
              {detailed ? (
                <td className="hidden px-3 py-3 font-mono text-xs text-slate-600 md:table-cell">
                  {r.reference_number}
                </td>
              ) : null}
              <td className="px-4 py-3.5 text-right align-top whitespace-nowrap md:px-6 md:py-3 md:align-middle">
                <Amount cents={r.amount_cents} />
                {detailed || r.status !== "posted" || r.payment_status ? (
                  <span className="mt-1 block md:hidden">
                    <StatusBadge status={r.badge} label={r.status_label} />
                    <SentOn row={r} />
                  </span>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A sent payment to another bank: the date its file takes effect at the other bank; a returned one: why. */
function SentOn({ row }: { row: MemberTransaction }) {
  if (row.return_reason)
    return <span className="mt-0.5 block max-w-56 text-xs text-slate-600">{row.return_reason}</span>;
  if (!row.sent_effective_date) return null;
  return (
    <span className="mt-0.5 block text-xs whitespace-nowrap text-slate-600">
      Effective {formatDate(row.sent_effective_date)}
    </span>
  );
}
