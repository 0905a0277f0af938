/* A crypto peripheral for the cycle model (docs/cycle-model.md, "Crypto
 * accelerators"): what a library's accelerator driver talks to on an
 * emulated board that has none.
 *
 * tb_hw is a RAM block shaped like an STM32 CRYP/HASH register file: the
 * driver writes its key, IV and data words there and reads the result, one
 * counted instruction per access, as on the chip. The peripheral's own
 * time comes from the board profile: each tb_hw_block_* call is one block
 * handed to it (the model adds its cycles per block there), each
 * tb_hw_setup_* call one operation's set-up. The result is computed by a
 * stand-in (the library's own software routine) between
 * tb_hw_standin_begin() and tb_hw_standin_end(), which the model leaves
 * out of both its cycles and the instruction count. */
#ifndef TB_HWCRYPTO_H
#define TB_HWCRYPTO_H

#include <stdint.h>

/* the board profile's accelerators, one bit each in the order of
 * ALGORITHMS in src/tlsbench/targets/accelerators.py */
#define TB_HW_SHA1 (1u << 0)
#define TB_HW_SHA256 (1u << 1)
#define TB_HW_AES_ECB (1u << 2)
#define TB_HW_AES_CBC (1u << 3)
#define TB_HW_AES_CTR (1u << 4)
#define TB_HW_AES_GCM (1u << 5)
#define TB_HW_ECDSA_P256_SIGN (1u << 6)
#define TB_HW_ECDSA_P256_VERIFY (1u << 7)
#define TB_HW_ECC_P256_MUL (1u << 8)
#define TB_HW_RSA_2048_PRIVATE (1u << 9)
#define TB_HW_RSA_2048_PUBLIC (1u << 10)
/* A test's switch in the same word (tests/targets/test_hwcrypto_firmware.py): a
 * driver that honours it does its stand-in's work once more, on copies,
 * which must change neither count (the model leaves all of it out). */
#define TB_HW_TEST_STANDIN_TWICE (1u << 31)

#define TB_HW_SR_BUSY (1u << 4)
#define TB_HW_STR_DCAL (1u << 8)

typedef struct {
    volatile uint32_t cr;  /* algorithm, mode, data type */
    volatile uint32_t sr;  /* busy, ready flags */
    volatile uint32_t din; /* data in, one word per write */
    volatile uint32_t str; /* valid bits of the last word, DCAL (start the final digest) */
    volatile uint32_t hr[8];  /* digest out */
    volatile uint32_t dout;   /* data out, one word per read */
    volatile uint32_t keyr[8];
    volatile uint32_t ivr[4];
    /* A cipher's output is the stand-in's, written in place: the driver's
     * DOUT read and its store of the word (one load and one store per word,
     * as on the chip) go to this word instead of the output buffer. */
    volatile uint32_t sink;
} tb_hw_regs;

extern tb_hw_regs tb_hw;

/* A public-key accelerator shaped like the STM32 PKA: control, status and
 * flag-clear registers, and its RAM, which the driver loads with the
 * operands word by word and reads the result from (one counted instruction
 * per word, as on the chip). */
#define TB_PKA_RAM_WORDS 448u /* room for RSA-2048's CRT operands in this model's layout */
typedef struct {
    volatile uint32_t cr;    /* MODE, START */
    volatile uint32_t sr;    /* BUSY, PROCENDF */
    volatile uint32_t clrfr; /* PROCENDFC */
    volatile uint32_t ram[TB_PKA_RAM_WORDS];
} tb_pka_regs;

extern tb_pka_regs tb_pka;

/* The accelerators the run's board profile declares (TB_HW_* bits; 0
 * without the cycle model): the driver leaves the others to software. */
uint32_t tb_hw_available(void);

void tb_hw_standin_begin(void);
void tb_hw_standin_end(void);

/* Doorbells: one call per block handed to the peripheral, one per operation set up; an AEAD's
 * associated-data blocks ring their own (the CRYP's GCM header phase has its own figure). */
void tb_hw_block_sha1(void);
void tb_hw_block_sha256(void);
void tb_hw_block_aes_ecb(void);
void tb_hw_block_aes_cbc(void);
void tb_hw_block_aes_gcm(void);
void tb_hw_header_aes_gcm(void);
void tb_hw_setup_sha1(void);
void tb_hw_setup_sha256(void);
void tb_hw_setup_aes_ecb(void);
void tb_hw_setup_aes_cbc(void);
void tb_hw_setup_aes_gcm(void);
/* a public-key accelerator's: one call per whole operation (its figure is per operation) */
void tb_hw_op_ecdsa_p256_sign(void);
void tb_hw_op_ecdsa_p256_verify(void);
void tb_hw_op_ecc_p256_mul(void);
void tb_hw_op_rsa_2048_private(void);
void tb_hw_op_rsa_2048_public(void);

/* The busy-wait a driver does after a block: the peripheral's time is the
 * model's (its doorbell), so the flag is never set here; the read is the
 * driver's own counted status poll. */
static inline void tb_hw_wait(void)
{
    while (tb_hw.sr & TB_HW_SR_BUSY) {
    }
}

/* A driver's register traffic, shared by the libraries' drivers (Mbed TLS's
 * _ALT functions, wolfSSL's crypto callbacks): what a product's driver does per update, final, key
 * load and block. A hash's data words go to DIN, a block's doorbell and a
 * status poll each time 16 words complete; a final writes the last word's
 * valid bits and DCAL, rings the padding block(s) and reads the digest
 * registers (left there by the stand-in: tb_hw_to_digest_registers). An
 * AES operation writes the mode, key and IV registers and rings its set-up
 * doorbell; each block is 4 DIN writes, the doorbell, a poll and 4 DOUT
 * reads (to tb_hw.sink: the output is the stand-in's). */
void tb_hw_hash_update(const uint8_t *in, uint32_t n, uint32_t pending, void (*doorbell)(void));
void tb_hw_hash_final(uint32_t pending, uint8_t *digest, uint32_t digest_len, void (*setup)(void),
                      void (*doorbell)(void));
void tb_hw_to_digest_registers(const uint8_t *digest, uint32_t len);
void tb_hw_aes_setup(uint32_t mode, const uint8_t *key, uint32_t key_len, const uint8_t *iv, uint32_t iv_len,
                     void (*setup)(void));
void tb_hw_aes_blocks(const uint8_t *in, uint32_t n, int out, void (*doorbell)(void));

/* A PKA operation's register traffic: tb_pka_load writes one big-endian
 * operand of len bytes into the PKA RAM at word `at` (least significant
 * word first, as the PKA takes them) and the zero word after it that ST's
 * HAL writes; tb_pka_run writes the mode with
 * START, rings the operation's doorbell, polls BUSY and clears the end
 * flag; tb_pka_read reads an operand back (the stand-in's result, left
 * there by tb_pka_store). */
void tb_pka_load(uint32_t at, const uint8_t *be, uint32_t len);
void tb_pka_load_word(uint32_t at, uint32_t value);
void tb_pka_run(uint32_t mode, void (*doorbell)(void));
void tb_pka_read(uint32_t at, uint8_t *be, uint32_t len);
void tb_pka_store(uint32_t at, const uint8_t *be, uint32_t len);

/* ECDSA and ECC on NIST P-256, what both libraries' drivers hand the PKA
 * (RM0456 lists the operands per mode): operand slots in the PKA RAM, each
 * 8 words and the closing zero word after the three single words (the RAM's
 * word offsets are this model's, not the manual's), and the modes. */
#define TB_P256_BYTES 32u
enum { TB_PKA_N_BITS, TB_PKA_P_BITS, TB_PKA_A_SIGN, TB_PKA_A, TB_PKA_B, TB_PKA_P, TB_PKA_K, TB_PKA_GX, TB_PKA_GY,
       TB_PKA_Z, TB_PKA_D, TB_PKA_N, TB_PKA_QX, TB_PKA_QY, TB_PKA_R, TB_PKA_S, TB_PKA_OUT, TB_PKA_SLOTS };
#define TB_PKA_AT(slot)                                                                                               \
    ((slot) < TB_PKA_A ? (uint32_t)(slot) : TB_PKA_A + ((uint32_t)(slot) - TB_PKA_A) * (TB_P256_BYTES / 4u + 1u))
#define TB_PKA_MODE_ECC_MUL 0x20u
#define TB_PKA_MODE_ECDSA_SIGN 0x24u
#define TB_PKA_MODE_ECDSA_VERIFY 0x26u
#define TB_PKA_VERIFY_VALID 0xD60Du /* the verdict word a valid signature leaves (the stand-in's) */
extern const uint8_t tb_p256_gx[TB_P256_BYTES], tb_p256_gy[TB_P256_BYTES];

/* The curve's operands (lengths, a's sign and |a|, p, G, n) and, for ECDSA,
 * the hash's leftmost 256 bits (hash NULL: none, for a scalar
 * multiplication); tb_pka_load_p256_b the coefficient b (sign and ECC
 * multiplication take it, verify does not). */
void tb_pka_load_p256_curve(const uint8_t *hash, uint32_t hash_len);
void tb_pka_load_p256_b(void);

/* RSA-2048's modular exponentiation (RM0456 lists its operands per mode):
 * the exponent's and the modulus's bit lengths, then operands of 64 words
 * (A, the modulus, the exponent, the result) or, for the CRT mode's primes
 * and their exponents, 32, each with its closing zero word. */
#define TB_RSA_2048_BYTES 256u
enum { TB_RSA_EXP_BITS, TB_RSA_MOD_BITS, TB_RSA_A, TB_RSA_MOD = TB_RSA_A + 65, TB_RSA_EXP = TB_RSA_MOD + 65,
       TB_RSA_OUT = TB_RSA_EXP + 65, TB_RSA_P = TB_RSA_OUT + 65, TB_RSA_Q = TB_RSA_P + 33, TB_RSA_DP = TB_RSA_Q + 33,
       TB_RSA_DQ = TB_RSA_DP + 33, TB_RSA_QINV = TB_RSA_DQ + 33, TB_RSA_END = TB_RSA_QINV + 33 };
#define TB_PKA_MODE_MODEXP 0x00u     /* the Montgomery parameter computed, then the exponentiation */
#define TB_PKA_MODE_RSA_CRT 0x07u    /* RM0456 Table 521's note: CRT exponentiation */

#endif
