//! Prints the text of the PDF at the path given: `extract_pdf FILE.pdf`.

use neardup_extract::{extract, Format, Options};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: extract_pdf FILE.pdf");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("reading '{path}': {e}"));
    let opts = Options {
        format: Some(Format::Pdf),
        ..Options::default()
    };
    match extract(&bytes, Some(&path), &opts) {
        Ok(got) => print!("{}", got.text),
        Err(e) => {
            eprintln!("reading '{path}': {e}");
            std::process::exit(1);
        }
    }
}
