/* ST NUCLEO-L073RZ, a real board: STM32L073RZ, Cortex-M0+ at 32 MHz.
 *
 * Clock (RM0367, STM32L0x3 reference manual): voltage range 1 first
 * (section 6.1.5 "Dynamic voltage scaling management": PWR_CR VOS = 01,
 * wait until PWR_CSR VOSF is 0), since 32 MHz needs range 1; flash one
 * wait state (section 3.7.1, FLASH_ACR LATENCY = 1, above 16 MHz in range
 * 1) with the prefetch on (PRFTEN); HSI16 on (RCC_CR HSI16ON, wait
 * HSI16RDYF); the PLL from HSI16 (RCC_CFGR PLLSRC = 0) x4 (PLLMUL = 0001)
 * /2 (PLLDIV = 01) = 32 MHz (the 96 MHz VCO limit of section 7.2.3 is not
 * reached: 64 MHz), then PLLON, wait PLLRDY, SW = PLL (11), wait SWS. AHB,
 * APB1 and APB2 undivided: 32 MHz each.
 *
 * Counter: no DWT CYCCNT on ARMv6-M: SysTick on the core clock with wrap
 * counting (cortexm/systick.c), 64 bits of core cycles. Its interrupt comes
 * every 2^24 cycles (0.52 s); a window spanning it includes it.
 *
 * I/O: USART2 on PA2 (TX) / PA3 (RX), alternate function 4 (DS10685 table
 * 16), the ST-LINK virtual COM port; 115200 8N1 from the 32 MHz APB1 clock
 * (BRR 278: 0.08 % slow); the ISR/RDR/TDR USART (stm32/usart_stm32v2.c).
 *
 * TB_EMULATED (TB_MACHINE nucleo-l073rz-on-microbit): this board's memory
 * sizes (nucleo-l073rz-microbit.ld) under QEMU's micro:bit, a Cortex-M0
 * whose RAM is set to the board's 20 KiB. QEMU models no STM32L0, so
 * there the I/O, counter and clock are the micro:bit's (its board file,
 * included below): the emulation checks what fits in this board's memory,
 * not this file's registers.
 *
 * Has run on no board. */
#if TB_EMULATED
#include "../microbit/board_microbit.c"
#else
#include "board.h"
#include "tb/platform.h"
#include "../cortexm/systick.h"
#include "../stm32/usart_stm32.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define RCC_CR REG(0x40021000u)
#define RCC_CFGR REG(0x4002100Cu)
#define RCC_IOPENR REG(0x4002102Cu)
#define RCC_APB1ENR REG(0x40021038u)
#define PWR_CR REG(0x40007000u)
#define PWR_CSR REG(0x40007004u)
#define FLASH_ACR REG(0x40022000u)
#define GPIOA_MODER REG(0x50000000u)
#define GPIOA_AFRL REG(0x50000020u)
#define USART2 0x40004400u
#define PCLK1_HZ 32000000u

static void clock_32mhz(void)
{
    RCC_APB1ENR |= 1u << 28; /* PWREN */
    (void)RCC_APB1ENR;
    PWR_CR = (PWR_CR & ~(3u << 11)) | (1u << 11); /* VOS = 01: range 1 (1.8 V) */
    while (PWR_CSR & (1u << 4)) {                 /* VOSF */
    }
    FLASH_ACR |= (1u << 1) | 1u; /* PRFTEN, LATENCY = 1 */
    while (!(FLASH_ACR & 1u)) {   /* RM0367: read back before raising the clock */
    }
    RCC_CR |= 1u;                   /* HSI16ON */
    while (!(RCC_CR & (1u << 2))) { /* HSI16RDYF */
    }
    /* PLLSRC HSI16 (bit 16 = 0), PLLMUL x4 (0001 << 18), PLLDIV /2 (01 << 22) */
    RCC_CFGR = (RCC_CFGR & ~((1u << 16) | (0xFu << 18) | (3u << 22))) | (1u << 18) | (1u << 22);
    RCC_CR |= 1u << 24;              /* PLLON */
    while (!(RCC_CR & (1u << 25))) { /* PLLRDY */
    }
    RCC_CFGR |= 3u;                          /* SW = PLL */
    while (((RCC_CFGR >> 2) & 3u) != 3u) { /* SWS = PLL */
    }
}

void tb_board_init(void)
{
    clock_32mhz();
    RCC_IOPENR |= 1u;         /* GPIOA */
    RCC_APB1ENR |= 1u << 17;  /* USART2 */
    (void)RCC_APB1ENR;
    GPIOA_MODER = (GPIOA_MODER & ~(0xFu << 4)) | (0xAu << 4); /* PA2, PA3: alternate function */
    GPIOA_AFRL = (GPIOA_AFRL & ~(0xFFu << 8)) | (0x44u << 8);  /* AF4: USART2 */
    tb_usart2_init(USART2, PCLK1_HZ, 115200u);
    tb_systick_start();
}

void tb_timer_irq(void)
{
}

#define TB_BOARD_NAME "board:nucleo-l073rz:32mhz"
#define TB_BOARD_PUTC(c) tb_usart2_putc(USART2, c)
#define TB_BOARD_GETC() tb_usart2_getc(USART2)
#define TB_BOARD_CYCLES() tb_systick_count()
#define TB_BOARD_CPU_NOTE "Cortex-M0+ has no retired-instruction counter: cycles only"
#define TB_BOARD_CLOCK_NOTE "core cycles of the 32 MHz clock (SysTick, HSI16 +-1 %): not converted to time"
#include "../stm32/board_io.c"
#endif
