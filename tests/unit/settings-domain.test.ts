import { describe, expect, it } from "vitest";
import {
  changePasswordSchema,
  initialsOf,
  notificationSchema,
  PROFILE_IMAGE_MAX_BYTES,
  profileImageProblem,
  profileSchema,
  SETTINGS_MESSAGES,
  totpCodeSchema,
} from "~/domain/settings";

describe("settings rules", () => {
  it("makes initials from a name, or the email's first letter", () => {
    expect(initialsOf("Alex Morgan", "a@x.example")).toBe("AM");
    expect(initialsOf("  Mary Ann  de la Cruz ", "m@x.example")).toBe("MC");
    expect(initialsOf("Prince", "p@x.example")).toBe("PR");
    expect(initialsOf("", "zoe@x.example")).toBe("Z");
  });

  it("checks a chosen picture's type and size in the browser with the documented messages", () => {
    expect(profileImageProblem({ type: "image/png", size: 1000 })).toBeNull();
    expect(profileImageProblem({ type: "image/webp", size: PROFILE_IMAGE_MAX_BYTES })).toBeNull();
    expect(profileImageProblem({ type: "image/jpeg", size: PROFILE_IMAGE_MAX_BYTES + 1 })).toBe(
      SETTINGS_MESSAGES.image_too_large,
    );
    expect(profileImageProblem({ type: "image/gif", size: 10 })).toBe(SETTINGS_MESSAGES.image_not_image);
    expect(profileImageProblem({ type: "text/plain", size: 10 })).toBe(SETTINGS_MESSAGES.image_not_image);
    expect(PROFILE_IMAGE_MAX_BYTES).toBe(5_242_880);
  });

  it("requires names and checks phone and ZIP when given", () => {
    const base = {
      first_name: "A",
      last_name: "B",
      phone: "",
      street: "",
      city: "",
      state: "",
      postal_code: "",
      country: "",
    };
    expect(profileSchema.safeParse(base).success).toBe(true);
    expect(profileSchema.safeParse({ ...base, first_name: " " }).success).toBe(false);
    expect(profileSchema.safeParse({ ...base, phone: "abc" }).success).toBe(false);
    expect(profileSchema.safeParse({ ...base, phone: "+1 (555) 010-2231" }).success).toBe(true);
    expect(profileSchema.safeParse({ ...base, postal_code: "03801" }).success).toBe(true);
    expect(profileSchema.safeParse({ ...base, postal_code: "<script>" }).success).toBe(false);
  });

  it("reads switches as posted by a form (absent = off)", () => {
    expect(notificationSchema.parse({ login_alerts: "on" })).toEqual({ login_alerts: true });
    // Email, SMS and push notifications are not offered, so a posted value for them is dropped.
    expect(
      notificationSchema.parse({ email_notifications: "on", sms_notifications: "on", push_notifications: "on" }),
    ).toEqual({ login_alerts: false });
  });

  it("says when the new passwords do not match", () => {
    const result = changePasswordSchema.safeParse({
      current_password: "x",
      new_password: "Harbor lights 2026 a",
      confirm_password: "Harbor lights 2026 b",
    });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.message)).toContain("Passwords do not match");
    expect(
      changePasswordSchema.safeParse({ current_password: "x", new_password: "short", confirm_password: "short" })
        .success,
    ).toBe(false);
  });

  it("takes only 6-digit authenticator codes", () => {
    expect(totpCodeSchema.safeParse({ code: "012345" }).success).toBe(true);
    expect(totpCodeSchema.safeParse({ code: "12345" }).success).toBe(false);
    expect(totpCodeSchema.safeParse({ code: "12345a" }).success).toBe(false);
  });
});
