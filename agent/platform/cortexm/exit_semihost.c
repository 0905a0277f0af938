/* The end of the firmware, shared by the Cortex-M and RV32 start-ups (each
 * includes this where the code stood, so its image keeps its layout): an
 * emulated board ends QEMU through semihosting; a real one, without a
 * debugger attached (semihosting would fault there), spins. */
#include "cortexm.h"

#include <stdint.h>

#if TB_SEMIHOSTING
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUNTIME_ERROR 0x20023

static void semihost_exit(uint32_t reason)
{
#if defined(__riscv)
    /* RISC-V semihosting: the Arm operation numbers (cortexm.h) */
    register uint32_t a0 __asm__("a0") = SYS_EXIT;
    register uint32_t a1 __asm__("a1") = reason;
    __asm__ volatile(TB_RV32_SEMIHOST_TRAP : "+r"(a0) : "r"(a1) : "memory");
#else
    register uint32_t r0 __asm__("r0") = SYS_EXIT;
    register uint32_t r1 __asm__("r1") = reason;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
#endif
}
#endif

void tb_cortexm_exit(int failed)
{
    tb_cortexm_flush_line();
#if TB_SEMIHOSTING
    semihost_exit(failed ? ADP_STOPPED_RUNTIME_ERROR : ADP_STOPPED_APPLICATION_EXIT);
#else
    (void)failed;
#endif
    for (;;) __asm__ volatile("wfi");
}
