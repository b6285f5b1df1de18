import { Form, redirect } from "react-router";
import { LogOut } from "lucide-react";
import type { Route } from "./+types/logout";
import { institution } from "~/config/institution.server";
import { getSessionUser, signOut } from "~/server/auth/session.server";
import { pageTitle } from "~/components/site/page-title";
import { AuthCard, AuthShell } from "~/components/auth/auth-shell";
import { Button } from "~/components/ui";

/**
 * Sign out (docs/product.md#sessions): a POST ends the session on the server, then /login. A GET (a
 * typed or followed link) only asks, so no other site can sign a member out with a link or an
 * image.
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Sign out", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await getSessionUser(request, { touch: false });
  if (!user) throw redirect("/login");
  const profile = institution();
  return { email: user.email, support: { email: profile.support_email, phone: profile.support_phone } };
}

export async function action({ request }: Route.ActionArgs) {
  const form = await request.formData().catch(() => null);
  const reason = form?.get("reason");
  const headers = await signOut(request);
  const notice = reason === "idle" ? "idle" : reason === "absolute" ? "absolute" : "signed_out";
  throw redirect(`/login?notice=${notice}`, { headers });
}

export default function Logout({ loaderData }: Route.ComponentProps) {
  return (
    <AuthShell support={loaderData.support}>
      <AuthCard>
        <span className="flex size-12 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
          <LogOut className="size-6" aria-hidden="true" />
        </span>
        <h1 className="mt-4 text-3xl font-semibold tracking-tight text-brand-800">Sign out</h1>
        <p className="mt-2 text-slate-700">
          You are signed in as <span className="font-semibold text-slate-900">{loaderData.email}</span>. Signing out
          ends your session on this device.
        </p>
        <Form method="post" className="mt-6">
          <Button type="submit" size="lg" className="w-full">
            Sign out
          </Button>
        </Form>
      </AuthCard>
    </AuthShell>
  );
}
