/* The two STM32 USART register layouts, polled; the board has clocked the
 * USART and routed its pins first, then init enables transmitter and
 * receiver, 8N1 at baud from a peripheral (kernel) clock of pclk_hz (16x
 * oversampling), no interrupts.
 *
 * tb_usart_* (usart_stm32.c): the STM32 F1/F2/F4 USART (one IP: SR/DR/BRR/CR1
 * at the same offsets, the same bits). Shared by netduinoplus2 (STM32F405
 * under QEMU, USART1, whose QEMU model is "stm32f2xx-usart"), nucleo-f103rb
 * and nucleo-f446re (USART2 to the ST-LINK virtual COM port), so the code a
 * real board runs is the code the emulator exercises. What QEMU does NOT
 * check of it: the baud rate divisor (QEMU ignores BRR), overrun (QEMU holds
 * input until DR is read; a real USART drops bytes that come while RXNE is
 * set, hence the host must send one request at a time and wait for its
 * "end"), and TXE timing (QEMU writes synchronously).
 *
 * tb_usart2_* (usart_stm32v2.c): the newer STM32 USART (STM32F7, L0, L4,
 * ...: CR1 at 0, BRR at 0x0C, status in ISR, received data in RDR, sent
 * data in TDR, flags cleared in ICR). RM0385 (STM32F7) section 31.8 and
 * RM0367 (STM32L0x3) section 24.7 give the same offsets and bits for what
 * is used here. Used by nucleo-f746zg (USART3) and nucleo-l073rz (USART2).
 * QEMU models this IP on no machine the project runs: it has run on no
 * hardware and in no emulator (the register values are checked against the
 * manuals only). */
#ifndef TB_USART_STM32_H
#define TB_USART_STM32_H

#include <stdint.h>

void tb_usart_init(uintptr_t base, uint32_t pclk_hz, uint32_t baud);
void tb_usart_putc(uintptr_t base, char c);
int tb_usart_getc(uintptr_t base);

void tb_usart2_init(uintptr_t base, uint32_t pclk_hz, uint32_t baud);
void tb_usart2_putc(uintptr_t base, char c);
int tb_usart2_getc(uintptr_t base);

#endif
