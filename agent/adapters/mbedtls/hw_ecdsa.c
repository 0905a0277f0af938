/* Mbed TLS 3.6's MBEDTLS_ECDSA_SIGN_ALT and MBEDTLS_ECDSA_VERIFY_ALT
 * (profile "hw") for a public-key accelerator shaped like the STM32 PKA
 * (platform/cortexm/hwcrypto.h), with the same register traffic as wolfSSL's
 * crypto callbacks (adapters/wolfssl/hw.c), so both libraries are charged the
 * board profile's figure per operation.
 *
 * These two are what every ECDSA in Mbed TLS reaches: its pk layer and its
 * PSA built-in driver sign through mbedtls_ecdsa_sign_det_ext or
 * mbedtls_ecdsa_write_signature, which call mbedtls_ecdsa_sign with the ALT
 * on, and verify through mbedtls_ecdsa_verify (library/ecdsa.c). Per
 * operation the driver draws sign's random k, writes the key, the hash and
 * the curve's operands into the PKA RAM, starts it, polls and reads back r
 * and s (sign) or the verdict (verify), all counted. The result is Mbed
 * TLS's own ECDSA (library/ecdsa.c compiled once more under tb_sw_ names:
 * hw/standin_ecdsa.c), between tb_hw_standin_begin() and tb_hw_standin_end(),
 * which the model leaves out. Another curve, or a board without the PKA's
 * operation, runs that software as plain code, counted. */
#include "mbedtls/build_info.h"

#include "hwcrypto.h"
#include "mbedtls/ecdsa.h"
#include "mbedtls/error.h"
#include "standin_ecdsa.h"

#if !defined(MBEDTLS_ECDSA_SIGN_ALT) || !defined(MBEDTLS_ECDSA_VERIFY_ALT)
#error "adapters/mbedtls/hw_ecdsa.c is the build profile hw's: MBEDTLS_ECDSA_SIGN_ALT and MBEDTLS_ECDSA_VERIFY_ALT"
#endif

static int on_pka(const mbedtls_ecp_group *grp, uint32_t operation)
{
    return grp->id == MBEDTLS_ECP_DP_SECP256R1 && (tb_hw_available() & operation) != 0;
}

/* TB_HW_TEST_STANDIN_TWICE: the stand-in's work once more, on copies (hwcrypto.h) */
static int twice(void)
{
    return (tb_hw_available() & TB_HW_TEST_STANDIN_TWICE) != 0;
}

/* the stand-in's number, left in the PKA RAM where the PKA leaves its result */
static int store_mpi(uint32_t slot, const mbedtls_mpi *x)
{
    uint8_t be[TB_P256_BYTES];
    int ret = mbedtls_mpi_write_binary(x, be, sizeof(be));
    if (ret == 0) tb_pka_store(TB_PKA_AT(slot), be, sizeof(be));
    return ret;
}

static int load_mpi(uint32_t slot, const mbedtls_mpi *x)
{
    uint8_t be[TB_P256_BYTES];
    int ret = mbedtls_mpi_write_binary(x, be, sizeof(be));
    if (ret == 0) tb_pka_load(TB_PKA_AT(slot), be, sizeof(be));
    return ret;
}

int mbedtls_ecdsa_sign(mbedtls_ecp_group *grp, mbedtls_mpi *r, mbedtls_mpi *s, const mbedtls_mpi *d,
                       const unsigned char *buf, size_t blen, int (*f_rng)(void *, unsigned char *, size_t),
                       void *p_rng)
{
    if (!on_pka(grp, TB_HW_ECDSA_P256_SIGN)) return tb_sw_ecdsa_sign(grp, r, s, d, buf, blen, f_rng, p_rng);
    uint8_t k[TB_P256_BYTES];
    int ret = f_rng(p_rng, k, sizeof(k)); /* the driver's random k (its 0 < k < n check is not modelled) */
    if (ret != 0) return ret;
    tb_pka_load_p256_curve(buf, (uint32_t)blen);
    tb_pka_load_p256_b();
    tb_pka_load(TB_PKA_AT(TB_PKA_K), k, sizeof(k));
    ret = load_mpi(TB_PKA_D, d);
    if (ret != 0) return ret;

    tb_hw_standin_begin(); /* the stand-in: Mbed TLS's software ECDSA, excluded by the model */
    ret = tb_sw_ecdsa_sign(grp, r, s, d, buf, blen, f_rng, p_rng);
    if (ret == 0 && twice()) {
        mbedtls_mpi r2, s2;
        mbedtls_mpi_init(&r2);
        mbedtls_mpi_init(&s2);
        ret = tb_sw_ecdsa_sign(grp, &r2, &s2, d, buf, blen, f_rng, p_rng);
        mbedtls_mpi_free(&r2);
        mbedtls_mpi_free(&s2);
    }
    if (ret == 0) {
        tb_pka_load_word(TB_PKA_AT(TB_PKA_OUT), 0u); /* no error */
        ret = store_mpi(TB_PKA_R, r);
    }
    if (ret == 0) ret = store_mpi(TB_PKA_S, s);
    tb_hw_standin_end();
    if (ret != 0) return ret;

    tb_pka_run(TB_PKA_MODE_ECDSA_SIGN, tb_hw_op_ecdsa_p256_sign);
    if (tb_pka.ram[TB_PKA_AT(TB_PKA_OUT)] != 0u) return MBEDTLS_ERR_PLATFORM_HW_ACCEL_FAILED; /* its error word */
    uint8_t be[TB_P256_BYTES];
    tb_pka_read(TB_PKA_AT(TB_PKA_R), be, sizeof(be));
    ret = mbedtls_mpi_read_binary(r, be, sizeof(be));
    tb_pka_read(TB_PKA_AT(TB_PKA_S), be, sizeof(be));
    if (ret == 0) ret = mbedtls_mpi_read_binary(s, be, sizeof(be));
    return ret;
}

int mbedtls_ecdsa_verify(mbedtls_ecp_group *grp, const unsigned char *buf, size_t blen, const mbedtls_ecp_point *Q,
                         const mbedtls_mpi *r, const mbedtls_mpi *s)
{
    if (!on_pka(grp, TB_HW_ECDSA_P256_VERIFY)) return tb_sw_ecdsa_verify(grp, buf, blen, Q, r, s);
    tb_pka_load_p256_curve(buf, (uint32_t)blen);
    int ret = load_mpi(TB_PKA_QX, &Q->MBEDTLS_PRIVATE(X));
    if (ret == 0) ret = load_mpi(TB_PKA_QY, &Q->MBEDTLS_PRIVATE(Y));
    /* r or s wider than the order cannot verify: what the PKA's range check answers */
    if (ret == 0 && (load_mpi(TB_PKA_R, r) != 0 || load_mpi(TB_PKA_S, s) != 0)) return MBEDTLS_ERR_ECP_VERIFY_FAILED;
    if (ret != 0) return ret;

    tb_hw_standin_begin(); /* the stand-in: Mbed TLS's software ECDSA, excluded by the model */
    ret = tb_sw_ecdsa_verify(grp, buf, blen, Q, r, s);
    if (twice()) (void)tb_sw_ecdsa_verify(grp, buf, blen, Q, r, s);
    tb_pka_load_word(TB_PKA_AT(TB_PKA_OUT), ret == 0 ? TB_PKA_VERIFY_VALID : 0u);
    tb_hw_standin_end();
    if (ret != 0 && ret != MBEDTLS_ERR_ECP_VERIFY_FAILED) return ret; /* not a verdict: a bad key, no memory */

    tb_pka_run(TB_PKA_MODE_ECDSA_VERIFY, tb_hw_op_ecdsa_p256_verify);
    return tb_pka.ram[TB_PKA_AT(TB_PKA_OUT)] == TB_PKA_VERIFY_VALID ? 0 : MBEDTLS_ERR_ECP_VERIFY_FAILED;
}
