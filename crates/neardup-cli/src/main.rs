//! `neardup`: the command line over the `neardup` core library.
//!
//! Exit status policy lives here, in one place: 0 success, 1 a verify
//! mismatch, 2 any error.

mod args;
mod compare;
mod explain;
mod input;
mod jsonl;
mod normalize;
mod output;
mod progress;
mod scan;
mod sign;
mod verify;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = choose_backend().and_then(|()| run(&cli));
    match result {
        Ok(code) => code,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // `{:#}` joins the context chain on one line.
            eprintln!("neardup: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// `NEARDUP_BACKEND=portable|avx2|avx512` forces a code path, for tests and
/// for measuring; by default the fastest one the CPU supports runs. All
/// give identical results.
fn choose_backend() -> anyhow::Result<()> {
    let Ok(name) = std::env::var("NEARDUP_BACKEND") else {
        return Ok(());
    };
    match neardup::Backend::from_name(&name) {
        Some(b) if b.force() => Ok(()),
        Some(_) => anyhow::bail!("NEARDUP_BACKEND: this CPU cannot run the '{name}' backend"),
        None => anyhow::bail!(
            "NEARDUP_BACKEND: unknown backend '{name}', expected portable, avx2 or avx512"
        ),
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Compare(a) => compare::run(a).map(|()| ExitCode::SUCCESS),
        Command::Verify(a) => verify::run(a).map(|o| match o {
            verify::Outcome::Verified => ExitCode::SUCCESS,
            verify::Outcome::Mismatch => ExitCode::from(1),
        }),
        Command::Sign(a) => sign::run(a).map(|()| ExitCode::SUCCESS),
        Command::Normalize(a) => normalize::run(a).map(|()| ExitCode::SUCCESS),
        Command::Scan(a) => scan::run(a).map(|()| ExitCode::SUCCESS),
    }
}
