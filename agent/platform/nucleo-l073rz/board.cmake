# nucleo-l073rz (a real board): STM32L073RZ, Cortex-M0+, 20 KiB SRAM, the
# budget of stm32/ram-20k.cmake (as nucleo-f103rb).
# The image is ARMv6-M (TB_CPU cortex-m0: the M0+ runs it unchanged).
#
# TB_MACHINE nucleo-l073rz-on-microbit: the same sizes at the micro:bit's
# addresses (nucleo-l073rz-microbit.ld) under QEMU's Cortex-M0, with its
# UART and timer (board_nucleo-l073rz.c, TB_EMULATED).
set(TB_BOARD_CPUS cortex-m0)
include(${CMAKE_CURRENT_LIST_DIR}/../stm32/ram-20k.cmake)
set(TB_BOARD_SOURCES platform/cortexm/systick.c)
if(TB_MACHINE MATCHES "-on-microbit$")
  set(TB_LINKER_SCRIPT ${CMAKE_CURRENT_SOURCE_DIR}/platform/nucleo-l073rz/nucleo-l073rz-microbit.ld)
  set(TB_BOARD_DEFINES TB_EMULATED=1)
else()
  list(APPEND TB_BOARD_SOURCES platform/stm32/usart_stm32v2.c)
  set(TB_BOARD_DEFINES TB_EMULATED=0 TB_SEMIHOSTING=0)
endif()
