import { Form } from "react-router";
import { Download, Mail } from "lucide-react";
import { Button, FormMessage } from "~/components/ui";

/**
 * A loan's monthly statements as download links (docs/product.md#loan-statements), on the
 * Statements page and the loan's own page: newest month first, each a PDF made once and kept. On
 * the Statements page (`email` given) each month also has "Email it to me", posted to that page.
 */
export function LoanStatementList({
  loan,
  email,
}: {
  loan: { id: number; number: string; product_name: string; months: { month: string; label: string }[] };
  /** The month being sent, and the page's answer when it is about this loan. */
  email?: { sending: string | null; reply: { ok: boolean; message: string; month: string } | null };
}) {
  if (loan.months.length === 0)
    return (
      <p className="px-5 py-6 text-sm text-slate-700">
        No statement yet: your first one covers the month the loan was paid out, once that month has ended.
      </p>
    );
  const name = `${loan.product_name} ${loan.number}`;
  return (
    <ul className="divide-y divide-slate-100">
      {loan.months.map((m) => (
        <li key={m.month} className="flex flex-wrap items-center justify-between gap-3 px-5 py-3">
          <span className="text-sm font-medium text-slate-900">{m.label}</span>
          <span className="flex flex-wrap gap-2">
            <a
              href={`/dashboard/loans/${loan.id}/statements/${m.month}`}
              download
              aria-label={`Download PDF: ${name}, ${m.label}`}
              className="inline-flex min-h-11 items-center gap-1.5 rounded-lg border border-slate-300 px-3 text-sm font-semibold text-accent-700 hover:border-accent-600 hover:bg-accent-50"
            >
              <Download className="size-4" aria-hidden="true" /> Download PDF
            </a>
            {email ? (
              <Form method="post" preventScrollReset>
                <input type="hidden" name="loan" value={loan.id} />
                <input type="hidden" name="month" value={m.month} />
                <Button
                  type="submit"
                  name="intent"
                  value="email_loan"
                  variant="secondary"
                  isPending={email.sending === m.month}
                  pendingLabel="Sending…"
                  aria-label={`Email it to me: ${name}, ${m.label}`}
                >
                  <Mail className="size-4" aria-hidden="true" /> Email it to me
                </Button>
              </Form>
            ) : null}
          </span>
          {email?.reply && email.reply.month === m.month ? (
            <FormMessage className="w-full" tone={email.reply.ok ? "success" : "error"}>
              {email.reply.message}
            </FormMessage>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
