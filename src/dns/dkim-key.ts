import { generateKeyPair, generateKeyPairSync, type KeyObject } from "node:crypto";

/** A fresh RSA-2048 DKIM key pair: PKCS#8 PEM to sign with, base64 SPKI for the p= tag. */
export function generateDkimKeyPair(): { privateKeyPem: string; publicKeyBase64: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyBase64: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
  };
}

/** The DKIM TXT record content for a public key. */
export const dkimRecordContent = (publicKeyBase64: string): string => `v=DKIM1; k=rsa; p=${publicKeyBase64}`;

/** As generateDkimKeyPair, without blocking the event loop for the ~100 ms RSA key generation. */
export function generateDkimKeyPairAsync(): Promise<{ privateKeyPem: string; publicKeyBase64: string }> {
  return new Promise((resolve, reject) =>
    generateKeyPair("rsa", { modulusLength: 2048 }, (err, publicKey, privateKey) => {
      if (err) return reject(err);
      resolve({
        privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        publicKeyBase64: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
      });
    }),
  );
}

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it. */
const ED25519_SPKI_PREFIX_LENGTH = 12;

/**
 * A fresh Ed25519 DKIM key pair (RFC 8463): PKCS#8 PEM to sign with, and for the p= tag the
 * base64 of the raw 32-byte public key (not SPKI, unlike RSA: RFC 8463 §4.2). Generating one
 * takes tens of microseconds, so there is no asynchronous twin.
 */
export function generateEd25519DkimKeyPair(): { privateKeyPem: string; publicKeyBase64: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return { privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(), publicKeyBase64: rawEd25519PublicKey(publicKey) };
}

const rawEd25519PublicKey = (publicKey: KeyObject): string =>
  publicKey.export({ type: "spki", format: "der" }).subarray(ED25519_SPKI_PREFIX_LENGTH).toString("base64");

/** The Ed25519 DKIM TXT record content: k= is required, as receivers read a missing k= as rsa. */
export const ed25519DkimRecordContent = (publicKeyBase64: string): string => `v=DKIM1; k=ed25519; p=${publicKeyBase64}`;
