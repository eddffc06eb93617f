//! The command line, declared with clap: doc comments become `--help`.

use std::path::PathBuf;
use std::sync::LazyLock;

use clap::{Args, Parser, Subcommand};
use neardup::{Backend, Params, Threshold, WordRule};

/// The notes under every `--help`. Built at run time only for the backend
/// names, so that the list cannot fall behind [`Backend::ALL`].
static AFTER_HELP: LazyLock<String> = LazyLock::new(|| {
    format!(
        "\
Exit status:
  0  success (compare, sign, normalize); the receipt verified (verify)
  1  verify: the receipt does not match the texts (a report names each field)
  2  any error: bad arguments, unreadable or invalid input, malformed receipt
  101  an internal error, a bug in neardup: one line asking for a report

Environment:
  NEARDUP_BACKEND  the code path: {} (default: the
                   fastest this CPU can run); all give identical results

Algorithm: kar-shingle-minhash-v1. Receipts are canonical JSON; their SHA-256
is the same on every machine.",
        backend_names(" or ")
    )
});

/// `--version`: the program's version, and the versions a receipt or an
/// extracted text depends on, as EXTRACT.md promises.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    let (a, b, c) = neardup::UNICODE_VERSION;
    format!(
        "{} (algorithm {}, extractor {}, Unicode {a}.{b}.{c})",
        env!("CARGO_PKG_VERSION"),
        neardup::ALGORITHM,
        neardup_extract::VERSION
    )
});

/// The names of [`Backend::ALL`] as a list in words: `a, b, c{last}d`.
pub fn backend_names(last: &str) -> String {
    let (tail, head) = Backend::ALL.split_last().expect("there are backends");
    format!("{}{last}{tail}", head.join(", "))
}

/// Deterministic near-duplicate verification with receipts anyone can check.
///
/// Compares two texts (IDENTICAL, NEAR-DUPLICATE, OVERLAPPING, DISTINCT or
/// INSUFFICIENT-DATA) and gives a receipt: canonical JSON whose SHA-256
/// anyone holding the same two texts can recompute.
#[derive(Debug, Parser)]
#[command(name = "neardup", version = VERSION.as_str(), after_help = AFTER_HELP.as_str(), max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare two texts and print the verdict, similarity and receipt hash.
    #[command(after_help = AFTER_HELP.as_str())]
    Compare(CompareArgs),
    /// Check a receipt against two texts (exit 0 verified, 1 mismatch, 2 error).
    #[command(after_help = AFTER_HELP.as_str())]
    Verify(VerifyArgs),
    /// Print one JSON line per file: its normalized hash, shingle count and signature.
    #[command(after_help = AFTER_HELP.as_str())]
    Sign(SignArgs),
    /// Print the normalized text, exactly the bytes that are shingled and hashed.
    #[command(after_help = AFTER_HELP.as_str())]
    Normalize(NormalizeArgs),
    /// Find, verify and cluster every near-duplicate pair of a corpus, in bounded memory.
    #[command(after_help = AFTER_HELP.as_str())]
    Scan(Box<ScanArgs>),
    /// Print the text neardup compares for a document (DOCX, ODT, EPUB, HTML, PDF, RTF or text).
    #[command(after_help = AFTER_HELP.as_str())]
    Extract(ExtractArgs),
    /// A persistent index: add documents as they arrive, query new ones
    /// against all of them, with the pairs `scan NEW --against ALL` gives
    /// (see INDEX.md).
    #[command(subcommand)]
    Index(IndexCommand),
}

/// `neardup index`'s verbs.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Create an index (a new directory), from INPUTs if given; writes the
    /// pairs among them as `scan INPUT...` would.
    #[command(after_help = AFTER_HELP.as_str())]
    Create(Box<IndexCreateArgs>),
    /// Add documents; writes the pairs they form with the index and among
    /// themselves, as `scan INPUT... --against ALL_ADDED_BEFORE` would.
    #[command(after_help = AFTER_HELP.as_str())]
    Add(Box<IndexAddArgs>),
    /// Report the pairs and keep/drop lists of documents against the
    /// index, as `add` would, without adding them.
    #[command(after_help = AFTER_HELP.as_str())]
    Query(Box<IndexAddArgs>),
    /// Print the index's documents, settings, banding, segments and size.
    #[command(after_help = AFTER_HELP.as_str())]
    Info(IndexInfoArgs),
    /// Merge every segment into one, so that a query reads one table per band.
    #[command(after_help = AFTER_HELP.as_str())]
    Compact(IndexPathArgs),
    /// Check every segment's checksum and every table against its documents.
    #[command(after_help = AFTER_HELP.as_str())]
    Verify(IndexPathArgs),
}

#[derive(Debug, Args)]
pub struct IndexPathArgs {
    /// The index directory.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,
    #[command(flatten)]
    pub batch: BatchArgs,
}

#[derive(Debug, Args)]
pub struct IndexInfoArgs {
    /// The index directory.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct IndexCreateArgs {
    /// The index directory to create: it must not exist, or be empty.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,
    /// Documents to start with: the inputs `scan` takes.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub plan: PlanArgs,
    #[command(flatten)]
    pub params: ParamArgs,
    #[command(flatten)]
    pub docs: IndexDocArgs,
}

#[derive(Debug, Args)]
pub struct IndexAddArgs {
    /// The index directory.
    #[arg(value_name = "INDEX")]
    pub index: PathBuf,
    /// The documents: the inputs `scan` takes.
    #[arg(value_name = "INPUT", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Add only the documents that are not dropped (not near-duplicates of
    /// the index or of an earlier new document). `add` only.
    #[arg(long)]
    pub only_new: bool,
    /// Refuse to run unless the index has this threshold (the index's own
    /// is always the one used).
    #[arg(long, value_name = "T", value_parser = parse_threshold)]
    pub threshold: Option<Threshold>,
    /// Refuse to run unless the index has this K.
    #[arg(short = 'k', long = "k", value_name = "K")]
    pub k: Option<u64>,
    /// Refuse to run unless the index has this N.
    #[arg(short = 'n', long = "n", value_name = "N")]
    pub n: Option<u64>,
    /// Refuse to run unless the index has this word rule (space or script).
    #[arg(long, value_name = "RULE", value_parser = parse_words)]
    pub words: Option<WordRule>,
    #[command(flatten)]
    pub docs: IndexDocArgs,
}

/// What `index create`, `add` and `query` share with `scan`: how inputs are
/// read, and where the outputs go.
#[derive(Debug, Args)]
pub struct IndexDocArgs {
    #[command(flatten)]
    pub outputs: OutputArgs,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub batch: BatchArgs,
}

/// The outputs `scan` and the index's verbs write.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Write the verified pairs as JSONL: a, b, matches, n, receipt_sha256,
    /// similarity, verdict. Any one of the outputs may be - (stdout).
    #[arg(long, value_name = "PATH")]
    pub pairs: Option<PathBuf>,
    /// Write the clusters as JSONL: cluster, keep, members, size.
    #[arg(long, value_name = "PATH")]
    pub clusters: Option<PathBuf>,
    /// Write the ids to keep (not dropped), one per line, in input order.
    #[arg(long, value_name = "PATH")]
    pub keep_list: Option<PathBuf>,
    /// Write the ids to drop (in a cluster, not its keeper), one per line.
    #[arg(long, value_name = "PATH")]
    pub drop_list: Option<PathBuf>,
    /// Write each verified pair's full receipt to DIR/<receipt_sha256>.json
    /// (the exact canonical bytes).
    #[arg(long, value_name = "DIR")]
    pub receipts: Option<PathBuf>,
}

impl OutputArgs {
    /// The engine's outputs, with `write_deduped` (`scan`'s alone).
    pub fn outputs(&self, write_deduped: Option<PathBuf>) -> neardup_scan::Outputs {
        neardup_scan::Outputs {
            pairs: self.pairs.clone(),
            clusters: self.clusters.clone(),
            keep_list: self.keep_list.clone(),
            drop_list: self.drop_list.clone(),
            receipts: self.receipts.clone(),
            write_deduped,
        }
    }
}

/// How `scan` and the index's verbs read their inputs.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// Fail on an unreadable, oversized or non-UTF-8 file in a directory
    /// input instead of skipping it with a warning.
    #[arg(long)]
    pub strict: bool,
    /// The JSONL field holding the document id (a string or an integer).
    #[arg(long, value_name = "NAME", default_value = "id")]
    pub id_field: String,
    /// The JSONL field holding the document text.
    #[arg(long, value_name = "NAME", default_value = "text")]
    pub text_field: String,
    #[command(flatten)]
    pub input: InputArgs,
}

impl ReadArgs {
    /// The engine's reading options.
    pub fn reading(&self) -> neardup_scan::Reading {
        neardup_scan::Reading {
            id_field: self.id_field.clone(),
            text_field: self.text_field.clone(),
            text: self.input.options(),
            strict: self.strict,
        }
    }
}

/// Shingle size, signature length (SPEC: K 1..=64, N 16..=256) and the
/// word rule.
#[derive(Debug, Args, Clone, Copy)]
pub struct ParamArgs {
    /// Shingle size K, in words (1..=64).
    #[arg(short = 'k', long = "k", value_name = "K", default_value_t = Params::DEFAULT.k() as u64)]
    pub k: u64,
    /// Number of permutations N, the signature length (16..=256).
    #[arg(short = 'n', long = "n", value_name = "N", default_value_t = Params::DEFAULT.n() as u64)]
    pub n: u64,
    /// Words: space (SPEC §2, kar-shingle-minhash-v1) splits on whitespace;
    /// script (§11, kar-script-shingle-minhash-v1) also makes every Han,
    /// kana, Thai, Lao, Khmer, Myanmar and Yi character a word, so that
    /// Chinese, Japanese and Thai compare.
    #[arg(long, value_name = "RULE", default_value = "space", value_parser = parse_words)]
    pub words: WordRule,
}

impl ParamArgs {
    /// The checked parameters.
    pub fn params(&self) -> Result<Params, neardup::Error> {
        Ok(Params::new(self.k, self.n)?.with_words(self.words))
    }
}

fn parse_words(s: &str) -> Result<WordRule, String> {
    s.parse().map_err(|e: neardup::Error| e.to_string())
}

/// How text files are read.
#[derive(Debug, Args, Clone, Copy)]
pub struct InputArgs {
    /// Decode invalid UTF-8 by replacement (U+FFFD, as WHATWG does) instead of failing.
    #[arg(long)]
    pub lossy: bool,
    /// Refuse inputs larger than this many bytes, and JSONL lines longer
    /// (accepts K, M, G suffixes).
    #[arg(long, value_name = "SIZE", default_value = "4G", value_parser = parse_size)]
    pub max_size: u64,
    /// Refuse a document (DOCX, ODT, EPUB, PDF) whose compressed parts
    /// inflate to more than this many bytes in all: a decompression
    /// bomb's mark. Parts are read as they inflate, so memory stays small
    /// either way (accepts K, M, G suffixes).
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    pub max_expanded: u64,
    /// Map large text files instead of reading them: faster, but only safe
    /// when no other program changes the files meanwhile.
    #[arg(long)]
    pub mmap: bool,
    /// Read every file as this format instead of detecting it from its
    /// content (text, docx, odt, epub, html, pdf, rtf). Needed for HTML in
    /// a file not named .html/.htm/.xhtml.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub format: Option<neardup_extract::Format>,
}

/// A `--format` value: one of [`neardup_extract::Format::name`]'s names.
fn parse_format(s: &str) -> Result<neardup_extract::Format, String> {
    neardup_extract::Format::from_name(s).ok_or_else(|| {
        let names: Vec<_> = neardup_extract::Format::ALL
            .iter()
            .map(|f| f.name())
            .collect();
        format!("expected one of {}, got '{s}'", names.join(", "))
    })
}

impl InputArgs {
    /// The options of `neardup_corpus::text`.
    pub fn options(&self) -> neardup_corpus::text::Options {
        neardup_corpus::text::Options {
            lossy: self.lossy,
            max_size: self.max_size,
            max_expanded: self.max_expanded,
            mmap: self.mmap,
            format: self.format,
        }
    }
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Text A (a file path, or - for standard input).
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// Text B (a file path, or - for standard input).
    #[arg(value_name = "B")]
    pub b: PathBuf,
    #[command(flatten)]
    pub params: ParamArgs,
    #[command(flatten)]
    pub input: InputArgs,
    /// Print one JSON object on stdout instead of the human report.
    #[arg(long)]
    pub json: bool,
    /// Also write the canonical receipt to FILE (exact bytes, no newline; written atomically).
    #[arg(long, value_name = "FILE")]
    pub receipt: Option<PathBuf>,
    #[command(flatten)]
    pub explain: crate::explain::ExplainArgs,
    #[command(flatten)]
    pub report: ReportArgs,
}

/// The HTML report and the base texts.
#[derive(Debug, Args, Clone)]
pub struct ReportArgs {
    /// Also write one self-contained HTML report to FILE (no script, no
    /// time in it: the same inputs give the same bytes; written atomically).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// A base text (an assignment's prompt, a template): passages that also
    /// occur in it are shown as "from the base text", not as shared
    /// evidence, in --report and --explain. Verdicts and receipts do not
    /// change. Repeatable.
    #[arg(long, value_name = "FILE")]
    pub base: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The receipt: a receipt file or a saved `compare --json` output (- for stdin).
    #[arg(value_name = "RECEIPT")]
    pub receipt: PathBuf,
    /// Text A.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// Text B.
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// Also require the receipt hash to be HEX (64 lowercase hex digits).
    #[arg(long, value_name = "HEX")]
    pub sha256: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Print the result as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SignArgs {
    /// Files to sign (- for standard input).
    #[arg(
        value_name = "FILE",
        required_unless_present = "jsonl",
        conflicts_with = "jsonl"
    )]
    pub files: Vec<PathBuf>,
    /// Sign every document of a corpus file (- for stdin), one output line
    /// per document, in input order. Lines are {"id": ..., "text": ...};
    /// gzip and zstd JSONL and Parquet (id and text columns) are recognised
    /// by their first bytes.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// The JSONL field holding the document id (a string or an integer, passed through unchanged).
    #[arg(long, value_name = "NAME", default_value = "id", requires = "jsonl")]
    pub id_field: String,
    /// The JSONL field holding the document text.
    #[arg(long, value_name = "NAME", default_value = "text", requires = "jsonl")]
    pub text_field: String,
    #[command(flatten)]
    pub batch: BatchArgs,
    /// Write the lines to FILE (atomically, once all are done) instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub params: ParamArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

/// How batch work runs and reports.
#[derive(Debug, Args, Clone, Copy)]
pub struct BatchArgs {
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// No progress bar (it is shown only when stderr is a terminal anyway).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Options of `neardup scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Inputs: directories of text files (read recursively; .jsonl,
    /// .jsonl.gz, .jsonl.zst and .parquet files in them are read as
    /// corpora), corpus files of {"id","text"} documents (JSONL, gzip or
    /// zstd JSONL, or Parquet, recognised by their first bytes), or
    /// signature files from `neardup sign --jsonl` (recognised by their first
    /// line). - reads from stdin.
    #[arg(value_name = "INPUT", required = true)]
    pub inputs: Vec<PathBuf>,
    /// An existing corpus (the same kinds as INPUT; a signature file is not
    /// re-signed). Only pairs from INPUT to REF or within INPUT are
    /// reported, and REF documents are never dropped. Repeatable.
    #[arg(long, value_name = "REF")]
    pub against: Vec<PathBuf>,
    #[command(flatten)]
    pub plan: PlanArgs,
    /// Report every pair in which one document holds at least T of the
    /// other's distinct shingles (0 < T <= 1, up to 4 decimals), found
    /// exactly, whatever their lengths: how much of a submission is found
    /// in a source. In place of the near-duplicate search; each pair line
    /// gains "containment", and clusters drop the smaller side of each
    /// pair. Needs texts, not signature files.
    #[arg(long, value_name = "T", value_parser = parse_threshold, conflicts_with_all = ["threshold", "recall", "bands"])]
    pub containment: Option<Threshold>,
    /// Memory budget; beyond it band records spill to sorted runs in the
    /// temp dir (accepts K, M, G suffixes).
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = parse_size)]
    pub memory: u64,
    /// Where spilled runs go (default: the system temp dir). They are
    /// unnamed files on Linux, freed however the scan ends.
    #[arg(long, value_name = "DIR")]
    pub temp_dir: Option<PathBuf>,
    #[command(flatten)]
    pub outputs: OutputArgs,
    /// Write the kept documents: JSONL and signature inputs keep their lines
    /// unchanged; files become {"id": path, "text": text}. The format follows
    /// OUT's name (.jsonl, .gz, .zst, .parquet), else the inputs' own.
    #[arg(long, value_name = "OUT")]
    pub write_deduped: Option<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
    #[command(flatten)]
    pub params: ParamArgs,
    #[command(flatten)]
    pub batch: BatchArgs,
    #[command(flatten)]
    pub report: ReportArgs,
}

/// The threshold and banding of a scan, or of an index for its life.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Report pairs whose signatures agree on at least this fraction of
    /// slots (0 < T <= 1, up to 4 decimals; 0.75 is the NEAR-DUPLICATE line).
    #[arg(long, value_name = "T", default_value_t = Threshold::NEAR_DUPLICATE, value_parser = parse_threshold)]
    pub threshold: Threshold,
    /// Which pairs the candidate search may miss: `probable` (bands chosen
    /// so that a pair at the threshold is missed with probability <= 1%) or
    /// `exact` (pigeonhole bands: the same pairs as comparing every pair,
    /// proven, at the cost of more candidates to check).
    #[arg(long, value_name = "RECALL", default_value = "probable", value_parser = ["probable", "exact"], conflicts_with = "bands")]
    pub recall: String,
    /// LSH bands (with --rows); by default chosen by --recall.
    #[arg(long, value_name = "B", requires = "rows")]
    pub bands: Option<usize>,
    /// LSH rows (slots) per band (with --bands).
    #[arg(long, value_name = "R", requires = "bands")]
    pub rows: Option<usize>,
}

/// Parses a threshold like `0.75` exactly, into basis points: no float
/// ever decides which pairs are reported.
fn parse_threshold(s: &str) -> Result<Threshold, String> {
    Threshold::parse(s).map_err(|e| e.to_string())
}

#[derive(Debug, Args)]
pub struct NormalizeArgs {
    /// The file to normalize (- for standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The document (- for standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[command(flatten)]
    pub input: InputArgs,
    /// Print one JSON object: the file, its format, the extractor version,
    /// the warnings and the text.
    #[arg(long)]
    pub json: bool,
    /// Write the text (or the JSON) to FILE, atomically, instead of stdout.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Parses `123`, `64K`, `10M`, `4G` (binary multiples): ASCII digits and
/// an optional suffix. Whitespace around the value (Unicode's, as
/// `str::trim` sees it) is ignored, so `" 4G"` reads as `4G`; inside it, as
/// in `4 G`, or a sign, is refused.
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    let size = s.trim();
    let (digits, shift) = match size.char_indices().last() {
        Some((i, 'K' | 'k')) => (&size[..i], 10),
        Some((i, 'M' | 'm')) => (&size[..i], 20),
        Some((i, 'G' | 'g')) => (&size[..i], 30),
        _ => (size, 0),
    };
    Some(digits)
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse::<u64>().ok())
        .and_then(|v| v.checked_mul(1 << shift))
        .ok_or_else(|| format!("'{s}' is not a size like 100M or 4G"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn backend_names_read_as_a_list() {
        assert_eq!(backend_names(" or "), "portable, avx2, sha-ni or avx512");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("10m"), Ok(10 << 20));
        assert_eq!(parse_size("123"), Ok(123));
        assert!(parse_size("x").is_err());
        assert!(parse_size("99999999999G").is_err());
        // Issue 30: an index into the trimmed text sliced the untrimmed one.
        assert_eq!(parse_size("\u{3000}4G"), Ok(4 << 30));
        assert_eq!(parse_size(" 4G\t"), Ok(4 << 30));
        for bad in [
            "",
            " ",
            "G",
            "4 G",
            "+4G",
            "-1",
            "\u{3000}",
            "\u{ff14}G",
            "4\u{0}",
        ] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
    }

    /// Every flag that takes a value, with the arguments its subcommand
    /// needs around it.
    const FLAGS: &[(&[&str], &str)] = &[
        (&["compare", "a", "b"], "--k"),
        (&["compare", "a", "b"], "--n"),
        (&["compare", "a", "b"], "--max-size"),
        (&["compare", "a", "b", "--explain"], "--max-passages"),
        (&["compare", "a", "b", "--explain"], "--color"),
        (&["verify", "r", "a", "b"], "--sha256"),
        (&["sign", "a"], "--threads"),
        (&["sign", "--jsonl", "c"], "--id-field"),
        (&["sign", "--jsonl", "c"], "--text-field"),
        (&["scan", "c"], "--threshold"),
        (&["scan", "c"], "--memory"),
        (&["scan", "c", "--rows", "4"], "--bands"),
        (&["scan", "c", "--bands", "32"], "--rows"),
        (&["normalize", "a"], "--max-size"),
        (&["extract", "a"], "--max-expanded"),
    ];

    proptest::proptest! {
        /// Any string at all, for any flag: parsed, or refused with an
        /// error whose first line names the problem; never a panic.
        #[test]
        fn no_value_panics(value in ".*", flag in 0..FLAGS.len()) {
            let (before, name) = FLAGS[flag];
            let arg = format!("{name}={value}");
            let args = std::iter::once("neardup").chain(before.iter().copied());
            if let Err(e) = Cli::try_parse_from(args.chain([arg.as_str()])) {
                let text = e.render().to_string();
                proptest::prop_assert!(text.starts_with("error: "), "{}", text);
            }
            let _ = parse_size(&value);
            let _ = parse_threshold(&value);
        }
    }
}
