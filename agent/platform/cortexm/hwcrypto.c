/* The crypto peripheral's register block and its hooks (hwcrypto.h). The
 * cycle model finds the hooks by their symbols: each body stores a value of
 * its own so that no two are folded into one function. */
#include "hwcrypto.h"

#include <string.h>

tb_hw_regs tb_hw;
tb_pka_regs tb_pka;

uint32_t tb_model_accelerators(void); /* platform_cortexm.c: from the model's file */

uint32_t tb_hw_available(void)
{
    return tb_model_accelerators();
}

#define TB_HW_HOOK(name, value)                                                                                       \
    __attribute__((noinline, used)) void name(void)                                                                    \
    {                                                                                                                  \
        tb_hw.sr = (value);                                                                                            \
    }

TB_HW_HOOK(tb_hw_standin_begin, 0x100u)
TB_HW_HOOK(tb_hw_standin_end, 0x101u)
TB_HW_HOOK(tb_hw_block_sha1, 0x200u)
TB_HW_HOOK(tb_hw_block_sha256, 0x201u)
TB_HW_HOOK(tb_hw_block_aes_ecb, 0x202u)
TB_HW_HOOK(tb_hw_block_aes_cbc, 0x203u)
TB_HW_HOOK(tb_hw_block_aes_gcm, 0x205u)
TB_HW_HOOK(tb_hw_header_aes_gcm, 0x405u)
TB_HW_HOOK(tb_hw_setup_sha1, 0x300u)
TB_HW_HOOK(tb_hw_setup_sha256, 0x301u)
TB_HW_HOOK(tb_hw_setup_aes_ecb, 0x302u)
TB_HW_HOOK(tb_hw_setup_aes_cbc, 0x303u)
TB_HW_HOOK(tb_hw_setup_aes_gcm, 0x305u)
TB_HW_HOOK(tb_hw_op_ecdsa_p256_sign, 0x506u)
TB_HW_HOOK(tb_hw_op_ecdsa_p256_verify, 0x507u)
TB_HW_HOOK(tb_hw_op_ecc_p256_mul, 0x508u)
TB_HW_HOOK(tb_hw_op_rsa_2048_private, 0x509u)
TB_HW_HOOK(tb_hw_op_rsa_2048_public, 0x50au)

/* ---- the register traffic (hwcrypto.h) ---- */

#define HASH_BLOCK 64u
#define AES_BLOCK 16u

void tb_hw_hash_update(const uint8_t *in, uint32_t n, uint32_t pending, void (*doorbell)(void))
{
    uint32_t blocks = (pending + n) / HASH_BLOCK;
    uint32_t words = n / 4u;
    /* the words that complete the first block, then 16 a block */
    uint32_t until = blocks ? (HASH_BLOCK - pending + 3u) / 4u : words;
    for (uint32_t w = 0; w < words; w++) {
        uint32_t word;
        memcpy(&word, in + 4u * w, 4u); /* one (unaligned) load on ARMv7-M */
        tb_hw.din = word;
        if (w + 1u == until && blocks) {
            doorbell();
            tb_hw_wait();
            blocks--;
            until += HASH_BLOCK / 4u;
        }
    }
    if (n % 4u) { /* the last bytes, in the low end of one more word */
        uint32_t word = 0;
        memcpy(&word, in + 4u * words, n % 4u);
        tb_hw.din = word;
    }
    while (blocks--) { /* a block the last bytes completed */
        doorbell();
        tb_hw_wait();
    }
}

void tb_hw_hash_final(uint32_t pending, uint8_t *digest, uint32_t digest_len, void (*setup)(void),
                      void (*doorbell)(void))
{
    /* the padding: 0x80 and the 64-bit length need 9 bytes; a second block when they do not fit */
    uint32_t blocks = pending + 9u > HASH_BLOCK ? 2u : 1u;
    setup();
    tb_hw.str = (8u * (pending % 4u)) | TB_HW_STR_DCAL;
    while (blocks--) {
        doorbell();
        tb_hw_wait();
    }
    for (uint32_t w = 0; w < digest_len / 4u; w++) {
        uint32_t word = tb_hw.hr[w];
        memcpy(digest + 4u * w, &word, 4u);
    }
}

void tb_hw_to_digest_registers(const uint8_t *digest, uint32_t len)
{
    for (uint32_t w = 0; w < len / 4u; w++) {
        uint32_t word;
        memcpy(&word, digest + 4u * w, 4u);
        tb_hw.hr[w] = word;
    }
}

static void write_words(volatile uint32_t *reg, int step, const uint8_t *p, uint32_t n)
{
    for (uint32_t w = 0; w < n / 4u; w++) {
        uint32_t word;
        memcpy(&word, p + 4u * w, 4u);
        *reg = word;
        reg += step;
    }
    if (n % 4u) {
        uint32_t word = 0;
        memcpy(&word, p + n - n % 4u, n % 4u);
        *reg = word;
    }
}

void tb_hw_aes_setup(uint32_t mode, const uint8_t *key, uint32_t key_len, const uint8_t *iv, uint32_t iv_len,
                     void (*setup)(void))
{
    tb_hw.cr = mode;
    write_words(tb_hw.keyr, 1, key, key_len);
    if (iv_len) write_words(tb_hw.ivr, 1, iv, iv_len);
    if (setup != NULL) setup();
    tb_hw_wait();
}

void tb_hw_aes_blocks(const uint8_t *in, uint32_t n, int out, void (*doorbell)(void))
{
    for (uint32_t off = 0; off < n; off += AES_BLOCK) {
        uint32_t len = n - off < AES_BLOCK ? n - off : AES_BLOCK;
        write_words(&tb_hw.din, 0, in + off, len);
        doorbell();
        tb_hw_wait();
        if (out) {
            for (uint32_t w = 0; w < (len + 3u) / 4u; w++) tb_hw.sink = tb_hw.dout;
        }
    }
}

/* ---- the PKA's (hwcrypto.h) ---- */

#define PKA_CR_START (1u << 1)
#define PKA_CLRFR_PROCENDFC (1u << 17)

static uint32_t be_word(const uint8_t *be, uint32_t len, uint32_t w)
{
    /* word w from the least significant end of a big-endian number */
    uint32_t word = 0;
    for (uint32_t b = 0; b < 4u; b++) {
        uint32_t i = 4u * w + b;
        if (i < len) word |= (uint32_t)be[len - 1u - i] << (8u * b);
    }
    return word;
}

void tb_pka_load_word(uint32_t at, uint32_t value)
{
    tb_pka.ram[at] = value;
}

void tb_pka_load(uint32_t at, const uint8_t *be, uint32_t len)
{
    uint32_t words = (len + 3u) / 4u;
    for (uint32_t w = 0; w < words; w++) tb_pka.ram[at + w] = be_word(be, len, w);
    tb_pka.ram[at + words] = 0; /* the zero word that ends an operand, as ST's HAL writes it */
}

void tb_pka_run(uint32_t mode, void (*doorbell)(void))
{
    tb_pka.cr = (mode << 8) | PKA_CR_START | 1u; /* MODE, START, EN */
    doorbell();
    while (tb_pka.sr & TB_HW_SR_BUSY) {
    }
    tb_pka.clrfr = PKA_CLRFR_PROCENDFC;
}

void tb_pka_read(uint32_t at, uint8_t *be, uint32_t len)
{
    for (uint32_t w = 0; w < (len + 3u) / 4u; w++) {
        uint32_t word = tb_pka.ram[at + w];
        for (uint32_t b = 0; b < 4u; b++) {
            uint32_t i = 4u * w + b;
            if (i < len) be[len - 1u - i] = (uint8_t)(word >> (8u * b));
        }
    }
}

void tb_pka_store(uint32_t at, const uint8_t *be, uint32_t len)
{
    for (uint32_t w = 0; w < (len + 3u) / 4u; w++) tb_pka.ram[at + w] = be_word(be, len, w);
}

_Static_assert(TB_PKA_AT(TB_PKA_SLOTS) <= TB_PKA_RAM_WORDS, "the operands fit the PKA RAM block");
_Static_assert(TB_RSA_END <= TB_PKA_RAM_WORDS, "RSA-2048's operands fit the PKA RAM block");

/* NIST P-256 (FIPS 186-4, D.1.2.3): a = p - 3, so a's sign is negative and |a| is 3 */
static const uint8_t p256_p[TB_P256_BYTES] = {
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t p256_b[TB_P256_BYTES] = {
    0x5a, 0xc6, 0x35, 0xd8, 0xaa, 0x3a, 0x93, 0xe7, 0xb3, 0xeb, 0xbd, 0x55, 0x76, 0x98, 0x86, 0xbc,
    0x65, 0x1d, 0x06, 0xb0, 0xcc, 0x53, 0xb0, 0xf6, 0x3b, 0xce, 0x3c, 0x3e, 0x27, 0xd2, 0x60, 0x4b};
static const uint8_t p256_n[TB_P256_BYTES] = {
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51};
const uint8_t tb_p256_gx[TB_P256_BYTES] = {
    0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40, 0xf2,
    0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96};
const uint8_t tb_p256_gy[TB_P256_BYTES] = {
    0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16,
    0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5};
static const uint8_t p256_a_abs[1] = {3};

void tb_pka_load_p256_curve(const uint8_t *hash, uint32_t hash_len)
{
    tb_pka_load_word(TB_PKA_AT(TB_PKA_N_BITS), 256u);
    tb_pka_load_word(TB_PKA_AT(TB_PKA_P_BITS), 256u);
    tb_pka_load_word(TB_PKA_AT(TB_PKA_A_SIGN), 1u); /* a is negative */
    tb_pka_load(TB_PKA_AT(TB_PKA_A), p256_a_abs, sizeof(p256_a_abs));
    tb_pka_load(TB_PKA_AT(TB_PKA_P), p256_p, TB_P256_BYTES);
    tb_pka_load(TB_PKA_AT(TB_PKA_GX), tb_p256_gx, TB_P256_BYTES);
    tb_pka_load(TB_PKA_AT(TB_PKA_GY), tb_p256_gy, TB_P256_BYTES);
    tb_pka_load(TB_PKA_AT(TB_PKA_N), p256_n, TB_P256_BYTES);
    /* the hash's leftmost 256 bits (ECDSA's; none for a scalar multiplication) */
    if (hash != NULL) tb_pka_load(TB_PKA_AT(TB_PKA_Z), hash, hash_len < TB_P256_BYTES ? hash_len : TB_P256_BYTES);
}

void tb_pka_load_p256_b(void)
{
    tb_pka_load(TB_PKA_AT(TB_PKA_B), p256_b, TB_P256_BYTES);
}
