# Mbed TLS 3.6 built from an unpacked source tree (TB_MBEDTLS_SOURCE_DIR) as
# static libraries, configured by our own header tb_mbedtls_config.h.
# A further version (TB_VERSION_AGENTS in CMakeLists.txt) is the same build
# from its own tree, tlsbench-agent-mbedtls-<label>: same configuration header
# and profile, its library targets prefixed (Mbed TLS's MBEDTLS_TARGET_PREFIX)
# so both trees live in one build.
set(_tb_mbedtls_src "${TB_MBEDTLS_SOURCE_DIR}")
set(_tb_mbedtls_sfx "")
set(MBEDTLS_TARGET_PREFIX "")
if(TB_AGENT_LABEL)
  set(_tb_mbedtls_src "${TB_AGENT_DIR}")
  set(_tb_mbedtls_sfx "-${TB_AGENT_LABEL}")
  string(MAKE_C_IDENTIFIER "v${TB_AGENT_LABEL}_" MBEDTLS_TARGET_PREFIX)
endif()
if(_tb_mbedtls_src STREQUAL "")
  message(FATAL_ERROR
    "mbedtls: TB_MBEDTLS_SOURCE_DIR is empty; pass "
    "-DTB_MBEDTLS_SOURCE_DIR=<unpacked Mbed TLS 3.6 source tree>")
endif()
if(NOT EXISTS "${_tb_mbedtls_src}/include/mbedtls/build_info.h"
   OR NOT EXISTS "${_tb_mbedtls_src}/library/CMakeLists.txt"
   OR NOT EXISTS "${_tb_mbedtls_src}/CMakeLists.txt")
  message(FATAL_ERROR
    "mbedtls: TB_MBEDTLS_SOURCE_DIR='${_tb_mbedtls_src}' is not an Mbed TLS source "
    "tree (no include/mbedtls/build_info.h, library/CMakeLists.txt, CMakeLists.txt)")
endif()

file(STRINGS "${_tb_mbedtls_src}/include/mbedtls/build_info.h" _tb_mbedtls_ver
  REGEX "^#define MBEDTLS_VERSION_STRING +\"[0-9.]+\"")
string(REGEX REPLACE ".*\"([0-9.]+)\".*" "\\1" _tb_mbedtls_ver "${_tb_mbedtls_ver}")
if(NOT _tb_mbedtls_ver MATCHES "^3\\.6\\.")
  message(FATAL_ERROR
    "mbedtls: TB_MBEDTLS_SOURCE_DIR holds Mbed TLS '${_tb_mbedtls_ver}'; "
    "adapters/mbedtls and its configuration header are written for 3.6.x")
endif()

# Build profile (a benchmark dimension): profiles/<name>.h, included by
# build_info.h after tb_mbedtls_config.h. Its name reaches the adapter's
# config() string (TB_MBEDTLS_PROFILE_NAME, defined by the profile header).
set(TB_MBEDTLS_PROFILE "default" CACHE STRING "Mbed TLS build profile: default or small (adapters/mbedtls/profiles/<name>.h)")
set_property(CACHE TB_MBEDTLS_PROFILE PROPERTY STRINGS default small hw)
if(TB_MBEDTLS_PROFILE STREQUAL "hw" AND (NOT TB_BARE_METAL OR NOT TB_PLATFORM_SOURCES MATCHES "platform/cortexm/"))
  message(FATAL_ERROR "mbedtls: profile 'hw' drives a modelled crypto peripheral: it needs a Cortex-M firmware "
                      "build on an emulated board with a board profile (tlsbench run --target qemu:... --board ...); "
                      "this build is TB_PLATFORM=${TB_PLATFORM}")
endif()
set(_tb_mbedtls_profile "${CMAKE_CURRENT_LIST_DIR}/profiles/${TB_MBEDTLS_PROFILE}.h")
if(NOT EXISTS "${_tb_mbedtls_profile}")
  file(GLOB _tb_mbedtls_profiles RELATIVE "${CMAKE_CURRENT_LIST_DIR}/profiles" "${CMAKE_CURRENT_LIST_DIR}/profiles/*.h")
  string(REPLACE ".h" "" _tb_mbedtls_profiles "${_tb_mbedtls_profiles}")
  message(FATAL_ERROR "mbedtls: unknown TB_MBEDTLS_PROFILE '${TB_MBEDTLS_PROFILE}' "
                      "(known: ${_tb_mbedtls_profiles})")
endif()

# The user's configuration (tlsbench --config mbedtls=...): a file layered
# over the base and profile (it includes the profile, then theirs), or with
# TB_MBEDTLS_USER_CONFIG_FULL the whole configuration (the profile still
# follows it). Only its hash reaches the image's summary: no path in images.
set(TB_MBEDTLS_USER_CONFIG "" CACHE FILEPATH "The user's Mbed TLS configuration (layered, or the whole one)")
option(TB_MBEDTLS_USER_CONFIG_FULL "TB_MBEDTLS_USER_CONFIG is the whole MBEDTLS_CONFIG_FILE" OFF)
set(TB_MBEDTLS_USER_CONFIG_SHA256 "" CACHE STRING "SHA-256 of the user's configuration file (recorded)")
set(_tb_mbedtls_base "${CMAKE_CURRENT_LIST_DIR}/tb_mbedtls_config.h")
set(_tb_mbedtls_user "${_tb_mbedtls_profile}")
set(_tb_mbedtls_user_note "")
if(TB_MBEDTLS_USER_CONFIG)
  if(TB_MBEDTLS_USER_CONFIG_FULL)
    set(_tb_mbedtls_base "${TB_MBEDTLS_USER_CONFIG}")
    set(_tb_mbedtls_user_note ", REPLACED by the user's whole configuration (sha256 ${TB_MBEDTLS_USER_CONFIG_SHA256})")
  else()
    set(_tb_mbedtls_user "${TB_MBEDTLS_USER_CONFIG}")
    set(_tb_mbedtls_user_note ", with the user's configuration over them (sha256 ${TB_MBEDTLS_USER_CONFIG_SHA256})")
  endif()
endif()

# Mbed TLS's own build options. Its CMakeLists predates policy CMP0077, so
# plain variables would not override its option() defaults: use the cache.
set(_tb_mbedtls_note "forced by adapters/mbedtls/library.cmake")
set(MBEDTLS_CONFIG_FILE "${_tb_mbedtls_base}" CACHE FILEPATH "${_tb_mbedtls_note}" FORCE)
set(MBEDTLS_USER_CONFIG_FILE "${_tb_mbedtls_user}" CACHE FILEPATH "${_tb_mbedtls_note}" FORCE)
set(ENABLE_PROGRAMS OFF CACHE BOOL "${_tb_mbedtls_note}" FORCE)
set(ENABLE_TESTING OFF CACHE BOOL "${_tb_mbedtls_note}" FORCE)
set(USE_STATIC_MBEDTLS_LIBRARY ON CACHE BOOL "${_tb_mbedtls_note}" FORCE)
set(USE_SHARED_MBEDTLS_LIBRARY OFF CACHE BOOL "${_tb_mbedtls_note}" FORCE)
set(GEN_FILES OFF CACHE BOOL "${_tb_mbedtls_note}" FORCE)
# Third-party warnings are reported, never fatal to our build.
set(MBEDTLS_FATAL_WARNINGS OFF CACHE BOOL "${_tb_mbedtls_note}" FORCE)
set(DISABLE_PACKAGE_CONFIG_AND_INSTALL ON CACHE BOOL "${_tb_mbedtls_note}" FORCE)

# "hw": the _ALT contexts (hw/*_alt.h) for every target the configuration reaches,
# Mbed TLS's 3rdparty drivers among them (so a directory property, before them)
if(TB_MBEDTLS_PROFILE STREQUAL "hw")
  include_directories(${CMAKE_CURRENT_LIST_DIR}/hw)
endif()

# Only the libraries the agent links get built.
add_subdirectory("${_tb_mbedtls_src}" "${CMAKE_BINARY_DIR}/mbedtls${_tb_mbedtls_sfx}" EXCLUDE_FROM_ALL)

# Under sanitizers: AddressSanitizer only in Mbed TLS and its 3rdparty code (CMakeLists.txt says why)
if(TB_SANITIZE)
  foreach(_t mbedcrypto mbedx509 mbedtls everest p256m)
    if(TARGET ${MBEDTLS_TARGET_PREFIX}${_t})
      target_compile_options(${MBEDTLS_TARGET_PREFIX}${_t} PRIVATE ${TB_THIRD_PARTY_SANITIZE_OFF})
    endif()
  endforeach()
endif()

# The configuration header reads TB_BARE_METAL (no FS_IO, NET_C, OS entropy;
# mbedtls_ms_time from the adapter): every library target and its users.
if(TB_BARE_METAL)
  foreach(_t mbedcrypto mbedx509 mbedtls)
    target_compile_definitions(${MBEDTLS_TARGET_PREFIX}${_t} PUBLIC TB_BARE_METAL=1)
  endforeach()
endif()

# "hw": Mbed TLS's _ALT functions (hw.c) drive the cycle model's register block
# (platform/cortexm/hwcrypto.c), built with our warnings; the stand-in is Mbed TLS's
# own software modules compiled once more under tb_sw_ names (hw/standin_*.c),
# with its flags. Both go into mbedcrypto, where a product's _ALT code lives.
set(_tb_mbedtls_hw_note "")
if(TB_MBEDTLS_PROFILE STREQUAL "hw")
  set(_tb_crypto ${MBEDTLS_TARGET_PREFIX}mbedcrypto)
  set(_tb_hw tb_mbedtls_hw${_tb_mbedtls_sfx})
  add_library(${_tb_hw} OBJECT adapters/mbedtls/hw.c adapters/mbedtls/hw_gcm.c adapters/mbedtls/hw_ecdsa.c
              platform/cortexm/hwcrypto.c)
  target_compile_options(${_tb_hw} PRIVATE ${TB_WARNINGS})
  target_include_directories(${_tb_hw} PRIVATE $<TARGET_PROPERTY:${_tb_crypto},INTERFACE_INCLUDE_DIRECTORIES>
                             ${CMAKE_CURRENT_LIST_DIR}/hw ${CMAKE_CURRENT_SOURCE_DIR}/platform/cortexm)
  target_compile_definitions(${_tb_hw} PRIVATE $<TARGET_PROPERTY:${_tb_crypto},INTERFACE_COMPILE_DEFINITIONS>)
  target_sources(${_tb_crypto} PRIVATE ${CMAKE_CURRENT_LIST_DIR}/hw/standin_sha1.c
                 ${CMAKE_CURRENT_LIST_DIR}/hw/standin_sha256.c ${CMAKE_CURRENT_LIST_DIR}/hw/standin_aes.c
                 ${CMAKE_CURRENT_LIST_DIR}/hw/standin_gcm.c ${CMAKE_CURRENT_LIST_DIR}/hw/standin_ecdsa.c
                 $<TARGET_OBJECTS:${_tb_hw}>)
  set(_tb_mbedtls_hw_note ", AES-128 ECB/CBC/GCM, SHA-1, SHA-256 and ECDSA P-256 through MBEDTLS_AES_ALT/GCM_ALT/SHA1_ALT/SHA256_ALT/ECDSA_SIGN_ALT/ECDSA_VERIFY_ALT to a modelled peripheral where the board profile declares one")
endif()

string(TOUPPER "${CMAKE_BUILD_TYPE}" _tb_mbedtls_bt)
get_filename_component(_tb_mbedtls_name "${_tb_mbedtls_src}" NAME) # never a path: images stay path-free
get_directory_property(_tb_mbedtls_opt DIRECTORY "${_tb_mbedtls_src}"
  DEFINITION CMAKE_C_FLAGS_${_tb_mbedtls_bt})

tb_add_agent(mbedtls${_tb_mbedtls_sfx}
  SOURCES adapters/mbedtls/adapter.c adapters/mbedtls/sym.c adapters/mbedtls/kex.c adapters/mbedtls/pk.c
          adapters/mbedtls/psa_p256.c adapters/mbedtls/tls.c
  LIBS MbedTLS::${MBEDTLS_TARGET_PREFIX}mbedtls MbedTLS::${MBEDTLS_TARGET_PREFIX}mbedx509
       MbedTLS::${MBEDTLS_TARGET_PREFIX}mbedcrypto
  CONFIG "Mbed TLS ${_tb_mbedtls_ver} built from source (${_tb_mbedtls_name}), static libraries built with Mbed TLS CMake flags for ${CMAKE_BUILD_TYPE}: ${_tb_mbedtls_opt}, configured by adapters/mbedtls/tb_mbedtls_config.h + profiles/${TB_MBEDTLS_PROFILE}.h${_tb_mbedtls_hw_note}${_tb_mbedtls_user_note} with TLS 1.2 and 1.3, TLS 1.2 key exchanges RSA, DHE-RSA, ECDHE-RSA, ECDHE-ECDSA, static ECDH-ECDSA, PSK, ECDHE-PSK, DHE-PSK (no anonymous suites in Mbed TLS), TLS 1.3 ephemeral / PSK / PSK-ephemeral modes, session tickets (TLS 1.2 and 1.3), TLS 1.2 session cache, 0-RTT early data")

# This build's size probes (sizeprobe/sizeprobe.cmake): <library identifier>|<suffix>
list(APPEND TB_SIZEPROBE_SETS "mbedtls${TB_AGENT_LABEL_AT}|${_tb_mbedtls_sfx}")
set(TB_SIZEPROBE_LIBS_mbedtls${_tb_mbedtls_sfx} MbedTLS::${MBEDTLS_TARGET_PREFIX}mbedtls
    MbedTLS::${MBEDTLS_TARGET_PREFIX}mbedx509 MbedTLS::${MBEDTLS_TARGET_PREFIX}mbedcrypto)
set(TB_SIZEPROBE_PQ_mbedtls${_tb_mbedtls_sfx} OFF)

# `tlsbench fidelity --peers`: Mbed TLS's own programs/test/benchmark.c,
# built from the same sources against the same libraries and configuration
# as the agent. Built only when asked for (EXCLUDE_FROM_ALL), host only.
if(NOT TB_BARE_METAL AND NOT TB_AGENT_LABEL AND EXISTS "${_tb_mbedtls_src}/programs/test/benchmark.c")
  add_executable(peer-mbedtls-benchmark EXCLUDE_FROM_ALL
    "${_tb_mbedtls_src}/programs/test/benchmark.c" peers/mbedtls_entropy.c peers/cpu_alarm.c)
  target_link_libraries(peer-mbedtls-benchmark PRIVATE MbedTLS::mbedcrypto)
  # its windows in user CPU time, like our side (peers/cpu_alarm.c)
  target_link_options(peer-mbedtls-benchmark PRIVATE -Wl,--wrap=alarm)
  set_source_files_properties(peers/mbedtls_entropy.c peers/cpu_alarm.c PROPERTIES COMPILE_OPTIONS "${TB_WARNINGS}")
endif()
