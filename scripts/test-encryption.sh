#!/usr/bin/env bash
# The encryption tests (tests/encryption, a workspace of its own so the
# main workspace's test binaries do not link the Database Encryption SDK)
# and the encryption guide's runnable example. Against the embedded
# server, or the endpoint in ENTITY_TEST_ENDPOINT (.ci/dynamodb-local.sh
# run bash scripts/test-encryption.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --manifest-path tests/encryption/Cargo.toml --target-dir target "$@"
cargo test -p entity-client --features encryption,embedded --doc encryption
