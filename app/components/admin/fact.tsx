import { Link } from "react-router";

/**
 * One figure of a booked loan or a line of credit on the staff pages (routes/admin/booked-loan.tsx,
 * routes/admin/line-of-credit.tsx): a term and its value, a link where the value names a page.
 * Used inside a `<dl>`.
 */
export function Fact({ label, value, href, testId }: { label: string; value: string; href?: string; testId?: string }) {
  return (
    <div>
      <dt className="text-slate-600">{label}</dt>
      <dd className="text-slate-900" data-testid={testId}>
        {href ? (
          <Link to={href} className="font-semibold text-accent-700 underline">
            {value}
          </Link>
        ) : (
          value
        )}
      </dd>
    </div>
  );
}
