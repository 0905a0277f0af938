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
 * Results are tracked through a translation block (cm_issue_state: when
 * each register can be read), so a result read two instructions later
 * still waits its latency; a block that falls through starts with its
 * predecessor's last instruction pending, one after a taken branch with
 * nothing pending. The flags are tracked as one more register: in the same
 * model the flags are an operand (CPSR, defined by an S form or a compare,
 * read by ADC/SBC/RRX or an IT block's member) with the
 * writer's latency, an ALU's 1 ("WriteALU ... Latency = 1"), a compare with
 * a shifted operand 2 ("WriteCMPsi ... Latency = 2"), a multiply 2; so ADDS
 * and the ADCS that reads its carry do not issue in one cycle. B<cond> does
 * not wait for them (the TRM's flag forwarding, at reads_of). What the M4
 * table gives and the sources above do not change (LDM/STM 1+N: the model
 * says only that they issue alone and schedules "around read/write times of
 * individual registers in the list", no cycles per register; register
 * branches, divides) keeps the M4 cost; branches are taken as predicted
 * (the model gives a mispredict cost, "MispredictPenalty = 4", but neither
 * it nor DDI 0489 gives the predictor that says which branches miss). */
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

enum { FLAGS = 16, TRACKED = 17 }; /* r0-r15, then N, Z, C, V as one operand */
enum { NOT_PENDING = -3 };          /* readable at any offset, addresses included */

/* What cur writes and reads, the flags as bit FLAGS. */
static uint32_t writes_of(const cm_insn *i)
{
    return i->dst | (i->sets_flags ? 1u << FLAGS : 0);
}

/* A direct branch does not wait for its flags: DDI 0489's Prefetch Unit has
 * "forwarding of flags for early resolution of direct branches". */
static uint32_t reads_of(const cm_insn *i)
{
    int flags = i->reads_flags && i->cls != CM_BRANCH;
    return i->uses | i->addr | (flags ? 1u << FLAGS : 0);
}

/* A compare with a shifted operand gives its flags a cycle later (WriteCMPsi). */
static uint32_t flags_latency(const cm_insn *i)
{
    return i->cls == CM_ALU && i->shifted && !i->dst ? 2 : latency(i);
}

static void set_ready(cm_issue_state *st, const cm_insn *i)
{
    for (int r = 0; r < TRACKED; r++) {
        if (writes_of(i) & (1u << r)) st->ready[r] = (int8_t)(r == FLAGS ? flags_latency(i) : latency(i));
    }
}

/* Before a block's first instruction only prev's results are pending. */
static void seed(cm_issue_state *st, const cm_insn *prev)
{
    st->valid = 1;
    st->paired = 0;
    st->from_load = 0;
    for (int r = 0; r < TRACKED; r++) st->ready[r] = NOT_PENDING;
    if (prev->cls == CM_OTHER) return;
    set_ready(st, prev);
    if (prev->cls == CM_LOAD || prev->cls == CM_LOAD2 || prev->cls == CM_LOADM) st->from_load = (uint16_t)prev->dst;
}

/* The earliest issue offset (from prev's cycle) at which cur reads every
 * operand without waiting: data at EX2 (its ready offset), addresses at EX1
 * (one later), a store's data and a UMLAL/UMAAL's accumulators a stage late
 * (one earlier), a shifted operand from a load one later. */
static int operands_ready(const cm_issue_state *st, const cm_insn *cur)
{
    int need = NOT_PENDING;
    for (int r = 0; r < TRACKED; r++) {
        uint32_t bit = 1u << r;
        if (st->ready[r] == NOT_PENDING || !(reads_of(cur) & bit)) continue;
        int at = st->ready[r];
        if (r == FLAGS) {
            /* a condition or a carry is read at EX2, like an ALU operand */
        } else if (cur->addr & bit) {
            at += 1;
        } else if (cur->cls == CM_STORE || cur->cls == CM_STORE2 || (cur->cls == CM_MLAL && (cur->dst & bit))) {
            at -= 1;
        } else if (cur->shifted && (st->from_load & bit)) {
            at += 1;
        }
        if (at > need) need = at;
    }
    return need;
}

/* The pairing limits of the pipes (dependencies are the scoreboard's). */
static int can_pair(const cm_config *cfg, const cm_insn *prev, const cm_insn *cur)
{
    if (prev->cls == CM_OTHER || single_issue_only(prev) || single_issue_only(cur) || cur->slot0) return 0;
    if (issue_cycles(cfg, prev) != 1 || issue_cycles(cfg, cur) != 1) return 0;
    if ((prev->cls == CM_STORE) && (cur->cls == CM_STORE)) return 0; /* one store pipe */
    if (multiply(prev) && multiply(cur)) return 0;                   /* one MAC pipe */
    if (prev->shifted && cur->shifted) return 0;                     /* one early shifter */
    return 1;
}

/* An IT block's member, which the disassembler printed as if outside one:
 * it reads the flags; an S form with a destination is taken to set none (the
 * 16-bit encodings printed as "adds" do not inside the block; a 32-bit
 * ADDS.W, which would, is rare), a compare still does. */
static cm_insn in_it_block(const cm_insn *i)
{
    cm_insn out = *i;
    out.reads_flags = 1;
    if (out.dst) out.sets_flags = 0;
    return out;
}

cm_cost cm_m7_cost_of(const cm_config *cfg, const cm_insn *insn, const cm_insn *prev, cm_issue_state *st)
{
    if (!st->valid) seed(st, prev);
    cm_insn member;
    const cm_insn *cur = insn;
    if (st->it_left) {
        member = in_it_block(insn);
        cur = &member;
        st->it_left--;
    }
    if (insn->it_count) st->it_left = (uint8_t)insn->it_count;
    cm_cost out = {0, 0};
    int earliest = st->paired || !can_pair(cfg, prev, cur) ? 1 : 0;
    int need = operands_ready(st, cur);
    int at = need > earliest ? need : earliest;
    uint32_t wait = at > 1 ? (uint32_t)(at - 1) : 0;
    uint32_t issue = issue_cycles(cfg, cur);
    uint32_t full = issue + wait;
    if (cur->writes_pc) full += cfg->branch_ws;
    if (at == 0) {
        out.base = 0; /* issues beside prev, in prev's cycle */
    } else if (cur->writes_pc && cur->conditional) {
        out.base = 1 + wait;
        out.taken_extra = full - out.base;
    } else {
        out.base = full;
    }
    /* the new origin: cur's last cycle */
    int moved = at == 0 ? 0 : at + (int)issue - 1;
    for (int r = 0; r < TRACKED; r++) {
        if (st->ready[r] == NOT_PENDING) continue;
        int left = st->ready[r] - moved;
        st->ready[r] = (int8_t)(left <= NOT_PENDING ? NOT_PENDING : left);
    }
    set_ready(st, cur);
    if (cur->cls == CM_LOAD || cur->cls == CM_LOAD2 || cur->cls == CM_LOADM) {
        st->from_load = (uint16_t)(st->from_load | cur->dst);
    } else {
        st->from_load = (uint16_t)(st->from_load & ~cur->dst);
    }
    st->paired = at == 0;
    out.base += cfg->seq_ws;
    return out;
}
