/* Heap accounting shared by every platform: the platform's allocation hooks
 * report each block's usable size here; the heap windows, per-side levels
 * and the process peak are kept the same way everywhere.
 *
 * The agent measures on one thread at a time (a stack worker runs while the
 * caller waits), so plain counters do: no atomic operation is added to the
 * allocations of a timed batch. */
#include "tb/heap_account.h"
#include "tb/platform.h"

/* Signed: a block allocated in a timed pass (not counted) may be freed in a
 * counted one; windows count from their own start, so only the absolute
 * level drifts, and it must not wrap. */
static int64_t level, peak, process_peak, window_start;
static uint64_t allocs, window_allocs;
volatile int tb_heap_counting = 1;
static int timed, saved_counting;
static uint64_t timed_calls;
/* Per-side accounting for TLS handshakes: what the calls of one side
 * allocate and free (net), its peak, and how many of its blocks are alive. */
static int side = -1;
static int64_t side_level[2], side_peak[2], side_blocks[2];
/* The heap cap of the minimum-RAM search: while counting (never in a timed
 * pass, where the hooks do not call here), an allocation of side cap_side
 * that would raise that side's live total above cap_bytes is refused.
 * cap_side -1: no cap. */
static int cap_side = -1, cap_paused;
static uint64_t cap_bytes, cap_refusals, cap_first_need;

int tb_heap_account_admit(size_t n)
{
    if (cap_side < 0 || cap_paused || side != cap_side || side_level[side] + (int64_t)n <= (int64_t)cap_bytes) return 1;
    /* the level the first refused block needed: any cap below it refuses that block too */
    if (cap_refusals++ == 0) cap_first_need = (uint64_t)(side_level[side] + (int64_t)n);
    return 0;
}

void tb_heap_cap(int s, uint64_t bytes)
{
    cap_side = s;
    cap_bytes = bytes;
    cap_refusals = cap_first_need = 0;
    cap_paused = 0;
}

void tb_heap_cap_pause(int paused)
{
    cap_paused = paused;
}

uint64_t tb_heap_cap_refusals(uint64_t *first_need)
{
    if (first_need != NULL) *first_need = cap_first_need;
    return cap_refusals;
}

int tb_heap_capped(void)
{
    return cap_side >= 0 && !cap_paused && side == cap_side;
}

void tb_heap_account_alloc(size_t n)
{
    if (timed) timed_calls++;
    level += (int64_t)n;
    if (level > peak) peak = level;
    if (level > process_peak) process_peak = level;
    allocs++;
    if (side >= 0) {
        side_level[side] += (int64_t)n;
        side_blocks[side]++;
        if (side_level[side] > side_peak[side]) side_peak[side] = side_level[side];
    }
}

void tb_heap_account_free(size_t n)
{
    if (timed) timed_calls++;
    level -= (int64_t)n;
    if (side >= 0) {
        side_level[side] -= (int64_t)n;
        side_blocks[side]--;
    }
}

void tb_heap_begin(void)
{
    window_start = level;
    window_allocs = allocs;
    peak = window_start;
}

void tb_heap_end(tb_heap_usage *u)
{
    u->peak = (uint64_t)(peak - window_start);
    u->held = level > window_start ? (uint64_t)(level - window_start) : 0;
    u->allocs = allocs - window_allocs;
}

void tb_timed_begin(int keep_counting)
{
    saved_counting = tb_heap_counting;
    tb_heap_counting = keep_counting ? saved_counting : 0;
    timed = 1;
}

void tb_timed_end(void)
{
    timed = 0;
    tb_heap_counting = saved_counting;
}

uint64_t tb_timed_heap_calls(void)
{
    return timed_calls;
}

void tb_heap_sides_reset(void)
{
    for (int i = 0; i < 2; i++) side_level[i] = side_peak[i] = side_blocks[i] = 0;
}

void tb_heap_side(int s)
{
    side = s;
}

void tb_heap_side_read(int s, tb_heap_side_usage *u)
{
    u->peak = side_peak[s] > 0 ? (uint64_t)side_peak[s] : 0;
    u->held = side_level[s];
    u->blocks = side_blocks[s];
}

uint64_t tb_heap_process_peak(void)
{
    return process_peak > 0 ? (uint64_t)process_peak : 0;
}
