# nucleo-f103rb (a real board): STM32F103RB, 20 KiB SRAM. 3 painted stacks
# of 2 KiB, request line 1 KiB + 512 B byte pool, 1.5 KiB record line,
# 2 KiB main stack, 512 B handler stack; the rest is heap ("limits" says
# exactly). newlib-nano: full newlib's malloc grows its arena in 4 KiB pages.
#
# TB_MACHINE nucleo-f103rb-on-netduino2: the same memory layout under QEMU's
# netduino2 (STM32F205, Cortex-M3), with the emulator's counter and exit
# (board_nucleo-f103rb.c, TB_EMULATED).
set(TB_BOARD_CPUS cortex-m3)
set(TB_BOARD_MAX_LINE 1024)
set(TB_BOARD_MAX_RECORD 1536)
set(TB_BOARD_STACK_BYTES 2048)
set(TB_BOARD_LINK_RESERVE 1024) # per direction of an in-memory handshake (grows if a flight is larger)
set(TB_BOARD_ONE_SIDE_MAX_LINE 2048)
set(TB_BOARD_ONE_SIDE_MAX_RECORD 1536)
set(TB_BOARD_LINK_OPTIONS --specs=nano.specs)
set(TB_BOARD_SOURCES platform/stm32/usart_stm32.c)
if(TB_MACHINE MATCHES "-on-netduino2$")
  list(APPEND TB_BOARD_SOURCES platform/stm32/qemu_tim_count.c)
  set(TB_BOARD_DEFINES TB_EMULATED=1)
else()
  list(APPEND TB_BOARD_SOURCES platform/cortexm/dwt.c)
  set(TB_BOARD_DEFINES TB_SEMIHOSTING=0 TB_TIMER_IRQ=28)
endif()
