/* Polled STM32 F2/F4 USART (see usart_stm32.h for what emulation tests). */
#include "usart_stm32.h"

#define REG(base, off) (*(volatile uint32_t *)((base) + (off)))
#define USART_SR 0x00u
#define USART_DR 0x04u
#define USART_BRR 0x08u
#define USART_CR1 0x0Cu
#define SR_RXNE (1u << 5)
#define SR_TXE (1u << 7)
#define SR_ORE (1u << 3)
#define CR1_RE (1u << 2)
#define CR1_TE (1u << 3)
#define CR1_UE (1u << 13)

void tb_usart_init(uintptr_t base, uint32_t pclk_hz, uint32_t baud)
{
    REG(base, USART_CR1) = 0;
    /* 16x oversampling: BRR = pclk / baud, mantissa and 4-bit fraction in
     * one rounded value (16 MHz / 115200 -> 139, 0.08 % fast). */
    REG(base, USART_BRR) = (pclk_hz + baud / 2u) / baud;
    REG(base, USART_CR1) = CR1_UE | CR1_TE | CR1_RE; /* 8N1, no interrupts */
}

void tb_usart_putc(uintptr_t base, char c)
{
    while (!(REG(base, USART_SR) & SR_TXE)) {
    }
    REG(base, USART_DR) = (uint8_t)c;
}

int tb_usart_getc(uintptr_t base)
{
    for (;;) {
        uint32_t sr = REG(base, USART_SR);
        if (sr & SR_RXNE) return (int)(REG(base, USART_DR) & 0xFFu);
        if (sr & SR_ORE) (void)REG(base, USART_DR); /* SR then DR read clears an overrun */
    }
}
