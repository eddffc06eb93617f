//! `neardup`: the command line over the `neardup` core library.
//!
//! Exit status policy lives here, in one place: 0 success, 1 a verify
//! mismatch, 2 any error.

mod args;
mod compare;
mod explain;
mod extract;
mod index;
mod interrupt;
mod normalize;
mod output;
mod progress;
mod report;
mod scan;
mod sign;
mod verify;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::Parser;
use neardup::Backend;

use args::{Cli, Command};

fn main() -> ExitCode {
    report_panics_in_one_line();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let result = choose_backend().and_then(|backend| run(&cli, backend));
    match result {
        Ok(code) => code,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // `{:#}` joins the context chain on one line.
            eprintln!("neardup: error: {}", output::one_line(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

/// A bad command line, in one line like every other error (`neardup:
/// error: invalid value 'x' for '--max-size <SIZE>': ...`), clap's tip
/// folded in, exit 2. Help and version go out as clap writes them.
fn usage_error(e: clap::Error) -> ExitCode {
    if !e.use_stderr() || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        e.exit();
    }
    // clap's lines: the error, its details (the missing arguments), tips,
    // then usage and a pointer to --help, which the one line leaves out.
    let text = e.render().to_string();
    let mut line = String::new();
    for l in text.lines().map(str::trim) {
        if l.starts_with("Usage:") || l.starts_with("For more information") {
            break;
        }
        if !l.is_empty() {
            let l = l.strip_prefix("error: ").unwrap_or(l);
            if !line.is_empty() {
                line.push_str(if l.starts_with("tip: ") { "; " } else { " " });
            }
            line.push_str(l);
        }
    }
    eprintln!("neardup: error: {}", output::one_line(&line));
    ExitCode::from(2)
}

/// A panic is a bug: instead of a backtrace, one line that names the
/// command and asks for a report, and exit 101 (Rust's for a panic).
/// `RUST_BACKTRACE` set (not to 0) keeps Rust's own report, for the one
/// who fixes it.
fn report_panics_in_one_line() {
    if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic");
        let command = std::env::args().nth(1).unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let report = format!("neardup {command}: internal error: {message}{at}");
        eprintln!(
            "{} (a bug in neardup; please report it with the command that caused it)",
            output::one_line(&report)
        );
    }));
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
    // A test hook: the one way to reach the panic report above, since no
    // input is known to panic.
    if std::env::var_os("NEARDUP_TEST_PANIC").is_some() {
        panic!("forced by NEARDUP_TEST_PANIC");
    }
    match &cli.command {
        Command::Compare(a) => compare::run(a, backend).map(|()| ExitCode::SUCCESS),
        Command::Verify(a) => verify::run(a, backend).map(|o| match o {
            verify::Outcome::Verified => ExitCode::SUCCESS,
            verify::Outcome::Mismatch => ExitCode::from(1),
        }),
        Command::Sign(a) => sign::run(a, backend).map(|()| ExitCode::SUCCESS),
        Command::Normalize(a) => normalize::run(a).map(|()| ExitCode::SUCCESS),
        Command::Scan(a) => scan::run(a, backend).map(|()| ExitCode::SUCCESS),
        Command::Extract(a) => extract::run(a).map(|()| ExitCode::SUCCESS),
        Command::Index(c) => index::run(c, backend).map(|()| ExitCode::SUCCESS),
    }
}
