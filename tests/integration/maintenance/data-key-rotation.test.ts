import "../admin-support";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { loanApplications, memberProfiles, smsMessages, smsNumbers, taxpayerIds } from "~/server/db/schema";
import { smsBodyContext, smsNumberContext } from "~/server/notifications/sms.server";
import { loanFieldContext } from "~/server/loans/fields.server";
import { taxpayerIdContext } from "~/server/members/taxpayer-ids.server";
import { memberDetail, readIdDocument } from "~/server/admin/directory.server";
import { uploadsRoot } from "~/server/uploads/private-uploads.server";
import { encryptionContext } from "~/server/members/members.server";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import { reencryptToCurrentKey } from "~/server/maintenance/rotate-data-key.server";
import { fileDatabase } from "../test-database";
import { applicant, ORIGIN, person } from "../admin-support";

/**
 * Rotating DATA_ENCRYPTION_KEY (docs/operations.md#rotating-the-data-encryption-key): with the new
 * key current and the old one in DATA_ENCRYPTION_KEY_PREVIOUS, everything the old key encrypted
 * is still read; the rotation re-encrypts the database values and the files to the new key, and a
 * second run has nothing left to do.
 */
const OLD_KEY = "a1".repeat(32);
const NEW_KEY = "b2".repeat(32);
const saved = { current: process.env.DATA_ENCRYPTION_KEY, previous: process.env.DATA_ENCRYPTION_KEY_PREVIOUS };
// Read lazily (on first use), so set before anything encrypts.
process.env.DATA_ENCRYPTION_KEY = NEW_KEY;
process.env.DATA_ENCRYPTION_KEY_PREVIOUS = OLD_KEY;
const oldKey = Buffer.from(OLD_KEY, "hex");
const newKey = Buffer.from(NEW_KEY, "hex");

let staff: { id: string; email: string };
const database = fileDatabase({ onOpen: async (opened) => void (staff = await person(opened.db, "admin")) });
afterAll(() => {
  for (const [name, value] of [
    ["DATA_ENCRYPTION_KEY", saved.current],
    ["DATA_ENCRYPTION_KEY_PREVIOUS", saved.previous],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** An applicant whose personal data and ID document are under the old key, as before a rotation. */
async function applicantUnderOldKey() {
  const a = await applicant(database.db);
  const [p] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, a.id));
  const again = (stored: string, context: string) =>
    encryptField(decryptField(stored, context, newKey), context, oldKey);
  await database.db
    .update(memberProfiles)
    .set({
      date_of_birth_enc: again(p!.date_of_birth_enc!, encryptionContext("date_of_birth", a.id)),
      id_number_enc: again(p!.id_number_enc!, encryptionContext("id_number", a.id)),
    })
    .where(eq(memberProfiles.user_id, a.id));
  // The taxpayer number too (docs/product.md#taxpayer-identification).
  const [tin] = await database.db
    .select()
    .from(taxpayerIds)
    .where(and(eq(taxpayerIds.user_id, a.id), eq(taxpayerIds.party, "member")));
  await database.db
    .update(taxpayerIds)
    .set({ number_enc: again(tin!.number_enc, taxpayerIdContext(a.id, "member")) })
    .where(and(eq(taxpayerIds.user_id, a.id), eq(taxpayerIds.party, "member")));
  const file = path.join(uploadsRoot(), "id-documents", p!.id_document_file!);
  fs.writeFileSync(file, again(fs.readFileSync(file, "utf8"), `uploads.id-documents:${p!.id_document_file}`));
  return { id: a.id, file, file_context: `uploads.id-documents:${p!.id_document_file}` };
}

async function profileOf(id: string) {
  const [p] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, id));
  return p!;
}

describe("data encryption key rotation", () => {
  it("old values are read with the previous key, the rotation moves them all to the new key, and a second run does nothing", async () => {
    const a = await applicantUnderOldKey();
    expect(() => decryptField(fs.readFileSync(a.file, "utf8"), a.file_context, newKey)).toThrow();

    // The server reads them meanwhile.
    const before = await memberDetail(database.db, { member_id: a.id, reveal: { staff, origin: ORIGIN } });
    expect(before!.profile).toMatchObject({ date_of_birth: "1988-04-17", id_number: "P1234567890" });
    const document = await readIdDocument(database.db, { member_id: a.id, staff, origin: ORIGIN });
    expect(document!.mime).toBe("image/png");

    const report = await reencryptToCurrentKey(database.db);
    expect(report.fields).toBeGreaterThanOrEqual(3);
    expect(report.files).toBeGreaterThanOrEqual(1);

    const p = await profileOf(a.id);
    expect(decryptField(p.date_of_birth_enc!, encryptionContext("date_of_birth", a.id), newKey)).toBe("1988-04-17");
    expect(decryptField(p.id_number_enc!, encryptionContext("id_number", a.id), newKey)).toBe("P1234567890");
    expect(() => decryptField(p.id_number_enc!, encryptionContext("id_number", a.id), oldKey)).toThrow();
    const [tin] = await database.db
      .select()
      .from(taxpayerIds)
      .where(and(eq(taxpayerIds.user_id, a.id), eq(taxpayerIds.party, "member")));
    expect(decryptField(tin!.number_enc, taxpayerIdContext(a.id, "member"), newKey)).toBe("555012468");
    expect(() => decryptField(tin!.number_enc, taxpayerIdContext(a.id, "member"), oldKey)).toThrow();
    const rotated = Buffer.from(decryptField(fs.readFileSync(a.file, "utf8"), a.file_context, newKey), "base64");
    expect(rotated.equals(document!.bytes)).toBe(true);
    expect(fs.statSync(a.file).mode & 0o777).toBe(0o600);

    expect(await reencryptToCurrentKey(database.db)).toEqual({ fields: 0, files: 0 });
  });

  it("a loan applicant's income and employer move to the new key too (docs/product.md#loans)", async () => {
    const member_id = "loan-rotation-member";
    const [row] = await database.db
      .insert(loanApplications)
      .values({
        member_id,
        product_slug: "personal",
        product_name: "Personal Loan",
        amount_cents: 2_000_00,
        term_months: 24,
        purpose: "Roof",
        income_enc: encryptField("5000000", loanFieldContext("income", member_id), oldKey),
        employer_enc: encryptField("Lakeside Clinic", loanFieldContext("employer", member_id), oldKey),
        idempotency_key: "rotation",
      })
      .returning();
    expect(await reencryptToCurrentKey(database.db)).toEqual({ fields: 2, files: 0 });
    const [after] = await database.db.select().from(loanApplications).where(eq(loanApplications.id, row!.id));
    expect(decryptField(after!.income_enc, loanFieldContext("income", member_id), newKey)).toBe("5000000");
    expect(decryptField(after!.employer_enc, loanFieldContext("employer", member_id), newKey)).toBe("Lakeside Clinic");
  });

  it("a member's mobile number and a waiting verification text move to the new key too (docs/product.md#text-messages)", async () => {
    const member = await person(database.db, "user");
    const [number] = await database.db
      .insert(smsNumbers)
      .values({ member_id: member.id, number: encryptField("+12025550143", smsNumberContext(member.id), oldKey) })
      .returning();
    await database.db.insert(smsMessages).values({
      member_id: member.id,
      number_id: number!.id,
      purpose: "verification",
      body: encryptField("Harborview: 123456 is your code", smsBodyContext(member.id), oldKey),
    });
    expect(await reencryptToCurrentKey(database.db)).toEqual({ fields: 2, files: 0 });
    const [after] = await database.db.select().from(smsNumbers).where(eq(smsNumbers.id, number!.id));
    expect(decryptField(after!.number, smsNumberContext(member.id), newKey)).toBe("+12025550143");
    const [text] = await database.db.select().from(smsMessages).where(eq(smsMessages.number_id, number!.id));
    expect(decryptField(text!.body!, smsBodyContext(member.id), newKey)).toBe("Harborview: 123456 is your code");
  });
});
