import { data } from "react-router";
import type { Route } from "./+types/profile";
import { requestInfoContext } from "~/context";
import { profileSchema, SETTINGS_MESSAGES } from "~/domain/settings";
import { requireUser } from "~/server/auth/session.server";
import { parseSubmission, readForm, refusalStatus, replyTo } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { pageTitle } from "~/components/site/page-title";
import { FormMessage } from "~/components/ui";
import { SettingsPage } from "~/components/settings/settings-page";
import { ProfileSettingsForm } from "~/components/settings/profile-settings-form";
import type { ProfileActionData, ProfileData, ProfileIntent } from "~/components/settings/types";
import { getProfileSettings, removeProfileImage, setProfileImage, updateProfile } from "./profile.server";

/**
 * Profile Settings (docs/product.md#settings): a page for direct links and browsers without
 * JavaScript, and the loader and action behind the Profile Settings dialog of every user menu.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Profile Settings", matches), { name: "robots", content: "noindex" }];
}

const SIGNED_IN = ["user", "admin", "reviewer", "accountant"] as const;
const PROFILE_INTENTS: readonly ProfileIntent[] = ["profile", "image", "remove-image"];

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request, { roles: SIGNED_IN });
  const profile = await getProfileSettings(user.id);
  return { profile: profile satisfies ProfileData | null, role: user.role };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireUser(request, { roles: SIGNED_IN });
  const { request_id, ip } = context.get(requestInfoContext);
  const form = await readForm(request);
  const intent = formIntent(form, PROFILE_INTENTS);
  if (!intent) throw data(UNKNOWN_INTENT_MESSAGE, { status: 400 });

  if (intent === "image") {
    const upload = form.get("image");
    const result = await setProfileImage(user.id, upload instanceof File ? upload : null);
    if (result.ok)
      return { intent: "image", ok: true, message: SETTINGS_MESSAGES.profile_updated } satisfies ProfileActionData;
    return data({ intent: "image", ok: false, message: result.message } satisfies ProfileActionData, {
      status: refusalStatus(result.kind),
    });
  }

  if (intent === "remove-image") {
    await removeProfileImage(user.id);
    return { intent: "remove-image", ok: true, message: SETTINGS_MESSAGES.profile_updated } satisfies ProfileActionData;
  }

  const submission = parseSubmission(profileSchema, form);
  if (submission.status !== "success") {
    return data(
      {
        intent: "profile",
        ok: false,
        message: SETTINGS_MESSAGES.profile_failed,
        reply: replyTo(submission),
      } satisfies ProfileActionData,
      { status: 400 },
    );
  }
  const result = await updateProfile(user.id, submission.value, { request_id, ip });
  if (result.status === "failed")
    return data(
      {
        intent: "profile",
        ok: false,
        message: SETTINGS_MESSAGES.profile_failed,
        reply: replyTo(submission),
      } satisfies ProfileActionData,
      { status: 500 },
    );
  return {
    intent: "profile",
    ok: true,
    message: SETTINGS_MESSAGES.profile_updated,
    reply: replyTo(submission),
  } satisfies ProfileActionData;
}

export default function ProfileSettingsRoute({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <SettingsPage
      title="Profile Settings"
      description="Your name, contact details and profile picture."
      other={{ to: "/settings/account", label: "Account Settings" }}
      role={loaderData.role}
    >
      {loaderData.profile ? (
        <ProfileSettingsForm profile={loaderData.profile} pageResult={actionData as ProfileActionData | undefined} />
      ) : (
        <FormMessage tone="error">{SETTINGS_MESSAGES.profile_load_failed}</FormMessage>
      )}
    </SettingsPage>
  );
}
