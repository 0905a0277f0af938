/* The RV32 class cycle model (cyclemodel_rv32.c): the same instruction
 * record and cost shape as the Cortex-M tables, for RISC-V disassembly. */
#ifndef CYCLEMODEL_RV32_H
#define CYCLEMODEL_RV32_H

#include "cyclemodel_tables.h"

#define CM_RV32_CORE "rv32imc"

/* Classifies QEMU 7.2's RISC-V disassembly ("lw a5,0(a0)", "bnez a0,-12",
 * "ret"); registers are x0..x31 as mask bits. Fields the Arm model uses for
 * other things carry RISC-V facts here: nregs is the result latency, addr
 * (for a branch) 1 when it goes backward, (for RET) 1: predicted, (for a
 * CSR instruction) 1 when it writes the CSR. */
void cm_rv32_classify(const char *disas, cm_insn *out);
/* The cost of cur after prev (the previous instruction of the same block;
 * cm_insn_none at a block's start). */
cm_cost cm_rv32_cost_of(const cm_insn *cur, const cm_insn *prev);
/* Cycles from a result-producing instruction until its result is usable by
 * the next one (kept in cm_insn.nregs, unused for RISC-V otherwise). */
uint32_t cm_rv32_latency(const cm_insn *i);

#endif
