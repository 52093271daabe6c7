#include "support/BuildId.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace loom {

namespace {

struct Search {
  uintptr_t address; // an address inside loom's binary
  std::string id;
};

// The NT_GNU_BUILD_ID note among the PT_NOTE segments of the loaded object holding
// search->address.
int find_build_id(dl_phdr_info *info, size_t, void *data) {
  auto *search = static_cast<Search *>(data);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum && !contains; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    contains =
        ph.p_type == PT_LOAD && search->address >= start && search->address < start + ph.p_memsz;
  }
  if (!contains)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE)
      continue;
    const char *note = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
    const char *end = note + ph.p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) header;
      std::memcpy(&header, note, sizeof header);
      const char *name = note + sizeof header;
      const char *desc = name + ((header.n_namesz + 3) & ~3u);
      const char *next = desc + ((header.n_descsz + 3) & ~3u);
      if (next > end)
        break;
      if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        for (uint32_t b = 0; b < header.n_descsz; ++b) {
          char hex[3];
          std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(desc[b]));
          search->id += hex;
        }
        return 1;
      }
      note = next;
    }
  }
  return 1; // the right object, but without a build ID
}

std::string compute_build_id() {
  Search search{reinterpret_cast<uintptr_t>(&loom_build_id), ""};
  dl_iterate_phdr(find_build_id, &search);
  if (!search.id.empty())
    return search.id;
  Dl_info info{};
  struct stat st {};
  if (dladdr(reinterpret_cast<void *>(&loom_build_id), &info) && info.dli_fname &&
      stat(info.dli_fname, &st) == 0)
    return std::string(info.dli_fname) + ":" + std::to_string(st.st_size) + ":" +
           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  return "unknown";
}

} // namespace

const std::string &loom_build_id() {
  static const std::string id = compute_build_id();
  return id;
}

} // namespace loom
