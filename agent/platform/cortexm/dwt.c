/* DWT CYCCNT as a 64-bit cycle count (see dwt.h). Runs only on real
 * boards: QEMU does not model CYCCNT (it reads 0). */
#include "dwt.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define DEMCR REG(0xE000EDFCu)
#define DWT_CTRL REG(0xE0001000u)
#define DWT_CYCCNT REG(0xE0001004u)
#define DWT_LAR REG(0xE0001FB0u) /* Cortex-M7 TRM, "DWT programmer's model": write 0xC5ACCE55 to unlock */

static uint32_t last, wraps;

void tb_dwt_start(void)
{
    DEMCR |= 1u << 24; /* TRCENA */
    DWT_LAR = 0xC5ACCE55u; /* ignored (RAZ/WI) on cores without a lock */
    DWT_CYCCNT = 0;
    last = wraps = 0;
    DWT_CTRL |= 1u; /* CYCCNTENA */
}

uint64_t tb_dwt_count(void)
{
    uint32_t v = DWT_CYCCNT;
    if (v < last) wraps++;
    last = v;
    return ((uint64_t)wraps << 32) | v;
}
