pub mod bytes;
pub mod chunks;
pub mod ui_writer;
