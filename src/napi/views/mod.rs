//! The views for JavaScript: the webui's adapters (`adaptACPMessages`,
//! `adaptJSONLMessages`, `toUnifiedMessages`) with their compiled front (`readers.js`,
//! reading into a [`snapshot`]), the caller's values read as a [`source`] and results
//! built by [`render`]; the timeline (`buildTimeline`); and their shapes ([`types`]).

pub mod adapters;
pub mod readers;
pub mod render;
pub mod snapshot;
pub mod source;
pub mod timeline;
pub mod types;
