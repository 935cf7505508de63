#!/usr/bin/env python3
"""Fails if a Hexagon ELF file (object, shared module, executable, or each member of an
ar archive) has a duplex instruction in an executable section.

A duplex packs two sub-instructions into one word; its parse bits (15:14) are 00 (a zero word
is the linker's padding between input sections, never run, and is not counted). lld 19
relocates R_HEX_8_X on a duplex with the mask of a non-duplex instruction (fixed upstream in
llvm-project#183936) and so corrupts the other sub-instruction: dspc and runtime-support build
Hexagon code with duplexes off (-mno-pairing; see codegen/CodegenHexagon.cpp).

  no_duplex.py FILE...     prints "FILE: no duplex" per file, or each duplex found; exit 1 if any
"""
import struct
import sys

EM_HEXAGON = 164
SHF_EXECINSTR = 0x4
SHT_PROGBITS = 1


def duplexes(data, name):
    """Yields (section, offset, word) for each duplex word of a 32-bit Hexagon ELF image."""
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise ValueError(f"{name}: not a 32-bit little-endian ELF file")
    machine = struct.unpack_from("<H", data, 18)[0]
    if machine != EM_HEXAGON:
        raise ValueError(f"{name}: not a Hexagon ELF file (e_machine {machine})")
    shoff = struct.unpack_from("<I", data, 32)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 46)
    sections = [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = sections[shstrndx]
    for sh_name, sh_type, sh_flags, _, sh_offset, sh_size, *_ in sections:
        if sh_type != SHT_PROGBITS or not sh_flags & SHF_EXECINSTR:
            continue
        end = data.index(b"\0", strtab[4] + sh_name)
        section = data[strtab[4] + sh_name:end].decode()
        for at in range(0, sh_size - sh_size % 4, 4):
            word = struct.unpack_from("<I", data, sh_offset + at)[0]
            if word and (word >> 14) & 3 == 0:  # 0: the linker's padding between sections
                yield section, at, word


def members(data, name):
    """The ELF members of an ar archive, or the file itself."""
    if not data.startswith(b"!<arch>\n"):
        yield name, data
        return
    at = 8
    while at + 60 <= len(data):
        header = data[at:at + 60]
        member = header[:16].decode().strip()
        size = int(header[48:58].decode().strip())
        body = data[at + 60:at + 60 + size]
        if body[:4] == b"\x7fELF":
            yield f"{name}({member.rstrip('/')})", body
        at += 60 + size + (size & 1)


def main(paths):
    if not paths:
        sys.exit(__doc__)
    found = 0
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        count = 0
        for name, image in members(data, path):
            for section, at, word in duplexes(image, name):
                print(f"{name}: duplex in {section} at offset {at:#x}: {word:#010x}")
                count += 1
        if not count:
            print(f"{path}: no duplex")
        found += count
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
