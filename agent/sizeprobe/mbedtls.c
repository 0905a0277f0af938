/* Mbed TLS size probe: a firmware image that does exactly one primitive
 * through Mbed TLS's own API, picked by one compile definition
 * (TB_PROBE_SHA256, ...; TB_PROBE_EMPTY calls nothing). It links the same
 * library build (tb_mbedtls_config.h + the profile) and the same Cortex-M
 * start-up and board file as the agent, so the image minus the empty
 * image is what the primitive pulls in (sizeprobe.cmake, tlsbench sizes).
 *
 * start-up calls this main() (the platform's own, which runs the agent, is
 * renamed for the probes and dropped by the linker). Inputs are
 * static; every result is folded into a volatile so nothing is optimised
 * away, and a failed call returns non-zero (the probes also run under QEMU
 * as a check that they do not fault). Randomness, where the operation
 * needs it, is what the adapter uses: CTR_DRBG seeded by the entropy
 * module, whose one source is tb_platform_seed. */
#include "tb/adapter.h"
#include "tb/platform.h"
#include "probe.h"
#include "vectors.h"

#include <string.h>
#include <sys/time.h>

#include <mbedtls/aes.h>
#include <mbedtls/ccm.h>
#include <mbedtls/chachapoly.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecdh.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/entropy.h>
#include <mbedtls/gcm.h>
#include <mbedtls/md.h>
#include <mbedtls/platform_time.h>
#include <mbedtls/rsa.h>
#include <mbedtls/sha256.h>
#include <mbedtls/sha3.h>
#include <mbedtls/sha512.h>

/* The adapter's mbedtls_hardware_poll and mbedtls_ms_time. */
#include "../adapters/mbedtls/platform_hooks.c"

#if defined(TB_PROBE_DRBG) || defined(TB_PROBE_X25519) || defined(TB_PROBE_P256_ECDH) || \
    defined(TB_PROBE_ECDSA_P256_SIGN) || defined(TB_PROBE_ECDSA_P256_SIGN_VERIFY) ||   \
    defined(TB_PROBE_RSA2048_SIGN)
#define TB_PROBE_NEEDS_RNG 1
static mbedtls_entropy_context entropy;
static mbedtls_ctr_drbg_context drbg;

static int rng_init(void)
{
    static const unsigned char pers[] = "tlsbench-sizeprobe";
    mbedtls_entropy_init(&entropy);
    mbedtls_ctr_drbg_init(&drbg);
    return mbedtls_ctr_drbg_seed(&drbg, mbedtls_entropy_func, &entropy, pers, sizeof(pers) - 1);
}
#endif

#if defined(TB_PROBE_X25519) || defined(TB_PROBE_P256_ECDH)
/* keygen for both sides, then one shared secret */
static int ecdh(mbedtls_ecp_group_id id)
{
    mbedtls_ecdh_context a, b;
    size_t n = 0;
    int ret;
    mbedtls_ecdh_init(&a);
    mbedtls_ecdh_init(&b);
    ret = mbedtls_ecdh_setup(&a, id);
    if (ret == 0) ret = mbedtls_ecdh_setup(&b, id);
    if (ret == 0) ret = mbedtls_ecdh_make_public(&a, &n, out, sizeof(out), mbedtls_ctr_drbg_random, &drbg);
    if (ret == 0) ret = mbedtls_ecdh_read_public(&b, out, n);
    if (ret == 0) ret = mbedtls_ecdh_make_public(&b, &n, back, sizeof(back), mbedtls_ctr_drbg_random, &drbg);
    if (ret == 0) ret = mbedtls_ecdh_read_public(&a, back, n);
    if (ret == 0) ret = mbedtls_ecdh_calc_secret(&a, &n, out, sizeof(out), mbedtls_ctr_drbg_random, &drbg);
    keep(out, n);
    mbedtls_ecdh_free(&a);
    mbedtls_ecdh_free(&b);
    return ret;
}
#endif

#if defined(TB_PROBE_ECDSA_P256_SIGN) || defined(TB_PROBE_ECDSA_P256_VERIFY) || \
    defined(TB_PROBE_ECDSA_P256_SIGN_VERIFY)
/* DER signatures over a SHA-256 hash, as TLS makes and checks them */
static int ecdsa(int sign, int verify)
{
    mbedtls_ecdsa_context k;
    size_t n = sizeof(tb_p256_sig_der);
    int ret;
    mbedtls_ecdsa_init(&k);
    memcpy(out, tb_p256_sig_der, n);
#if defined(TB_PROBE_NEEDS_RNG)
    if (sign) {
        ret = mbedtls_ecp_read_key(MBEDTLS_ECP_DP_SECP256R1, &k, tb_p256_d, sizeof(tb_p256_d));
        if (ret == 0) ret = mbedtls_ecdsa_write_signature(&k, MBEDTLS_MD_SHA256, tb_hash, sizeof(tb_hash), out,
                                                          sizeof(out), &n, mbedtls_ctr_drbg_random, &drbg);
    } else
#endif
    {
        (void)sign;
        ret = mbedtls_ecp_group_load(&k.MBEDTLS_PRIVATE(grp), MBEDTLS_ECP_DP_SECP256R1);
    }
    if (ret == 0 && verify)
        ret = mbedtls_ecp_point_read_binary(&k.MBEDTLS_PRIVATE(grp), &k.MBEDTLS_PRIVATE(Q), tb_p256_q,
                                            sizeof(tb_p256_q));
    if (ret == 0 && verify) ret = mbedtls_ecdsa_read_signature(&k, tb_hash, sizeof(tb_hash), out, n);
    keep(out, n);
    mbedtls_ecdsa_free(&k);
    return ret;
}
#endif

int main(void)
{
    int ret = 0;
#if defined(TB_PROBE_NEEDS_RNG)
    ret = rng_init();
    if (ret != 0) return 1;
#endif
#if defined(TB_PROBE_EMPTY)
    /* start-up, runtime and main only */
#elif defined(TB_PROBE_DRBG)
    ret = mbedtls_ctr_drbg_random(&drbg, out, 32);
    keep(out, 32);
#elif defined(TB_PROBE_SHA256)
    ret = mbedtls_sha256(in, sizeof(in), out, 0);
    keep(out, 32);
#elif defined(TB_PROBE_SHA512)
    ret = mbedtls_sha512(in, sizeof(in), out, 0);
    keep(out, 64);
#elif defined(TB_PROBE_SHA3_256)
    ret = mbedtls_sha3(MBEDTLS_SHA3_256, in, sizeof(in), out, 32);
    keep(out, 32);
#elif defined(TB_PROBE_HMAC_SHA256)
    ret = mbedtls_md_hmac(mbedtls_md_info_from_type(MBEDTLS_MD_SHA256), key, 32, in, sizeof(in), out);
    keep(out, 32);
#elif defined(TB_PROBE_AES_128)
    mbedtls_aes_context aes;
    mbedtls_aes_init(&aes);
    ret = mbedtls_aes_setkey_enc(&aes, key, 128);
    if (ret == 0) ret = mbedtls_aes_crypt_ecb(&aes, MBEDTLS_AES_ENCRYPT, in, out);
    keep(out, 16);
    mbedtls_aes_free(&aes);
#elif defined(TB_PROBE_AES_128_GCM)
    mbedtls_gcm_context gcm;
    mbedtls_gcm_init(&gcm);
    ret = mbedtls_gcm_setkey(&gcm, MBEDTLS_CIPHER_ID_AES, key, 128);
    if (ret == 0) ret = mbedtls_gcm_crypt_and_tag(&gcm, MBEDTLS_GCM_ENCRYPT, sizeof(in), iv, 12, key, 13, in, out, 16, tag);
    if (ret == 0) ret = mbedtls_gcm_auth_decrypt(&gcm, sizeof(in), iv, 12, key, 13, tag, 16, out, back);
    keep(back, sizeof(in));
    mbedtls_gcm_free(&gcm);
#elif defined(TB_PROBE_AES_128_CCM)
    mbedtls_ccm_context ccm;
    mbedtls_ccm_init(&ccm);
    ret = mbedtls_ccm_setkey(&ccm, MBEDTLS_CIPHER_ID_AES, key, 128);
    if (ret == 0) ret = mbedtls_ccm_encrypt_and_tag(&ccm, sizeof(in), iv, 12, key, 13, in, out, tag, 16);
    if (ret == 0) ret = mbedtls_ccm_auth_decrypt(&ccm, sizeof(in), iv, 12, key, 13, out, back, tag, 16);
    keep(back, sizeof(in));
    mbedtls_ccm_free(&ccm);
#elif defined(TB_PROBE_CHACHA20_POLY1305)
    mbedtls_chachapoly_context cp;
    mbedtls_chachapoly_init(&cp);
    ret = mbedtls_chachapoly_setkey(&cp, key);
    if (ret == 0) ret = mbedtls_chachapoly_encrypt_and_tag(&cp, sizeof(in), iv, key, 13, in, out, tag);
    if (ret == 0) ret = mbedtls_chachapoly_auth_decrypt(&cp, sizeof(in), iv, key, 13, tag, out, back);
    keep(back, sizeof(in));
    mbedtls_chachapoly_free(&cp);
#elif defined(TB_PROBE_AES_128_CBC) || defined(TB_PROBE_AES_128_CBC_HMAC_SHA1)
    /* encrypt and decrypt; with HMAC-SHA1 over the record: TLS 1.2's CBC suites */
    mbedtls_aes_context enc, dec;
    unsigned char iv2[16];
    mbedtls_aes_init(&enc);
    mbedtls_aes_init(&dec);
    memcpy(iv2, iv, 16);
    ret = mbedtls_aes_setkey_enc(&enc, key, 128);
    if (ret == 0) ret = mbedtls_aes_setkey_dec(&dec, key, 128);
    if (ret == 0) ret = mbedtls_aes_crypt_cbc(&enc, MBEDTLS_AES_ENCRYPT, sizeof(in), iv, in, out);
    if (ret == 0) ret = mbedtls_aes_crypt_cbc(&dec, MBEDTLS_AES_DECRYPT, sizeof(in), iv2, out, back);
#if defined(TB_PROBE_AES_128_CBC_HMAC_SHA1)
    if (ret == 0) ret = mbedtls_md_hmac(mbedtls_md_info_from_type(MBEDTLS_MD_SHA1), key, 20, back, sizeof(in), tag);
    keep(tag, 16);
#endif
    keep(back, sizeof(in));
    mbedtls_aes_free(&enc);
    mbedtls_aes_free(&dec);
#elif defined(TB_PROBE_X25519)
    ret = ecdh(MBEDTLS_ECP_DP_CURVE25519);
#elif defined(TB_PROBE_P256_ECDH)
    ret = ecdh(MBEDTLS_ECP_DP_SECP256R1);
#elif defined(TB_PROBE_ECDSA_P256_SIGN)
    ret = ecdsa(1, 0);
#elif defined(TB_PROBE_ECDSA_P256_VERIFY)
    ret = ecdsa(0, 1);
#elif defined(TB_PROBE_ECDSA_P256_SIGN_VERIFY)
    ret = ecdsa(1, 1);
#elif defined(TB_PROBE_RSA2048_VERIFY) || defined(TB_PROBE_RSA2048_SIGN)
    /* PKCS#1 v1.5 with SHA-256, from the raw key parts */
    mbedtls_rsa_context rsa;
    mbedtls_rsa_init(&rsa);
#if defined(TB_PROBE_RSA2048_SIGN)
    ret = mbedtls_rsa_import_raw(&rsa, tb_rsa_n, 256, tb_rsa_p, 128, tb_rsa_q, 128, tb_rsa_d, 256, tb_rsa_e, 3);
    if (ret == 0) ret = mbedtls_rsa_complete(&rsa);
    if (ret == 0) ret = mbedtls_rsa_pkcs1_sign(&rsa, mbedtls_ctr_drbg_random, &drbg, MBEDTLS_MD_SHA256, 32, tb_hash, out);
    if (ret == 0 && memcmp(out, tb_rsa_sig, 256) != 0) ret = -1;
    keep(out, 256);
#else
    ret = mbedtls_rsa_import_raw(&rsa, tb_rsa_n, 256, NULL, 0, NULL, 0, NULL, 0, tb_rsa_e, 3);
    if (ret == 0) ret = mbedtls_rsa_complete(&rsa);
    if (ret == 0) ret = mbedtls_rsa_pkcs1_verify(&rsa, MBEDTLS_MD_SHA256, 32, tb_hash, tb_rsa_sig);
#endif
    mbedtls_rsa_free(&rsa);
#else
#error "no size probe selected (define one TB_PROBE_...)"
#endif
    return ret != 0;
}
