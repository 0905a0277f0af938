/* Micro-kernels for the cycle model's tests: each runs between two calls of
 * `mark` (the plugin's marker), so the model cycles between consecutive
 * marks are the kernel plus a fixed call overhead (the `empty` kernel).
 * Their expected costs follow from the Technical Reference Manuals; see
 * tests/targets/test_cyclemodel.py. Built per core by the tests themselves. */
#include "cyclemodel_head.inc"
    ldr r0, =0x20000000
    /* RAM: words 0..7 point at word 0 (a chain of dependent loads) */
    mov r1, r0
    str r1, [r0]
    str r1, [r0, #4]
    str r1, [r0, #8]
    str r1, [r0, #12]
    bl mark
    /* empty: only the call overhead */
    bl mark
    /* dependent loads: each address is the previous load's result */
    ldr r1, [r0]
    ldr r1, [r1]
    ldr r1, [r1]
    ldr r1, [r1]
    ldr r1, [r1]
    ldr r1, [r1]
    ldr r1, [r1]
    ldr r1, [r1]
    bl mark
    /* back-to-back independent loads */
    ldr r1, [r0]
    ldr r2, [r0, #4]
    ldr r3, [r0, #8]
    ldr r4, [r0, #12]
    ldr r5, [r0]
    ldr r6, [r0, #4]
    ldr r7, [r0, #8]
    ldr r1, [r0, #12]
    bl mark
    /* one LDM of 8 registers (ARMv6-M: low registers only, so 7 + the base's write-back form is avoided) */
#if defined(__ARM_ARCH_6M__)
    mov r1, r0
    ldm r1!, {r2, r3, r4, r5, r6, r7}
#else
    ldm r0, {r1, r2, r3, r4, r5, r6, r7, r8}
#endif
    bl mark
    /* ten turns of a count-down loop: nine taken branches, one not taken */
    movs r2, #10
1:  subs r2, r2, #1
    bne 1b
    bl mark
#if !defined(__ARM_ARCH_6M__)
    /* four long multiplies */
    umull r1, r2, r3, r4
    umull r1, r2, r3, r4
    umull r1, r2, r3, r4
    umull r1, r2, r3, r4
    bl mark
    /* four multiply-accumulates */
    mla r1, r2, r3, r4
    mla r1, r2, r3, r4
    mla r1, r2, r3, r4
    mla r1, r2, r3, r4
    bl mark
#endif
    /* four literal loads (constants in the code region, i.e. flash) */
    ldr r1, lit
    ldr r2, lit
    ldr r3, lit
    ldr r4, lit
    bl mark
    /* four independent single-cycle ALU instructions (Cortex-M7: dual issue in pairs) */
    adds r1, #1
    adds r2, #1
    adds r3, #1
    adds r4, #1
    bl mark
    semihosting_exit
    .balign 4
lit:
    .word 0x12345678
    .ltorg
