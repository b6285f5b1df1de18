import { AttachmentLinks } from "./message-attachments";
import { useInstitutionDates } from "~/components/institution-dates";

export interface ThreadMessage {
  id: number;
  author: "member" | "staff";
  author_email?: string;
  at: string;
  body: string;
  attachments: { id: number; label: string }[];
}

/**
 * A conversation's messages, oldest first (docs/product.md#secure-messages). `viewer` says whose
 * words are "You": the member's app names staff by the credit union only; the back office names
 * each staff member by email.
 */
export function MessageThread({
  messages,
  viewer,
  base,
  institution,
}: {
  messages: ThreadMessage[];
  viewer: "member" | "staff";
  base: string;
  institution: string;
}) {
  const { formatDateTime } = useInstitutionDates();
  const who = (m: ThreadMessage) =>
    viewer === "member"
      ? m.author === "member"
        ? "You"
        : institution
      : m.author === "member"
        ? "Member"
        : (m.author_email ?? "Staff");
  return (
    <ol className="space-y-3" aria-label="Messages">
      {messages.map((m) => {
        const mine = m.author === viewer;
        return (
          <li
            key={m.id}
            className={
              mine
                ? "rounded-2xl border border-brand-100 bg-brand-50 p-4 sm:ml-12"
                : "rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:mr-12"
            }
          >
            <p className="flex flex-wrap justify-between gap-2 text-xs text-slate-700">
              <span className="font-semibold text-slate-900">{who(m)}</span>
              <span>{formatDateTime(m.at)}</span>
            </p>
            <p className="mt-2 whitespace-pre-line break-words text-sm text-slate-900">{m.body}</p>
            <AttachmentLinks base={base} attachments={m.attachments} />
          </li>
        );
      })}
    </ol>
  );
}
