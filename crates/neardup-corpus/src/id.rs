//! Ids: one spelling for each, whatever the input. An id is JSON text: a
//! string as its JSON string, an integer as its digits. A text file's id
//! is its path; a JSONL id is as the line wrote it, a string with escapes
//! spelled again (so `"\u0061"` and `"a"` are one id); a Parquet id is its
//! column's value, written as JSONL would.

use neardup::scan::lines::{canonical_id, json_string};

use crate::{Error, Result};

/// The one spelling of an id as a JSONL line wrote it.
pub fn canonical(raw: String) -> Result<String> {
    if raw.starts_with('"') && raw.contains('\\') {
        return canonical_id(&raw)
            .ok_or_else(|| Error::Refused(format!("field 'id' is not valid JSON: {raw}")));
    }
    Ok(raw)
}

/// The id of a text file or of a string value: its JSON string.
pub fn of_str(s: &str) -> String {
    json_string(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_spelling() {
        assert_eq!(canonical(r#""\u0061""#.into()).unwrap(), r#""a""#);
        assert_eq!(canonical("12".into()).unwrap(), "12");
        assert_eq!(canonical(r#""a\nb""#.into()).unwrap(), r#""a\nb""#);
        assert!(canonical(r#""\ud800""#.into()).is_err());
        assert_eq!(of_str("dir/a \"b\".txt"), r#""dir/a \"b\".txt""#);
    }
}
