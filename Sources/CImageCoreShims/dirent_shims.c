// Why a shim: glibc declares getdents64 only under _GNU_SOURCE, which
// Swift's Glibc module is not built with, and `syscall` is variadic.
#define _GNU_SOURCE
#include <dirent.h>

#include "CImageCoreShims.h"

ssize_t imgcache_getdents64(int fd, void *buffer, size_t size) {
    return getdents64(fd, buffer, size);
}
