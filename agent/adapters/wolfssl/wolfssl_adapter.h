/* Internal to the wolfSSL adapter: the algorithm table entry, the job state,
 * the tables of its kinds and the helpers its files share (adapter.c: entry
 * points, algorithm table, prepare; sym.c: hash, mac, aead, primitives;
 * kex.c; pk.c: sig, pke; pq.c: kem, pqsig; tls.c). */
#ifndef TB_WOLFSSL_ADAPTER_H
#define TB_WOLFSSL_ADAPTER_H

#include "tb/family.h"

#include <wolfssl/wolfcrypt/settings.h>
#include <wolfssl/wolfcrypt/aes.h>
#include <wolfssl/wolfcrypt/asn_public.h>
#include <wolfssl/wolfcrypt/chacha20_poly1305.h>
#include <wolfssl/wolfcrypt/curve25519.h>
#include <wolfssl/wolfcrypt/curve448.h>
#include <wolfssl/wolfcrypt/dh.h>
#include <wolfssl/wolfcrypt/ecc.h>
#include <wolfssl/wolfcrypt/ed25519.h>
#include <wolfssl/wolfcrypt/error-crypt.h>
#include <wolfssl/wolfcrypt/hash.h>
#include <wolfssl/wolfcrypt/hmac.h>
#include <wolfssl/wolfcrypt/random.h>
#include <wolfssl/wolfcrypt/rsa.h>
#ifdef TB_WOLFSSL_PQ
#include <wolfssl/wolfcrypt/wc_mldsa.h>
#include <wolfssl/wolfcrypt/wc_mlkem.h>
#endif
#ifdef TB_WOLFSSL_SLHDSA
#include <wolfssl/wolfcrypt/wc_slhdsa.h>
#endif

#include <string.h>

/* What a user's settings may turn off (tlsbench --config wolfssl=...): the
 * algorithm leaves the table and is reported unsupported. */
#if defined(HAVE_CHACHA) && defined(HAVE_POLY1305)
#define TB_WOLFSSL_CHACHAPOLY 1
#else
#define TB_WOLFSSL_CHACHAPOLY 0
#endif

/* The device wolfCrypt's init calls name: profile "hw" routes hashes to a
 * crypto peripheral's driver through it (hw.c), every other build to none. */
#if defined(TB_WOLFSSL_HW) && TB_WOLFSSL_HW
#define TB_WOLFSSL_DEVID TB_WOLFSSL_HW_DEVID
int tb_wolfssl_hw_register(void);
/* an ECC key of the "hw" build names the device (its ECDSA and ECDH go to the PKA's driver) */
#define TB_WOLFSSL_ECC_INIT(key) wc_ecc_init_ex((key), NULL, TB_WOLFSSL_DEVID)
#else
#define TB_WOLFSSL_HW 0
#define TB_WOLFSSL_DEVID INVALID_DEVID
#define TB_WOLFSSL_ECC_INIT(key) wc_ecc_init(key) /* the other builds' code as before */
#endif

/* ---- Algorithm table ---- */

typedef enum {
    F_HASH, F_HMAC, F_GCM, F_CCM, F_CHACHAPOLY,
    F_X25519, F_X448, F_ECDH, F_FFDHE,
    F_RSA_PKCS1, F_RSA_PSS, F_ECDSA, F_ED25519, F_RSA_PKE,
#ifdef TB_WOLFSSL_PQ /* pq.c; other builds (firmware included) keep their exact code */
    F_MLKEM, F_MLDSA,
#endif
#ifdef TB_WOLFSSL_SLHDSA /* host builds only: a PQ firmware has no SLH-DSA to switch on */
    F_SLHDSA,
#endif
} family;

typedef enum {
    OP_HASH, OP_MAC, OP_ENC, OP_DEC, OP_PUBLIC, OP_KEYGEN, OP_DERIVE, OP_EXCHANGE, OP_SIGN, OP_VERIFY, OP_ENCAPS, OP_DECAPS
} opcode;

typedef struct {
    tb_kind kind;
    const char *name;
    family fam;
    int hash;   /* enum wc_HashType (hash, MAC, signature digest) */
    int size;   /* key bytes (AEAD), element/scalar bytes (kex, ECDSA), modulus bits (RSA), n (SLH-DSA) */
    int param;  /* ECC curve id, ffdhe group */
} alg_info;

/* ---- Job state ---- */

typedef struct {
    tb_family_state base; /* base.out: the result buffer (tb_wolfssl_alloc_out, written through out_buf) */
    const alg_info *alg;
    opcode op;
    tb_bytes msg, aad, nonce, sig, peer; /* copies in one block, msg first (tb_wolfssl_free frees it) */
    uint8_t key[64];      /* ChaCha20-Poly1305 key; clamped X25519/X448 scalar */
    uint8_t digest[WC_MAX_DIGEST_SIZE];
    int live;             /* the union member below needs its free function */
    union {
        Hmac hmac;
        Aes aes;
        struct {
            curve25519_key k, peer;
        } x25519;
        struct {
            curve448_key k, peer;
        } x448;
        struct {
            ecc_key k, peer;
            int peer_live;
        } ecc;
        struct {
            DhKey key;
            uint8_t priv[512], gen[1];
            word32 priv_len;
        } dh;
        RsaKey rsa;
        ed25519_key ed;
#ifdef TB_WOLFSSL_PQ
        MlKemKey mlkem;
        wc_MlDsaKey mldsa;
#endif
#ifdef TB_WOLFSSL_SLHDSA
        SlhDsaKey slhdsa;
#endif
    } u;
} state;

static inline tb_status lib_fail(const char *fn, int ret)
{
    tb_set_error("%s: %s (%d)", fn, wc_GetErrorString(ret), ret);
    return TB_ERROR;
}

/* A verification or decryption that failed on the data, not the library. */
static inline tb_status check_fail(const char *fn, int ret)
{
    if (ret == MEMORY_E || ret == BAD_FUNC_ARG || ret == MISSING_RNG_E || ret == RNG_FAILURE_E) {
        return lib_fail(fn, ret);
    }
    tb_set_error("%s: %s (%d)", fn, wc_GetErrorString(ret), ret);
    return TB_REJECT;
}

static inline tb_status bad_len(const char *what, size_t got, const char *want)
{
    tb_set_error("%s is %zu bytes, expected %s", what, got, want);
    return TB_BAD_INPUT;
}

static inline int hash_size(int type)
{
    return wc_HashGetDigestSize((enum wc_HashType)type);
}

/* Left-pads a big-endian number of len bytes in buf to width bytes. */
static inline void left_pad(uint8_t *buf, word32 len, word32 width)
{
    if (len < width) {
        memmove(buf + (width - len), buf, len);
        memset(buf, 0, width - len);
    }
}

/* The process-wide DRBG (adapter.c). */
extern WC_RNG tb_wolfssl_rng;

/* The result buffer, cap bytes (adapter.c), and the run's pointer into it. */
tb_status tb_wolfssl_alloc_out(state *s, size_t cap);
static inline uint8_t *out_buf(const state *s)
{
    return (uint8_t *)s->base.out; /* allocated here, so writable */
}

/* The core's per-kind operation tables (tb/family.h): sym.c hash, mac,
 * aead; kex.c kex; pk.c sig, pke; pq.c kem, pqsig. */
TB_DECLARE_CLASSIC_FAMILIES(wolfssl);
#ifdef TB_WOLFSSL_PQ
extern const tb_family tb_wolfssl_kem, tb_wolfssl_pqsig;
#endif

/* Non-zero when the algorithm table has alg under kind with op (adapter.c). */
int tb_wolfssl_supports(tb_kind kind, const char *alg, const char *op);
/* A zeroed state for job with fam set and the job's inputs copied, then
 * fill (the family's set-up, untimed) (adapter.c). */
tb_status tb_wolfssl_prepare(const tb_family *fam, const tb_job *job, tb_status (*fill)(state *s, const tb_job *job),
                             tb_family_state **out);
/* Frees the state's inputs, result and itself, after the family freed its key. */
void tb_wolfssl_free(state *s);

/* The table tb_wolfssl_<name> of one kind: supports from the algorithm
 * table, prepare through tb_wolfssl_prepare and fill, and run, the timed
 * call, the library's call itself (no dispatch of ours in between). */
#define TB_WOLFSSL_FAMILY(name, kind, fill_fn, run_fn, release_fn)                                                \
    static int name##_supports(const char *alg, const char *op)                                                  \
    {                                                                                                            \
        return tb_wolfssl_supports(kind, alg, op);                                                               \
    }                                                                                                            \
    static tb_status name##_prepare(const tb_job *job, tb_family_state **out)                                    \
    {                                                                                                            \
        return tb_wolfssl_prepare(&tb_wolfssl_##name, job, fill_fn, out);                                       \
    }                                                                                                            \
    const tb_family tb_wolfssl_##name = {name##_supports, name##_prepare, run_fn, release_fn}

/* The timed calls, one per family of algorithms (named in profiles). */
tb_status tb_wolfssl_hash_run(tb_family_state *base); /* sym.c: hash and HMAC */
tb_status tb_wolfssl_aead_run(tb_family_state *base);
tb_status tb_wolfssl_x25519_run(tb_family_state *base); /* kex.c */
tb_status tb_wolfssl_x448_run(tb_family_state *base);
tb_status tb_wolfssl_ecdh_run(tb_family_state *base);
tb_status tb_wolfssl_ffdhe_run(tb_family_state *base);
tb_status tb_wolfssl_sig_run(tb_family_state *base); /* pk.c */
tb_status tb_wolfssl_pke_run(tb_family_state *base);
#ifdef TB_WOLFSSL_PQ
tb_status tb_wolfssl_pq_run(tb_family_state *base); /* pq.c: ML-KEM, ML-DSA, SLH-DSA */
#endif

#endif
