import { describe, expect, it } from "vitest";
import type { Db } from "~/server/db/client.server";
import { issueDebitCard } from "~/server/cards/cards.server";
import {
  changeCardPin,
  reportCardLost,
  revealCardDetails,
  sendCardCode,
  setCardDailyLimit,
  setCardLocked,
} from "~/server/cards/controls.server";
import { fileDatabase } from "../test-database";
import { newMember } from "../member-support";

/**
 * Every card control asks one question first (controls.server.ts ownCard): is this the member's
 * own card, and not blocked? Another member's card, and an id no card can have (past what the
 * database's bigint holds, or not a whole number), are answered "not found" by each of the six
 * controls alike, never a database error (a 500). Before, three controls read the card with their
 * own query, which sent such an id to the database.
 */
process.env.LOG_LEVEL = "silent";
let db: Db;
const origin = { request_id: "test", ip: "198.51.100.7" };
fileDatabase({ onOpen: (database) => void (db = database.db) });

describe("the card controls' own-card check", () => {
  it("answers card_not_found for another member's card and for impossible ids, in all six controls", async () => {
    const me = await newMember(db, { checking_cents: 10_000 });
    const other = await newMember(db, { checking_cents: 10_000 });
    const theirs = await issueDebitCard(db, { member_id: other.member.id, account_id: other.checking.id });
    const member = { id: me.member.id, email: me.member.email, name: me.member.name };
    const controls = {
      lock: (id: number) => setCardLocked(db, member, id, true, origin),
      limit: (id: number) => setCardDailyLimit(db, member, id, 50_000, origin),
      code: (id: number) => sendCardCode(db, member, id, "details"),
      details: (id: number) => revealCardDetails(db, member, id, "123456", origin),
      pin: (id: number) => changeCardPin(db, member, id, { otp: "123456", pin: "4821", pin_confirm: "4821" }, origin),
      lost: (id: number) => reportCardLost(db, member, id, "lost", origin),
    };
    for (const [name, control] of Object.entries(controls)) {
      for (const id of [theirs.id, 1e20, 2.5]) {
        const answer = await control(id);
        expect({ name, id, code: answer.ok ? "ok" : answer.code }).toEqual({ name, id, code: "card_not_found" });
      }
    }
  });
});
