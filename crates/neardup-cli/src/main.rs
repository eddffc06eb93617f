//! `neardup`: the command line over the `neardup` core library.
//!
//! Exit status policy lives here, in one place: 0 success, 1 a verify
//! mismatch, 2 any error.

mod args;
mod compare;
mod explain;
mod normalize;
mod output;
mod progress;
mod scan;
mod sign;
mod verify;

use std::process::ExitCode;

use clap::Parser;
use neardup::Backend;

use args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = choose_backend().and_then(|backend| run(&cli, backend));
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

/// `NEARDUP_BACKEND` (one of [`neardup::Backend::ALL`]) forces a code path,
/// for tests and for measuring; by default the fastest one the CPU
/// supports runs. All give identical results. Only the CLI reads the
/// variable: the library takes the backend as a value.
fn choose_backend() -> anyhow::Result<Backend> {
    let Ok(name) = std::env::var("NEARDUP_BACKEND") else {
        return Ok(Backend::detect());
    };
    match Backend::from_name(&name) {
        Some(b) => Ok(b),
        None if Backend::ALL.contains(&name.as_str()) => {
            anyhow::bail!("NEARDUP_BACKEND: this CPU cannot run the '{name}' backend")
        }
        None => anyhow::bail!(
            "NEARDUP_BACKEND: unknown backend '{name}', expected {}",
            args::backend_names(" or ")
        ),
    }
}

fn run(cli: &Cli, backend: Backend) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Compare(a) => compare::run(a, backend).map(|()| ExitCode::SUCCESS),
        Command::Verify(a) => verify::run(a, backend).map(|o| match o {
            verify::Outcome::Verified => ExitCode::SUCCESS,
            verify::Outcome::Mismatch => ExitCode::from(1),
        }),
        Command::Sign(a) => sign::run(a, backend).map(|()| ExitCode::SUCCESS),
        Command::Normalize(a) => normalize::run(a).map(|()| ExitCode::SUCCESS),
        Command::Scan(a) => scan::run(a, backend).map(|()| ExitCode::SUCCESS),
    }
}
