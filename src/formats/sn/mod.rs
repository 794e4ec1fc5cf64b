pub mod thought;
