/* time() for a peer program whose built-in test certificates are valid
 * around their release only: wolfSSL's tls_bench.c loads the certificate
 * buffers of its release (wolfssl/certs_test.h). Linked with
 * -Wl,--wrap=time, every time() call in the program and the library it links
 * returns TB_PEER_CLOCK, a second inside that release's certificates'
 * validity (set per release in agent/adapters/wolfssl/library.cmake), so
 * they verify as they did then. The agents never link this file. */
#include <time.h>

time_t __wrap_time(time_t *t);
time_t __wrap_time(time_t *t)
{
    const time_t fixed = TB_PEER_CLOCK;
    if (t != NULL) *t = fixed;
    return fixed;
}
