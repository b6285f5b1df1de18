import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { achInboundIatEntries, type ScreeningMatchRecord } from "~/server/db/schema";
import { toId } from "~/domain/ledger-rules";
import { formatCents } from "~/domain/money";
import { iatScreenedParties } from "~/domain/nacha/iat";
import { fileScreening, screenParties } from "~/server/sanctions/screening.server";
import type { Item } from "./inbound-entries.server";

/**
 * International ACH entries (IAT) received (docs/product.md#iat-entries, 31 CFR chapter V, Nacha
 * Operating Rules subsection 5.1.3): before an IAT credit or debit moves money, every party its
 * addenda name (the originator, the receiver, the originating and receiving banks and any
 * correspondent bank, each with its country) is screened against the newest sanctions lists. A
 * possible match holds the entry (status `screening`, no money moved) and files it in the
 * screening queue; staff clear it (it posts as the upload would have posted it) or two staff
 * members confirm it (it is blocked: never posted, the receiving account frozen, a report to OFAC
 * drafted): ./inbound-iat-decisions.server.ts. Clear entries post with the rest of the file.
 */

/** The IAT credits and debits of a chunk with a possible match: line to the matches. */
export async function screenIatEntries(
  tx: DbOrTx,
  entries: readonly Item[],
): Promise<Map<number, ScreeningMatchRecord[]>> {
  const hits = new Map<number, ScreeningMatchRecord[]>();
  for (const entry of entries) {
    if (!entry.iat) continue;
    const parties = iatScreenedParties(entry.iat).map((p) => ({ name: p.name, country: countryCodeOf(p.country) }));
    const matches = await screenParties(tx, parties);
    if (matches.length > 0) hits.set(entry.line, matches);
  }
  return hits;
}

/** The ISO alpha-2 code of a country as an IAT addenda writes it ("GB", or "GB " in a 3-column field). */
function countryCodeOf(text: string): string | null {
  const code = text.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(code) ? code : null;
}

/**
 * After the chunk's entries are stored: each IAT entry's details kept beside it, and each one
 * held for screening filed in the queue under the member whose account it names (none when the
 * account is not a member's: staff see the entry's own account number).
 */
export async function recordIatEntries(
  tx: DbOrTx,
  file_id: number,
  entries: readonly Item[],
  hits: ReadonlyMap<number, ScreeningMatchRecord[]>,
): Promise<void> {
  const iat = entries.filter((e) => e.iat);
  if (iat.length === 0) return;
  const stored = await tx.execute(sql`
    select e.id, e.line, a.member_id
      from ach_inbound_entries e
      left join ledger_accounts a on a.account_number = e.account_number and a.owner = 'member'
     where e.file_id = ${file_id}
       and e.line in (select (jsonb_array_elements_text(${JSON.stringify(iat.map((e) => e.line))}::jsonb))::integer)`);
  const byLine = new Map(
    stored.rows.map((r) => [Number(r.line), { id: toId(r.id), member_id: (r.member_id as string | null) ?? "" }]),
  );
  await tx.insert(achInboundIatEntries).values(iat.map((e) => ({ entry_id: byLine.get(e.line)!.id, details: e.iat! })));
  for (const entry of iat) {
    const matches = hits.get(entry.line);
    if (!matches) continue;
    const row = byLine.get(entry.line)!;
    const details = entry.iat!;
    await fileScreening(tx, {
      subject_type: "ach_entry",
      subject_id: String(row.id),
      member_id: row.member_id,
      // The party that matched best is the name staff compare first.
      screened_name: matches[0]!.screened_name,
      screened_details: {
        kind: `Incoming international ACH ${entry.kind} (IAT)`,
        amount: formatCents(entry.amount_cents),
        originator: `${details.originator.name} (${details.originator.country || "country not given"})`,
        receiver: details.receiver.name,
        originating_bank: `${details.odfi.name} (${details.odfi.country || "country not given"})`,
        account: entry.account_number.length <= 4 ? entry.account_number : `••${entry.account_number.slice(-4)}`,
        trace_number: entry.trace_number,
      },
      matches,
    });
  }
}
