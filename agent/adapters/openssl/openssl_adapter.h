/* Internal to the OpenSSL adapter: the prepared-job state and the helpers
 * its files share (adapter.c: entry points; sym.c: hashes, HMAC, AEADs,
 * primitives; kex.c: key exchange; pk.c: signatures and RSA encryption;
 * tls.c: TLS). */
#ifndef TB_OPENSSL_ADAPTER_H
#define TB_OPENSSL_ADAPTER_H

#include "tb/adapter.h"
#include "tb/family.h"
#include "tb/util.h"

#include <openssl/evp.h>

#define OUT_MAX (16384 + 512)

/* One state for every kind; the core's header (tb/family.h) first, its
 * out pointing at buf once a family reserves it. */
typedef struct {
    tb_family_state base;
    char alg[32];
    tb_kind kind;
    int op;
    /* hash / mac */
    const EVP_MD *md;
    EVP_MD *fetched;
    EVP_MAC_CTX *mac;
    /* aead */
    const EVP_CIPHER *cipher;
    EVP_CIPHER_CTX *cctx;
    int ccm;
    int rekey; /* set the key again before every operation (the job's rekey) */
    uint8_t key[64];
    size_t enc_key_len;
    uint8_t nonce[32]; /* aead: IV; kem encaps: m */
    size_t nonce_len;
    uint8_t *aad, *msg;
    size_t aad_len, msg_len;
    /* public key */
    EVP_PKEY *pkey;
    EVP_PKEY_CTX *pctx;
    const char *group;
    int pad; /* RSA padding mode for sig */
    uint8_t *sig;
    size_t sig_len;
    /* output */
    uint8_t *buf;
    size_t out_cap;
} tb_openssl_state;

enum { OP_HASH, OP_MAC, OP_ENC, OP_DEC, OP_PUBLIC, OP_KEYGEN, OP_DERIVE, OP_EXCHANGE, OP_SIGN, OP_VERIFY, OP_ENCAPS, OP_DECAPS };

/* tb_set_error("<what>: <OpenSSL's queued error>"), clears the queue, TB_ERROR. */
tb_status tb_openssl_fail(const char *what);
/* s->buf, cap bytes (tb_zalloc), the result base.out points at. */
tb_status tb_openssl_reserve_out(tb_openssl_state *s, size_t cap);

/* The core's per-kind operation tables (tb/family.h), one per kind: sym.c,
 * kex.c, pk.c, and pq.c's kem and pqsig. */
TB_DECLARE_CLASSIC_FAMILIES(openssl);
extern const tb_family tb_openssl_kem, tb_openssl_pqsig;

/* A zeroed state for job with fam set, filled in by fill (adapter.c). */
tb_status tb_openssl_prepare(const tb_family *fam, const tb_job *job,
                             tb_status (*fill)(tb_openssl_state *s, const tb_job *job), tb_family_state **out);
void tb_openssl_release(tb_family_state *st);
/* The timed end of sig and pqsig once m is set up for s's key: EVP_DigestSign
 * into buf, or EVP_DigestVerify of sig (TB_REJECT when it does not verify). */
tb_status tb_openssl_sign_or_verify(tb_openssl_state *s, EVP_MD_CTX *m);
/* supports() of the kinds whose every catalog entry is in OpenSSL 3 (mac, kex, sig, pke). */
int tb_openssl_every_alg(const char *alg, const char *op);

/* The table tb_openssl_<name>: supports(alg, op), fill (prepare into a
 * zeroed state) and run (the timed call) of one kind. */
#define TB_OPENSSL_FAMILY(name, supports_fn, fill_fn, run_fn)                                                     \
    static tb_status name##_prepare(const tb_job *job, tb_family_state **out)                                    \
    {                                                                                                            \
        return tb_openssl_prepare(&tb_openssl_##name, job, fill_fn, out);                                       \
    }                                                                                                            \
    static tb_status name##_run(tb_family_state *st)                                                             \
    {                                                                                                            \
        return run_fn((tb_openssl_state *)st);                                                                   \
    }                                                                                                            \
    const tb_family tb_openssl_##name = {supports_fn, name##_prepare, name##_run, tb_openssl_release}

/* A kex/ECDSA key from raw private and/or public bytes (kex.c, used by pk.c). */
tb_status tb_openssl_key_from_raw(const char *alg, tb_bytes priv, tb_bytes pub, EVP_PKEY **out);

#endif
