//! `neardup normalize`: show exactly what is shingled and hashed.

use std::io::IsTerminal;

use anyhow::Result;

use crate::args::NormalizeArgs;
use crate::output::print;
use neardup_corpus::text::read_text;

pub fn run(args: &NormalizeArgs) -> Result<()> {
    let text = read_text(&args.file, &args.input.options())?;
    let mut normalized = neardup::normalize(&text);
    // Piped output is the exact bytes whose SHA-256 is `normalized_sha256`;
    // a terminal gets a final newline so the prompt starts on its own line.
    if std::io::stdout().is_terminal() {
        normalized.push('\n');
    }
    print(&normalized)
}
