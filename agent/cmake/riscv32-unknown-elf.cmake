# Cross-compiling the agent for the RV32 class target with Debian's
# gcc-riscv64-unknown-elf (one compiler for RV32 and RV64) and picolibc
# (picolibc-riscv64-unknown-elf, through its specs file). TB_CPU is the ISA
# string: rv32imc (ilp32 ABI, no FPU, as on the RV32 class microcontrollers
# we model); GCC links picolibc's rv32im multilib for it (there is no
# rv32imc one; the C extension changes only the encoding of our code).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_AR riscv64-unknown-elf-ar)
set(CMAKE_RANLIB riscv64-unknown-elf-ranlib)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TB_CPU)
if(NOT TB_CPU)
  set(TB_CPU rv32imc)
endif()
# ISA spec 2.2: the CSR instructions (csrr, our counter and trap code) are
# in the base ISA there; with 20191213, GCC 12's default, they need
# "_zicsr", which no multilib name carries (GCC would link the RV64 default).
# The specs file goes to the compiler only: CMake links with these flags.
set(CMAKE_C_FLAGS_INIT "-march=${TB_CPU} -mabi=ilp32 -misa-spec=2.2 --specs=picolibc.specs -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "-march=${TB_CPU} -mabi=ilp32 -misa-spec=2.2")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
