import { Form } from "react-router";
import { Download, Mail } from "lucide-react";
import { Button, FormMessage } from "~/components/ui";

/**
 * A loan's monthly statements (docs/product.md#loan-statements) or a line of credit's periodic
 * statements (docs/product.md#line-statements) as download links, on the Statements page and the
 * loan's or line's own page: newest first, each a PDF made once and kept. On the Statements page
 * (`email` given) each also has "Email it to me", posted to that page.
 */
export function LoanStatementList({
  loan,
  email,
}: {
  loan: { id: number; number: string; product_name: string; months: { month: string; label: string }[] };
  /** The month being sent, and the page's answer when it is about this loan. */
  email?: { sending: string | null; reply: { ok: boolean; message: string; month: string } | null };
}) {
  return (
    <CreditStatementList
      name={`${loan.product_name} ${loan.number}`}
      statements={loan.months.map((m) => ({ key: m.month, label: m.label }))}
      href={(month) => `/dashboard/loans/${loan.id}/statements/${month}`}
      form={{ field: "loan", value: loan.id, intent: "email_loan" }}
      empty="No statement yet: your first one covers the month the loan was paid out, once that month has ended."
      email={email}
    />
  );
}

/** A line of credit's statements, one per billing cycle closed, named by its closing date. */
export function LineStatementList({
  line,
  email,
}: {
  line: { id: number; number: string; product_name: string; cycles: { closed_on: string; label: string }[] };
  email?: { sending: string | null; reply: { ok: boolean; message: string; month: string } | null };
}) {
  return (
    <CreditStatementList
      name={`${line.product_name} ${line.number}`}
      statements={line.cycles.map((c) => ({ key: c.closed_on, label: c.label }))}
      href={(closed_on) => `/dashboard/loans/lines/${line.id}/statements/${closed_on}`}
      form={{ field: "line", value: line.id, intent: "email_line" }}
      empty="No statement yet: your first one comes when the line's first monthly billing cycle closes."
      email={email}
    />
  );
}

function CreditStatementList({
  name,
  statements,
  href,
  form,
  empty,
  email,
}: {
  name: string;
  statements: { key: string; label: string }[];
  href: (key: string) => string;
  /** The hidden field naming the loan or line, and the intent "Email it to me" posts. */
  form: { field: string; value: number; intent: string };
  empty: string;
  email?: { sending: string | null; reply: { ok: boolean; message: string; month: string } | null };
}) {
  if (statements.length === 0) return <p className="px-5 py-6 text-sm text-slate-700">{empty}</p>;
  return (
    <ul className="divide-y divide-slate-100">
      {statements.map((s) => (
        <li key={s.key} className="flex flex-wrap items-center justify-between gap-3 px-5 py-3">
          <span className="text-sm font-medium text-slate-900">{s.label}</span>
          <span className="flex flex-wrap gap-2">
            <a
              href={href(s.key)}
              download
              aria-label={`Download PDF: ${name}, ${s.label}`}
              className="inline-flex min-h-11 items-center gap-1.5 rounded-lg border border-slate-300 px-3 text-sm font-semibold text-accent-700 hover:border-accent-600 hover:bg-accent-50"
            >
              <Download className="size-4" aria-hidden="true" /> Download PDF
            </a>
            {email ? (
              <Form method="post" preventScrollReset>
                <input type="hidden" name={form.field} value={form.value} />
                <input type="hidden" name="month" value={s.key} />
                <Button
                  type="submit"
                  name="intent"
                  value={form.intent}
                  variant="secondary"
                  isPending={email.sending === s.key}
                  pendingLabel="Sending…"
                  aria-label={`Email it to me: ${name}, ${s.label}`}
                >
                  <Mail className="size-4" aria-hidden="true" /> Email it to me
                </Button>
              </Form>
            ) : null}
          </span>
          {email?.reply && email.reply.month === s.key ? (
            <FormMessage className="w-full" tone={email.reply.ok ? "success" : "error"}>
              {email.reply.message}
            </FormMessage>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
