// The embedded wasm's text form: 7 bits per character, where base64 carries
// 6, so the block is 8/7 of its bytes where base64 made it 4/3. The bytes,
// as a stream of bits, are cut into 7-bit groups, each written as the ASCII
// character of its value, except the four that the page may not hold as
// they are (NUL, which HTML replaces; LF, which ends lines; CR, which HTML
// turns into LF; `<`, which could close the block): such a group and the
// group after it are written as one two-byte UTF-8 character, U+0080 +
// (its index among the four) * 128 + (the next group), or, for the last
// group, U+0080 + (4 + its index) * 128. An LF every 1,000 characters
// keeps lines short; it stands for nothing. assemble.mjs writes this form
// (textEncode7 is its twin there); this decodes it, needing no imports (the
// tests run it in node).

/** The bytes that `text`, written by assemble.mjs's `textEncode7`, holds. */
export function textDecode7(text) {
  const special = [0x00, 0x0a, 0x0d, 0x3c];
  const out = new Uint8Array(Math.ceil((text.length * 14) / 8)); // at most two groups a character
  let n = 0;
  let acc = 0;
  let bits = 0;
  const group = (g) => {
    acc = ((acc << 7) | g) & 0x7fff;
    bits += 7;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = acc >>> bits;
    }
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) continue;
    if (c < 0x80) {
      group(c);
    } else {
      const x = c - 0x80;
      const which = x >>> 7;
      if (which > 7) throw new Error('the embedded wasm is not valid 7-bit text');
      group(special[which & 3]);
      if (which < 4) group(x & 0x7f);
    }
  }
  return out.subarray(0, n);
}
