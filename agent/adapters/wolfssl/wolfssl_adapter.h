/* Internal to the wolfSSL adapter: the algorithm table entry, the job state
 * and the helpers its files share (adapter.c: entry points, table, dispatch;
 * sym.c: hash, mac, aead, primitives; kex.c; pk.c: sig, pke; tls.c). */
#ifndef TB_WOLFSSL_ADAPTER_H
#define TB_WOLFSSL_ADAPTER_H

#include "tb/adapter.h"

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
    const alg_info *alg;
    opcode op;
    tb_bytes msg, aad, nonce, sig, peer; /* copies owned by inputs */
    uint8_t *inputs;
    uint8_t *out;
    size_t out_len;
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

/* s->out, cap bytes (adapter.c). */
tb_status tb_wolfssl_alloc_out(state *s, size_t cap);

/* Per family: set-up (untimed) and the measured operation. */
tb_status tb_wolfssl_hash_prepare(state *s, const tb_job *job); /* sym.c: hash and HMAC */
tb_status tb_wolfssl_hash_run(state *s);
tb_status tb_wolfssl_aead_prepare(state *s, const tb_job *job);
tb_status tb_wolfssl_aead_run(state *s);
tb_status tb_wolfssl_kex_prepare(state *s, const tb_job *job); /* kex.c */
tb_status tb_wolfssl_x25519_run(state *s);
tb_status tb_wolfssl_x448_run(state *s);
tb_status tb_wolfssl_ecdh_run(state *s);
tb_status tb_wolfssl_ffdhe_run(state *s);
tb_status tb_wolfssl_rsa_prepare(state *s, const tb_job *job); /* pk.c */
tb_status tb_wolfssl_ecdsa_prepare(state *s, const tb_job *job);
tb_status tb_wolfssl_ed25519_prepare(state *s, const tb_job *job);
tb_status tb_wolfssl_sig_run(state *s);
tb_status tb_wolfssl_pke_run(state *s);
#ifdef TB_WOLFSSL_PQ
tb_status tb_wolfssl_pq_prepare(state *s, const tb_job *job); /* pq.c: ML-KEM, ML-DSA */
tb_status tb_wolfssl_pq_run(state *s);
void tb_wolfssl_pq_free(state *s);
#endif

#endif
