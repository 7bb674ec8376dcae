import { generateKeyPair, generateKeyPairSync } from "node:crypto";

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
