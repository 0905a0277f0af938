/* A kernel for the cycle model's instruction cache (tests/targets/test_cyclemodel.py):
 * a loop whose one translation block spans three 16-byte flash lines and
 * branches back to itself, run 1 and 11 times between marks. Cortex-M4,
 * linked at 0 (all of it "flash"). */
#define MARK_ALIGN 16
#define RESET_ALIGN 16
#include "cyclemodel_head.inc"
    bl mark
    movs r0, #1
    bl loop3
    bl mark
    movs r0, #11
    bl loop3
    bl mark
    semihosting_exit

    .balign 16
    .thumb_func
loop3:
    b 1f                      /* the loop's block starts at a line: it is only ever reached by a branch */
    .balign 16
1:  .rept 22
    nop
    .endr
    subs r0, #1
    bne 1b                    /* 22 x 2 + 2 + 2 bytes: lines L, L+1, L+2 */
    bx lr
