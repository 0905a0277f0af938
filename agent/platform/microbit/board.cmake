# microbit-roomy: the same core, UART and timer with QEMU's flash and RAM
# sized up (microbit-roomy.ld): the roomy defaults of agent/CMakeLists.txt,
# newlib as on the MPS2 boards.
if(TB_MACHINE STREQUAL "microbit-roomy")
  set(TB_BOARD_CPUS cortex-m0)
  set(TB_LINKER_SCRIPT ${CMAKE_CURRENT_SOURCE_DIR}/platform/microbit/microbit-roomy.ld)
  return()
endif()
# microbit (QEMU): 16 KiB of RAM. 3 painted stacks of 1.5 KiB, request
# line 1 KiB + 512 B byte pool, 1.5 KiB record line, 2 KiB main stack,
# 512 B handler stack (microbit.ld); the rest, 5208 B, is heap (the
# "limits" request says exactly). Requests that need more are refused
# ("request line too long") or fail: a heap failure (named in the end
# record, counted in "limits") or a stack overflow (a "fault" record).
set(TB_BOARD_CPUS cortex-m0)
set(TB_BOARD_MAX_LINE 1024)
set(TB_BOARD_MAX_RECORD 1536)
set(TB_BOARD_STACK_BYTES 1536)
set(TB_BOARD_LINK_RESERVE 1024) # per direction of an in-memory handshake (grows if a flight is larger)
# newlib-nano: full newlib's malloc grows its arena in 4 KiB pages (more
# than this heap: every allocation failed) and keeps 2.5 KiB of data;
# nano's grows by what is asked and keeps 120 B.
set(TB_BOARD_LINK_OPTIONS --specs=nano.specs)
