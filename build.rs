fn main() {
    // Link flags for the Node addon (only matters on macOS / Windows).
    if std::env::var_os("CARGO_FEATURE_NODE").is_some() {
        napi_build::setup();
    }
}
