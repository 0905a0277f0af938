/* ST NUCLEO-F446RE, a real board (no emulator): STM32F446RE, Cortex-M4,
 * left on its reset clock, the 16 MHz HSI RC oscillator (no PLL, AHB and
 * APB undivided, flash with 0 wait states and the ART accelerator off as at
 * reset): the simplest clock tree, named in the board name.
 *
 * Counter: DWT CYCCNT (core cycles, cortexm/dwt.c). It wraps every 2^32
 * cycles (268 s at 16 MHz); a read after a wrap sees a smaller value and
 * counts it, and TIM2's update interrupt (every 2^31
 * cycles, 134 s) reads it at least twice per wrap, so the count is 64 bits.
 * A window that spans that interrupt includes its few dozen cycles.
 *
 * I/O: USART2 on PA2 (TX) / PA3 (RX), AF7, wired to the ST-LINK virtual COM
 * port, 115200 8N1 from the 16 MHz APB1 clock; the USART code is the one
 * netduinoplus2 runs under QEMU (platform/stm32/usart_stm32.c). No
 * semihosting (no debugger need be attached): "exit" and a fault end by
 * spinning.
 *
 * Tested only in emulation (netduinoplus2 under QEMU): the USART register
 * code. Not tested at all (no board here): this file's clock, GPIO and RCC
 * set-up, DWT CYCCNT, the TIM2 interrupt, and the baud rate on a wire. */
#include "board.h"
#include "tb/platform.h"
#include "../cortexm/dwt.h"
#include "../stm32/tim2_wraps.h"
#include "../stm32/usart_stm32.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define RCC_AHB1ENR REG(0x40023830u)
#define RCC_APB1ENR REG(0x40023840u)
#define GPIOA_MODER REG(0x40020000u)
#define GPIOA_AFRL REG(0x40020020u)
#define USART2 0x40004400u
#define HSI_HZ 16000000u

void tb_board_init(void)
{
    RCC_AHB1ENR |= 1u << 0;                 /* GPIOA */
    RCC_APB1ENR |= (1u << 17) | (1u << 0); /* USART2, TIM2 */
    (void)RCC_APB1ENR;                      /* two cycles before the first register access */
    GPIOA_MODER = (GPIOA_MODER & ~(0xFu << 4)) | (0xAu << 4); /* PA2, PA3: alternate function */
    GPIOA_AFRL = (GPIOA_AFRL & ~(0xFFu << 8)) | (0x77u << 8);  /* AF7: USART2 */
    tb_usart_init(USART2, HSI_HZ, 115200u);

    tb_stm32_tim2_wraps_start(0, 0x7FFFFFFFu);
}

#define TB_BOARD_NAME "board:nucleo-f446re:hsi-16mhz"
#define TB_BOARD_PUTC(c) tb_usart_putc(USART2, c)
#define TB_BOARD_GETC() tb_usart_getc(USART2)
#define TB_BOARD_CYCLES() tb_dwt_count()
#define TB_BOARD_CPU_NOTE "Cortex-M4 has no retired-instruction counter: cycles only"
#define TB_BOARD_CLOCK_NOTE "core cycles of the 16 MHz HSI clock (62.5 ns each; HSI is +-1 %): not converted to time"
#include "../stm32/board_io.c"
