# The RAM budget of the 20 KiB-SRAM Nucleo boards (nucleo-f103rb,
# nucleo-l073rz), included by their board.cmake: 3 painted stacks of 2 KiB,
# request line 1 KiB + 512 B byte pool, 1.5 KiB record line, 2 KiB main
# stack, 512 B handler stack (the linker scripts); the rest is heap
# ("limits" says exactly). newlib-nano: full newlib's malloc grows its arena
# in 4 KiB pages (see microbit/board.cmake).
set(TB_BOARD_MAX_LINE 1024)
set(TB_BOARD_MAX_RECORD 1536)
set(TB_BOARD_STACK_BYTES 2048)
set(TB_BOARD_LINK_RESERVE 1024) # per direction of an in-memory handshake (grows if a flight is larger)
set(TB_BOARD_ONE_SIDE_MAX_LINE 2048)
set(TB_BOARD_ONE_SIDE_MAX_RECORD 1536)
set(TB_BOARD_LINK_OPTIONS --specs=nano.specs)
