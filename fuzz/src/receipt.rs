use neardup::Receipt;

/// The receipt parser (SPEC §10) on arbitrary input: it never panics, and a
/// receipt it accepts re-serializes to the canonical form (sorted keys, no
/// whitespace, as serde_json writes a `Value` back), which parses back to
/// the same receipt.
pub fn receipt(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(receipt) = Receipt::parse(text) else {
        return;
    };
    let canonical = receipt.canonical();
    // Canonical means what a plain JSON round trip gives: serde_json's
    // `Value` keeps object keys sorted and writes no whitespace.
    let value: serde_json::Value = serde_json::from_str(&canonical).expect("canonical is JSON");
    assert_eq!(serde_json::to_string(&value).unwrap(), canonical);
    assert_eq!(
        Receipt::parse(&canonical).expect("canonical parses"),
        receipt
    );
    assert_eq!(receipt.sha256(), neardup::Digest::of(canonical.as_bytes()));
}
