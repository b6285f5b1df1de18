import { eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { memberProfiles } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { setProfileImage, type SetProfileImageResult } from "~/server/profile-images/profile-images.server";
import { refusal } from "~/domain/refusals";
import type { Actor } from "~/domain/actor";

/**
 * Staff upload a member's profile image from the back office's detail pane
 * (docs/product.md#member-details). The image goes through the member's own pipeline
 * (profile-images.server.ts: type read from the content, re-encoded, metadata dropped, at most 5
 * MB); the change is audited with the staff member as actor.
 */
export const SELECT_USER_FIRST = "Please select a user first";

export type StaffImageResult = SetProfileImageResult;
const NO_MEMBER = refusal("bad_input", SELECT_USER_FIRST, { field: "member_id" });

export async function setMemberImageByStaff(
  db: Db,
  input: { staff: Actor; member_id: string; upload: File | null; origin: AuditOrigin; now?: Date },
): Promise<StaffImageResult> {
  const member_id = input.member_id.trim();
  if (!member_id || !/^[A-Za-z0-9_-]{1,64}$/.test(member_id)) return NO_MEMBER;
  const [before] = await db
    .select({ image_file: memberProfiles.image_file })
    .from(memberProfiles)
    .where(eq(memberProfiles.user_id, member_id));
  if (!before) return NO_MEMBER;
  const result = await setProfileImage(db, member_id, input.upload);
  if (!result.ok) return result;
  await recordAudit(db, {
    actor_id: input.staff.id,
    actor_email: input.staff.email,
    action: "member.profile_image.set",
    subject_type: "member",
    subject_id: member_id,
    before: { image_file: before.image_file },
    after: { image_file: result.file, bytes: input.upload?.size ?? null, declared_type: input.upload?.type || null },
    request_id: input.origin.request_id,
    ip: input.origin.ip,
    at: input.now,
  });
  return { ok: true, file: result.file };
}
