//! HTML: not yet read (a reader is being written).

use crate::{Error, Limits};

pub(crate) fn extract(
    _bytes: &[u8],
    _lossy: bool,
    _limits: &Limits,
    _warnings: &mut Vec<String>,
) -> Result<String, Error> {
    Err(Error::Unsupported("HTML is not read yet"))
}
