//! Where results go: stdout (tolerating closed pipes), and files written
//! atomically by the engine's [`Sink`]; and how messages are kept to one
//! line.

use std::io::{self, Write};

use anyhow::{Context, Result};

pub use neardup_scan::sink::{write_atomic, Sink};

/// Writes all of `text` to stdout in one go.
pub fn print(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("writing to standard output")
}

/// Whether an error chain ends in a closed pipe (`neardup ... | head`),
/// which is not a failure of ours.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| match c.downcast_ref::<io::Error>() {
        Some(e) => e.kind() == io::ErrorKind::BrokenPipe,
        None => c
            .downcast_ref::<neardup_scan::Error>()
            .is_some_and(neardup_scan::Error::is_broken_pipe),
    })
}

/// `message` on one line: a control character (a newline in a file or
/// field name the message quotes) is written as its escape, `\n`, so
/// that every error and warning is exactly one line.
pub fn one_line(message: &str) -> std::borrow::Cow<'_, str> {
    if !message.chars().any(char::is_control) {
        return message.into();
    }
    message
        .chars()
        .map(|c| match c.is_control() {
            true => c.escape_default().to_string(),
            false => c.to_string(),
        })
        .collect::<String>()
        .into()
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(super::one_line("a 'b'"), "a 'b'");
        assert_eq!(
            super::one_line("field 'a\nb'\t\u{1b}"),
            "field 'a\\nb'\\t\\u{1b}"
        );
    }
}
