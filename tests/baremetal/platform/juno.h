/* vplat's Juno r2-like board (see shared/reference/juno.md and platforms/juno_board.h).
 * Included by both C and assembly: plain #defines only. */
#define PLAT_NAME "juno"
#define RAM_BASE 0x80000000
/* arm64 boot protocol: the Image sits text_offset bytes above a 2 MiB-aligned base. */
#define TEXT_OFFSET 0x80000
#define UART_BASE 0x7ff80000
#define UART_INTID 115 /* SPI 83 */
#define GICD_BASE 0x2c010000
#define GICC_BASE 0x2c02f000
#define TIMER_VIRT_INTID 27
#define TIMER_PHYS_INTID 30
/* PSCI 0.2, method "smc" in the Juno device tree. */
#define PSCI_CONDUIT_SMC 1
/* A72 cluster 0x0, 0x1; A53 cluster 0x100..0x103. The first entry is the boot CPU. */
#define CPU_MPIDRS 0x0, 0x1, 0x100, 0x101, 0x102, 0x103
#define NUM_CPU_MPIDRS 6
/* Physical address with nothing behind it (no RAM or device in vplat's Juno map). */
#define UNMAPPED_PA 0x30000000UL
