/* Micro-kernels for the Cortex-M7 issue rules (agent/qemu-plugin/cyclemodel_m7.c),
 * each between two calls of `mark`; their expected cycles are computed by hand
 * in tests/targets/test_cyclemodel.py from the rules' sources. Registers hold whatever
 * they hold: only r0 (a RAM address) is read as an address. */
#include "cyclemodel_head.inc"
    ldr r0, =0x20000000
    bl mark
    /* empty: only the call overhead */
    bl mark
    /* load_alu: two loads, each beside an independent ALU instruction */
    ldr r1, [r0]
    adds r2, #1
    ldr r3, [r0, #4]
    adds r4, #1
    bl mark
    /* load_use: an ALU instruction reads the word just loaded */
    ldr r1, [r0]
    adds r2, r1, #1
    bl mark
    /* byte_load_use: the same after a byte load */
    ldrb r1, [r0]
    adds r2, r1, #1
    bl mark
    /* alu_address: a load addressed by the result just computed */
    adds r1, r0, #4
    ldr r2, [r1]
    bl mark
    /* stores: four independent stores */
    str r1, [r0]
    str r2, [r0, #4]
    str r3, [r0, #8]
    str r4, [r0, #12]
    bl mark
    /* load_store: loads and stores alternating */
    ldr r1, [r0]
    str r2, [r0, #4]
    ldr r3, [r0, #8]
    str r4, [r0, #12]
    bl mark
    /* multiply_use: an ALU instruction reads a multiply's result */
    mul r1, r2, r3
    adds r4, r1, #1
    bl mark
    /* mac_chain: two UMAAL on the same accumulators */
    umaal r1, r2, r3, r4
    umaal r1, r2, r5, r6
    bl mark
    /* slot0: UXTB issues only first of a pair */
    adds r1, #1
    uxtb r2, r3
    uxtb r4, r5
    adds r6, #1
    bl mark
    /* shifted: two shifted-operand instructions, then an ALU one */
    add.w r1, r2, r3, lsl #2
    add.w r4, r5, r6, lsl #2
    adds r7, #1
    bl mark
    /* ldrd: two LDRD */
    ldrd r1, r2, [r0]
    ldrd r3, r4, [r0, #8]
    bl mark
    /* multiply_two_back: a multiply's result read two instructions later */
    mul r1, r2, r3
    adds r4, #1
    adds r5, r1, #1
    bl mark
    /* address_two_back: an address computed two instructions before */
    adds r1, r0, #4
    adds r2, #1
    ldr r3, [r1]
    bl mark
    /* flags_carry: ADCS reads the carry ADDS just set */
    adds r1, r2, r3
    adcs r4, r5, r6
    bl mark
    /* flags_shifted_compare: a compare with a shifted operand, then ADCS */
    cmp.w r1, r2, lsl #2
    adcs r3, r4
    bl mark
    /* flags_branch: the same compare, then a conditional branch (to the next instruction either way) */
    cmp.w r1, r2, lsl #2
    beq 1f
1:
    bl mark
    /* flags_predicated: an IT-block instruction reads the flags of a compare with a shifted operand */
    cmp.w r1, r2, lsl #2
    it eq
    addeq r4, #1
    bl mark
    semihosting_exit
    .ltorg
