pub mod recording;
