/* The one function wolfCrypt's own benchmark program needs beyond the
 * library as our agents configure it (user_settings.h names it as the
 * seed source; the agents' adapter supplies it, this peer program has none). */
#include <stddef.h>
#include <sys/random.h>

int tb_wolfssl_seed(unsigned char *output, unsigned int sz);
int tb_wolfssl_seed(unsigned char *output, unsigned int sz)
{
    size_t got = 0;
    while (got < sz) {
        ssize_t n = getrandom(output + got, sz - got, 0);
        if (n < 0) return -1;
        got += (size_t)n;
    }
    return 0;
}
