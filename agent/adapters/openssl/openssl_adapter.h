/* Internal to the OpenSSL adapter: the prepared-job state and the helpers
 * its files share (adapter.c: entry points; sym.c: hashes, HMAC, AEADs,
 * primitives; kex.c: key exchange; pk.c: signatures and RSA encryption;
 * tls.c: TLS). */
#ifndef TB_OPENSSL_ADAPTER_H
#define TB_OPENSSL_ADAPTER_H

#include "tb/adapter.h"
#include "tb/util.h"

#include <openssl/evp.h>

#define OUT_MAX (16384 + 512)

typedef struct {
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
    uint8_t *out;
    size_t out_len, out_cap;
} tb_openssl_state;

enum { OP_HASH, OP_MAC, OP_ENC, OP_DEC, OP_PUBLIC, OP_KEYGEN, OP_DERIVE, OP_EXCHANGE, OP_SIGN, OP_VERIFY, OP_ENCAPS, OP_DECAPS };

/* tb_set_error("<what>: <OpenSSL's queued error>"), clears the queue, TB_ERROR. */
tb_status tb_openssl_fail(const char *what);
/* s->out, cap bytes (tb_zalloc). */
tb_status tb_openssl_reserve_out(tb_openssl_state *s, size_t cap);

/* One family per file: supports (kind, alg), prepare into s, run s. */
int tb_openssl_sym_supports(tb_kind kind, const char *alg);
tb_status tb_openssl_sym_prepare(tb_openssl_state *s, const tb_job *job);
tb_status tb_openssl_sym_run(tb_openssl_state *s);
tb_status tb_openssl_kex_prepare(tb_openssl_state *s, const tb_job *job);
tb_status tb_openssl_kex_run(tb_openssl_state *s);
/* A kex/ECDSA key from raw private and/or public bytes (kex.c, used by pk.c). */
tb_status tb_openssl_key_from_raw(const char *alg, tb_bytes priv, tb_bytes pub, EVP_PKEY **out);
tb_status tb_openssl_pk_prepare(tb_openssl_state *s, const tb_job *job);
tb_status tb_openssl_pk_run(tb_openssl_state *s);
/* pq.c: ML-KEM (kem) and ML-DSA (pqsig), OpenSSL 3.5+ */
int tb_openssl_pq_supports(const char *alg);
tb_status tb_openssl_pq_prepare(tb_openssl_state *s, const tb_job *job);
tb_status tb_openssl_pq_run(tb_openssl_state *s);

#endif
