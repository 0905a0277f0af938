# nucleo-f103rb (a real board): STM32F103RB, 20 KiB SRAM, the budget of
# stm32/ram-20k.cmake.
#
# TB_MACHINE nucleo-f103rb-on-netduino2: the same memory layout under QEMU's
# netduino2 (STM32F205, Cortex-M3), with the emulator's counter and exit
# (board_nucleo-f103rb.c, TB_EMULATED).
set(TB_BOARD_CPUS cortex-m3)
include(${CMAKE_CURRENT_LIST_DIR}/../stm32/ram-20k.cmake)
set(TB_BOARD_SOURCES platform/stm32/usart_stm32.c)
if(TB_MACHINE MATCHES "-on-netduino2$")
  list(APPEND TB_BOARD_SOURCES platform/stm32/qemu_tim_count.c)
  set(TB_BOARD_DEFINES TB_EMULATED=1)
else()
  list(APPEND TB_BOARD_SOURCES platform/cortexm/dwt.c platform/stm32/tim2_wraps.c)
  set(TB_BOARD_DEFINES TB_EMULATED=0 TB_SEMIHOSTING=0 TB_TIMER_IRQ=28)
endif()
