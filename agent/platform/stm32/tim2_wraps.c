/* TIM2 keeping DWT CYCCNT's wraps (tim2_wraps.h); the board's timer
 * interrupt (startup.c's TB_TIMER_IRQ vector) is this file's. */
#include "tim2_wraps.h"
#include "../cortexm/dwt.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define TIM2 0x40000000u
#define TIM2_CR1 REG(TIM2 + 0x00u)
#define TIM2_DIER REG(TIM2 + 0x0Cu)
#define TIM2_SR REG(TIM2 + 0x10u)
#define TIM2_EGR REG(TIM2 + 0x14u)
#define TIM2_PSC REG(TIM2 + 0x28u)
#define TIM2_ARR REG(TIM2 + 0x2Cu)
#define TIM2_IRQ 28u /* TB_TIMER_IRQ in board.cmake: F1 (RM0008 table 63), F4, F7 (RM0385 table 46) */
#define NVIC_ISER0 REG(0xE000E100u)

void tb_timer_irq(void);

void tb_stm32_tim2_wraps_start(uint32_t psc, uint32_t arr)
{
    tb_dwt_start();
    TIM2_CR1 = 0;
    TIM2_PSC = psc;
    TIM2_ARR = arr;
    TIM2_EGR = 1u; /* load PSC and ARR */
    TIM2_SR = 0;
    TIM2_DIER = 1u; /* update interrupt */
    NVIC_ISER0 = 1u << TIM2_IRQ;
    TIM2_CR1 = 1u;
}

void tb_timer_irq(void)
{
    TIM2_SR = 0;
    (void)tb_dwt_count();
}
