// Code size of an object (--emit=json): its executable sections and its function symbols.
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include "codegen/Codegen.h"

namespace dspc {

bool object_code_size(const std::string& object, ObjectCodeSize& out, std::string& error) {
  out = ObjectCodeSize{};
  auto buffer = llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(object.data(), object.size()), "object", false);
  auto file = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!file) {
    error = llvm::toString(file.takeError());
    return false;
  }
  for (const llvm::object::SectionRef& s : (*file)->sections())
    if (s.isText()) out.text_bytes += static_cast<int64_t>(s.getSize());
  auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(file->get());
  if (!elf) return true;
  for (const llvm::object::ELFSymbolRef& sym : elf->symbols()) {
    auto flags = sym.getFlags();
    if (!flags) {
      llvm::consumeError(flags.takeError());
      continue;
    }
    if (*flags & llvm::object::SymbolRef::SF_Undefined) continue;
    auto type = sym.getType();
    auto name = sym.getName();
    if (!type || !name) {
      llvm::consumeError(type.takeError());
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*type == llvm::object::SymbolRef::ST_Function && !name->empty())
      out.functions[name->str()] = static_cast<int64_t>(sym.getSize());
  }
  return true;
}

}  // namespace dspc
