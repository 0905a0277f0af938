/* Instruction classes and per-core cycle costs of the cycle model (no QEMU
 * dependency: the classifier reads the disassembly text QEMU's capstone
 * back end prints, e.g. "ldr r1, [r0, #4]", "ldm.w r0, {r1, r2, ip}"). */
#ifndef CYCLEMODEL_TABLES_H
#define CYCLEMODEL_TABLES_H

#include <stdint.h>

typedef enum { CM_M0, CM_M0PLUS, CM_M3, CM_M4, CM_M7, CM_M33 } cm_core;
#define CM_CORE_NAMES "cortex-m0, cortex-m0plus, cortex-m3, cortex-m4, cortex-m7, cortex-m33"

typedef enum {
    CM_ALU,      /* data processing, moves, compares, shifts, extends, IT, NOP, hints */
    CM_MUL,      /* 32-bit result multiply (MUL, MULS) */
    CM_MLA,      /* multiply accumulate / subtract, 32-bit result */
    CM_MULL,     /* UMULL/SMULL */
    CM_MLAL,     /* UMLAL/SMLAL/UMAAL */
    CM_DSPMUL,   /* the DSP extension's single multiplies (SMLAD, SMULBB, ...) */
    CM_DIV,      /* SDIV/UDIV */
    CM_LOAD,     /* LDR/LDRB/LDRH/LDRSB/LDRSH/LDREX/LDRT, not into PC */
    CM_STORE,    /* STR/STRB/STRH/STREX */
    CM_LOAD2,    /* LDRD */
    CM_STORE2,   /* STRD */
    CM_LOADM,    /* LDM/POP (N registers) */
    CM_STOREM,   /* STM/PUSH (N registers) */
    CM_BRANCH,   /* B, B<cond>, CBZ/CBNZ: immediate target */
    CM_BL,       /* BL: immediate target, with link */
    CM_BX,       /* BX/BLX/MOV PC/ADD PC: register target */
    CM_LOADPC,   /* LDR PC */
    CM_TABLE,    /* TBB/TBH */
    CM_BARRIER,  /* DMB/DSB */
    CM_ISB,
    CM_SYSREG,   /* MRS/MSR */
    CM_FP,       /* single-precision FPU operation, 1 cycle */
    CM_FPLONG,   /* VDIV/VSQRT */
    CM_OTHER,
} cm_class;

typedef struct {
    cm_class cls;
    int conditional; /* a condition suffix (B<cond>, CBZ, an IT-block member) */
    int writes_pc;   /* ends the block when taken */
    int loads;       /* reads memory (a load callback may add flash wait states) */
    uint32_t nregs;  /* registers in a list (LDM/STM/PUSH/POP) */
    uint32_t dst;    /* register mask written (first operand of data processing and loads) */
    uint32_t addr;   /* register mask used to form a load/store address */
    uint32_t uses;   /* register mask read */
    /* for the Cortex-M7 issue rules (cyclemodel_m7.c) */
    int narrow;      /* a byte or halfword load: its data comes a stage later */
    int shifted;     /* needs the M7's one early shifter: a shifted register operand, bitfield, REV, PKH, SAT */
    int slot0;       /* DSP/SIMD, extends, REV/RBIT, bitfields, CLZ, LDREX: issues only first of a pair */
    int sets_flags;  /* an S form or a compare: writes N, Z, C, V */
    int reads_flags; /* a condition (B<cond>), ADC, SBC, RRX */
    int it_count;    /* IT, ITT, ITE, ...: the instructions it makes conditional (the disassembler prints
                        them without their condition: it sees one instruction at a time) */
} cm_insn;

typedef struct {
    cm_core core;
    uint32_t branch_ws; /* refetch wait states a taken branch pays */
    uint32_t seq_ws;    /* wait states every instruction pays (no prefetch) */
    uint32_t muls;      /* ARMv6-M MULS: 1 (fast multiplier) or 32 (small) */
} cm_config;

typedef struct {
    uint32_t base;        /* paid whenever the instruction executes */
    uint32_t taken_extra; /* paid on top when a conditional branch is taken */
} cm_cost;

void cm_insn_none(cm_insn *i);
int cm_core_from_name(const char *name, cm_core *out);
void cm_classify(const char *disas, cm_insn *out);
/* The Cortex-M7's issue state through a block (all zero at a block's start:
 * then only prev's results are pending): whether the last instruction
 * issued beside the one before it, and when each register can be read. */
typedef struct {
    int valid;
    int paired;
    int8_t ready[17];   /* the issue offset from the last instruction's cycle from which reading it does not wait
                           (r0-r15, then the flags) */
    uint16_t from_load; /* registers a load wrote last */
    uint8_t it_left;    /* instructions of an IT block still to come */
} cm_issue_state;

/* The cost of cur after prev (the previous instruction of the same block;
 * cm_insn_none at a block's start). *st tracks Cortex-M7 dual issue. */
cm_cost cm_cost_of(const cm_config *cfg, const cm_insn *cur, const cm_insn *prev, cm_issue_state *st);
/* The table cost of an instruction that executes (a taken branch,
 * for branches), before wait states; the M7 rules start from the M4 one. */
uint32_t cm_table_cost(const cm_config *cfg, const cm_insn *cur, const cm_insn *prev);
/* The Cortex-M7 issue rules (cyclemodel_m7.c): cm_cost_of for CM_M7. */
cm_cost cm_m7_cost_of(const cm_config *cfg, const cm_insn *cur, const cm_insn *prev, cm_issue_state *st);

#endif
