// Entry of the C kernels (bench/jit-code.sh): a stack below the top of a64-run's 64 MiB, then _start.
.text
.globl _entry
_entry: mov sp, #0x3f00000
 b _start
