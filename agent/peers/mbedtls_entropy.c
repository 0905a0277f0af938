/* The one function Mbed TLS's own benchmark program needs beyond the
 * library as our agents configure it (MBEDTLS_ENTROPY_HARDWARE_ALT: the
 * agents' adapter supplies it; this peer program has no adapter). */
#include <stddef.h>
#include <sys/random.h>

int mbedtls_hardware_poll(void *data, unsigned char *output, size_t len, size_t *olen);
int mbedtls_hardware_poll(void *data, unsigned char *output, size_t len, size_t *olen)
{
    (void)data;
    ssize_t n = getrandom(output, len, 0);
    if (n < 0) return -1;
    *olen = (size_t)n;
    return 0;
}
