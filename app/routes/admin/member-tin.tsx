import { data, Link, useNavigation } from "react-router";
import { ArrowLeft, Eye, ShieldAlert } from "lucide-react";
import type { Route } from "./+types/member-tin";
import { requestInfoContext } from "~/context";
import { pageTitle } from "~/components/site/page-title";
import { RevealTinSchema, REVEAL_REASON_MAX_CHARS } from "~/domain/taxpayer-id";
import { requireStaff } from "~/server/admin/context.server";
import { parseSubmission, readForm, replyTo, type FormReply } from "~/server/http/form.server";
import { Button, FormMessage, RadioGroup, SchemaForm, TextArea, useSchemaForm } from "~/components/ui";
import { revealTin, tinPage } from "./member-tin.server";

/**
 * Reveal a taxpayer number in full (docs/product.md#taxpayer-identification): staff with money
 * powers only (a reviewer is sent away, a post from one gets 403), and only with a stated reason,
 * which goes into the audit log with who asked and whose number. The number is shown once, in the
 * answer to that post: never in the address, the page's loader data or a log.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Reveal taxpayer ID", matches), { name: "robots", content: "noindex" }];
}

const MEMBER_ID = /^[A-Za-z0-9_-]{1,64}$/;

async function pageFor(member_id: string) {
  const page = MEMBER_ID.test(member_id) ? await tinPage(member_id) : null;
  if (!page) throw data({ form_error: "This member was not found." }, { status: 404 });
  return page;
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  await requireStaff(request, context.get(requestInfoContext));
  const page = await pageFor(params.memberId);
  const party = new URL(request.url).searchParams.get("party") === "joint" ? "joint" : "member";
  return { ...page, party };
}

type ActionResult =
  | { status: "revealed"; party: "member" | "joint"; type_label: string; number: string; country: string | null }
  | { status: "refused"; reply: FormReply; message: string };

export async function action({ request, context, params }: Route.ActionArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const form = await readForm(request);
  await pageFor(params.memberId);
  const parsed = parseSubmission(RevealTinSchema, form);
  if (parsed.status !== "success")
    return data(
      {
        status: "refused",
        reply: replyTo(parsed),
        message: "Nothing was revealed: please check the form.",
      } satisfies ActionResult,
      { status: 400 },
    );
  const result = await revealTin({ member_id: params.memberId, ...parsed.value, staff, origin });
  if (result.status === "not_found")
    return data(
      {
        status: "refused",
        reply: replyTo(parsed),
        message: "Nothing was revealed: there is no taxpayer number on file for this person.",
      } satisfies ActionResult,
      { status: 404 },
    );
  return result satisfies ActionResult;
}

export default function MemberTinPage({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const navigation = useNavigation();
  const form = useSchemaForm(RevealTinSchema, {
    lastResult: result?.status === "refused" ? result.reply : undefined,
    defaultValue: { party: loaderData.party },
  });
  const ids = loaderData.ids;
  const partyName = (party: "member" | "joint") =>
    party === "joint" ? `${loaderData.joint_name ?? "Joint owner"} (joint owner)` : loaderData.name;
  const options = ids.map((t) => ({
    value: t.party,
    label: partyName(t.party),
    description: `${t.type_label} ${t.masked}${t.country ? ` · ${t.country}` : ""}`,
  }));
  return (
    <div className="mx-auto max-w-2xl space-y-5">
      <Link
        to={`/admin?member=${encodeURIComponent(loaderData.member_id)}`}
        className="inline-flex items-center gap-1.5 text-sm font-medium text-brand-700 underline underline-offset-2"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Back to {loaderData.name}
      </Link>
      <h1 className="text-2xl font-semibold tracking-tight text-brand-800">Reveal taxpayer ID: {loaderData.name}</h1>
      <p className="flex gap-2 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950">
        <ShieldAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
        <span>
          The full number is shown only for a reason you state. Your name, the reason and whose number it was go into
          the audit log; the number itself does not.
        </span>
      </p>
      {result?.status === "revealed" ? (
        <section
          aria-labelledby="revealed-title"
          className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <h2 id="revealed-title" className="text-base font-semibold text-brand-800">
            {partyName(result.party)}
          </h2>
          <p className="mt-2 text-sm text-slate-700">
            {result.type_label}
            {result.country ? ` issued by ${result.country}` : ""}
          </p>
          <p className="tabular mt-1 font-mono text-2xl font-semibold tracking-wider text-slate-900" data-testid="tin">
            {result.number}
          </p>
          <p className="mt-3 text-xs text-slate-600">This view was recorded in the audit log.</p>
        </section>
      ) : null}
      {ids.length === 0 ? (
        <p className="rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-800">
          There is no taxpayer number on file for {loaderData.name}: the application was made before the form asked for
          one.
        </p>
      ) : (
        <SchemaForm
          form={form}
          method="post"
          aria-label="Reveal the full number"
          className="space-y-5 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <RadioGroup name="party" label="Whose number" options={options} orientation="vertical" isRequired />
          <TextArea
            name="reason"
            label="Reason"
            rows={3}
            maxLength={REVEAL_REASON_MAX_CHARS}
            description="For example: correcting a Form 1099 the IRS returned, or a subpoena's reference."
            isRequired
          />
          {result?.status === "refused" ? <FormMessage tone="error">{result.message}</FormMessage> : null}
          <Button
            type="submit"
            isPending={navigation.state === "submitting"}
            pendingLabel="Revealing…"
            className="w-full sm:w-auto"
          >
            <Eye className="size-4" aria-hidden="true" /> Reveal the full number
          </Button>
        </SchemaForm>
      )}
    </div>
  );
}
