/*
 * wolfSSL build profile "x86-64-asm" (TB_WOLFSSL_PROFILE=x86-64-asm, the
 * default on x86-64 hosts), included at the end of user_settings.h; also
 * read by wolfSSL's .S files, so preprocessor directives only.
 *
 * SP maths in x86-64 asm (MULX/ADX paths chosen at run time), AES-NI +
 * PCLMUL for AES and GCM, and wolfSSL's "Intel speedup" (AVX1/AVX2 SHA-2,
 * SHA-3, ChaCha20, Poly1305, X25519), which is what makes it comparable to
 * the system libraries' assembly. CPU features are detected at run time
 * (cpuid.c). library.cmake adds sp_x86_64*.c/.S and the *_asm.S files.
 */
#ifndef TB_WOLFSSL_PROFILE_H
#define TB_WOLFSSL_PROFILE_H

#define TB_WOLFSSL_PROFILE_NAME "x86-64-asm"

#ifndef WOLFSSL_X86_64_BUILD /* library.cmake also gives it to the assembler */
#define WOLFSSL_X86_64_BUILD
#endif
#define WOLFSSL_SP_X86_64
#define WOLFSSL_SP_X86_64_ASM
#define WOLFSSL_AESNI
#define USE_INTEL_SPEEDUP
#define WOLFSSL_USE_ALIGN

#endif
