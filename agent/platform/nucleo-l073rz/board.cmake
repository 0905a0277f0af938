# nucleo-l073rz (a real board): STM32L073RZ, Cortex-M0+, 20 KiB SRAM: the
# RAM budget of nucleo-f103rb (3 painted stacks of 2 KiB, request line
# 1 KiB + 512 B byte pool, 1.5 KiB record line, 2 KiB main stack, 512 B
# handler stack, the rest heap). newlib-nano (see microbit/board.cmake).
# The image is ARMv6-M (TB_CPU cortex-m0: the M0+ runs it unchanged).
#
# TB_MACHINE nucleo-l073rz-on-microbit: the same sizes at the micro:bit's
# addresses (nucleo-l073rz-microbit.ld) under QEMU's Cortex-M0, with its
# UART and timer (board_nucleo-l073rz.c, TB_EMULATED).
set(TB_BOARD_CPUS cortex-m0)
set(TB_BOARD_MAX_LINE 1024)
set(TB_BOARD_MAX_RECORD 1536)
set(TB_BOARD_STACK_BYTES 2048)
set(TB_BOARD_LINK_RESERVE 1024) # per direction of an in-memory handshake (grows if a flight is larger)
set(TB_BOARD_ONE_SIDE_MAX_LINE 2048)
set(TB_BOARD_ONE_SIDE_MAX_RECORD 1536)
set(TB_BOARD_LINK_OPTIONS --specs=nano.specs)
set(TB_BOARD_SOURCES platform/cortexm/systick.c)
if(TB_MACHINE MATCHES "-on-microbit$")
  set(TB_LINKER_SCRIPT ${CMAKE_CURRENT_SOURCE_DIR}/platform/nucleo-l073rz/nucleo-l073rz-microbit.ld)
  set(TB_BOARD_DEFINES TB_EMULATED=1)
else()
  list(APPEND TB_BOARD_SOURCES platform/stm32/usart_stm32v2.c)
  set(TB_BOARD_DEFINES TB_SEMIHOSTING=0)
endif()
