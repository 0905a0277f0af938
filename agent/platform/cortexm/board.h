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
/* Blocking byte I/O with the host (a UART). */
void tb_board_putc(char c);
int tb_board_getc(void);
/* A monotonic 64-bit count since tb_board_init(), in the board's counter
 * unit (tb_board_counter says which tb_platform counter it is). */
uint64_t tb_board_count(void);

/* What a board says of itself and its counter (platform_cortexm.c reports it): its name, which
 * tb_platform counter tb_board_count is, why the other of cycles and instructions is missing, and
 * why time is not measured. */
struct tb_board_info {
    const char *name;
    uint32_t counter;
    const char *other_note;
    const char *time_note;
};
extern const struct tb_board_info tb_board_info;
uint32_t tb_board_counter(void); /* tb_board_info.counter */

#define TB_STR2(x) #x
#define TB_STR(x) TB_STR2(x) /* a define's value as a string, e.g. TB_MACHINE_NAME */

#endif
