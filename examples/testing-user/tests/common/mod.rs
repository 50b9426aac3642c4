//! The suite lives in the library (`src/suite.rs`) so the command line can run it too.

pub use testing_user::suite::*;
