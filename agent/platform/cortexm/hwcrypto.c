/* The crypto peripheral's register block and its hooks (hwcrypto.h). The
 * cycle model finds the hooks by their symbols: each body stores a value of
 * its own so that no two are folded into one function. */
#include "hwcrypto.h"

tb_hw_regs tb_hw;

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
TB_HW_HOOK(tb_hw_block_aes_cbc, 0x203u)
TB_HW_HOOK(tb_hw_block_aes_gcm, 0x205u)
TB_HW_HOOK(tb_hw_setup_sha1, 0x300u)
TB_HW_HOOK(tb_hw_setup_sha256, 0x301u)
TB_HW_HOOK(tb_hw_setup_aes_cbc, 0x303u)
TB_HW_HOOK(tb_hw_setup_aes_gcm, 0x305u)
