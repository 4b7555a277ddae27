# Thin wrapper over CMake: README.md's two commands are `make demo` and `make test`.
# Every target installs what is missing first (scripts/install-deps.sh, Debian packages).
BUILD ?= build
BUILD_ASAN ?= build-asan
JOBS ?= 2

.PHONY: all deps configure build demo test asan valgrind bench-kernel format clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# The default job: the G-TSC benchmark suite at the `small` size on the default configuration
# (16 SMs, G-TSC, RC), a table of cycles, hit rates and traffic per benchmark.
demo: build
	./$(BUILD)/cohscope suite -c configs/default.cfg --set workload.size=small

# Every Check suite and command-line test.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

# The unit tests, and the tests labelled `sanitize` (bad input, short whole-system runs, the
# replay of every fuzz target's corpus), under AddressSanitizer and UndefinedBehaviorSanitizer. All command-line tests there
# take over an hour on two cores: CI's 90 minutes do not hold them.
asan: deps
	@cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DCOHSCOPE_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD_ASAN) -j$(JOBS)
	ctest --test-dir $(BUILD_ASAN) --output-on-failure -j$(JOBS) -L '^(unit|sanitize)$$'

# Unit tests and the default job under valgrind memcheck.
valgrind: build
	scripts/valgrind-tests.sh $(BUILD)

# Our kernel against Accellera SystemC (installs libsystemc-dev), figures for docs/performance.md.
bench-kernel: deps
	@scripts/install-deps.sh --with-systemc
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)
	bench/kernel/run.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD_ASAN)
