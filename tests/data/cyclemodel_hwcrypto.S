/* A kernel for the cycle model's crypto-accelerator hooks (tests/targets/test_hwcrypto_model.py):
 * a driver-shaped routine between two marks: BLOCKS blocks of 16 word stores
 * into a peripheral-shaped RAM block, each followed by a call to the
 * peripheral's doorbell (the model charges its busy time there), and a
 * stand-in between standin_begin and standin_end that runs WORK turns of
 * loads from a flash table (which the model must exclude, caches included).
 * Cortex-M4, linked at 0 (all of it "flash"); BLOCKS and WORK from -D. */
    .syntax unified
    .thumb
    .text
    .balign 4
vectors:
    .word 0x20001000          /* initial stack */
    .word reset + 1

    .balign 16
    .global mark
    .thumb_func
mark:
    bx lr

    .global doorbell
    .thumb_func
doorbell:
    bx lr

    .global standin_begin
    .thumb_func
standin_begin:
    bx lr

    .global standin_end
    .thumb_func
standin_end:
    bx lr

    .balign 16
    .thumb_func
    .global reset
reset:
    bl mark
    bl driver
    bl mark
    bl driver                 /* again: the caches as the first call left them */
    bl mark
    movs r0, #0x18            /* semihosting SYS_EXIT, ADP_Stopped_ApplicationExit */
    ldr r1, =0x20026
    bkpt 0xab
2:  b 2b

    .thumb_func
driver:
    push {r4, lr}
    bl standin_begin          /* the stand-in computes the result: excluded */
    ldr r2, =WORK
    ldr r4, =table
3:  and r0, r2, #63
    lsls r0, r0, #4
    ldr r3, [r4, r0]          /* one 16-byte flash line per turn, 64 of them */
    subs r2, r2, #1
    bne 3b
    bl standin_end
    ldr r1, =0x20000800       /* the peripheral's data-in register */
    ldr r2, =BLOCKS
4:  str r3, [r1]              /* 16 words of one block: counted */
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    str r3, [r1]
    bl doorbell
    subs r2, r2, #1
    bne 4b
    pop {r4, pc}

    .ltorg
    .balign 16
table:
    .fill 256, 4, 0x5a5a5a5a
