# nucleo-f746zg (a real board): STM32F746ZG, Cortex-M7, 320 KiB SRAM: 3
# painted stacks of 16 KiB, request line 8 KiB + 4 KiB byte pool, 9 KiB
# record line, 8 KiB main stack, 1 KiB handler stack, the rest heap.
#
# TB_MACHINE nucleo-f746zg-on-mps2-an500: the same sizes at the MPS2's
# addresses (nucleo-f746zg-mps2.ld) under QEMU's Cortex-M7, with its UART
# and timer (board_nucleo-f746zg.c, TB_EMULATED).
set(TB_BOARD_CPUS cortex-m7)
set(TB_BOARD_MAX_LINE 8192)
set(TB_BOARD_MAX_RECORD 9216)
set(TB_BOARD_STACK_BYTES 16384)
set(TB_BOARD_LINK_RESERVE 8192) # per direction of an in-memory handshake (grows if a flight is larger)
if(TB_MACHINE MATCHES "-on-mps2-an500$")
  set(TB_LINKER_SCRIPT ${CMAKE_CURRENT_SOURCE_DIR}/platform/nucleo-f746zg/nucleo-f746zg-mps2.ld)
  set(TB_BOARD_DEFINES TB_EMULATED=1)
else()
  set(TB_BOARD_SOURCES platform/stm32/usart_stm32v2.c platform/cortexm/dwt.c platform/stm32/tim2_wraps.c)
  set(TB_BOARD_DEFINES TB_EMULATED=0 TB_SEMIHOSTING=0 TB_TIMER_IRQ=28)
endif()
