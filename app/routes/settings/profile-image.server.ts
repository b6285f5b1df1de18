import { withDatabase } from "~/server/db/db.server";
import { readProfileImage as readProfileImageIn } from "~/server/profile-images/profile-images.server";

/** What a profile image calls (its view-model): each function opens the database itself, so the route holds no handle. */
export const readProfileImage = withDatabase(readProfileImageIn);
