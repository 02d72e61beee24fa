/* Preprocessed with the platform header: links the test at RAM_BASE + TEXT_OFFSET, where an arm64 boot
 * loader puts an Image whose header asks for that text_offset. */
ENTRY(_text)
SECTIONS
{
  . = RAM_BASE + TEXT_OFFSET;
  _text = .;
  .head : { KEEP(*(.head)) }
  .text : { *(.text .text.*) }
  /* EL0 code gets its own pages so the MMU test can map exactly it into an EL0-executable window. */
  . = ALIGN(4096);
  __user_start = .;
  .user : { KEEP(*(.user)) }
  . = ALIGN(4096);
  __user_end = .;
  .rodata : { *(.rodata .rodata.*) }
  .data : { *(.data .data.*) }
  . = ALIGN(16);
  __bss_start = .;
  .bss : { *(.bss .bss.* COMMON) }
  . = ALIGN(16);
  __bss_end = .;
  _end = .;
  /* image_size in the header: the whole footprint including BSS, page tables and stacks, so the loader
   * keeps the DTB and initrd clear of it. */
  __image_size = _end - _text;
  /DISCARD/ : { *(.comment) *(.note*) *(.eh_frame*) }
}
