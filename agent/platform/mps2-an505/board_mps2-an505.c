/* Arm MPS2+ AN505 (Cortex-M33, Armv8-M mainline with TrustZone) as QEMU 7.2
 * models it. The core starts in the Secure state and stays there: code,
 * data and peripherals are used through their Secure aliases (address bit
 * 28 set), which the IoT Kit's MPCs and PPCs allow at reset, so no SAU or
 * NSC set-up is needed. The board is the MPS2 code (CMSDK UART 0, CMSDK
 * APB timer 0) at the AN505's addresses: timer 0 at 0x50000000 (IRQ 3),
 * UART 0 at 0x50200000. The timer runs at the AN505's 20 MHz system clock;
 * with -icount shift=7 every instruction is 128 ns, 2.56 ticks, so
 * round(ticks * 50 / 128) is the number of instructions (the floor of the
 * tick count loses less than 0.4 of one). */
#define UART0 0x50200000u
#define TIMER0 0x50000000u
/* UART 0's receive interrupt is IRQ 32 or 33 (its transmit one the other):
 * QEMU swapped them in 2024 (mps2-tz.c, after Arm's AN505 documentation) and
 * its stable releases took the change. The transmit interrupt is never
 * enabled in the UART, so waking on both lines is waking on input. */
#define TB_UART_IRQ_WORD 1u
#define TB_UART_IRQ_BITS 3u
#define TB_MPS2_TICKS_TO_INSTRUCTIONS(t) (((t) * 25u + 32u) >> 6) /* round(ticks * 50 / 128) */

#include "../mps2/board_mps2.c"
