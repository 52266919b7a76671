# cairn — the README's two commands:
#   make run    set up, build (Release), run the demo
#   make test   set up, build, run every test through ctest
# and: make check-asan (ASan + UBSan build, whole suite), make clean;
#      make venv (the build folder's Python environment: onnxruntime for the model tests
#      and `cairn bench model --peers`), make models (export the benchmark models into
#      $(BUILD)/models with Debian's PyTorch), make bench-models (bench/models.sh).
# Set-up installs missing Debian packages with apt-get when run as root;
# otherwise it prints the apt-get line to run and stops.

BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
WERROR     ?= OFF
CMAKE_ARGS ?=

DEB_PACKAGES := cmake make gcc libc6-dev protobuf-c-compiler libprotobuf-c-dev libonnx-dev libonnx-testdata \
                gcc-aarch64-linux-gnu clang libclang-rt-dev python3-venv
# only for exporting models (make models, bench/models.sh): PyTorch runs under /usr/bin/python3
MODEL_DEB_PACKAGES := python3-torch python3-torchvision python3-onnx

.PHONY: all setup setup-models build run test venv models bench-models check-asan clean

all: build

setup:
	@missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "setup: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "setup: missing Debian packages. Run as root:"; \
	    echo "  apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

$(BUILD)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCAIRN_WERROR=$(WERROR) $(CMAKE_ARGS)

build: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/cairn run demo

# the model tests skip (not fail) when the venv cannot be made, e.g. offline
test: build
	@sh models/venv.sh $(BUILD)/venv || echo "test: no venv; the model_ort_* tests will be skipped"
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

venv: setup
	sh models/venv.sh $(BUILD)/venv

setup-models:
	@$(MAKE) --no-print-directory setup DEB_PACKAGES="$(MODEL_DEB_PACKAGES)"

models: setup-models
	/usr/bin/python3 models/export.py $(BUILD)/models bench --if-missing

bench-models: build venv setup-models
	BUILD=$(BUILD) sh bench/models.sh

check-asan: setup
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAIRN_SANITIZE=ON \
	  -DCAIRN_WERROR=$(WERROR) $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
