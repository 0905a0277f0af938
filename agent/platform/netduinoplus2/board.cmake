# netduinoplus2 (QEMU): 128 KiB of SRAM as on a real STM32F405 (QEMU maps
# 192 KiB and no CCM; the linker script uses the real 128 KiB):
#   3 painted stacks of 16 KiB, request line 8 KiB + 4 KiB byte pool,
#   9 KiB record line, 8 KiB main stack, 1 KiB handler stack, the rest
#   (47880 B) heap.
set(TB_BOARD_CPUS cortex-m4)
set(TB_BOARD_MAX_LINE 8192)
set(TB_BOARD_MAX_RECORD 9216) # the hex of a 4 KiB output and the fields around it
set(TB_BOARD_STACK_BYTES 16384)
set(TB_BOARD_LINK_RESERVE 8192) # per direction of an in-memory handshake (grows if a flight is larger)
set(TB_BOARD_SOURCES platform/stm32/usart_stm32.c platform/stm32/qemu_tim_count.c)
