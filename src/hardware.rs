//! Dense peaks by GPU name: the peak view of the one catalog (src/catalog),
//! kept under this name for the callers that only need a peak or a dtype.
pub(crate) use crate::catalog::Dtype;
pub use crate::catalog::peaks::lookup;
pub(crate) use crate::catalog::peaks::peak_tflops;
