/* tlsbench adapter for Mbed TLS 3.6: the tb_library object, the RNG, the
 * build summary and the dispatch to one family per kind (sym.c, pk.c). */
#include "mbedtls_adapter.h"

#include <mbedtls/bignum.h>
#include <mbedtls/build_info.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecp.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/platform_time.h>
#include <mbedtls/version.h>
#include <psa/crypto.h>

#include "tb/platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static mbedtls_entropy_context entropy;
static mbedtls_ctr_drbg_context drbg;

/* mbedtls_hardware_poll (the platform's seed) and, on bare metal,
 * mbedtls_ms_time (the frozen clock). */
#include "platform_hooks.c"

/* The one place the generator is seeded: CTR_DRBG from Mbed TLS's entropy
 * module, whose one source is tb_platform_seed() (mbedtls_hardware_poll). */
static tb_status seed_rng(void)
{
    static const unsigned char personalisation[] = "tlsbench-agent-mbedtls";
    mbedtls_entropy_init(&entropy);
    mbedtls_ctr_drbg_init(&drbg);
    int ret = mbedtls_ctr_drbg_seed(&drbg, mbedtls_entropy_func, &entropy, personalisation,
                                    sizeof(personalisation) - 1);
    return ret == 0 ? TB_OK : tb_mbedtls_fail("mbedtls_ctr_drbg_seed", ret);
}

int tb_mbedtls_rng(void *unused, unsigned char *out, size_t len)
{
    (void)unused;
    return mbedtls_ctr_drbg_random(&drbg, out, len);
}

static void set_library_error(const char *fn, int ret)
{
    char text[160];
    mbedtls_strerror(ret, text, sizeof(text));
    tb_set_error("%s: -0x%04X %s", fn, (unsigned)-ret, text);
}

tb_status tb_mbedtls_fail(const char *fn, int ret)
{
    set_library_error(fn, ret);
    return TB_ERROR;
}

tb_status tb_mbedtls_reject(const char *fn, int ret)
{
    set_library_error(fn, ret);
    return TB_REJECT;
}

tb_status tb_mbedtls_bad_input(const char *fn, int ret)
{
    set_library_error(fn, ret);
    return TB_BAD_INPUT;
}

static tb_status adapter_init(void)
{
    return seed_rng();
}

/* After the platform's deterministic stream restarted (tb_rng_restart): the
 * generator rebuilt from it, so every repeat draws the same numbers. */
int tb_mbedtls_psa_started;

static tb_status adapter_reseed(void)
{
    mbedtls_ctr_drbg_free(&drbg);
    mbedtls_entropy_free(&entropy);
    tb_status st = seed_rng();
    if (st != TB_OK || !tb_mbedtls_psa_started) return st;
    /* TLS 1.3's key shares (and psa_p256.c's keys and ECDSA nonces) come
     * from PSA's own DRBG: restarted the same way. Between handshakes and
     * between operations PSA holds no key (TLS 1.3 destroys its ephemeral
     * keys when the handshake ends, psa_p256.c each key within its call;
     * MBEDTLS_USE_PSA_CRYPTO is off). */
    mbedtls_psa_crypto_free();
    psa_status_t ps = psa_crypto_init();
    if (ps != PSA_SUCCESS) {
        tb_set_error("psa_crypto_init: %d", (int)ps);
        return TB_ERROR;
    }
    return TB_OK;
}

static const char *adapter_version(void)
{
    static char text[32];
    mbedtls_version_get_string_full(text); /* at most 18 bytes + NUL */
    return text;
}

/* Where P-256 runs (mbedtls_adapter.h, TB_MBEDTLS_P256_PSA). */
#if defined(TB_MBEDTLS_P256_PSA)
#define ECP_LACKS "Everest"
#define P256_NOTE                                                                                        \
    "; P-256 primitives (p256, ecdsa-p256-sha256) through PSA (psa_generate_key, psa_raw_key_agreement,"   \
    " psa_sign_hash, psa_verify_hash, a key imported per operation) to the p256-m driver, the other curves" \
    " on ecp"
#define P256_SIGN_NOTE " (P-256: randomised k through PSA, the only ECDSA p256-m implements)"
#else
#define ECP_LACKS "p256-m/Everest" /* P-256 through the legacy ecp/ecdh/ecdsa API */
#define P256_NOTE ""
#define P256_SIGN_NOTE ""
#endif

static const char *adapter_config(void)
{
    static char text[2048]; /* TB_LIBRARY_CONFIG lists the TLS configuration too */
    if (text[0] != '\0') return text;
    const char *aes = "AES: portable C tables";
#if defined(MBEDTLS_AESNI_C) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    aes = __builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul")
              ? "AES/GCM: AES-NI + PCLMULQDQ compiled in, selected by CPUID (this CPU: yes)"
              : "AES/GCM: AES-NI compiled in, selected by CPUID (this CPU: no, C fallback)";
#elif defined(MBEDTLS_AESCE_C) && defined(__aarch64__)
    aes = "AES: Armv8 crypto extension compiled in, selected at run time";
#endif
    snprintf(text, sizeof(text),
             "%s; config header tb_mbedtls_config.h (MBEDTLS_CONFIG_FILE) + profile '%s'"
             " (profiles/%s.h: %s)"
             "; bignum %s, MPI window %d; ECP: Mbed TLS ecp (window %d, fixed-point comb %d%s"
             ", no %s)%s"
             "; %s"
             "; hash/HMAC via mbedtls_md, AEAD and CBC via mbedtls_cipher"
             "; ECDSA sign %s%s"
             "; RNG CTR_DRBG (AES-%d) seeded from the entropy module, whose one source is"
             " tb_platform_seed: %s"
             "; ffdhe: RFC 7919 primes from dhm.h, keygen private exponent uniform in"
             " [2, p-2] at full prime length (x_size = prime bytes, as Mbed TLS's TLS 1.2"
             " DHE does); public/derive from a given exponent by mbedtls_mpi_exp_mod"
             "; MBEDTLS_USE_PSA_CRYPTO %s",
             TB_LIBRARY_CONFIG, TB_MBEDTLS_PROFILE_NAME, TB_MBEDTLS_PROFILE_NAME, TB_MBEDTLS_PROFILE_SUMMARY,
#if defined(MBEDTLS_HAVE_ASM) && defined(__riscv)
             /* bn_mul.h has assembly for x86, Arm, PowerPC, ... but none for RISC-V */
             "in C (MBEDTLS_HAVE_ASM is on, but Mbed TLS has no RISC-V bignum assembly)",
#elif defined(MBEDTLS_HAVE_ASM)
             "with inline asm (MBEDTLS_HAVE_ASM)",
#else
             "portable C",
#endif
             MBEDTLS_MPI_WINDOW_SIZE, MBEDTLS_ECP_WINDOW_SIZE, MBEDTLS_ECP_FIXED_POINT_OPTIM,
#if defined(MBEDTLS_ECP_NIST_OPTIM)
             ", NIST fast reduction",
#else
             "",
#endif
             ECP_LACKS, P256_NOTE, aes,
#if defined(MBEDTLS_ECDSA_DETERMINISTIC)
             "deterministic (RFC 6979)",
#else
             "randomised k",
#endif
             P256_SIGN_NOTE,
             MBEDTLS_CTR_DRBG_KEYSIZE * 8, tb_platform_seed_note(),
#if defined(MBEDTLS_USE_PSA_CRYPTO)
             "on"
#else
             "off"
#endif
    );
    return text;
}

static const tb_family *const families[] = {TB_CLASSIC_FAMILIES(mbedtls)};

TB_DEFINE_FAMILY_ADAPTER("mbedtls", families, NULL, " is not supported by this Mbed TLS build");
