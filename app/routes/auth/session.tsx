import { data } from "react-router";
import type { Route } from "./+types/session";
import { getSessionUser, requireUser } from "~/server/auth/session.server";

/**
 * The idle warning's endpoint (components/session/session-timeout.tsx).
 * GET: how long this session has left, without counting as activity (another tab may have kept
 * it alive). POST ("Stay signed in"): counts as activity.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await getSessionUser(request, { touch: false });
  return data(
    { signed_in: Boolean(user), expires_in_ms: user?.expires_in_ms ?? 0 },
    { headers: { "Cache-Control": "no-store" } },
  );
}

export async function action({ request }: Route.ActionArgs) {
  // Keeping a session alive is allowed on /change-password too (a temporary password,
  // docs/product.md#passwords).
  const user = await requireUser(request, {
    roles: ["user", "pending", "admin", "reviewer", "accountant"],
    allowTemporaryPassword: true,
    allowWithoutPasskey: true,
  });
  return data({ signed_in: true, expires_in_ms: user.expires_in_ms }, { headers: { "Cache-Control": "no-store" } });
}
