/**
 * A small city database in the MaxMind DB format (https://maxmind.github.io/MaxMind-DB/), written
 * here because no npm package ships a test database or a writer and the tests download nothing: an IPv4 search tree with 24-bit records, a data section of
 * GeoIP2-City-shaped records, and the metadata. The app reads it with the `maxmind` library, so
 * the file is read back by code other than the code that wrote it.
 */

export interface CityFixture {
  /** An IPv4 network, "81.2.69.0/24". Networks must not overlap. */
  network: string;
  city: string;
  subdivision_code?: string;
  subdivision?: string;
  country_code: string;
  country: string;
}

type Kind = "uint16" | "uint32" | "uint64";

/** A number with its MaxMind type: plain numbers are written as uint32. */
class Typed {
  constructor(
    readonly kind: Kind,
    readonly value: number | bigint,
  ) {}
}

type Value = string | number | bigint | Typed | Value[] | { [key: string]: Value };

const TYPE = { utf8_string: 2, uint16: 5, uint32: 6, map: 7, uint64: 9, array: 11 } as const;

function control(type: number, size: number): Buffer {
  const extended = type > 7;
  const first = (extended ? 0 : type) << 5;
  const parts: number[] = [];
  if (size < 29) parts.push(first | size);
  else if (size < 29 + 256) parts.push(first | 29, size - 29);
  else throw new Error("fixture value too large");
  if (extended) parts.splice(1, 0, type - 7);
  return Buffer.from(parts);
}

function unsigned(type: number, value: bigint): Buffer {
  const bytes: number[] = [];
  for (let v = value; v > 0n; v >>= 8n) bytes.unshift(Number(v & 0xffn));
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

function encode(value: Value): Buffer {
  if (value instanceof Typed) return unsigned(TYPE[value.kind], BigInt(value.value));
  if (typeof value === "string") {
    const text = Buffer.from(value, "utf8");
    return Buffer.concat([control(TYPE.utf8_string, text.length), text]);
  }
  if (typeof value === "number" || typeof value === "bigint") return unsigned(TYPE.uint32, BigInt(value));
  if (Array.isArray(value)) return Buffer.concat([control(TYPE.array, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([control(TYPE.map, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])]);
}

function record(place: CityFixture): Value {
  const names = (en: string) => ({ en });
  const answer: { [key: string]: Value } = {
    city: { names: names(place.city) },
    country: { iso_code: place.country_code, names: names(place.country) },
  };
  if (place.subdivision_code)
    answer.subdivisions = [{ iso_code: place.subdivision_code, names: names(place.subdivision ?? "") }];
  return answer;
}

/** The database file's bytes. */
export function cityDatabase(places: CityFixture[]): Buffer {
  // The search tree: node 0 is the root; a record is a node number, EMPTY, or a data offset.
  const EMPTY = -1;
  const nodes: [number, number][] = [[EMPTY, EMPTY]];
  const data: Buffer[] = [];
  const leaves: { node: number; side: 0 | 1; data_offset: number }[] = [];
  let data_length = 0;
  for (const place of places) {
    const [address, bits] = place.network.split("/");
    const prefix = Number(bits);
    const ip = address!.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
    let node = 0;
    for (let depth = 0; depth < prefix - 1; depth++) {
      const side = (Math.floor(ip / 2 ** (31 - depth)) & 1) as 0 | 1;
      if (nodes[node]![side] === EMPTY) {
        nodes.push([EMPTY, EMPTY]);
        nodes[node]![side] = nodes.length - 1;
      }
      node = nodes[node]![side];
    }
    const side = (Math.floor(ip / 2 ** (31 - (prefix - 1))) & 1) as 0 | 1;
    const encoded = encode(record(place));
    leaves.push({ node, side, data_offset: data_length });
    nodes[node]![side] = -2; // a leaf, filled in below once the node count is known
    data.push(encoded);
    data_length += encoded.length;
  }
  const node_count = nodes.length;
  for (const leaf of leaves) nodes[leaf.node]![leaf.side] = node_count + 16 + leaf.data_offset;
  const tree = Buffer.alloc(node_count * 6);
  nodes.forEach(([left, right], i) => {
    tree.writeUIntBE(left === EMPTY ? node_count : left, i * 6, 3);
    tree.writeUIntBE(right === EMPTY ? node_count : right, i * 6 + 3, 3);
  });
  const metadata = encode({
    binary_format_major_version: new Typed("uint16", 2),
    binary_format_minor_version: new Typed("uint16", 0),
    build_epoch: new Typed("uint64", 1_764_720_000n),
    database_type: "GeoIP2-City",
    description: { en: "Mutual test city database" },
    ip_version: new Typed("uint16", 4),
    languages: ["en"],
    node_count: new Typed("uint32", node_count),
    record_size: new Typed("uint16", 24),
  });
  return Buffer.concat([
    tree,
    Buffer.alloc(16),
    ...data,
    Buffer.from([0xab, 0xcd, 0xef]),
    Buffer.from("MaxMind.com"),
    metadata,
  ]);
}
