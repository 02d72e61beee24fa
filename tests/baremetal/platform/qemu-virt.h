/* QEMU `-M virt,gic-version=2` (hw/arm/virt.c memory map), the independent reference these tests are
 * validated on. Included by both C and assembly: plain #defines only. */
#define PLAT_NAME "qemu-virt"
#define RAM_BASE 0x40000000
#define TEXT_OFFSET 0x80000
#define UART_BASE 0x09000000
#define UART_INTID 33 /* SPI 1 */
#define GICD_BASE 0x08000000
#define GICC_BASE 0x08010000
#define TIMER_VIRT_INTID 27
#define TIMER_PHYS_INTID 30
/* Without EL2/EL3 (virtualization=off, secure=off) QEMU implements PSCI itself on HVC. */
#define PSCI_CONDUIT_SMC 0
/* virt packs up to 8 CPUs per cluster in Aff0 (Aff1 = index / 8). */
#define CPU_MPIDRS 0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7
#define NUM_CPU_MPIDRS 8
/* Physical address with nothing behind it in QEMU virt (the GICv3 ITS frame, absent with gic-version=2). */
#define UNMAPPED_PA 0x08080000UL
