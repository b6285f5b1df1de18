import "../identity-support";
import { afterEach, describe, expect, it, vi } from "vitest";
import { count, eq } from "drizzle-orm";
import { memberProfiles, outbox, sessions, taxpayerIds, users } from "~/server/db/schema";
import { checkTaxpayerId } from "~/domain/taxpayer-id";
import { taxpayerIdContext } from "~/server/members/taxpayer-ids.server";
import { decryptField } from "~/server/security/crypto.server";
import { authFor } from "~/server/auth/auth.server";
import { completePasswordReset, requestPasswordReset, resetTokenIsLive } from "~/server/auth/password.server";
import { startSignIn, verifySignInCode } from "~/server/auth/sign-in.server";
import { recordWrongPassword, lockoutState } from "~/server/auth/lockout.server";
import { sessionUserFromCookie } from "~/server/auth/session.server";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";
import { seedDemoIfEmpty } from "~/server/seed/demo.server";
import { fileDatabase, openTestDatabase } from "../test-database";
import { Browser, lastCodeTo, lastMessageTo, outcome } from "../identity-support";

const database = fileDatabase();
afterEach(() => {
  vi.useRealTimers();
});

let counter = 0;
async function member() {
  counter += 1;
  const email = `reset${counter}@example.com`;
  const { user } = await authFor(database.db).api.signUpEmail({
    body: { email, password: "Original passphrase 1", name: "Reset Test" },
  });
  return { id: user.id, email };
}

function linkToken(text: string): string {
  const token = /reset-password\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1];
  if (!token) throw new Error("no reset link in the message");
  return token;
}

describe("password reset", () => {
  it("answers the same whether or not the address has an account, and emails only real ones", async () => {
    const { email } = await member();
    const before = (await database.db.select({ n: count() }).from(outbox))[0]!.n;
    expect(
      await requestPasswordReset(database.db, new Browser("192.0.2.50").meta(), "nobody-here@example.com"),
    ).toEqual({ ok: true });
    expect((await database.db.select({ n: count() }).from(outbox))[0]!.n).toBe(before);
    expect(await requestPasswordReset(database.db, new Browser("192.0.2.50").meta(), email)).toEqual({
      ok: true,
    });
    expect(await lastMessageTo(database.db, email)).toMatchObject({ kind: "password_reset" });
  });

  it("uses a link once, ends every session and unlocks sign-in", async () => {
    const { id, email } = await member();
    const phone = new Browser("192.0.2.51");
    const step = await startSignIn(database.db, phone.meta(), { email, password: "Original passphrase 1" });
    if (!step.ok || step.status !== "challenge") throw new Error(outcome(step));
    phone.apply(step.set_cookies);
    const signed = await verifySignInCode(database.db, phone.meta(), { code: await lastCodeTo(database.db, email) });
    if (!signed.ok) throw new Error(outcome(signed));
    phone.apply(signed.set_cookies);
    for (let i = 0; i < 5; i++) await recordWrongPassword(database.db, email);
    expect((await lockoutState(database.db, email)).locked).toBe(true);

    await requestPasswordReset(database.db, new Browser("192.0.2.52").meta(), email);
    const token = linkToken((await lastMessageTo(database.db, email))!.text_body);
    expect(await resetTokenIsLive(database.db, token)).toBe(true);
    // The token is stored hashed: it does not appear in the verification table.
    const raw = await database.db.execute<Record<string, unknown>>(`select identifier from verifications` as never);
    expect(JSON.stringify(raw.rows)).not.toContain(token);

    const done = await completePasswordReset(database.db, new Browser("192.0.2.52").meta(), {
      token,
      password: "Brand new passphrase 2",
    });
    expect(done.ok).toBe(true);
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, id))).toHaveLength(0);
    expect(await sessionUserFromCookie(database.db, phone.cookieHeader())).toBeNull();
    expect((await lockoutState(database.db, email)).locked).toBe(false);
    expect(await lastMessageTo(database.db, email)).toMatchObject({ kind: "password_changed" });

    const again = await completePasswordReset(database.db, new Browser("192.0.2.52").meta(), {
      token,
      password: "Another passphrase 3",
    });
    expect(again).toMatchObject({ ok: false, code: "invalid_link" });
    const signIn = await startSignIn(database.db, new Browser("192.0.2.53").meta(), {
      email,
      password: "Brand new passphrase 2",
    });
    expect(outcome(signIn)).toBe("challenge");
  });

  it("expires a link after 30 minutes", async () => {
    const { email } = await member();
    vi.useFakeTimers({ toFake: ["Date"] });
    await requestPasswordReset(database.db, new Browser("192.0.2.54").meta(), email);
    const token = linkToken((await lastMessageTo(database.db, email))!.text_body);
    vi.setSystemTime(Date.now() + 30 * 60 * 1000 + 1000);
    expect(await resetTokenIsLive(database.db, token)).toBe(false);
    expect(
      outcome(
        await completePasswordReset(database.db, new Browser("192.0.2.54").meta(), {
          token,
          password: "Late passphrase 44",
        }),
      ),
    ).toBe("invalid_link");
  });

  it("sends at most 3 links an hour to one address, and limits requests per network address", async () => {
    const { email } = await member();
    const browser = new Browser("192.0.2.55");
    for (let i = 0; i < 5; i++) await requestPasswordReset(database.db, browser.meta(), email);
    const links = (await database.db.select().from(outbox).where(eq(outbox.to_email, email))).filter(
      (m) => m.kind === "password_reset",
    );
    expect(links).toHaveLength(3);
    for (let i = 0; i < 5; i++) await requestPasswordReset(database.db, browser.meta(), `other${i}@example.com`);
    expect(outcome(await requestPasswordReset(database.db, browser.meta(), "one-more@example.com"))).toBe(
      "rate_limited",
    );
  });
});

describe("demo seed", () => {
  it("seeds the demo people once, and each demo sign-in works", async () => {
    const demo = await openTestDatabase();
    try {
      expect(await seedDemoIfEmpty(demo)).toBe(true);
      expect(await seedDemoIfEmpty(demo)).toBe(false);
      const people = await demo.db
        .select({
          email: users.email,
          role: users.role,
          status: memberProfiles.status,
          joint: memberProfiles.joint_account,
        })
        .from(users)
        .innerJoin(memberProfiles, eq(memberProfiles.user_id, users.id));
      expect(people).toHaveLength(DEMO_SIGNINS.length);
      expect(people.filter((p) => p.role === "admin")).toHaveLength(2); // two admins, so that dual control can be tried
      // Two accountants, so that the books' dual control can be tried (docs/product.md#books).
      expect(people.filter((p) => p.role === "accountant")).toHaveLength(2);
      expect(people.filter((p) => p.role === "user")).toHaveLength(3);
      expect(people.filter((p) => p.role === "pending" && p.status === "pending")).toHaveLength(2);
      expect(people.filter((p) => p.joint)).toHaveLength(1);
      // Every member and applicant has a taxpayer number (made up, valid in form), the joint owner too;
      // staff, who are not customers, have none.
      const tins = await demo.db
        .select({
          user_id: taxpayerIds.user_id,
          party: taxpayerIds.party,
          role: users.role,
          tin_type: taxpayerIds.tin_type,
          number_enc: taxpayerIds.number_enc,
          country: taxpayerIds.country,
        })
        .from(taxpayerIds)
        .innerJoin(users, eq(users.id, taxpayerIds.user_id));
      expect(
        tins
          .filter((t) => t.party === "member")
          .map((t) => t.role)
          .sort(),
      ).toEqual(["pending", "pending", "user", "user", "user"]);
      expect(tins.filter((t) => t.party === "joint")).toHaveLength(1);
      for (const t of tins) {
        const number = decryptField(t.number_enc, taxpayerIdContext(t.user_id, t.party));
        expect(checkTaxpayerId({ type: t.tin_type, number, country: t.country }).ok, number).toBe(true);
      }
      for (const [i, signIn] of DEMO_SIGNINS.entries()) {
        const result = await startSignIn(demo.db, new Browser(`192.0.2.${100 + i}`).meta(), {
          email: signIn.email,
          password: signIn.password,
        });
        expect(outcome(result), signIn.email).toBe("challenge");
      }
    } finally {
      await demo.close();
    }
  });
});
