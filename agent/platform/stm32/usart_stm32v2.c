/* Polled STM32 USART, the ISR/RDR/TDR register set (see usart_stm32.h). */
#include "usart_stm32.h"

#define REG(base, off) (*(volatile uint32_t *)((base) + (off)))
#define USART_CR1 0x00u
#define USART_BRR 0x0Cu
#define USART_ISR 0x1Cu
#define USART_ICR 0x20u
#define USART_RDR 0x24u
#define USART_TDR 0x28u
#define CR1_UE (1u << 0)
#define CR1_RE (1u << 2)
#define CR1_TE (1u << 3)
#define ISR_ORE (1u << 3)
#define ISR_RXNE (1u << 5)
#define ISR_TXE (1u << 7)
#define ICR_ORECF (1u << 3)

void tb_usart2_init(uintptr_t base, uint32_t pclk_hz, uint32_t baud)
{
    REG(base, USART_CR1) = 0; /* UE = 0: BRR may only be written while disabled */
    /* OVER8 = 0: USARTDIV = pclk / baud, rounded (54 MHz -> 469, 32 MHz -> 278) */
    REG(base, USART_BRR) = (pclk_hz + baud / 2u) / baud;
    REG(base, USART_CR1) = CR1_UE | CR1_TE | CR1_RE; /* 8N1, no interrupts */
}

void tb_usart2_putc(uintptr_t base, char c)
{
    while (!(REG(base, USART_ISR) & ISR_TXE)) {
    }
    REG(base, USART_TDR) = (uint8_t)c;
}

int tb_usart2_getc(uintptr_t base)
{
    for (;;) {
        uint32_t isr = REG(base, USART_ISR);
        if (isr & ISR_RXNE) return (int)(REG(base, USART_RDR) & 0xFFu);
        /* an overrun stops reception until cleared (unlike the F1/F4 IP,
         * where reading DR clears it) */
        if (isr & ISR_ORE) REG(base, USART_ICR) = ICR_ORECF;
    }
}
