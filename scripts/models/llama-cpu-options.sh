#!/usr/bin/env bash
# The compiler flags docqa adds to its llama.cpp builds for this CPU (llama-server and llama-bench in
# scripts/services/start-llama-server.sh, node-llama-cpp's addon in scripts/models/build-llama-addon.sh):
# on x86-64, `-mno-amx-tile -mno-amx-int8 -mno-amx-bf16`; elsewhere nothing.
#
# Why: both builds compile ggml for the machine's CPU (`-march=native`, ggml's GGML_NATIVE default).
# On a Xeon whose /proc/cpuinfo lists amx_tile/amx_int8 (seen on 2026-11-28 on this project's 2-core
# machines), that compiles ggml's AMX matrix kernels in, and the first matrix product of the Q4_K_M
# test model dies with SIGILL on `tilezero` (kernel log: "trap invalid opcode ... in llama-server"),
# although ggml asks the kernel for the tile state (ARCH_REQ_XCOMP_PERM) and gets it. GCC and Clang
# let an explicit `-mno-<isa>` win over what `-march=native` turns on, whatever their order, so the
# flags below keep every other instruction set of the CPU (AVX2, AVX-512, VNNI, ...) and leave AMX out.
#
#   scripts/models/llama-cpu-options.sh    # prints the flags on one line (possibly empty)
set -euo pipefail

if [ "$(uname -m)" = "x86_64" ]; then
  echo "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
else
  echo ""
fi
