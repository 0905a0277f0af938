# What every bare-metal toolchain file here sets, for a GNU toolchain whose
# tools are <prefix>-gcc, -ar, -ranlib: no OS, static-library try-compiles
# that see TB_CPU (default_cpu when unset), and headers and libraries found
# only for the target. A macro: the settings land in the toolchain file's scope.
macro(tb_bare_metal_toolchain processor prefix default_cpu)
  set(CMAKE_SYSTEM_NAME Generic)
  set(CMAKE_SYSTEM_PROCESSOR ${processor})
  set(CMAKE_C_COMPILER ${prefix}-gcc)
  set(CMAKE_ASM_COMPILER ${prefix}-gcc)
  set(CMAKE_AR ${prefix}-ar)
  set(CMAKE_RANLIB ${prefix}-ranlib)
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TB_CPU)
  if(NOT TB_CPU)
    set(TB_CPU ${default_cpu})
  endif()
  set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
  set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
  set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
endmacro()
