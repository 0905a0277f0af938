/* Per-core instruction costs, from the processors' Technical Reference
 * Manuals (zero-wait-state figures; the board's wait states are added by
 * the caller's configuration):
 *
 *  Cortex-M0   ARM DDI 0432C, Table 3-1 "Cortex-M0 instruction summary".
 *  Cortex-M0+  ARM DDI 0484C, Table 3-1 "Cortex-M0+ instruction set summary".
 *  Cortex-M3   ARM DDI 0337I, Table 18-1 "Cortex-M3 instruction timings" and
 *              section 18.3 "Load-store timings" (3.3.1 in the r2p0 edition).
 *  Cortex-M4   ARM DDI 0439B, Table 3-1 "Cortex-M4 instruction set summary"
 *              and 3.3.1 "Load/store timings".
 *  Cortex-M7   Arm publishes no per-instruction table for it (DDI 0489): its
 *              issue rules are those of Arm's Cortex-M7 scheduling model in
 *              LLVM, in cyclemodel_m7.c (which starts from the costs below).
 *  Cortex-M33  its TRM (100230) publishes no per-instruction table either;
 *              the Cortex-M4 costs are used (same three-stage class of
 *              pipeline), an approximation.
 *
 * Choices where a manual gives a range:
 *  - P (pipeline refill after a taken branch, "1 to 3"): 1 for a branch to
 *    an immediate target, 2 for a register target (BX, BLX, MOV/ADD PC), 3
 *    for a load into PC (LDR PC, POP/LDM with PC), following the notes of
 *    DDI 0337 18.3 ("taken branches with an immediate are normally 1 cycle
 *    of pipeline reload ... with register operand ... 2"; "LDR PC ... three
 *    cycles for the pipeline reload"); TBB/TBH are 6 (2 load + 1 add + 3).
 *  - SDIV/UDIV ("2 to 12", early termination on operand size): 12, the
 *    upper bound, on every core that has them.
 *  - Cortex-M3 UMULL/SMULL ("3 to 5") 5 and UMLAL/SMLAL ("4 to 7") 7: the
 *    early-termination cases need operands below 64K, which big-number
 *    arithmetic (the multiplies that matter here) does not have.
 *  - ARMv6-M MULS is 1 or 32 by the implementation's multiplier option
 *    (the configuration's muls).
 *  - Cortex-M3/M4 STR is 1 ("STR Rx,[Ry,#imm] is always one cycle", 3.3.1;
 *    the summary table's 2 is the cost when a load or store follows at
 *    once, which the write buffer hides); LDR is 2, or 1 when it directly
 *    follows a single LDR whose result it does not use for its address
 *    ("LDR [any] are pipelined when possible"); LDRD/STRD 1+N = 3, never
 *    pipelined; a load or store whose address uses the result of the
 *    previous data-processing instruction stalls 1 more ("there is no
 *    forwarding path for this scenario").
 *  - Conditional instructions cost the same whether or not they pass
 *    (a not-taken conditional branch costs 1).
 * Pipelining and stalls look at the previous instruction: within a
 * translation block here, and across a fall-through from one block into the
 * next in the plugin (cyclemodel.c, on_block); after a taken branch, which
 * refills the pipeline anyway, there is none. */
#include "cyclemodel_tables.h"

#include <ctype.h>
#include <string.h>

enum { PC = 15, SP = 13, LR = 14 };

void cm_insn_none(cm_insn *i)
{
    memset(i, 0, sizeof(*i));
    i->cls = CM_OTHER;
}

int cm_core_from_name(const char *name, cm_core *out)
{
    static const struct {
        const char *name;
        cm_core core;
    } names[] = {{"cortex-m0", CM_M0},  {"cortex-m0plus", CM_M0PLUS}, {"cortex-m3", CM_M3},
                 {"cortex-m4", CM_M4},  {"cortex-m7", CM_M7},         {"cortex-m33", CM_M33}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(name, names[i].name) == 0) {
            *out = names[i].core;
            return 0;
        }
    }
    return -1;
}

typedef struct {
    const char *name;
    cm_class cls;
} mnemonic;

static const mnemonic MNEMONICS[] = {
    {"mov", CM_ALU},      {"mvn", CM_ALU},      {"add", CM_ALU},      {"addw", CM_ALU},    {"adc", CM_ALU},
    {"sub", CM_ALU},      {"subw", CM_ALU},     {"sbc", CM_ALU},      {"rsb", CM_ALU},     {"cmp", CM_ALU},
    {"cmn", CM_ALU},      {"tst", CM_ALU},      {"teq", CM_ALU},      {"and", CM_ALU},     {"eor", CM_ALU},
    {"orr", CM_ALU},      {"orn", CM_ALU},      {"bic", CM_ALU},      {"lsl", CM_ALU},     {"lsr", CM_ALU},
    {"asr", CM_ALU},      {"ror", CM_ALU},      {"rrx", CM_ALU},      {"adr", CM_ALU},     {"movw", CM_ALU},
    {"movt", CM_ALU},     {"bfc", CM_ALU},      {"bfi", CM_ALU},      {"ubfx", CM_ALU},    {"sbfx", CM_ALU},
    {"sxtb", CM_ALU},     {"sxth", CM_ALU},     {"uxtb", CM_ALU},     {"uxth", CM_ALU},    {"sxtab", CM_ALU},
    {"sxtah", CM_ALU},    {"uxtab", CM_ALU},    {"uxtah", CM_ALU},    {"sxtb16", CM_ALU},  {"uxtb16", CM_ALU},
    {"rev", CM_ALU},      {"rev16", CM_ALU},    {"revsh", CM_ALU},    {"rbit", CM_ALU},    {"clz", CM_ALU},
    {"ssat", CM_ALU},     {"usat", CM_ALU},     {"ssat16", CM_ALU},   {"usat16", CM_ALU},  {"sel", CM_ALU},
    {"pkhbt", CM_ALU},    {"pkhtb", CM_ALU},    {"qadd", CM_ALU},     {"qsub", CM_ALU},    {"qdadd", CM_ALU},
    {"qdsub", CM_ALU},    {"uadd8", CM_ALU},    {"uadd16", CM_ALU},   {"usub8", CM_ALU},   {"usub16", CM_ALU},
    {"sadd8", CM_ALU},    {"sadd16", CM_ALU},   {"ssub8", CM_ALU},    {"ssub16", CM_ALU},  {"usad8", CM_ALU},
    {"usada8", CM_ALU},   {"nop", CM_ALU},      {"yield", CM_ALU},    {"neg", CM_ALU},     {"mul", CM_MUL},
    {"mla", CM_MLA},      {"mls", CM_MLA},      {"umull", CM_MULL},   {"smull", CM_MULL},  {"umlal", CM_MLAL},
    {"smlal", CM_MLAL},   {"umaal", CM_MLAL},   {"sdiv", CM_DIV},     {"udiv", CM_DIV},    {"ldr", CM_LOAD},
    {"ldrb", CM_LOAD},    {"ldrh", CM_LOAD},    {"ldrsb", CM_LOAD},   {"ldrsh", CM_LOAD},  {"ldrex", CM_LOAD},
    {"ldrexb", CM_LOAD},  {"ldrexh", CM_LOAD},  {"ldrt", CM_LOAD},    {"ldrbt", CM_LOAD},  {"ldrht", CM_LOAD},
    {"ldrsbt", CM_LOAD},  {"ldrsht", CM_LOAD},  {"str", CM_STORE},    {"strb", CM_STORE},  {"strh", CM_STORE},
    {"strex", CM_STORE},  {"strexb", CM_STORE}, {"strexh", CM_STORE}, {"strt", CM_STORE},  {"strbt", CM_STORE},
    {"strht", CM_STORE},  {"ldrd", CM_LOAD2},   {"strd", CM_STORE2},  {"ldm", CM_LOADM},   {"ldmia", CM_LOADM},
    {"ldmfd", CM_LOADM},  {"ldmdb", CM_LOADM},  {"ldmea", CM_LOADM},  {"pop", CM_LOADM},   {"stm", CM_STOREM},
    {"stmia", CM_STOREM}, {"stmea", CM_STOREM}, {"stmdb", CM_STOREM}, {"stmfd", CM_STOREM}, {"push", CM_STOREM},
    {"b", CM_BRANCH},     {"cbz", CM_BRANCH},   {"cbnz", CM_BRANCH},  {"bl", CM_BL},       {"bx", CM_BX},
    {"blx", CM_BX},       {"tbb", CM_TABLE},    {"tbh", CM_TABLE},    {"dmb", CM_BARRIER}, {"dsb", CM_BARRIER},
    {"isb", CM_ISB},      {"mrs", CM_SYSREG},   {"msr", CM_SYSREG},   {"vdiv", CM_FPLONG}, {"vsqrt", CM_FPLONG},
};

static const char *const CONDITIONS[] = {"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs",
                                         "vc", "hi", "ls", "ge", "lt", "gt", "le", "al"};

static int lookup(const char *m, cm_class *cls)
{
    for (size_t i = 0; i < sizeof(MNEMONICS) / sizeof(MNEMONICS[0]); i++) {
        if (strcmp(m, MNEMONICS[i].name) == 0) {
            *cls = MNEMONICS[i].cls;
            return 1;
        }
    }
    /* the DSP extension's multiplies: SMLA<x><y>, SMLAD, SMUAD, SMMUL, ... (1 cycle on M4) */
    if (strncmp(m, "smla", 4) == 0 || strncmp(m, "smls", 4) == 0 || strncmp(m, "smul", 4) == 0 ||
        strncmp(m, "smua", 4) == 0 || strncmp(m, "smus", 4) == 0 || strncmp(m, "smm", 3) == 0) {
        *cls = CM_DSPMUL;
        return 1;
    }
    if (m[0] == 'v') { /* FPU */
        *cls = CM_FP;
        return 1;
    }
    if (m[0] == 'i' && m[1] == 't' && strspn(m + 2, "te") == strlen(m + 2)) { /* IT, ITE, ITTE, ... */
        *cls = CM_ALU;
        return 1;
    }
    return 0;
}

static int strip_condition(char *m)
{
    size_t n = strlen(m);
    if (n < 3) return 0;
    for (size_t i = 0; i < sizeof(CONDITIONS) / sizeof(CONDITIONS[0]); i++) {
        if (strcmp(m + n - 2, CONDITIONS[i]) == 0) {
            m[n - 2] = '\0';
            return 1;
        }
    }
    return 0;
}

/* Mnemonic -> class; UAL writes op{S}{cond}: the condition is tried before
 * the S (so "bls" is B with LS, not BL with S). */
static int resolve(const char *word, cm_class *cls, int *conditional, int *s_suffix)
{
    char m[24], t[24];
    size_t n = strlen(word);
    if (n == 0 || n >= sizeof(m)) return 0;
    memcpy(m, word, n + 1);
    *conditional = 0;
    *s_suffix = 0;
    if (lookup(m, cls)) return 1;
    memcpy(t, m, n + 1);
    if (strip_condition(t) && lookup(t, cls)) {
        *conditional = 1;
        return 1;
    }
    memcpy(t, m, n + 1);
    if (t[n - 1] == 's') {
        t[n - 1] = '\0';
        if (lookup(t, cls)) {
            *s_suffix = 1;
            return 1;
        }
    }
    memcpy(t, m, n + 1);
    if (strip_condition(t)) {
        size_t k = strlen(t);
        if (k > 1 && t[k - 1] == 's') {
            t[k - 1] = '\0';
            if (lookup(t, cls)) {
                *conditional = 1;
                *s_suffix = 1;
                return 1;
            }
        }
    }
    return 0;
}

static int reg_number(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int num;
    } aliases[] = {{"sb", 9}, {"sl", 10}, {"fp", 11}, {"ip", 12}, {"sp", SP}, {"lr", LR}, {"pc", PC}};
    if (n >= 2 && n <= 3 && s[0] == 'r' && isdigit((unsigned char)s[1])) {
        int v = s[1] - '0';
        if (n == 3) {
            if (!isdigit((unsigned char)s[2])) return -1;
            v = v * 10 + (s[2] - '0');
        }
        return v <= 15 ? v : -1;
    }
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
        if (n == 2 && strncmp(s, aliases[i].name, 2) == 0) return aliases[i].num;
    }
    return -1;
}

/* The registers named in s[from, to) (a "-" between two names is a range). */
static uint32_t regs_in(const char *s, size_t from, size_t to, uint32_t *count)
{
    uint32_t mask = 0, c = 0;
    int last = -1, range = 0;
    size_t i = from;
    while (i < to) {
        if (isalnum((unsigned char)s[i])) {
            size_t j = i;
            while (j < to && isalnum((unsigned char)s[j])) j++;
            int r = (s[i] == '#' || (i > 0 && s[i - 1] == '#')) ? -1 : reg_number(s + i, j - i);
            if (r >= 0) {
                if (range && last >= 0 && r > last) {
                    for (int k = last + 1; k <= r; k++) {
                        mask |= 1u << k;
                        c++;
                    }
                } else {
                    mask |= 1u << r;
                    c++;
                }
                last = r;
            }
            range = 0;
            i = j;
        } else {
            if (s[i] == '-') range = 1;
            else if (s[i] != ' ') range = 0;
            i++;
        }
    }
    if (count) *count = c;
    return mask;
}

static uint32_t first_reg(const char *ops)
{
    size_t n = strlen(ops), j = 0;
    while (j < n && isalnum((unsigned char)ops[j])) j++;
    int r = reg_number(ops, j);
    return r >= 0 ? 1u << r : 0;
}

/* Where the n-th comma of ops ends (len when there are fewer). */
static size_t after_comma(const char *ops, unsigned n)
{
    size_t len = strlen(ops);
    for (size_t i = 0; i < len; i++) {
        if (ops[i] == ',' && --n == 0) return i + 1;
    }
    return len;
}

static int starts(const char *word, const char *prefix)
{
    return strncmp(word, prefix, strlen(prefix)) == 0;
}

/* What the Cortex-M7 issue rules (cyclemodel_m7.c) need beyond the M4's:
 * the registers a multiply or a three-operand instruction reads without its
 * destination (a false dependency would stall or split a pair), byte and
 * halfword loads, the instructions that need the one early shifter, and
 * those that issue only first of a pair. The M3/M4 costs read none of it. */
static void m7_operands(const char *word, const char *ops, cm_insn *out)
{
    static const char *const SLOT0[] = {"sxt",  "uxt",  "ssat", "usat", "sadd", "ssub", "sasx", "ssax", "uadd",
                                        "usub", "uasx", "usax", "shadd", "shsub", "shasx", "shsax", "uhadd",
                                        "uhsub", "uhasx", "uhsax", "uqadd", "uqsub", "uqasx", "uqsax", "qadd",
                                        "qsub", "qasx", "qsax", "qdadd", "qdsub", "usad", "sel", "rev", "rbit",
                                        "sbfx", "ubfx", "pkh", "bfc", "bfi", "clz", "ldrex"};
    static const char *const SHIFTER[] = {"bfc", "bfi", "sbfx", "ubfx", "pkh", "ssat", "usat",
                                          "rev", "rbit", "sxta", "uxta"};
    size_t len = strlen(ops);
    int commas = 0;
    for (size_t i = 0; i < len; i++) commas += ops[i] == ',';
    switch (out->cls) {
    case CM_MUL:
    case CM_MLA:
    case CM_DSPMUL: out->uses = regs_in(ops, after_comma(ops, 1), len, NULL); break;
    case CM_MULL: out->uses = regs_in(ops, after_comma(ops, 2), len, NULL); break;
    case CM_ALU:
        if (!starts(word, "movt") && !starts(word, "bfi") && !starts(word, "bfc") &&
            (commas >= 2 || starts(word, "mov") || starts(word, "mvn") || starts(word, "adr") ||
             starts(word, "neg") || starts(word, "clz") || starts(word, "rev") || starts(word, "rbit") ||
             starts(word, "sxt") || starts(word, "uxt"))) {
            out->uses = regs_in(ops, after_comma(ops, 1), len, NULL);
        }
        if (strstr(ops, ", lsl #") || strstr(ops, ", lsr #") || strstr(ops, ", asr #") ||
            strstr(ops, ", ror #") || strstr(ops, ", rrx")) {
            out->shifted = 1;
        }
        break;
    case CM_LOAD:
        out->narrow = starts(word, "ldrb") || starts(word, "ldrh") || starts(word, "ldrs") ||
                      starts(word, "ldrexb") || starts(word, "ldrexh");
        break;
    default: break;
    }
    for (size_t i = 0; i < sizeof(SLOT0) / sizeof(SLOT0[0]); i++) out->slot0 |= starts(word, SLOT0[i]);
    for (size_t i = 0; i < sizeof(SHIFTER) / sizeof(SHIFTER[0]); i++) out->shifted |= starts(word, SHIFTER[i]);
}

void cm_classify(const char *disas, cm_insn *out)
{
    cm_insn_none(out);
    char word[24];
    size_t n = 0;
    while (*disas == ' ') disas++;
    while (disas[n] && disas[n] != ' ' && n + 1 < sizeof(word)) {
        word[n] = (char)tolower((unsigned char)disas[n]);
        n++;
    }
    word[n] = '\0';
    char *dot = strchr(word, '.'); /* .w/.n width qualifiers, .f32 data types */
    if (dot) *dot = '\0';
    const char *ops = disas + n;
    while (*ops == ' ') ops++;
    size_t len = strlen(ops);
    cm_class cls;
    int cond = 0, s_suffix = 0;
    if (!resolve(word, &cls, &cond, &s_suffix)) return; /* unknown: CM_OTHER, 1 cycle */
    /* the flags, for the Cortex-M7 rules: an S form or a compare sets them; a
     * condition suffix (B<cond>), ADC, SBC and RRX read them (an IT block's
     * members are printed without theirs: cyclemodel_m7.c counts them) */
    out->sets_flags = s_suffix || starts(word, "cmp") || starts(word, "cmn") || starts(word, "tst") ||
                      starts(word, "teq");
    out->reads_flags = cond || starts(word, "adc") || starts(word, "sbc") || starts(word, "rrx");
    if (word[0] == 'i' && word[1] == 't') out->it_count = (int)strlen(word) - 1;
    out->cls = cls;
    out->conditional = cond;
    const char *lb = strchr(ops, '['), *rb = strchr(ops, ']');
    const char *lc = strchr(ops, '{'), *rc = strchr(ops, '}');
    uint32_t all = regs_in(ops, 0, len, NULL);
    switch (cls) {
    case CM_ALU:
    case CM_MUL:
    case CM_MLA:
    case CM_DSPMUL:
    case CM_DIV:
        if (strncmp(word, "cmp", 3) && strncmp(word, "cmn", 3) && strncmp(word, "tst", 3) &&
            strncmp(word, "teq", 3) && !(word[0] == 'i' && word[1] == 't') && strcmp(word, "nop") != 0) {
            out->dst = first_reg(ops);
        }
        if (out->dst & (1u << PC)) { /* MOV PC / ADD PC: a branch to a register */
            out->cls = CM_BX;
            out->writes_pc = 1;
        }
        break;
    case CM_MULL:
    case CM_MLAL:
        out->dst = regs_in(ops, 0, after_comma(ops, 2), NULL); /* both halves of the result */
        break;
    case CM_LOAD:
    case CM_LOAD2:
        out->loads = 1;
        out->dst = first_reg(ops);
        if (cls == CM_LOAD2) out->dst = regs_in(ops, 0, lb ? (size_t)(lb - ops) : len, NULL);
        if (lb && rb && rb > lb) out->addr = regs_in(ops, (size_t)(lb - ops), (size_t)(rb - ops), NULL);
        if (out->dst & (1u << PC)) {
            out->cls = CM_LOADPC;
            out->writes_pc = 1;
        }
        break;
    case CM_STORE:
    case CM_STORE2:
        if (lb && rb && rb > lb) out->addr = regs_in(ops, (size_t)(lb - ops), (size_t)(rb - ops), NULL);
        break;
    case CM_LOADM:
    case CM_STOREM:
        out->loads = cls == CM_LOADM;
        if (lc && rc && rc > lc) {
            uint32_t list = regs_in(ops, (size_t)(lc - ops), (size_t)(rc - ops), &out->nregs);
            out->addr = lc > ops ? regs_in(ops, 0, (size_t)(lc - ops), NULL) : (1u << SP);
            if (strcmp(word, "pop") == 0 || strcmp(word, "push") == 0 || strncmp(word, "pop", 3) == 0 ||
                strncmp(word, "push", 4) == 0) {
                out->addr = 1u << SP;
            }
            if (cls == CM_LOADM) out->dst = list;
            if (cls == CM_LOADM && (list & (1u << PC))) out->writes_pc = 1;
        }
        break;
    case CM_BRANCH:
        out->writes_pc = 1;
        if (strncmp(word, "cb", 2) == 0) out->conditional = 1;
        break;
    case CM_BL:
    case CM_BX:
    case CM_TABLE:
        out->writes_pc = 1;
        if (cls == CM_TABLE) out->loads = 1;
        break;
    case CM_FP:
        out->loads = strncmp(word, "vldr", 4) == 0 || strncmp(word, "vldm", 4) == 0 || strncmp(word, "vpop", 4) == 0;
        break;
    default:
        break;
    }
    /* what it reads: every register it names but a load's destinations (a
     * data-processing destination is often a source too: "adds r1, #1") */
    out->uses = (cls == CM_LOAD || cls == CM_LOAD2 || cls == CM_LOADM) ? out->addr : all;
    m7_operands(word, ops, out);
}

/* The cost of an instruction that executes (a taken branch, for branches),
 * before wait states. */
uint32_t cm_table_cost(const cm_config *cfg, const cm_insn *cur, const cm_insn *prev)
{
    cm_core c = cfg->core;
    uint32_t n = cur->nregs;
    if (c == CM_M0 || c == CM_M0PLUS) {
        /* DDI 0432C / DDI 0484C Table 3-1: the M0+ refills its two-stage
         * pipeline one cycle faster than the M0's three stages */
        uint32_t m0 = c == CM_M0;
        switch (cur->cls) {
        case CM_MUL: return cfg->muls;
        case CM_LOAD:
        case CM_STORE: return 2;
        case CM_LOAD2:
        case CM_STORE2: return 3;
        case CM_LOADM: return cur->writes_pc ? (m0 ? 4 : 3) + (n - 1) : 1 + n; /* POP {..,PC}: 4+N / 3+N, N without PC */
        case CM_STOREM: return 1 + n;
        case CM_BRANCH: return m0 ? 3 : 2;
        case CM_BL: return m0 ? 4 : 3;
        case CM_BX: return m0 ? 3 : 2;
        case CM_LOADPC: return m0 ? 5 : 4;
        case CM_BARRIER:
        case CM_ISB: return m0 ? 4 : 3;
        case CM_SYSREG: return m0 ? 4 : 3;
        default: return 1;
        }
    }
    uint32_t m3 = c == CM_M3;
    switch (cur->cls) {
    case CM_MUL: return 1;
    case CM_MLA: return m3 ? 2 : 1;
    case CM_MULL: return m3 ? 5 : 1;
    case CM_MLAL: return m3 ? 7 : 1;
    case CM_DSPMUL: return 1;
    case CM_DIV: return 12;
    case CM_LOAD:
    case CM_STORE: {
        uint32_t cost = cur->cls == CM_LOAD ? 2 : 1;
        if (cur->cls == CM_LOAD && prev->cls == CM_LOAD && !(prev->dst & cur->addr)) cost = 1; /* pipelined */
        if ((prev->cls == CM_ALU || prev->cls == CM_MUL || prev->cls == CM_MLA || prev->cls == CM_DSPMUL) &&
            (prev->dst & cur->addr)) {
            cost += 1; /* address from the previous data-processing result: no forwarding path */
        }
        return cost;
    }
    case CM_LOAD2:
    case CM_STORE2: return 3;
    case CM_LOADM: return 1 + n + (cur->writes_pc ? 3 : 0);
    case CM_STOREM: return 1 + n;
    case CM_BRANCH:
    case CM_BL: return 1 + 1;
    case CM_BX: return 1 + 2;
    case CM_LOADPC: return 2 + 3;
    case CM_TABLE: return 6;
    case CM_ISB: return 1 + 1;
    case CM_SYSREG: return 2;
    case CM_FPLONG: return 14;
    default: return 1;
    }
}

cm_cost cm_cost_of(const cm_config *cfg, const cm_insn *cur, const cm_insn *prev, cm_issue_state *st)
{
    if (cfg->core == CM_M7) return cm_m7_cost_of(cfg, cur, prev, st);
    cm_cost out = {0, 0};
    uint32_t full = cm_table_cost(cfg, cur, prev);
    if (cur->writes_pc) full += cfg->branch_ws;
    if (cur->writes_pc && cur->conditional) {
        out.base = 1;
        out.taken_extra = full - 1;
    } else {
        out.base = full;
    }
    out.base += cfg->seq_ws;
    return out;
}
