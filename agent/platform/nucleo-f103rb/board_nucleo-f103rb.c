/* ST NUCLEO-F103RB, a real board: STM32F103RB, Cortex-M3 at 72 MHz.
 *
 * Clock (RM0008, STM32F101/102/103/105/107 reference manual, section 7.2
 * "Clocks" and 7.3 "RCC registers"): the 8 MHz clock the ST-LINK's MCO
 * drives into OSC_IN (HSE bypass, RCC_CR HSEBYP + HSEON, wait HSERDY), the
 * PLL from HSE (RCC_CFGR PLLSRC = 1, PLLXTPRE = 0) times 9 (PLLMUL = 0111)
 * = 72 MHz; AHB /1, APB1 /2 = 36 MHz (its maximum), APB2 /1. Before the
 * switch, flash two wait states (section 3.3.3 and FLASH_ACR: LATENCY = 010
 * for 48 < SYSCLK <= 72 MHz; the prefetch buffer PRFTBE is on from reset).
 *
 * Counter: DWT CYCCNT (cortexm/dwt.c), 64 bits; TIM2 (16 bits on the F1,
 * prescaler 32768, reload 65535: an update interrupt every 2^31 cycles,
 * 29.8 s; its kernel clock is APB1 x 2 = 72 MHz) reads it at least twice
 * per 2^32-cycle wrap. A window spanning that interrupt includes it.
 *
 * I/O: USART2 on PA2 (TX, alternate function push-pull) / PA3 (RX,
 * floating input), the ST-LINK virtual COM port; 115200 8N1 from the 36 MHz
 * APB1 clock (BRR 313: 0.16 % fast). The F1's USART has the F2/F4 register
 * set (stm32/usart_stm32.c).
 *
 * TB_EMULATED (TB_MACHINE nucleo-f103rb-on-netduino2): this image's memory
 * layout under QEMU's netduino2 (STM32F205, Cortex-M3), whose USART2 sits
 * at the same address with the same registers. QEMU models neither the F1
 * RCC, flash interface, GPIO nor DWT, so the clock and pin set-up is not
 * run there and the counter is QEMU's timer as exact instructions
 * (stm32/qemu_tim_count.c); exit through semihosting.
 *
 * Has run on no board. */
#include "board.h"
#include "tb/platform.h"
#include "../stm32/usart_stm32.h"
#if TB_EMULATED
#include "../stm32/qemu_tim_count.h"
#else
#include "../cortexm/dwt.h"
#include "../stm32/tim2_wraps.h"
#endif

#define REG(addr) (*(volatile uint32_t *)(addr))

#define USART2 0x40004400u
#define PCLK1_HZ 36000000u

#if !TB_EMULATED
#define RCC_CR REG(0x40021000u)
#define RCC_CFGR REG(0x40021004u)
#define RCC_APB2ENR REG(0x40021018u)
#define RCC_APB1ENR REG(0x4002101Cu)
#define FLASH_ACR REG(0x40022000u)
#define GPIOA_CRL REG(0x40010800u)

static void clock_72mhz(void)
{
    RCC_CR |= (1u << 18) | (1u << 16); /* HSEBYP, HSEON */
    while (!(RCC_CR & (1u << 17))) {   /* HSERDY */
    }
    FLASH_ACR = (FLASH_ACR & ~7u) | (1u << 4) | 2u; /* PRFTBE, LATENCY = 2 */
    /* PLLMUL x9 (0111 << 18), PLLSRC HSE, PPRE1 /2 (100 << 8), HPRE and PPRE2 /1 */
    RCC_CFGR = (RCC_CFGR & ~((0xFu << 18) | (1u << 17) | (1u << 16) | (7u << 8) | (7u << 11) | (0xFu << 4))) |
               (7u << 18) | (1u << 16) | (4u << 8);
    RCC_CR |= 1u << 24;              /* PLLON */
    while (!(RCC_CR & (1u << 25))) { /* PLLRDY */
    }
    RCC_CFGR = (RCC_CFGR & ~3u) | 2u;           /* SW = PLL */
    while (((RCC_CFGR >> 2) & 3u) != 2u) { /* SWS = PLL */
    }
}
#endif

#if TB_EMULATED
/* QEMU's STM32 USART drops what arrives before it is enabled (see
 * netduinoplus2): enable it first thing. */
void tb_board_early_init(void)
{
    tb_usart_init(USART2, PCLK1_HZ, 115200u);
}

void tb_timer_irq(void) /* no timer interrupt: the counter does not wrap */
{
}
#endif

void tb_board_init(void)
{
#if TB_EMULATED
    tb_qemu_tim_start();
#else
    clock_72mhz();
    RCC_APB2ENR |= (1u << 2) | (1u << 0);  /* IOPA, AFIO */
    RCC_APB1ENR |= (1u << 17) | (1u << 0); /* USART2, TIM2 */
    (void)RCC_APB1ENR;
    /* PA2: MODE 11 (50 MHz output), CNF 10 (alternate push-pull) = 0xB;
     * PA3: MODE 00, CNF 01 (floating input) = 0x4 (RM0008 9.2.1, GPIOx_CRL) */
    GPIOA_CRL = (GPIOA_CRL & ~(0xFFu << 8)) | (0x4Bu << 8);
#endif
    tb_usart_init(USART2, PCLK1_HZ, 115200u);
#if !TB_EMULATED
    tb_stm32_tim2_wraps_start(32767u, 65535u);
#endif
}

#define TB_STR2(x) #x
#define TB_STR(x) TB_STR2(x)

const char *tb_board_name(void)
{
#if TB_EMULATED
    return "qemu:" TB_STR(TB_MACHINE_NAME);
#else
    return "board:nucleo-f103rb:72mhz";
#endif
}

void tb_board_putc(char c)
{
    tb_usart_putc(USART2, c);
}

int tb_board_getc(void)
{
    return tb_usart_getc(USART2);
}

uint64_t tb_board_count(void)
{
#if TB_EMULATED
    return tb_qemu_tim_instructions();
#else
    __asm__ volatile("cpsid i" ::: "memory");
    uint64_t c = tb_dwt_count();
    __asm__ volatile("cpsie i" ::: "memory");
    return c;
#endif
}

uint32_t tb_board_counter(void)
{
    return TB_EMULATED ? TB_CTR_INSTRUCTIONS : TB_CTR_CYCLES;
}

#if TB_EMULATED
const tb_board_notes tb_board_counter_notes = {
    "QEMU does not model cycles (DWT CYCCNT reads 0): instructions only", TB_NOTE_QEMU_TIME};
#else
const tb_board_notes tb_board_counter_notes = {
    "Cortex-M3 has no retired-instruction counter: cycles only",
    "core cycles of the 72 MHz clock (HSE from the ST-LINK): not converted to time"};
#endif
