# Size probes (TB_SIZE_PROBES=ON, firmware builds only): per library and
# primitive, a minimal image that calls only that primitive through the
# library's own API (sizeprobe/<library>.c with -DTB_PROBE_<NAME>), plus an
# "empty" probe with the same start-up, runtime and main and no library call.
# Each probe links the agent's library build (same configuration header and
# profile), tlsbench's core and the same Cortex-M platform files, with the
# agent's link options, so the image minus the empty image is what the
# primitive pulls in. `tlsbench sizes` builds and measures them; it reads
# the list of probes built from sizeprobes.txt in the build folder.
set(TB_SIZEPROBES_COMMON empty drbg sha256 sha512 sha3-256 hmac-sha256 aes-128-gcm aes-128-ccm
    chacha20-poly1305 aes-128-cbc aes-128-cbc-hmac-sha1 x25519 p256-ecdh ecdsa-p256-sign
    ecdsa-p256-verify ecdsa-p256-sign-verify rsa2048-verify rsa2048-sign)
# aes-128: one block through the raw block cipher (wolfSSL's needs
# WOLFSSL_AES_DIRECT or HAVE_AES_ECB, not in its configuration); Ed25519:
# Mbed TLS has no EdDSA.
set(TB_SIZEPROBES_mbedtls ${TB_SIZEPROBES_COMMON} aes-128)
set(TB_SIZEPROBES_wolfssl ${TB_SIZEPROBES_COMMON} ed25519-sign ed25519-verify ed25519-sign-verify)
# ML-KEM-768 and ML-DSA-44/65 where the library tree has them (TB_SIZEPROBE_PQ_<set>, from
# library.cmake: wolfSSL 5.8+): key generation alone, and the whole scheme (keygen, encaps,
# decaps / keygen, sign, verify)
set(TB_SIZEPROBES_PQ mlkem768-keygen mlkem768 mldsa44-keygen mldsa44 mldsa65)

# The platform files once, compiled as for the agents, except that the
# platform's main() (which runs the agent) is renamed in platform_cortexm.c:
# the probe's main() is the one start-up calls, and the linker drops the
# agent's (the probe defines an empty tb_library so that the core it
# references links).
set(_tb_probe_platform ${TB_PLATFORM_SOURCES})
list(REMOVE_ITEM _tb_probe_platform platform/cortexm/platform_cortexm.c)
add_library(tb_sizeprobe_platform OBJECT ${_tb_probe_platform})
add_library(tb_sizeprobe_platform_main OBJECT platform/cortexm/platform_cortexm.c)
target_compile_definitions(tb_sizeprobe_platform_main PRIVATE main=tb_sizeprobe_unused_agent_main)
foreach(_t tb_sizeprobe_platform tb_sizeprobe_platform_main)
  target_include_directories(${_t} PRIVATE include platform/cortexm)
  target_compile_definitions(${_t} PRIVATE TB_BARE_METAL=1 TB_MACHINE_NAME=${TB_MACHINE})
  target_compile_options(${_t} PRIVATE ${TB_WARNINGS})
  if(CMAKE_SYSTEM_PROCESSOR STREQUAL "arm")
    target_compile_options(${_t} PRIVATE -masm-syntax-unified)  # as the agents (Thumb-1 asm)
  endif()
endforeach()

# One set of probes per library build of this folder (TB_SIZEPROBE_SETS, from each library.cmake:
# the default tree's and each further version's), each linking its own library targets; the
# manifest names each by its library identifier (mbedtls, wolfssl@5.9).
set(_tb_manifest "")
foreach(_set IN LISTS TB_SIZEPROBE_SETS)
  string(REPLACE "|" ";" _set "${_set}")
  list(GET _set 0 _ident)
  list(LENGTH _set _n)
  set(_sfx "")
  if(_n GREATER 1)
    list(GET _set 1 _sfx)
  endif()
  string(REGEX REPLACE "@.*" "" lib "${_ident}")
  if(NOT DEFINED TB_SIZEPROBES_${lib})
    continue()  # a library without firmware probes
  endif()
  set(_probes ${TB_SIZEPROBES_${lib}})
  if(TB_SIZEPROBE_PQ_${lib}${_sfx})
    list(APPEND _probes ${TB_SIZEPROBES_PQ})
  endif()
  tb_core_for(_core "${TB_SIZEPROBE_PQ_${lib}${_sfx}}")  # the core its agent links
  foreach(probe IN LISTS _probes)
    string(TOUPPER "${probe}" _def)
    string(REPLACE "-" "_" _def "${_def}")
    set(exe tb-sizeprobe-${lib}${_sfx}-${probe})
    add_executable(${exe} sizeprobe/${lib}.c $<TARGET_OBJECTS:tb_sizeprobe_platform>
                          $<TARGET_OBJECTS:tb_sizeprobe_platform_main>)
    target_include_directories(${exe} PRIVATE sizeprobe platform/cortexm)
    target_compile_definitions(${exe} PRIVATE TB_BARE_METAL=1 TB_PROBE_${_def}=1)
    target_compile_options(${exe} PRIVATE ${TB_WARNINGS})
    target_link_libraries(${exe} PRIVATE ${_core} ${TB_SIZEPROBE_LIBS_${lib}${_sfx}})
    # exactly the agents' link (board script and its shared layout, C library choice)
    target_link_options(${exe} PRIVATE -T${TB_LINKER_SCRIPT} -L${CMAKE_CURRENT_SOURCE_DIR}/platform/cortexm
      -Wl,-Map=${CMAKE_CURRENT_BINARY_DIR}/${exe}.map
      -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free ${TB_BOARD_LINK_OPTIONS})
    set_target_properties(${exe} PROPERTIES LINK_DEPENDS ${TB_LINKER_SCRIPT})
    string(APPEND _tb_manifest "${_ident} ${probe} ${exe}\n")
  endforeach()
endforeach()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/sizeprobes.txt "${_tb_manifest}")
