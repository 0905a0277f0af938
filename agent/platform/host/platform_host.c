/* Host (Linux/POSIX) platform layer: clocks, perf counters, stdio lines. */
#define _GNU_SOURCE
#include "tb/core.h"
#include "tb/platform.h"
#include "../common/seed_stream.h"

#include <alloca.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <sys/time.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/syscall.h>
#endif

static uint32_t counters = TB_CTR_WALL_NS | TB_CTR_CPU_NS;
static int fd_cycles = -1, fd_instructions = -1;
static char perf_note[160] = "not built with perf events";

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t read_tsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}
#define TB_HAVE_TSC 1
#elif defined(__aarch64__)
static inline uint64_t read_tsc(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
}
#define TB_HAVE_TSC 1
#else
#define TB_HAVE_TSC 0
static inline uint64_t read_tsc(void)
{
    return 0;
}
#endif

#if defined(__linux__)
static int open_counter(uint64_t config)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof(attr);
    attr.config = config;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}
#endif

void tb_platform_init(void)
{
    if (TB_HAVE_TSC) counters |= TB_CTR_TSC;
#if defined(__linux__)
    fd_cycles = open_counter(PERF_COUNT_HW_CPU_CYCLES);
    int err_cycles = errno;
    fd_instructions = open_counter(PERF_COUNT_HW_INSTRUCTIONS);
    if (fd_cycles >= 0) counters |= TB_CTR_CYCLES;
    if (fd_instructions >= 0) counters |= TB_CTR_INSTRUCTIONS;
    if (fd_cycles < 0 || fd_instructions < 0) {
        snprintf(perf_note, sizeof(perf_note),
                 "perf_event_open failed (%s): no hardware counters in this VM or "
                 "kernel.perf_event_paranoid too high",
                 strerror(fd_cycles < 0 ? err_cycles : errno));
    }
#endif
}

uint32_t tb_platform_counters(void)
{
    return counters;
}

const char *tb_platform_counter_note(uint32_t counter)
{
    if (counters & counter) return "";
    if (counter == TB_CTR_TSC) return "no time-stamp counter on this architecture";
    return perf_note;
}

const char *tb_platform_name(void)
{
    return "host";
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t read_fd(int fd)
{
    uint64_t v = 0;
    if (fd >= 0 && read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) v = 0;
    return v;
}

void tb_read_counters(tb_reading *r)
{
    r->cycles = read_fd(fd_cycles);
    r->instructions = read_fd(fd_instructions);
    r->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    r->tsc = read_tsc();
    r->wall_ns = clock_ns(CLOCK_MONOTONIC);
    r->model_cycles = 0;
}

long tb_read_line(char *buf, size_t cap)
{
    size_t n = 0;
    int c;
    int too_long = 0;
    while ((c = getchar()) != EOF && c != '\n') {
        if (n + 1 < cap) {
            buf[n++] = (char)c;
        } else {
            too_long = 1;
        }
    }
    if (c == EOF && n == 0 && !too_long) return -1;
    if (n > 0 && buf[n - 1] == '\r') n--;
    buf[n] = '\0';
    return too_long ? -2 : (long)n;
}

void tb_write(const char *s, size_t len)
{
    fwrite(s, 1, len, stdout);
}

void tb_flush(void)
{
    fflush(stdout);
}

/* TLSBENCH_FIXED_CLOCK=<unix seconds>: the wall clock libraries read with
 * time() is frozen there (a TLS 1.2 Mbed TLS server puts it in its random,
 * which its signature covers), for the host peer of an emulated device whose
 * own clock is frozen at the same second. Unset: the system's clock. This
 * definition takes the place of the C library's for the whole agent. */
static long long fixed_clock(void)
{
    static long long fixed = -2;
    if (fixed == -2) {
        const char *v = getenv("TLSBENCH_FIXED_CLOCK");
        char *end = NULL;
        fixed = v != NULL && *v != '\0' ? strtoll(v, &end, 10) : -1;
        if (end != NULL && *end != '\0') fixed = -1;
    }
    return fixed;
}

time_t time(time_t *out)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    if (out != NULL) *out = tv.tv_sec;
    return tv.tv_sec;
}

/* The same frozen second for the millisecond clock wolfSSL's TLS 1.3 ticket
 * age reads (gettimeofday): a resuming host client then reports the same
 * ticket age (0) every time, so the checks a device server makes of it run
 * the same instructions in every run. tlsbench's own timers use
 * clock_gettime, never this. */
int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    (void)tz;
    long long fixed = fixed_clock();
    if (fixed >= 0) {
        tv->tv_sec = (time_t)fixed;
        tv->tv_usec = 0;
        return 0;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = (suseconds_t)(ts.tv_nsec / 1000);
    return 0;
}

/* TLSBENCH_FIXED_SEED=1: a fixed xorshift stream instead of the OS, for the
 * host peer of a handshake whose other side runs on an emulated device, so
 * that the device's counts are the same in every run (the device's own stream
 * is fixed too). Test material only: never an entropy source. */
static int fixed_seed(void)
{
    static int fixed = -1;
    if (fixed < 0) {
        const char *v = getenv("TLSBENCH_FIXED_SEED");
        fixed = v != NULL && strcmp(v, "1") == 0;
    }
    return fixed;
}

#define FIXED_START 0x74626870u /* "tbhp": not the device's start */
static uint32_t fixed_state = FIXED_START;

int tb_platform_seed_restart(void)
{
    if (!fixed_seed()) return 0;
    fixed_state = FIXED_START;
    return 1;
}

int tb_platform_seed(uint8_t *out, size_t n)
{
    if (fixed_seed()) {
        TB_SEED_STREAM(fixed_state, out, n)
        return 0;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t got = getrandom(out + done, n - done, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

/* TLSBENCH_FIXED_SEED=1: the C library's getrandom answers the same fixed
 * stream, for a library that keys its own generator from the OS and has no
 * public way to be handed a seed (GnuTLS 3.7: adapters/gnutls/adapter.c).
 * Otherwise it makes the system call the C library's getrandom makes. This
 * definition takes the place of the C library's for the whole agent. */
ssize_t getrandom(void *buf, size_t n, unsigned int flags)
{
    if (fixed_seed()) {
        uint8_t *out = buf;
        TB_SEED_STREAM(fixed_state, out, n)
        return (ssize_t)n;
    }
    return syscall(SYS_getrandom, buf, n, flags);
}

const char *tb_platform_seed_note(void)
{
    if (fixed_seed()) return "a fixed test stream (TLSBENCH_FIXED_SEED=1): NOT an entropy source";
    return "the OS (getrandom)";
}

/* TLSBENCH_FIXED_SEED=1 (callgrind's counts): the agent's stack starts at
 * the same place within a page whatever the size of the environment and
 * the arguments the kernel (or valgrind) put above it. The C library's
 * string functions take more or fewer instructions with a string's place
 * in its page (strcmp on libtasn1's names in a stack buffer), so a longer
 * environment moved GnuTLS's count by thousands of instructions, and
 * OpenSSL's by tens. */
int main(void)
{
    if (fixed_seed()) {
        uintptr_t here = (uintptr_t)__builtin_frame_address(0);
        volatile char *pad = alloca((here & 4095u) + 64u);
        pad[0] = 0;
        return tb_agent_main() + pad[0];
    }
    return tb_agent_main();
}
