/* See elf_loader.h.
 *
 * 1. Check the ELF header: ELF32, little-endian, ET_DYN, EM_HEXAGON, program headers in the file.
 * 2. Span the PT_LOAD segments (each inside the file, filesz <= memsz), map that many bytes
 *    read-write-execute (fresh memory each load: qemu translates it anew), copy the file
 *    bytes; the rest stays zero (bss).
 * 3. Read PT_DYNAMIC: the symbol and string tables, DT_RELA and DT_JMPREL. The symbol count is
 *    DT_HASH's nchain (lld writes .hash by default), else bounded by the string table.
 * 4. Apply every relocation: RELATIVE = base + addend; GLOB_DAT and JMP_SLOT = S + addend,
 *    S the module's definition or the export table's; anything else is refused by name.
 * 5. Protect each 64 KiB page as the segments in it ask (text read-execute, data read-write),
 *    every page readable: a kernel that writes over its own code faults instead of running
 *    stale translations.
 * 6. Find __dspc_funcs and __dspc_num_funcs among the defined dynamic symbols.
 * Every size product (a count times an entry size) is checked for overflow in the server's own
 * size_t, 32 bits on Hexagon: tests/fuzz/ builds this file for a 32-bit host too (target elf32). */
#include "elf_loader.h"

#include "runtime-support/common/text.h"
#include "sys.h"

typedef struct {
  uint8_t ident[16];
  uint16_t type, machine;
  uint32_t version, entry, phoff, shoff, flags;
  uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
} Ehdr;
typedef struct {
  uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
} Phdr;
typedef struct {
  int32_t tag;
  uint32_t val;
} Dyn;
typedef struct {
  uint32_t name, value, size;
  uint8_t info, other;
  uint16_t shndx;
} Sym;
typedef struct {
  uint32_t offset, info;
  int32_t addend;
} Rela;

enum { ET_DYN = 3, EM_HEXAGON = 164, PT_LOAD = 1, PT_DYNAMIC = 2 };
enum {
  DT_NULL = 0,
  DT_PLTRELSZ = 2,
  DT_HASH = 4,
  DT_STRTAB = 5,
  DT_SYMTAB = 6,
  DT_RELA = 7,
  DT_RELASZ = 8,
  DT_STRSZ = 10,
  DT_JMPREL = 23
};
enum { R_HEX_GLOB_DAT = 33, R_HEX_JMP_SLOT = 34, R_HEX_RELATIVE = 35 };
enum { STB_WEAK = 2 };

static int error2(const char* a, const char* b) {
  char msg[300];
  dspc_text t;
  dspc_text_init(&t, msg, sizeof msg);
  dspc_text_str(&t, a);
  dspc_text_str(&t, b);
  dspc_set_last_error(msg, dspc_context_default());
  return -1;
}

static int bad(const char* what) {
  return error2("bad ELF: ", what);
}

/* *out = n * each; 0 when that wraps around size_t (32 bits on Hexagon). */
static int size_product(size_t n, size_t each, size_t* out) {
  return !__builtin_mul_overflow(n, each, out);
}

int dspc_image_contains(const dspc_module_image* m, const void* p, size_t n) {
  uintptr_t a = (uintptr_t)p, b = (uintptr_t)m->base;
  return a >= b && n <= m->mapped && a - b <= m->mapped - n;
}

int dspc_image_has_string(const dspc_module_image* m, const char* s) {
  if (!dspc_image_contains(m, s, 1)) return 0;
  for (const char* end = m->base + m->mapped; s < end; s++)
    if (!*s) return 1;
  return 0;
}

static const char* reloc_name(uint32_t type) {
  switch (type) {
    case 1: return "R_HEX_B22_PCREL";
    case 4: return "R_HEX_LO16";
    case 5: return "R_HEX_HI16";
    case 6: return "R_HEX_32";
    case 7: return "R_HEX_16";
    case 8: return "R_HEX_8";
    case 32: return "R_HEX_COPY";
    case 36: return "R_HEX_PLT_B22_PCREL";
    case 65: return "R_HEX_DTPMOD_32";
    case 67: return "R_HEX_DTPREL_32";
    case 72: return "R_HEX_TPREL_32";
    default: return "R_HEX_?";
  }
}

typedef struct {
  dspc_module_image* m;
  const Sym* syms;
  uint32_t num_syms;
  const char* strs;
  uint32_t strsz;
  dspc_symbol_resolver resolve;
} Ctx;

static const char* sym_name(const Ctx* c, const Sym* s) {
  if (s->name >= c->strsz) return 0;
  for (uint32_t i = s->name; i < c->strsz; i++)
    if (!c->strs[i]) return c->strs + s->name;
  return 0;
}

static int apply(const Ctx* c, const Rela* r, uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    uint32_t type = r[i].info & 0xff, symi = r[i].info >> 8;
    if (r[i].offset > c->m->mapped - 4) return bad("relocation outside the image");
    if (r[i].offset % 4) return bad("misaligned relocation");
    uint32_t* where = (uint32_t*)(c->m->base + r[i].offset);
    if (type == R_HEX_RELATIVE) {
      *where = (uint32_t)(uintptr_t)c->m->base + (uint32_t)r[i].addend;
      continue;
    }
    if (type != R_HEX_GLOB_DAT && type != R_HEX_JMP_SLOT) {
      char msg[160];
      dspc_text t;
      dspc_text_init(&t, msg, sizeof msg);
      dspc_text_str(&t, "unsupported relocation type ");
      dspc_text_str(&t, reloc_name(type));
      dspc_text_str(&t, " (");
      dspc_text_u64(&t, type);
      dspc_text_str(&t, ") at offset ");
      dspc_text_hex(&t, r[i].offset);
      dspc_text_str(&t, "; the loader handles R_HEX_RELATIVE, R_HEX_GLOB_DAT, R_HEX_JMP_SLOT");
      dspc_set_last_error(msg, dspc_context_default());
      return -1;
    }
    if (symi == 0 || symi >= c->num_syms) return bad("relocation symbol index out of range");
    const Sym* s = &c->syms[symi];
    const char* name = sym_name(c, s);
    if (!name) return bad("symbol name outside the string table");
    uint32_t value;
    if (s->shndx != 0) {
      value = (uint32_t)(uintptr_t)c->m->base + s->value;
    } else {
      void* p = c->resolve(name);
      if (!p && (s->info >> 4) != STB_WEAK) return error2("unresolved symbol: ", name);
      value = (uint32_t)(uintptr_t)p;
    }
    *where = value + (uint32_t)r[i].addend;
  }
  return 0;
}

/* The table [addr, addr + bytes) of the image, or NULL; also NULL when addr is not a multiple
 * of align (Hexagon faults on a misaligned word access: a broken module must not crash us). */
static const void* in_image(const dspc_module_image* m, uint32_t addr, uint32_t bytes, uint32_t align) {
  if (addr > m->mapped || bytes > m->mapped - addr || addr % align) return 0;
  return m->base + addr;
}

static int load(const uint8_t* file, uint64_t nbytes, dspc_module_image* m, Ctx* c) {
  if (nbytes < sizeof(Ehdr)) return bad("file shorter than an ELF header");
  const Ehdr* eh = (const Ehdr*)file;
  if (eh->ident[0] != 0x7f || eh->ident[1] != 'E' || eh->ident[2] != 'L' || eh->ident[3] != 'F')
    return bad("no ELF magic");
  if (eh->ident[4] != 1 || eh->ident[5] != 1) return bad("not 32-bit little-endian");
  if (eh->machine != EM_HEXAGON) return bad("not a Hexagon module (e_machine is not EM_HEXAGON)");
  if (eh->type != ET_DYN) return bad("not a shared object (e_type is not ET_DYN)");
  if (eh->phentsize != sizeof(Phdr) || eh->phnum == 0) return bad("no program headers");
  if (eh->phoff > nbytes || (uint64_t)eh->phnum * sizeof(Phdr) > nbytes - eh->phoff)
    return bad("program headers outside the file");
  if (eh->phoff % 4) return bad("misaligned program headers");
  const Phdr* ph = (const Phdr*)(file + eh->phoff);
  uint64_t span = 0;
  const Phdr* dyn = 0;
  for (uint32_t i = 0; i < eh->phnum; i++) {
    if (ph[i].type == PT_DYNAMIC) dyn = &ph[i];
    if (ph[i].type != PT_LOAD) continue;
    if (ph[i].filesz > ph[i].memsz) return bad("segment's file size exceeds its memory size");
    if ((uint64_t)ph[i].offset + ph[i].filesz > nbytes) return bad("segment outside the file");
    uint64_t end = (uint64_t)ph[i].vaddr + ph[i].memsz;
    if (end > span) span = end;
  }
  if (span == 0) return bad("no loadable segment");
  if (span > (256u << 20)) return bad("image larger than 256 MiB");
  if (!dyn) return bad("no PT_DYNAMIC segment");
  m->mapped = (size_t)((span + 0xffff) & ~(uint64_t)0xffff);
  m->base = (char*)srv_mmap(m->mapped, SRV_PROT_READ | SRV_PROT_WRITE | SRV_PROT_EXEC,
                            SRV_MAP_PRIVATE | SRV_MAP_ANONYMOUS, -1);
  if (!m->base) return error2("could not map the module's image", "");
  for (uint32_t i = 0; i < eh->phnum; i++)
    if (ph[i].type == PT_LOAD) __builtin_memcpy(m->base + ph[i].vaddr, file + ph[i].offset, ph[i].filesz);

  const Dyn* d = (const Dyn*)in_image(m, dyn->vaddr, dyn->memsz, 4);
  if (!d) return bad("PT_DYNAMIC outside the image or misaligned");
  uint32_t v[24] = {0};
  int seen[24] = {0};
  for (uint32_t i = 0; i < dyn->memsz / sizeof(Dyn) && d[i].tag != DT_NULL; i++) {
    if (d[i].tag >= 0 && d[i].tag < 24) v[d[i].tag] = d[i].val, seen[d[i].tag] = 1;
  }
  if (!seen[DT_SYMTAB] || !seen[DT_STRTAB]) return bad("no dynamic symbol table");
  c->strsz = v[DT_STRSZ];
  c->strs = (const char*)in_image(m, v[DT_STRTAB], c->strsz, 1);
  if (!c->strs) return bad("string table outside the image");
  if (seen[DT_HASH]) {
    const uint32_t* h = (const uint32_t*)in_image(m, v[DT_HASH], 8, 4);
    if (!h) return bad("hash table outside the image or misaligned");
    c->num_syms = h[1];
  } else if (v[DT_STRTAB] > v[DT_SYMTAB]) {
    c->num_syms = (v[DT_STRTAB] - v[DT_SYMTAB]) / sizeof(Sym); /* lld puts .dynstr after .dynsym */
  }
  if (c->num_syms > (1u << 20)) return bad("symbol table outside the image or misaligned");
  c->syms = (const Sym*)in_image(m, v[DT_SYMTAB], c->num_syms * (uint32_t)sizeof(Sym), 4);
  if (!c->syms) return bad("symbol table outside the image or misaligned");
  const Rela* rela = (const Rela*)in_image(m, v[DT_RELA], v[DT_RELASZ], 4);
  const Rela* plt = (const Rela*)in_image(m, v[DT_JMPREL], v[DT_PLTRELSZ], 4);
  if ((seen[DT_RELA] && !rela) || (seen[DT_JMPREL] && !plt)) return bad("relocations outside the image or misaligned");
  if (seen[DT_RELA] && apply(c, rela, v[DT_RELASZ] / sizeof(Rela))) return -1;
  if (seen[DT_JMPREL] && apply(c, plt, v[DT_PLTRELSZ] / sizeof(Rela))) return -1;

  for (size_t page = 0; page < m->mapped; page += 0x10000) {
    /* Every page stays readable: the loader and the server read the symbol and function
     * tables wherever the module put them (a page no segment covers, or a segment without
     * PF_R, would fault them). Write and execute follow the segments. */
    int prot = SRV_PROT_READ;
    for (uint32_t i = 0; i < eh->phnum; i++)
      if (ph[i].type == PT_LOAD && ph[i].vaddr < page + 0x10000 && ph[i].vaddr + ph[i].memsz > page)
        prot |= (ph[i].flags & 4 ? SRV_PROT_READ : 0) | (ph[i].flags & 2 ? SRV_PROT_WRITE : 0) |
                (ph[i].flags & 1 ? SRV_PROT_EXEC : 0);
    if (srv_mprotect(m->base + page, 0x10000, prot)) return error2("could not protect the module's pages", "");
  }

  const uint32_t* num = 0;
  for (uint32_t i = 1; i < c->num_syms; i++) {
    const char* name = sym_name(c, &c->syms[i]);
    if (!name || c->syms[i].shndx == 0) continue;
    if (dspc_str_eq(name, "__dspc_funcs")) m->funcs = (const dspc_func_desc*)in_image(m, c->syms[i].value, 1, _Alignof(dspc_func_desc));
    if (dspc_str_eq(name, "__dspc_num_funcs")) num = (const uint32_t*)in_image(m, c->syms[i].value, 4, 4);
  }
  if (!m->funcs || !num)
    return error2("module has no __dspc_funcs / __dspc_num_funcs table (or it is misaligned)", "");
  m->num_funcs = *num;
  size_t table_bytes;
  if (!size_product(m->num_funcs, sizeof(dspc_func_desc), &table_bytes) ||
      !dspc_image_contains(m, m->funcs, table_bytes))
    return bad("__dspc_funcs runs outside the image");
  return 0;
}

int dspc_elf_load(const uint8_t* file, uint64_t nbytes, dspc_symbol_resolver resolve,
                  dspc_module_image* out) {
  dspc_module_image m = {0};
  Ctx c = {&m, 0, 0, 0, 0, resolve};
  if (load(file, nbytes, &m, &c) != 0) {
    dspc_elf_unload(&m);
    return -1;
  }
  *out = m;
  return 0;
}

void dspc_elf_unload(dspc_module_image* m) {
  if (m->base) srv_munmap(m->base, m->mapped);
  m->base = 0;
  m->mapped = 0;
  m->funcs = 0;
  m->num_funcs = 0;
}
