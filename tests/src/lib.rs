//! Shared helpers of the integration suites in `tests/tests/`.
