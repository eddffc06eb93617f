//! One file (or standard input) read as one document: a plain text
//! (strict or lossy UTF-8), or a Word, OpenDocument, EPUB, HTML, PDF or
//! RTF file whose text `neardup_extract` extracts; size-capped.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use neardup_extract::Format;

use crate::{Error, Result};

/// How texts are read.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Replace invalid UTF-8 (U+FFFD, as WHATWG does) instead of failing.
    pub lossy: bool,
    /// Refuse a text over this many bytes (and a JSONL line over it).
    pub max_size: u64,
    /// Refuse a document whose parts inflate to more than this many bytes
    /// in all ([`neardup_extract::Limits::max_expanded`]).
    pub max_expanded: u64,
    /// Map a large file instead of reading it, trusting that no other
    /// process rewrites it meanwhile (see [`read_text`]).
    pub mmap: bool,
    /// Read every file as this format instead of detecting it from its
    /// content (`--format`).
    pub format: Option<Format>,
}

impl Options {
    /// What `neardup_extract` is told: the format, lossy decoding,
    /// `max_size` as the cap on a document's text and `max_expanded` on
    /// what its parts inflate to.
    pub fn extract(&self) -> neardup_extract::Options {
        neardup_extract::Options {
            format: self.format,
            lossy: self.lossy,
            limits: neardup_extract::Limits {
                max_size: self.max_size,
                max_expanded: self.max_expanded,
                ..neardup_extract::Limits::default()
            },
        }
    }
}

/// Whether `path` names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether `path` is a pipe (a FIFO, or `<(...)` in a shell): it can be
/// read once, like standard input.
pub fn is_pipe(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo()) {
            return true;
        }
    }
    let _ = path;
    false
}

/// How a path is shown in messages and JSON output.
pub fn display_name(path: &Path) -> String {
    path.display().to_string()
}

/// Standard input can be read only once: refuse a second `-` up front,
/// before anything is read or printed.
pub fn at_most_one_stdin<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<()> {
    if paths.into_iter().filter(|p| is_stdin(p)).count() > 1 {
        return Err(Error::Refused(
            "standard input ('-') can be given only once".into(),
        ));
    }
    Ok(())
}

/// Reads the whole of `path` (or stdin) as bytes, refusing directories and
/// anything over `max_size` before reading it. `limit` names the cap in
/// messages (`the --max-size limit`).
pub fn read_bytes(path: &Path, max_size: u64, limit: &str) -> Result<Vec<u8>> {
    let name = display_name(path);
    let too_big = |size: u64| {
        Error::Refused(format!(
            "'{name}' is {size} bytes, over {limit} of {max_size} bytes"
        ))
    };
    let mut bytes = Vec::new();
    if is_stdin(path) {
        io::stdin()
            .lock()
            .take(max_size.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("-", &e))?;
        if bytes.len() as u64 > max_size {
            return Err(Error::Refused(format!(
                "standard input is over {limit} of {max_size} bytes"
            )));
        }
        return Ok(bytes);
    }
    let open_err = |e: io::Error| Error::io(&name, &e);
    let meta = std::fs::metadata(path).map_err(open_err)?;
    if meta.is_dir() {
        return Err(Error::read(&name, "it is a directory, not a file"));
    }
    if meta.len() > max_size {
        return Err(too_big(meta.len()));
    }
    let file = File::open(path).map_err(open_err)?;
    // Room for the whole file up front (and the byte that tells a file
    // that grew): no copies while the buffer grows.
    bytes.reserve_exact(meta.len() as usize + 1);
    // `take` also caps files that grow while we read them, and files whose
    // metadata has no size (pipes, /proc).
    file.take(max_size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(open_err)?;
    if bytes.len() as u64 > max_size {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`neardup::decode`], with the file named and the flag that helps.
pub fn decode(bytes: Vec<u8>, name: &str, lossy: bool) -> Result<String> {
    neardup::decode(bytes, lossy).map_err(|e| not_utf8(name, e))
}

/// A plain text's UTF-8 error, with the flag that reads it anyway.
fn not_utf8(name: &str, e: impl std::fmt::Display) -> Error {
    Error::read(
        name,
        format!("{e}; pass --lossy to replace invalid sequences"),
    )
}

/// A text read from a file, as a `&str`: owned, or mapped into memory
/// when the user asked for it.
pub enum Text {
    /// Read into memory.
    Owned(String),
    /// Checked to be UTF-8 when it was mapped.
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Text::Owned(text) => text,
            // SAFETY: `read_text` maps only what `neardup::utf8` accepted,
            // and only when the user promised (`--mmap`) that no other
            // process rewrites the file while it is read.
            #[allow(unsafe_code)]
            Text::Mapped(map) => unsafe { std::str::from_utf8_unchecked(map) },
        }
    }
}

/// A document read from a file: its text, the format it was read as, and
/// what the extractor warned about.
pub struct Document {
    /// The text that is compared (the extracted text of a document).
    pub text: Text,
    /// The format the file was read as.
    pub format: Format,
    /// The extractor's warnings, one line each (empty for plain text).
    pub warnings: Vec<String>,
}

impl Document {
    fn plain(text: Text) -> Document {
        Document {
            text,
            format: Format::Text,
            warnings: Vec::new(),
        }
    }
}

/// The text of `bytes`, a file called `name`: decoded if it is plain
/// text, extracted if it is a document (`neardup_extract` decides which).
pub fn extract(bytes: Vec<u8>, name: &str, opts: &Options) -> Result<Document> {
    let file = (name != "-").then_some(name);
    let got =
        neardup_extract::extract_owned(bytes, file, &opts.extract()).map_err(|e| match e {
            neardup_extract::Error::Text(e) => not_utf8(name, e),
            e => Error::read(name, e.to_string()),
        })?;
    Ok(Document {
        text: Text::Owned(got.text),
        format: got.format,
        warnings: got.warnings,
    })
}

/// The format `bytes` are read as: `--format`'s, else detected.
fn format_of(bytes: &[u8], name: &str, opts: &Options) -> Result<Format> {
    match opts.format {
        Some(format) => Ok(format),
        None => neardup_extract::format::detect(bytes, (name != "-").then_some(name))
            .map_err(|e| Error::read(name, e.to_string())),
    }
}

/// Files from this size on are mapped instead of read, with `--mmap`.
const MAP_FROM: u64 = 4 << 20;

/// Reads and decodes one text. By default it is read: a text is handed
/// to the core as `&str`, and a mapped file that another process rewrites
/// meanwhile could stop being UTF-8 under it, which is undefined
/// behaviour, not just a wrong answer. With [`Options::mmap`] a large
/// regular file is mapped, as b3sum and ripgrep's `--mmap` map theirs:
/// reading copies it into fresh memory, a page fault per 4 KiB, about a
/// tenth of the time `neardup sign` takes on a 100 MB text.
pub fn read_text(path: &Path, opts: &Options) -> Result<Text> {
    read_document(path, opts).map(|d| d.text)
}

/// Reads one file as a document: [`read_text`] for plain text, and the
/// extracted text of a document file ([`extract`]).
pub fn read_document(path: &Path, opts: &Options) -> Result<Document> {
    let name = display_name(path);
    let meta = (opts.mmap && !is_stdin(path))
        .then(|| std::fs::metadata(path).ok())
        .flatten();
    if let Some(meta) =
        meta.filter(|m| m.is_file() && (MAP_FROM..=opts.max_size).contains(&m.len()))
    {
        let open_err = |e: io::Error| Error::io(&name, &e);
        let file = File::open(path).map_err(open_err)?;
        // SAFETY: the map is only read, and the user promised that no
        // other process changes the file meanwhile (see `Text::Mapped`).
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) }.map_err(open_err)?;
        if map.len() as u64 == meta.len() {
            let format = format_of(&map, &name, opts)?;
            return match neardup::utf8(&map) {
                Ok(_) if format == Format::Text => Ok(Document::plain(Text::Mapped(map))),
                // Refused, replaced with --lossy, or extracted, as a read
                // file is.
                _ => extract(
                    map.to_vec(),
                    &name,
                    &Options {
                        format: Some(format),
                        ..*opts
                    },
                ),
            };
        }
        // The file changed since its size was read: reading it checks
        // the size again.
    }
    let bytes = read_bytes(path, opts.max_size, "the --max-size limit")?;
    extract(bytes, &name, opts)
}
