/* time() for a peer program whose built-in test certificates have expired:
 * wolfSSL 5.7.2's tls_bench.c loads the certificate buffers of its release
 * (wolfssl/certs_test.h), valid around that date only. Linked with
 * -Wl,--wrap=time, every time() call in the program and the library it links
 * returns 2024-07-18 12:00 UTC (the release's month), so the certificates
 * verify as they did then. The agents never link this file. */
#include <time.h>

time_t __wrap_time(time_t *t);
time_t __wrap_time(time_t *t)
{
    const time_t fixed = 1721304000;
    if (t != NULL) *t = fixed;
    return fixed;
}
