import { FileField } from "~/components/auth/file-field";

/**
 * The two optional files of a secure message (docs/product.md#secure-messages): PDF, JPEG or PNG,
 * at most 10 MB each; the server checks each by its bytes and answers beside the field.
 */
export function MessageAttachmentFields() {
  return (
    <fieldset className="grid gap-4 sm:grid-cols-2">
      <legend className="mb-2 text-sm font-semibold text-slate-900">Attachments (optional)</legend>
      <FileField
        name="attachment_1"
        label="First file"
        accept="application/pdf,image/jpeg,image/png"
        description="PDF, JPEG or PNG, at most 10 MB"
      />
      <FileField
        name="attachment_2"
        label="Second file"
        accept="application/pdf,image/jpeg,image/png"
        description="PDF, JPEG or PNG, at most 10 MB"
      />
    </fieldset>
  );
}

/** A message's files as links ("PDF, 120 KB"), opened in a new tab. */
export function AttachmentLinks({ base, attachments }: { base: string; attachments: { id: number; label: string }[] }) {
  if (attachments.length === 0) return null;
  return (
    <ul className="mt-3 flex flex-wrap gap-3 text-sm" aria-label="Attachments">
      {attachments.map((a, i) => (
        <li key={a.id}>
          <a
            href={`${base}/attachments/${a.id}`}
            target="_blank"
            rel="noreferrer"
            className="font-semibold text-accent-700 underline"
          >
            Attachment {i + 1} ({a.label})
          </a>
        </li>
      ))}
    </ul>
  );
}
