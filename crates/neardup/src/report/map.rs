//! The heat map: every two documents' MinHash similarity, as inline SVG.

use std::fmt::Write as _;

use crate::Fingerprint;

/// Appends the map of `fps` (row `i`, column `j < i`: documents numbered
/// from 1 as in the documents table). A cell's shade is its similarity in
/// tenths; a pair with no slot in common, or a document without a
/// signature, leaves its cell white, so only the cells that say something
/// take bytes.
pub(crate) fn svg(out: &mut String, fps: &[Fingerprint], n: usize) {
    let len = fps.len();
    let side = (len * 12).clamp(240, 720);
    let _ = write!(
        out,
        "<svg class=map xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {len} {len}\" \
         width=\"{side}\" height=\"{side}\" role=\"img\" aria-label=\"heat map of the \
         MinHash similarity of every two of the {len} documents\">\
         <rect width=\"{len}\" height=\"{len}\" fill=\"#fff\"/>"
    );
    for (i, a) in fps.iter().enumerate() {
        let Some(sa) = &a.signature else { continue };
        for (j, b) in fps[..i].iter().enumerate() {
            let Some(sb) = &b.signature else { continue };
            let level = shade(sa.matches(sb), n);
            if level > 0 {
                let _ = write!(
                    out,
                    "<rect x=\"{j}\" y=\"{i}\" width=\"1\" height=\"1\" class=\"c{level}\"/>"
                );
            }
        }
    }
    // The diagonal: each document against itself.
    let _ = write!(
        out,
        "<path d=\"M0 0L{len} {len}\" stroke=\"#999\" stroke-width=\"{:.3}\"/></svg>",
        len as f64 / side as f64
    );
}

/// `matches / n` in tenths, rounded up: 0 only for no slot in common,
/// 10 only for all.
fn shade(matches: u32, n: usize) -> usize {
    (matches as usize * 10).div_ceil(n.max(1)).min(10)
}

/// The legend under the map.
pub(crate) fn legend(out: &mut String) {
    out.push_str("<p class=\"legend note\">MinHash similarity: ");
    for level in 1..=10 {
        let _ = write!(
            out,
            "<svg width=\"14\" height=\"14\" aria-hidden=\"true\"><rect width=\"14\" height=\"14\" class=\"c{level}\"/></svg> {}–{}% ",
            10 * (level - 1),
            10 * level
        );
    }
    out.push_str("(white: no slot in common). Row <i>i</i>, column <i>j</i> is documents <i>i</i> and <i>j</i> of the documents table.</p>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shades() {
        assert_eq!(shade(0, 128), 0);
        assert_eq!(shade(1, 128), 1);
        assert_eq!(shade(128, 128), 10);
        assert_eq!(shade(96, 128), 8);
    }
}
