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
