//! `neardup verify`: recompute a receipt from the texts and compare (SPEC §10).

use anyhow::{Context, Result};
use neardup::{Backend, Digest, Receipt};

use crate::args::VerifyArgs;
use crate::output::print;
use neardup_corpus::text::{at_most_one_stdin, decode, display_name, read_bytes, read_document};

/// A receipt, even inside a `compare --json` object, is a few hundred
/// bytes; anything past this is not a receipt.
const MAX_RECEIPT_BYTES: u64 = 1 << 20;

/// What verification found; `Ok` of the command, since a mismatch is an
/// answer, not an error.
pub enum Outcome {
    Verified,
    Mismatch,
}

pub fn run(args: &VerifyArgs, backend: Backend) -> Result<Outcome> {
    at_most_one_stdin([args.receipt.as_path(), args.a.as_path(), args.b.as_path()])?;
    let name = display_name(&args.receipt);
    let expected_hash = args
        .sha256
        .as_deref()
        .map(Digest::from_hex)
        .transpose()
        .context("--sha256")?;
    let bytes = read_bytes(&args.receipt, MAX_RECEIPT_BYTES, "the receipt size limit")?;
    let claimed = Receipt::parse(&decode(bytes, &name, false)?)
        .with_context(|| format!("receipt '{name}'"))?;
    let a = read_document(&args.a, &args.input.options())?;
    let b = read_document(&args.b, &args.input.options())?;
    let names = [display_name(&args.a), display_name(&args.b)];
    let note = crate::extract::mismatch_note(&[(&names[0], &a), (&names[1], &b)]);

    let actual = crate::compare::compare_in_parallel(&a.text, &b.text, claimed.params, backend)?
        .0
        .receipt;
    let v = claimed.check(&actual, expected_hash.as_ref());
    let mismatches = &v.mismatches;
    let out = if args.json {
        let mut json = serde_json::to_value(&v)?;
        if let (false, Some(note)) = (v.verified, &note) {
            json["note"] = note.as_str().into();
        }
        json.to_string() + "\n"
    } else if v.verified {
        format!("VERIFIED  {}  {}\n", v.receipt_sha256, v.verdict)
    } else {
        let mut s = format!("MISMATCH  {} field(s) differ\n", mismatches.len());
        for m in mismatches {
            s += &format!("  {m}\n");
        }
        if let Some(note) = &note {
            s += &format!("  {note}\n");
        }
        s
    };
    print(&out)?;
    Ok(if v.verified {
        Outcome::Verified
    } else {
        Outcome::Mismatch
    })
}
