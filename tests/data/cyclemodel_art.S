/* A kernel for the cycle model's ART accelerator rule (tests/targets/test_cyclemodel.py):
 * code and a table in 16-byte flash lines, each routine called twice between
 * marks, cold then warm. Cortex-M4, linked at 0 (all of it "flash"). */
#define MARK_ALIGN 16
#define RESET_ALIGN 16
#include "cyclemodel_head.inc"
                              /* reset: line R0 */
    bl mark
    bl line_seq               /* cold */
    bl mark
    bl line_seq               /* warm */
    bl mark                   /* line R1: reached by line_seq's return */
    bl flash_loads            /* cold */
    bl mark
    bl flash_loads            /* warm */
    bl mark                   /* line R2: reached by flash_loads' return */
    semihosting_exit

    .balign 16
    .thumb_func
line_seq:                     /* three lines: 4 + 4 single-cycle 32-bit ADDs, then BX LR */
    add.w r0, r0, #1
    add.w r0, r0, #1
    add.w r0, r0, #1
    add.w r0, r0, #1
    add.w r0, r0, #1
    add.w r0, r0, #1
    add.w r0, r0, #1
    add.w r0, r0, #1
    bx lr

    .balign 16
    .thumb_func
flash_loads:                  /* one line of code; loads from two lines of the table */
    adr r0, table
    ldr r1, [r0]
    ldr r2, [r0, #4]
    ldr r3, [r0, #16]
    bx lr

    .balign 16
table:
    .word 1, 2, 3, 4, 5, 6, 7, 8
    .ltorg
