//! Compile-fail cases of the derive that need `entity-core` without its
//! optional `chrono` and `time` features: the error on a timestamp key
//! names the feature to enable. (The main UI suite builds with both
//! features on.)
