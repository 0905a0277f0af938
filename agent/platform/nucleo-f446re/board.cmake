# nucleo-f446re (a real board): STM32F446RE, 128 KiB SRAM, the same RAM
# budget as netduinoplus2: 3 painted stacks of 16 KiB, request line 8 KiB +
# 4 KiB byte pool, 9 KiB record line, 8 KiB main stack, the rest heap. No
# semihosting (nothing would answer it without a debugger); TIM2's update
# interrupt keeps the 64-bit cycle count.
set(TB_BOARD_CPUS cortex-m4)
set(TB_BOARD_MAX_LINE 8192)
set(TB_BOARD_MAX_RECORD 9216)
set(TB_BOARD_STACK_BYTES 16384)
set(TB_BOARD_SOURCES platform/stm32/usart_stm32.c platform/cortexm/dwt.c platform/stm32/tim2_wraps.c)
set(TB_BOARD_DEFINES TB_SEMIHOSTING=0 TB_TIMER_IRQ=28)
set(TB_BOARD_LINK_RESERVE 8192) # per direction of an in-memory handshake (grows if a flight is larger)
