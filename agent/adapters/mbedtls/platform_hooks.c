/* What Mbed TLS asks of the platform, shared by the adapter and its size
 * probe (sizeprobe/mbedtls.c): each includes this file where its copy
 * stood, so both images keep their layout. The probe references these only
 * where the library needs them (entropy, TLS timers): the linker drops them
 * from every other probe. */
#include "tb/platform.h"

#include <stddef.h>
#include <sys/time.h>

#include <mbedtls/platform_time.h>

/* The entropy module's only source (MBEDTLS_ENTROPY_HARDWARE_ALT, see
 * tb_mbedtls_config.h): the platform's seed, the OS on the host and a
 * deterministic test stream on firmware (tb_platform_seed_note() says which). */
int mbedtls_hardware_poll(void *data, unsigned char *output, size_t len, size_t *olen);
int mbedtls_hardware_poll(void *data, unsigned char *output, size_t len, size_t *olen)
{
    (void)data;
    *olen = 0;
    if (tb_platform_seed(output, len) != 0) return -1;
    *olen = len;
    return 0;
}

#if defined(MBEDTLS_PLATFORM_MS_TIME_ALT)
/* Bare metal: Mbed TLS's millisecond clock (ticket ages, TLS 1.3) from the
 * same frozen clock newlib's time() reads (gettimeofday). */
mbedtls_ms_time_t mbedtls_ms_time(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (mbedtls_ms_time_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}
#endif
