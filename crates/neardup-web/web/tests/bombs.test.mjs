// Issue 38: decompression bombs in the Collection tab. A folder holding a
// DOCX, an ODT, an EPUB and a PDF that each inflate to 1 GiB, and a zip of
// zips (five: the note lists five skipped files by name), beside two
// texts that are one: each bomb is skipped with one line
// naming it and the cap, the pairs are the bytes `neardup scan` writes for
// the same folder, and the tab keeps working: the next folder it is given
// reads as the CLI reads it. The bombs are built here, small on disk: a
// block deflated with a full flush from a fresh stream is byte-aligned and
// refers to nothing before it, so one compressed copy, repeated, inflates
// to any number of blocks.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { artifacts, cliPath, download, runCollection, sharedPage } from './harness.mjs';

const MIB = 1 << 20;

/** A raw deflate stream of `head` then `block` `count` times, with the
 * CRC-32 and size of what it inflates to. */
function repeated(head, block, count) {
  const flushed = (b) => zlib.deflateRawSync(b, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const once = flushed(block);
  const parts = [flushed(head)];
  let crc = zlib.crc32(head);
  for (let i = 0; i < count; i++) {
    parts.push(once);
    crc = zlib.crc32(block, crc);
  }
  parts.push(zlib.deflateRawSync(Buffer.alloc(0)));
  return { data: Buffer.concat(parts), crc, size: head.length + block.length * count };
}

/** A zip of [name, Buffer (stored) | repeated() (deflated)]. */
function zip(entries) {
  const out = [];
  const central = [];
  let at = 0;
  for (const [name, entry] of entries) {
    const deflated = !Buffer.isBuffer(entry);
    const data = deflated ? entry.data : entry;
    const crc = deflated ? entry.crc : zlib.crc32(entry);
    const size = deflated ? entry.size : entry.length;
    const n = Buffer.from(name);
    // The local header and the central one share their fields, the
    // central one 2 bytes later (after its "version made by").
    const header = (length, signature, shift) => {
      const h = Buffer.alloc(length);
      h.writeUInt32LE(signature, 0);
      h.writeUInt16LE(20, 4 + shift);
      h.writeUInt16LE(deflated ? 8 : 0, 8 + shift);
      h.writeUInt16LE(0x21, 12 + shift);
      h.writeUInt32LE(crc >>> 0, 14 + shift);
      h.writeUInt32LE(data.length, 18 + shift);
      h.writeUInt32LE(size >>> 0, 22 + shift);
      h.writeUInt16LE(n.length, 26 + shift);
      return h;
    };
    const local = header(30, 0x04034b50, 0);
    const dir = header(46, 0x02014b50, 2);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt32LE(at, 42);
    out.push(local, n, data);
    central.push(dir, n);
    at += local.length + n.length + data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(at, 16);
  return Buffer.concat([...out, cd, end]);
}

const TYPES = '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';

/** A one-page PDF whose FlateDecode content is `content` (a zlib stream). */
function pdf(content) {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    Buffer.concat([Buffer.from(`<< /Filter /FlateDecode /Length ${content.length} >>\nstream\n`), content, Buffer.from('\nendstream')]),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const parts = [Buffer.from('%PDF-1.4\n')];
  let at = parts[0].length;
  const offsets = [];
  objects.forEach((body, i) => {
    const b = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.from(body), Buffer.from('\nendobj\n')]);
    offsets.push(at);
    parts.push(b);
    at += b.length;
  });
  const xref = ['xref\n0 6\n0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** [file name, bytes, what its one-line refusal says]: each inflates to 1 GiB. */
function bombs() {
  const spaces = Buffer.alloc(MIB, ' ');
  const doc = (part) => zip([['[Content_Types].xml', Buffer.from(TYPES)], ['word/document.xml', part]]);
  const spacesDocx = doc(repeated(Buffer.from('<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>'), spaces, 1024));
  const odt = zip([
    ['mimetype', Buffer.from('application/vnd.oasis.opendocument.text')],
    ['content.xml', repeated(Buffer.from('<document-content><body><text><p>'), spaces, 1024)],
  ]);
  const epub = zip([
    ['mimetype', Buffer.from('application/epub+zip')],
    ['META-INF/container.xml', Buffer.from('<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>')],
    ['c.opf', Buffer.from('<package><manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/></spine></package>')],
    ['a.xhtml', repeated(Buffer.from('<html><body><p>x</p><!--'), spaces, 1024)],
  ]);
  // zlib's two header bytes, then raw blocks: the reader stops at its
  // cap long before the checksum would be read.
  const content = Buffer.concat([Buffer.from([0x78, 0xda]), repeated(Buffer.from('BT /F1 12 Tf 72 720 Td (x) Tj ET\n'), spaces, 1024).data]);
  const ratio = (entry) => `zip entry '${entry}' has expanded more than 256:1 past 16777216 bytes (a zip bomb?)`;
  return [
    ['spaces.docx', spacesDocx, ratio('word/document.xml')],
    ['spaces.odt', odt, ratio('content.xml')],
    ['comment.epub', epub, ratio('a.xhtml')],
    ['content.pdf', pdf(content), "a PDF page's content expands to more than 67108864 bytes, a quarter of the --max-expanded limit (a PDF bomb?)"],
    ['nested.zip', zip([['inner.zip', zip([['a.docx', spacesDocx], ['b.odt', odt]])]]), 'a zip archive, not a text document'],
  ];
}

let page;
sharedPage((opened) => ({ page } = opened));
let neardup;
let work;
const BOMBS = bombs();
before(() => {
  neardup = cliPath();
  work = mkdtempSync(join(tmpdir(), 'neardup-bombs-'));
  const text = 'A letter of four hundred words, more or less, sent twice. '.repeat(40);
  for (const dir of ['bombs', 'after']) mkdirSync(join(work, dir));
  writeFileSync(join(work, 'bombs', 'a.txt'), text);
  writeFileSync(join(work, 'bombs', 'b.txt'), text);
  for (const [name, bytes] of BOMBS) {
    assert.ok(bytes.length < 4 * MIB, `${name}: ${bytes.length} bytes on disk`);
    writeFileSync(join(work, 'bombs', name), bytes);
  }
  writeFileSync(join(work, 'after', 'c.txt'), `${text} And a postscript.`);
  writeFileSync(join(work, 'after', 'd.txt'), text);
});
after(() => work && rmSync(work, { recursive: true, force: true }));

const scan = (dir) => execFileSync(neardup, ['scan', '--quiet', dir, '--threshold', '0.35', '--pairs', '-'], { cwd: work }).toString('utf8');

test('each bomb is one line of the skipped files, the pairs are the CLI\'s, and the tab keeps working', async () => {
  await page.setInputFiles('#collection-folder', join(work, 'bombs'));
  assert.equal(await runCollection(page), 'done');
  const pairs = await download(page, '#collection-download-pairs');
  assert.equal(pairs, scan('bombs'));
  assert.match(pairs, /"a":"bombs\/a\.txt","b":"bombs\/b\.txt".*"verdict":"IDENTICAL"/);
  const note = await page.textContent('#collection-note');
  assert.match(note, new RegExp(`Skipped ${BOMBS.length} files`));
  for (const [name, , refusal] of BOMBS) {
    assert.ok(note.includes(`bombs/${name} (${refusal})`), `${name}: ${note}`);
  }
  await page.screenshot({ path: join(artifacts, 'collection-bombs.png'), fullPage: true });

  // The same tab, the next folder: read as the CLI reads it.
  await page.setInputFiles('#collection-folder', join(work, 'after'));
  assert.equal(await runCollection(page), 'done');
  assert.equal(await download(page, '#collection-download-pairs'), scan('after'));
  assert.doesNotMatch(await page.textContent('#collection-note'), /Skipped/);
});
