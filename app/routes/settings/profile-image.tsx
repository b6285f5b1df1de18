import type { Route } from "./+types/profile-image";
import { getAuth } from "~/server/auth/auth.server";
import { requireUser } from "~/server/auth/session.server";
import { readProfileImage } from "~/server/profile-images/profile-images.server";

/**
 * A member's profile image, only to the member themself and to staff (nothing
 * private is public by URL: docs/architecture.md#files). Anyone else gets the same 404 as a missing
 * image.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const viewer = await requireUser(request, { roles: ["user", "admin", "reviewer"] });
  const { db } = await getAuth();
  const image = await readProfileImage(db, viewer, params.userId);
  if (!image) return new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
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
