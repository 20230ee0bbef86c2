mod build_secrets;
pub(crate) mod common;
mod kernel_image;
mod kernel_isolation;
mod kernel_lifecycle;
mod kernel_start;
