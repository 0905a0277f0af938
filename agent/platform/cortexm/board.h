/* What one Cortex-M board (or emulated machine) gives the shared Cortex-M
 * platform layer: a byte channel to the host and a free-running counter.
 * Adding a board is a board_<name>.c, a linker script and a CMake entry. */
#ifndef TB_BOARD_H
#define TB_BOARD_H

#include <stdint.h>

void tb_board_init(void);
/* Optional (a weak default does nothing): first thing at reset, before
 * .data and .bss are set up; registers only. */
void tb_board_early_init(void);
const char *tb_board_name(void);
/* Blocking byte I/O with the host (a UART). */
void tb_board_putc(char c);
int tb_board_getc(void);
/* A monotonic 64-bit count since tb_board_init(), in the board's counter
 * unit (tb_board_counter says which tb_platform counter it is). */
uint64_t tb_board_count(void);
uint32_t tb_board_counter(void);
/* Why the counters the board lacks are missing (the board's own counter has
 * no note): the note for the other of cycles and instructions, and the one
 * for every time counter. */
typedef struct {
    const char *other_count;
    const char *time;
} tb_board_notes;
extern const tb_board_notes tb_board_counter_notes;
/* The time note of every emulated board. */
#define TB_NOTE_QEMU_TIME "QEMU -icount: virtual time only; instruction counts are the measure"

#endif
