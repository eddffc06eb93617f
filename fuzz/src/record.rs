use neardup::SignatureRecord;

/// The signature-record parser (`neardup::SignatureRecord::parse`, what
/// `scan` reads back from `sign --jsonl`) on arbitrary bytes: it never
/// panics, and a record it accepts round-trips through
/// `SignatureRecord::write`, under either document key.
pub fn record(data: &[u8]) {
    let looks = SignatureRecord::looks_like(data);
    let Ok(record) = SignatureRecord::parse(data) else {
        return;
    };
    // Everything parse accepts has the three fields `looks_like` asks for.
    assert!(
        looks,
        "accepted but not recognised: {:?}",
        String::from_utf8_lossy(data)
    );
    for key in ["id", "path"] {
        let mut line = String::new();
        SignatureRecord::write(&mut line, key, &record.id, &record.fingerprint);
        assert!(line.ends_with('\n') && !line[..line.len() - 1].contains('\n'));
        let back =
            SignatureRecord::parse(line.trim_end().as_bytes()).expect("written record parses");
        assert_eq!(back, record);
        // Written once more, it is the same line: one record, one spelling.
        let mut again = String::new();
        SignatureRecord::write(&mut again, key, &back.id, &back.fingerprint);
        assert_eq!(again, line);
    }
}
