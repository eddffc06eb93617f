//! Lowercase, then collapse whitespace (SPEC §1).

use crate::Backend;

/// The Unicode version whose character data (lowercase mappings, `Cased`,
/// `Case_Ignorable`) SPEC v1 pins.
pub const UNICODE_VERSION: (u8, u8, u8) = (17, 0, 0);

// We lowercase with the standard library, so its Unicode tables *are* our
// tables. A toolchain that ships any other version would silently change
// receipts; this makes such a toolchain fail the build instead.
const _: () = assert!(
    char::UNICODE_VERSION.0 == UNICODE_VERSION.0
        && char::UNICODE_VERSION.1 == UNICODE_VERSION.1
        && char::UNICODE_VERSION.2 == UNICODE_VERSION.2,
    "neardup pins Unicode 17.0.0 (SPEC §1); this toolchain's std uses another version"
);

/// Whether `c` is in SPEC §1's whitespace set, which is exactly ECMAScript's
/// `\s`.
///
/// This is deliberately not [`char::is_whitespace`]: that one includes
/// U+0085 and excludes U+FEFF.
///
/// ```
/// use neardup::normalize::is_whitespace;
/// assert!(is_whitespace('\u{feff}'));
/// assert!(!is_whitespace('\u{85}'));
/// ```
pub fn is_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// Normalizes `text` as SPEC §1 says: full Unicode lowercase of the whole
/// text (with Final_Sigma), then every whitespace run becomes one space, then
/// leading and trailing spaces go.
///
/// ```
/// use neardup::normalize;
/// assert_eq!(normalize("  Hello,\t\tWORLD \u{feff}"), "hello, world");
/// // Lowercasing sees the whole text, so U+FEFF (Case_Ignorable) hides the
/// // word end from the final-sigma rule, exactly as in JavaScript.
/// assert_eq!(normalize("ΑΣ\u{feff}Β"), "ασ β");
/// assert_eq!(normalize("ΑΣ Β"), "ας β");
/// ```
pub fn normalize(text: &str) -> String {
    normalize_with(text, Backend::detect())
}

/// [`normalize`] on a chosen backend (they differ only in speed).
pub fn normalize_with(text: &str, backend: Backend) -> String {
    let mut out = Vec::new();
    backend.normalize_into(text, &mut out);
    // Built from whole characters of a `str` only, so this never fails.
    String::from_utf8(out).unwrap_or_default()
}

/// Appends [`normalize`]`(text)` to `out`, taking the 64 bytes at a time
/// that `ascii` handles (see [`AsciiBlock`]) and everything else one
/// character, or eight ASCII bytes, at a time. Backends with a vector
/// instruction set pass their `ascii`; the portable one passes
/// [`no_ascii_block`].
///
/// `inline(always)`, so that each backend's copy is compiled with its
/// target features.
#[inline(always)]
pub(crate) fn normalize_into_with(text: &str, out: &mut Vec<u8>, ascii: impl AsciiBlock) {
    // The order is normative: lowercase first, on the whole text, because
    // the Final_Sigma rule looks across characters that the whitespace
    // collapse removes. The fused pass keeps that order (see `sigma`); when
    // it cannot, the two steps run one after the other.
    let start = out.len();
    if fused(text, out, ascii).is_none() {
        out.truncate(start);
        out.extend_from_slice(collapse(&text.to_lowercase()).as_bytes());
    }
}

/// A backend's step over 64 bytes of ASCII: given the bytes and whether
/// the byte before them was whitespace, writes their lowercase with every
/// whitespace run made one space (the first byte dropped if it is
/// whitespace after whitespace) to the start of `out`, and returns how many
/// bytes that is and whether the last byte was whitespace. It may write
/// all 64 bytes of `out`. `None`, having written nothing that counts, when
/// a byte is not ASCII.
pub(crate) trait AsciiBlock:
    Fn(&[u8; 64], &mut [u8; 64], bool) -> Option<(usize, bool)>
{
}

impl<F: Fn(&[u8; 64], &mut [u8; 64], bool) -> Option<(usize, bool)>> AsciiBlock for F {}

/// The portable backend's [`AsciiBlock`]: none, so that its eight-byte
/// steps do all the ASCII.
#[inline(always)]
pub(crate) fn no_ascii_block(_: &[u8; 64], _: &mut [u8; 64], _: bool) -> Option<(usize, bool)> {
    None
}

/// Lowercase and collapse in one pass: every character but `Σ` lowercases
/// on its own (exactly as `str::to_lowercase` maps it), and lowercasing
/// never turns a non-whitespace character into whitespace or back (a test
/// checks every code point), so the steps fuse. `None` when a `Σ` has too
/// little ASCII whitespace around it for [`sigma`] to decide locally.
///
/// Blocks of 64 ASCII bytes go to `ascii`. A block that is not all ASCII,
/// and the text's tail, go eight bytes at a time where those are ASCII,
/// without branches: every byte is written (whitespace as a space), and
/// the write position advances unless the byte is whitespace following
/// whitespace (branching per byte would mispredict at every word
/// boundary); and one character at a time elsewhere.
#[inline(always)]
fn fused(text: &str, out: &mut Vec<u8>, ascii: impl AsciiBlock) -> Option<()> {
    let bytes = text.as_bytes();
    // The invariant every write relies on: room for the rest of the input
    // byte for byte, plus 16. The ASCII paths keep it (one byte out per
    // byte in, at most); lowercasing can grow a character (Ⱥ is 2 bytes,
    // ⱥ is 3), so the slow path restores it after each character.
    let start = out.len();
    out.resize(start + bytes.len() + 16, 0);
    let mut o = start;
    // Starting "after a space" drops leading whitespace.
    let mut after_space = true;
    let mut i = 0;
    // Bytes before this go the slow way: their block was not all ASCII.
    let mut slow_until = 0;
    while i < bytes.len() {
        if i >= slow_until {
            if let Some(block) = bytes.get(i..i + 64) {
                let block = <&[u8; 64]>::try_from(block);
                let to = <&mut [u8; 64]>::try_from(&mut out[o..o + 64]);
                if let (Ok(block), Ok(to)) = (block, to) {
                    if let Some((written, space)) = ascii(block, to, after_space) {
                        o += written;
                        after_space = space;
                        i += 64;
                        continue;
                    }
                }
                slow_until = i + 64;
            }
        }
        if let Some(chunk) = bytes.get(i..i + 8) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0x80; 8]));
            if word & HIGH == 0 {
                // All ASCII. Without two whitespace bytes in a row (the
                // common case) all eight bytes are written at once.
                let (lowered, space) = swar_lower(word);
                let before = space << 8 | u64::from(after_space) << 7;
                if space & before == 0 {
                    out[o..o + 8].copy_from_slice(&lowered.to_le_bytes());
                    o += 8;
                    after_space = space >> 63 != 0;
                    i += 8;
                    continue;
                }
                for &b in chunk {
                    let space = matches!(b, b'\t'..=b'\r' | b' ');
                    out[o] = if space { b' ' } else { b.to_ascii_lowercase() };
                    o += usize::from(!(space && after_space));
                    after_space = space;
                }
                i += 8;
                continue;
            }
        }
        let c = text[i..].chars().next().unwrap_or('\u{fffd}');
        i += c.len_utf8();
        if out.len() < o + 16 + (bytes.len() - i) {
            out.resize(o + 16 + (bytes.len() - i), 0);
        }
        if c.is_ascii() || is_whitespace(c) {
            let space = is_whitespace(c);
            out[o] = if space {
                b' '
            } else {
                c.to_ascii_lowercase() as u8
            };
            o += usize::from(!(space && after_space));
            after_space = space;
            continue;
        }
        after_space = false;
        if c == 'Σ' {
            o += sigma(text, i - c.len_utf8())?
                .encode_utf8(&mut out[o..])
                .len();
            continue;
        }
        for lower in c.to_lowercase() {
            o += lower.encode_utf8(&mut out[o..]).len();
        }
    }
    // At most one space can trail.
    if o > start && out[o - 1] == b' ' {
        o -= 1;
    }
    out.truncate(o);
    Some(())
}

/// The top bit of every byte of a word.
const HIGH: u64 = 0x8080_8080_8080_8080;
/// 1 in every byte of a word.
const ONES: u64 = 0x0101_0101_0101_0101;

/// Eight ASCII bytes at once (SWAR): their lowercase with every whitespace
/// byte made a space, and the whitespace bytes' mask (0x80 in each).
/// Byte `b < 0x80` plus `0x80 - lo` has its top bit set exactly when
/// `b >= lo`, and no sum carries into the next byte.
fn swar_lower(x: u64) -> (u64, u64) {
    let at_least = |lo: u64| x + (0x80 - lo) * ONES;
    let upper = at_least(0x41) & !at_least(0x5b) & HIGH;
    let control_space = at_least(0x09) & !at_least(0x0e) & HIGH;
    let y = x ^ (0x20 * ONES);
    let blank = !(((y & !HIGH) + !HIGH) | y) & HIGH;
    let space = control_space | blank;
    let fill = (space >> 7) * 0xff;
    let lowered = ((x | (upper >> 2)) & !fill) | ((0x20 * ONES) & fill);
    (lowered, space)
}

/// The lowercase of the `Σ` at byte `at`: `ς` or `σ` by the Final_Sigma
/// rule, decided on a window of the text instead of all of it.
///
/// The rule scans outwards from the `Σ` over Case_Ignorable characters
/// and stops at the first other one. ASCII whitespace is neither
/// Case_Ignorable nor Cased, so a scan that reaches it stops there and
/// sees "not Cased", exactly as it does at either end of a text. Hence the
/// standard library's lowercasing of the window between the nearest ASCII
/// whitespace on each side gives the same letter as lowercasing the whole
/// text. `None` when no such whitespace is within reach, so that a text
/// without spaces cannot make this quadratic.
fn sigma(text: &str, at: usize) -> Option<char> {
    const REACH: usize = 256;
    let bytes = text.as_bytes();
    let ascii_space = |b: &u8| matches!(b, b'\t'..=b'\r' | b' ');
    let lo = at.saturating_sub(REACH);
    let start = match bytes[lo..at].iter().rposition(ascii_space) {
        Some(j) => lo + j + 1,
        None if lo == 0 => 0,
        None => return None,
    };
    let after = at + 'Σ'.len_utf8();
    let hi = (after + REACH).min(bytes.len());
    let end = match bytes[after..hi].iter().position(ascii_space) {
        Some(j) => after + j,
        None if hi == bytes.len() => hi,
        None => return None,
    };
    // σ and ς have the same length, so the prefix's lowercase ends where
    // this Σ's begins.
    let offset = text[start..at].to_lowercase().len();
    text[start..end].to_lowercase()[offset..].chars().next()
}

fn collapse(lower: &str) -> String {
    let mut out = String::with_capacity(lower.len());
    let mut pending_space = false;
    for c in lower.chars() {
        if is_whitespace(c) {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_unicode_version_is_the_std_one() {
        assert_eq!(char::UNICODE_VERSION, UNICODE_VERSION);
    }

    #[test]
    fn fused_and_two_step_paths_agree() {
        for s in [
            "\t Mixed  CASE\r\nText\x0b\x0cend  ",
            "İSTANBUL  ẞ\u{3000}ÅNGSTRÖM \u{feff}",
            "\u{a0}Ωμέγα ΟΔΟς\u{2028}x",
            "ΟΔΟΣ Σ ΑΣ' ΑΣʰ ΑΣ\u{feff}Β ΣΑ .Σ. ΑΣ\u{345}",
        ] {
            let mut out = b"kept ".to_vec();
            assert_eq!(fused(s, &mut out, no_ascii_block), Some(()), "{s:?}");
            assert_eq!(
                out,
                format!("kept {}", collapse(&s.to_lowercase())).as_bytes()
            );
        }
        // Too far from any ASCII whitespace: the fused pass declines.
        let long = format!("Α{}Σ", "\u{345}".repeat(300));
        assert_eq!(fused(&long, &mut Vec::new(), no_ascii_block), None);
        assert_eq!(normalize(&long), long.to_lowercase());
        assert_eq!(normalize("\t Mixed  CASE\r\nText "), "mixed case text");
    }

    /// Found by the `normalize`, `backends` and `explain` fuzz targets:
    /// characters whose lowercase is longer (Ⱥ → ⱥ, İ → i̇) used up the
    /// output's slack one byte at a time, and the ASCII steps after them
    /// wrote past the end.
    #[test]
    fn growing_characters_then_ascii_stay_in_bounds() {
        // Under Miri, one case that overflowed; the portable backend is
        // its only one.
        let (counts, tails): (&[usize], &[usize]) = if cfg!(miri) {
            (&[40], &[65])
        } else {
            (&[15, 16, 17, 40, 200], &[7, 8, 63, 64, 65, 300])
        };
        for grow in ["Ⱥ", "İ", "Ⱦ", "ȺİΣ "] {
            for &n in counts {
                for &tail in tails {
                    let s = format!("{}{}", grow.repeat(n), "Ab c".repeat(tail).as_str());
                    let want = collapse(&s.to_lowercase());
                    for backend in Backend::supported() {
                        assert_eq!(normalize_with(&s, backend), want, "{backend:?} {n} {tail}");
                    }
                }
            }
        }
    }

    #[test]
    fn swar_matches_bytewise() {
        for b in 0u8..0x80 {
            for pos in 0..8 {
                let mut bytes = *b"aZ \tq\r7~";
                bytes[pos] = b;
                let (lowered, space) = swar_lower(u64::from_le_bytes(bytes));
                for (j, &c) in bytes.iter().enumerate() {
                    let is_space = matches!(c, b'\t'..=b'\r' | b' ');
                    let want = if is_space {
                        b' '
                    } else {
                        c.to_ascii_lowercase()
                    };
                    assert_eq!(lowered.to_le_bytes()[j], want, "{bytes:?} {j}");
                    assert_eq!(space.to_le_bytes()[j] == 0x80, is_space, "{bytes:?} {j}");
                }
            }
        }
    }

    /// Mostly ASCII, so that whole 64-byte blocks take a backend's vector
    /// step, with whitespace runs, capitals and control bytes across block
    /// edges and, now and then, a character that sends a block the slow way.
    fn mostly_ascii() -> impl proptest::strategy::Strategy<Value = String> {
        let part = proptest::sample::select(vec![
            "word", "Word", "WORD", "x", "AZaz@[`{", " ", "  ", "\t", "\r\n", "\x0b\x0c", "\x08",
            "\x0e", "\x1f", "\x7f", "~", "0", "é", "Σ", "ΑΣ", "\u{a0}", "\u{3000}", "\u{85}", "İ",
            "ȺȺȺȺ",
        ]);
        let weights = proptest::collection::vec((part, 0u8..4), 0..300);
        proptest::strategy::Strategy::prop_map(weights, |parts| {
            parts
                .into_iter()
                .map(|(p, n)| {
                    if p.is_ascii() {
                        p.repeat(1 + n as usize)
                    } else {
                        p.to_owned()
                    }
                })
                .collect()
        })
    }

    proptest::proptest! {
        /// Every backend's normalizer is the two steps done literally.
        #[test]
        fn every_backend_normalizes_like_two_steps(s in mostly_ascii(), skip in 0usize..64) {
            let s = &s[s.char_indices().map(|(i, _)| i).find(|&i| i >= skip).unwrap_or(s.len())..];
            let want = collapse(&s.to_lowercase());
            for backend in Backend::supported() {
                proptest::prop_assert_eq!(&normalize_with(s, backend), &want, "{:?}", backend);
            }
        }

        /// The fused pass agrees with the two steps done literally, on
        /// text dense with Σ and the characters its rule looks at.
        #[test]
        fn fused_equals_two_steps(parts in proptest::collection::vec(proptest::sample::select(vec![
            "Σ", "Α", "α", "ʰ", "\u{345}", "\u{feff}", "'", ".", " ", "\t", "\u{a0}", "1", "İ", "x", "\u{2028}",
        ]), 0..40)) {
            let s: String = parts.concat();
            proptest::prop_assert_eq!(normalize(&s), collapse(&s.to_lowercase()));
        }
    }

    /// The fused path relies on this for every code point: lowercasing
    /// keeps whitespace as it is and never produces whitespace from
    /// anything else.
    #[test]
    #[cfg_attr(miri, ignore = "every code point: hours under Miri")]
    fn lowercasing_never_crosses_the_whitespace_line() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let lower: Vec<char> = c.to_lowercase().collect();
            if is_whitespace(c) {
                assert_eq!(lower, [c], "{c:?}");
            } else {
                assert!(!lower.iter().any(|&l| is_whitespace(l)), "{c:?}");
            }
        }
    }

    #[test]
    fn not_whitespace() {
        for c in ['\u{85}', '\u{180e}', '\u{200b}', '\u{2060}'] {
            assert!(!is_whitespace(c), "{c:?}");
        }
        assert_eq!(normalize("a\u{200b}b"), "a\u{200b}b");
    }

    #[test]
    fn empty_and_blank() {
        assert_eq!(normalize(""), "");
        assert_eq!(normalize(" \u{3000}\u{feff}"), "");
    }
}
