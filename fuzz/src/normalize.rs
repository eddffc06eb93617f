/// `normalize` against a plain reading of SPEC §1: `str::to_lowercase` of
/// the whole text, then every run of the whitespace set becomes one space,
/// then the ends are trimmed. The whitespace set is written out here again
/// from the spec, not taken from the crate. Also: normalizing is idempotent,
/// and its output has no leading, trailing or double space and no other
/// whitespace. Then SPEC §11's script words of that output, against a plain
/// reading of §11: split on spaces, then cut each run at every code point
/// of the table.
pub fn normalize(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let got = neardup::normalize(&text);
    assert_eq!(got, oracle(&text), "input {text:?}");
    assert_eq!(neardup::normalize(&got), got, "not idempotent on {text:?}");
    assert!(!got.starts_with(' ') && !got.ends_with(' ') && !got.contains("  "));
    assert!(got.chars().all(|c| c == ' ' || !spec_whitespace(c)));
    let spaced = neardup::WordRule::Script.word_text(&got);
    let words: Vec<String> = spaced
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    assert_eq!(words, script_words(&got), "script words of {got:?}");
    assert!(!spaced.starts_with(' ') && !spaced.ends_with(' ') && !spaced.contains("  "));
}

/// SPEC §1's whitespace set, ECMAScript's `\s`.
fn spec_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | '\u{20}'
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

fn oracle(text: &str) -> String {
    text.to_lowercase()
        .split(spec_whitespace)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// §11's words: every table code point a word, every maximal sequence of
/// other code points one word, within each space-separated run.
fn script_words(normalized: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in normalized.split(' ').filter(|r| !r.is_empty()) {
        let mut word = String::new();
        for c in run.chars() {
            if neardup::WordRule::is_script_char(c) {
                out.extend((!word.is_empty()).then(|| std::mem::take(&mut word)));
                out.push(c.to_string());
            } else {
                word.push(c);
            }
        }
        out.extend((!word.is_empty()).then_some(word));
    }
    out
}
