//! The report's HTML pieces: escaping, quoting and the style sheet.

/// Appends `s` with `&`, `<`, `>`, `"` and `'` escaped, so that no text
/// (a document, an id, a file name) can open a tag or leave an attribute.
pub(crate) fn esc(out: &mut String, s: &str) {
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + 1;
    }
    out.push_str(&s[last..]);
}

/// `s` escaped, as a new string.
pub(crate) fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    esc(&mut out, s);
    out
}

/// `s` as one POSIX shell word: as it is when it holds only characters no
/// shell treats specially, else in single quotes.
pub(crate) fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./-+,:@%=".contains(c);
    if !s.is_empty() && s.chars().all(plain) && !s.starts_with('-') {
        return s.to_owned();
    }
    let prefix = if s.starts_with('-') { "./" } else { "" };
    format!("'{prefix}{}'", s.replace('\'', r"'\''"))
}

/// A share as a percentage with one decimal.
pub(crate) fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// The style sheet: light colours only, and for print every pair on a new
/// page, no backgrounds that would print dark, highlights that survive a
/// printer which drops backgrounds (an underline).
pub(crate) const CSS: &str = "\
:root{color-scheme:light}
body{font:15px/1.45 system-ui,sans-serif;color:#111;background:#fff;margin:0 auto;max-width:1200px;padding:1em 1.5em}
h1{font-size:1.6em;margin:.2em 0}h2{border-bottom:1px solid #bbb;padding-bottom:.2em;margin-top:1.6em}
nav a{margin-right:1em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.2em .45em;text-align:left;vertical-align:top}
th{background:#f1f1f1}
td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
td code{font-size:12px;word-break:break-all}
td[class^=v-]{white-space:nowrap}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;border:1px solid #ddd;padding:.5em}
.note{color:#444;font-size:.93em}
.warn{border-left:4px solid #c80;padding:.3em .7em;background:#fff8e6}
.v-IDENTICAL,.v-NEAR-DUPLICATE{font-weight:700;color:#a00}
.v-OVERLAPPING{font-weight:700;color:#a60}
mark{color:inherit;-webkit-print-color-adjust:exact;print-color-adjust:exact}
mark.s{background:#ffe27a;text-decoration:underline;text-decoration-color:#b58900}
mark.b{background:#e3e8f0;text-decoration:underline dotted #567}
.sbs{display:grid;grid-template-columns:1fr 1fr;gap:1em}
.sbs>div{min-width:0}
table.t{width:100%;border:0}
table.t td{border:0;padding:0 .4em;white-space:pre-wrap;word-break:break-word}
table.t td.n{color:#777;text-align:right;user-select:none;width:3em;border-right:1px solid #ddd;font-variant-numeric:tabular-nums}
.legend span{display:inline-block;width:1.2em;height:1em;border:1px solid #ccc;vertical-align:middle}
svg.map{border:1px solid #ccc;max-width:100%;height:auto}
svg.map rect{shape-rendering:crispEdges}
.c1{fill:#fff4e0}.c2{fill:#ffe4b8}.c3{fill:#ffd08a}.c4{fill:#ffba5c}.c5{fill:#ffa033}
.c6{fill:#f5821f}.c7{fill:#e8620f}.c8{fill:#d4440a}.c9{fill:#b82a06}.c10{fill:#8f1402}
@media print{
body{max-width:none;padding:0;font-size:11pt}
nav{display:none}
section.pair{break-before:page}
th,pre,.warn{background:#fff}
a{color:inherit;text-decoration:none}
.sbs{grid-template-columns:1fr 1fr}
}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_everything_that_could_open_a_tag_or_an_attribute() {
        assert_eq!(
            escaped(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
        assert_eq!(escaped("plain é"), "plain é");
    }

    #[test]
    fn shell_words() {
        assert_eq!(shell_word("dir/a.txt"), "dir/a.txt");
        assert_eq!(shell_word("my essay.txt"), "'my essay.txt'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word("-x"), "'./-x'");
        assert_eq!(shell_word(""), "''");
    }
}
