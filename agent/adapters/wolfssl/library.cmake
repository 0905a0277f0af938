# wolfSSL built from source with our own user_settings.h (WOLFSSL_USER_SETTINGS)
# from an explicit file list, so the same list cross-compiles for Cortex-M.
# wolfSSL's own CMake is not used.
set(_wolf ${TB_WOLFSSL_SOURCE_DIR})
if("${TB_WOLFSSL_SOURCE_DIR}" STREQUAL "")
  message(FATAL_ERROR "wolfssl: set -DTB_WOLFSSL_SOURCE_DIR=<unpacked wolfSSL source tree>")
endif()
if(NOT EXISTS ${_wolf}/wolfssl/wolfcrypt/settings.h OR NOT EXISTS ${_wolf}/wolfcrypt/src/aes.c
   OR NOT EXISTS ${_wolf}/src/tls13.c)
  message(FATAL_ERROR "wolfssl: TB_WOLFSSL_SOURCE_DIR='${_wolf}' is not a wolfSSL source tree "
                      "(no wolfssl/wolfcrypt/settings.h, wolfcrypt/src/aes.c or src/tls13.c)")
endif()
set(_wolf_cfg ${CMAKE_CURRENT_SOURCE_DIR}/adapters/wolfssl)

# x86-64 gets wolfSSL's assembly (SP maths, AES-NI, AVX SHA/ChaCha/Poly1305/
# X25519); every other target builds portable C.
set(_wolf_x86_64 OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  set(_wolf_x86_64 ON)
endif()
option(TB_WOLFSSL_ASM "Use wolfSSL's x86-64 assembly when building for x86-64" ON)
if(NOT TB_WOLFSSL_ASM)
  set(_wolf_x86_64 OFF)
endif()

# TLS layer (ssl.c #includes its helper files: bio.c, pk.c, x509.c, ...).
set(_wolf_tls_sources internal.c keys.c ssl.c tls.c tls13.c wolfio.c)
# wolfCrypt (misc.c is #included by the files that need it).
set(_wolf_crypt_sources
  aes.c asn.c chacha.c chacha20_poly1305.c coding.c cpuid.c curve25519.c curve448.c
  dh.c ecc.c ed25519.c ed448.c error.c fe_448.c fe_operations.c ge_448.c
  ge_operations.c hash.c hmac.c kdf.c logging.c md5.c memory.c poly1305.c pwdbased.c
  random.c rsa.c sha.c sha256.c sha3.c sha512.c signature.c sp_int.c wc_encrypt.c
  wc_port.c wolfmath.c)
if(_wolf_x86_64)
  enable_language(ASM)
  list(APPEND _wolf_crypt_sources sp_x86_64.c sp_x86_64_asm.S aes_asm.S aes_gcm_asm.S
       sha256_asm.S sha512_asm.S sha3_asm.S chacha_asm.S poly1305_asm.S fe_x25519_asm.S)
else()
  # Fixed-size SP maths in C (the word size picks which file is live).
  list(APPEND _wolf_crypt_sources sp_c32.c sp_c64.c)
endif()

set(_wolf_files)
foreach(f IN LISTS _wolf_tls_sources)
  list(APPEND _wolf_files ${_wolf}/src/${f})
endforeach()
foreach(f IN LISTS _wolf_crypt_sources)
  list(APPEND _wolf_files ${_wolf}/wolfcrypt/src/${f})
endforeach()

add_library(tb_wolfssl STATIC ${_wolf_files})
target_include_directories(tb_wolfssl PUBLIC ${_wolf_cfg} ${_wolf})
target_compile_definitions(tb_wolfssl PUBLIC WOLFSSL_USER_SETTINGS
                           TB_WOLFSSL_X86_64_ASM=$<BOOL:${_wolf_x86_64}>)
# Third-party code: its own warnings never fail our build.
target_compile_options(tb_wolfssl PRIVATE -w)
if(_wolf_x86_64)
  # aes_asm.S does not read user_settings.h: it needs the target macro itself
  # (as wolfSSL's configure passes it to the assembler).
  target_compile_definitions(tb_wolfssl PRIVATE $<$<COMPILE_LANGUAGE:ASM>:WOLFSSL_X86_64_BUILD>)
  # AES-NI intrinsics in aes.c (key schedule) and GCM: AES, SSE4.1, PCLMUL.
  target_compile_options(tb_wolfssl PRIVATE $<$<COMPILE_LANGUAGE:C>:-maes -msse4.1 -mpclmul>)
endif()
find_package(Threads)
if(Threads_FOUND)
  target_link_libraries(tb_wolfssl PUBLIC Threads::Threads)
endif()
target_link_libraries(tb_wolfssl PUBLIC m)

if(_wolf_x86_64)
  set(_wolf_asm "x86-64 asm: SP maths, AES-NI, AVX SHA/ChaCha/Poly1305/X25519")
else()
  set(_wolf_asm "portable C (no asm)")
endif()
get_filename_component(_wolf_name ${_wolf} NAME)
tb_add_agent(wolfssl
  SOURCES adapters/wolfssl/adapter.c adapters/wolfssl/run.c adapters/wolfssl/tls.c
  LIBS tb_wolfssl
  CONFIG "wolfSSL built from source (${_wolf_name}); ${_wolf_asm}; TLS 1.2 PSK (static, DHE, ECDHE), static ECDH and DH_anon suites; session cache, tickets, 0-RTT enabled per endpoint")
