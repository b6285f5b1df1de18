import { Form, Link, useNavigation } from "react-router";
import { Button } from "~/components/ui";
import { useInstitutionDates } from "~/components/institution-dates";
import { QueueSection } from "~/components/admin/queues";
import { findCountry } from "~/domain/countries";
import { SANCTIONS_SOURCE_NAMES, type SanctionsSource } from "~/domain/sanctions/entries";
import type { ScreeningRow } from "~/server/sanctions/screening.server";
import { StatusLine } from "./admin-shell";
import { ReviewClock } from "./review-clock";
import type { SanctionsActionResult } from "./sanctions";

/**
 * The screening queue on /admin/sanctions (docs/product.md#screening-queue): each possible
 * sanctions match that stopped a payment, with both names, the score and the list entry. Staff
 * clear it with a reason (the payment goes on) or ask to confirm it; a second staff member
 * approves or declines the confirmation. Plain forms: everything works without JavaScript.
 */
export const AGREEMENT: Record<string, string> = { match: "agrees", mismatch: "differs", unknown: "not known" };
export const KIND_LABEL: Record<string, string> = { primary: "listed name", alias: "alias", weak_alias: "weak alias" };
/** What the second staff member's approval of a confirmation does, by what was screened. */
const CONFIRM_LABEL: Record<ScreeningRow["subject_type"], string> = {
  payment: "Approve: block and freeze",
  application: "Approve: decline the application",
  member: "Approve: freeze the accounts",
  ach_entry: "Approve: block and freeze",
};
export const SUBJECT_LABEL: Record<ScreeningRow["subject_type"], string> = {
  payment: "payment",
  application: "applicant",
  member: "member, re-screened",
  ach_entry: "incoming IAT entry",
};

export function ScreeningQueue({
  rows,
  staffId,
  answer,
}: {
  rows: ScreeningRow[];
  staffId: string;
  answer: SanctionsActionResult | null;
}) {
  return (
    <QueueSection id="screening" title="Screening queue" count={rows.length}>
      {/* An answer about no item, or about one a decision took out of the queue (cleared, confirmed): shown on top. */}
      {answer && (answer.screening_id == null || !rows.some((r) => r.id === answer.screening_id)) ? (
        <div className="px-4 pt-4 sm:px-5">
          <StatusLine message={answer.message} tone={answer.tone} />
        </div>
      ) : null}
      {rows.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-slate-700">Nothing is waiting.</p>
      ) : (
        <ul className="space-y-3 p-4 sm:p-5">
          {rows.map((r) => {
            const mine = answer?.screening_id === r.id ? answer : null;
            return (
              <li
                key={r.id}
                className="rounded-xl border border-slate-200 p-3 text-sm"
                data-testid={`screening-${r.id}`}
              >
                <ScreeningSummary row={r} />
                <div className="mt-2">
                  <ReviewClock deadline={r.deadline} />
                </div>
                <p className="mt-2">
                  <Link
                    to={`/admin/sanctions/screenings/${r.id}`}
                    className="font-semibold text-accent-700 underline underline-offset-2"
                  >
                    Item {r.id}: every match and its history
                  </Link>
                </p>
                {mine ? (
                  <div className="mt-3">
                    <StatusLine message={mine.message} tone={mine.tone} />
                  </div>
                ) : null}
                <ScreeningDecisions row={r} staffId={staffId} answer={mine} />
              </li>
            );
          })}
        </ul>
      )}
    </QueueSection>
  );
}

/** Both names side by side: what was screened, and the list entry it may be, with the score. */
export function ScreeningSummary({ row: r }: { row: ScreeningRow }) {
  const { formatDateTime } = useInstitutionDates();
  const best = r.matches[0]!;
  return (
    <div className="grid gap-3 md:grid-cols-2">
      <div className="min-w-0">
        <p className="text-xs font-semibold tracking-wide text-slate-600 uppercase">
          Screened (
          {r.subject_type === "payment" || r.subject_type === "ach_entry"
            ? (r.screened_details.kind ?? SUBJECT_LABEL[r.subject_type])
            : SUBJECT_LABEL[r.subject_type]}
          )
        </p>
        <p className="text-base font-semibold break-words text-slate-900">{r.screened_name}</p>
        <p className="text-slate-700">
          {r.screened_details.bank ? `${r.screened_details.bank} · ` : ""}
          {r.screened_details.country
            ? (findCountry(r.screened_details.country)?.name ?? r.screened_details.country)
            : ""}
        </p>
        {r.subject_type === "ach_entry" ? (
          <p className="break-words text-slate-700">
            {r.screened_details.amount} from {r.screened_details.originator} through{" "}
            {r.screened_details.originating_bank} to {r.screened_details.receiver}, account {r.screened_details.account}
            , trace {r.screened_details.trace_number}
          </p>
        ) : null}
        {r.screened_details.joint_owner ? (
          <p className="break-words text-slate-700">Joint owner {r.screened_details.joint_owner}</p>
        ) : null}
        <p className="break-words text-slate-700">
          {r.subject_type === "application" ? "Applicant" : "Member"}{" "}
          {r.member_email ?? (r.member_id || "none (not a member's account)")} · {formatDateTime(r.created_at)}
        </p>
      </div>
      <div className="min-w-0">
        <p className="text-xs font-semibold tracking-wide text-slate-600 uppercase">
          List entry · score {best.score.toFixed(3)}
        </p>
        <p className="text-base font-semibold break-words text-slate-900">{best.listed_name}</p>
        <p className="break-words text-slate-700">
          Matched {KIND_LABEL[best.name_kind]} &ldquo;{best.matched_name}&rdquo; with &ldquo;{best.screened_name}&rdquo;
          (name {best.name_score.toFixed(3)})
        </p>
        <p className="text-slate-700">
          {SANCTIONS_SOURCE_NAMES[best.source as SanctionsSource] ?? best.source}, entry {best.uid} · date of birth{" "}
          {AGREEMENT[best.birth_date]} · country {AGREEMENT[best.country]}
        </p>
        {r.matches.length > 1 ? (
          <p className="break-words text-slate-700">
            Also:{" "}
            {r.matches
              .slice(1)
              .map((m) => `${m.listed_name} (${m.score.toFixed(3)})`)
              .join("; ")}
          </p>
        ) : null}
      </div>
    </div>
  );
}

/** Clear or ask to confirm (open); approve or decline a confirmation (another staff member). */
export function ScreeningDecisions({
  row: r,
  staffId,
  answer,
}: {
  row: ScreeningRow;
  staffId: string;
  answer: SanctionsActionResult | null;
}) {
  if (r.status === "open")
    return (
      <div className="mt-3 flex flex-col gap-3 lg:flex-row">
        <DecisionForm row={r} intent="clear" label="Clear: not this party" answer={answer} />
        <DecisionForm row={r} intent="request_confirm" label="Confirm the match" answer={answer} />
      </div>
    );
  if (r.status !== "confirm_requested") return null;
  return (
    <div className="mt-3">
      <p className="break-words text-slate-900">
        Confirmation asked by {r.confirm_requested_by_email ?? "a staff member"}: {r.confirm_reason}
      </p>
      {r.confirm_requested_by === staffId ? (
        <p className="mt-1 text-slate-700">You asked to confirm it: another staff member must approve or decline.</p>
      ) : (
        <div className="mt-2 flex flex-wrap gap-3">
          <DecisionButton row={r} intent="approve_confirm" label={CONFIRM_LABEL[r.subject_type]} />
          <DecisionButton row={r} intent="decline_confirm" label="Decline" />
        </div>
      )}
    </div>
  );
}

function DecisionForm({
  row,
  intent,
  label,
  answer,
}: {
  row: ScreeningRow;
  intent: "clear" | "request_confirm";
  label: string;
  answer: SanctionsActionResult | null;
}) {
  const navigation = useNavigation();
  const busy =
    navigation.state !== "idle" &&
    navigation.formData?.get("intent") === intent &&
    navigation.formData?.get("screening_id") === String(row.id);
  const id = `${intent}-${row.id}-reason`;
  // Two reasons side by side: each says which decision it is for.
  const reasonLabel = intent === "clear" ? "Reason for clearing" : "Reason for confirming";
  const error = answer?.intent === intent && answer.field === "reason" ? answer.message : null;
  return (
    <Form method="post" preventScrollReset className="flex min-w-0 flex-1 flex-col gap-2 sm:flex-row sm:items-end">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="screening_id" value={row.id} />
      <div className="min-w-0 flex-1">
        <label htmlFor={id} className="block text-sm font-semibold text-slate-900">
          {reasonLabel}
        </label>
        <input
          id={id}
          name="reason"
          required
          maxLength={500}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-2 text-sm text-slate-900"
        />
        {error ? (
          <p id={`${id}-error`} className="mt-1 text-sm font-medium text-red-700">
            {error}
          </p>
        ) : null}
      </div>
      <Button type="submit" variant={intent === "clear" ? "primary" : "danger"} isPending={busy} pendingLabel="Saving…">
        {label}
      </Button>
    </Form>
  );
}

function DecisionButton({
  row,
  intent,
  label,
}: {
  row: ScreeningRow;
  intent: "approve_confirm" | "decline_confirm";
  label: string;
}) {
  const navigation = useNavigation();
  const busy =
    navigation.state !== "idle" &&
    navigation.formData?.get("intent") === intent &&
    navigation.formData?.get("screening_id") === String(row.id);
  return (
    <Form method="post" preventScrollReset>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="screening_id" value={row.id} />
      <Button
        type="submit"
        variant={intent === "approve_confirm" ? "danger" : "secondary"}
        isPending={busy}
        pendingLabel="Saving…"
      >
        {label}
      </Button>
    </Form>
  );
}
