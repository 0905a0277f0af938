/* Eight independent loads that straddle a 1 KiB boundary, where QEMU ends a
 * translation block: the cycle model must charge them as in one block
 * (tests/targets/test_cyclemodel.py). */
#include "cyclemodel_head.inc"
    ldr r0, =0x20000000
    bl mark
    bl mark
    b 1f
    .ltorg
    .org 0x3f8
1:  ldr r1, [r0]
    ldr r2, [r0, #4]
    ldr r3, [r0, #8]
    ldr r4, [r0, #12]
    ldr r5, [r0]
    ldr r6, [r0, #4]
    ldr r7, [r0, #8]
    ldr r1, [r0, #12]
    bl mark
    movs r0, #0x18
    ldr r1, =0x20026
    bkpt 0xab
    .ltorg
