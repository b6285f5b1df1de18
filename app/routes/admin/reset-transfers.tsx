import { data, Form, Link, useNavigation, useSearchParams } from "react-router";
import { ArrowLeft, ArrowRight, RotateCcw, TriangleAlert } from "lucide-react";
import type { Route } from "./+types/reset-transfers";
import { requestInfoContext } from "~/context";
import { requireUser } from "~/server/auth/session.server";
import { readForm } from "~/server/http/form.server";
import { institution } from "~/config/institution.server";
import { parsePageAfter } from "~/server/payments/transfer-counts.server";
import { resetAllTransferCounts, resetTransferCount, transferCounts } from "./reset-transfers.server";
import { pageUrl } from "~/server/http/page-url.server";
import { pageTitle } from "~/components/site/page-title";
import { AdminShell } from "~/components/admin/admin-shell";
import { Button, FormMessage, useStepFocus } from "~/components/ui";

/**
 * Reset Transfer Counts, staff only: every member (staff excluded) with this month's count of
 * savings transfers, a page at a time (?after=<last email shown>); reset one, or all after a
 * confirm step. Every reset is audited. The confirm step is part of the address (?confirm=all),
 * so it works without JavaScript. It sits in the back office's frame, with its navigation.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Reset Transfer Counts", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request }: Route.LoaderArgs) {
  const staff = await requireUser(request, { roles: ["admin"] });
  const after = parsePageAfter(pageUrl(request).searchParams.get("after"));
  if (after === "invalid")
    throw data("That page address is not one this list makes. Start again from the first page.", { status: 400 });
  return {
    ...(await transferCounts({ after })),
    first_page: after === null,
    staff: { name: staff.name, email: staff.email },
    institution: institution().name,
  };
}

type ActionResult = { message: string; tone: "success" | "error" };

export async function action({ request, context }: Route.ActionArgs) {
  const staff = await requireUser(request, { roles: ["admin"] });
  const { request_id, ip } = context.get(requestInfoContext);
  const form = await readForm(request);
  const intent = form.get("intent");
  const actor = { id: staff.id, email: staff.email };

  if (intent === "reset-all") {
    const result = await resetAllTransferCounts(actor, { request_id, ip });
    if (result.status === "failed")
      return data({ message: `Error: ${result.detail}`, tone: "error" } satisfies ActionResult, { status: 500 });
    return {
      message: `Successfully reset ${result.reset} users. ${result.skipped} users skipped.`,
      tone: "success",
    } satisfies ActionResult;
  }
  if (intent === "reset-one") {
    const member_id = String(form.get("member_id") ?? "");
    const result = await resetTransferCount(actor, member_id, { request_id, ip });
    if (result.status === "reset")
      return { message: `Reset transfer count for ${result.email}`, tone: "success" } satisfies ActionResult;
    if (result.status === "not_found")
      return data({ message: "Error: member not found", tone: "error" } satisfies ActionResult, { status: 404 });
    return data({ message: `Error: ${result.detail}`, tone: "error" } satisfies ActionResult, { status: 500 });
  }
  return data({ message: "Error: unknown action", tone: "error" } satisfies ActionResult, { status: 400 });
}

export default function ResetTransfers({ loaderData, actionData }: Route.ComponentProps) {
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const confirming = params.get("confirm") === "all";
  // The confirm step replaces the Initiate link: focus goes to Confirm Reset All (autoFocus, so
  // without JavaScript too), and back to the Initiate link on Cancel.
  const confirmStep = useStepFocus<HTMLDivElement>(confirming ? "reset-all" : null, { "reset-all": "reset-all-open" });
  const busy =
    navigation.state === "submitting"
      ? (navigation.formData?.get("member_id") ?? navigation.formData?.get("intent"))
      : null;
  // The last result stays until the next action; the confirm step does not repeat it.
  const result = confirming ? undefined : (actionData as ActionResult | undefined);
  const { members, total, with_transfers, next_after, first_page } = loaderData;
  const count = (n: number) => n.toLocaleString("en-US");
  const after = params.get("after");
  const pageAction = `/admin/reset-transfers${after ? `?${new URLSearchParams({ after })}` : ""}`;
  return (
    <AdminShell staff={loaderData.staff} institution={loaderData.institution}>
      <div className="mx-auto max-w-5xl">
        <Link
          to="/admin"
          className="inline-flex items-center gap-1.5 rounded-md text-sm font-medium text-brand-800 hover:underline"
        >
          <ArrowLeft className="size-4" aria-hidden="true" />
          Back to Admin Dashboard
        </Link>
        <h1 className="mt-4 text-3xl font-semibold tracking-tight text-brand-800">Reset Transfer Counts</h1>
        <p className="mt-2 max-w-2xl text-slate-700">
          Savings accounts allow a limited number of transfers out each month. Resetting a member's count lets them
          transfer again this month. Every reset is recorded in the audit log.
        </p>

        {result ? (
          <FormMessage tone={result.tone} className="mt-6">
            {result.message}
          </FormMessage>
        ) : null}

        <section
          aria-labelledby="reset-all-heading"
          className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <h2 id="reset-all-heading" className="text-lg font-semibold text-slate-900">
            All members
          </h2>
          {confirming ? (
            <div
              ref={confirmStep}
              role="alertdialog"
              aria-labelledby="confirm-reset-all"
              aria-describedby="confirm-reset-all"
              className="mt-3 rounded-xl border border-amber-200 bg-amber-50 p-4"
            >
              <p id="confirm-reset-all" className="flex items-start gap-2 text-sm font-medium text-amber-950">
                <TriangleAlert className="mt-0.5 size-5 shrink-0" aria-hidden="true" />
                Are you sure you want to reset all transfer counts? This action cannot be undone.
              </p>
              <Form method="post" action="/admin/reset-transfers" className="mt-4 flex flex-wrap gap-2">
                <input type="hidden" name="intent" value="reset-all" />
                <Button
                  type="submit"
                  variant="danger"
                  autoFocus
                  isPending={busy === "reset-all"}
                  pendingLabel="Resetting…"
                >
                  Confirm Reset All
                </Button>
                <Link
                  to="/admin/reset-transfers"
                  className="inline-flex items-center rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 hover:bg-slate-50"
                >
                  Cancel
                </Link>
              </Form>
            </div>
          ) : (
            <Link
              id="reset-all-open"
              to="/admin/reset-transfers?confirm=all"
              className="mt-3 inline-flex items-center gap-2 rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-800"
            >
              <RotateCcw className="size-4" aria-hidden="true" />
              Initiate Reset All Transfer Counts
            </Link>
          )}
        </section>

        <section
          aria-labelledby="members-heading"
          className="mt-6 rounded-2xl border border-slate-200 bg-white shadow-sm"
        >
          <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 px-5 pt-5">
            <h2 id="members-heading" className="text-lg font-semibold text-slate-900">
              Members <span className="text-sm font-normal text-slate-600">({count(total)})</span>
            </h2>
            <p className="text-sm text-slate-600">
              {count(with_transfers)} with savings transfers this month
              {total > members.length ? ` · ${count(members.length)} shown on this page, by email` : ""}
            </p>
          </div>
          {members.length === 0 ? (
            <p className="px-5 pb-5 pt-2 text-slate-700">{first_page ? "No members yet." : "No more members."}</p>
          ) : (
            <ul className="mt-3 divide-y divide-slate-100">
              {members.map((member) => (
                <li
                  key={member.user_id}
                  className="flex flex-col gap-3 px-5 py-4 sm:flex-row sm:items-center sm:justify-between"
                  data-member={member.email}
                >
                  <div className="min-w-0">
                    <p className="break-all font-medium text-slate-900">{member.email}</p>
                    <p className="text-sm text-slate-600">
                      {member.name} · Current count:{" "}
                      <span className="font-semibold tabular-nums text-slate-900">{member.current_count}</span>
                    </p>
                  </div>
                  {/* Posts to this page's own address, so the list stays on the same page afterwards. */}
                  <Form method="post" action={pageAction}>
                    <input type="hidden" name="intent" value="reset-one" />
                    <input type="hidden" name="member_id" value={member.user_id} />
                    <Button
                      type="submit"
                      variant="secondary"
                      aria-label={`Reset transfer count for ${member.email}`}
                      isPending={busy === member.user_id}
                      pendingLabel="Resetting…"
                    >
                      Reset
                    </Button>
                  </Form>
                </li>
              ))}
            </ul>
          )}
        </section>
        <nav aria-label="Pages" className="mt-4 flex items-center justify-between gap-3">
          {!first_page ? (
            <Link
              to="/admin/reset-transfers"
              className="inline-flex items-center gap-1.5 rounded-lg px-3 py-2 text-sm font-semibold text-accent-700 hover:bg-accent-50"
            >
              <ArrowLeft className="size-4" aria-hidden="true" /> First page
            </Link>
          ) : (
            <span />
          )}
          {next_after ? (
            <Link
              to={`/admin/reset-transfers?${new URLSearchParams({ after: next_after })}`}
              className="inline-flex items-center gap-1.5 rounded-lg px-3 py-2 text-sm font-semibold text-accent-700 hover:bg-accent-50"
            >
              Next page <ArrowRight className="size-4" aria-hidden="true" />
            </Link>
          ) : null}
        </nav>
      </div>
    </AdminShell>
  );
}
