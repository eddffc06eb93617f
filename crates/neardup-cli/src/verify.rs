//! `neardup verify`: recompute a receipt from the texts and compare (SPEC §10).

use anyhow::{Context, Result};
use neardup::{Backend, Digest, Mismatch, Receipt};
use serde_json::json;

use crate::args::VerifyArgs;
use crate::input::{at_most_one_stdin, decode, display_name, read_bytes, read_text};
use crate::output::print;

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
    let a = read_text(&args.a, &args.input)?;
    let b = read_text(&args.b, &args.input)?;

    let actual = neardup::compare_with(&a, &b, claimed.params, backend).receipt;
    let mut mismatches = claimed.diff(&actual);
    if let Some(hash) = expected_hash {
        if hash != actual.sha256() {
            mismatches.push(Mismatch {
                field: "receipt_sha256".to_owned(),
                claimed: hash.to_string(),
                actual: actual.sha256().to_string(),
            });
        }
    }
    let out = if args.json {
        let fields: Vec<_> = mismatches
            .iter()
            .map(|m| json!({"field": m.field, "meaning": m.meaning(), "claimed": m.claimed, "actual": m.actual}))
            .collect();
        json!({
            "verified": mismatches.is_empty(),
            "receipt_sha256": actual.sha256().to_string(),
            "mismatches": fields,
        })
        .to_string()
            + "\n"
    } else if mismatches.is_empty() {
        format!("VERIFIED  {}  {}\n", actual.sha256(), actual.verdict)
    } else {
        let mut s = format!("MISMATCH  {} field(s) differ\n", mismatches.len());
        for m in &mismatches {
            s += &format!("  {m}\n");
        }
        s
    };
    print(&out)?;
    Ok(if mismatches.is_empty() {
        Outcome::Verified
    } else {
        Outcome::Mismatch
    })
}
