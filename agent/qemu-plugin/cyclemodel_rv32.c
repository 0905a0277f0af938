/* The RV32 class cycle model: a MODEL of a single-issue, in-order RV32IMC
 * core with a five-stage pipeline, not a measurement of any chip.
 *
 * Source: SiFive E31 Core Complex Manual (as in the FE310-G000 manual,
 * sections 3.2 "Instruction Fetch Unit" and 3.3 "Execution Pipeline"), the
 * published core of this class with per-instruction figures (the RV32 class
 * microcontrollers we compare with publish none):
 *  - one instruction per cycle, fully bypassed: most results are usable by
 *    the next instruction;
 *  - LW: 2-cycle result latency; LB, LBU, LH, LHU: 3; CSR reads: 3;
 *  - MUL, MULH, MULHU, MULHSU: 5-cycle result latency;
 *  - DIV, DIVU, REM, REMU: 2 to 33 cycles by operand values; the model
 *    charges 33, the upper bound (it does not see operands), and counts the
 *    divider as blocking (the manual: "will block until the previous
 *    operation completes");
 *  - correctly predicted control flow costs nothing extra, a mispredicted
 *    one 3 cycles; most CSR writes flush the pipeline: 5 cycles.
 * Choices of the model (the manual's predictor - BTB, BHT, return stack -
 * is not simulated):
 *  - conditional branches are predicted backward-taken, forward-not-taken:
 *    a taken forward branch pays 3; a backward branch pays nothing (its
 *    loop exit, a misprediction on the core, is not charged);
 *  - JAL/J (BTB) and RET (return stack) are predicted; any other JALR/JR
 *    pays 3;
 *  - a stall is charged only against the directly preceding instruction
 *    (latency - 1 cycles when it produces a register the current one reads;
 *    a result two or more instructions back is taken as ready);
 *  - memory has no wait states (code and data in zero-wait SRAM or a
 *    hitting cache).
 * Its error against a real core of the class has not been measured. */
#include "cyclemodel_rv32.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { LAT_ALU = 1, LAT_LW = 2, LAT_LBH = 3, LAT_CSR = 3, LAT_MUL = 5 };
enum { DIV_CYCLES = 33, MISPREDICT = 3, CSR_WRITE_FLUSH = 5 };

static int reg_index(const char *s, size_t n)
{
    static const char *const abi[32] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
                                        "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
                                        "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
    if (n == 2 && strncmp(s, "fp", 2) == 0) return 8;
    for (int i = 0; i < 32; i++) {
        if (strlen(abi[i]) == n && strncmp(s, abi[i], n) == 0) return i;
    }
    return -1;
}

static uint32_t bit(int r)
{
    return r > 0 ? 1u << r : 0u; /* x0 is never a dependency */
}

/* The operands, split at commas and parentheses: "a5,0(a0)" -> a5 0 a0. */
typedef struct {
    char text[8][24];
    int n;
} operands;

static void split(const char *s, operands *o)
{
    o->n = 0;
    while (*s && o->n < 8) {
        while (*s == ',' || *s == '(' || *s == ')' || *s == ' ') s++;
        if (!*s || *s == '#') break;
        size_t k = 0;
        while (*s && *s != ',' && *s != '(' && *s != ')' && *s != ' ' && k + 1 < sizeof(o->text[0])) {
            o->text[o->n][k++] = *s++;
        }
        o->text[o->n][k] = '\0';
        o->n++;
        while (*s && *s != ',' && *s != '(' && *s != ')' && *s != ' ') s++; /* an over-long token's tail */
    }
}

static int reg_of(const operands *o, int i)
{
    return i < o->n ? reg_index(o->text[i], strlen(o->text[i])) : -1;
}

static uint32_t regs_from(const operands *o, int first)
{
    uint32_t m = 0;
    for (int i = first; i < o->n; i++) m |= bit(reg_of(o, i));
    return m;
}

static int starts(const char *m, const char *prefix)
{
    return strncmp(m, prefix, strlen(prefix)) == 0;
}

static int is(const char *m, const char *name)
{
    return strcmp(m, name) == 0;
}

void cm_rv32_classify(const char *disas, cm_insn *out)
{
    cm_insn_none(out);
    out->cls = CM_ALU;
    out->nregs = LAT_ALU;
    char m[16];
    size_t k = 0;
    while (*disas == ' ') disas++;
    /* the plugin's text starts with the encoding ("00042783  lw a5,0(s0)",
     * 4 or 8 hex digits; no RV32 mnemonic of that length is all hex) */
    size_t hex = strspn(disas, "0123456789abcdef");
    if ((hex == 4 || hex == 8) && isspace((unsigned char)disas[hex])) {
        disas += hex;
        while (*disas == ' ') disas++;
    }
    while (*disas && !isspace((unsigned char)*disas) && k + 1 < sizeof(m)) m[k++] = *disas++;
    m[k] = '\0';
    operands o;
    split(disas, &o);
    int rd = reg_of(&o, 0);
    if (is(m, "lw") || is(m, "lh") || is(m, "lhu") || is(m, "lb") || is(m, "lbu")) {
        out->cls = CM_LOAD;
        out->loads = 1;
        out->nregs = is(m, "lw") ? LAT_LW : LAT_LBH;
        out->dst = bit(rd);
        out->uses = out->addr = bit(reg_of(&o, 2));
    } else if (is(m, "sw") || is(m, "sh") || is(m, "sb")) {
        out->cls = CM_STORE;
        out->addr = bit(reg_of(&o, 2));
        out->uses = bit(rd) | out->addr;
    } else if (starts(m, "mul")) {
        out->cls = CM_MUL;
        out->nregs = LAT_MUL;
        out->dst = bit(rd);
        out->uses = regs_from(&o, 1);
    } else if (starts(m, "div") || starts(m, "rem")) {
        out->cls = CM_DIV;
        out->dst = bit(rd);
        out->uses = regs_from(&o, 1);
    } else if (m[0] == 'b' && !is(m, "bext")) {
        /* beq/bne/blt/bge/bltu/bgeu and the pseudo forms (beqz, bgt, ...):
         * registers first, the signed offset last */
        out->cls = CM_BRANCH;
        out->conditional = 1;
        out->writes_pc = 1;
        out->uses = regs_from(&o, 0);
        long offset = o.n ? strtol(o.text[o.n - 1], NULL, 0) : 0;
        out->dst = 0;
        out->addr = offset < 0; /* backward: predicted taken */
    } else if (is(m, "j") || is(m, "jal")) {
        out->cls = CM_BL;
        out->writes_pc = 1;
        out->dst = is(m, "jal") ? bit(rd) : 0;
    } else if (is(m, "ret")) {
        out->cls = CM_BX;
        out->writes_pc = 1;
        out->addr = 1; /* predicted (return stack) */
        out->uses = bit(1);
    } else if (is(m, "jr") || is(m, "jalr")) {
        out->cls = CM_BX;
        out->writes_pc = 1;
        if (is(m, "jalr") && o.n >= 2) {
            out->dst = bit(rd);
            out->uses = bit(reg_of(&o, 1));
        } else {
            out->uses = bit(rd);
        }
    } else if (starts(m, "csr")) {
        /* csrrw/csrrs/csrrc (and -i forms): rd, csr, rs1/imm; a write unless
         * it is csrrs/csrrc with zero */
        out->cls = CM_SYSREG;
        out->nregs = LAT_CSR;
        out->dst = bit(rd);
        out->uses = bit(reg_of(&o, 2));
        int reads_only = (is(m, "csrrs") || is(m, "csrrc")) && o.n >= 3 && reg_of(&o, 2) == 0;
        out->addr = !reads_only; /* flushes the pipeline */
    } else if (is(m, "ecall") || is(m, "ebreak") || is(m, "mret") || is(m, "wfi") || starts(m, "fence")) {
        out->cls = CM_OTHER;
    } else {
        /* data processing: rd first, sources after it (li, lui, auipc read none) */
        out->dst = bit(rd);
        out->uses = regs_from(&o, 1);
    }
}

uint32_t cm_rv32_latency(const cm_insn *i)
{
    return i->nregs ? i->nregs : LAT_ALU;
}

cm_cost cm_rv32_cost_of(const cm_insn *cur, const cm_insn *prev)
{
    cm_cost c = {1, 0};
    switch (cur->cls) {
    case CM_DIV:
        c.base = DIV_CYCLES;
        break;
    case CM_BRANCH:
        if (!cur->addr) c.taken_extra = MISPREDICT; /* forward: predicted not taken */
        break;
    case CM_BX:
        if (!cur->addr) c.base += MISPREDICT; /* an indirect jump other than a return */
        break;
    case CM_SYSREG:
        if (cur->addr) c.base += CSR_WRITE_FLUSH;
        break;
    default:
        break;
    }
    /* a read of the previous instruction's result before it is ready */
    if (prev->dst & cur->uses) c.base += cm_rv32_latency(prev) - 1;
    return c;
}
