pub mod events;
pub mod gateway;
pub mod message_end;
pub mod session;
pub mod tree;
