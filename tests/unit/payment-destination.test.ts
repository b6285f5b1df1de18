import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  lastFour,
  maskedNumber,
  maskedWireAccount,
  openNumber,
  sealDestination,
  withAccountNumber,
} from "~/server/payments/payment-destination.server";

// Read lazily, on the first seal: a key of the tests' own.
process.env.DATA_ENCRYPTION_KEY ??= "5a".repeat(32);
process.env.SESSION_SECRET ??= "unit-test-session-secret-0123456789abcdef";

/**
 * A payment's destination as stored (app/server/payments/payment-destination.server.ts, decision
 * 0034): the account number and IBAN sealed with their last four beside them, every other key as
 * given; opened back whole only for the member they were sealed for.
 */
describe("payment destinations at rest", () => {
  it("seals the account number and IBAN, keeps the rest, and leaves out an empty IBAN", () => {
    const wire = sealDestination("m1", {
      recipient_name: "Hans Müller",
      bic: "COBADEFFXXX",
      account_number: "0532013000",
      iban: "DE89370400440532013000",
      country: "DE",
    });
    expect(Object.keys(wire).sort()).toEqual(
      ["account_last4", "account_number_enc", "bic", "country", "iban_enc", "iban_last4", "recipient_name"].sort(),
    );
    expect(wire).toMatchObject({ account_last4: "3000", iban_last4: "3000", recipient_name: "Hans Müller" });
    expect(JSON.stringify(wire)).not.toContain("0532013000");
    expect(openNumber({ member_id: "m1", details: wire }, "iban")).toBe("DE89370400440532013000");
    expect(() => openNumber({ member_id: "m2", details: wire }, "account_number")).toThrow();

    const no_iban = sealDestination("m1", { account_number: "12345678", iban: "" });
    expect(no_iban).not.toHaveProperty("iban_enc");
    expect(no_iban).not.toHaveProperty("iban");
    expect(openNumber({ member_id: "m1", details: no_iban }, "iban")).toBe("");
    expect(maskedWireAccount(no_iban)).toBe("••5678");
    expect(maskedWireAccount(wire)).toBe("••3000");
  });

  it("reads a row from before as it is, and seals it unchanged but for the numbers", () => {
    const old = { routing_number: "021000021", account_number: "123456789", account_name: "Lee Park" };
    expect(maskedNumber(old, "account_number")).toBe("••6789");
    expect(lastFour(old, "iban")).toBe("");
    expect(openNumber({ member_id: "m1", details: old }, "account_number")).toBe("123456789");
    const sealed = sealDestination("m1", old);
    expect(sealed).not.toHaveProperty("account_number");
    expect(sealed).toMatchObject({ routing_number: "021000021", account_name: "Lee Park", account_last4: "6789" });
    // Sealing sealed details again changes nothing.
    expect(sealDestination("m1", sealed)).toEqual(sealed);
  });

  it("replaces the account number, sealed, whether the details held it plain or sealed", () => {
    const plain = withAccountNumber("m1", { account_number: "123456789", account_type: "checking" }, "987654321");
    const resealed = withAccountNumber("m1", sealDestination("m1", { account_number: "123456789" }), "987654321");
    for (const details of [plain, resealed]) {
      expect(details).not.toHaveProperty("account_number");
      expect(openNumber({ member_id: "m1", details }, "account_number")).toBe("987654321");
      expect(maskedNumber(details, "account_number")).toBe("••4321");
    }
    expect(plain.account_type).toBe("checking");
  });

  it("any account number and IBAN: sealed text never holds them, opened they come back whole", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{8,17}$/),
        fc.stringMatching(/^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$/),
        fc.uuid(),
        (account_number, iban, member_id) => {
          const sealed = sealDestination(member_id, { account_number, iban, bic: "COBADEFFXXX" });
          const text = JSON.stringify(sealed);
          expect(text).not.toContain(account_number);
          expect(text).not.toContain(iban);
          const payment = { member_id, details: sealed };
          expect(openNumber(payment, "account_number")).toBe(account_number);
          expect(openNumber(payment, "iban")).toBe(iban);
          expect(maskedNumber(sealed, "account_number")).toBe(`••${account_number.slice(-4)}`);
        },
      ),
      { numRuns: 200 },
    );
  });
});
