// The command line, as glibc hands it to the executable.
//
// On Linux the Swift runtime finds argv with a static constructor
// (stdlib/public/stubs/CommandLine.cpp, `ArgvGrabber`) that reads
// /proc/self/maps line by line with sscanf to find the stack, then walks back
// from `environ`. Every start paid for it: 8 system calls, the kernel
// formatting some 55 mappings, and 124 k of a warm hit's 1.2 M instructions
// (callgrind). glibc calls each DT_INIT_ARRAY function of the executable with
// (argc, argv, envp), as Rust's standard library relies on; keeping those two
// is all the command line needs.
//
// `ProcessArguments` reads them through imgcache_process_argv, in every
// build. The release build links the Swift runtime statically, and the two
// runtime functions defined below then keep the static link from taking
// CommandLine.cpp's object out of libswiftCore.a, so its constructor is gone
// with it (`CommandLine.arguments`, which swift-argument-parser reads, gets
// the same argv from here). Should a later runtime put more into that
// object, the link fails loudly, with a duplicate or missing symbol. A debug
// build's shared runtime keeps its own, hidden, and runs its constructor.

#include <stddef.h>
#include <stdlib.h>

#ifndef __GLIBC__
#error "process_arguments.c relies on glibc passing (argc, argv, envp) to DT_INIT_ARRAY functions"
#endif

#include "CProcessArguments.h"

static char *no_arguments[] = {NULL};
static char **process_argv = no_arguments;
static int process_argc;

static void keep_process_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    process_argc = argc;
    process_argv = argv;
}

__attribute__((section(".init_array"), used))
static void (*const keep_process_arguments_entry)(int, char **, char **) = keep_process_arguments;

int imgcache_process_argc(void) { return process_argc; }

char *const *imgcache_process_argv(void) { return process_argv; }

// The runtime's two functions. The standard library calls
// _swift_stdlib_getUnsafeArgvArgc through @_silgen_name, in Swift's calling
// convention, which `swiftcall` matches; the runtime defines it in C, whose
// registers are the same for one pointer in and one out. A host that runs
// Swift code (the REPL, a JIT) may name the arguments itself, as there.
static char **override_argv;
static int override_argc;

__attribute__((swiftcall))
void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    override_argv = argv;
    override_argc = argc;
}

__attribute__((swiftcall))
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    if (override_argv != NULL) {
        *outArgLen = override_argc;
        return override_argv;
    }
    *outArgLen = process_argc;
    return process_argv;
}
