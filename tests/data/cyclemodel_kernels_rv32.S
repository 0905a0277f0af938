/* Micro-kernels for the RV32 class cycle model (agent/qemu-plugin/
 * cyclemodel_rv32.c): each runs between two calls of `mark` (the plugin's
 * marker), so the model cycles between consecutive marks are the kernel plus
 * a fixed call overhead (the `empty` kernel). Their expected costs follow
 * from the model's rules (SiFive E31 manual figures); see
 * tests/targets/test_new_cores.py. Built by the test itself. */
    .text
    .globl reset
reset:
    li sp, 0x80100000
    li a0, 0x80100000
    sw a0, 0(a0)              /* word 0 points at itself: a chain of dependent loads */
    sw a0, 4(a0)
    li a2, 7
    li a3, 3
    call mark
    /* empty: only the call overhead */
    call mark
    /* dependent loads: each address is the previous LW's result */
    lw a1, 0(a0)
    lw a1, 0(a1)
    lw a1, 0(a1)
    lw a1, 0(a1)
    lw a1, 0(a1)
    lw a1, 0(a1)
    lw a1, 0(a1)
    lw a1, 0(a1)
    call mark
    /* independent loads */
    lw a1, 0(a0)
    lw a4, 4(a0)
    lw a5, 0(a0)
    lw t1, 4(a0)
    lw t2, 0(a0)
    lw t3, 4(a0)
    lw t4, 0(a0)
    lw t5, 4(a0)
    call mark
    /* a byte load whose result the next instruction uses */
    lbu a1, 0(a0)
    add a4, a1, a1
    call mark
    /* a multiply whose result the next instruction uses */
    mul a1, a2, a3
    add a4, a1, a1
    call mark
    /* a divide */
    divu a1, a2, a3
    call mark
    /* a counted loop: LI, then 10 x (ADDI, BNEZ back) */
    li t0, 10
1:  addi t0, t0, -1
    bnez t0, 1b
    call mark
    /* a forward branch taken */
    beqz zero, 2f
    nop
2:  call mark
    /* a forward branch not taken */
    bnez zero, 3f
    nop
3:  call mark
    /* an indirect jump (not a return) */
    la t1, 4f
    jr t1
4:  call mark
    /* a CSR read whose result the next instruction uses */
    csrr a1, mscratch
    add a4, a1, a1
    call mark
    /* the end: semihosting SYS_EXIT, ADP_Stopped_ApplicationExit */
    li a0, 0x18
    li a1, 0x20026
    .option push
    .option norvc
    .balign 16
    slli x0, x0, 0x1f
    ebreak
    srai x0, x0, 7
    .option pop
5:  j 5b

    .globl mark
mark:
    ret
