/* The Cortex-M7's issue rules: which neighbours issue together and what a
 * dependent instruction waits.
 *
 * Arm publishes no per-instruction timing table for the Cortex-M7 (DDI 0489
 * gives the pipeline's structure: six stages, in-order dual issue). The
 * rules here are those of Arm's own scheduling model for the core, the
 * Cortex-M7 machine model in LLVM (llvm/lib/Target/ARM/ARMScheduleM7.td,
 * contributed by Arm in LLVM review D91355, 2020), read in llvm-project at
 * commit 6a5553319e1b:
 *  - "IssueWidth = 2", in order; "two ALU, two LOAD, a STORE, a MAC, a
 *    BRANCH and a VFP pipe": two loads, or a load and a store, or a load and
 *    an ALU instruction issue in one cycle; two stores, two multiplies, or
 *    two instructions that need the one early shifter (M7UnitShift1: shifted
 *    register operands, bitfield, REV/RBIT, PKH, SSAT/USAT, SXTA/UXTA) do not.
 *  - EX2 is the "zero" point: an ALU result is ready for the next cycle
 *    (latency 1); a word load's data is "fast load data" at EX2 (latency 1);
 *    byte, halfword and exclusive loads are "M7SlowLoad" (latency 2); a
 *    multiply or multiply-accumulate has latency 2 (its accumulator is read
 *    a stage later: ReadMAC advance 1, so a chain of UMLAL/UMAAL on the same
 *    accumulators does not wait); a store reads its data a stage later
 *    (M7Read_EX2).
 *  - "Address operands are needed earlier": a load or store address is read
 *    at EX1 (M7Read_ISS, one cycle earlier), so an address computed by the
 *    instruction just before waits one cycle more than its latency; a
 *    shifted operand from a load also waits one more (M7Ex1ReadNoFastBypass).
 *  - single issue ("cannot be dual-issued"): LDM/STM/PUSH/POP, LDRD/STRD,
 *    divides, MRS/MSR, barriers, TBB/TBH; "BeginGroup" (first of a pair
 *    only): the DSP/SIMD operations, extends, REV/RBIT, bitfields, CLZ and
 *    LDREX (cm_insn.slot0).
 *  - LDRD and STRD take one load (store) slot: one cycle (the M7's 64-bit
 *    data path), issued alone.
 * Observations published under #CortexM7 on mastodawn.com agree with two
 * of them (one shifted-operand instruction per cycle; DSP/SIMD instructions
 * pair only from the lower address). Direct branches cost one cycle, no
 * refill (DDI 0489, the Prefetch Unit's Branch Target Address Cache).
 *
 * Only the previous instruction is seen (as for the M3/M4 rules): a result
 * two instructions back never stalls. What the M4 table gives and the
 * sources above do not change (LDM/STM 1+N, register branches, divides)
 * keeps the M4 cost. */
#include "cyclemodel_tables.h"

static int single_issue_only(const cm_insn *i)
{
    return i->writes_pc || i->cls == CM_LOAD2 || i->cls == CM_STORE2 || i->cls == CM_LOADM ||
           i->cls == CM_STOREM || i->cls == CM_DIV || i->cls == CM_OTHER || i->cls == CM_SYSREG ||
           i->cls == CM_BARRIER || i->cls == CM_ISB || i->cls == CM_TABLE;
}

static int multiply(const cm_insn *i)
{
    return i->cls == CM_MUL || i->cls == CM_MLA || i->cls == CM_MULL || i->cls == CM_MLAL || i->cls == CM_DSPMUL;
}

/* Cycles the instruction occupies the issue stage, before stalls and wait states. */
static uint32_t issue_cycles(const cm_config *cfg, const cm_insn *i)
{
    switch (i->cls) {
    case CM_LOAD:
    case CM_STORE:
    case CM_LOAD2:
    case CM_STORE2:
    case CM_BRANCH: /* the BTAC: no refill for a direct branch */
    case CM_BL: return 1;
    default: {
        cm_insn none;
        cm_insn_none(&none);
        return cm_table_cost(cfg, i, &none);
    }
    }
}

/* Cycles after its issue until the result can be read at EX2. */
static uint32_t latency(const cm_insn *i)
{
    if (i->cls == CM_LOAD) return i->narrow ? 2 : 1;
    if (multiply(i)) return 2;
    return 1;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

/* The cycles cur waits for prev's result, issued just before it. */
static uint32_t stall(const cm_insn *prev, const cm_insn *cur)
{
    uint32_t lat = latency(prev), wait = 0;
    if (prev->dst & cur->addr) wait = lat; /* read at EX1: one cycle before EX2 */
    uint32_t data = prev->dst & cur->uses & ~cur->addr;
    if (data) {
        uint32_t need = lat - 1;
        if (cur->cls == CM_STORE || cur->cls == CM_STORE2) need = lat > 2 ? lat - 2 : 0; /* data read at EX3 */
        if (cur->shifted && prev->cls == CM_LOAD) need += 1;                            /* no fast bypass at EX1 */
        if (cur->cls == CM_MLAL && multiply(prev) && !(data & ~cur->dst)) need = 0;    /* accumulators at EX3 */
        wait = max_u32(wait, need);
    }
    return wait;
}

static int can_pair(const cm_config *cfg, const cm_insn *prev, const cm_insn *cur)
{
    if (prev->cls == CM_OTHER || single_issue_only(prev) || single_issue_only(cur) || cur->slot0) return 0;
    if (issue_cycles(cfg, prev) != 1 || issue_cycles(cfg, cur) != 1) return 0;
    if (prev->dst & (cur->addr | cur->uses)) return 0; /* every result takes at least a cycle */
    if ((prev->cls == CM_STORE) && (cur->cls == CM_STORE)) return 0; /* one store pipe */
    if (multiply(prev) && multiply(cur)) return 0;                   /* one MAC pipe */
    if (prev->shifted && cur->shifted) return 0;                     /* one early shifter */
    return 1;
}

cm_cost cm_m7_cost_of(const cm_config *cfg, const cm_insn *cur, const cm_insn *prev, int *paired)
{
    cm_cost out = {0, 0};
    uint32_t wait = prev->cls == CM_OTHER ? 0 : stall(prev, cur);
    uint32_t full = issue_cycles(cfg, cur) + wait;
    if (cur->writes_pc) full += cfg->branch_ws;
    if (cur->writes_pc && cur->conditional) {
        out.base = 1 + wait;
        out.taken_extra = full - out.base;
    } else {
        out.base = full;
    }
    if (!*paired && wait == 0 && can_pair(cfg, prev, cur)) {
        out.base = 0; /* issues beside prev, in prev's cycle */
        *paired = 1;
    } else {
        *paired = 0;
    }
    out.base += cfg->seq_ws;
    return out;
}
