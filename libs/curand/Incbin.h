/// \file
/// Links a packed data file of libs/curand into the library as read-only
/// data: FERRY_INCBIN(Sym, "path") defines the bytes Sym[] and the address
/// SymEnd just past them (a zero byte follows, so SymEnd is readable).
#pragma once

#define FERRY_INCBIN(Sym, Path)                                                                                \
  asm(".section .rodata\n"                                                                                     \
      ".p2align 3\n"                                                                                           \
      ".local " #Sym "\n" #Sym ":\n"                                                                           \
      ".incbin \"" Path "\"\n"                                                                                 \
      ".local " #Sym "End\n" #Sym "End:\n"                                                                     \
      ".byte 0\n"                                                                                              \
      ".previous\n");                                                                                          \
  extern "C" const unsigned char Sym[] __asm__(#Sym);                                                          \
  extern "C" const unsigned char Sym##End[] __asm__(#Sym "End")
