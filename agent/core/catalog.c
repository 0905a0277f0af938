#include "tb/catalog.h"

#include <string.h>

const tb_catalog_entry tb_catalog[] = {
    {TB_KIND_HASH, "md5", {"hash"}},
    {TB_KIND_HASH, "sha1", {"hash"}},
    {TB_KIND_HASH, "sha224", {"hash"}},
    {TB_KIND_HASH, "sha256", {"hash"}},
    {TB_KIND_HASH, "sha384", {"hash"}},
    {TB_KIND_HASH, "sha512", {"hash"}},
    {TB_KIND_HASH, "sha3-256", {"hash"}},
    {TB_KIND_HASH, "sha3-384", {"hash"}},
    {TB_KIND_HASH, "sha3-512", {"hash"}},
    {TB_KIND_MAC, "hmac-sha256", {"mac"}},
    {TB_KIND_AEAD, "aes-128-gcm", {"encrypt", "decrypt"}},
    {TB_KIND_AEAD, "aes-256-gcm", {"encrypt", "decrypt"}},
    {TB_KIND_AEAD, "aes-128-ccm", {"encrypt", "decrypt"}},
    {TB_KIND_AEAD, "chacha20-poly1305", {"encrypt", "decrypt"}},
    {TB_KIND_AEAD, "aes-128-cbc-hmac-sha1", {"encrypt", "decrypt"}},
    {TB_KIND_AEAD, "aes-128-cbc-hmac-sha256", {"encrypt", "decrypt"}},
    {TB_KIND_KEX, "x25519", {"public", "keygen", "derive", "exchange"}},
    {TB_KIND_KEX, "x448", {"public", "keygen", "derive", "exchange"}},
    {TB_KIND_KEX, "p256", {"public", "keygen", "derive", "exchange"}},
    {TB_KIND_KEX, "p384", {"public", "keygen", "derive", "exchange"}},
    {TB_KIND_KEX, "ffdhe2048", {"public", "keygen", "derive", "exchange"}},
    {TB_KIND_KEX, "ffdhe3072", {"public", "keygen", "derive", "exchange"}},
    {TB_KIND_SIG, "rsa2048-pkcs1-sha256", {"sign", "verify"}},
    {TB_KIND_SIG, "rsa3072-pkcs1-sha256", {"sign", "verify"}},
    {TB_KIND_SIG, "rsa2048-pss-sha256", {"sign", "verify"}},
    {TB_KIND_SIG, "rsa3072-pss-sha256", {"sign", "verify"}},
    {TB_KIND_SIG, "ecdsa-p256-sha256", {"sign", "verify"}},
    {TB_KIND_SIG, "ecdsa-p384-sha384", {"sign", "verify"}},
    {TB_KIND_SIG, "ed25519", {"sign", "verify"}},
    {TB_KIND_PKE, "rsa2048-pkcs1v15", {"encrypt", "decrypt"}},
    {TB_KIND_PKE, "rsa3072-pkcs1v15", {"encrypt", "decrypt"}},
#if !defined(TB_BARE_METAL) || defined(TB_FIRMWARE_PQ) /* post-quantum: host, or a firmware wolfSSL 5.8+ */
    {TB_KIND_KEM, "ml-kem-512", {"keygen", "encaps", "decaps"}},
    {TB_KIND_KEM, "ml-kem-768", {"keygen", "encaps", "decaps"}},
    {TB_KIND_KEM, "ml-kem-1024", {"keygen", "encaps", "decaps"}},
    {TB_KIND_PQSIG, "ml-dsa-44", {"keygen", "sign", "verify"}},
    {TB_KIND_PQSIG, "ml-dsa-65", {"keygen", "sign", "verify"}},
    {TB_KIND_PQSIG, "ml-dsa-87", {"keygen", "sign", "verify"}},
    {TB_KIND_PQSIG, "slh-dsa-sha2-128s", {"keygen", "sign", "verify"}},
    {TB_KIND_PQSIG, "slh-dsa-sha2-128f", {"keygen", "sign", "verify"}},
#endif
};
const size_t tb_catalog_len = sizeof(tb_catalog) / sizeof(tb_catalog[0]);

static const char *const kind_names[TB_KIND_COUNT] = {"hash", "mac", "aead", "kex", "sig", "pke",
#if !defined(TB_BARE_METAL) || defined(TB_FIRMWARE_PQ)
                                                      "kem", "pqsig",
#endif
};

const char *tb_kind_name(tb_kind kind)
{
    return (unsigned)kind < TB_KIND_COUNT ? kind_names[kind] : "?";
}

tb_kind tb_kind_from_name(const char *name)
{
    for (int k = 0; k < TB_KIND_COUNT; k++) {
        if (strcmp(kind_names[k], name) == 0) {
            return (tb_kind)k;
        }
    }
    return TB_KIND_COUNT;
}

const tb_catalog_entry *tb_catalog_find(tb_kind kind, const char *alg)
{
    for (size_t i = 0; i < tb_catalog_len; i++) {
        if (tb_catalog[i].kind == kind && strcmp(tb_catalog[i].alg, alg) == 0) {
            return &tb_catalog[i];
        }
    }
    return NULL;
}

int tb_catalog_has_op(const tb_catalog_entry *e, const char *op)
{
    for (size_t i = 0; i < 4 && e->ops[i] != NULL; i++) {
        if (strcmp(e->ops[i], op) == 0) {
            return 1;
        }
    }
    return 0;
}
