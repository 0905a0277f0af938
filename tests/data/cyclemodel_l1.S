/* A kernel for the set-associative cache rule (the Cortex-M7 L1 D-cache:
 * 32-byte lines, tests/targets/test_cyclemodel.py): one routine loads from three
 * table lines 64 bytes apart and the first again, called cold then warm
 * between marks. With 4 lines of 2 ways (2 sets), the three lines share
 * set 0 and evict each other; with 4 lines in one set (fully associative)
 * they all stay. Cortex-M4 encoding, linked at 0 (all of it "flash"). */
#define MARK_ALIGN 32
#define RESET_ALIGN 32
#include "cyclemodel_head.inc"
    bl mark
    bl set_loads              /* cold */
    bl mark
    bl set_loads              /* warm */
    bl mark
    semihosting_exit

    .balign 32
    .thumb_func
set_loads:                    /* lines A, A+2, A+4 (A even: all in set 0 of 2), then A again */
    adr r0, table
    ldr r1, [r0]
    ldr r2, [r0, #64]
    ldr r3, [r0, #128]
    ldr r1, [r0]
    bx lr

    .balign 64
table:
    .fill 40, 4, 0
    .ltorg
