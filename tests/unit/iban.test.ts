import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { IBAN_REGISTRY, checkIban, formatIban, ibanWithCheckDigits, isValidIban, normalizeIban } from "~/domain/iban";
import { findCountry } from "~/domain/countries";

/** The example IBAN of every country in the SWIFT IBAN registry (release 103). */
const REGISTRY_EXAMPLES = [
  "AD1200012030200359100100",
  "AE070331234567890123456",
  "AL47212110090000000235698741",
  "AT611904300234573201",
  "AZ21NABZ00000000137010001944",
  "BA391290079401028494",
  "BE68539007547034",
  "BG80BNBG96611020345678",
  "BH67BMAG00001299123456",
  "BI4210000100010000332045181",
  "BR6699999A03000010009795493C1",
  "BY13NBRB3600900000002Z00AB00",
  "CH9300762011623852957",
  "CR05015202001026284066",
  "CY17002001280000001200527600",
  "CZ6508000000192000145399",
  "DE89370400440532013000",
  "DJ2100010000000154000100186",
  "DK5000400440116243",
  "DO28BAGR00000001212453611324",
  "EE382200221020145685",
  "EG380019000500000000263180002",
  "ES9121000418450200051332",
  "FI2112345600000785",
  "FK88SC123456789012",
  "FO6264600001631634",
  "FR1420041010050500013M02606",
  "GB29NWBK60161331926819",
  "GE29NB0000000101904917",
  "GI75NWBK000000007099453",
  "GL8964710001000206",
  "GR1601101250000000012300695",
  "GT82TRAJ01020000001210029690",
  "HN88CABF00000000000250005469",
  "HR1210010051863000160",
  "HU42117730161111101800000000",
  "IE29AIBK93115212345678",
  "IL620108000000099999999",
  "IQ98NBIQ850123456789012",
  "IS140159260076545510730339",
  "IT60X0542811101000000123456",
  "JO94CBJO0010000000000131000302",
  "KW81CBKU0000000000001234560101",
  "KZ86125KZT5004100100",
  "LB62099900000001001901229114",
  "LC55HEMM000100010012001200023015",
  "LI21088100002324013AA",
  "LT121000011101001000",
  "LU280019400644750000",
  "LV80BANK0000435195001",
  "LY83002048000020100120361",
  "MC5811222000010123456789030",
  "MD24AG000225100013104168",
  "ME25505000012345678951",
  "MK07250120000058984",
  "MN121234123456789123",
  "MR1300020001010000123456753",
  "MT84MALT011000012345MTLCAST001S",
  "MU17BOMM0101101030300200000MUR",
  "NI45BAPR00000013000003558124",
  "NL91ABNA0417164300",
  "NO9386011117947",
  "OM810180000001299123456",
  "PK36SCBL0000001123456702",
  "PL61109010140000071219812874",
  "PS92PALS000000000400123456702",
  "PT50000201231234567890154",
  "QA58DOHB00001234567890ABCDEFG",
  "RO49AAAA1B31007593840000",
  "RS35260005601001611379",
  "RU0304452522540817810538091310419",
  "SA0380000000608010167519",
  "SC18SSCB11010000000000001497USD",
  "SD2129010501234001",
  "SE4550000000058398257466",
  "SI56263300012039086",
  "SK3112000000198742637541",
  "SM86U0322509800000000270100",
  "SO211000001001000100141",
  "ST23000100010051845310146",
  "SV62CENR00000000000000700025",
  "TL380080012345678910157",
  "TN5910006035183598478831",
  "TR330006100519786457841326",
  "UA213223130000026007233566001",
  "VA59001123000012345678",
  "VG96VPVG0000012345678901",
  "XK051212012345678906",
  "YE15CBYE0001018861234567891234",
];

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const isDigit = (char: string) => char >= "0" && char <= "9";

/** Per IBAN position, what the registry allows: "a" letters, "n" digits, "c" either (positions 0-3 are the country and check digits). */
function positionKinds(country_code: string): string {
  const entry = IBAN_REGISTRY[country_code]!;
  return "aann" + entry.bban.replace(/(\d+)!([nac])/g, (_, count: string, kind: string) => kind.repeat(Number(count)));
}

/** A random valid IBAN of any registry country, built from the registry's structure. */
const validIban = fc.constantFrom(...Object.keys(IBAN_REGISTRY)).chain((country_code) => {
  const kinds = positionKinds(country_code).slice(4).split("");
  const chars = kinds.map((kind) =>
    fc.constantFrom(...(kind === "n" ? ALPHABET.slice(0, 10) : kind === "a" ? ALPHABET.slice(10) : ALPHABET).split("")),
  );
  return fc.tuple(...chars).map((bban) => ibanWithCheckDigits(country_code, bban.join("")));
});

describe("IBAN registry table", () => {
  it("has every registry country, each length matching its BBAN structure", () => {
    expect(Object.keys(IBAN_REGISTRY)).toHaveLength(89);
    for (const [code, entry] of Object.entries(IBAN_REGISTRY)) {
      expect(positionKinds(code)).toHaveLength(entry.length);
      expect(findCountry(code), code).toBeDefined();
    }
  });
  it("accepts the registry's example for every country, in electronic and print form", () => {
    expect(REGISTRY_EXAMPLES).toHaveLength(Object.keys(IBAN_REGISTRY).length);
    for (const iban of REGISTRY_EXAMPLES) {
      expect(checkIban(iban), iban).toEqual({ valid: true, iban });
      expect(isValidIban(formatIban(iban)), iban).toBe(true);
      expect(isValidIban(formatIban(iban).toLowerCase()), iban).toBe(true);
    }
  });
  it("accepts the well-known examples of ISO 13616 and the European Commission", () => {
    for (const iban of [
      "GB82WEST12345698765432",
      "DE89370400440532013000",
      "GB82 WEST 1234 5698 7654 32",
      "BR1800360305000010009795493C1",
    ]) {
      expect(isValidIban(iban), iban).toBe(true);
    }
  });
});

describe("normalizeIban and formatIban", () => {
  it("removes every kind of white space and upper-cases", () => {
    expect(normalizeIban(" gb82 west\t1234\u00a05698 7654 32\n")).toBe("GB82WEST12345698765432");
  });
  it("prints groups of four, the last one shorter", () => {
    expect(formatIban("GB82WEST12345698765432")).toBe("GB82 WEST 1234 5698 7654 32");
    expect(formatIban("de89 3704 0044 0532 0130 00")).toBe("DE89 3704 0044 0532 0130 00");
    expect(formatIban("NO9386011117947")).toBe("NO93 8601 1117 947");
  });
});

describe("checkIban refusals", () => {
  it("says why", () => {
    expect(checkIban("GB82WEST12345698765433")).toEqual({ valid: false, reason: "checksum" });
    expect(checkIban("GB82WEST1234569876543")).toEqual({ valid: false, reason: "length" });
    expect(checkIban("GB82WEST123456987654321")).toEqual({ valid: false, reason: "length" });
    expect(checkIban("US64SVBKUS6S3300958879")).toEqual({ valid: false, reason: "country" });
    expect(checkIban("XX82WEST12345698765432")).toEqual({ valid: false, reason: "country" });
    expect(checkIban(ibanWithCheckDigits("GB", "WEST1234569876543A"))).toEqual({ valid: false, reason: "structure" });
    expect(checkIban(ibanWithCheckDigits("DE", "37040044053201300X"))).toEqual({ valid: false, reason: "structure" });
    for (const bad of [
      "",
      "GB",
      "GB8",
      "GBAAWEST12345698765432",
      "12GBWEST12345698765432",
      "GB82-WEST-1234-5698-7654-32",
      "GB82WEST1234569876543é",
    ]) {
      expect(checkIban(bad), bad).toEqual({ valid: false, reason: "format" });
    }
  });
  it("refuses check digits 00, 01 and 99 even where mod 97 would accept them", () => {
    // 00, 01 and 99 are congruent to 97, 98 and 02: find BBANs whose real check digits are those.
    const aliases: Record<string, string> = { "97": "00", "98": "01", "02": "99" };
    const found = new Set<string>();
    for (let n = 0; n < 100_000 && found.size < 3; n++) {
      const valid = ibanWithCheckDigits("DE", `3704004405${String(n).padStart(8, "0")}`);
      const alias = aliases[valid.slice(2, 4)];
      if (!alias || found.has(alias)) continue;
      found.add(alias);
      expect(isValidIban(valid)).toBe(true);
      expect(checkIban(valid.slice(0, 2) + alias + valid.slice(4))).toEqual({ valid: false, reason: "format" });
    }
    expect(found.size).toBe(3);
  });
  it("catches every single changed character of GB82WEST12345698765432 and DE89370400440532013000", () => {
    for (const iban of ["GB82WEST12345698765432", "DE89370400440532013000"]) {
      for (let i = 0; i < iban.length; i++) {
        for (const char of ALPHABET) {
          if (char === iban[i]) continue;
          const changed = iban.slice(0, i) + char + iban.slice(i + 1);
          expect(isValidIban(changed), changed).toBe(false);
        }
      }
    }
  });
});

describe("IBAN properties", () => {
  it("every IBAN built from the registry structure with computed check digits is valid, in any form", () => {
    fc.assert(
      fc.property(validIban, (iban) => {
        expect(checkIban(iban)).toEqual({ valid: true, iban });
        expect(normalizeIban(formatIban(iban))).toBe(iban);
        expect(isValidIban(formatIban(iban).toLowerCase())).toBe(true);
      }),
    );
  });
  it("a valid IBAN with any single character changed fails (bar a letter/digit swap in a free alphanumeric field)", () => {
    fc.assert(
      fc.property(validIban, fc.nat(), fc.constantFrom(...ALPHABET.split("")), (iban, position, char) => {
        const i = position % iban.length;
        fc.pre(char !== iban[i]);
        const changed = iban.slice(0, i) + char + iban.slice(i + 1);
        const swapsKind = isDigit(char) !== isDigit(iban[i]!);
        // The one blind spot of ISO 13616 (about 1 in 97): nothing else may pass.
        if (swapsKind && positionKinds(iban.slice(0, 2))[i] === "c") return;
        expect(isValidIban(changed)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
  it("swapping two adjacent different digits of the BBAN fails", () => {
    fc.assert(
      fc.property(validIban, fc.nat(), (iban, position) => {
        const i = 4 + (position % (iban.length - 5));
        const [a, b] = [iban[i]!, iban[i + 1]!];
        fc.pre(a !== b && isDigit(a) && isDigit(b));
        expect(isValidIban(iban.slice(0, i) + b + a + iban.slice(i + 2))).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});
