import { withDatabase } from "~/server/db/db.server";
import {
  removeProfileImage as removeProfileImageIn,
  setProfileImage as setProfileImageIn,
} from "~/server/profile-images/profile-images.server";
import {
  getProfileSettings as getProfileSettingsIn,
  updateProfile as updateProfileIn,
} from "~/server/settings/settings.server";

/** What Profile Settings calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const getProfileSettings = withDatabase(getProfileSettingsIn);
export const removeProfileImage = withDatabase(removeProfileImageIn);
export const setProfileImage = withDatabase(setProfileImageIn);
export const updateProfile = withDatabase(updateProfileIn);
