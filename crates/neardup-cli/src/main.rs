//! `neardup`: the command line over the `neardup` core library.
//!
//! Exit status policy lives here, in one place: 0 success, 1 a verify
//! mismatch, 2 any error.

mod args;
mod compare;
mod input;
mod jsonl;
mod normalize;
mod output;
mod progress;
mod sign;
mod verify;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Compare(a) => compare::run(a).map(|()| ExitCode::SUCCESS),
        Command::Verify(a) => verify::run(a).map(|o| match o {
            verify::Outcome::Verified => ExitCode::SUCCESS,
            verify::Outcome::Mismatch => ExitCode::from(1),
        }),
        Command::Sign(a) => sign::run(a).map(|()| ExitCode::SUCCESS),
        Command::Normalize(a) => normalize::run(a).map(|()| ExitCode::SUCCESS),
    };
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
