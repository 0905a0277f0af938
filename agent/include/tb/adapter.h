/*
 * The one contract every library adapter meets (the SUPERCOP idea: one shape
 * per primitive family, measured by shared code, never by adapter code).
 *
 * A benchmark or a check is a *job*: the core fills a tb_job, the adapter
 * prepares it (untimed: key schedules, contexts, key parsing), the core calls
 * run() as often as it needs (timed), reads result() once, and releases it.
 *
 * Kinds, algorithms and operations (names are canonical, see core/catalog.c):
 *
 * hash  op "hash"     msg -> digest
 * mac   op "mac"      key, msg -> tag                       (hmac-sha256)
 * aead  op "encrypt"  key, nonce, aad, msg=plaintext -> ciphertext || tag(16)
 *       op "decrypt"  key, nonce, aad, msg=ciphertext||tag -> plaintext,
 *                     TB_REJECT when the tag does not verify.
 *       aes-128-cbc-hmac-sha1 / -sha256 are the TLS 1.2 MAC-then-encrypt
 *       shape: key = enc_key(16) || mac_key(20 | 32), nonce = IV(16),
 *       aad = the 13-byte TLS MAC header; encrypt outputs
 *       AES-CBC(IV, msg || HMAC(mac_key, aad || msg) || TLS padding), where
 *       TLS padding is p+1 bytes of value p, the fewest that reach a 16-byte
 *       multiple. decrypt checks padding and MAC (TB_REJECT on mismatch).
 *       The core composes these two from primitives (core/composite.c,
 *       tb_prim_ops below): an adapter's own prepare/run never see them.
 * kex   op "public"   key=private -> public
 *       op "keygen"   fresh key pair from the library RNG -> public
 *       op "derive"   key=private, peer=peer public -> shared secret
 *       op "exchange" keygen then derive with peer -> shared secret
 *       In "derive" and "exchange", run() starts from the peer's public
 *       value as bytes: decoding it and the checks the library's TLS code
 *       applies to a received key share are part of the timed operation (a
 *       handshake pays them per connection). Only the own private key (for
 *       derive) is set up in prepare().
 *       x25519/x448: RFC 7748 byte strings. p256/p384: private = big-endian
 *       scalar, public = 0x04 || X || Y, secret = X. ffdhe2048/ffdhe3072
 *       (RFC 7919 groups): private = big-endian exponent, public and secret
 *       big-endian left-padded to the prime length (RFC 8446 7.4.1).
 * sig   op "sign"     key, msg -> signature (the adapter hashes msg)
 *       op "verify"   key, msg, sig -> TB_OK or TB_REJECT
 *       rsa*: key = PKCS#1 RSAPrivateKey DER; pss uses MGF1 with the same
 *       hash and salt length = hash length. ecdsa-*: key = big-endian
 *       scalar, pub = 0x04||X||Y, signature = DER (X9.62). ed25519: key =
 *       32-byte seed, pub = 32 bytes, pure Ed25519 (RFC 8032).
 * pke   op "encrypt"  key = PKCS#1 RSAPrivateKey DER (its public half is
 *                     used), msg -> PKCS#1 v1.5 ciphertext
 *       op "decrypt"  key, msg=ciphertext -> plaintext, TB_REJECT on bad
 *                     padding.
 *
 * kem   ML-KEM-512/768/1024 (FIPS 203), every input given, so every output
 *       is deterministic (and checked against published vectors):
 *       op "keygen"  key = 64-byte seed d || z -> encapsulation key
 *                    (ML-KEM.KeyGen_internal; expanding a stored seed is
 *                    what a device does with its key, and it costs the same
 *                    as a fresh key pair)
 *       op "encaps"  pub = encapsulation key (decoded in prepare), nonce =
 *                    32-byte m -> ciphertext || 32-byte shared secret
 *       op "decaps"  key = seed, msg = ciphertext -> shared secret (implicit
 *                    rejection: a wrong ciphertext gives a pseudo-random
 *                    secret, not an error)
 * pqsig ML-DSA-44/65/87 (FIPS 204), pure, empty context, deterministic
 *       (rnd = 32 zero bytes, FIPS 204 3.4's deterministic variant):
 *       op "keygen"  key = 32-byte seed xi -> public key
 *       op "sign"    key = seed, msg -> signature; or key = FIPS 204's
 *                    encoded private key (skEncode: 2,560 / 4,032 / 4,896
 *                    bytes), as published signing answers give it (checks
 *                    only: the benchmark signs with a seed's key)
 *       op "verify"  pub, msg, sig -> TB_OK or TB_REJECT
 *       Host agents only (no firmware library has them: TB_BARE_METAL
 *       images keep the catalog they had).
 *
 * Fields an operation does not use are empty (len 0). Adapters never print.
 */
#ifndef TB_ADAPTER_H
#define TB_ADAPTER_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    TB_OK = 0,
    TB_UNSUPPORTED = 1, /* the library (as built) lacks this algorithm/op */
    TB_ERROR = 2,       /* a library call failed: see tb_set_error() */
    TB_BAD_INPUT = 3,   /* the job is malformed (wrong key length, ...) */
    TB_REJECT = 4,      /* authentication / verification / padding failed */
} tb_status;

typedef enum {
    TB_KIND_HASH,
    TB_KIND_MAC,
    TB_KIND_AEAD,
    TB_KIND_KEX,
    TB_KIND_SIG,
    TB_KIND_PKE,
#if !defined(TB_BARE_METAL) || defined(TB_FIRMWARE_PQ) /* CMakeLists.txt */
    TB_KIND_KEM,
    TB_KIND_PQSIG,
#endif
    TB_KIND_COUNT
} tb_kind;

typedef struct {
    const uint8_t *data;
    size_t len;
} tb_bytes;

typedef struct {
    tb_kind kind;
    const char *alg; /* canonical algorithm name, e.g. "aes-128-gcm" */
    const char *op;  /* canonical operation name, e.g. "encrypt" */
    tb_bytes key;
    tb_bytes pub;
    tb_bytes peer;
    tb_bytes nonce;
    tb_bytes aad;
    tb_bytes msg;
    tb_bytes sig;
    /* AEAD only: 1 sets the key again, with the nonce, before every
     * operation (what `openssl speed` times per AEAD operation); TLS and the
     * benchmark's own cases key once (0). An adapter that cannot refuses it
     * with tb_refuse_rekey(). */
    int rekey;
} tb_job;

typedef struct tb_adapter {
    const char *name; /* "openssl", "mbedtls", ... */
    /* Once per process: library init, RNG seeding, allocator hooks. */
    tb_status (*init)(void);
    /* The library's own run-time version string. */
    const char *(*version)(void);
    /* How this build of the library is configured (config header, backend). */
    const char *(*config)(void);
    /* Non-zero when the library, as built, can do alg/op at all. */
    int (*supports)(tb_kind kind, const char *alg, const char *op);
    /* Untimed set-up; on success *state is owned by the adapter. */
    tb_status (*prepare)(const tb_job *job, void **state);
    /* The measured operation. Called many times on one prepared state. */
    tb_status (*run)(void *state);
    /* Output of the last successful run(); valid until release(). */
    tb_status (*result)(void *state, tb_bytes *out);
    void (*release)(void *state);
    /* Untimed, after tb_platform_seed_restart() put a deterministic seed
     * stream back at its start: rebuilds the library's generator from it, so
     * every repeat draws the same numbers (core: tb_rng_restart). */
    tb_status (*reseed)(void);
} tb_adapter;

/* Each adapter defines exactly this one object, in its adapter.c, with
 * TB_DEFINE_ADAPTER("<name>") from static functions adapter_<member>
 * (adapter_init, adapter_version, ... adapter_release): one shape for every
 * library (agent/adapters/README.md). */
extern const tb_adapter tb_library;
/* Restarts the platform's deterministic seed and the library's generator
 * (nothing where the seed is the OS's); the core calls it, untimed, before
 * every measured batch and every handshake. */
tb_status tb_rng_restart(void);
/* adapter_reseed of a library that draws from its own DRBG, seeded from the
 * OS (host only): a restarted platform seed does not reach it, so there is
 * nothing to rebuild; or, with a fixed seed, of one whose generator draws
 * the platform's stream itself (OpenSSL's adapter). */
#define TB_DEFINE_RESEED_NOTHING()                                                                                \
    static tb_status adapter_reseed(void)                                                                         \
    {                                                                                                              \
        return TB_OK;                                                                                              \
    }
#define TB_DEFINE_ADAPTER(name)                                                                                    \
    const tb_adapter tb_library = {(name),           adapter_init,   adapter_version, adapter_config, adapter_supports, \
                                   adapter_prepare, adapter_run,    adapter_result,  adapter_release, \
                                   adapter_reseed}

/*
 * Primitives the core composes (core/composite.c builds the TLS 1.2
 * MAC-then-encrypt record, aes-128-cbc-hmac-*, from them, once for every
 * library). The adapter only wraps its library's calls: no padding, no
 * checks, no copies of its own inside the *_run functions.
 *
 * cipher  alg "aes-128-cbc": AES-CBC without padding on whole 16-byte
 *         blocks. cipher_new does the key schedule (untimed); cipher_run
 *         starts from iv (16 bytes, left unchanged), len is a multiple of
 *         16, in and out may be the same buffer.
 * mac     alg "hmac-sha1" / "hmac-sha256": mac_new sets the key (untimed);
 *         each mac_run is one complete HMAC over a || b into tag (the
 *         hash's output length).
 */
typedef struct {
    /* Non-zero when this build of the library has the primitive. */
    int (*supports)(const char *alg);
    tb_status (*cipher_new)(const char *alg, tb_bytes key, int decrypt, void **ctx);
    tb_status (*cipher_run)(void *ctx, const uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len);
    void (*cipher_free)(void *ctx);
    tb_status (*mac_new)(const char *alg, tb_bytes key, void **ctx);
    tb_status (*mac_run)(void *ctx, tb_bytes a, tb_bytes b, uint8_t *tag);
    void (*mac_free)(void *ctx);
} tb_prim_ops;

/* Each adapter defines this object in its sym.c with TB_DEFINE_PRIMS() from
 * static functions prim_<member>; the core links a weak empty default for
 * those without, whose composites are then unsupported. */
extern const tb_prim_ops tb_library_prims;
#define TB_DEFINE_PRIMS()                                                                                          \
    const tb_prim_ops tb_library_prims = {prim_supports, prim_cipher_new, prim_cipher_run, prim_cipher_free,       \
                                          prim_mac_new,  prim_mac_run,    prim_mac_free}

/* Adapters report why a call failed; the core sends it with the result. */
void tb_set_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* The same without formatting (no printf: usable inside malloc, and it
 * keeps printf out of minimal size-probe images). */
void tb_set_error_text(const char *text);
const char *tb_last_error(void);
void tb_clear_error(void);
/* The request ran out of memory (an allocation failed, a buffer is too
 * small): its end record says no_room instead of error or bad_input.
 * Cleared when the end record is sent; usable inside malloc. */
void tb_note_no_room(void);
int tb_ran_out_of_room(void);
void tb_clear_no_room(void);

#endif
