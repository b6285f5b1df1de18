import { Form, useNavigation } from "react-router";
import { ChevronDown, KeyRound } from "lucide-react";
import { Button, type FormReply } from "~/components/ui";
import { StatusLine } from "./admin-shell";
import { useInstitutionDates } from "~/components/institution-dates";

interface PanelCode {
  id: number;
  member_email: string;
  issued_by_email: string | null;
  created_at: Date | string;
  expires_at: Date | string;
  used_at: Date | string | null;
}

interface PanelResult {
  intent: string;
  message?: string;
  tone?: "error" | "success";
  reply?: FormReply;
  issued?: { code: string; member_email: string; expires_at: string };
}

/**
 * The one-time-code panel (docs/product.md#one-time-code-panel), collapsible (a <details>, so it
 * works without JavaScript): issue a code for a member (generated, or typed: exactly 6 digits), the
 * valid and used codes (masked; the code shows once, right after issue), remove a valid code, clear
 * the used list.
 */
export function CodePanel({
  codes,
  result,
  defaultEmail,
  initiallyOpen,
}: {
  codes: { valid: PanelCode[]; used: PanelCode[] };
  result?: PanelResult;
  defaultEmail: string;
  initiallyOpen: boolean;
}) {
  const { formatDateTime } = useInstitutionDates();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "issue_code";
  const mine = result && ["issue_code", "remove_code", "clear_used_codes"].includes(result.intent) ? result : undefined;
  return (
    <details open={initiallyOpen || undefined} className="group rounded-2xl border border-slate-200 bg-white shadow-sm">
      <summary className="flex cursor-pointer list-none items-center justify-between gap-3 rounded-2xl px-5 py-4 [&::-webkit-details-marker]:hidden">
        <span className="flex items-center gap-3">
          <KeyRound className="size-5 text-accent-700" aria-hidden="true" />
          <span className="font-semibold text-brand-800">One-time sign-in codes</span>
          <span className="tabular whitespace-nowrap rounded-full bg-slate-100 px-2 py-0.5 text-xs font-semibold text-slate-800">
            {codes.valid.length} valid
          </span>
        </span>
        <ChevronDown className="size-5 text-slate-600 transition-transform group-open:rotate-180" aria-hidden="true" />
      </summary>
      <div className="grid gap-6 border-t border-slate-200 p-5 lg:grid-cols-[minmax(0,22rem)_minmax(0,1fr)]">
        <Form method="post" preventScrollReset className="space-y-3" aria-label="Issue a sign-in code">
          <input type="hidden" name="intent" value="issue_code" />
          <p className="text-sm text-slate-700">
            For a member who cannot receive an email code or use an authenticator app, after checking their identity by
            phone or at a branch. Valid 24 hours, works once.
          </p>
          <div>
            <label htmlFor="code-member-email" className="block text-sm font-medium text-slate-800">
              Member email
            </label>
            <input
              id="code-member-email"
              name="member_email"
              type="email"
              required
              defaultValue={postedEmail(mine?.reply) ?? defaultEmail}
              key={defaultEmail}
              autoComplete="off"
              className="mt-1.5 block w-full rounded-lg border border-slate-300 px-3 py-2 text-sm focus:border-accent-600 focus:outline-2 focus:outline-accent-600"
            />
          </div>
          <div>
            <label htmlFor="code-typed" className="block text-sm font-medium text-slate-800">
              Code <span className="font-normal text-slate-600">(optional: leave empty to generate one)</span>
            </label>
            <input
              id="code-typed"
              name="code"
              inputMode="numeric"
              autoComplete="off"
              maxLength={6}
              aria-describedby="code-typed-hint"
              className="tabular mt-1.5 block w-full rounded-lg border border-slate-300 px-3 py-2 font-mono text-sm tracking-widest focus:border-accent-600 focus:outline-2 focus:outline-accent-600"
            />
            <span id="code-typed-hint" className="mt-1 block text-xs text-slate-600">
              Exactly 6 digits, not one digit six times or a run like 123456.
            </span>
          </div>
          <Button type="submit" className="w-full" isPending={busy} pendingLabel="Issuing…">
            Issue code
          </Button>
          {mine?.message ? <StatusLine message={mine.message} tone={mine.tone} /> : null}
          {mine?.issued ? (
            <p className="rounded-lg border border-accent-600 bg-accent-50 p-4 text-center">
              <span className="block text-sm text-slate-800">Code for {mine.issued.member_email}</span>
              <span
                className="tabular block font-mono text-3xl font-semibold tracking-[0.3em] text-slate-900"
                data-testid="issued-code"
              >
                {mine.issued.code}
              </span>
              <span className="block text-xs text-slate-700">Expires {formatDateTime(mine.issued.expires_at)}</span>
            </p>
          ) : null}
        </Form>
        <div className="grid gap-5 md:grid-cols-2">
          <div>
            <h3 className="text-sm font-semibold text-slate-900">Valid codes</h3>
            {codes.valid.length === 0 ? (
              <p className="mt-2 text-sm text-slate-700">None.</p>
            ) : (
              <ul className="mt-2 divide-y divide-slate-100 text-sm">
                {codes.valid.map((c) => (
                  <li key={c.id} className="flex items-center justify-between gap-2 py-2">
                    <span className="min-w-0">
                      <span className="block truncate font-medium text-slate-900">{c.member_email}</span>
                      <span className="block text-xs text-slate-700">
                        <span className="font-mono">••••••</span> · expires {formatDateTime(c.expires_at)}
                      </span>
                    </span>
                    <Form method="post" preventScrollReset>
                      <input type="hidden" name="intent" value="remove_code" />
                      <input type="hidden" name="code_id" value={c.id} />
                      <button
                        type="submit"
                        className="rounded-lg px-2 py-1 text-sm font-medium text-red-800 hover:bg-red-50"
                        aria-label={`Remove the code for ${c.member_email}`}
                      >
                        Remove
                      </button>
                    </Form>
                  </li>
                ))}
              </ul>
            )}
          </div>
          <div>
            <div className="flex items-center justify-between gap-2">
              <h3 className="text-sm font-semibold text-slate-900">Used codes</h3>
              {codes.used.length ? (
                <Form method="post" preventScrollReset>
                  <input type="hidden" name="intent" value="clear_used_codes" />
                  <button
                    type="submit"
                    className="rounded-lg px-2 py-1 text-sm font-medium text-brand-700 hover:bg-brand-50"
                  >
                    Clear list
                  </button>
                </Form>
              ) : null}
            </div>
            {codes.used.length === 0 ? (
              <p className="mt-2 text-sm text-slate-700">None.</p>
            ) : (
              <ul className="mt-2 divide-y divide-slate-100 text-sm">
                {codes.used.map((c) => (
                  <li key={c.id} className="py-2">
                    <span className="block truncate font-medium text-slate-900">{c.member_email}</span>
                    <span className="block text-xs text-slate-700">
                      Used {c.used_at ? formatDateTime(c.used_at) : ""}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
      </div>
    </details>
  );
}

/** The member email the last answer sent back (with control characters taken out). */
function postedEmail(reply: FormReply | undefined): string | undefined {
  const email = reply?.initialValue?.member_email;
  return typeof email === "string" ? email.replace(/\p{Cc}/gu, "") : undefined;
}
