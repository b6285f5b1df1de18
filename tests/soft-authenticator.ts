import crypto from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

/**
 * A software WebAuthn authenticator for tests (ES256, "none" attestation), written from the
 * WebAuthn Level 3 specification rather than with the library under test: it makes the
 * registration response a browser would send for a new passkey, and assertions over any
 * challenge, origin and RP ID, so tests can also make the wrong ones (another origin, another
 * challenge, a counter that did not move).
 */
const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

function b64url(bytes: Uint8Array | Buffer): string {
  return Buffer.from(bytes).toString("base64url");
}

function sha256(data: Uint8Array | string): Buffer {
  return crypto.createHash("sha256").update(data).digest();
}

function counterBytes(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export interface SoftCredential {
  credential_id: Buffer;
  private_key: crypto.KeyObject;
  public_jwk: { x: string; y: string };
  user_handle: string;
  counter: number;
}

export function newCredential(user_handle = ""): SoftCredential {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" }) as { x: string; y: string };
  return { credential_id: crypto.randomBytes(32), private_key: privateKey, public_jwk: jwk, user_handle, counter: 0 };
}

function coseKey(credential: SoftCredential): Uint8Array {
  const map = new Map<number, number | Uint8Array>([
    [1, 2], // kty: EC2
    [3, -7], // alg: ES256
    [-1, 1], // crv: P-256
    [-2, new Uint8Array(Buffer.from(credential.public_jwk.x, "base64url"))],
    [-3, new Uint8Array(Buffer.from(credential.public_jwk.y, "base64url"))],
  ]);
  return isoCBOR.encode(map);
}

function clientData(type: string, challenge: string, origin: string): string {
  return JSON.stringify({ type, challenge, origin, crossOrigin: false });
}

/** The registration response (`navigator.credentials.create`) for `options.challenge`. */
export function registrationResponse(
  credential: SoftCredential,
  input: { challenge: string; origin: string; rp_id: string; user_verified?: boolean },
) {
  const flags = FLAG_UP | (input.user_verified === false ? 0 : FLAG_UV) | FLAG_AT;
  const id_length = Buffer.alloc(2);
  id_length.writeUInt16BE(credential.credential_id.length);
  const auth_data = Buffer.concat([
    sha256(input.rp_id),
    Buffer.from([flags]),
    counterBytes(credential.counter),
    Buffer.alloc(16), // AAGUID: none
    id_length,
    credential.credential_id,
    Buffer.from(coseKey(credential)),
  ]);
  const attestation = isoCBOR.encode(
    new Map<string, unknown>([
      ["fmt", "none"],
      ["attStmt", new Map()],
      ["authData", new Uint8Array(auth_data)],
    ]) as never,
  );
  const client = clientData("webauthn.create", input.challenge, input.origin);
  return {
    id: b64url(credential.credential_id),
    rawId: b64url(credential.credential_id),
    type: "public-key",
    clientExtensionResults: {},
    response: {
      clientDataJSON: b64url(Buffer.from(client)),
      attestationObject: b64url(attestation),
      transports: ["internal"],
    },
  };
}

/**
 * An assertion (`navigator.credentials.get`) over `challenge`. The counter moves by one first
 * (as a counting authenticator's does) unless `counter` is given.
 */
export function assertion(
  credential: SoftCredential,
  input: { challenge: string; origin: string; rp_id: string; user_verified?: boolean; counter?: number },
) {
  if (input.counter === undefined) credential.counter += 1;
  const count = input.counter ?? credential.counter;
  const flags = FLAG_UP | (input.user_verified === false ? 0 : FLAG_UV);
  const auth_data = Buffer.concat([sha256(input.rp_id), Buffer.from([flags]), counterBytes(count)]);
  const client = Buffer.from(clientData("webauthn.get", input.challenge, input.origin));
  const signature = crypto.sign("sha256", Buffer.concat([auth_data, sha256(client)]), credential.private_key);
  return {
    id: b64url(credential.credential_id),
    rawId: b64url(credential.credential_id),
    type: "public-key",
    clientExtensionResults: {},
    response: {
      clientDataJSON: b64url(client),
      authenticatorData: b64url(auth_data),
      signature: b64url(signature),
      userHandle: b64url(Buffer.from(credential.user_handle)),
    },
  };
}
