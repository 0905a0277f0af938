# rv32-virt (QEMU riscv32 virt, RV32IMC): the shared bare-metal layer
# (platform_cortexm.c, memory_cortexm.c: line I/O, counters, requests,
# counting allocator, painted stacks, each with its RV32 assembly) on this
# folder's start-up, trap report and system calls (startup_rv32.c) instead
# of the Cortex-M vector table. picolibc's crt0 is not used (our start-up
# sets the stacks the way the painted-stack layout wants them).
set(TB_BOARD_CPUS rv32imc)
set(TB_PLATFORM_SOURCES platform/rv32-virt/startup_rv32.c platform/cortexm/platform_cortexm.c
                        platform/cortexm/memory_cortexm.c platform/rv32-virt/board_rv32-virt.c)
set(TB_BOARD_LINK_OPTIONS -nostartfiles)
