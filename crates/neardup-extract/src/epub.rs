//! EPUB 2 and 3 (EXTRACT.md, "EPUB"): `META-INF/container.xml` names the
//! package document (OPF); its spine lists the content documents in
//! reading order, each read by the HTML rules as XHTML.

use std::collections::HashMap;
use std::io::BufRead;

use crate::archive::Archive;
use crate::docx::resolve;
use crate::out::Out;
use crate::xml::{attr, Node, Xml};
use crate::{html, Error, Limits};

const FORMAT: &str = "EPUB";

pub(crate) fn extract(
    bytes: &[u8],
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<String, Error> {
    let mut zip = Archive::open(bytes, FORMAT, limits)?;
    let mut container = zip
        .xml("META-INF/container.xml")?
        .ok_or_else(|| Error::corrupt(FORMAT, "no 'META-INF/container.xml'"))?;
    let opf = rootfile(&mut container)?.ok_or_else(|| {
        Error::corrupt(FORMAT, "META-INF/container.xml names no package document")
    })?;
    drop(container);
    let mut package = zip
        .xml(&opf)?
        .ok_or_else(|| Error::corrupt(FORMAT, format!("no package document '{opf}'")))?;
    let dir = opf.rsplit_once('/').map_or("", |(d, _)| d);
    let (manifest, spine) = read_package(&mut package, limits)?;
    drop(package);

    let mut out = Out::new(limits);
    for idref in spine {
        let Some((href, media)) = manifest.get(&idref) else {
            warnings.push(format!("spine item '{idref}' is not in the manifest"));
            continue;
        };
        let path = resolve(dir, &percent_decode(href.split('#').next().unwrap_or("")));
        if media != "application/xhtml+xml" && media != "text/html" {
            warnings.push(format!("spine item '{path}' is {media}, not read"));
            continue;
        }
        let Some(item) = zip.entry(&path)? else {
            warnings.push(format!("spine item '{path}' is missing"));
            continue;
        };
        let mut item_warnings = Vec::new();
        html::read_from(item, &path, limits, &mut out, &mut item_warnings)?;
        warnings.extend(item_warnings.into_iter().map(|w| format!("'{path}': {w}")));
    }
    out.finish()
}

/// The package document's path, from the first `rootfile` of the
/// container whose media type is the OPF's (or has none).
fn rootfile(xml: &mut Xml<impl BufRead>) -> Result<Option<String>, Error> {
    loop {
        match xml.next()? {
            Node::Open(e) | Node::Empty(e) if e.local_name().as_ref() == b"rootfile" => {
                let media = attr(&e, b"media-type");
                if media.is_none_or(|m| m == "application/oebps-package+xml") {
                    if let Some(path) = attr(&e, b"full-path") {
                        return Ok(Some(resolve("", &path)));
                    }
                }
            }
            Node::Eof => return Ok(None),
            _ => {}
        }
    }
}

/// The manifest (id → href, media type) and the spine (ids in order).
type Package = (HashMap<String, (String, String)>, Vec<String>);

/// Manifest items and spine entries past [`Limits::max_entries`] (the
/// most entries the zip may hold) are refused: they could name nothing
/// more, and a crafted package of millions would fill memory with them.
fn read_package(xml: &mut Xml<impl BufRead>, limits: &Limits) -> Result<Package, Error> {
    let too_many = |what: &str| {
        Error::Limit(format!(
            "its package lists more than {} {what}",
            limits.max_entries
        ))
    };
    let mut manifest = HashMap::new();
    let mut spine = Vec::new();
    loop {
        match xml.next()? {
            Node::Open(e) | Node::Empty(e) => match e.local_name().as_ref() {
                b"item" => {
                    if let (Some(id), Some(href)) = (attr(&e, b"id"), attr(&e, b"href")) {
                        let media = attr(&e, b"media-type").unwrap_or_default();
                        manifest.insert(id, (href, media));
                        if manifest.len() > limits.max_entries {
                            return Err(too_many("manifest items"));
                        }
                    }
                }
                b"itemref" => {
                    spine.extend(attr(&e, b"idref"));
                    if spine.len() > limits.max_entries {
                        return Err(too_many("spine items"));
                    }
                }
                _ => {}
            },
            Node::Eof => return Ok((manifest, spine)),
            _ => {}
        }
    }
}

/// A URL path's `%XX` escapes decoded (`chapter%201.xhtml`).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
