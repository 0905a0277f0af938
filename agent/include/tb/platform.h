/* What the core needs from the machine it runs on. Everything POSIX (or
 * bare-metal) lives behind this header: the core and adapters stay portable. */
#ifndef TB_PLATFORM_H
#define TB_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* Counters a platform may offer; tb_platform_counters() says which. */
enum {
    TB_CTR_WALL_NS = 1u << 0,      /* monotonic wall clock, ns */
    TB_CTR_CPU_NS = 1u << 1,       /* this thread's CPU time, ns */
    TB_CTR_TSC = 1u << 2,          /* time-stamp counter ticks (not core cycles) */
    TB_CTR_CYCLES = 1u << 3,       /* core cycles (perf events / DWT) */
    TB_CTR_INSTRUCTIONS = 1u << 4, /* retired instructions */
    /* cycles of a board's cycle model (an emulator plugin), never a
     * hardware counter; only when the host asked for the model */
    TB_CTR_MODEL_CYCLES = 1u << 5,
};

typedef struct {
    uint64_t wall_ns;
    uint64_t cpu_ns;
    uint64_t tsc;
    uint64_t cycles;
    uint64_t instructions;
    uint64_t model_cycles;
} tb_reading;

void tb_platform_init(void);
uint32_t tb_platform_counters(void);
/* Why a counter is missing, for the record ("" when present). */
const char *tb_platform_counter_note(uint32_t counter);
const char *tb_platform_name(void);
void tb_read_counters(tb_reading *r);

/* Memory instruments; tb_platform_memory() says which this platform has. */
enum {
    TB_MEM_HEAP = 1u << 0,  /* every allocation of the process is counted */
    TB_MEM_STACK = 1u << 1, /* an operation can run on a painted stack */
};
uint32_t tb_platform_memory(void);

typedef struct {
    uint64_t peak;   /* highest heap level in the window, above its start */
    uint64_t held;   /* heap level at the end of the window, above its start */
    uint64_t allocs; /* allocations made in the window */
} tb_heap_usage;

/* A heap window: counts from the level at tb_heap_begin(). */
void tb_heap_begin(void);
void tb_heap_end(tb_heap_usage *u);

/* Per-side heap (TLS handshakes): allocations and frees made while side s
 * (0 client, 1 server, -1 none) is current are charged to it. */
typedef struct {
    uint64_t peak;  /* highest net level of the side since the reset */
    int64_t held;   /* its net level now */
    int64_t blocks; /* its blocks alive now */
} tb_heap_side_usage;
void tb_heap_sides_reset(void);
void tb_heap_side(int s);
void tb_heap_side_read(int s, tb_heap_side_usage *u);
/* The heap cap of the minimum-RAM search: while side s is charged and the
 * hooks count (never in a timed pass), an allocation that would raise its
 * net level above bytes fails (NULL), as on a device with that much heap.
 * s -1 lifts the cap. tb_heap_cap_refusals: allocations refused since, and
 * in *first_need (if given) the level the first of them would have made. */
void tb_heap_cap(int s, uint64_t bytes);
/* 1: the cap is set aside (a resumed case's priming handshake) until 0. */
void tb_heap_cap_pause(int paused);
uint64_t tb_heap_cap_refusals(uint64_t *first_need);
/* The highest heap level of the whole process since it started (checks
 * against whole-process tools such as valgrind massif). */
uint64_t tb_heap_process_peak(void);
/* A timed pass (calibration, warm-up, samples, timed handshakes): the
 * allocation hooks stop counting until tb_timed_end(), unless the request
 * asked for counting inside it (count_timed=1, a check of what the hooks
 * cost). Calls that reach the accounting during a timed pass are counted:
 * tb_timed_heap_calls() is 0 when the timed passes were clean. */
void tb_timed_begin(int keep_counting);
void tb_timed_end(void);
uint64_t tb_timed_heap_calls(void);
/* The system allocator's own count of bytes in use (an independent figure
 * for tests), 0 when the platform has none. */
uint64_t tb_heap_system_in_use(void);

/* Runs fn(arg) on the same stack, first unpainted (the call settles
 * thread-local state a library creates on first use), then painted, and sets
 * *used to the bytes the painted call touched below its caller's frame (the
 * call itself included; below a floor of about 128 bytes nothing is
 * resolved). A written byte that equals the paint reads as untouched: the
 * host, whose data differ from run to run, paints twice with two values and
 * keeps the deeper reading; firmware (seeded, the same bytes every run) once.
 * Returns 0 on success. */
int tb_stack_run(void (*fn)(void *), void *arg, uint64_t *used);

/* A painted stack on which calls can run one after another (the two sides
 * of a handshake each get one, so each side's peak is its own). NULL when
 * the platform cannot (tb_platform_memory() lacks TB_MEM_STACK). */
typedef struct tb_stack tb_stack;
tb_stack *tb_stack_new(void);
/* Runs fn(arg) on s, from the top of s; returns 0 on success. */
int tb_stack_call(tb_stack *s, void (*fn)(void *), void *arg);
/* The deepest any call on s reached, in bytes from the top of s. */
uint64_t tb_stack_peak(const tb_stack *s);
void tb_stack_free(tb_stack *s);

/* Requests only this platform serves (the host: "tls-server" and
 * "tls-client" over loopback sockets). Returns 1 when it handled the verb
 * (and ended the request), 0 when it does not know it. */
int tb_platform_verb(const char *verb, const void *fields, size_t n);

/* Seed material for a library's DRBG. Host: the OS. Firmware: a fixed,
 * deterministic stream (identical runs; never an entropy source), which
 * tb_platform_seed_note() names so the results say so. Returns 0 on success. */
int tb_platform_seed(uint8_t *out, size_t n);
const char *tb_platform_seed_note(void);
/* Where the seed is a deterministic stream: puts it back at its start and
 * returns 1 (the core then has the library rebuild its generator, untimed,
 * before every measured batch and handshake, so every repeat draws the same
 * numbers and does the same work). Where it is the OS's: returns 0. */
int tb_platform_seed_restart(void);

/* Line I/O with the host side (pipe, UART or semihosting). */
/* Reads one line without its newline; returns its length, or -1 at end of
 * input, or -2 when the line was longer than cap (the rest is discarded). */
long tb_read_line(char *buf, size_t cap);
void tb_write(const char *s, size_t len);
void tb_flush(void);

#endif
