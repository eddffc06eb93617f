//! Signing documents in batches: the fast path from texts to fingerprints.

use crate::distinct::{self, Distinct, Large};
use crate::shingle::shingle_count;
use crate::signature::Minimum;
use crate::{Backend, Digest, Fingerprint, Params, ShingleSet, Signature};

/// Signs documents, many at a time, into the [`Fingerprint`]s that
/// [`Fingerprint::of_with`] gives one by one.
///
/// A `Signer` keeps its buffers (the normalized texts, the shingles' spans
/// and keys, the distinct set's table) from one document to the next, and
/// hashes the shingles of many small documents in one call to the
/// backend, so that a 40-word document still fills the 16 lanes of the
/// AVX-512 SHA-256 instead of leaving most of them idle; their normalized
/// texts are hashed together too, side by side where the CPU allows. A
/// document with more than [`Signer::LARGE`] shingles is signed on its
/// own, in bounded memory, as [`ShingleSet`] does.
///
/// ```
/// use neardup::{Backend, Fingerprint, Params, Signer};
/// let texts = ["one two three four five six", "too short", "one two three four five six"];
/// let mut signer = Signer::new(Params::DEFAULT, Backend::detect());
/// let fps = signer.sign_all(texts);
/// assert_eq!(fps.len(), 3);
/// assert_eq!(fps[0], Fingerprint::of(texts[0], Params::DEFAULT));
/// assert!(fps[1].signature.is_none());
/// assert_eq!(fps[0], fps[2]);
/// ```
#[derive(Debug, Clone)]
pub struct Signer {
    params: Params,
    backend: Backend,
    /// The normalized texts of the documents waiting, one after the other.
    normalized: Vec<u8>,
    /// The shingles of the documents waiting, as spans of `normalized`.
    spans: Vec<(usize, usize)>,
    /// The documents waiting: their normalized text in `normalized`...
    texts: Vec<(usize, usize)>,
    /// ... and where their spans end.
    ends: Vec<usize>,
    digests: Vec<Digest>,
    /// The positions of one document's spaces.
    spaces: Vec<u32>,
    keys: Vec<u64>,
    distinct: Distinct,
    first: Vec<u32>,
    hashes: Vec<u32>,
    /// With [`Signer::keeping_keys`], each signed document's distinct
    /// shingle keys, in the order `out` gets the fingerprints.
    kept: Option<Vec<Vec<u64>>>,
    /// Under the script rule: a waiting document's word text, built here
    /// before it replaces the normalized text in `normalized`...
    spaced: Vec<u8>,
    /// ... and that document's own digest, of the normalized text, by its
    /// place among the waiting documents.
    own: Vec<(usize, Digest)>,
}

/// The documents waiting are hashed once they hold this many shingles:
/// enough to keep the lanes full, few enough that the batch stays in cache.
const BATCH: usize = 1 << 13;

/// Shingle `j` of a text of `len` bytes whose spaces from space `held` on
/// are at `spaces`: from the start of word `j` (after space `j - 1`) to the
/// end of word `j + k - 1` (at space `j + k - 1`, or the text's end).
fn shingle_span(spaces: &[u32], held: usize, len: usize, j: usize, k: usize) -> (usize, usize) {
    let start = if j == 0 {
        0
    } else {
        spaces[j - 1 - held] as usize + 1
    };
    let end = spaces.get(j + k - 1 - held).map_or(len, |&s| s as usize);
    (start, end)
}

impl Signer {
    /// A document with more shingles than this is signed on its own.
    pub const LARGE: usize = 1 << 15;

    /// A signer for `params` on `backend`.
    pub fn new(params: Params, backend: Backend) -> Signer {
        Signer {
            params,
            backend,
            normalized: Vec::new(),
            spans: Vec::new(),
            texts: Vec::new(),
            ends: Vec::new(),
            digests: Vec::new(),
            spaces: Vec::new(),
            keys: Vec::new(),
            distinct: Distinct::default(),
            first: Vec::new(),
            hashes: Vec::new(),
            kept: None,
            spaced: Vec::new(),
            own: Vec::new(),
        }
    }

    /// A signer that also keeps each document's distinct shingle keys
    /// ([`ShingleSet::keys`]), for [`Signer::sign_all_with_keys`]: what a
    /// scan for containment intersects.
    pub fn keeping_keys(mut self) -> Signer {
        self.kept = Some(Vec::new());
        self
    }

    /// The fingerprints of `texts` with each one's distinct shingle keys,
    /// in no set order (sorting them was a tenth of a containment scan);
    /// keys are empty unless the signer is [`Signer::keeping_keys`].
    ///
    /// ```
    /// use neardup::{Backend, Params, ShingleSet, Signer};
    /// let mut signer = Signer::new(Params::DEFAULT, Backend::detect()).keeping_keys();
    /// let text = "one two three four five six seven one two three four five";
    /// let [(fp, mut keys)] = signer.sign_all_with_keys([text]).try_into().unwrap();
    /// keys.sort_unstable();
    /// assert_eq!(keys, ShingleSet::new(&neardup::normalize(text), 5).keys());
    /// assert_eq!(keys.len() as u64, fp.shingles);
    /// ```
    pub fn sign_all_with_keys<'t>(
        &mut self,
        texts: impl IntoIterator<Item = &'t str>,
    ) -> Vec<(Fingerprint, Vec<u64>)> {
        let fps = self.sign_all(texts);
        let mut keys = self.kept.as_mut().map(std::mem::take).unwrap_or_default();
        keys.resize(fps.len(), Vec::new());
        fps.into_iter().zip(keys).collect()
    }

    /// The fingerprint of one text: [`Fingerprint::of_with`].
    pub fn sign(&mut self, text: &str) -> Fingerprint {
        let mut out = Vec::with_capacity(1);
        self.push(text, &mut out);
        self.flush(&mut out);
        out.pop().expect("one text signed")
    }

    /// The fingerprints of `texts`, in order.
    pub fn sign_all<'t>(&mut self, texts: impl IntoIterator<Item = &'t str>) -> Vec<Fingerprint> {
        let mut out = Vec::new();
        for text in texts {
            self.push(text, &mut out);
        }
        self.flush(&mut out);
        out
    }

    /// Normalizes `text` and queues its shingles; signs what is queued once
    /// there is enough of it. Fingerprints go to `out` in input order.
    fn push(&mut self, text: &str, out: &mut Vec<Fingerprint>) {
        let start = self.normalized.len();
        self.backend.normalize_into(text, &mut self.normalized);
        // Under the script rule, the word text takes the normalized text's
        // place, and the digest of the normalized text is kept aside.
        self.spaced.clear();
        let own = (self.params.words())
            .write_word_text(&self.normalized[start..], &mut self.spaced)
            .then(|| {
                let digest = Digest::of(&self.normalized[start..]);
                self.normalized.truncate(start);
                self.normalized.extend_from_slice(&self.spaced);
                digest
            });
        let normalized = &self.normalized[start..];
        let k = self.params.k();
        // More than LARGE shingles needs more than LARGE one-byte words
        // with their spaces, so shorter texts need not be counted.
        let large = (normalized.len() > 2 * Signer::LARGE)
            .then(|| shingle_count(normalized, k))
            .filter(|&total| total > Signer::LARGE);
        if let Some(total) = large {
            // Whatever waits comes first, to keep the order; the large
            // text stays where it is (moving it would copy it whole).
            self.sign_waiting(out);
            if let Some(kept) = &mut self.kept {
                // A large text's set is built whole once more for its
                // keys: rare (over `LARGE` shingles), and only for them.
                let normalized = std::str::from_utf8(&self.normalized[start..]);
                let set = ShingleSet::with_backend(normalized.unwrap_or_default(), k, self.backend);
                kept.push(set.keys());
            }
            let (shingles, signature) = self.sign_large(start, total);
            out.push(Fingerprint {
                params: self.params,
                normalized_sha256: own.unwrap_or_else(|| Digest::of(&self.normalized[start..])),
                shingles,
                signature,
            });
            self.normalized.clear();
            return;
        }
        self.spaces.clear();
        self.backend.spaces(normalized, &mut self.spaces);
        let len = normalized.len();
        let words = if len == 0 { 0 } else { self.spaces.len() + 1 };
        if words >= k {
            let spaces = &self.spaces;
            let shingles = (0..=words - k).map(|j| {
                let (s, e) = shingle_span(spaces, 0, len, j, k);
                (start + s, start + e)
            });
            self.spans.extend(shingles);
        }
        if let Some(digest) = own {
            self.own.push((self.texts.len(), digest));
        }
        self.texts.push((start, start + len));
        self.ends.push(self.spans.len());
        if self.spans.len() >= BATCH {
            self.flush(out);
        }
    }

    /// The distinct shingle count and signature of the one document in
    /// `normalized` from `start` on, a large one of `total` shingles: its
    /// shingles are hashed a chunk at a time and inserted, in text order,
    /// into one [`Large`] set, so memory grows with the distinct shingles
    /// and the text is read in order. Its spaces are found, and its new
    /// hashes folded into the signature, a chunk at a time too: arrays of
    /// them all would be tens of megabytes, each page a fault.
    fn sign_large(&mut self, start: usize, total: usize) -> (u64, Option<Signature>) {
        const CHUNK: usize = 1 << 12;
        /// Text scanned for spaces at a time.
        const PIECE: usize = 1 << 16;
        let (k, text) = (self.params.k(), &self.normalized[start..]);
        let fallback = |text: &[u8]| {
            let normalized = std::str::from_utf8(text).unwrap_or_default();
            let set = ShingleSet::with_backend(normalized, k, self.backend);
            let signature =
                Signature::from_base_hashes_with(&set.base_hashes(), self.params, self.backend);
            (set.len() as u64, signature)
        };
        // Word positions and the set's starts are u32s; longer texts
        // (never seen) take the path that needs no positions.
        if text.len() > u32::MAX as usize {
            return fallback(text);
        }
        let mut set = Large::new(total);
        let mut minimum = Minimum::new(self.params, self.backend);
        // `spaces` holds the positions of spaces `held..`, of the text
        // before `scanned`.
        let (mut held, mut scanned) = (0, 0);
        self.spaces.clear();
        self.hashes.clear();
        for first in (0..total).step_by(CHUNK) {
            let end = (first + CHUNK).min(total);
            // The chunk's shingles need spaces `first - 1 ..= end + k - 2`.
            let drop = first.saturating_sub(1) - held;
            self.spaces.drain(..drop);
            held += drop;
            while held + self.spaces.len() < end + k - 1 && scanned < text.len() {
                let to = (scanned + PIECE).min(text.len());
                let from = self.spaces.len();
                self.backend.spaces(&text[scanned..to], &mut self.spaces);
                for at in &mut self.spaces[from..] {
                    *at += scanned as u32;
                }
                scanned = to;
            }
            let (spaces, len) = (&self.spaces, text.len());
            self.spans.clear();
            self.spans
                .extend((first..end).map(|j| shingle_span(spaces, held, len, j, k)));
            self.keys.clear();
            self.backend.keys(text, &self.spans, &mut self.keys);
            set.insert(text, first, &self.spans, &self.keys, &mut self.hashes);
            if self.hashes.len() >= 1 << 16 {
                minimum.add(&self.hashes);
                self.hashes.clear();
            }
        }
        minimum.add(&self.hashes);
        self.spans.clear();
        match set.finish(text) {
            Some(distinct) => (distinct as u64, minimum.finish()),
            // Two different shingles share a 64-bit key: start over,
            // comparing strings.
            None => fallback(text),
        }
    }

    /// Signs every document waiting, and frees their texts.
    fn flush(&mut self, out: &mut Vec<Fingerprint>) {
        self.sign_waiting(out);
        self.normalized.clear();
    }

    /// Signs every document waiting, leaving `normalized` as it is.
    fn sign_waiting(&mut self, out: &mut Vec<Fingerprint>) {
        self.keys.clear();
        self.backend
            .keys(&self.normalized, &self.spans, &mut self.keys);
        // The normalized texts are hashed together, several at a time.
        self.digests.clear();
        self.backend
            .digests(&self.normalized, &self.texts, &mut self.digests);
        for (i, digest) in self.own.drain(..) {
            self.digests[i] = digest;
        }
        let mut from = 0;
        for (&digest, &to) in self.digests.iter().zip(&self.ends) {
            let (keys, spans) = (&self.keys[from..to], &self.spans[from..to]);
            let text = |i: usize| {
                let (s, e) = spans[i];
                &self.normalized[s..e]
            };
            self.first.clear();
            self.distinct.find(keys, &mut self.first);
            let claims = self.distinct.claims();
            let collided = !claims
                .iter()
                .all(|&(a, b)| text(a as usize) == text(b as usize));
            if collided {
                // Two different shingles share a 64-bit key (never seen,
                // but possible): redo the document comparing strings.
                self.first.clear();
                let text = |i: usize| std::str::from_utf8(text(i)).unwrap_or_default();
                distinct::exact(keys, text, &mut self.first);
            }
            self.hashes.clear();
            self.hashes
                .extend(self.first.iter().map(|&i| (keys[i as usize] >> 32) as u32));
            if let Some(kept) = &mut self.kept {
                let mut mine: Vec<u64> = self.first.iter().map(|&i| keys[i as usize]).collect();
                // Distinct keys, but when two shingles share one.
                if collided {
                    mine.sort_unstable();
                    mine.dedup();
                }
                kept.push(mine);
            }
            out.push(Fingerprint {
                params: self.params,
                normalized_sha256: digest,
                shingles: self.hashes.len() as u64,
                signature: Signature::from_base_hashes_with(
                    &self.hashes,
                    self.params,
                    self.backend,
                ),
            });
            from = to;
        }
        self.texts.clear();
        self.ends.clear();
        self.spans.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Doc;

    /// Passages of a few dozen words copied again and again, each copy
    /// with a word or two changed, some words a prefix of others: runs of
    /// claims that break and start again at every distance.
    fn edited_copies() -> String {
        let words = ["a", "ab", "abc", "b", "ba", "c", "cab", "d", "é", "éa"];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let passages: Vec<Vec<&str>> = (0..20)
            .map(|_| {
                (0..20 + next(40))
                    .map(|_| words[next(words.len())])
                    .collect()
            })
            .collect();
        let mut out = Vec::new();
        while out.len() < Signer::LARGE + 10_000 {
            let mut copy = passages[next(passages.len())].clone();
            for _ in 0..next(3) {
                let at = next(copy.len());
                copy[at] = words[next(words.len())];
            }
            out.extend(copy);
        }
        out.join(" ")
    }

    /// Under the script rule the word text replaces the normalized text in
    /// the batch, small and large documents alike; the digest stays the
    /// normalized text's.
    #[test]
    fn script_words_small_and_large() {
        let han: Vec<char> = ('\u{4e00}'..='\u{56b7}').collect();
        let big: String = (0..Signer::LARGE + 2_000)
            .map(|i| han[(i * 7919) % han.len()])
            .collect();
        let texts = [
            "中文文本 mixed with words 和汉字".to_owned(),
            big,
            "plain latin text only here".to_owned(),
            "".to_owned(),
            "ภาษาไทยไม่มีช่องว่าง".to_owned(),
        ];
        let p = Params::DEFAULT.with_words(crate::WordRule::Script);
        for backend in Backend::supported() {
            let mut signer = Signer::new(p, backend).keeping_keys();
            let got = signer.sign_all_with_keys(texts.iter().map(String::as_str));
            for ((fp, mut keys), text) in got.into_iter().zip(&texts) {
                let doc = Doc::with_backend(text, p, Backend::portable());
                assert_eq!(&fp, doc.fingerprint(), "{backend:?}");
                assert_eq!(
                    fp.normalized_sha256,
                    Digest::of(crate::normalize(text).as_bytes())
                );
                keys.sort_unstable();
                assert_eq!(keys, doc.shingles().keys());
            }
        }
        let space = Signer::new(Params::DEFAULT, Backend::detect()).sign(&texts[1]);
        assert_eq!(space.shingles, 0, "one long word without script words");
    }

    /// Documents over [`Signer::LARGE`] shingles take their own path in the
    /// middle of a batch; the order and every fingerprint must hold.
    #[test]
    fn large_documents_among_small_ones() {
        let big = |seed: usize| -> String {
            (0..Signer::LARGE + 500)
                .map(|i| format!("w{}", (i * seed) % 9_973))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let texts = [
            "one two three four five six".to_owned(),
            big(7),
            "".to_owned(),
            "a b c d e f g".repeat(50),
            big(13),
            // More distinct shingles than the large path holds hashes for
            // at once.
            (0..70_000)
                .map(|i| format!("d{i}"))
                .collect::<Vec<_>>()
                .join(" "),
            "Σ too short".to_owned(),
            edited_copies(),
        ];
        for backend in Backend::supported() {
            let p = Params::DEFAULT;
            let got = Signer::new(p, backend).sign_all(texts.iter().map(String::as_str));
            let want: Vec<Fingerprint> = texts
                .iter()
                .map(|t| {
                    Doc::with_backend(t, p, Backend::portable())
                        .fingerprint()
                        .clone()
                })
                .collect();
            assert_eq!(got, want, "{backend:?}");
            let mut keeping = Signer::new(p, backend).keeping_keys();
            let with_keys = keeping.sign_all_with_keys(texts.iter().map(String::as_str));
            for ((fp, mut keys), text) in with_keys.into_iter().zip(&texts) {
                keys.sort_unstable();
                let normalized = crate::normalize(text);
                assert_eq!(keys, ShingleSet::new(&normalized, p.k()).keys());
                assert_eq!(keys.len() as u64, fp.shingles);
            }
        }
    }
}
