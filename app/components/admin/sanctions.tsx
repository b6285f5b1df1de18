import { Form, useNavigation } from "react-router";
import { Upload } from "lucide-react";
import { Button } from "~/components/ui";
import { useInstitutionDates } from "~/components/institution-dates";
import { QueueSection } from "~/components/admin/queues";
import { SANCTIONS_SOURCE_NAMES, type SanctionsSource } from "~/domain/sanctions/entries";
import { StatusLine } from "./admin-shell";

/**
 * /admin/sanctions (docs/product.md#sanctions-screening): the lists loaded and their upload.
 * Plain forms: everything works without JavaScript.
 */
export interface SanctionsActionResult {
  intent: string | null;
  tone: "error" | "success";
  message: string;
  field?: "files" | "published_on" | "reason";
  /** The screening a decision was about. */
  screening_id?: number | null;
}

export interface ListRow {
  id: number;
  source: SanctionsSource;
  published_on: string;
  loaded_at: string;
  loaded_by_label: string;
  entry_count: number;
  file_names: string;
}

const fileInput =
  "mt-2 block w-full text-sm text-slate-800 file:mr-3 file:rounded-lg file:border file:border-slate-300 file:bg-white file:px-3 file:py-2 file:text-sm file:font-semibold file:text-brand-800";

export function SanctionsLists({ lists, answer }: { lists: ListRow[]; answer: SanctionsActionResult | null }) {
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "upload_lists";
  const current = new Set<number>();
  const seen = new Set<string>();
  for (const l of lists)
    if (!seen.has(l.source)) {
      seen.add(l.source);
      current.add(l.id);
    }
  const fieldError = (field: "files" | "published_on") =>
    answer?.tone === "error" && answer.field === field ? answer.message : null;
  return (
    <QueueSection id="sanctions-lists" title="Sanctions lists" count={lists.length} countLabel="shown">
      <Form
        method="post"
        encType="multipart/form-data"
        className="grid gap-4 border-b border-slate-100 px-4 py-4 sm:px-5 md:grid-cols-[1fr_auto_auto] md:items-end"
      >
        {answer?.tone === "success" ? (
          <div className="md:col-span-3">
            <StatusLine message={answer.message} tone="success" />
          </div>
        ) : null}
        <div className="min-w-0">
          <label htmlFor="sanctions-files" className="block text-sm font-semibold text-slate-900">
            List files
          </label>
          <p id="sanctions-files-hint" className="text-sm text-slate-700">
            The SDN list: SDN.CSV with ALT.CSV, ADD.CSV and SDN_COMMENTS.CSV. The consolidated non-SDN list:
            CONS_PRIM.CSV with CONS_ALT.CSV, CONS_ADD.CSV and CONS_COMMENTS.CSV. Choose them together.
          </p>
          <input
            id="sanctions-files"
            name="files"
            type="file"
            multiple
            required
            accept=".csv,text/csv"
            aria-describedby={
              fieldError("files") ? "sanctions-files-error sanctions-files-hint" : "sanctions-files-hint"
            }
            aria-invalid={fieldError("files") ? true : undefined}
            className={fileInput}
          />
          {fieldError("files") ? (
            <p id="sanctions-files-error" className="mt-1 text-sm font-medium text-red-700">
              {fieldError("files")}
            </p>
          ) : null}
        </div>
        <div>
          <label htmlFor="sanctions-published" className="block text-sm font-semibold text-slate-900">
            Published by OFAC on
          </label>
          <input
            id="sanctions-published"
            name="published_on"
            type="date"
            required
            aria-describedby={fieldError("published_on") ? "sanctions-published-error" : undefined}
            aria-invalid={fieldError("published_on") ? true : undefined}
            className="mt-2 block rounded-lg border border-slate-300 px-3 py-2 text-sm text-slate-900"
          />
          {fieldError("published_on") ? (
            <p id="sanctions-published-error" className="mt-1 text-sm font-medium text-red-700">
              {fieldError("published_on")}
            </p>
          ) : null}
        </div>
        <Button type="submit" name="intent" value="upload_lists" isPending={busy} pendingLabel="Loading…">
          <Upload className="size-4" aria-hidden="true" /> Upload and load
        </Button>
      </Form>
      {lists.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm font-medium text-red-800">
          No list is loaded: nobody is screened until one is.
        </p>
      ) : (
        <ul className="divide-y divide-slate-100">
          {lists.map((l) => (
            <li
              key={l.id}
              className="flex flex-wrap items-center justify-between gap-x-6 gap-y-1 px-4 py-3 sm:px-5"
              data-testid="sanctions-list-version"
            >
              <div className="min-w-0">
                <p className="text-sm font-semibold text-slate-900">
                  {SANCTIONS_SOURCE_NAMES[l.source]}, published {l.published_on}
                  {current.has(l.id) ? (
                    <span className="ml-2 rounded-full bg-emerald-50 px-2 py-0.5 text-xs font-semibold text-emerald-800">
                      in use
                    </span>
                  ) : null}
                </p>
                <p className="text-sm text-slate-700">
                  {l.entry_count.toLocaleString("en-US")} entries · {l.file_names}
                </p>
                <p className="text-sm text-slate-700">
                  Loaded <time dateTime={l.loaded_at}>{formatDateTime(l.loaded_at)}</time> by {l.loaded_by_label}
                </p>
              </div>
            </li>
          ))}
        </ul>
      )}
    </QueueSection>
  );
}
