# cuzk — top-level entry points. `make test` and `make demo` install what
# they need (tools/install-deps.sh), configure, build and run.
JOBS    ?= $(shell nproc)
CMAKE   ?= cmake
CTEST   := ctest --output-on-failure -j$(JOBS) --no-tests=error

.PHONY: all deps build build-asan build-tsan build-fuzz test test-fast test-asan test-tsan test-fuzz demo bench clean

all: build

deps:
	@bash tools/install-deps.sh

build: deps
	$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build build -j$(JOBS)

# ASan + UBSan: the whole suite (tests labelled nosan are skipped).
build-asan: deps
	$(CMAKE) -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_SANITIZE="address;undefined"
	$(CMAKE) --build build-asan -j$(JOBS)

# TSan: the threaded tests (label "threads").
build-tsan: deps
	$(CMAKE) -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_SANITIZE=thread
	$(CMAKE) --build build-tsan -j$(JOBS)

# libFuzzer targets (clang, ASan+UBSan), each run briefly over its corpus.
build-fuzz: deps
	$(CMAKE) -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCUZK_SANITIZE="address;undefined" -DCUZK_FUZZ=ON
	$(CMAKE) --build build-fuzz -j$(JOBS)

test-fuzz: build-fuzz
	cd build-fuzz && $(CTEST) -L fuzz

test-fast: build
	cd build && $(CTEST)

test-asan: build-asan
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(CTEST)

test-tsan: build-tsan
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/tsan.supp $(CTEST) -L threads

test: test-fast test-asan test-tsan test-fuzz
	@echo "make test: all suites passed (plain, ASan+UBSan, TSan, fuzz)"

bench: build
	./build/src/cli/cuzk bench field

demo: build
	bash tools/demo.sh

clean:
	rm -rf build build-asan build-tsan build-fuzz
