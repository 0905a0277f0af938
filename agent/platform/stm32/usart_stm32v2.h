/* The newer STM32 USART (STM32F7, L0, L4, ...: CR1 at 0, BRR at 0x0C,
 * status in ISR, received data in RDR, sent data in TDR, flags cleared in
 * ICR), polled. RM0385 (STM32F7) section 31.8 and RM0367 (STM32L0x3)
 * section 24.7 give the same offsets and bits for what is used here.
 * Used by nucleo-f746zg (USART3) and nucleo-l073rz (USART2). QEMU models
 * this IP on no machine the project runs: it has run on no hardware and in
 * no emulator (the register values are checked against the manuals only). */
#ifndef TB_USART_STM32V2_H
#define TB_USART_STM32V2_H

#include <stdint.h>

/* 8N1 at baud from a kernel clock of pclk_hz (16x oversampling); the board
 * has clocked the USART and routed its pins first. */
void tb_usart2_init(uintptr_t base, uint32_t pclk_hz, uint32_t baud);
void tb_usart2_putc(uintptr_t base, char c);
int tb_usart2_getc(uintptr_t base);

#endif
