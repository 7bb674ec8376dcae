/**
 * One ACME order (RFC 8555) with acme-client: account, order, HTTP-01 for every name, finalize,
 * download. The HTTP-01 answers go to `challenges` (the database, so that whichever node the CA
 * reaches answers); nothing here listens or resolves names itself.
 */
import acme from "acme-client";

/** Where pending HTTP-01 answers are published while the order runs. */
export interface ChallengePublisher {
  put(token: string, keyAuthorization: string): Promise<void>;
  remove(token: string): Promise<void>;
}

export interface OrderRequest {
  directoryUrl: string;
  email: string;
  /** PEM of the ACME account's key (the same for every node and every order). */
  accountKeyPem: string;
  /** The names, the first being the subject's common name. */
  domains: string[];
  challenges: ChallengePublisher;
  /** The whole order fails after this long. */
  timeoutMs: number;
  /** The first wait between status polls of a step (doubling, up to 30 s): POSTHORN_ACME_POLL_MS. */
  pollMs: number;
}

export interface OrderedCertificate {
  /** PEM chain as the CA sent it, leaf first. */
  certPem: string;
  keyPem: string;
}

/** A new account key: ECDSA P-256, as small as JWS signatures get. */
export async function newAccountKey(): Promise<string> {
  return (await acme.crypto.createPrivateEcdsaKey("P-256")).toString();
}

/**
 * Orders a certificate for `domains`. The certificate's key is RSA-2048: every SMTP client that
 * does STARTTLS at all can use it, which is not true of ECDSA for some old ones.
 */
export async function orderCertificate(req: OrderRequest): Promise<OrderedCertificate> {
  const client = new acme.Client({ directoryUrl: req.directoryUrl, accountKey: req.accountKeyPem, backoffMin: req.pollMs, backoffMax: Math.max(req.pollMs, 30_000) });
  const key = await acme.crypto.createPrivateRsaKey(2048);
  const [, csr] = await acme.crypto.createCsr({ commonName: req.domains[0], altNames: req.domains }, key);
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the ACME order did not finish within ${Math.round(req.timeoutMs / 1000)} s`)), req.timeoutMs);
  });
  try {
    const certPem = await Promise.race([
      client.auto({
        csr,
        email: req.email,
        // Setting POSTHORN_ACME_EMAIL is the operator's agreement to the CA's terms (README).
        termsOfServiceAgreed: true,
        challengePriority: ["http-01"],
        // acme-client's own pre-check fetches the token through the system resolver from here;
        // the CA's validation is the one that counts.
        skipChallengeVerification: true,
        challengeCreateFn: async (_authz, challenge, keyAuthorization) => req.challenges.put(challenge.token, keyAuthorization),
        challengeRemoveFn: async (_authz, challenge) => req.challenges.remove(challenge.token),
      }),
      timeout,
    ]);
    return { certPem, keyPem: key.toString() };
  } finally {
    clearTimeout(timer);
  }
}
