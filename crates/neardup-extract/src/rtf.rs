//! RTF: not yet read (a reader is being written).

use crate::{Error, Limits};

pub(crate) fn extract(
    _bytes: &[u8],
    _limits: &Limits,
    _warnings: &mut Vec<String>,
) -> Result<String, Error> {
    Err(Error::Unsupported("RTF is not read yet"))
}
