/* An independent timing of one complete AEAD seal (the agent's operation:
 * set the nonce, 13 bytes of AAD, the message, the tag) with OpenSSL's EVP,
 * in a plain loop of its own, for a fixed CPU time. Prints bytes per CPU
 * second (thread CPU time, as the agent's fidelity figure: on a busy machine
 * wall time would also count the other processes' share).
 * Used by tests/studies/test_fidelity.py as a reference for the agent's figure.
 *   usage: aead_loop aes-128-gcm|chacha20-poly1305 SIZE SECONDS */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    const EVP_CIPHER *cipher = strcmp(argv[1], "aes-128-gcm") == 0 ? EVP_aes_128_gcm() : EVP_chacha20_poly1305();
    size_t n = (size_t)atol(argv[2]);
    double seconds = atof(argv[3]);
    unsigned char key[32] = {0}, iv[12] = {0}, aad[13] = {0}, tag[16];
    unsigned char *in = calloc(1, n + 64), *out = calloc(1, n + 64);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    if (in == NULL || out == NULL || c == NULL || EVP_EncryptInit_ex(c, cipher, NULL, key, iv) != 1) return 1;
    long ops = 0;
    int len;
    double start = now(), elapsed;
    do {
        for (int k = 0; k < 64; k++, ops++) {
            OSSL_PARAM get[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16),
                                OSSL_PARAM_END};
            if (EVP_EncryptInit_ex(c, NULL, NULL, NULL, iv) != 1 || EVP_EncryptUpdate(c, NULL, &len, aad, 13) != 1 ||
                EVP_EncryptUpdate(c, out, &len, in, (int)n) != 1 || EVP_EncryptFinal_ex(c, out + len, &len) != 1 ||
                EVP_CIPHER_CTX_get_params(c, get) != 1)
                return 1;
        }
        elapsed = now() - start;
    } while (elapsed < seconds);
    printf("%.0f\n", (double)ops * (double)n / elapsed);
    return 0;
}
