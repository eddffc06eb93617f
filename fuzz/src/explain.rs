use neardup::{Params, Span};

/// `neardup::explain` on two arbitrary texts: it never panics, and every
/// passage's spans lie inside their texts, on char boundaries, with char
/// offsets and line numbers that agree with the byte offsets.
///
/// Input layout: byte 0 picks `k = 1 + b % 8` (small, so that passages are
/// found), the rest is A and B split at the first 0xFF byte (which UTF-8
/// never uses), each read lossily.
pub fn explain(data: &[u8]) {
    let [kb, rest @ ..] = data else {
        return;
    };
    let k = 1 + usize::from(*kb) % 8;
    let params = Params::new(k as u64, 128).expect("k in range");
    let (a, b) = match rest.iter().position(|&x| x == 0xff) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    let e = neardup::explain(&a, &b, params).expect("texts this small have few enough words");
    assert!(e.shared_words_a <= e.words_a && e.shared_words_b <= e.words_b);
    let mut end = 0;
    for p in &e.passages {
        check(&p.a, &a, p.words, k);
        check(&p.b, &b, p.words, k);
        assert!(p.b_occurrences >= 1);
        // Passages come in A's order and never overlap in A.
        assert!(p.a.start_byte >= end, "{:?}", e.passages);
        end = p.a.end_byte;
        // Both spans normalize to the same words, save the final sigma
        // caveat of `explain`'s docs; so compare with sigmas folded.
        let fold = |s: &str| neardup::normalize(s).replace('ς', "σ");
        assert_eq!(fold(p.a.of(&a)).split(' ').count(), p.words);
        assert_eq!(fold(p.a.of(&a)), fold(p.b.of(&b)));
    }
}

fn check(span: &Span, text: &str, words: usize, k: usize) {
    assert!(
        span.start_byte <= span.end_byte && span.end_byte <= text.len(),
        "{span:?}"
    );
    assert!(text.is_char_boundary(span.start_byte) && text.is_char_boundary(span.end_byte));
    assert_eq!(span.start_char, text[..span.start_byte].chars().count());
    assert_eq!(span.end_char, text[..span.end_byte].chars().count());
    assert_eq!(span.line, 1 + text[..span.start_byte].matches('\n').count());
    assert!(words >= k);
    let normalized = neardup::normalize(span.of(text));
    assert!(!normalized.is_empty(), "an empty passage {span:?}");
}
