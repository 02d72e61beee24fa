// Guest program for gdbstub_test.sh, loaded at 0x10000 on CPU 0. It is straight-line code (no branches, so it runs
// on every interpreter generation); the values in the comments are worked out by hand and checked by the script.
        .text
        .globl _start
_start:
        movz    x1, #0x1234             // 0x10000
        movk    x1, #0x5678, lsl #16    // 0x10004: x1 = 0x56781234
        add     x2, x1, #1              // 0x10008: x2 = 0x56781235
        adr     x3, data                // 0x1000c: x3 = 0x10100
        ld1     {v0.d}[0], [x3]         // 0x10010: v0 = {0x1122334455667788, 0}
        mov     x4, v0.d[0]             // 0x10014: x4 = 0x1122334455667788
        add     x5, x4, x2              // 0x10018: x5 = 0x11223344abde89bd
        sub     x6, x5, #0x10           // 0x1001c: x6 = 0x11223344abde89ad
        subs    x7, x6, x5              // 0x10020: x7 = -16 = 0xfffffffffffffff0; N=1 Z=0 C=0 V=0
        add     x8, x5, x10             // 0x10024: x8 = x5 + x10 (x10 is written by GDB in the test)
        mov     v1.d[0], x5             // 0x10028
        mov     v1.d[1], x8             // 0x1002c
        add     x12, x3, #8             // 0x10030: x12 = 0x10108
        st1     {v1.2d}, [x12]          // 0x10034: [0x10108] = x5, [0x10110] = x8
        hlt     #0                      // 0x10038: "power off"

        .org    0x100
data:   .quad   0x1122334455667788, 0, 0
