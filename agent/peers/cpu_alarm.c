/* alarm() for Mbed TLS's benchmark program (programs/test/benchmark.c),
 * linked with -Wl,--wrap=alarm: its measuring windows (1 s for symmetric
 * algorithms, 3 s for public-key ones) end after that much user CPU time of
 * the process instead of wall time, so a busy machine's other processes do
 * not count against it. This is what `openssl speed` counts by default and
 * what wolfCrypt's benchmark counts when built with LINUX_RUSAGE_UTIME, and
 * tlsbench's side of the comparison reads its thread CPU clock. The program
 * installs its handler for SIGALRM before each alarm(); the same handler is
 * installed for the virtual timer's signal. The agents never link this file. */
#include <signal.h>
#include <stddef.h>
#include <sys/time.h>

unsigned int __wrap_alarm(unsigned int seconds);
unsigned int __wrap_alarm(unsigned int seconds)
{
    struct sigaction handler;
    if (sigaction(SIGALRM, NULL, &handler) == 0) sigaction(SIGVTALRM, &handler, NULL);
    struct itimerval window = {{0, 0}, {(time_t)seconds, 0}};
    setitimer(ITIMER_VIRTUAL, &window, NULL);
    return 0;
}
