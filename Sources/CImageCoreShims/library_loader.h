#ifndef IMGCACHE_LIBRARY_LOADER_H
#define IMGCACHE_LIBRARY_LOADER_H

#include <pthread.h>
#include <stddef.h>

// A private header (not under include/): Swift never sees it.
// Why one loader: libraries that only some commands need (libcurl, libavif,
// Little CMS, libheif, libjxl...) are loaded with dlopen on first use, so a
// warm cache hit never pays for loading and relocating them. Each shim keeps
// a table of typed function pointers; this file loads the library once,
// fills the table, and remembers the outcome (and its message) for every
// later caller, from any thread.

/// One function to resolve: its symbol name and the table slot that receives it.
typedef struct {
    const char *name;
    void **slot;
} imgcache_library_symbol;

/// A library loaded on first use. Define one per shim with
/// IMGCACHE_LIBRARY(...); only imgcache_library_load touches the fields.
typedef struct {
    /// The soname whose ABI the shim was written for, e.g. "libcurl.so.4".
    const char *soname;
    /// Said when dlopen fails, before dlerror's text: "cannot load libcurl (install libcurl4)".
    const char *missing;
    /// Said after "<soname> lacks <symbol>" when a function is missing, or "".
    const char *too_old;
    const imgcache_library_symbol *symbols;
    size_t symbol_count;
    /// Runs once after every symbol resolved (Little CMS installs its error handler), or NULL.
    void (*loaded)(void);
    pthread_mutex_t lock;
    /// 0 until the first load ends; then 1 (loaded) or -1 (failed, see `error`). Read atomically.
    int state;
    char error[256];
} imgcache_library;

/// A library description for a `static imgcache_library` in a shim; `symbols` is a static array.
#define IMGCACHE_LIBRARY(soname_, missing_, too_old_, symbols_, loaded_)                                  \
    {                                                                                                     \
        .soname = (soname_), .missing = (missing_), .too_old = (too_old_), .symbols = (symbols_),          \
        .symbol_count = sizeof(symbols_) / sizeof((symbols_)[0]), .loaded = (loaded_),                    \
        .lock = PTHREAD_MUTEX_INITIALIZER, .state = 0, .error = {0},                                      \
    }

/// A table entry: the slot is a typed function pointer field of the shim's table.
#define IMGCACHE_SYMBOL(field, symbol) {(symbol), (void **)&(field)}

/// For libraries Swift calls by their own names (libpng, giflib, libwebp,
/// libjpeg, hiredis, zlib): the shim defines each function it uses under the
/// library's name and prototype (the header checks both), hidden so the
/// dlopened libraries never bind to it, forwarding to the resolved pointer.
/// The first call of any of them loads the library. `FUNCTIONS(F, V, N)` lists
/// them as F(type, name, (parameters), (arguments)) for a function returning
/// a value, V(void, ...) for one returning nothing, N(void, ...) for one that
/// never returns (png_error); the shim expands the list three times:
///   FUNCTIONS(IMGCACHE_POINTER, IMGCACHE_POINTER, IMGCACHE_POINTER)   the table
///   IMGCACHE_SYMBOLS(FUNCTIONS)                                        its names
///   FUNCTIONS(IMGCACHE_FORWARD, IMGCACHE_FORWARD_VOID, IMGCACHE_FORWARD_NORETURN)
/// where a `static imgcache_library library` is declared between the last two.
#define IMGCACHE_POINTER(type, name, parameters, arguments) static type(*name##_function) parameters;
#define IMGCACHE_SYMBOL_ENTRY(type, name, parameters, arguments) IMGCACHE_SYMBOL(name##_function, #name),
#define IMGCACHE_SYMBOLS(functions)                                                                          \
    static const imgcache_library_symbol symbols[] = {                                                      \
        functions(IMGCACHE_SYMBOL_ENTRY, IMGCACHE_SYMBOL_ENTRY, IMGCACHE_SYMBOL_ENTRY)}
#define IMGCACHE_REQUIRE(library)                                                                            \
    if (__builtin_expect(__atomic_load_n(&(library).state, __ATOMIC_ACQUIRE) <= 0, 0)) {                    \
        imgcache_library_require(&(library));                                                                \
    }
#define IMGCACHE_FORWARD(type, name, parameters, arguments)                                                  \
    __attribute__((visibility("hidden"))) type name parameters {                                             \
        IMGCACHE_REQUIRE(library)                                                                            \
        return name##_function arguments;                                                                    \
    }
#define IMGCACHE_FORWARD_VOID(type, name, parameters, arguments)                                             \
    __attribute__((visibility("hidden"))) void name parameters {                                             \
        IMGCACHE_REQUIRE(library)                                                                            \
        name##_function arguments;                                                                           \
    }
#define IMGCACHE_FORWARD_NORETURN(type, name, parameters, arguments)                                         \
    __attribute__((visibility("hidden"))) void name parameters {                                             \
        IMGCACHE_REQUIRE(library)                                                                            \
        name##_function arguments;                                                                           \
        __builtin_unreachable();                                                                             \
    }

/// Loads `library` (dlopen RTLD_NOW | RTLD_LOCAL) and resolves every symbol
/// into its slot, the first time it is called; later calls, from any thread,
/// return the first call's outcome without locking. Returns 0, or -1 with
/// the message copied into `error` (at least 256 bytes). The library is
/// never unloaded: the resolved pointers stay valid for the process's life.
/// The corresponding C functions are `dlopen` and `dlsym`.
int imgcache_library_load(imgcache_library *library, char *error);

/// imgcache_library_load for a library the build links against in all but
/// name (its functions are called directly): when it cannot be loaded, the
/// process prints `imgcache: <why>` and exits 1, as the dynamic loader would
/// have refused to start it.
void imgcache_library_require(imgcache_library *library);

#endif
