/* Internals shared by the Cortex-M platform files. */
#ifndef TB_CORTEXM_H
#define TB_CORTEXM_H

#include <stddef.h>
#include <stdint.h>

/* The board's counter timer interrupt (external IRQ number). */
#ifndef TB_TIMER_IRQ
#define TB_TIMER_IRQ 8
#endif
/* The RAM budget a board sets in its board.cmake (CMake always defines
 * them for firmware; these are the defaults of core/agent.c, core/protocol.c and the MPS2). */
#ifndef TB_STACK_BYTES
#define TB_STACK_BYTES (64u * 1024u)
#endif
#ifndef TB_MAX_LINE
#define TB_MAX_LINE (1u << 16)
#endif
#ifndef TB_MAX_RECORD
#define TB_MAX_RECORD (1u << 17)
#endif
#ifndef TB_PAINTED_STACKS /* a one-side image (tls-device) has one, shared by primitives and its side */
#define TB_PAINTED_STACKS 3u /* one for primitives, one per handshake side */
#endif
/* Emulated boards end through semihosting; real ones spin. */
#ifndef TB_SEMIHOSTING
#define TB_SEMIHOSTING 1
#endif
/* CFSR/HFSR exist on ARMv7-M (M3/M4/M7) and Armv8-M mainline (M33), not on ARMv6-M (M0). */
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__)
#define TB_HAVE_FAULT_STATUS 1
#else
#define TB_HAVE_FAULT_STATUS 0
#endif

/* RISC-V semihosting's entry (QEMU -semihosting): the Arm operation in a0,
 * its argument in a1, entered by this sequence, uncompressed and in one page. */
#define TB_RV32_SEMIHOST_TRAP                                                                                      \
    ".option push\n.option norvc\n.balign 16\nslli x0, x0, 0x1f\nebreak\nsrai x0, x0, 7\n.option pop\n"

void tb_cortexm_exit(int failed);
/* Ends a half-written output line so the fault record starts on its own. */
void tb_cortexm_flush_line(void);
uint32_t tb_cortexm_heap_failures(void);
size_t tb_cortexm_heap_arena(void);
size_t tb_cortexm_primitive_stack(void);
/* The clock libraries see (X.509 validity, ticket lifetimes): the time the
 * host sent with "clock", frozen, so runs stay deterministic. */
void tb_cortexm_time(void *timeval);
/* The cycle model's marker (platform_cortexm.c): the plugin writes its count
 * when this starts, and it returns that count. */
uint64_t tb_model_mark(void);

#endif
