/* A cycle model for Cortex-M (and RV32 class) firmware under QEMU (a TCG plugin).
 *
 * Every instruction gets a cost when it is translated (its disassembly is
 * classified once, never per execution): the per-core tables of the Arm
 * Technical Reference Manuals (cyclemodel_tables.h), the pipelining of
 * neighbouring loads and the address-generation stall that only depend on
 * the previous instruction of the same translation block, and the board's
 * flash wait states. What depends on execution is added as it happens:
 * whether a conditional branch was taken (seen from where the next block
 * starts) and whether a load read flash (a memory callback, registered only
 * when the board has wait states on data loads).
 *
 * QEMU 7.2's plugin API cannot touch guest registers or memory, so the
 * count reaches the firmware through a file: each time the firmware enters
 * its marker function (mark=ADDR), the plugin writes the cumulative model
 * cycles as 8 little-endian bytes at offset 0 of out=FILE, and the marker
 * reads them back through semihosting. log=FILE (optional) appends one line
 * "cycles instructions" per marker hit and one "exit cycles instructions"
 * at the end, for tests.
 *
 * Arguments: core=cortex-m0|cortex-m0plus|cortex-m3|cortex-m4|cortex-m7|
 * cortex-m33|rv32imc (the RV32 class model, cyclemodel_rv32.c, for riscv32
 * QEMU; the wait-state options do not apply to it), mark=0xADDR, out=FILE, log=FILE, flash=0xLO-0xHI (the range
 * that holds code and constants), branch_ws=N (wait states a taken branch
 * pays to refetch), load_ws=N (per data load from flash), seq_ws=N (per
 * instruction when sequential fetch is not hidden), muls=1|32 (ARMv6-M
 * multiplier option). */
#include "cyclemodel_rv32.h"
#include "cyclemodel_tables.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static cm_config cfg;
static int rv32; /* core=rv32imc: the RV32 class model (cyclemodel_rv32.c) */

static void classify(const char *text, cm_insn *out)
{
    if (rv32) {
        cm_rv32_classify(text, out);
    } else {
        cm_classify(text, out);
    }
}

static cm_cost cost_of(const cm_insn *cur, const cm_insn *prev, int *paired)
{
    return rv32 ? cm_rv32_cost_of(cur, prev) : cm_cost_of(&cfg, cur, prev, paired);
}
static uint64_t cycles, insns;
static uint64_t mark_addr = UINT64_MAX, flash_lo, flash_hi;
static unsigned load_ws;
static int out_fd = -1;
static FILE *log_file;

/* A conditional branch that has executed: its fall-through address and
 * what it costs on top when the next block does not start there. */
typedef struct {
    uint64_t fallthrough;
    uint32_t taken_extra;
} cond_branch;

static cond_branch pending;
static int have_pending;

/* A translation block: where it starts and falls through, its first and
 * last instruction, and what its first instruction was charged without a
 * predecessor. QEMU also ends blocks where no branch is (a 1 KiB guest page
 * boundary, its instruction limit): when execution falls from one block
 * into the next, the first instruction is charged again with the previous
 * block's last one before it (load pipelining, the address stall), so the
 * cycles do not depend on where the code happens to be placed. */
typedef struct {
    uint64_t pc, end;
    cm_insn first, last;
    uint32_t first_alone;
} block_info;

static const block_info *prev_block;

static void on_block(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    const block_info *b = udata;
    if (have_pending) {
        if (b->pc != pending.fallthrough) cycles += pending.taken_extra;
        have_pending = 0;
    }
    if (prev_block != NULL && prev_block->end == b->pc) {
        int paired = 0;
        cm_cost c = cost_of(&b->first, &prev_block->last, &paired);
        cycles += (uint64_t)((int64_t)c.base - (int64_t)b->first_alone); /* may be negative: modular */
    }
    prev_block = b;
}

static void on_cond_branch(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    pending = *(const cond_branch *)udata;
    have_pending = 1;
}

static void on_load(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (qemu_plugin_mem_is_store(info)) return;
    if (vaddr >= flash_lo && vaddr < flash_hi) cycles += load_ws;
}

static void on_mark(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    uint8_t le[8];
    for (int i = 0; i < 8; i++) le[i] = (uint8_t)(cycles >> (8 * i));
    if (out_fd >= 0 && pwrite(out_fd, le, sizeof(le), 0) != (ssize_t)sizeof(le)) {
        fprintf(stderr, "cyclemodel: writing the model count failed: %s\n", strerror(errno));
        exit(1);
    }
    if (log_file != NULL) fprintf(log_file, "%" PRIu64 " %" PRIu64 "\n", cycles, insns);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    cm_insn prev;
    cm_insn_none(&prev);
    int prev_paired = 0;
    /* lives as long as the translation: never freed (a flushed block's few bytes) */
    block_info *info = calloc(1, sizeof(*info));
    if (info == NULL) abort();
    info->pc = qemu_plugin_tb_vaddr(tb);
    /* the block's start: resolves the previous block's conditional branch
     * and charges a fall-through's first instruction after its predecessor */
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, info);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        char *text = qemu_plugin_insn_disas(insn);
        cm_insn cur;
        classify(text ? text : "", &cur);
        free(text);
        cm_cost cost = cost_of(&cur, &prev, &prev_paired);
        if (i == 0) {
            info->first = cur;
            info->first_alone = cost.base;
        }
        info->last = cur;
        info->end = pc + qemu_plugin_insn_size(insn);
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &insns, 1);
        if (cost.base) qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &cycles, cost.base);
        if (cost.taken_extra) {
            cond_branch *b = malloc(sizeof(*b)); /* lives as long as the translation: never freed */
            if (b == NULL) abort();
            b->fallthrough = pc + qemu_plugin_insn_size(insn);
            b->taken_extra = cost.taken_extra;
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_cond_branch, QEMU_PLUGIN_CB_NO_REGS, b);
        }
        if (load_ws && cur.loads) {
            /* QEMU 7.2 calls a QEMU_PLUGIN_MEM_R callback for stores only
             * (tried: the filter is inverted), so ask for both and filter */
            qemu_plugin_register_vcpu_mem_cb(insn, on_load, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
        }
        if (pc == mark_addr) qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
        prev = cur;
    }
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
    (void)id;
    (void)udata;
    if (log_file != NULL) {
        fprintf(log_file, "exit %" PRIu64 " %" PRIu64 "\n", cycles, insns);
        fclose(log_file);
        log_file = NULL;
    }
    if (out_fd >= 0) close(out_fd);
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end != '\0') return -1;
    *out = (uint64_t)v;
    return 0;
}

static int bad(const char *arg, const char *allowed)
{
    fprintf(stderr, "cyclemodel: bad argument '%s' (allowed: %s)\n", arg, allowed);
    return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    const char *core = NULL;
    uint64_t v = 0;
    memset(&cfg, 0, sizeof(cfg));
    cfg.muls = 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        if (eq == NULL) return bad(a, "key=value");
        const char *val = eq + 1;
        size_t klen = (size_t)(eq - a);
#define KEY(k) (klen == sizeof(k) - 1 && strncmp(a, k, klen) == 0)
        if (KEY("core")) {
            core = val;
        } else if (KEY("mark")) {
            if (parse_u64(val, &mark_addr) != 0) return bad(a, "mark=0xADDRESS");
            mark_addr &= ~(uint64_t)1; /* a Thumb symbol's value carries bit 0 */
        } else if (KEY("out")) {
            out_fd = open(val, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            if (out_fd < 0) {
                fprintf(stderr, "cyclemodel: cannot open %s: %s\n", val, strerror(errno));
                return -1;
            }
        } else if (KEY("log")) {
            log_file = fopen(val, "w");
            if (log_file == NULL) {
                fprintf(stderr, "cyclemodel: cannot open %s: %s\n", val, strerror(errno));
                return -1;
            }
        } else if (KEY("flash")) {
            char lo[32];
            const char *dash = strchr(val, '-');
            if (dash == NULL || (size_t)(dash - val) >= sizeof(lo)) return bad(a, "flash=0xLO-0xHI");
            memcpy(lo, val, (size_t)(dash - val));
            lo[dash - val] = '\0';
            if (parse_u64(lo, &flash_lo) != 0 || parse_u64(dash + 1, &flash_hi) != 0 || flash_hi <= flash_lo)
                return bad(a, "flash=0xLO-0xHI with LO < HI");
        } else if (KEY("branch_ws") || KEY("load_ws") || KEY("seq_ws")) {
            if (parse_u64(val, &v) != 0 || v > 64) return bad(a, "0..64 wait states");
            if (KEY("branch_ws")) cfg.branch_ws = (uint32_t)v;
            if (KEY("load_ws")) load_ws = (unsigned)v;
            if (KEY("seq_ws")) cfg.seq_ws = (uint32_t)v;
        } else if (KEY("muls")) {
            if (parse_u64(val, &v) != 0 || (v != 1 && v != 32)) return bad(a, "muls=1 or muls=32");
            cfg.muls = (uint32_t)v;
        } else {
            return bad(a, "core, mark, out, log, flash, branch_ws, load_ws, seq_ws, muls");
        }
#undef KEY
    }
    rv32 = core != NULL && strcmp(core, CM_RV32_CORE) == 0;
    if (!rv32 && (core == NULL || cm_core_from_name(core, &cfg.core) != 0)) {
        return bad(core ? core : "(no core=)", "core=" CM_CORE_NAMES ", " CM_RV32_CORE);
    }
    if (load_ws && flash_hi == 0) return bad("load_ws", "load_ws needs flash=0xLO-0xHI");
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
    return 0;
}
