import type { Route } from "./+types/verify-recipient";
import { readForm } from "~/server/http/form.server";
import { requireMember } from "~/server/auth/session.server";
import { verifyRecipientJson } from "./dashboard.server";

/** The Verify button of To Another Member (JSON; rate-limited, name only). */
export async function action({ request }: Route.ActionArgs) {
  const user = await requireMember(request);
  return verifyRecipientJson(user, await readForm(request));
}
