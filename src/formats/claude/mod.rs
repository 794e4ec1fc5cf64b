pub mod transcript;
