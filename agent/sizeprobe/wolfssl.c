/* wolfSSL size probe: a firmware image that does exactly one primitive
 * through wolfCrypt's own API, picked by one compile definition
 * (TB_PROBE_SHA256, ...; TB_PROBE_EMPTY calls nothing). It links the same
 * library build (user_settings.h + the profile) and the same Cortex-M
 * start-up and board file as the agent, so the image minus the empty
 * image is what the primitive pulls in (sizeprobe.cmake, tlsbench sizes).
 *
 * start-up calls this main() (the platform's own, which runs the agent, is
 * renamed for the probes and dropped by the linker). Inputs are
 * static; every result is folded into a volatile so nothing is optimised
 * away, and a failed call returns non-zero (the probes also run under QEMU
 * as a check that they do not fault). Randomness, where the operation
 * needs it, is what the adapter uses: wolfCrypt's Hash DRBG (WC_RNG)
 * seeded by tb_platform_seed. */
#include <wolfssl/wolfcrypt/settings.h>

#include "tb/adapter.h"
#include "tb/platform.h"
#include "probe.h"
#include "vectors.h"

#include <string.h>

#include <wolfssl/wolfcrypt/aes.h>
#include <wolfssl/wolfcrypt/asn.h> /* SHA256h */
#include <wolfssl/wolfcrypt/asn_public.h>
#include <wolfssl/wolfcrypt/chacha20_poly1305.h>
#include <wolfssl/wolfcrypt/curve25519.h>
#include <wolfssl/wolfcrypt/ecc.h>
#include <wolfssl/wolfcrypt/ed25519.h>
#include <wolfssl/wolfcrypt/hmac.h>
#include <wolfssl/wolfcrypt/random.h>
#include <wolfssl/wolfcrypt/rsa.h>
#include <wolfssl/wolfcrypt/sha256.h>
#include <wolfssl/wolfcrypt/sha3.h>
#include <wolfssl/wolfcrypt/sha512.h>
#if defined(TB_PROBE_MLKEM768_KEYGEN) || defined(TB_PROBE_MLKEM768)
#include <wolfssl/wolfcrypt/wc_mlkem.h>
#endif
#if defined(TB_PROBE_MLDSA44_KEYGEN) || defined(TB_PROBE_MLDSA44) || defined(TB_PROBE_MLDSA65)
#include <wolfssl/wolfcrypt/wc_mldsa.h>
#endif

/* The seed of every WC_RNG (CUSTOM_RAND_GENERATE_SEED in user_settings.h),
 * as the adapter defines it; dropped by the linker where no RNG is used. */
int tb_wolfssl_seed(unsigned char *output, unsigned int sz)
{
    return tb_platform_seed(output, sz) == 0 ? 0 : -1;
}

#if defined(TB_PROBE_DRBG) || defined(TB_PROBE_X25519) || defined(TB_PROBE_P256_ECDH) || \
    defined(TB_PROBE_ECDSA_P256_SIGN) || defined(TB_PROBE_ECDSA_P256_SIGN_VERIFY) ||   \
    defined(TB_PROBE_RSA2048_SIGN)
#define TB_PROBE_NEEDS_RNG 1
static WC_RNG rng;
#endif

#if defined(TB_PROBE_AES_128_CBC) || defined(TB_PROBE_AES_128_CBC_HMAC_SHA1)
static Aes aes, aes2;
#elif defined(TB_PROBE_AES_128_GCM) || defined(TB_PROBE_AES_128_CCM)
static Aes aes;
#endif

#if defined(TB_PROBE_ECDSA_P256_SIGN) || defined(TB_PROBE_ECDSA_P256_VERIFY) || \
    defined(TB_PROBE_ECDSA_P256_SIGN_VERIFY)
/* DER signatures over a SHA-256 hash, as TLS makes and checks them */
static ecc_key ek;
static int ecdsa(int sign, int verify)
{
    word32 n = sizeof(tb_p256_sig_der);
    int ret, ok = 0;
    memcpy(out, tb_p256_sig_der, n);
    ret = wc_ecc_init(&ek);
#if defined(TB_PROBE_NEEDS_RNG)
    if (ret == 0 && sign) {
        ret = wc_ecc_import_private_key_ex(tb_p256_d, sizeof(tb_p256_d), tb_p256_q, sizeof(tb_p256_q), &ek,
                                           ECC_SECP256R1);
        n = sizeof(out);
        if (ret == 0) ret = wc_ecc_sign_hash(tb_hash, sizeof(tb_hash), out, &n, &rng, &ek);
    } else
#endif
        if (ret == 0) {
        (void)sign;
        ret = wc_ecc_import_x963_ex(tb_p256_q, sizeof(tb_p256_q), &ek, ECC_SECP256R1);
    }
    if (ret == 0 && verify) {
        ret = wc_ecc_verify_hash(out, n, tb_hash, sizeof(tb_hash), &ok, &ek);
        if (ret == 0 && !ok) ret = -1;
    }
    keep(out, n);
    wc_ecc_free(&ek);
    return ret;
}
#endif

#if defined(TB_PROBE_RSA2048_VERIFY) || defined(TB_PROBE_RSA2048_SIGN)
static RsaKey rsa;
#endif
#if defined(TB_PROBE_X25519)
static curve25519_key xa, xb;
#endif
#if defined(TB_PROBE_P256_ECDH)
static ecc_key ea, eb;
#endif
#if defined(TB_PROBE_ED25519_SIGN) || defined(TB_PROBE_ED25519_VERIFY) || defined(TB_PROBE_ED25519_SIGN_VERIFY)
static ed25519_key ed;
#endif
#if defined(TB_PROBE_MLKEM768_KEYGEN) || defined(TB_PROBE_MLKEM768)
/* every random input given, as the agent's kem kind does: a fixed 64-byte
 * key generation seed and a fixed 32-byte encapsulation message */
static MlKemKey kem;
static const byte kem_seed[64] = {1, 2, 3, 4, 5, 6, 7, 8};
#if defined(TB_PROBE_MLKEM768)
static const byte kem_m[32] = {9, 10, 11, 12};
static byte kem_ct[1088];
#else
static byte kem_pk[1184];
#endif
#endif
#if defined(TB_PROBE_MLDSA44_KEYGEN) || defined(TB_PROBE_MLDSA44) || defined(TB_PROBE_MLDSA65)
/* a fixed 32-byte key seed; FIPS 204 deterministic signing (rnd all zero) */
static wc_MlDsaKey dsa;
static const byte dsa_seed[32] = {1, 2, 3, 4};
static const byte dsa_rnd[32];
static byte dsa_sig[3309]; /* ML-DSA-65's signature, the larger */
#if defined(TB_PROBE_MLDSA65)
#define TB_DSA_LEVEL WC_ML_DSA_65
#else
#define TB_DSA_LEVEL WC_ML_DSA_44
#endif
static int mldsa(int sign_verify)
{
    word32 n = sizeof(dsa_sig);
    int ret = wc_MlDsaKey_Init(&dsa, NULL, INVALID_DEVID), ok = 0;
    if (ret == 0) ret = wc_MlDsaKey_SetParams(&dsa, TB_DSA_LEVEL);
    if (ret == 0) ret = wc_MlDsaKey_MakeKeyFromSeed(&dsa, dsa_seed);
    if (ret == 0 && sign_verify) {
        ret = wc_MlDsaKey_SignCtxWithSeed(&dsa, NULL, 0, dsa_sig, &n, tb_msg, sizeof(tb_msg), dsa_rnd);
        if (ret == 0) ret = wc_MlDsaKey_VerifyCtx(&dsa, dsa_sig, n, NULL, 0, tb_msg, sizeof(tb_msg), &ok);
        if (ret == 0 && ok != 1) ret = -1;
        keep(dsa_sig, n);
    }
    wc_MlDsaKey_Free(&dsa);
    return ret;
}
#endif

int main(void)
{
    int ret = 0;
#if defined(TB_PROBE_NEEDS_RNG)
    ret = wc_InitRng(&rng);
    if (ret != 0) return 1;
#endif
#if defined(TB_PROBE_EMPTY)
    /* start-up, runtime and main only */
#elif defined(TB_PROBE_DRBG)
    ret = wc_RNG_GenerateBlock(&rng, out, 32);
    keep(out, 32);
#elif defined(TB_PROBE_SHA256)
    wc_Sha256 h;
    ret = wc_InitSha256(&h);
    if (ret == 0) ret = wc_Sha256Update(&h, in, sizeof(in));
    if (ret == 0) ret = wc_Sha256Final(&h, out);
    wc_Sha256Free(&h);
    keep(out, 32);
#elif defined(TB_PROBE_SHA512)
    wc_Sha512 h;
    ret = wc_InitSha512(&h);
    if (ret == 0) ret = wc_Sha512Update(&h, in, sizeof(in));
    if (ret == 0) ret = wc_Sha512Final(&h, out);
    wc_Sha512Free(&h);
    keep(out, 64);
#elif defined(TB_PROBE_SHA3_256)
    wc_Sha3 h;
    ret = wc_InitSha3_256(&h, NULL, INVALID_DEVID);
    if (ret == 0) ret = wc_Sha3_256_Update(&h, in, sizeof(in));
    if (ret == 0) ret = wc_Sha3_256_Final(&h, out);
    wc_Sha3_256_Free(&h);
    keep(out, 32);
#elif defined(TB_PROBE_HMAC_SHA256)
    Hmac h;
    ret = wc_HmacInit(&h, NULL, INVALID_DEVID);
    if (ret == 0) ret = wc_HmacSetKey(&h, WC_SHA256, key, 32);
    if (ret == 0) ret = wc_HmacUpdate(&h, in, sizeof(in));
    if (ret == 0) ret = wc_HmacFinal(&h, out);
    wc_HmacFree(&h);
    keep(out, 32);
#elif defined(TB_PROBE_AES_128_GCM)
    ret = wc_AesInit(&aes, NULL, INVALID_DEVID);
    if (ret == 0) ret = wc_AesGcmSetKey(&aes, key, 16);
    if (ret == 0) ret = wc_AesGcmEncrypt(&aes, out, in, sizeof(in), iv, 12, tag, 16, key, 13);
    if (ret == 0) ret = wc_AesGcmDecrypt(&aes, back, out, sizeof(in), iv, 12, tag, 16, key, 13);
    keep(back, sizeof(in));
    wc_AesFree(&aes);
#elif defined(TB_PROBE_AES_128_CCM)
    ret = wc_AesInit(&aes, NULL, INVALID_DEVID);
    if (ret == 0) ret = wc_AesCcmSetKey(&aes, key, 16);
    if (ret == 0) ret = wc_AesCcmEncrypt(&aes, out, in, sizeof(in), iv, 12, tag, 16, key, 13);
    if (ret == 0) ret = wc_AesCcmDecrypt(&aes, back, out, sizeof(in), iv, 12, tag, 16, key, 13);
    keep(back, sizeof(in));
    wc_AesFree(&aes);
#elif defined(TB_PROBE_CHACHA20_POLY1305)
    ret = wc_ChaCha20Poly1305_Encrypt(key, iv, key, 13, in, sizeof(in), out, tag);
    if (ret == 0) ret = wc_ChaCha20Poly1305_Decrypt(key, iv, key, 13, out, sizeof(in), tag, back);
    keep(back, sizeof(in));
#elif defined(TB_PROBE_AES_128_CBC) || defined(TB_PROBE_AES_128_CBC_HMAC_SHA1)
    /* encrypt and decrypt; with HMAC-SHA1 over the record: TLS 1.2's CBC suites */
    ret = wc_AesInit(&aes, NULL, INVALID_DEVID);
    if (ret == 0) ret = wc_AesInit(&aes2, NULL, INVALID_DEVID);
    if (ret == 0) ret = wc_AesSetKey(&aes, key, 16, iv, AES_ENCRYPTION);
    if (ret == 0) ret = wc_AesSetKey(&aes2, key, 16, iv, AES_DECRYPTION);
    if (ret == 0) ret = wc_AesCbcEncrypt(&aes, out, in, sizeof(in));
    if (ret == 0) ret = wc_AesCbcDecrypt(&aes2, back, out, sizeof(in));
#if defined(TB_PROBE_AES_128_CBC_HMAC_SHA1)
    Hmac h;
    if (ret == 0) ret = wc_HmacInit(&h, NULL, INVALID_DEVID);
    if (ret == 0) ret = wc_HmacSetKey(&h, WC_SHA, key, 20);
    if (ret == 0) ret = wc_HmacUpdate(&h, back, sizeof(in));
    if (ret == 0) ret = wc_HmacFinal(&h, tag);
    wc_HmacFree(&h);
    keep(tag, 16);
#endif
    keep(back, sizeof(in));
    wc_AesFree(&aes);
    wc_AesFree(&aes2);
#elif defined(TB_PROBE_X25519)
    /* keygen for both sides, then one shared secret */
    word32 n = sizeof(out);
    ret = wc_curve25519_init(&xa);
    if (ret == 0) ret = wc_curve25519_init(&xb);
    if (ret == 0) ret = wc_curve25519_make_key(&rng, 32, &xa);
    if (ret == 0) ret = wc_curve25519_make_key(&rng, 32, &xb);
    if (ret == 0) ret = wc_curve25519_shared_secret(&xa, &xb, out, &n);
    keep(out, n);
    wc_curve25519_free(&xa);
    wc_curve25519_free(&xb);
#elif defined(TB_PROBE_P256_ECDH)
    /* keygen for both sides, then one shared secret */
    word32 n = sizeof(out);
    ret = wc_ecc_init(&ea);
    if (ret == 0) ret = wc_ecc_init(&eb);
    if (ret == 0) ret = wc_ecc_make_key_ex(&rng, 32, &ea, ECC_SECP256R1);
    if (ret == 0) ret = wc_ecc_make_key_ex(&rng, 32, &eb, ECC_SECP256R1);
    if (ret == 0) ret = wc_ecc_set_rng(&ea, &rng);
    if (ret == 0) ret = wc_ecc_shared_secret(&ea, &eb, out, &n);
    keep(out, n);
    wc_ecc_free(&ea);
    wc_ecc_free(&eb);
#elif defined(TB_PROBE_ECDSA_P256_SIGN)
    ret = ecdsa(1, 0);
#elif defined(TB_PROBE_ECDSA_P256_VERIFY)
    ret = ecdsa(0, 1);
#elif defined(TB_PROBE_ECDSA_P256_SIGN_VERIFY)
    ret = ecdsa(1, 1);
#elif defined(TB_PROBE_ED25519_SIGN) || defined(TB_PROBE_ED25519_VERIFY) || defined(TB_PROBE_ED25519_SIGN_VERIFY)
    word32 n = sizeof(tb_ed25519_sig);
    int ok = 0;
    (void)ok; /* the sign-only probe does not verify */
    memcpy(out, tb_ed25519_sig, n);
    ret = wc_ed25519_init(&ed);
#if defined(TB_PROBE_ED25519_VERIFY)
    if (ret == 0) ret = wc_ed25519_import_public(tb_ed25519_pub, 32, &ed);
#else
    if (ret == 0) ret = wc_ed25519_import_private_key(tb_ed25519_seed, 32, tb_ed25519_pub, 32, &ed);
    n = sizeof(out);
    if (ret == 0) ret = wc_ed25519_sign_msg(tb_msg, sizeof(tb_msg), out, &n, &ed);
    if (ret == 0 && memcmp(out, tb_ed25519_sig, 64) != 0) ret = -1;
#endif
#if !defined(TB_PROBE_ED25519_SIGN)
    if (ret == 0) ret = wc_ed25519_verify_msg(out, n, tb_msg, sizeof(tb_msg), &ok, &ed);
    if (ret == 0 && !ok) ret = -1;
#endif
    keep(out, n);
    wc_ed25519_free(&ed);
#elif defined(TB_PROBE_RSA2048_VERIFY) || defined(TB_PROBE_RSA2048_SIGN)
    /* PKCS#1 v1.5 with SHA-256 (DigestInfo encoded as wolfSSL's TLS does), from the raw key parts */
    word32 n = wc_EncodeSignature(back, tb_hash, sizeof(tb_hash), SHA256h);
    ret = wc_InitRsaKey(&rsa, NULL);
#if defined(TB_PROBE_RSA2048_SIGN)
    if (ret == 0) ret = wc_RsaPrivateKeyDecodeRaw(tb_rsa_n, 256, tb_rsa_e, 3, tb_rsa_d, 256, tb_rsa_qp, 128, tb_rsa_p,
                                                  128, tb_rsa_q, 128, tb_rsa_dp, 128, tb_rsa_dq, 128, &rsa);
    if (ret == 0) ret = wc_RsaSetRNG(&rsa, &rng);
    if (ret == 0) ret = wc_RsaSSL_Sign(back, n, out, 256, &rsa, &rng);
    if (ret == 256) ret = memcmp(out, tb_rsa_sig, 256) != 0;
    keep(out, 256);
#else
    if (ret == 0) ret = wc_RsaPublicKeyDecodeRaw(tb_rsa_n, 256, tb_rsa_e, 3, &rsa);
    if (ret == 0) ret = wc_RsaSSL_Verify(tb_rsa_sig, 256, out, sizeof(out), &rsa);
    if (ret >= 0) ret = ((word32)ret != n || memcmp(out, back, n) != 0);
    keep(out, n);
#endif
    wc_FreeRsaKey(&rsa);
#elif defined(TB_PROBE_MLKEM768_KEYGEN) || defined(TB_PROBE_MLKEM768)
    ret = wc_MlKemKey_Init(&kem, WC_ML_KEM_768, NULL, INVALID_DEVID);
    if (ret == 0) ret = wc_MlKemKey_MakeKeyWithRandom(&kem, kem_seed, sizeof(kem_seed));
#if defined(TB_PROBE_MLKEM768)
    /* encapsulate to the key just made, decapsulate, and compare the secrets */
    if (ret == 0) ret = wc_MlKemKey_EncapsulateWithRandom(&kem, kem_ct, out, kem_m, sizeof(kem_m));
    if (ret == 0) ret = wc_MlKemKey_Decapsulate(&kem, back, kem_ct, sizeof(kem_ct));
    if (ret == 0 && memcmp(out, back, 32) != 0) ret = -1;
    keep(back, 32);
#else
    if (ret == 0) ret = wc_MlKemKey_EncodePublicKey(&kem, kem_pk, sizeof(kem_pk));
    keep(kem_pk, sizeof(kem_pk));
#endif
    wc_MlKemKey_Free(&kem);
#elif defined(TB_PROBE_MLDSA44_KEYGEN)
    ret = mldsa(0);
#elif defined(TB_PROBE_MLDSA44) || defined(TB_PROBE_MLDSA65)
    ret = mldsa(1);
#else
#error "no size probe selected (define one TB_PROBE_...)"
#endif
    return ret != 0;
}
