#!/usr/bin/env bash
# Installs everything Skiff's build and tests need on a fresh Debian
# (bookworm) machine. Idempotent: packages already present are skipped.
#   scripts/install-deps.sh               # build and tests
#   scripts/install-deps.sh --build-only  # only what building the broker needs
#                                         # (the container image's build stage)
set -euo pipefail

BUILD_PACKAGES=(
  # build
  build-essential cmake ninja-build pkg-config python3
  libboost-dev libboost-program-options-dev libfmt-dev libspdlog-dev libyaml-cpp-dev
  # RE2: client-supplied regular expressions in Kafka's RE2/J syntax (protocol/name_pattern.h)
  libre2-dev
  # Compression codecs: the log cleaner (log/compression.h) decompresses the
  # batches of compacted topics and recompresses them with their own codec.
  libzstd-dev liblz4-dev libsnappy-dev zlib1g-dev
  # OpenSSL 3: TLS on SSL listeners (network/tls_context.h); the image's
  # runtime stage picks up libssl3 from ldd
  libssl-dev
  # Protocol Buffers: KIP-714's PushTelemetry payload is an OTLP MetricsData
  # (api/telemetry/otlp_metrics.h); protoc compiles the vendored
  # opentelemetry protos at build time, libprotobuf decodes them
  libprotobuf-dev protobuf-compiler
  # libprotoc: the Schema Registry parses registered .proto schemas with
  # protoc's own parser (schema/protobuf/proto_text.h)
  libprotoc-dev
)
PACKAGES=(
  "${BUILD_PACKAGES[@]}"
  catch2
  # sanitizers and libFuzzer (clang)
  clang-14 libclang-rt-14-dev
  # style check (scripts/check-style.sh): formatting, clang-tidy; lizard
  # comes from PyPI into a venv below (Debian does not package it)
  clang-format-14 clang-tidy-14 python3-venv
  # tests: real Kafka clients and Apache Kafka's own tools
  kcat librdkafka-dev maven
  procps
  # power-cut tests (tests/powercut): powerfs is a FUSE file system
  libfuse3-dev fuse3
)

case "${1:-}" in
  --build-only) PACKAGES=("${BUILD_PACKAGES[@]}") ;;
  "")
    # Any Java 17+ will do for the Java client and Kafka's tools; Debian's if none.
    command -v java >/dev/null 2>&1 || PACKAGES+=(openjdk-17-jdk-headless)
    ;;
  *) echo "usage: $0 [--build-only]" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all Debian packages present"
fi

# lizard (function length and complexity, scripts/check-style.sh), pinned, in
# a venv of its own: Debian's Python refuses pip installs outside one.
if [[ "${1:-}" != --build-only ]]; then
  VENV="${SKIFF_TOOLS_VENV:-${HOME}/.cache/skiff/tools-venv}"
  if [[ ! -x "${VENV}/bin/lizard" ]]; then
    echo "install-deps: installing lizard into ${VENV}"
    python3 -m venv "${VENV}"
    "${VENV}/bin/pip" install -q lizard==1.24.3
  fi
fi
