/* ST NUCLEO-F746ZG, a real board: STM32F746ZG, Cortex-M7 at 216 MHz.
 *
 * Clock (RM0385, STM32F75xxx/74xxxx reference manual): the 8 MHz the
 * ST-LINK's MCO drives into OSC_IN (HSE bypass: RCC_CR HSEBYP + HSEON,
 * wait HSERDY); the main PLL from HSE (RCC_PLLCFGR PLLSRC = 1), M = 4
 * (2 MHz VCO input, as section 5.3.2 recommends), N = 216 (432 MHz VCO),
 * P = 2 (216 MHz), Q = 9 (48 MHz). 216 MHz needs voltage scale 1 with
 * over-drive, entered as section 4.1.4 "Entering Over-drive mode" orders
 * it: PWR_CR1 VOS = 11, PLL on, ODEN then wait PWR_CSR1 ODRDY, ODSWEN then
 * wait ODSWRDY; then flash 7 wait states (section 3.3.2, table 5: 210 <
 * HCLK <= 216 MHz at 2.7-3.6 V; FLASH_ACR LATENCY = 7) with the prefetch
 * and the ART accelerator on (PRFTEN, ARTEN; ART serves the ITCM flash
 * interface), AHB /1, APB1 /4 (54 MHz, its maximum), APB2 /2 (108 MHz),
 * wait PLLRDY, SW = PLL, wait SWS. Then the Cortex-M7's L1 caches
 * (Cortex-M7 TRM and ARMv7-M ARM B2.2.7: invalidate the I-cache (ICIALLU)
 * and the D-cache set by set (DCISW, the geometry from CCSIDR), then
 * CCR.IC and CCR.DC): code runs from 0x08000000 through the AXI bus and
 * its cache.
 *
 * Counter: DWT CYCCNT (cortexm/dwt.c, unlocked through its LAR as the M7
 * needs), 64 bits. TIM2 (32 bits; its kernel clock is APB1 x 2 = 108 MHz,
 * half the core's) with PSC 0 and ARR 2^30 - 1 raises an update interrupt
 * every 2^31 core cycles (9.9 s), which reads CYCCNT at least twice per
 * 2^32-cycle wrap. A window spanning that interrupt includes it.
 *
 * I/O: USART3 on PD8 (TX) / PD9 (RX), alternate function 7, the ST-LINK
 * virtual COM port of the Nucleo-144; 115200 8N1 from the 54 MHz APB1
 * clock (BRR 469: 0.05 % slow); the ISR/RDR/TDR USART
 * (stm32/usart_stm32v2.c).
 *
 * TB_EMULATED (TB_MACHINE nucleo-f746zg-on-mps2-an500): this board's
 * memory sizes (nucleo-f746zg-mps2.ld) under QEMU's MPS2 AN500, a
 * Cortex-M7. QEMU models no STM32F7, so there the I/O, counter and clock are
 * the MPS2's (its board file, included below): the emulation checks what
 * fits in this board's memory, not this file's registers.
 *
 * Has run on no board. */
#if TB_EMULATED
#include "../mps2/board_mps2.c"
#else
#include "board.h"
#include "tb/platform.h"
#include "../cortexm/dwt.h"
#include "../stm32/tim2_wraps.h"
#include "../stm32/usart_stm32.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define RCC 0x40023800u
#define RCC_CR REG(RCC + 0x00u)
#define RCC_PLLCFGR REG(RCC + 0x04u)
#define RCC_CFGR REG(RCC + 0x08u)
#define RCC_AHB1ENR REG(RCC + 0x30u)
#define RCC_APB1ENR REG(RCC + 0x40u)
#define PWR_CR1 REG(0x40007000u)
#define PWR_CSR1 REG(0x40007004u)
#define FLASH_ACR REG(0x40023C00u)
#define GPIOD_MODER REG(0x40020C00u)
#define GPIOD_AFRH REG(0x40020C24u)
#define USART3 0x40004800u
#define PCLK1_HZ 54000000u

#define SCB_CCR REG(0xE000ED14u)
#define SCB_CCSIDR REG(0xE000ED80u)
#define SCB_CSSELR REG(0xE000ED84u)
#define SCB_ICIALLU REG(0xE000EF50u)
#define SCB_DCISW REG(0xE000EF60u)

static void barrier(void)
{
    __asm__ volatile("dsb 0xF\n isb 0xF" ::: "memory");
}

static void clock_216mhz(void)
{
    RCC_APB1ENR |= 1u << 28; /* PWREN */
    (void)RCC_APB1ENR;
    PWR_CR1 |= 3u << 14;                 /* VOS = 11: scale 1 */
    RCC_CR |= (1u << 18) | (1u << 16);   /* HSEBYP, HSEON */
    while (!(RCC_CR & (1u << 17))) {     /* HSERDY */
    }
    /* PLLM 4, PLLN 216 (<< 6), PLLP /2 (00 << 16), PLLSRC HSE (1 << 22), PLLQ 9 (<< 24) */
    RCC_PLLCFGR = 4u | (216u << 6) | (0u << 16) | (1u << 22) | (9u << 24);
    RCC_CR |= 1u << 24; /* PLLON */
    PWR_CR1 |= 1u << 16;                   /* ODEN */
    while (!(PWR_CSR1 & (1u << 16))) {     /* ODRDY */
    }
    PWR_CR1 |= 1u << 17;                   /* ODSWEN */
    while (!(PWR_CSR1 & (1u << 17))) {     /* ODSWRDY */
    }
    FLASH_ACR = 7u | (1u << 8) | (1u << 9); /* LATENCY 7, PRFTEN, ARTEN */
    while ((FLASH_ACR & 0xFu) != 7u) {      /* read back before raising the clock */
    }
    /* HPRE /1, PPRE1 /4 (101 << 10), PPRE2 /2 (100 << 13) */
    RCC_CFGR = (RCC_CFGR & ~((0xFu << 4) | (7u << 10) | (7u << 13))) | (5u << 10) | (4u << 13);
    while (!(RCC_CR & (1u << 25))) { /* PLLRDY */
    }
    RCC_CFGR = (RCC_CFGR & ~3u) | 2u;      /* SW = PLL */
    while (((RCC_CFGR >> 2) & 3u) != 2u) { /* SWS = PLL */
    }
}

static void caches_on(void)
{
    barrier();
    SCB_ICIALLU = 0;
    barrier();
    SCB_CCR |= 1u << 17; /* IC */
    barrier();
    SCB_CSSELR = 0; /* level 1 data cache */
    barrier();
    uint32_t ccsidr = SCB_CCSIDR;
    uint32_t sets = ((ccsidr >> 13) & 0x7FFFu) + 1u;
    uint32_t ways = ((ccsidr >> 3) & 0x3FFu) + 1u;
    /* 4 KiB, 4 ways, 32-byte lines on the STM32F746: set at bit 5, way at bit 30 */
    for (uint32_t s = 0; s < sets; s++) {
        for (uint32_t w = 0; w < ways; w++) SCB_DCISW = (w << 30) | (s << 5);
    }
    barrier();
    SCB_CCR |= 1u << 16; /* DC */
    barrier();
}

void tb_board_init(void)
{
    clock_216mhz();
    caches_on();
    RCC_AHB1ENR |= 1u << 3;                /* GPIOD */
    RCC_APB1ENR |= (1u << 18) | (1u << 0); /* USART3, TIM2 */
    (void)RCC_APB1ENR;
    GPIOD_MODER = (GPIOD_MODER & ~(0xFu << 16)) | (0xAu << 16); /* PD8, PD9: alternate function */
    GPIOD_AFRH = (GPIOD_AFRH & ~0xFFu) | 0x77u;                  /* AF7: USART3 */
    tb_usart2_init(USART3, PCLK1_HZ, 115200u);

    tb_stm32_tim2_wraps_start(0, (1u << 30) - 1u);
}

#define TB_BOARD_NAME "board:nucleo-f746zg:216mhz"
#define TB_BOARD_PUTC(c) tb_usart2_putc(USART3, c)
#define TB_BOARD_GETC() tb_usart2_getc(USART3)
#define TB_BOARD_CYCLES() tb_dwt_count()
#define TB_BOARD_CPU_NOTE "Cortex-M7 has no retired-instruction counter: cycles only"
#define TB_BOARD_CLOCK_NOTE "core cycles of the 216 MHz clock (HSE from the ST-LINK): not converted to time"
#include "../stm32/board_io.c"
#endif
