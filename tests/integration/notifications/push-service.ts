import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local push service for the tests: records what the app posts, answers with the status the test
 * chooses, and reads each push as a browser would, with node:crypto only (not web-push): the
 * payload decrypted by RFC 8291 (aes128gcm, RFC 8188) with the subscription's private key, and
 * the VAPID JWT (RFC 8292) checked against the key it names.
 */
export interface ReceivedPush {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface LocalPushService {
  origin: string;
  received: ReceivedPush[];
  /** The status to answer next (201 unless set). */
  answer: (path: string) => number;
  setAnswer: (fn: (path: string) => number) => void;
  close: () => Promise<void>;
}

/** On `port` when given (a browser test's server is told it beforehand), else any free port. */
export async function startPushService(port = 0): Promise<LocalPushService> {
  const received: ReceivedPush[] = [];
  let answer = (_path: string) => 201;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = answer(req.url ?? "");
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${address.port}`,
    received,
    answer: (p) => answer(p),
    setAnswer: (fn) => {
      answer = fn;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A browser's side of a subscription: its ECDH key pair and auth secret, and the JSON it hands the page. */
export function browserSubscription(endpoint: string) {
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = crypto.randomBytes(16);
  return {
    ecdh,
    auth,
    json: {
      endpoint,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
    },
  };
}

const hmac = (key: Buffer, data: Buffer) => crypto.createHmac("sha256", key).update(data).digest();

/** RFC 8291 section 3.4 and RFC 8188: the plaintext of a one-record aes128gcm push. */
export function decryptPush(body: Buffer, ua: { ecdh: crypto.ECDH; auth: Buffer }): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const as_public = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  if (rs < 18 || ciphertext.length > rs) throw new Error("not one record");
  const ua_public = ua.ecdh.getPublicKey();
  const ecdh_secret = ua.ecdh.computeSecret(as_public);
  const key_info = Buffer.concat([Buffer.from("WebPush: info\0"), ua_public, as_public]);
  const ikm = hmac(hmac(ua.auth, ecdh_secret), Buffer.concat([key_info, Buffer.from([1])]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from("Content-Encoding: aes128gcm\0\x01", "binary")).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from("Content-Encoding: nonce\0\x01", "binary")).subarray(0, 12);
  const decipher = crypto.createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record's padding: a 0x02 delimiter, then zeros.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("no last-record delimiter");
  return padded.subarray(0, end).toString("utf8");
}

/** RFC 8292: `vapid t=<JWT>, k=<public key>`; the JWT's ES256 signature checked against k. Returns its claims. */
export function verifyVapid(authorization: string | undefined, public_key_b64url: string) {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? "");
  if (!match) throw new Error(`not a VAPID Authorization header: ${authorization}`);
  const [, jwt, k] = match;
  if (k !== public_key_b64url) throw new Error("k is not the server's VAPID public key");
  const [header, claims, signature] = jwt!.split(".");
  const point = Buffer.from(k!, "base64url");
  const key = crypto.createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url"),
    },
    format: "jwk",
  });
  const valid = crypto.verify(
    "sha256",
    Buffer.from(`${header}.${claims}`),
    { key, dsaEncoding: "ieee-p1363" },
    Buffer.from(signature!, "base64url"),
  );
  if (!valid) throw new Error("the VAPID signature does not verify");
  const head = JSON.parse(Buffer.from(header!, "base64url").toString()) as { alg: string; typ: string };
  if (head.alg !== "ES256") throw new Error("not ES256");
  return JSON.parse(Buffer.from(claims!, "base64url").toString()) as { aud: string; exp: number; sub: string };
}
