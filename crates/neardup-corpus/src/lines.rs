//! JSONL bytes cut into numbered lines, in bounded batches: read from a
//! stream ([`Batches`]) or cut where they lie in memory ([`Slices`]), the
//! same lines either way. Blank lines are skipped; a line over the cap is
//! an error as soon as its first bytes over it are seen.

use std::borrow::Cow;
use std::io::Read;

/// One input line, not yet parsed: parsing happens on the worker threads.
/// Its bytes (the newline included, when it has one) lie in its [`Batch`].
#[derive(Clone, Copy)]
pub struct Line<'b> {
    /// 1-based line number, for error messages.
    pub number: u64,
    /// The line's bytes, its newline included when it has one.
    pub bytes: &'b [u8],
}

/// Whole lines read together into one buffer, and where each one lies in
/// it. One buffer per batch, instead of one per line, spares the reader
/// thread a copy and an allocation per line (it is a third of the work
/// beside two signing threads), and a used buffer can be handed back
/// ([`Batches::recycle`]) instead of faulting in fresh pages. A batch of a
/// mapped file ([`Slices`]) borrows its bytes and copies nothing.
pub struct Batch<'m> {
    bytes: Cow<'m, [u8]>,
    /// Each kept line's number and `start..end` in `bytes`.
    lines: Vec<(u64, usize, usize)>,
}

impl<'m> Batch<'m> {
    /// The batch's lines, in order.
    pub fn lines(&self) -> impl ExactSizeIterator<Item = Line<'_>> {
        self.lines.iter().map(|&(number, start, end)| Line {
            number,
            bytes: &self.bytes[start..end],
        })
    }

    /// The bytes the lines lie in: a buffer to read into again, or the
    /// part of a mapped file they were cut from.
    pub fn into_bytes(self) -> Cow<'m, [u8]> {
        self.bytes
    }
}

/// What ended [`Cutter::take`].
enum Cut {
    /// The lines taken reach the batch size.
    Full,
    /// The next line goes on past the bytes there are: read more.
    More,
    /// No bytes are left.
    End,
}

/// Cuts bytes into numbered lines, skipping blank ones and refusing one
/// over the cap: the part of reading JSONL that is the same whether the
/// bytes are read ([`Batches`]) or mapped ([`Slices`]).
struct Cutter {
    number: u64,
    max_line: u64,
}

impl Cutter {
    fn over(&self, number: u64) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "line {number} is over the --max-size limit of {} bytes",
                self.max_line
            ),
        )
    }

    /// Takes the lines of `bytes` from `*at` on into `lines` (as `(number,
    /// start, end)`, blank ones skipped) until their bytes, counted in
    /// `size`, reach `want`. `eof` says that no bytes follow `bytes`, so
    /// that a last line without its newline is a line. A line over the cap
    /// is an error as soon as its first `max_line + 1` bytes are there.
    fn take(
        &mut self,
        bytes: &[u8],
        at: &mut usize,
        eof: bool,
        want: usize,
        size: &mut usize,
        lines: &mut Vec<(u64, usize, usize)>,
    ) -> std::io::Result<Cut> {
        // A line is searched for its newline no further than its cap: a
        // mapped file of one huge line is refused without reading it all.
        let cap = usize::try_from(self.max_line.saturating_add(1)).unwrap_or(usize::MAX);
        while *size < want {
            let rest = &bytes[*at..];
            let seen = &rest[..rest.len().min(cap)];
            let end = match memchr::memchr(b'\n', seen) {
                Some(i) => *at + i + 1,
                None if seen.len() < rest.len() => return Err(self.over(self.number + 1)),
                None if eof => bytes.len(),
                None => return Ok(Cut::More),
            };
            if end == *at {
                return Ok(Cut::End);
            }
            self.number += 1;
            let line = &bytes[*at..end];
            let len = line.len() as u64 - u64::from(line.last() == Some(&b'\n'));
            if len > self.max_line {
                return Err(self.over(self.number));
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                *size += line.len();
                lines.push((self.number, *at, end));
            }
            *at = end;
        }
        Ok(Cut::Full)
    }
}

/// How a stream of batches ends: an error found after the lines of a
/// batch comes on the next call, and after it nothing.
#[derive(Default)]
struct Ending {
    error: Option<std::io::Error>,
    done: bool,
}

impl Ending {
    /// What `next` returns without cutting more, if anything: the error
    /// waiting, or the end.
    fn waiting<T>(&mut self) -> Option<Option<std::io::Result<T>>> {
        if let Some(e) = self.error.take() {
            self.done = true;
            return Some(Some(Err(e)));
        }
        self.done.then_some(None)
    }

    /// The batch of `lines` in `bytes`; when there are none, the end, or
    /// the error that came before any line.
    fn batch<'m>(
        &mut self,
        bytes: Cow<'m, [u8]>,
        lines: Vec<(u64, usize, usize)>,
    ) -> Option<std::io::Result<Batch<'m>>> {
        if lines.is_empty() {
            self.done = true;
            return self.error.take().map(Err);
        }
        Some(Ok(Batch { bytes, lines }))
    }
}

/// Splits a reader into batches of whole lines, each of at least
/// `batch_bytes` (or the rest of the input). Blank lines are skipped. Memory
/// is bounded by the batch size plus the longest line, which
/// [`Batches::max_line`] caps.
pub struct Batches<R> {
    reader: R,
    cutter: Cutter,
    batch_bytes: usize,
    /// Bytes read past the end of the last batch: the start of a line.
    rest: Vec<u8>,
    /// Emptied buffers to read into.
    spare: Vec<Vec<u8>>,
    ending: Ending,
    eof: bool,
}

impl<R: Read> Batches<R> {
    /// Batches of `reader`'s lines of at least `batch_bytes` each.
    pub fn new(reader: R, batch_bytes: usize) -> Batches<R> {
        Batches {
            reader,
            cutter: Cutter {
                number: 0,
                max_line: u64::MAX,
            },
            batch_bytes,
            rest: Vec::new(),
            spare: Vec::new(),
            ending: Ending::default(),
            eof: false,
        }
    }

    /// Refuses a line of more than `max` bytes (its newline not counted)
    /// once `max + 1` of them are read, so that one huge line cannot take
    /// all memory: the `--max-size` of a JSONL input.
    pub fn max_line(mut self, max: u64) -> Batches<R> {
        self.cutter.max_line = max;
        self
    }

    /// Gives back a batch's buffer for a later batch to read into.
    pub fn recycle(&mut self, mut buffer: Vec<u8>) {
        buffer.clear();
        self.spare.push(buffer);
    }

    /// Appends up to `want` more bytes of input to `bytes`, noting the end.
    fn fill(&mut self, bytes: &mut Vec<u8>, want: usize) -> std::io::Result<()> {
        bytes.reserve(want);
        let got = (&mut self.reader).take(want as u64).read_to_end(bytes)?;
        self.eof = got == 0;
        Ok(())
    }
}

impl<R: Read> Iterator for Batches<R> {
    type Item = std::io::Result<Batch<'static>>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(item) = self.ending.waiting() {
            return item;
        }
        let mut bytes = self.spare.pop().unwrap_or_default();
        bytes.append(&mut self.rest);
        let (mut lines, mut size, mut at, mut filled) = (Vec::new(), 0, 0, false);
        loop {
            let cut = self.cutter.take(
                &bytes,
                &mut at,
                self.eof,
                self.batch_bytes,
                &mut size,
                &mut lines,
            );
            match cut {
                Ok(Cut::Full) => break,
                Ok(Cut::End) => {
                    self.ending.done = true;
                    break;
                }
                Err(e) => {
                    self.ending.error = Some(e);
                    break;
                }
                Ok(Cut::More) => {
                    // A batch's worth at first; after that, as much as the
                    // line so far, so that the bytes read past the batch
                    // (copied to the next one) stay few.
                    let want = match filled {
                        false => self.batch_bytes.saturating_sub(bytes.len()),
                        true => bytes.len() - at,
                    };
                    filled = true;
                    if let Err(e) = self.fill(&mut bytes, want.max(1 << 16)) {
                        self.ending.error = Some(e);
                        break;
                    }
                }
            }
        }
        self.rest.extend_from_slice(&bytes[at..]);
        bytes.truncate(at);
        self.ending.batch(Cow::Owned(bytes), lines)
    }
}

/// [`Batches`] of bytes already in memory (a mapped file): each batch
/// borrows its lines where they lie.
pub struct Slices<'m> {
    bytes: &'m [u8],
    cutter: Cutter,
    batch_bytes: usize,
    ending: Ending,
}

impl<'m> Slices<'m> {
    /// Batches of `bytes`, cut as [`Batches::new`] and
    /// [`Batches::max_line`] cut a reader's.
    pub fn new(bytes: &'m [u8], batch_bytes: usize, max_line: u64) -> Slices<'m> {
        Slices {
            bytes,
            cutter: Cutter {
                number: 0,
                max_line,
            },
            batch_bytes,
            ending: Ending::default(),
        }
    }
}

impl<'m> Iterator for Slices<'m> {
    type Item = std::io::Result<Batch<'m>>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(item) = self.ending.waiting() {
            return item;
        }
        let (mut lines, mut size, mut at) = (Vec::new(), 0, 0);
        let want = self.batch_bytes;
        match self
            .cutter
            .take(self.bytes, &mut at, true, want, &mut size, &mut lines)
        {
            Ok(Cut::Full) => {}
            // Nothing follows the bytes, so no line waits for more.
            Ok(Cut::End | Cut::More) => self.ending.done = true,
            Err(e) => self.ending.error = Some(e),
        }
        let (batch, rest) = self.bytes.split_at(at);
        self.bytes = rest;
        self.ending.batch(Cow::Borrowed(batch), lines)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_keep_line_numbers() {
        let input = b"a\n\n  \nb\nc";
        let batches: Vec<Batch> = Batches::new(&input[..], 3).map(Result::unwrap).collect();
        let numbers: Vec<Vec<u64>> = batches
            .iter()
            .map(|b| b.lines().map(|l| l.number).collect())
            .collect();
        assert_eq!(numbers, [vec![1, 4], vec![5]]);
    }

    /// A mapped file is cut into the lines a read one is, errors included.
    #[test]
    fn slices_cut_as_batches_do() {
        type Cut = Vec<Result<Vec<(u64, Vec<u8>)>, String>>;
        fn cuts<'b>(batches: impl Iterator<Item = std::io::Result<Batch<'b>>>) -> Cut {
            let line = |l: Line<'_>| (l.number, l.bytes.to_vec());
            let batch = |b: Batch<'_>| b.lines().map(line).collect();
            batches
                .map(|b| b.map(batch).map_err(|e| e.to_string()))
                .collect()
        }
        let inputs: [&[u8]; 7] = [
            b"",
            b"\n\n",
            b"a\n\n  \nb\nc",
            b"abc\nabcd\nab\n",
            b"abcd",
            b"ab\r\n{}\n\t\nxyz\n",
            b"a\nbb\nccc\ndddd\neeeee",
        ];
        for input in inputs {
            for (size, max) in [(1, 3), (3, 3), (5, 4), (1 << 20, u64::MAX)] {
                let read = cuts(Batches::new(input, size).max_line(max));
                let mapped = cuts(Slices::new(input, size, max));
                assert_eq!(read, mapped, "{input:?} {size} {max}");
            }
        }
    }

    #[test]
    fn a_line_over_the_cap_stops_the_batches() {
        let lines = |input: &[u8], max| -> Vec<std::io::Result<Batch>> {
            Batches::new(input, 1).max_line(max).collect()
        };
        // Exactly the cap, with or without its newline, is fine.
        assert!(lines(b"abc\nabc\n", 3).iter().all(Result::is_ok));
        assert!(lines(b"abc\nabc", 3).iter().all(Result::is_ok));
        let got = lines(b"abc\nabcd\nab\n", 3);
        assert_eq!(got.len(), 2, "nothing after the long line");
        let first = got[0].as_ref().unwrap().lines().next().unwrap();
        assert_eq!(first.bytes, b"abc\n");
        let e = got[1].as_ref().err().unwrap().to_string();
        assert_eq!(e, "line 2 is over the --max-size limit of 3 bytes");
        assert!(lines(b"abcd", 3)[0].is_err());
    }
}
