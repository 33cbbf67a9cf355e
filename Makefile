# imgcache — GNU-style Makefile. `make demo` and `make test` set up a fresh
# Debian/Ubuntu machine by themselves (see `deps`).

prefix ?= /usr/local
bindir ?= $(prefix)/bin
mandir ?= $(prefix)/share/man
DESTDIR ?=

SWIFT ?= swift
CONFIG ?= release
SWIFTFLAGS ?=
BUILD_DIR = $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path 2>/dev/null)

# Build dependencies (C libraries) and the reference tools the tests compare against.
DEB_PACKAGES = libcurl4-openssl-dev libturbojpeg0-dev libpng-dev libgif-dev libwebp-dev pkg-config \
	libjpeg-turbo-progs webp netpbm giflib-tools curl python3 openssl hyperfine
JPEG_DEV = $(shell if apt-cache show libjpeg62-turbo-dev >/dev/null 2>&1; then echo libjpeg62-turbo-dev; else echo libjpeg-turbo8-dev; fi)

.PHONY: all deps build test demo bench stress fuzz sanitize man lint install uninstall clean

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES) $(JPEG_DEV); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG) $(SWIFTFLAGS)

test: deps
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	$(SWIFT) test --skip-build $(SWIFTFLAGS)

demo: build
	@sh scripts/demo.sh "$(BUILD_DIR)/imgcache"

# The tools `make bench` compares against, and the server it runs.
BENCH_PACKAGES = nginx-light aria2 wget imagemagick libvips-tools time

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
sanitize: deps
	$(SWIFT) build --build-tests --sanitize=address --build-path .build/asan
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp $(SWIFT) test --skip-build --sanitize=address --build-path .build/asan
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

man: deps
	$(SWIFT) package --allow-writing-to-package-directory generate-manual --date 2026-11-22 \
		--authors 'imgcache developers' -o man

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

install: build
	install -d "$(DESTDIR)$(bindir)" "$(DESTDIR)$(mandir)/man1"
	install -m 755 "$(BUILD_DIR)/imgcache" "$(DESTDIR)$(bindir)/imgcache"
	install -m 644 man/imgcache.1 "$(DESTDIR)$(mandir)/man1/imgcache.1"

uninstall:
	rm -f "$(DESTDIR)$(bindir)/imgcache" "$(DESTDIR)$(mandir)/man1/imgcache.1"

clean:
	rm -rf .build
