import type { Route } from "./+types/profile-image";
import { requireUser } from "~/server/auth/session.server";
import { readProfileImage } from "./profile-image.server";

/**
 * A member's profile image, only to the member themself and to staff (nothing
 * private is public by URL: docs/architecture.md#files). Anyone else gets the same 404 as a missing
 * image.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const viewer = await requireUser(request, { roles: ["user", "admin", "reviewer", "accountant"] });
  const image = await readProfileImage(viewer, params.userId);
  if (!image)
    return new Response("Not found", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  return new Response(new Uint8Array(image.content), {
    headers: {
      "Content-Type": image.mime,
      "Content-Length": String(image.content.length),
      "Cache-Control": "private, max-age=300",
      "X-Content-Type-Options": "nosniff",
      "Content-Disposition": "inline",
    },
  });
}
