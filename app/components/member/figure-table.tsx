import type { ReactNode } from "react";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import type { LoanDetailView } from "~/server/loans/loan-views.server";
import type { MemberLineDetail } from "~/server/loans/line-views.server";

/** One column of a figure table: its heading and what each row shows in it. */
export interface FigureColumn<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  /** An amount: right-aligned. */
  amount?: boolean;
  /** A date: kept on one line. */
  date?: boolean;
}

/**
 * How a figure table looks: the member's pages (plain headings), or the back office's (small
 * capitals, wider cells, figures in even columns), so each area's tables read alike.
 */
const LOOKS = {
  member: {
    table: "w-full text-left text-sm",
    thead: "bg-slate-50 text-slate-700",
    th: "px-4 py-2 font-semibold",
    td: "px-4 py-2",
    amount: "text-right",
  },
  staff: {
    table: "w-full text-sm",
    thead: "bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase",
    th: "px-5 py-3",
    td: "px-5 py-2",
    amount: "text-right tabular-nums",
  },
} as const;

/**
 * A loan's or a line's figures as a table that scrolls sideways on a narrow screen (its region
 * named by the section's heading, `labelledBy`), one row each, for members and staff alike.
 */
export function FigureTable<Row>({
  labelledBy,
  look,
  columns,
  rows,
  rowKey,
}: {
  labelledBy: string;
  look: keyof typeof LOOKS;
  columns: readonly FigureColumn<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string | number;
}) {
  const style = LOOKS[look];
  const classes = (column: FigureColumn<Row>, cell: string) =>
    [cell, column.amount ? style.amount : null, column.date ? "whitespace-nowrap" : null].filter(Boolean).join(" ");
  return (
    <div className="overflow-x-auto" tabIndex={0} role="region" aria-labelledby={labelledBy}>
      <table className={style.table}>
        <thead className={style.thead}>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col" className={classes({ ...column, date: false }, style.th)}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.header} className={classes(column, style.td)}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A booked loan's scheduled payment, as the loan pages read it. */
type SchedulePayment = LoanDetailView["schedule"][number];

/** A booked loan's schedule: the member's loan page and staff's show the same columns. */
export const LOAN_SCHEDULE_COLUMNS: readonly FigureColumn<SchedulePayment>[] = [
  { header: "#", cell: (p) => p.number },
  { header: "Due", cell: (p) => formatBusinessDate(p.due_on), date: true },
  { header: "Payment", cell: (p) => formatCents(p.payment_cents), amount: true },
  { header: "Interest", cell: (p) => formatCents(p.interest_cents), amount: true },
  { header: "Principal", cell: (p) => formatCents(p.principal_cents), amount: true },
  { header: "Balance after", cell: (p) => formatCents(p.balance_after_cents), amount: true },
  { header: "Paid", cell: (p) => (p.paid ? "Paid" : "") },
];

/** A line of credit's closed billing cycle, as the line pages read it. */
type LineCycle = MemberLineDetail["cycles"][number];

/** A line's monthly cycles: the member's line page and staff's show the same columns. */
export const LINE_CYCLE_COLUMNS: readonly FigureColumn<LineCycle>[] = [
  { header: "Closed", cell: (c) => formatBusinessDate(c.closed_on), date: true },
  { header: "Balance", cell: (c) => formatCents(c.balance_cents), amount: true },
  { header: "Minimum", cell: (c) => formatCents(c.minimum_due_cents), amount: true },
  {
    header: "Due",
    cell: (c) => `${formatBusinessDate(c.due_on)}${c.late_fee_charged ? " (late fee charged)" : ""}`,
    date: true,
  },
  { header: "Paid since", cell: (c) => formatCents(c.paid_cents), amount: true },
];
