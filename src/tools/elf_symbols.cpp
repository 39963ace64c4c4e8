#include "tools/elf_symbols.h"

#include <elf.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

namespace ucudnn::tools {
namespace {

#if defined(__x86_64__)
constexpr std::uint16_t kThisMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr std::uint16_t kThisMachine = EM_AARCH64;
#else
constexpr std::uint16_t kThisMachine = EM_NONE;  // no check of the architecture
#endif

constexpr std::uint8_t kThisByteOrder = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

// A symbol table or its names: far larger than any real one, small enough to read whole.
constexpr std::uint64_t kMaxSectionBytes = 256ull << 20;

// Reads `bytes` bytes at `offset` into `out`; false where the file is shorter.
bool read_at(std::ifstream& in, std::uint64_t offset, std::uint64_t bytes, void* out) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(static_cast<char*>(out), static_cast<std::streamsize>(bytes));
  return in && static_cast<std::uint64_t>(in.gcount()) == bytes;
}

}  // namespace

Expected<bool> exports_symbol(const std::string& file, const std::string& name) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::storage("cannot open '" + file + "': " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  const auto inside = [size](std::uint64_t offset, std::uint64_t bytes) {
    return offset <= size && bytes <= size - offset;
  };
  Elf64_Ehdr header{};
  if (!read_at(in, 0, sizeof header, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return Error::invalid("it is not an ELF file (a shared library)");
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != kThisByteOrder ||
      (kThisMachine != EM_NONE && header.e_machine != kThisMachine)) {
    return Error::invalid("it is an ELF file for another kind of machine");
  }
  if (header.e_type != ET_DYN) return Error::invalid("it is an ELF file, but not a shared library");
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0 ||
      !inside(header.e_shoff, std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr))) {
    return Error::invalid("its section headers are missing or damaged");
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (!read_at(in, header.e_shoff, sections.size() * sizeof(Elf64_Shdr), sections.data())) {
    return Error::invalid("its section headers cannot be read");
  }
  for (const Elf64_Shdr& table : sections) {
    if (table.sh_type != SHT_DYNSYM) continue;
    if (table.sh_link >= sections.size() || table.sh_entsize != sizeof(Elf64_Sym)) {
      return Error::invalid("its dynamic symbol table is damaged");
    }
    const Elf64_Shdr& strings = sections[table.sh_link];
    if (table.sh_size > kMaxSectionBytes || strings.sh_size > kMaxSectionBytes ||
        !inside(table.sh_offset, table.sh_size) || !inside(strings.sh_offset, strings.sh_size)) {
      return Error::invalid("its dynamic symbol table is damaged");
    }
    std::vector<Elf64_Sym> symbols(table.sh_size / sizeof(Elf64_Sym));
    std::vector<char> names(strings.sh_size);
    if (!read_at(in, table.sh_offset, symbols.size() * sizeof(Elf64_Sym), symbols.data()) ||
        !read_at(in, strings.sh_offset, names.size(), names.data())) {
      return Error::invalid("its dynamic symbol table cannot be read");
    }
    for (const Elf64_Sym& symbol : symbols) {
      if (symbol.st_shndx == SHN_UNDEF || symbol.st_name >= names.size()) continue;
      const char* text = names.data() + symbol.st_name;
      const std::size_t length = strnlen(text, names.size() - symbol.st_name);
      if (length == name.size() && std::memcmp(text, name.data(), length) == 0) return true;
    }
    return false;
  }
  return Error::invalid("it has no dynamic symbol table");
}

}  // namespace ucudnn::tools
