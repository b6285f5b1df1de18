import crypto from "node:crypto";

/** 16 bytes (128 bits) of the system's cryptographic randomness per nonce, as the CSP rules ask. */
const NONCE_BYTES = 16;
/** Enough for 256 requests: one call into the random generator instead of one per request. */
const POOL_BYTES = NONCE_BYTES * 256;

let pool = Buffer.alloc(0);
let offset = 0;

/**
 * A fresh Content-Security-Policy nonce (base64) for one response. The bytes come from
 * `crypto.randomBytes`, drawn 4 KiB at a time, and each byte is handed out once: a call of
 * `randomBytes(16)` per request cost about 20 µs of CPU on the bench machine, more than a
 * session's signature check (bench/LOG.md, "Member transfers over HTTP").
 */
export function cspNonce(): string {
  if (offset + NONCE_BYTES > pool.length) {
    pool = crypto.randomBytes(POOL_BYTES);
    offset = 0;
  }
  const nonce = pool.toString("base64", offset, offset + NONCE_BYTES);
  // Written over once used, so a nonce never lingers in memory after its response.
  pool.fill(0, offset, offset + NONCE_BYTES);
  offset += NONCE_BYTES;
  return nonce;
}
