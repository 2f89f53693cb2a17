#!/usr/bin/env bash
# The serverless start benchmark (tests/serverless): builds the two minimal
# binaries and the driver in release, then runs the driver against Amazon
# DynamoDB Local (installed and started by .ci/dynamodb-local.sh). Prints,
# ours / raw SDK: process start to first completed GetItem, the first get
# alone and after warm(), and the stripped binary sizes.
#
#   bash scripts/serverless.sh [rounds]     (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p entity-serverless
bash .ci/dynamodb-local.sh run target/release/serverless_bench "${1:-30}"
