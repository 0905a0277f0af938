# wolfSSL built from source with our own user_settings.h (WOLFSSL_USER_SETTINGS)
# from an explicit file list, so the same list cross-compiles for Cortex-M.
# wolfSSL's own CMake is not used.
# A further version (TB_VERSION_AGENTS in CMakeLists.txt) is the same build
# from its own tree, tlsbench-agent-wolfssl-<label>: same user_settings.h and
# profile, so the version is the only difference between the two agents.
set(_wolf ${TB_WOLFSSL_SOURCE_DIR})
set(_wolf_sfx "")
if(TB_AGENT_LABEL)
  set(_wolf ${TB_AGENT_DIR})
  set(_wolf_sfx "-${TB_AGENT_LABEL}")
endif()
if("${_wolf}" STREQUAL "")
  message(FATAL_ERROR "wolfssl: set -DTB_WOLFSSL_SOURCE_DIR=<unpacked wolfSSL source tree>")
endif()
if(NOT EXISTS ${_wolf}/wolfssl/wolfcrypt/settings.h OR NOT EXISTS ${_wolf}/wolfcrypt/src/aes.c
   OR NOT EXISTS ${_wolf}/src/tls13.c)
  message(FATAL_ERROR "wolfssl: TB_WOLFSSL_SOURCE_DIR='${_wolf}' is not a wolfSSL source tree "
                      "(no wolfssl/wolfcrypt/settings.h, wolfcrypt/src/aes.c or src/tls13.c)")
endif()
set(_wolf_cfg ${CMAKE_CURRENT_SOURCE_DIR}/adapters/wolfssl)

# Build profile (a benchmark dimension): profiles/<name>.h, included at the
# end of user_settings.h, plus the source files it needs.
#   x86-64-asm   x86-64 assembly (SP maths, AES-NI, AVX SHA/ChaCha/Poly1305/
#                X25519); x86-64 hosts only, their default
#   c            generic C (SP C32/C64 code); the default elsewhere
#   sp-asm       Cortex-M3/M4/M7/M33 Thumb-2 assembly (sp_cortexm.c and
#                port/arm/thumb2-*_c.c); Cortex-M only
#   sp-asm-small sp-asm with WOLFSSL_SP_SMALL and WOLFSSL_SMALL_STACK, as
#                wolfSSL's published "Thumb2 ARM ASM, SP-ASM Cortex M small"
#   sp-small-asm the SP maths alone in Thumb-2 assembly, small (sp_cortexm.c,
#                WOLFSSL_SP_SMALL), as wolfSSL's published Cortex-M figures
#   sp-thumb-small the SP maths in Thumb-1 assembly, small (sp_armthumb.c,
#                WOLFSSL_SP_SMALL), as wolfSSL's published Cortex-M0+ figures
#   small-stack  generic C with WOLFSSL_SMALL_STACK and WOLFSSL_SP_SMALL
# Which cores each Cortex-M profile builds for is declared in the library's
# record (src/tlsbench/libraries/wolfssl.py, core_profiles), which refuses the
# others before CMake runs; here only firmware against host is checked.
set(_wolf_x86_64 OFF)
set(_wolf_thumb2_armasm OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  set(_wolf_x86_64 ON)
endif()
# Kept for existing build scripts: OFF picks profile "c" on x86-64.
option(TB_WOLFSSL_ASM "Use wolfSSL's x86-64 assembly when building for x86-64 (default profile)" ON)
if(_wolf_x86_64 AND TB_WOLFSSL_ASM)
  set(_wolf_default_profile x86-64-asm)
else()
  set(_wolf_default_profile c)
endif()
set(TB_WOLFSSL_PROFILE "" CACHE STRING
    "wolfSSL build profile: x86-64-asm, c, sp-asm, sp-asm-small, sp-small-asm, sp-thumb-small, small-stack or hw (empty: x86-64-asm on x86-64 hosts, else c)")
set_property(CACHE TB_WOLFSSL_PROFILE PROPERTY STRINGS x86-64-asm c sp-asm sp-asm-small sp-small-asm sp-thumb-small small-stack hw)
set(_wolf_profile "${TB_WOLFSSL_PROFILE}")
if(_wolf_profile STREQUAL "")
  set(_wolf_profile ${_wolf_default_profile})
endif()
if(NOT EXISTS ${_wolf_cfg}/profiles/${_wolf_profile}.h)
  message(FATAL_ERROR "wolfssl: unknown TB_WOLFSSL_PROFILE '${_wolf_profile}' "
                      "(known: x86-64-asm, c, sp-asm, sp-asm-small, sp-small-asm, sp-thumb-small, small-stack, hw)")
endif()
if(_wolf_profile STREQUAL "x86-64-asm" AND NOT _wolf_x86_64)
  message(FATAL_ERROR "wolfssl: profile 'x86-64-asm' needs an x86-64 target with GCC or Clang "
                      "(this build: ${CMAKE_SYSTEM_PROCESSOR}, ${CMAKE_C_COMPILER_ID}); use 'c'")
endif()
# "hw": a crypto peripheral's driver (hw.c) on the cycle model's register block (platform/cortexm/hwcrypto.c)
set(_wolf_hw_sources)
if(_wolf_profile STREQUAL "hw")
  if(NOT TB_BARE_METAL OR NOT TB_PLATFORM_SOURCES MATCHES "platform/cortexm/")
    message(FATAL_ERROR "wolfssl: profile 'hw' drives a modelled crypto peripheral: it needs a Cortex-M firmware "
                        "build on an emulated board with a board profile (tlsbench run --target qemu:... --board ...); "
                        "this build is TB_PLATFORM=${TB_PLATFORM}")
  endif()
  set(_wolf_hw_sources adapters/wolfssl/hw.c platform/cortexm/hwcrypto.c)
endif()
if(_wolf_profile MATCHES "^sp-((small-)?asm|asm-small|thumb-small)$" AND NOT (TB_BARE_METAL AND TB_CPU MATCHES "^cortex-m"))
  message(FATAL_ERROR "wolfssl: profile '${_wolf_profile}' is wolfSSL's Cortex-M assembly: it needs "
                      "a Cortex-M firmware build (TB_PLATFORM=<board>, TB_CPU=cortex-m...); "
                      "this build is TB_PLATFORM=${TB_PLATFORM} TB_CPU='${TB_CPU}'. Use 'c' or 'small-stack'")
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
if(_wolf_profile STREQUAL "hw")
  list(APPEND _wolf_crypt_sources cryptocb.c) # WOLF_CRYPTO_CB's registry and dispatch
endif()
if(_wolf_profile STREQUAL "x86-64-asm")
  enable_language(ASM)
  list(APPEND _wolf_crypt_sources sp_x86_64.c sp_x86_64_asm.S aes_asm.S aes_gcm_asm.S
       sha256_asm.S sha512_asm.S sha3_asm.S chacha_asm.S poly1305_asm.S fe_x25519_asm.S)
  set(_wolf_asm "x86-64 asm: SP maths, AES-NI, AVX SHA/ChaCha/Poly1305/X25519")
elseif(_wolf_profile MATCHES "^sp-asm(-small)?$")
  list(APPEND _wolf_crypt_sources sp_cortexm.c)
  if(TB_CPU STREQUAL "cortex-m3")
    # ARMv7-M has no UMAAL: the SP code has a UMULL/UMLAL variant, but
    # wolfSSL 5.7.2's Thumb-2 Curve25519 needs UMAAL and WOLFSSL_ARMASM
    # cannot leave Curve25519 out, so on M3 only the SP maths are asm.
    set(_wolf_asm "Cortex-M3 Thumb-2 asm for the SP maths only (sp_cortexm.c without UMAAL), other primitives in C (the Thumb-2 Curve25519 of wolfSSL 5.7.2 needs UMAAL, ARMv7E-M)")
  else()
    # As wolfSSL's own build lists them for a Thumb-2 target: the wc_* API
    # of AES, SHA-256 and SHA-512 lives in port/arm/armv8-*.c (aes.c,
    # sha256.c and sha512.c step aside under WOLFSSL_ARMASM), the asm in
    # thumb2-*_c.c. profiles/sp-asm.h reads TB_WOLFSSL_THUMB2_ARMASM.
    list(APPEND _wolf_crypt_sources port/arm/armv8-aes.c port/arm/armv8-sha256.c
         port/arm/armv8-sha512.c port/arm/thumb2-aes-asm_c.c port/arm/thumb2-sha256-asm_c.c
         port/arm/thumb2-sha512-asm_c.c port/arm/thumb2-sha3-asm_c.c port/arm/thumb2-curve25519_c.c)
    set(_wolf_thumb2_armasm ON)
    set(_wolf_asm "Cortex-M Thumb-2 asm: SP maths (sp_cortexm.c), AES/GCM, SHA-256, SHA-512, SHA-3, Curve25519/Ed25519 field (port/arm/thumb2-*_c.c), ChaCha20/Poly1305 in C")
    # wolfSSL 5.9 reads WOLFSSL_ARMASM_THUMB2 (profiles/sp-asm.h sets it, as its configure does for a
    # Thumb-2 target) and then calls its Thumb-2 ML-KEM and Poly1305; 5.7 has neither file nor switch
    if(EXISTS "${_wolf}/wolfcrypt/src/port/arm/thumb2-mlkem-asm_c.c")
      list(APPEND _wolf_crypt_sources port/arm/thumb2-mlkem-asm_c.c port/arm/thumb2-poly1305-asm_c.c
           port/arm/thumb2-chacha-asm_c.c)
      set(_wolf_asm "Cortex-M Thumb-2 asm: SP maths (sp_cortexm.c), AES/GCM, SHA-256, SHA-512, SHA-3, Curve25519/Ed25519 field, ML-KEM, Poly1305, ChaCha20 where the library calls it (port/arm/thumb2-*_c.c)")
    endif()
  endif()
  if(_wolf_profile STREQUAL "sp-asm-small")
    set(_wolf_asm "${_wolf_asm}, the SP maths small (WOLFSSL_SP_SMALL) with WOLFSSL_SMALL_STACK")
  endif()
elseif(_wolf_profile STREQUAL "sp-thumb-small")
  # The SP maths alone in Thumb-1 asm (ARMv6-M has no UMULL: 16x16 multiplies), small; every other primitive in C.
  list(APPEND _wolf_crypt_sources sp_armthumb.c)
  set(_wolf_asm "Cortex-M0 Thumb asm for the SP maths only, small (sp_armthumb.c, WOLFSSL_SP_SMALL, WOLFSSL_SMALL_STACK), other primitives in C")
elseif(_wolf_profile STREQUAL "sp-small-asm")
  # The SP maths alone in Thumb-2 asm, small (WOLFSSL_SP_SMALL); every other primitive in C.
  list(APPEND _wolf_crypt_sources sp_cortexm.c)
  set(_wolf_asm "Cortex-M Thumb-2 asm for the SP maths only, small (sp_cortexm.c, WOLFSSL_SP_SMALL, WOLFSSL_SMALL_STACK), other primitives in C")
else()
  # Fixed-size SP maths in C (the word size picks which file is live).
  list(APPEND _wolf_crypt_sources sp_c32.c sp_c64.c)
  if(_wolf_profile STREQUAL "small-stack")
    set(_wolf_asm "portable C (no asm), WOLFSSL_SMALL_STACK + WOLFSSL_SP_SMALL")
  else()
    set(_wolf_asm "portable C (no asm)")
  endif()
  if(_wolf_profile STREQUAL "hw")
    set(_wolf_asm "portable C (no asm), SHA-1, SHA-256 (and HMAC over them), AES-CBC, AES-GCM and ECDSA P-256 through crypto callbacks to a modelled peripheral where the board profile declares one")
  endif()
endif()

# ML-KEM (FIPS 203) and ML-DSA (FIPS 204) where the tree has them (5.8+):
# user_settings.h turns them on under TB_WOLFSSL_PQ.
set(_wolf_pq OFF)
if(EXISTS ${_wolf}/wolfcrypt/src/wc_mlkem.c AND EXISTS ${_wolf}/wolfcrypt/src/wc_mldsa.c)
  set(_wolf_pq ON)
  list(APPEND _wolf_crypt_sources wc_mlkem.c wc_mlkem_poly.c wc_mldsa.c)
  if(_wolf_profile STREQUAL "x86-64-asm")
    list(APPEND _wolf_crypt_sources wc_mlkem_asm.S wc_mldsa_asm.S)
  endif()
  set(_wolf_asm "${_wolf_asm}, ML-KEM + ML-DSA (wc_mlkem.c, wc_mldsa.c)")
endif()
# SLH-DSA (FIPS 205) where the tree has it (5.9+), host agents only (the
# firmware catalog has no post-quantum kinds): user_settings.h turns on the
# SLH-DSA 128s/128f sets under TB_WOLFSSL_SLHDSA (see there: SHA2 and SHAKE).
set(_wolf_slhdsa OFF)
if(_wolf_pq AND NOT TB_BARE_METAL AND EXISTS ${_wolf}/wolfcrypt/src/wc_slhdsa.c)
  set(_wolf_slhdsa ON)
  list(APPEND _wolf_crypt_sources wc_slhdsa.c)
  set(_wolf_asm "${_wolf_asm}, SLH-DSA SHA2-128s/128f (wc_slhdsa.c)")
endif()

set(_wolf_files)
foreach(f IN LISTS _wolf_tls_sources)
  list(APPEND _wolf_files ${_wolf}/src/${f})
endforeach()
foreach(f IN LISTS _wolf_crypt_sources)
  list(APPEND _wolf_files ${_wolf}/wolfcrypt/src/${f})
endforeach()

# The user's configuration (tlsbench --config wolfssl=...): included at the
# end of our user_settings.h (TB_WOLFSSL_USER_CONFIG), or with
# TB_WOLFSSL_USER_CONFIG_FULL their own user_settings.h instead of ours.
set(TB_WOLFSSL_USER_CONFIG "" CACHE FILEPATH "The user's wolfSSL settings (layered, or their user_settings.h)")
option(TB_WOLFSSL_USER_CONFIG_FULL "TB_WOLFSSL_USER_CONFIG is the whole user_settings.h" OFF)
set(TB_WOLFSSL_USER_CONFIG_SHA256 "" CACHE STRING "SHA-256 of the user's settings file (recorded)")
set(_wolf_settings_dir ${_wolf_cfg})
set(_wolf_user_note "")
if(TB_WOLFSSL_USER_CONFIG AND TB_WOLFSSL_USER_CONFIG_FULL)
  get_filename_component(_wolf_settings_dir "${TB_WOLFSSL_USER_CONFIG}" DIRECTORY)
  set(_wolf_user_note ", REPLACED by the user's user_settings.h (sha256 ${TB_WOLFSSL_USER_CONFIG_SHA256})")
elseif(TB_WOLFSSL_USER_CONFIG)
  set(_wolf_user_note ", with the user's settings after ours (sha256 ${TB_WOLFSSL_USER_CONFIG_SHA256})")
endif()

add_library(tb_wolfssl${_wolf_sfx} STATIC ${_wolf_files})
target_include_directories(tb_wolfssl${_wolf_sfx} PUBLIC ${_wolf_settings_dir} ${_wolf})
target_compile_definitions(tb_wolfssl${_wolf_sfx} PUBLIC WOLFSSL_USER_SETTINGS
                           TB_WOLFSSL_PROFILE_HEADER="profiles/${_wolf_profile}.h")
if(TB_WOLFSSL_USER_CONFIG AND NOT TB_WOLFSSL_USER_CONFIG_FULL)
  target_compile_definitions(tb_wolfssl${_wolf_sfx} PUBLIC TB_WOLFSSL_USER_CONFIG="${TB_WOLFSSL_USER_CONFIG}")
endif()
# The switches the adapter and user_settings.h read, each defined (=1) where
# it is on; TB_BARE_METAL: user_settings.h drops threads, files, sockets and
# the OS random device.
foreach(_wolf_switch _wolf_pq:TB_WOLFSSL_PQ _wolf_slhdsa:TB_WOLFSSL_SLHDSA
                     _wolf_thumb2_armasm:TB_WOLFSSL_THUMB2_ARMASM TB_BARE_METAL:TB_BARE_METAL)
  string(REPLACE ":" ";" _wolf_pair ${_wolf_switch})
  list(GET _wolf_pair 0 _wolf_var)
  list(GET _wolf_pair 1 _wolf_define)
  if(${_wolf_var})
    target_compile_definitions(tb_wolfssl${_wolf_sfx} PUBLIC ${_wolf_define}=1)
  endif()
endforeach()
# Third-party code: its own warnings never fail our build.
target_compile_options(tb_wolfssl${_wolf_sfx} PRIVATE -w)
# Under sanitizers: AddressSanitizer only (CMakeLists.txt says why)
target_compile_options(tb_wolfssl${_wolf_sfx} PRIVATE ${TB_THIRD_PARTY_SANITIZE_OFF})
if(_wolf_profile STREQUAL "x86-64-asm")
  # aes_asm.S does not read user_settings.h: it needs the target macro itself
  # (as wolfSSL's configure passes it to the assembler).
  target_compile_definitions(tb_wolfssl${_wolf_sfx} PRIVATE $<$<COMPILE_LANGUAGE:ASM>:WOLFSSL_X86_64_BUILD>)
  # AES-NI intrinsics in aes.c (key schedule) and GCM: AES, SSE4.1, PCLMUL.
  target_compile_options(tb_wolfssl${_wolf_sfx} PRIVATE $<$<COMPILE_LANGUAGE:C>:-maes -msse4.1 -mpclmul>)
endif()
if(NOT TB_BARE_METAL)
  find_package(Threads)
  if(Threads_FOUND)
    target_link_libraries(tb_wolfssl${_wolf_sfx} PUBLIC Threads::Threads)
  endif()
endif()
target_link_libraries(tb_wolfssl${_wolf_sfx} PUBLIC m)

get_filename_component(_wolf_name ${_wolf} NAME)
set(_wolf_pq_flag)
if(_wolf_pq)
  set(_wolf_pq_flag PQ)
endif()
tb_add_agent(wolfssl${_wolf_sfx} ${_wolf_pq_flag}
  SOURCES adapters/wolfssl/adapter.c adapters/wolfssl/sym.c adapters/wolfssl/kex.c adapters/wolfssl/pk.c adapters/wolfssl/pq.c
          adapters/wolfssl/tls.c ${_wolf_hw_sources}
  LIBS tb_wolfssl${_wolf_sfx}
  # (no ';' in CONFIG: CMake would split the string into a list)
  CONFIG "wolfSSL built from source (${_wolf_name}), profile ${_wolf_profile} (adapters/wolfssl/profiles/${_wolf_profile}.h): ${_wolf_asm}, TLS 1.2 PSK (static, DHE, ECDHE), static ECDH and DH_anon suites, session cache, tickets, 0-RTT enabled per endpoint${_wolf_user_note}")

# This build's size probes (sizeprobe/sizeprobe.cmake): <library identifier>|<suffix>
list(APPEND TB_SIZEPROBE_SETS "wolfssl${TB_AGENT_LABEL_AT}|${_wolf_sfx}")
set(TB_SIZEPROBE_LIBS_wolfssl${_wolf_sfx} tb_wolfssl${_wolf_sfx})
set(TB_SIZEPROBE_PQ_wolfssl${_wolf_sfx} ${_wolf_pq})

# `tlsbench fidelity --peers`: wolfCrypt's own wolfcrypt/benchmark/benchmark.c,
# built from the same sources against the same library and user_settings.h
# as the agent. Built only when asked for (EXCLUDE_FROM_ALL), host only.
if(NOT TB_BARE_METAL AND NOT TB_AGENT_LABEL AND EXISTS "${_wolf}/wolfcrypt/benchmark/benchmark.c")
  add_executable(peer-wolfssl-benchmark EXCLUDE_FROM_ALL "${_wolf}/wolfcrypt/benchmark/benchmark.c"
                 peers/wolfssl_seed.c)
  target_link_libraries(peer-wolfssl-benchmark PRIVATE tb_wolfssl${_wolf_sfx})
  # its own option: time in user CPU time (getrusage), like our side
  target_compile_definitions(peer-wolfssl-benchmark PRIVATE LINUX_RUSAGE_UTIME)
  set_source_files_properties("${_wolf}/wolfcrypt/benchmark/benchmark.c" PROPERTIES COMPILE_OPTIONS -w)
  set_source_files_properties(peers/wolfssl_seed.c PROPERTIES COMPILE_OPTIONS "${TB_WARNINGS}")
endif()

# `tlsbench fidelity --handshakes`: wolfSSL's own examples/benchmark/tls_bench.c
# (client and server threads in one process, over memory with -m), built the
# same way against the agent's library; its built-in certificates need the
# clock of their release (peers/fixed_time.c).
if(NOT TB_BARE_METAL AND NOT TB_AGENT_LABEL AND EXISTS "${_wolf}/examples/benchmark/tls_bench.c")
  add_executable(peer-wolfssl-tls-bench EXCLUDE_FROM_ALL "${_wolf}/examples/benchmark/tls_bench.c"
                 peers/wolfssl_seed.c peers/fixed_time.c)
  target_link_libraries(peer-wolfssl-tls-bench PRIVATE tb_wolfssl${_wolf_sfx})
  # a second inside the validity of each release's built-in test certificates (its certs/server-cert.pem)
  set(_tls_bench_clock_5.7 1721304000) # 2024-07-18 12:00 UTC (valid 2023-12-13 .. 2026-09-08)
  set(_tls_bench_clock_5.9 1767268800) # 2026-01-01 12:00 UTC (valid 2025-11-13 .. 2028-08-09)
  file(STRINGS "${_wolf}/wolfssl/version.h" _wolf_version REGEX "LIBWOLFSSL_VERSION_STRING")
  string(REGEX MATCH "[0-9]+\\.[0-9]+" _wolf_release "${_wolf_version}")
  if(NOT DEFINED _tls_bench_clock_${_wolf_release})
    message(FATAL_ERROR "peer-wolfssl-tls-bench: no clock known for wolfSSL ${_wolf_release}'s test certificates"
                        " (agent/adapters/wolfssl/library.cmake)")
  endif()
  target_compile_definitions(peer-wolfssl-tls-bench PRIVATE TB_PEER_CLOCK=${_tls_bench_clock_${_wolf_release}})
  target_link_options(peer-wolfssl-tls-bench PRIVATE -Wl,--wrap=time)
  set_source_files_properties("${_wolf}/examples/benchmark/tls_bench.c" PROPERTIES COMPILE_OPTIONS -w)
  set_source_files_properties(peers/fixed_time.c PROPERTIES COMPILE_OPTIONS "${TB_WARNINGS}")
endif()
