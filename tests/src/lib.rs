//! Shared fixtures for the integration tests and benchmarks.
