/**
 * RSA-SHA256 signatures (RSASSA-PKCS1-v1_5, the DKIM rsa-sha256 algorithm) made by the system's
 * OpenSSL 3 (libcrypto.so.3, through bun:ffi). Bun's own crypto is BoringSSL, which has no
 * AVX-512 IFMA code for RSA: on a CPU with it (AMD Zen 4, Intel Ice Lake and later) OpenSSL
 * signs with a 2048-bit key in about half the time, and where it lacks it OpenSSL is a little
 * slower than BoringSSL. dkim.ts times both once and keeps the faster (chooseRsaLibrary there).
 *
 * The signature is deterministic (PKCS #1 v1.5): the same key and data give the same bytes
 * whichever library makes it. Calls are synchronous, on the calling thread.
 */
import { dlopen, FFIType, ptr, type Pointer } from "bun:ffi";

const SYMBOLS = {
  BIO_new_mem_buf: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.ptr },
  BIO_free: { args: [FFIType.ptr], returns: FFIType.i32 },
  PEM_read_bio_PrivateKey: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
  EVP_PKEY_free: { args: [FFIType.ptr], returns: FFIType.void },
  EVP_PKEY_get_base_id: { args: [FFIType.ptr], returns: FFIType.i32 },
  EVP_PKEY_CTX_new: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
  EVP_PKEY_CTX_free: { args: [FFIType.ptr], returns: FFIType.void },
  EVP_PKEY_sign_init: { args: [FFIType.ptr], returns: FFIType.i32 },
  EVP_PKEY_CTX_set_rsa_padding: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  EVP_PKEY_CTX_set_signature_md: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  EVP_sha256: { args: [], returns: FFIType.ptr },
  EVP_PKEY_sign: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.u64], returns: FFIType.i32 },
  ERR_clear_error: { args: [], returns: FFIType.void },
  OpenSSL_version: { args: [FFIType.i32], returns: FFIType.cstring },
} as const;

type Libcrypto = ReturnType<typeof dlopen<typeof SYMBOLS>>["symbols"];

const EVP_PKEY_RSA = 6;
const RSA_PKCS1_PADDING = 1;

export class OpensslRsa {
  /** A signing context per PEM, ready for EVP_PKEY_sign (the key parsed once). */
  private readonly contexts = new Map<string, { ctx: Pointer; pkey: Pointer }>();
  private readonly signature = new Uint8Array(1024);
  private readonly length = new BigUint64Array(1);
  /** The passphrase for PEM_read_bio_PrivateKey: empty, so that an encrypted key fails instead of prompting on a terminal. */
  private readonly noPassphrase = new Uint8Array(1);

  private constructor(
    private readonly lib: Libcrypto,
    readonly version: string,
    /** Signing contexts kept; beyond this many keys the oldest is freed. */
    private readonly maxKeys: number,
  ) {}

  /** The system's libcrypto.so.3, or null where there is none (or it is not OpenSSL 3). */
  static load(maxKeys = 1000): OpensslRsa | null {
    try {
      const lib = dlopen("libcrypto.so.3", SYMBOLS).symbols;
      return new OpensslRsa(lib, String(lib.OpenSSL_version(0)), maxKeys);
    } catch {
      return null;
    }
  }

  /** The signature of SHA-256(data) with the RSA key `pem` (PKCS #8); null when OpenSSL cannot make it (the caller signs another way). */
  sign(pem: string, data: Uint8Array): Buffer | null {
    const key = this.contexts.get(pem) ?? this.open(pem);
    if (!key) return null;
    const digest = new Bun.CryptoHasher("sha256").update(data).digest();
    this.length[0] = BigInt(this.signature.length);
    if (this.lib.EVP_PKEY_sign(key.ctx, ptr(this.signature), ptr(this.length), ptr(digest), digest.length) !== 1) {
      this.lib.ERR_clear_error();
      return null;
    }
    return Buffer.from(this.signature.subarray(0, Number(this.length[0])));
  }

  /** Frees every key and context. */
  close(): void {
    for (const pem of [...this.contexts.keys()]) this.drop(pem);
  }

  private open(pem: string): { ctx: Pointer; pkey: Pointer } | null {
    const lib = this.lib;
    const text = Buffer.from(pem);
    if (text.length === 0) return null; // bun:ffi has no pointer to an empty buffer
    const bio = lib.BIO_new_mem_buf(ptr(text), text.length);
    if (!bio) return null;
    const pkey = lib.PEM_read_bio_PrivateKey(bio, null, null, ptr(this.noPassphrase));
    lib.BIO_free(bio);
    if (!pkey) {
      lib.ERR_clear_error();
      return null;
    }
    const ctx = lib.EVP_PKEY_get_base_id(pkey) === EVP_PKEY_RSA ? lib.EVP_PKEY_CTX_new(pkey, null) : null;
    if (
      !ctx ||
      lib.EVP_PKEY_sign_init(ctx) !== 1 ||
      lib.EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) !== 1 ||
      lib.EVP_PKEY_CTX_set_signature_md(ctx, lib.EVP_sha256()) !== 1
    ) {
      if (ctx) lib.EVP_PKEY_CTX_free(ctx);
      lib.EVP_PKEY_free(pkey);
      lib.ERR_clear_error();
      return null;
    }
    if (this.contexts.size >= this.maxKeys) this.drop(this.contexts.keys().next().value!);
    const key = { ctx: ctx as Pointer, pkey: pkey as Pointer };
    this.contexts.set(pem, key);
    return key;
  }

  private drop(pem: string): void {
    const key = this.contexts.get(pem);
    if (!key) return;
    this.contexts.delete(pem);
    this.lib.EVP_PKEY_CTX_free(key.ctx);
    this.lib.EVP_PKEY_free(key.pkey);
  }
}
