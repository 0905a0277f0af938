# Cross-compiling the agent for the RV32 class target with Debian's
# gcc-riscv64-unknown-elf (one compiler for RV32 and RV64) and picolibc
# (picolibc-riscv64-unknown-elf, through its specs file). TB_CPU is the ISA
# string: rv32imc (ilp32 ABI, no FPU, as on the RV32 class microcontrollers
# we model); GCC links picolibc's rv32im multilib for it (there is no
# rv32imc one; the C extension changes only the encoding of our code).
include(${CMAKE_CURRENT_LIST_DIR}/bare-metal.cmake)
tb_bare_metal_toolchain(riscv32 riscv64-unknown-elf rv32imc)
# ISA spec 2.2: the CSR instructions (csrr, our counter and trap code) are
# in the base ISA there; with 20191213, GCC 12's default, they need
# "_zicsr", which no multilib name carries (GCC would link the RV64 default).
# The specs file goes to the compiler only: CMake links with these flags.
set(CMAKE_C_FLAGS_INIT "-march=${TB_CPU} -mabi=ilp32 -misa-spec=2.2 --specs=picolibc.specs -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "-march=${TB_CPU} -mabi=ilp32 -misa-spec=2.2")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")
