/* Cortex-M platform layer (bare metal, newlib; shared with the RV32 class
 * target, picolibc, where the few lines of assembly differ): the board's counter as the
 * only clock, line I/O over the board's UART, and the requests only a
 * firmware serves: "exit", "clock" and "calibrate". */
#include "board.h"
#include "cortexm.h"
#include "tb/core.h"
#include "tb/platform.h"
#include "tb/protocol.h"
#include "../common/seed_stream.h"

#include <string.h>
#include <sys/time.h>

/* Every reading subtracts the cost of one reading (measured at start-up
 * with this same code), so the difference of two consecutive readings is
 * what ran between them, and a window is not charged for the readings
 * nested inside it either. */
static uint64_t reads, read_cost, model_read_cost;
static char last_char = '\n';

/* ---- the cycle model's channel (emulated boards only) ----
 * QEMU's plugin API cannot write guest memory, so the model's count
 * (agent/qemu-plugin/cyclemodel.c) comes in through semihosting: the host
 * names a file as the second word of the semihosting command line; each time
 * tb_model_mark() starts, the plugin writes the cumulative model cycles
 * there (8 bytes, little-endian), and tb_model_mark() reads them back. The
 * plugin finds tb_model_mark by its symbol. Without the model (no file on
 * the command line, or a real board) nothing of this runs.
 * After the cycles come the instructions the model excluded (a crypto
 * peripheral's stand-in, hwcrypto.h: subtracted from the instruction
 * count) and the board profile's accelerators (TB_HW_* bits). */
static int32_t model_handle = -1;
static uint64_t model_excluded;
static uint32_t model_accelerators;

uint32_t tb_model_accelerators(void);
uint32_t tb_model_accelerators(void)
{
    return model_accelerators;
}

#if TB_SEMIHOSTING
#define SYS_OPEN 0x01
#define SYS_READ 0x06
#define SYS_SEEK 0x0A
#define SYS_GET_CMDLINE 0x15

static uint32_t semihost(uint32_t op, void *args)
{
#if defined(__riscv)
    /* RISC-V semihosting: the same operations (cortexm.h) */
    register uint32_t a0 __asm__("a0") = op;
    register void *a1 __asm__("a1") = args;
    __asm__ volatile(TB_RV32_SEMIHOST_TRAP : "+r"(a0) : "r"(a1) : "memory");
    return a0;
#else
    register uint32_t r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = args;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
#endif
}

static void model_open(void)
{
    static char cmdline[256];
    uint32_t get_args[2] = {(uint32_t)(uintptr_t)cmdline, sizeof(cmdline) - 1};
    if (semihost(SYS_GET_CMDLINE, get_args) != 0) return;
    cmdline[sizeof(cmdline) - 1] = '\0';
    char *path = strchr(cmdline, ' ');
    if (path == NULL || path[1] == '\0') return;
    path++;
    uint32_t open_args[3] = {(uint32_t)(uintptr_t)path, 0 /* "r" */, (uint32_t)strlen(path)};
    model_handle = (int32_t)semihost(SYS_OPEN, open_args);
}

__attribute__((noinline, used)) uint64_t tb_model_mark(void)
{
    /* little-endian words as the plugin writes them (both cores are little-endian): read in place,
     * so the reading's own code stays as small as it was with the cycles alone */
    uint64_t le[3] = {0};
    uint32_t seek_args[2] = {(uint32_t)model_handle, 0};
    uint32_t read_args[3] = {(uint32_t)model_handle, (uint32_t)(uintptr_t)le, sizeof(le)};
    semihost(SYS_SEEK, seek_args);
    semihost(SYS_READ, read_args);
    model_excluded = le[1];
    model_accelerators = (uint32_t)le[2];
    return le[0];
}
#else
static void model_open(void)
{
}

uint64_t tb_model_mark(void)
{
    return 0;
}
#endif

static int64_t frozen_unix = 1767225600; /* 2026-01-01 until the host sends "clock" */

void tb_platform_init(void)
{
    tb_board_init();
    model_open();
    tb_reading a, b, c;
    tb_read_counters(&a);
    tb_read_counters(&b);
    tb_read_counters(&c);
    /* read_cost was 0 for both; a board counting cycles has them in .cycles
     * (subtracting only .instructions left its read cost in every window) */
    read_cost = (tb_board_counter() & TB_CTR_CYCLES) ? b.cycles - a.cycles : b.instructions - a.instructions;
    /* the model's ART caches are cold in the first window (its misses would
     * be subtracted from every later, warm reading): a warm window's cost */
    model_read_cost = c.model_cycles - b.model_cycles;
    reads = 0;
    /* "Ready": one empty line (the host's reader skips empty lines). A host
     * should send nothing before it: QEMU's STM32 USART model drops what
     * arrives before the firmware has enabled it. */
    tb_write("\n", 1);
}

uint32_t tb_platform_counters(void)
{
    return tb_board_counter() | (model_handle >= 0 ? TB_CTR_MODEL_CYCLES : 0u);
}

const char *tb_platform_counter_note(uint32_t counter)
{
    if (counter == tb_board_counter()) return "";
    if (counter == TB_CTR_CYCLES || counter == TB_CTR_INSTRUCTIONS) return tb_board_counter_notes.other_count;
    return tb_board_counter_notes.time;
}

const char *tb_platform_name(void)
{
    return tb_board_name();
}

void tb_read_counters(tb_reading *r)
{
    uint64_t raw = tb_board_count();
    uint64_t model = model_handle >= 0 ? tb_model_mark() : 0;
    /* less the instructions the model excluded (a crypto peripheral's stand-in): only ever
     * non-zero under the emulator's plugin, whose boards count instructions */
    uint64_t v = raw - reads * read_cost - model_excluded;
    r->model_cycles = model - reads * model_read_cost;
    reads++;
    r->wall_ns = 0;
    r->cpu_ns = 0;
    r->tsc = 0;
    r->cycles = 0;
    r->instructions = 0;
    if (tb_board_counter() & TB_CTR_CYCLES) r->cycles = v;
    if (tb_board_counter() & TB_CTR_INSTRUCTIONS) r->instructions = v;
}

static uint64_t reading(const tb_reading *r)
{
    return (tb_board_counter() & TB_CTR_CYCLES) ? r->cycles : r->instructions;
}

/* ---- line I/O ---- */

long tb_read_line(char *buf, size_t cap)
{
    size_t n = 0;
    int too_long = 0;
    for (;;) {
        int c = tb_board_getc();
        if (c == '\n') break;
        if (c == '\r') continue;
        if (n + 1 < cap) {
            buf[n++] = (char)c;
        } else {
            too_long = 1;
        }
    }
    buf[n] = '\0';
    return too_long ? -2 : (long)n;
}

void tb_write(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) tb_board_putc(s[i]);
    if (len) last_char = s[len - 1];
}

void tb_flush(void)
{
}

void tb_cortexm_flush_line(void)
{
    if (last_char != '\n') tb_write("\n", 1);
}

/* ---- time and seed ---- */

void tb_cortexm_time(void *timeval)
{
    struct timeval *tv = timeval;
    tv->tv_sec = (time_t)frozen_unix;
    tv->tv_usec = 0;
}

/* A deterministic stream (xorshift32 from a fixed start) so that every run
 * of an image executes the same instructions. For benchmarking only: it is
 * NOT an entropy source and must never seed keys for real use. */
#define SEED_START 0x7462656eu /* "tben" */
static uint32_t seed_state = SEED_START;

int tb_platform_seed(uint8_t *out, size_t n)
{
    TB_SEED_STREAM(seed_state, out, n)
    return 0;
}

int tb_platform_seed_restart(void)
{
    seed_state = SEED_START;
    return 1;
}

const char *tb_platform_seed_note(void)
{
    return "deterministic test seed (xorshift32 from a fixed start; NOT an entropy source)";
}

/* ---- firmware-only requests ---- */

/* Exactly 2n instructions for n >= 1: the calibration loop of known length. */
static __attribute__((noinline)) void spin(uint32_t n)
{
#if defined(__riscv)
    __asm__ volatile("1: addi %0, %0, -1\n"
                     "   bnez %0, 1b\n"
                     : "+r"(n));
#else
    __asm__ volatile("1: subs %0, %0, #1\n"
                     "   bne 1b\n"
                     : "+l"(n)
                     :
                     : "cc");
#endif
}

static const char *field(const void *fields, size_t n, const char *key)
{
    const tb_field *f = fields;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(f[i].key, key) == 0) return f[i].value;
    }
    return NULL;
}

static void calibrate(const void *fields, size_t nf)
{
    uint64_t n = 0;
    const char *v = field(fields, nf, "n");
    if (v == NULL || tb_field_u64(v, &n) != 0 || n == 0 || n > 0xFFFFFFFFu) {
        tb_end(TB_BAD_INPUT, "calibrate needs n=1..4294967295");
        return;
    }
    tb_reading a, b, c, d;
    tb_read_counters(&a);
    tb_read_counters(&b);
    tb_read_counters(&c);
    spin((uint32_t)n);
    tb_read_counters(&d);
    tb_rec_begin("calibrate");
    tb_rec_u64("n", n);
    tb_rec_u64("loop_instructions", 2 * n);
    tb_rec_u64("empty", reading(&b) - reading(&a));
    tb_rec_u64("measured", reading(&d) - reading(&c));
    tb_rec_u64("read_cost", read_cost);
    if (model_handle >= 0) {
        tb_rec_u64("model_empty", b.model_cycles - a.model_cycles);
        tb_rec_u64("model_measured", d.model_cycles - c.model_cycles);
        tb_rec_u64("model_read_cost", model_read_cost);
    }
    tb_rec_end();
    tb_end(TB_OK, NULL);
}

static void set_clock(const void *fields, size_t nf)
{
    uint64_t t = 0;
    const char *v = field(fields, nf, "unix");
    if (v == NULL || tb_field_u64(v, &t) != 0) {
        tb_end(TB_BAD_INPUT, "clock needs unix=<seconds>");
        return;
    }
    frozen_unix = (int64_t)t;
    tb_end(TB_OK, NULL);
}

/* What fits this firmware, so the host can say "does not fit" with the
 * bytes a request needs (a request line longer than line_max is refused;
 * an allocation beyond the heap arena fails and counts in heap_failures; a
 * primitive deeper than primitive_stack, or a handshake side deeper than
 * stack_bytes, overflows: an error, or a fault once off RAM). */
static void limits(void)
{
    extern char _main_stack_size[]; /* a linker script value, not an object */
    tb_rec_begin("limits");
    tb_rec_u64("line_max", TB_MAX_LINE - 1);
    tb_rec_u64("record_max", TB_MAX_RECORD);
    tb_rec_u64("heap_arena", tb_cortexm_heap_arena());
    tb_rec_u64("stack_bytes", TB_STACK_BYTES); /* a handshake side's stack */
    tb_rec_u64("primitive_stack", tb_cortexm_primitive_stack());
    tb_rec_u64("stacks", TB_PAINTED_STACKS);
    tb_rec_u64("main_stack", (uint64_t)(uintptr_t)_main_stack_size);
    tb_rec_u64("heap_failures", tb_cortexm_heap_failures());
    tb_rec_end();
    tb_end(TB_OK, NULL);
}

int tb_platform_verb(const char *verb, const void *fields, size_t n)
{
    if (strcmp(verb, "limits") == 0) {
        limits();
        return 1;
    }
    if (strcmp(verb, "exit") == 0) {
        tb_end(TB_OK, NULL);
        tb_cortexm_exit(0);
        return 1;
    }
    if (strcmp(verb, "calibrate") == 0) {
        calibrate(fields, n);
        return 1;
    }
    if (strcmp(verb, "clock") == 0) {
        set_clock(fields, n);
        return 1;
    }
    return 0;
}

int main(void)
{
    return tb_agent_main();
}
