# mps2-an505 (QEMU): the Cortex-M33 on the MPS2 code (board_mps2.c at the
# AN505's addresses, 4 MiB + 4 MiB as on the other MPS2 images); its APB
# timer 0 is IRQ 3.
set(TB_BOARD_CPUS cortex-m33)
set(TB_BOARD_DEFINES TB_TIMER_IRQ=3)
