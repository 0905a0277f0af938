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
 * multiplier option), and for ST's ART accelerator (a small cache in front
 * of the flash, instead of assuming it always hits): art_ws=N (the flash's
 * wait states), art_fetch=BYTES (bytes one flash access returns: a cache
 * line), art_ilines=N and art_dlines=N (lines of its instruction and data
 * caches, least recently used replaced), art_prefetch=0|1 (whether the
 * next line is read ahead; default 1), art_iways=N and art_dways=N (lines
 * per set: a set-associative cache such as the Cortex-M7's L1 caches, which
 * the same rule models with 32-byte lines; default: fully associative).
 * See "The ART accelerator" and "The Cortex-M7 L1 caches" in
 * docs/cycle-model.md. stats=FILE (a debug aid, off by default) appends at
 * each marker and at exit the flash accesses counted so far, by kind and
 * outcome, and the cycles charged to each ("Where the flash cycles go").
 *
 * Crypto accelerators (docs/cycle-model.md, "Crypto accelerators"):
 * charge=0xADDR:CYCLES (repeatable) adds CYCLES each time the instruction
 * at ADDR runs (the driver's doorbell functions: one call per block the
 * peripheral processes, its busy time from the board profile), and
 * standin=0xBEGIN:0xEND excludes what runs from the instruction at BEGIN
 * to the one at END (the stand-in that computes the peripheral's result
 * in software): at END the cycles, the caches and the pipeline state are
 * put back as they were at BEGIN, and the instructions in between are
 * added to an excluded count, written after the cycles (bytes 8..15 of
 * out=FILE) for the firmware to subtract from its instruction count.
 * accel=MASK (bytes 16..19) tells the firmware's driver which algorithms
 * the board profile has a peripheral for (the others stay in software). */
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

static cm_cost cost_of(const cm_insn *cur, const cm_insn *prev, cm_issue_state *st)
{
    return rv32 ? cm_rv32_cost_of(cur, prev) : cm_cost_of(&cfg, cur, prev, st);
}
static uint64_t cycles, insns;
static uint64_t mark_addr = UINT64_MAX, flash_lo, flash_hi;
static unsigned load_ws;
static int out_fd = -1;
static FILE *log_file;

/* Flash accesses by kind and outcome, and the cycles charged to each
 * (stats=FILE). Counted inside callbacks the model runs anyway: the
 * counting registers none of its own. An instruction access is one flash
 * line a block runs through: a hit, a miss reached sequentially (the line
 * after the one fetched before it) or a miss at a branch target. */
typedef struct {
    uint64_t i_hit, i_seq_miss, i_seq_cycles, i_target_miss, i_target_cycles;
    uint64_t d_hit, d_miss, d_cycles;
} flash_stats;
static flash_stats stats;
static FILE *stats_file;

/* charge=ADDR:CYCLES */
#define MAX_CHARGES 16
typedef struct {
    uint64_t addr;
    uint64_t cycles;
    uint64_t hits; /* for the log */
} charge_point;
static charge_point charges[MAX_CHARGES];
static unsigned ncharges;
/* standin=BEGIN:END */
static uint64_t standin_begin = UINT64_MAX, standin_end = UINT64_MAX;
static uint64_t excluded_insns;
static uint32_t accel_mask;

/* ST's ART accelerator: fully associative caches of flash lines (LRU), one
 * for instruction fetches and one for data loads. An instruction line that
 * misses costs its wait states when it is a branch target, and only what
 * the prefetch of the previous line has not yet hidden when execution runs
 * into it sequentially; a data line that misses costs the wait states. */
#define ART_MAX_LINES 2048
#define ART_NONE 0xFFFFu
typedef struct {
    uint64_t tag[ART_MAX_LINES];
    unsigned n;
    unsigned ways; /* lines per set; 0 or n: fully associative */
    /* each set's lines from the most to the least recently used: a doubly
     * linked list of slots, so that a touch moves one slot and a miss takes
     * the set's last one, whatever the number of ways */
    uint16_t newer[ART_MAX_LINES], older[ART_MAX_LINES];
    uint16_t mru[ART_MAX_LINES], lru[ART_MAX_LINES]; /* per set */
    /* where each flash line sits, so that a hit needs no walk over the set:
     * line - first_line -> its slot + 1, 0 when absent; NULL (or a line
     * outside) looks the line up by walking its set */
    uint16_t *slot_of;
    uint64_t first_line, nindexed;
} art_cache;

static art_cache art_i, art_d;
static unsigned art_ws, art_fetch, art_prefetch = 1;

static unsigned art_ways(const art_cache *c)
{
    return c->ways ? c->ways : c->n;
}

/* Every line invalid (a tag no address divides to), each set's slots in
 * the order a miss fills them: the lowest first. */
static void art_reset(art_cache *c)
{
    for (unsigned k = 0; k < ART_MAX_LINES; k++) c->tag[k] = UINT64_MAX;
    if (c->n == 0) return;
    unsigned ways = art_ways(c);
    for (unsigned lo = 0; lo < c->n; lo += ways) {
        for (unsigned k = lo; k < lo + ways; k++) {
            c->older[k] = (uint16_t)(k == lo ? ART_NONE : k - 1);
            c->newer[k] = (uint16_t)(k == lo + ways - 1 ? ART_NONE : k + 1);
        }
        c->mru[lo / ways] = (uint16_t)(lo + ways - 1);
        c->lru[lo / ways] = (uint16_t)lo;
    }
}

static int art_slot(const art_cache *c, uint64_t line, unsigned lo, unsigned ways)
{
    if (c->slot_of != NULL && line - c->first_line < c->nindexed) return (int)c->slot_of[line - c->first_line] - 1;
    for (unsigned k = lo; k < lo + ways; k++) {
        if (c->tag[k] == line) return (int)k;
    }
    return -1;
}

static void art_index(art_cache *c, uint64_t line, unsigned slot_plus_1)
{
    if (c->slot_of != NULL && line - c->first_line < c->nindexed) c->slot_of[line - c->first_line] = (uint16_t)slot_plus_1;
}

/* Makes slot k the most recently used one of its set. */
static void art_promote(art_cache *c, unsigned set, unsigned k)
{
    if (c->mru[set] == k) return;
    uint16_t newer = c->newer[k], older = c->older[k];
    c->older[newer] = older; /* k is not the newest: it has a newer one */
    if (older != ART_NONE) c->newer[older] = newer;
    else c->lru[set] = newer;
    c->older[k] = c->mru[set];
    c->newer[k] = ART_NONE;
    c->newer[c->mru[set]] = (uint16_t)k;
    c->mru[set] = (uint16_t)k;
}

/* 1 when the line was present; either way it is now the most recent one of
 * its set (a line's set is its number modulo the number of sets), and a
 * miss replaced the set's least recently used line. */
static int art_touch(art_cache *c, uint64_t line)
{
    unsigned ways = art_ways(c);
    unsigned set = (unsigned)(line % (c->n / ways));
    int hit = art_slot(c, line, set * ways, ways);
    if (hit >= 0) {
        art_promote(c, set, (unsigned)hit);
        return 1;
    }
    unsigned victim = c->lru[set];
    if (c->tag[victim] != UINT64_MAX) art_index(c, c->tag[victim], 0);
    c->tag[victim] = line;
    art_index(c, line, victim + 1);
    art_promote(c, set, victim);
    return 0;
}

/* The slot index over the flash lines [lo, hi) (one line more: an
 * instruction may straddle the end); without memory for it, lookups walk. */
static void art_index_flash(art_cache *c)
{
    if (c->n == 0) return;
    c->first_line = flash_lo / art_fetch;
    c->nindexed = (flash_hi - 1) / art_fetch - c->first_line + 2;
    c->slot_of = calloc(c->nindexed, sizeof(*c->slot_of));
    if (c->slot_of == NULL) c->nindexed = 0;
}

/* A conditional branch that has executed: its fall-through address and
 * what it costs on top when the next block does not start there. */
typedef struct {
    uint64_t fallthrough;
    uint32_t taken_extra;
} cond_branch;

static cond_branch pending;
static int have_pending;
/* The same for a conditional branch that ends its block (every one QEMU
 * translates ends it): an inline add of its extra cost when it executes,
 * cheaper than a call; the next block's start resolves it against the end
 * of the block that ran before it. */
static uint64_t pending_extra;

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
    /* the flash lines the block runs through, in order, and the cycles its
     * instructions spend in each (the time the prefetch of the next line has) */
    unsigned nlines;
    uint64_t *line;
    uint32_t *line_cycles;
    /* 1 when its lines, fetched in order, cannot evict one another (no set
     * gets more of them than it has ways): run again straight after itself,
     * the block then hits every line and leaves the caches as they were */
    int lines_fit;
    /* the first instruction's cost change after the block that last fell
     * through into this one (the same predecessor is the usual case) */
    const void *ft_prev;
    int64_t ft_delta;
} block_info;

static const block_info *prev_block;
static const block_info *last_fetched; /* the block whose lines the instruction cache saw last */
/* The cycles run so far in the line the last block ended in, since it was
 * fetched: a block that falls through and starts in that same line goes on
 * in it, so the prefetch of the next line has had those cycles too. QEMU
 * splits blocks where no branch is (its instruction budget runs out at a
 * point that depends on the host), and a split must cost what the whole
 * block costs. */
static int64_t line_run;

/* Instruction fetch through the ART: the block's lines in order; first_delta
 * is what the first instruction costs more after its predecessor. */
static uint64_t art_fetch_cost(const block_info *b, int fell_through, int64_t first_delta)
{
    uint64_t extra = 0;
    int continued = fell_through && prev_block->nlines > 0 && b->line[0] == prev_block->line[prev_block->nlines - 1];
    int64_t run = (continued ? line_run : 0) + (int64_t)b->line_cycles[0] + first_delta;
    for (unsigned j = 0; j < b->nlines; j++) {
        int sequential;
        int64_t hidden;
        if (j > 0) {
            sequential = b->line[j] == b->line[j - 1] + 1;
            hidden = j == 1 ? run : b->line_cycles[j - 1];
        } else {
            sequential = continued || (fell_through && prev_block->nlines > 0 &&
                                       b->line[0] == prev_block->line[prev_block->nlines - 1] + 1);
            hidden = sequential && !continued ? line_run : 0;
        }
        if (art_touch(&art_i, b->line[j])) {
            stats.i_hit++;
            continue;
        }
        uint64_t miss = 0;
        if (!sequential || !art_prefetch) {
            miss = art_ws; /* a branch target (its refill already pays one fetch cycle), or no prefetch */
        } else if (hidden < (int64_t)art_ws + 1) {
            miss = (uint64_t)((int64_t)art_ws + 1 - (hidden > 0 ? hidden : 0)); /* the prefetch started one line ahead */
        }
        if (sequential) {
            stats.i_seq_miss++;
            stats.i_seq_cycles += miss;
        } else {
            stats.i_target_miss++;
            stats.i_target_cycles += miss;
        }
        extra += miss;
    }
    line_run = b->nlines == 1 ? run : (int64_t)b->line_cycles[b->nlines - 1];
    return extra;
}

static int lines_fit(const block_info *b)
{
    if (b->nlines == 0) return 0;
    unsigned ways = art_ways(&art_i), sets = art_i.n / ways;
    for (unsigned j = 0; j < b->nlines; j++) { /* a block's lines are distinct: its addresses only grow */
        unsigned same_set = 0;
        for (unsigned k = 0; k < b->nlines; k++) same_set += b->line[k] % sets == b->line[j] % sets;
        if (same_set > ways) return 0;
    }
    return 1;
}

static void on_block(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    block_info *b = udata;
    if (pending_extra) { /* the block's last instruction: the branch that ran last */
        if (prev_block != NULL && b->pc != prev_block->end) cycles += pending_extra;
        pending_extra = 0;
    } else if (have_pending) {
        if (b->pc != pending.fallthrough) cycles += pending.taken_extra;
    }
    have_pending = 0;
    int fell_through = prev_block != NULL && prev_block->end == b->pc;
    if (fell_through) {
        if (b->ft_prev != prev_block) {
            cm_issue_state st = {0};
            cm_cost c = cost_of(&b->first, &prev_block->last, &st);
            b->ft_delta = (int64_t)c.base - (int64_t)b->first_alone;
            b->ft_prev = prev_block;
        }
        cycles += (uint64_t)b->ft_delta; /* may be negative: modular */
    }
    if (b->nlines && !(b == last_fetched && b->lines_fit)) {
        cycles += art_fetch_cost(b, fell_through, fell_through ? b->ft_delta : 0);
        last_fetched = b;
    } else if (b->nlines) {
        stats.i_hit += b->nlines; /* the same block again: every line hits (lines_fit) */
        line_run = b->line_cycles[b->nlines - 1];
    } else {
        line_run = 0;
    }
    prev_block = b;
}

static void on_cond_branch(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    pending = *(const cond_branch *)udata;
    have_pending = 1;
}

/* ---- the stand-in's exclusion: everything the model keeps, as it was at BEGIN ---- */
typedef struct {
    int active; /* depth of nested stand-in bounds */
    uint64_t cycles, insns;
    art_cache art_i, art_d;
    uint16_t *slot_i, *slot_d; /* copies of the caches' slot indexes */
    const block_info *prev_block, *last_fetched;
    flash_stats stats;
    cond_branch pending;
    int have_pending;
    uint64_t pending_extra;
    int64_t line_run;
} model_state;

static model_state saved;

static void copy_cache(art_cache *to, uint16_t *to_slots, const art_cache *from)
{
    uint16_t *keep = to->slot_of;
    *to = *from;
    to->slot_of = keep;
    if (from->slot_of != NULL && to_slots != NULL) memcpy(to_slots, from->slot_of, from->nindexed * sizeof(uint16_t));
}

static void on_standin_begin(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (saved.active++) return; /* nested (a stand-in calling another driver): the outer one excludes it all */
    saved.cycles = cycles;
    saved.insns = insns;
    saved.art_i.slot_of = saved.slot_i;
    saved.art_d.slot_of = saved.slot_d;
    copy_cache(&saved.art_i, saved.slot_i, &art_i);
    copy_cache(&saved.art_d, saved.slot_d, &art_d);
    saved.prev_block = prev_block;
    saved.last_fetched = last_fetched;
    saved.stats = stats;
    saved.pending = pending;
    saved.have_pending = have_pending;
    saved.pending_extra = pending_extra;
    saved.line_run = line_run;
}

static void on_standin_end(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (!saved.active || --saved.active) return; /* only the outermost end restores */
    excluded_insns += insns - saved.insns;
    cycles = saved.cycles;
    insns = saved.insns;
    copy_cache(&art_i, art_i.slot_of, &saved.art_i);
    copy_cache(&art_d, art_d.slot_of, &saved.art_d);
    prev_block = saved.prev_block;
    last_fetched = saved.last_fetched;
    stats = saved.stats;
    pending = saved.pending;
    have_pending = saved.have_pending;
    pending_extra = saved.pending_extra;
    line_run = saved.line_run;
}

static void on_charge(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    charge_point *c = udata;
    cycles += c->cycles;
    c->hits++;
}

static void on_load(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
    (void)vcpu;
    (void)udata;
    if (vaddr < flash_lo || vaddr >= flash_hi) return;
    if (qemu_plugin_mem_is_store(info)) return;
    uint64_t cost = art_d.n ? (art_touch(&art_d, vaddr / art_fetch) ? 0 : art_ws) : load_ws;
    if (cost || !art_d.n) {
        stats.d_miss++; /* without a data cache every flash load is a flash read */
        stats.d_cycles += cost;
    } else {
        stats.d_hit++;
    }
    cycles += cost;
}

static void write_stats(const char *when)
{
    fprintf(stats_file,
            "%s cycles=%" PRIu64 " i_hit=%" PRIu64 " i_seq_miss=%" PRIu64 " i_seq_cycles=%" PRIu64
            " i_target_miss=%" PRIu64 " i_target_cycles=%" PRIu64 " d_hit=%" PRIu64 " d_miss=%" PRIu64
            " d_cycles=%" PRIu64 "\n",
            when, cycles, stats.i_hit, stats.i_seq_miss, stats.i_seq_cycles, stats.i_target_miss,
            stats.i_target_cycles, stats.d_hit, stats.d_miss, stats.d_cycles);
}

static void on_mark(unsigned int vcpu, void *udata)
{
    (void)vcpu;
    (void)udata;
    uint8_t le[24] = {0};
    for (int i = 0; i < 8; i++) le[i] = (uint8_t)(cycles >> (8 * i));
    for (int i = 0; i < 8; i++) le[8 + i] = (uint8_t)(excluded_insns >> (8 * i));
    for (int i = 0; i < 4; i++) le[16 + i] = (uint8_t)(accel_mask >> (8 * i));
    if (out_fd >= 0 && pwrite(out_fd, le, sizeof(le), 0) != (ssize_t)sizeof(le)) {
        fprintf(stderr, "cyclemodel: writing the model count failed: %s\n", strerror(errno));
        exit(1);
    }
    if (log_file != NULL) fprintf(log_file, "%" PRIu64 " %" PRIu64 "\n", cycles, insns);
    if (stats_file != NULL) write_stats("mark");
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    cm_insn prev;
    cm_insn_none(&prev);
    cm_issue_state state = {0};
    /* lives as long as the translation: never freed (a flushed block's few bytes) */
    block_info *info = calloc(1, sizeof(*info));
    if (info == NULL) abort();
    info->pc = qemu_plugin_tb_vaddr(tb);
    if (art_i.n && info->pc >= flash_lo && info->pc < flash_hi) {
        /* never freed, as info; a block of n instructions spans at most 2n lines */
        info->line = calloc(2 * n + 1, sizeof(*info->line));
        info->line_cycles = calloc(2 * n + 1, sizeof(*info->line_cycles));
        if (info->line == NULL || info->line_cycles == NULL) abort();
    }
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
        cm_cost cost = cost_of(&cur, &prev, &state);
        if (i == 0) {
            info->first = cur;
            info->first_alone = cost.base;
        }
        info->last = cur;
        info->end = pc + qemu_plugin_insn_size(insn);
        if (info->line != NULL) {
            /* an instruction that straddles two lines is charged to the later one */
            uint64_t line = (info->end - 1) / art_fetch;
            uint64_t first_line = pc / art_fetch;
            if (info->nlines == 0 || info->line[info->nlines - 1] != first_line) {
                info->line[info->nlines++] = first_line;
            }
            if (line != first_line) info->line[info->nlines++] = line;
            info->line_cycles[info->nlines - 1] += cost.base;
        }
        /* the instruction count: for the log, and for the stand-in's exclusion */
        if (log_file != NULL || standin_begin != UINT64_MAX) {
            qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &insns, 1);
        }
        if (pc == standin_begin) qemu_plugin_register_vcpu_insn_exec_cb(insn, on_standin_begin, QEMU_PLUGIN_CB_NO_REGS, NULL);
        if (pc == standin_end) qemu_plugin_register_vcpu_insn_exec_cb(insn, on_standin_end, QEMU_PLUGIN_CB_NO_REGS, NULL);
        for (unsigned k = 0; k < ncharges; k++) {
            if (pc == charges[k].addr) {
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_charge, QEMU_PLUGIN_CB_NO_REGS, &charges[k]);
            }
        }
        if (cost.base) qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &cycles, cost.base);
        if (cost.taken_extra && i == n - 1) {
            qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &pending_extra,
                                                       cost.taken_extra);
        } else if (cost.taken_extra) {
            cond_branch *b = malloc(sizeof(*b)); /* lives as long as the translation: never freed */
            if (b == NULL) abort();
            b->fallthrough = pc + qemu_plugin_insn_size(insn);
            b->taken_extra = cost.taken_extra;
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_cond_branch, QEMU_PLUGIN_CB_NO_REGS, b);
        }
        if ((load_ws || art_d.n) && cur.loads) {
            /* QEMU 7.2 calls a QEMU_PLUGIN_MEM_R callback for stores only
             * (tried: the filter is inverted), so ask for both and filter */
            qemu_plugin_register_vcpu_mem_cb(insn, on_load, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
        }
        if (pc == mark_addr) qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
        prev = cur;
    }
    info->lines_fit = lines_fit(info);
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata)
{
    (void)id;
    (void)udata;
    if (log_file != NULL) {
        fprintf(log_file, "exit %" PRIu64 " %" PRIu64 "\n", cycles, insns);
        for (unsigned k = 0; k < ncharges; k++) {
            fprintf(log_file, "charge %#" PRIx64 " %" PRIu64 "\n", charges[k].addr, charges[k].hits);
        }
        if (standin_begin != UINT64_MAX) fprintf(log_file, "excluded %" PRIu64 "\n", excluded_insns);
        fclose(log_file);
        log_file = NULL;
    }
    if (stats_file != NULL) {
        write_stats("exit");
        fclose(stats_file);
        stats_file = NULL;
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
        } else if (KEY("log") || KEY("stats")) {
            FILE **f = KEY("log") ? &log_file : &stats_file;
            *f = fopen(val, KEY("log") ? "w" : "a");
            if (*f == NULL) {
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
        } else if (KEY("art_ws") || KEY("art_fetch") || KEY("art_ilines") || KEY("art_dlines") ||
                   KEY("art_prefetch") || KEY("art_iways") || KEY("art_dways")) {
            if (parse_u64(val, &v) != 0) return bad(a, "a number");
            if (KEY("art_prefetch")) {
                if (v > 1) return bad(a, "art_prefetch=0 or 1");
                art_prefetch = (unsigned)v;
            } else if (KEY("art_ws")) {
                if (v > 64) return bad(a, "art_ws=0..64");
                art_ws = (unsigned)v;
            } else if (KEY("art_fetch")) {
                if (v != 4 && v != 8 && v != 16 && v != 32) return bad(a, "art_fetch=4, 8, 16 or 32 bytes");
                art_fetch = (unsigned)v;
            } else if (KEY("art_iways") || KEY("art_dways")) {
                if (v < 1 || v > ART_MAX_LINES) return bad(a, "1..2048 lines per set");
                if (KEY("art_iways")) art_i.ways = (unsigned)v;
                else art_d.ways = (unsigned)v;
            } else {
                if (v > ART_MAX_LINES) return bad(a, "0..2048 lines");
                if (KEY("art_ilines")) art_i.n = (unsigned)v;
                else art_d.n = (unsigned)v;
            }
        } else if (KEY("charge") || KEY("standin")) {
            const char *what = KEY("charge") ? "charge=0xADDR:CYCLES" : "standin=0xBEGIN:0xEND";
            char first[32];
            uint64_t x = 0, y = 0;
            const char *colon = strchr(val, ':');
            if (colon == NULL || (size_t)(colon - val) >= sizeof(first)) return bad(a, what);
            memcpy(first, val, (size_t)(colon - val));
            first[colon - val] = '\0';
            if (parse_u64(first, &x) != 0 || parse_u64(colon + 1, &y) != 0) return bad(a, what);
            if (KEY("charge")) {
                if (ncharges == MAX_CHARGES) return bad(a, "at most 16 charge= points");
                charges[ncharges].addr = x & ~(uint64_t)1; /* a Thumb symbol's value carries bit 0 */
                charges[ncharges].cycles = y;
                ncharges++;
            } else {
                standin_begin = x & ~(uint64_t)1;
                standin_end = y & ~(uint64_t)1;
            }
        } else if (KEY("accel")) {
            if (parse_u64(val, &v) != 0 || v > UINT32_MAX) return bad(a, "accel=MASK (32 bits)");
            accel_mask = (uint32_t)v;
        } else if (KEY("muls")) {
            if (parse_u64(val, &v) != 0 || (v != 1 && v != 32)) return bad(a, "muls=1 or muls=32");
            cfg.muls = (uint32_t)v;
        } else {
            return bad(a, "core, mark, out, log, stats, flash, branch_ws, load_ws, seq_ws, muls, art_ws, art_fetch, art_ilines,"
                          " art_dlines, art_prefetch, art_iways, art_dways, charge, standin, accel");
        }
#undef KEY
    }
    rv32 = core != NULL && strcmp(core, CM_RV32_CORE) == 0;
    if (!rv32 && (core == NULL || cm_core_from_name(core, &cfg.core) != 0)) {
        return bad(core ? core : "(no core=)", "core=" CM_CORE_NAMES ", " CM_RV32_CORE);
    }
    if (load_ws && flash_hi == 0) return bad("load_ws", "load_ws needs flash=0xLO-0xHI");
    if ((art_i.n || art_d.n) && (flash_hi == 0 || art_fetch == 0)) {
        return bad("art_ilines/art_dlines", "the ART caches need flash=0xLO-0xHI and art_fetch=BYTES");
    }
    if ((art_i.ways && art_i.n % art_i.ways) || (art_d.ways && art_d.n % art_d.ways)) {
        return bad("art_iways/art_dways", "a number of lines per set that divides art_ilines/art_dlines");
    }
    art_reset(&art_i);
    art_reset(&art_d);
    art_index_flash(&art_i);
    art_index_flash(&art_d);
    if (standin_begin != UINT64_MAX) {
        /* the slot indexes' copies for the stand-in's exclusion (never freed: the run's length) */
        if (art_i.slot_of != NULL && (saved.slot_i = calloc(art_i.nindexed, sizeof(uint16_t))) == NULL) abort();
        if (art_d.slot_of != NULL && (saved.slot_d = calloc(art_d.nindexed, sizeof(uint16_t))) == NULL) abort();
    }
    if (stats_file != NULL) fprintf(stats_file, "start\n"); /* appended to: one run's lines after their start */
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
    return 0;
}
