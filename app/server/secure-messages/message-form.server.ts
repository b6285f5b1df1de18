import { data } from "react-router";
import type { z } from "zod";
import { parseSubmission, readForm, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import type { Refusal } from "~/domain/refusals";
import {
  MESSAGE_ATTACHMENT_FIELDS,
  MESSAGE_ATTACHMENT_MAX_BYTES,
  type MessageAttachmentField,
} from "~/domain/secure-messages";

/**
 * The form side shared by every secure-message form (the member's new message and reply, staff's
 * reply): a body larger than two full files is refused before it is read, the files are never
 * echoed back, and a service's refusal goes next to its field (a file) or above the form.
 */
export type MessageFormReply = { ok: false; reply: FormReply };

const HIDDEN = [...MESSAGE_ATTACHMENT_FIELDS];
/** Two full files and the form's other fields with their multipart framing. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
export const TOO_LARGE_MESSAGE = "The files are larger than 10 MB each. Please attach smaller files.";

/** The refusal of a body that states it is larger than the form can hold (413), or null. */
export function refuseOversized(request: Request) {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared <= MESSAGE_ATTACHMENT_FIELDS.length * MESSAGE_ATTACHMENT_MAX_BYTES + FORM_OVERHEAD_BYTES) return null;
  return data(
    { ok: false, reply: { status: "error", error: { "": [TOO_LARGE_MESSAGE] } } } satisfies MessageFormReply,
    {
      status: 413,
    },
  );
}

/** The posted form, its parse by `schema`, and its files by field. */
export async function readMessageForm<S extends z.ZodType>(request: Request, schema: S) {
  const form = await readForm(request);
  const submission = parseSubmission(schema, form);
  const files = Object.fromEntries(
    MESSAGE_ATTACHMENT_FIELDS.map((field) => {
      const value = form.get(field);
      return [field, value instanceof File ? value : null];
    }),
  ) as Record<MessageAttachmentField, File | null>;
  return { form, submission, files };
}

/** A form's own errors sent back (400), files hidden. */
export function invalidForm(submission: Parameters<typeof replyTo>[0], formErrors?: string[]) {
  return data(
    {
      ok: false,
      reply: replyTo(submission, { hideFields: HIDDEN, ...(formErrors ? { formErrors } : {}) }),
    } satisfies MessageFormReply,
    { status: 400 },
  );
}

/** A service's refusal: beside the file it names, or above the form. */
export function refusedForm(submission: Parameters<typeof replyTo>[0], result: Refusal) {
  const onFile = result.field !== undefined && (MESSAGE_ATTACHMENT_FIELDS as readonly string[]).includes(result.field);
  return data(
    {
      ok: false,
      reply: replyTo(
        submission,
        onFile
          ? { fieldErrors: { [result.field!]: [result.message] }, hideFields: HIDDEN }
          : { formErrors: [result.message], hideFields: HIDDEN },
      ),
    } satisfies MessageFormReply,
    { status: refusalStatus(result.kind) },
  );
}
