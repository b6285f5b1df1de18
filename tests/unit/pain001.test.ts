import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  Pain001Error,
  decimalAmount,
  pain001TransferProblem,
  writePain001,
  xmlText,
  xmlUnfitCharacters,
  type Pain001Input,
  type Pain001Transfer,
} from "~/domain/pain001";
import { validatePain001, xpathCount, xpathValue } from "./xsd";

/**
 * The pain.001.001.09 writer: every message validates against the official schema
 * (tests/fixtures/iso20022/, with xmllint), and its values read back by XPath, entities decoded,
 * are the ones given. A golden message (tests/fixtures/iso20022/two-wires.xml, regenerate with
 * UPDATE_GOLDEN=1) pins the whole text.
 */
const BASE: Omit<Pain001Input, "transfers"> = {
  message_id: "MUTUAL-W-000001",
  created_at: "2026-11-24T10:30:00Z",
  requested_execution_date: "2026-11-25",
  debtor: { name: "Harborview Community Credit Union", routing_number: "501234566", account_number: "1234567890" },
  charge_bearer: "SHAR",
};

function wire(over: Partial<Pain001Transfer> = {}): Pain001Transfer {
  return {
    instruction_id: "W1",
    end_to_end_id: "MU00000042",
    currency: "EUR",
    amount_minor_units: 123_456,
    creditor_name: "Hans Müller",
    creditor_country: "DE",
    creditor_iban: "DE89370400440532013000",
    creditor_account_number: "0532013000",
    creditor_agent_bic: "COBADEFFXXX",
    creditor_agent_name: "Commerzbank",
    remittance_information: "Invoice 7",
    ...over,
  };
}

const TWO: Pain001Input = {
  ...BASE,
  transfers: [
    wire(),
    wire({
      instruction_id: "W2",
      end_to_end_id: "MU00000043",
      currency: "JPY",
      amount_minor_units: 50_000,
      creditor_name: `Tanaka & <Sons> "Ltd" 田中`,
      creditor_country: "JP",
      creditor_iban: undefined,
      creditor_account_number: "1234567",
      creditor_agent_bic: "MHCBJPJT",
      creditor_agent_name: "Mizuho Bank & Trust",
      remittance_information: "Rent </Ustrd><Evil/> \u0001 ok",
    }),
  ],
};

describe("pain.001.001.09 writer", () => {
  it("the golden message is written byte for byte and validates against the schema", () => {
    const message = writePain001(TWO);
    const golden = path.join(import.meta.dirname, "..", "fixtures", "iso20022", "two-wires.xml");
    if (process.env.UPDATE_GOLDEN === "1") fs.writeFileSync(golden, message.xml);
    expect(message.xml).toBe(fs.readFileSync(golden, "utf8"));
    expect(validatePain001(message.xml)).toEqual({ valid: true, errors: "- validates\n" });
  });

  it("reads back: group header, debtor, and each wire's ids, amount, currency, creditor, agent and account", () => {
    const { xml, control_sum } = writePain001(TWO);
    expect(xpathValue(xml, "GrpHdr/MsgId")).toBe("MUTUAL-W-000001");
    expect(xpathValue(xml, "GrpHdr/NbOfTxs")).toBe("2");
    expect(xpathValue(xml, "GrpHdr/CtrlSum")).toBe("51234.56"); // 1234.56 EUR + 50000 JPY, as the schema sums
    expect(control_sum).toBe("51234.56");
    expect(xpathValue(xml, "PmtInf/NbOfTxs")).toBe("2");
    expect(xpathValue(xml, "PmtInf/CtrlSum")).toBe("51234.56");
    expect(xpathValue(xml, "InitgPty/Nm")).toBe("Harborview Community Credit Union");
    expect(xpathValue(xml, "Dbtr/Id/OrgId/Othr/Id")).toBe("501234566");
    expect(xpathValue(xml, "DbtrAcct/Id/Othr/Id")).toBe("1234567890");
    expect(xpathValue(xml, "DbtrAgt/FinInstnId/ClrSysMmbId/MmbId")).toBe("501234566");
    expect(xpathValue(xml, "DbtrAgt/FinInstnId/ClrSysMmbId/ClrSysId/Cd")).toBe("USABA");
    expect(xpathValue(xml, "ReqdExctnDt/Dt")).toBe("2026-11-25");
    expect(xpathCount(xml, "CdtTrfTxInf")).toBe(2);
    expect(xpathValue(xml, "CdtTrfTxInf/PmtId/EndToEndId", 1)).toBe("MU00000042");
    expect(xpathValue(xml, "CdtTrfTxInf/Amt/InstdAmt", 1)).toBe("1234.56");
    expect(xpathValue(xml, "CdtTrfTxInf/Amt/InstdAmt/@Ccy", 1)).toBe("EUR");
    expect(xpathValue(xml, "CdtTrfTxInf/ChrgBr", 1)).toBe("SHAR");
    expect(xpathValue(xml, "CdtTrfTxInf/CdtrAcct/Id/IBAN", 1)).toBe("DE89370400440532013000");
    expect(xpathValue(xml, "CdtTrfTxInf/Cdtr/Nm", 1)).toBe("Hans Müller");
    expect(xpathValue(xml, "CdtTrfTxInf/CdtrAgt/FinInstnId/BICFI", 1)).toBe("COBADEFFXXX");
    expect(xpathValue(xml, "CdtTrfTxInf/Amt/InstdAmt", 2)).toBe("50000");
    expect(xpathValue(xml, "CdtTrfTxInf/Amt/InstdAmt/@Ccy", 2)).toBe("JPY");
    expect(xpathValue(xml, "CdtTrfTxInf/Cdtr/Nm", 2)).toBe(`Tanaka & <Sons> "Ltd" 田中`);
    expect(xpathValue(xml, "CdtTrfTxInf/CdtrAgt/FinInstnId/Nm", 2)).toBe("Mizuho Bank & Trust");
    expect(xpathValue(xml, "CdtTrfTxInf/CdtrAcct/Id/Othr/Id")).toBe("1234567"); // only the second wire has no IBAN
    expect(xpathCount(xml, "CdtTrfTxInf/CdtrAcct/Id/IBAN")).toBe(1);
    // Markup in the member's text stays text; the control character is dropped.
    expect(xpathValue(xml, "CdtTrfTxInf/RmtInf/Ustrd", 2)).toBe("Rent </Ustrd><Evil/> ok");
    expect(xpathCount(xml, "Evil")).toBe(0);
  });

  it("every currency exponent validates: three decimals (BHD), none (JPY), two (USD), many wires", () => {
    const transfers = [
      wire({ currency: "BHD", amount_minor_units: 1 }),
      wire({
        currency: "USD",
        amount_minor_units: 99,
        creditor_iban: "",
        creditor_account_number: "000123456789",
        creditor_country: "US",
        creditor_agent_bic: "CHASUS33",
      }),
      ...Array.from({ length: 30 }, (_, i) =>
        wire({
          instruction_id: `W${i + 10}`,
          end_to_end_id: `MU${String(i + 10).padStart(8, "0")}`,
          amount_minor_units: i + 1,
        }),
      ),
    ];
    const message = writePain001({ ...BASE, transfers });
    expect(validatePain001(message.xml).valid).toBe(true);
    expect(xpathValue(message.xml, "CdtTrfTxInf/Amt/InstdAmt", 1)).toBe("0.001");
    expect(xpathValue(message.xml, "GrpHdr/NbOfTxs")).toBe("32");
    // 0.001 + 0.99 + (1 + ... + 30) cents = 0.001 + 0.99 + 4.65
    expect(message.control_sum).toBe("5.641");
  });

  it("long names are cut to the schema's length (140), counted in characters, not broken in an entity", () => {
    const message = writePain001({ ...BASE, transfers: [wire({ creditor_name: `${"&".repeat(139)}é€` })] });
    expect(validatePain001(message.xml).valid).toBe(true);
    expect(xpathValue(message.xml, "Cdtr/Nm")).toBe(`${"&".repeat(139)}é`);
  });

  it("the schema is really checked: a message the writer did not make is refused", () => {
    const broken = writePain001(TWO).xml.replace("<ChrgBr>SHAR</ChrgBr>", "<ChrgBr>OUR</ChrgBr>");
    const result = validatePain001(broken);
    expect(result.valid).toBe(false);
    expect(result.errors).toMatch(/ChrgBr/);
  });

  it("refuses bad input before writing", () => {
    const one = (over: Partial<Pain001Transfer>) => () => writePain001({ ...BASE, transfers: [wire(over)] });
    expect(one({ currency: "XXX" })).toThrow(Pain001Error);
    expect(one({ amount_minor_units: 0 })).toThrow(/positive/);
    expect(one({ creditor_agent_bic: "NOTABIC" })).toThrow(/BIC/);
    expect(one({ end_to_end_id: "x".repeat(36) })).toThrow(/35/);
    expect(one({ creditor_name: "\u0001 " })).toThrow(/name/);
    expect(() => writePain001({ ...BASE, transfers: [] })).toThrow(/at least one/);
  });

  it("a recipient or bank name XML cannot hold is refused, not written as an empty element the schema refuses", () => {
    expect(xmlUnfitCharacters("\uFFFF\uFFFE")).toEqual(["U+FFFF", "U+FFFE"]);
    expect(xmlUnfitCharacters("山田太郎 Zoë 😀")).toEqual([]);
    expect(pain001TransferProblem(wire({ creditor_name: "\uFFFF\uFFFE" }))).toBe(
      "the creditor's name has no character an XML message can carry",
    );
    // The bank name was written as <Nm></Nm>, which Max140Text (at least one character) refuses.
    expect(pain001TransferProblem(wire({ creditor_agent_name: "\uFFFE" }))).toBe(
      "the creditor's bank name has no character an XML message can carry",
    );
    expect(() =>
      writePain001({ ...BASE, transfers: [wire(), wire({ instruction_id: "W2", creditor_name: "\uFFFF\uFFFE" })] }),
    ).toThrow(/^wire 2: the creditor's name/);
    expect(
      validatePain001(
        writePain001({ ...BASE, transfers: [wire({ creditor_name: "山田太郎", creditor_agent_name: "三菱UFJ銀行" })] })
          .xml,
      ),
    ).toMatchObject({ valid: true });
  });

  it("helpers", () => {
    expect(decimalAmount(5, 2)).toBe("0.05");
    expect(decimalAmount(1000, 0)).toBe("1000");
    expect(xmlText(" a  & b ", 5)).toBe("a &amp; b");
  });
});
