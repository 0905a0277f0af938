/* SysTick as a 64-bit cycle counter (see systick.h). */
#include "systick.h"

#define REG(addr) (*(volatile uint32_t *)(addr))
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define ICSR REG(0xE000ED04u)
#define ICSR_PENDSTSET (1u << 26)
#define ICSR_PENDSTCLR (1u << 25)

static volatile uint32_t wraps;

void tb_systick_start(void)
{
    SYST_CSR = 0;
    SYST_RVR = TB_SYSTICK_MAX;
    SYST_CVR = 0; /* any write clears it; the next cycle loads the reload value */
    ICSR = ICSR_PENDSTCLR;
    wraps = 0;
    SYST_CSR = (1u << 2) | (1u << 1) | 1u; /* CLKSOURCE = core clock, TICKINT, ENABLE */
    while (SYST_CVR == 0) {
    } /* the reload value is loaded on the first tick: a 0 then would read as a wrap */
}

/* startup.c's vector 15 */
void SysTick_Handler(void)
{
    wraps++;
}

uint64_t tb_systick_count(void)
{
    uint32_t v1 = SYST_CVR;
    int pending = (ICSR & ICSR_PENDSTSET) != 0;
    uint32_t v2 = SYST_CVR;
    return tb_systick_extend(wraps, v1, pending, v2);
}
