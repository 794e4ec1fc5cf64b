pub mod fold;
pub mod rpc;
pub mod updates;
