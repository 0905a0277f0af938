/* alarm() for Mbed TLS's benchmark program (programs/test/benchmark.c),
 * linked with -Wl,--wrap=alarm: its measuring windows (1 s for symmetric
 * algorithms, 3 s for public-key ones) end after that much CPU time of the
 * process instead of wall time, so a busy machine's other processes do not
 * count against it, as in `openssl speed` (user time), wolfCrypt's program
 * built with LINUX_RUSAGE_UTIME (getrusage) and tlsbench's side (the thread
 * CPU clock). A POSIX timer on CLOCK_PROCESS_CPUTIME_ID, not setitimer's
 * ITIMER_VIRTUAL: the kernel charges the latter whole scheduler ticks to
 * whichever process is running when a tick falls, which on a busy machine is
 * not the CPU time the process got. It raises SIGALRM, for which the program
 * installed its handler just before. The agents never link this file. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned int __wrap_alarm(unsigned int seconds);
unsigned int __wrap_alarm(unsigned int seconds)
{
    static timer_t window;
    static int made;
    if (!made) {
        struct sigevent ev = {0};
        ev.sigev_notify = SIGEV_SIGNAL;
        ev.sigev_signo = SIGALRM;
        if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &window) != 0) {
            perror("cpu_alarm: timer_create(CLOCK_PROCESS_CPUTIME_ID)");
            abort(); /* a window in wall time would be a different measurement */
        }
        made = 1;
    }
    struct itimerspec span = {{0, 0}, {(time_t)seconds, 0}};
    if (timer_settime(window, 0, &span, NULL) != 0) {
        perror("cpu_alarm: timer_settime");
        abort();
    }
    return 0;
}
