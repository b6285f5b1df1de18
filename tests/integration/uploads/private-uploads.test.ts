import "../admin-support";
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { memberProfiles } from "~/server/db/schema";
import { submitApplication } from "~/server/applications/applications.server";
import { readIdDocument } from "~/server/admin/directory.server";
import { allEncryptedMarker, encryptPlainUploads, uploadsRoot } from "~/server/uploads/private-uploads.server";
import { readProfileImage, setProfileImage } from "~/server/profile-images/profile-images.server";
import { fileDatabase } from "../test-database";
import { Browser, fileOf } from "../identity-support";
import { applicant, applicationFor, ORIGIN, person, uniqueIp } from "../admin-support";

/**
 * Members' private files are encrypted at rest (docs/security.md): what is on disk is neither the
 * document nor any known file type, staff still read the document, and a plain file stored before
 * encryption is still served and then encrypted once.
 */
let staff: { id: string; email: string };
const database = fileDatabase({ onOpen: async (opened) => void (staff = await person(opened.db, "admin")) });

const MAGIC = { jpeg: Buffer.from("ffd8ff", "hex"), png: Buffer.from("89504e47", "hex"), pdf: Buffer.from("%PDF-") };

/** No JPEG, PNG or PDF magic number anywhere, no WebP start, and not the secret either. */
function expectNoKnownFile(bytes: Buffer, secret?: Buffer) {
  for (const magic of Object.values(MAGIC)) expect(bytes.includes(magic)).toBe(false);
  expect(bytes.subarray(0, 4).toString("latin1")).not.toBe("RIFF");
  if (secret) expect(bytes.includes(secret)).toBe(false);
}

const passportPdf = () =>
  Buffer.from("%PDF-1.4\n1 0 obj << /Title (PASSPORT P1234567890 JAMIE LOPEZ) >> endobj\n%%EOF\n");

async function idDocumentFile(member_id: string): Promise<string> {
  const [profile] = await database.db
    .select({ file: memberProfiles.id_document_file })
    .from(memberProfiles)
    .where(eq(memberProfiles.user_id, member_id));
  return path.join(uploadsRoot(), "id-documents", profile!.file!);
}

describe("private uploads at rest", () => {
  it("an application's ID document is encrypted on disk, owner-only, and staff read it back unchanged", async () => {
    const result = await submitApplication(
      database.db,
      new Browser(uniqueIp()).meta(),
      applicationFor(),
      fileOf(passportPdf(), "passport.pdf", "application/pdf"),
    );
    expect(result.status).toBe("created");
    if (result.status !== "created") return;
    const stored = fs.readFileSync(await idDocumentFile(result.user_id));
    expectNoKnownFile(stored, Buffer.from("P1234567890"));
    expect(fs.statSync(await idDocumentFile(result.user_id)).mode & 0o777).toBe(0o600);

    const document = await readIdDocument(database.db, { member_id: result.user_id, staff, origin: ORIGIN });
    expect(document!.mime).toBe("application/pdf");
    expect(document!.bytes.equals(passportPdf())).toBe(true);
  });

  it("an image document is stored encrypted too, and a file copied over another's name does not decrypt", async () => {
    const a = await applicant(database.db);
    const b = await applicant(database.db);
    const fileA = await idDocumentFile(a.id);
    expectNoKnownFile(fs.readFileSync(fileA));
    const document = await readIdDocument(database.db, { member_id: a.id, staff, origin: ORIGIN });
    expect((await sharp(document!.bytes).metadata()).format).toBe("png");

    // b's file replaced by a's: the name is bound into the encryption, so nothing is served.
    fs.copyFileSync(fileA, await idDocumentFile(b.id));
    expect(await readIdDocument(database.db, { member_id: b.id, staff, origin: ORIGIN })).toBeNull();
  });

  it("a plain document stored before encryption is still served, then encrypted once by the start-up pass", async () => {
    const a = await applicant(database.db);
    const target = await idDocumentFile(a.id);
    // What an earlier version wrote: the re-encoded document itself, plain.
    const plain = (await readIdDocument(database.db, { member_id: a.id, staff, origin: ORIGIN }))!.bytes;
    fs.writeFileSync(target, plain, { mode: 0o600 });
    expect(fs.readFileSync(target).subarray(0, 4).equals(MAGIC.png)).toBe(true);
    expect((await readIdDocument(database.db, { member_id: a.id, staff, origin: ORIGIN }))!.bytes.equals(plain)).toBe(
      true,
    );

    expect(await encryptPlainUploads()).toBeGreaterThanOrEqual(1);
    expectNoKnownFile(fs.readFileSync(target));
    expect(fs.statSync(target).mode & 0o777).toBe(0o600);
    expect((await readIdDocument(database.db, { member_id: a.id, staff, origin: ORIGIN }))!.bytes.equals(plain)).toBe(
      true,
    );
    // Nothing left behind, nothing done twice.
    expect(fs.readdirSync(path.dirname(target)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect(await encryptPlainUploads()).toBe(0);
  });

  it("once a pass has found every file encrypted, later start-up passes read none (a marker in DATA_DIR); without the marker the next pass checks them all again", async () => {
    await encryptPlainUploads();
    expect(fs.existsSync(allEncryptedMarker())).toBe(true);
    const a = await applicant(database.db);
    const target = await idDocumentFile(a.id);
    // Every write encrypts, so no plain file can appear; one put there by hand shows the pass no
    // longer opens the files.
    const plain = (await readIdDocument(database.db, { member_id: a.id, staff, origin: ORIGIN }))!.bytes;
    fs.writeFileSync(target, plain, { mode: 0o600 });
    expect(await encryptPlainUploads()).toBe(0);
    expect(fs.readFileSync(target).subarray(0, 4).equals(MAGIC.png)).toBe(true);

    fs.rmSync(allEncryptedMarker());
    expect(await encryptPlainUploads()).toBe(1);
    expectNoKnownFile(fs.readFileSync(target));
    expect(fs.existsSync(allEncryptedMarker())).toBe(true);
  });

  it("a pass that cannot read a stored file still encrypts the others, then fails and leaves no marker: the next start tries again", async () => {
    fs.rmSync(allEncryptedMarker(), { force: true });
    const a = await applicant(database.db);
    const target = await idDocumentFile(a.id);
    const plain = (await readIdDocument(database.db, { member_id: a.id, staff, origin: ORIGIN }))!.bytes;
    fs.writeFileSync(target, plain, { mode: 0o600 });
    // A name the store makes that cannot be read as a file: a folder of that name.
    const unreadable = path.join(uploadsRoot(), "id-documents", `${"f".repeat(32)}.pdf`);
    fs.mkdirSync(unreadable);
    await expect(encryptPlainUploads()).rejects.toThrow(/could not read 1 stored upload.*EISDIR.*; 1 encrypted/);
    expectNoKnownFile(fs.readFileSync(target));
    expect(fs.existsSync(allEncryptedMarker())).toBe(false);

    fs.rmdirSync(unreadable);
    expect(await encryptPlainUploads()).toBe(0);
    expect(fs.existsSync(allEncryptedMarker())).toBe(true);
  });

  it("a profile photo is encrypted on disk and read back as the 256 px WebP", async () => {
    const me = await applicant(database.db);
    const png = await sharp({ create: { width: 300, height: 300, channels: 3, background: { r: 200, g: 40, b: 40 } } })
      .png()
      .toBuffer();
    expect((await setProfileImage(database.db, me.id, fileOf(png, "me.png", "image/png"))).ok).toBe(true);
    const image = await readProfileImage(database.db, { id: me.id, role: "pending" }, me.id);
    expectNoKnownFile(fs.readFileSync(path.join(uploadsRoot(), "profile-images", image!.file)));
    expect(await sharp(image!.content).metadata()).toMatchObject({ format: "webp", width: 256 });
  });
});
