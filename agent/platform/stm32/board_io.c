/* The end of a Nucleo board file, the same on every real board: its name,
 * its USART as the agent's byte stream, the 64-bit cycle count read with
 * interrupts off (the wrap keeping's interrupt cannot tear it), the counter
 * kind and its notes. The board file defines these, then includes this file
 * where the code stood (so every image keeps its layout):
 *   TB_BOARD_NAME                       e.g. "board:nucleo-f446re:hsi-16mhz"
 *   TB_BOARD_PUTC(c), TB_BOARD_GETC()   its USART's calls (usart_stm32*.h)
 *   TB_BOARD_CYCLES()                   tb_dwt_count() or tb_systick_count()
 *   TB_BOARD_CPU_NOTE, TB_BOARD_CLOCK_NOTE  the two counter notes (board.h) */

const char *tb_board_name(void)
{
    return TB_BOARD_NAME;
}

void tb_board_putc(char c)
{
    TB_BOARD_PUTC(c);
}

int tb_board_getc(void)
{
    return TB_BOARD_GETC();
}

uint64_t tb_board_count(void)
{
    __asm__ volatile("cpsid i" ::: "memory");
    uint64_t c = TB_BOARD_CYCLES();
    __asm__ volatile("cpsie i" ::: "memory");
    return c;
}

uint32_t tb_board_counter(void)
{
    return TB_CTR_CYCLES;
}

const tb_board_notes tb_board_counter_notes = {TB_BOARD_CPU_NOTE, TB_BOARD_CLOCK_NOTE};
