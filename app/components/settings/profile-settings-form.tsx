import { useState } from "react";
import { useFetcher } from "react-router";
import { ImageUp, Trash2 } from "lucide-react";
import { profileImageProblem, profileSchema } from "~/domain/settings";
import { Button, SchemaForm, TextField, useSchemaForm } from "~/components/ui";
import { useHydrated } from "~/components/ui/use-hydrated";
import { Avatar } from "./avatar";
import { StatusMessage } from "./status-message";
import type { ProfileActionData, ProfileData } from "./types";

const ACTION = "/settings/profile";

/**
 * Profile Settings (docs/product.md#settings): name, phone, address and the profile picture. Posts
 * to /settings/profile; used by the page (works without JavaScript) and by the dialog.
 */
export function ProfileSettingsForm({ profile, pageResult }: { profile: ProfileData; pageResult?: ProfileActionData }) {
  const details = useFetcher<ProfileActionData>({ key: "settings-profile-details" });
  const image = useFetcher<ProfileActionData>({ key: "settings-profile-image" });
  const hydrated = useHydrated();
  const [imageProblem, setImageProblem] = useState<{ ok: false; message: string } | null>(null);

  const detailsResult = details.data ?? (pageResult?.intent === "profile" ? pageResult : undefined);
  const imageResult =
    imageProblem ?? image.data ?? (pageResult && pageResult.intent !== "profile" ? pageResult : undefined);
  const form = useSchemaForm(profileSchema, { lastResult: detailsResult?.reply, defaultValue: profileValues(profile) });

  const onImageChosen = (event: React.ChangeEvent<HTMLInputElement>) => {
    const file = event.currentTarget.files?.[0];
    if (!file) return;
    const problem = profileImageProblem(file);
    if (problem) {
      setImageProblem({ ok: false, message: problem });
      event.currentTarget.value = "";
      return;
    }
    setImageProblem(null);
    const body = new FormData();
    body.set("intent", "image");
    body.set("image", file);
    image.submit(body, { method: "post", action: ACTION, encType: "multipart/form-data" });
    event.currentTarget.value = "";
  };

  const saving = details.state !== "idle";
  const uploading = image.state !== "idle";
  const name = `${profile.first_name} ${profile.last_name}`.trim() || profile.email;

  return (
    <div className="space-y-8">
      <section aria-labelledby="profile-picture-heading" className="flex flex-col gap-4 sm:flex-row sm:items-center">
        <Avatar initials={profile.initials} imageUrl={profile.image_url} size="lg" />
        <div className="min-w-0 flex-1">
          <h3 id="profile-picture-heading" className="text-base font-semibold text-slate-900">
            Profile picture
          </h3>
          <p className="text-sm text-slate-600">
            JPEG, PNG or WebP, less than 5 MB. We store a small copy without any photo metadata.
          </p>
          <image.Form
            method="post"
            action={ACTION}
            encType="multipart/form-data"
            className="mt-3 flex flex-wrap items-center gap-2"
            aria-label="Profile picture"
          >
            <input type="hidden" name="intent" value="image" />
            <label className="inline-flex cursor-pointer items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-accent-600">
              <ImageUp className="size-4" aria-hidden="true" />
              <span>{uploading ? "Uploading…" : "Choose a picture"}</span>
              <input
                type="file"
                name="image"
                accept="image/jpeg,image/png,image/webp"
                className="sr-only"
                aria-label={`Choose a profile picture for ${name}`}
                onChange={hydrated ? onImageChosen : undefined}
              />
            </label>
            {hydrated ? null : (
              <Button type="submit" variant="primary">
                Upload picture
              </Button>
            )}
          </image.Form>
          {profile.image_url ? (
            <image.Form method="post" action={ACTION} className="mt-2">
              <input type="hidden" name="intent" value="remove-image" />
              <Button type="submit" variant="ghost" className="px-2 py-1.5">
                <Trash2 className="size-4" aria-hidden="true" />
                Remove picture
              </Button>
            </image.Form>
          ) : null}
          <StatusMessage result={imageResult} className="mt-3" />
        </div>
      </section>

      <SchemaForm
        form={form}
        fetcher={details}
        method="post"
        action={ACTION}
        className="space-y-6"
        aria-labelledby="profile-details-heading"
      >
        <input type="hidden" name="intent" value="profile" />
        <h3 id="profile-details-heading" className="text-base font-semibold text-slate-900">
          Personal details
        </h3>
        <p className="-mt-4 text-sm text-slate-600">
          Signed in as <span className="font-medium text-slate-900">{profile.email}</span>
        </p>
        <div className="grid gap-5 sm:grid-cols-2">
          <TextField name="first_name" label="First name" autoComplete="given-name" isRequired />
          <TextField name="last_name" label="Last name" autoComplete="family-name" isRequired />
          <TextField name="phone" label="Phone" type="tel" autoComplete="tel" optional className="sm:col-span-2" />
        </div>
        {profile.taxpayer_ids.length ? (
          <div className="grid gap-3 rounded-lg bg-slate-50 p-4">
            <dl className="grid gap-3 sm:grid-cols-2">
              {profile.taxpayer_ids.map((t) => (
                <div key={t.party}>
                  <dt className="text-xs font-medium uppercase tracking-wide text-slate-600">{t.label}</dt>
                  <dd className="tabular mt-0.5 font-mono text-sm text-slate-900">{t.masked}</dd>
                </div>
              ))}
            </dl>
            <p className="text-xs text-slate-600">
              Only the last four digits are shown. To correct the number, contact us.
            </p>
          </div>
        ) : null}
        <fieldset className="space-y-5">
          <legend className="text-sm font-semibold text-slate-900">Address</legend>
          <TextField name="street" label="Street address" autoComplete="street-address" optional />
          <div className="grid gap-5 sm:grid-cols-2">
            <TextField name="city" label="City" autoComplete="address-level2" optional />
            <TextField name="state" label="State" autoComplete="address-level1" optional />
            <TextField name="postal_code" label="ZIP / postal code" autoComplete="postal-code" optional />
            <TextField name="country" label="Country" autoComplete="country-name" optional />
          </div>
        </fieldset>
        <StatusMessage result={detailsResult} />
        <div className="flex justify-end">
          <Button type="submit" isPending={saving} pendingLabel="Saving…">
            Save profile
          </Button>
        </div>
      </SchemaForm>
    </div>
  );
}

/** The saved details, as the form's starting values. */
function profileValues(profile: ProfileData): Record<string, string> {
  const { first_name, last_name, phone, street, city, state, postal_code, country } = profile;
  return { first_name, last_name, phone, street, city, state, postal_code, country };
}
