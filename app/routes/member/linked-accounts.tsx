import { data, Form, Link, useNavigation, type ShouldRevalidateFunctionArgs } from "react-router";
import { z } from "zod";
import { ArrowDownToLine, Landmark } from "lucide-react";
import type { Route } from "./+types/linked-accounts";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { parseSubmission, readForm, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { confirmDepositsSchema, linkAccountSchema, parseMicroDeposit } from "~/domain/linked-accounts";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage, SchemaForm, Select, TextField, formMessages, useSchemaForm } from "~/components/ui";
import { StatusBadge } from "~/components/member/amount";
import { confirmDeposits, link, linkedAccountsOf, removeLink, returnReason } from "./linked-accounts.server";

/**
 * /dashboard/linked-accounts (docs/product.md#linked-accounts): the member's accounts at other
 * banks. Linking one sends two small deposits with the next ACH file; the member types the two
 * amounts back (three tries) and the account is verified. A link can be removed (kept, marked
 * removed). Only the member's own links are listed or changed: another's answers "not found".
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Linked accounts", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const accounts = await linkedAccountsOf(user.id);
  return {
    accounts: accounts.map((a) => ({
      ...a,
      // In words, here: the browser does not need the return file module.
      return_reason: a.return_code ? returnReason(a.return_code) : null,
      created_at: a.created_at.toISOString(),
    })),
  };
}

/**
 * A refused confirmation (422) still changed the link (a try counted, or the link failed): the
 * list is read again after every answer, which React Router skips after a 4xx by default.
 */
export function shouldRevalidate({ actionResult, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return actionResult !== undefined ? true : defaultShouldRevalidate;
}

const INTENTS = ["link", "confirm", "remove"] as const;
const idSchema = z.object({ id: z.coerce.number().int().positive() });

export type LinkedAccountsActionData =
  | { ok: false; intent: "link"; reply: FormReply }
  | { ok: false; intent: "confirm"; id: number; reply: FormReply }
  | { ok: false; intent: "remove"; message: string }
  | { ok: true; intent: (typeof INTENTS)[number]; message: string };

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const { request_id, ip } = context.get(requestInfoContext);
  const origin = { request_id, ip };
  const member = { id: user.id, email: user.email };
  const form = await readForm(request);
  const intent = formIntent(form, INTENTS);
  if (!intent) throw data(UNKNOWN_INTENT_MESSAGE, { status: 400 });
  if (intent === "link") {
    const submission = parseSubmission(linkAccountSchema, form);
    if (submission.status !== "success")
      return data({ ok: false, intent, reply: replyTo(submission) } satisfies LinkedAccountsActionData, {
        status: 400,
      });
    const linked = await link(member, submission.value, origin);
    return {
      ok: true,
      intent,
      message: `${linked.nickname} is linked. We will send two small deposits with the next ACH file (usually the next business day); enter them here when they arrive.`,
    } satisfies LinkedAccountsActionData;
  }
  const id = idSchema.safeParse(Object.fromEntries(form));
  if (!id.success) throw data("That linked account was not found.", { status: 404 });
  if (intent === "remove") {
    const result = await removeLink(member, id.data.id, origin);
    if (!result.ok)
      return data({ ok: false, intent, message: result.message } satisfies LinkedAccountsActionData, {
        status: refusalStatus(result.kind),
      });
    return { ok: true, intent, message: "The account is removed. No money can move to or from it." };
  }
  const submission = parseSubmission(confirmDepositsSchema, form);
  if (submission.status !== "success")
    return data({ ok: false, intent, id: id.data.id, reply: replyTo(submission) } satisfies LinkedAccountsActionData, {
      status: 400,
    });
  const typed = [parseMicroDeposit(submission.value.first)!, parseMicroDeposit(submission.value.second)!] as const;
  const result = await confirmDeposits(member, id.data.id, typed, origin);
  if (!result.ok)
    return data(
      {
        ok: false,
        intent,
        id: id.data.id,
        reply: replyTo(submission, { fieldErrors: { [result.field ?? ""]: [result.message] } }),
      } satisfies LinkedAccountsActionData,
      { status: refusalStatus(result.kind) },
    );
  return {
    ok: true,
    intent,
    message: `${result.account.nickname} is verified.`,
  } satisfies LinkedAccountsActionData;
}

const STATUS = {
  pending: { badge: "pending", label: "Waiting for confirmation" },
  verified: { badge: "posted", label: "Verified" },
  failed: { badge: "failed", label: "Could not be verified" },
  removed: { badge: "reversed", label: "Removed" },
} as const;

const TYPE_OPTIONS = [
  { value: "checking", label: "Checking" },
  { value: "savings", label: "Savings" },
];

type View = Route.ComponentProps["loaderData"]["accounts"][number];

export default function LinkedAccounts({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as LinkedAccountsActionData | undefined;
  const linkReply = answer && !answer.ok && answer.intent === "link" ? answer.reply : null;
  const linkForm = useSchemaForm(linkAccountSchema, {
    id: `link-account${answer?.ok && answer.intent === "link" ? "-done" : ""}`,
    lastResult: linkReply,
  });
  const navigation = useNavigation();
  const linking = navigation.state === "submitting" && navigation.formData?.get("intent") === "link";
  const problems = formMessages(linkReply);
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <h1 className="text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Linked accounts</h1>
      <p className="mt-2 text-sm text-slate-700">
        Your accounts at other banks. To check an account is yours, we send it two small deposits (each under $1.00) and
        take them back in the same ACH file; you tell us the two amounts.
      </p>
      {answer?.ok ? (
        <FormMessage className="mt-4" tone="success">
          {answer.message}
        </FormMessage>
      ) : answer && answer.intent === "remove" && !answer.ok ? (
        <FormMessage className="mt-4" tone="error">
          {answer.message}
        </FormMessage>
      ) : null}

      <section aria-labelledby="linked-heading" className="mt-6">
        <h2 id="linked-heading" className="text-lg font-semibold text-brand-900">
          Your linked accounts
        </h2>
        {loaderData.accounts.some((a) => a.status === "verified") ? (
          // Offered only with a verified account to pull from (docs/product.md#move-money-in).
          <p className="mt-3">
            <Link
              to="/dashboard/linked-accounts/move-money-in"
              className="inline-flex min-h-11 items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
            >
              <ArrowDownToLine className="size-4" aria-hidden="true" /> Move money in
            </Link>
          </p>
        ) : null}
        {loaderData.accounts.length === 0 ? (
          <p className="mt-3 rounded-2xl border border-slate-200 bg-white p-6 text-center text-sm text-slate-700">
            You have not linked an account at another bank yet.
          </p>
        ) : (
          <ul className="mt-3 space-y-4" aria-label="Linked accounts">
            {loaderData.accounts.map((a) => (
              <LinkedAccountCard key={a.id} account={a} answer={answer} />
            ))}
          </ul>
        )}
      </section>

      <section
        aria-labelledby="link-heading"
        className="mt-8 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
      >
        <h2 id="link-heading" className="text-lg font-semibold text-brand-900">
          Link an account
        </h2>
        {problems.length > 0 ? <FormMessage className="mt-3" tone="error" title={problems[0]!} /> : null}
        <SchemaForm form={linkForm} method="post" className="mt-4 grid gap-4 sm:grid-cols-2">
          <input type="hidden" name="intent" value="link" />
          <TextField
            name="routing_number"
            label="Routing number"
            inputMode="numeric"
            isRequired
            description="9 digits, on the bottom left of a check"
          />
          <TextField
            name="account_number"
            label="Account number"
            inputMode="numeric"
            isRequired
            description="8 to 17 digits"
          />
          <Select name="account_type" label="Account type" options={TYPE_OPTIONS} defaultValue="checking" isRequired />
          <TextField name="nickname" label="Nickname" isRequired description="For example “Home checking”" />
          <div className="flex justify-end sm:col-span-2">
            <Button type="submit" size="lg" isPending={linking} pendingLabel="Linking…" className="w-full sm:w-auto">
              Link account
            </Button>
          </div>
        </SchemaForm>
      </section>
    </div>
  );
}

function LinkedAccountCard({ account: a, answer }: { account: View; answer: LinkedAccountsActionData | undefined }) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formData?.get("id") === String(a.id);
  const reply = answer && !answer.ok && answer.intent === "confirm" && answer.id === a.id ? answer.reply : null;
  const form = useSchemaForm(confirmDepositsSchema, { id: `confirm-${a.id}`, lastResult: reply });
  const status = STATUS[a.status];
  const problem = formMessages(reply)[0];
  return (
    <li
      className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
      data-testid="linked-account"
      aria-labelledby={`linked-${a.id}`}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex min-w-0 items-start gap-3">
          <Landmark className="mt-0.5 size-5 shrink-0 text-brand-700" aria-hidden="true" />
          <div className="min-w-0">
            <h3 id={`linked-${a.id}`} className="font-semibold text-slate-900">
              {a.nickname}
            </h3>
            <p className="text-sm text-slate-700">
              {a.bank_name ?? `Routing number ${a.routing_number}`} ·{" "}
              {a.account_type === "savings" ? "Savings" : "Checking"} {a.masked}
            </p>
          </div>
        </div>
        <StatusBadge status={status.badge} label={status.label} />
      </div>
      {problem ? <FormMessage className="mt-3" tone="error" title={problem} /> : null}
      {a.status === "pending" && !a.deposits_sent ? (
        <p className="mt-3 text-sm text-slate-700">
          The two deposits go out with the next ACH file. Come back when they show on your statement at the other bank.
        </p>
      ) : null}
      {a.status === "pending" && a.deposits_sent ? (
        <SchemaForm form={form} method="post" className="mt-4 grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-start">
          <input type="hidden" name="intent" value="confirm" />
          <input type="hidden" name="id" value={a.id} />
          <TextField name="first" label="First deposit" prefix="$" inputMode="decimal" placeholder="0.00" isRequired />
          <TextField
            name="second"
            label="Second deposit"
            prefix="$"
            inputMode="decimal"
            placeholder="0.00"
            isRequired
          />
          <Button type="submit" isPending={busy} pendingLabel="Checking…" className="sm:mt-7">
            Confirm amounts
          </Button>
          <p className="text-sm text-slate-700 sm:col-span-3">
            {a.tries_left} {a.tries_left === 1 ? "try" : "tries"} left.
          </p>
        </SchemaForm>
      ) : null}
      {a.status === "failed" && a.return_code ? (
        <p className="mt-3 text-sm text-slate-700">
          The other bank sent our entries back ({a.return_reason}, {a.return_code}), so this account cannot be used.
          Check the numbers, then remove it and link it again.
        </p>
      ) : a.status === "failed" ? (
        <p className="mt-3 text-sm text-slate-700">
          The amounts did not match three times. Remove this account and link it again to get new deposits.
        </p>
      ) : null}
      <Form method="post" className="mt-3 flex justify-end">
        <input type="hidden" name="id" value={a.id} />
        <Button
          type="submit"
          name="intent"
          value="remove"
          variant="secondary"
          isPending={busy}
          pendingLabel="Removing…"
        >
          Remove<span className="sr-only"> {a.nickname}</span>
        </Button>
      </Form>
    </li>
  );
}
