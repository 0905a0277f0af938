/* The STM32 F2/F4 USART (one IP in both families: SR/DR/BRR/CR1 at the same
 * offsets, the same bits), polled. Shared by netduinoplus2 (STM32F405 under
 * QEMU, USART1, whose QEMU model is "stm32f2xx-usart") and nucleo-f446re
 * (a real STM32F446RE, USART2 to the ST-LINK virtual COM port), so the code
 * a real board runs is the code the emulator exercises.
 *
 * What QEMU does NOT check of it: the baud rate divisor (QEMU ignores BRR),
 * overrun (QEMU holds input until DR is read; a real USART drops bytes that
 * come while RXNE is set, hence the host must send one request at a time
 * and wait for its "end"), and TXE timing (QEMU writes synchronously). */
#ifndef TB_USART_STM32_H
#define TB_USART_STM32_H

#include <stdint.h>

/* Enables transmitter and receiver at baud from a peripheral clock of
 * pclk_hz (16x oversampling). The board has clocked the USART and routed
 * its pins first. */
void tb_usart_init(uintptr_t base, uint32_t pclk_hz, uint32_t baud);
void tb_usart_putc(uintptr_t base, char c);
int tb_usart_getc(uintptr_t base);

#endif
