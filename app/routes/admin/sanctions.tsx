import { data, Link } from "react-router";
import type { Route } from "./+types/sanctions";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { pageTitle } from "~/components/site/page-title";
import { StatusLine } from "~/components/admin/admin-shell";
import { SanctionsLists, type SanctionsActionResult } from "~/components/admin/sanctions";
import type { ScreeningDecision } from "~/server/sanctions/screening.server";
import { formIntent, UNKNOWN_INTENT_MESSAGE } from "~/domain/form-intent";
import { SANCTIONS_SOURCE_NAMES } from "~/domain/sanctions/entries";
import { decideScreeningCase, sanctionsListRows, screeningRows, uploadSanctionsLists } from "./sanctions.server";
import { ScreeningQueue } from "~/components/admin/screening-queue";

/**
 * /admin/sanctions (docs/product.md#sanctions-screening): the sanctions lists loaded (each
 * version with its publication date, who loaded it and its entries) and the upload of OFAC's
 * files. Staff ("admin") only: a reviewer, a member, an applicant and a visitor are refused.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Sanctions", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { staff } = await requireStaff(request, context.get(requestInfoContext));
  const [lists, screenings] = await Promise.all([sanctionsListRows(), screeningRows()]);
  return { lists, screenings, staff_id: staff.id };
}

const DECISIONS = ["clear", "request_confirm", "approve_confirm", "decline_confirm"] as const;
const INTENTS = ["upload_lists", ...DECISIONS] as const;

export async function action({ request, context }: Route.ActionArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const form = await readForm(request);
  const intent = formIntent(form, INTENTS);
  if (intent === "upload_lists") {
    const files = await Promise.all(
      form
        .getAll("files")
        .filter((f): f is File => typeof f !== "string" && f.size > 0)
        .map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })),
    );
    const result = await uploadSanctionsLists({
      files,
      published_on: String(form.get("published_on") ?? ""),
      loader: staff,
      origin,
    });
    if (!result.ok)
      return data(
        { intent, tone: "error", message: result.message, field: result.field } satisfies SanctionsActionResult,
        { status: 422 },
      );
    const message = result.versions
      .map((v) => `${SANCTIONS_SOURCE_NAMES[v.source]}: ${v.entry_count.toLocaleString("en-US")} entries loaded.`)
      .join(" ");
    return { intent, tone: "success", message } satisfies SanctionsActionResult;
  }
  if (intent && (DECISIONS as readonly string[]).includes(intent)) {
    const id = String(form.get("screening_id") ?? "");
    const result = await decideScreeningCase({
      screening_id: /^\d{1,15}$/.test(id) ? Number(id) : 0,
      decision: intent as ScreeningDecision,
      reason: String(form.get("reason") ?? ""),
      staff,
      origin,
    });
    const screening_id = /^\d{1,15}$/.test(id) ? Number(id) : null;
    if (!result.ok)
      return data(
        {
          intent,
          tone: "error",
          message: result.message,
          screening_id,
          ...(result.field === "reason" ? { field: "reason" as const } : {}),
        } satisfies SanctionsActionResult,
        { status: refusalStatus(result.kind) },
      );
    return { intent, tone: "success", message: result.message, screening_id } satisfies SanctionsActionResult;
  }
  return data({ intent: null, tone: "error", message: UNKNOWN_INTENT_MESSAGE } satisfies SanctionsActionResult, {
    status: 400,
  });
}

export default function Sanctions({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as SanctionsActionResult | undefined;
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Sanctions</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-700">
          Applicants and joint owners, US bank payees and wire recipients are screened against the Treasury&apos;s
          sanctions lists (OFAC) loaded here, and every member again whenever a list is loaded. Download the files from
          OFAC&apos;s Sanctions List Service and upload them with the date OFAC published them; the app never fetches a
          list itself.
        </p>
        <p className="mt-2 text-sm">
          <Link to="/admin/sar" className="font-semibold text-accent-700 underline underline-offset-2">
            Suspicious activity reports
          </Link>
        </p>
      </div>
      {answer && answer.intent === null ? <StatusLine message={answer.message} tone={answer.tone} /> : null}
      <ScreeningQueue
        rows={loaderData.screenings}
        staffId={loaderData.staff_id}
        answer={answer && answer.intent !== null && answer.intent !== "upload_lists" ? answer : null}
      />
      <SanctionsLists lists={loaderData.lists} answer={answer?.intent === "upload_lists" ? answer : null} />
    </div>
  );
}
