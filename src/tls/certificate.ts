/**
 * A certificate and its key as the listeners serve them, read and checked once: the chain parses,
 * the key belongs to the first certificate, and the validity is known.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { EventEmitter } from "node:events";
import { sha256Hex } from "../ids.ts";

export type CertificateSource = "file" | "acme";

export interface ServedCertificate {
  /** PEM chain, leaf first. */
  certPem: string;
  keyPem: string;
  /** sha256 of certPem, hex. */
  fingerprint: string;
  /** DNS names of the leaf (subjectAltName). */
  names: string[];
  issuer: string;
  notBefore: number;
  notAfter: number;
  source: CertificateSource;
}

export class InvalidCertificateError extends Error {
  override name = "InvalidCertificateError";
}

export const certificateFingerprint = (certPem: string) => sha256Hex(certPem);

/** Parses a PEM chain and its key; throws InvalidCertificateError when they are unusable together. */
export function parseCertificate(certPem: string, keyPem: string, source: CertificateSource): ServedCertificate {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certPem);
  } catch (err) {
    throw new InvalidCertificateError(`the certificate is not a PEM X.509 certificate (${(err as Error).message})`);
  }
  let matches: boolean;
  try {
    matches = leaf.checkPrivateKey(createPrivateKey(keyPem));
  } catch (err) {
    throw new InvalidCertificateError(`the key is not a PEM private key (${(err as Error).message})`);
  }
  if (!matches) throw new InvalidCertificateError("the key does not belong to the certificate");
  const names = (leaf.subjectAltName ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.startsWith("DNS:"))
    .map((s) => s.slice(4));
  return {
    certPem,
    keyPem,
    fingerprint: certificateFingerprint(certPem),
    names,
    issuer: leaf.issuer.replace(/\n/g, ", "),
    notBefore: Date.parse(leaf.validFrom),
    notAfter: Date.parse(leaf.validTo),
    source,
  };
}

/**
 * When a certificate valid from notBefore to notAfter is renewed: 30 days before it expires, or
 * with a third of its lifetime left when that is sooner (short-lived certificates), as certbot does.
 */
export function renewalTime(notBefore: number, notAfter: number): number {
  const lifetime = Math.max(0, notAfter - notBefore);
  return notAfter - Math.min(30 * 86_400_000, Math.floor(lifetime / 3));
}

/**
 * The certificate this node serves right now, with a change event for the listeners that load it
 * (HTTPS, both SMTP listeners' STARTTLS). Null until one is loaded.
 */
export class LiveCertificate {
  private value: ServedCertificate | null = null;
  private readonly events = new EventEmitter();

  get current(): ServedCertificate | null {
    return this.value;
  }

  /** Serves `cert` from now on; listeners hear of it unless it is the one already served. */
  set(cert: ServedCertificate): void {
    if (this.value?.fingerprint === cert.fingerprint && this.value.keyPem === cert.keyPem) return;
    this.value = cert;
    this.events.emit("change", cert);
  }

  /** Calls `apply` with the current certificate (if any) and with every later one. */
  follow(apply: (cert: ServedCertificate) => void): () => void {
    this.events.on("change", apply);
    if (this.value) apply(this.value);
    return () => this.events.off("change", apply);
  }
}
