//! Prints the text of a file: `cargo run --release -p neardup-extract
//! --example extract -- FILE`. (The CLI's `neardup extract` is the real
//! command; this is for benchmarks and quick checks.)

use std::io::Write;
use std::process::ExitCode;

use neardup_extract::{extract, Options};

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: extract FILE");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("reading '{path}': {e}");
            return ExitCode::from(2);
        }
    };
    match extract(&bytes, Some(&path), &Options::default()) {
        Ok(got) => {
            for w in &got.warnings {
                eprintln!("warning: {w}");
            }
            let _ = std::io::stdout().write_all(got.text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("reading '{path}': {e}");
            ExitCode::from(2)
        }
    }
}
