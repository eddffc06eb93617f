// ---------------------------------------------------------------------------
// kar-shingle-minhash-v1 and kar-script-shingle-minhash-v1, the readable
// reference (SPEC.md §1–9, and §11's script words).
//
// This is the whole algorithm in plain JavaScript, written to be read, not to
// be fast. The page's engine is the Rust core compiled to WebAssembly; after
// every Compare, the page's worker runs this code as well, over the same
// decoded texts, and says whether both give the same receipt. If you can
// read this file, you can check what the page does without trusting the wasm.
//
// Nothing here reaches the network: SHA-256 is the browser's own
// (crypto.subtle.digest), and this file runs in the page's worker under the
// page's Content-Security-Policy.
// ---------------------------------------------------------------------------
const NeardupReference = (() => {
  // The two algorithms differ only in how §2 cuts a text into words (§11),
  // and a receipt names its own: 'space' is SPEC's default.
  const ALGORITHMS = { space: 'kar-shingle-minhash-v1', script: 'kar-script-shingle-minhash-v1' };
  const ALGORITHM = ALGORITHMS.space;
  // SPEC §1 pins the Unicode character data to 17.0 (see unicodeVersion()).
  const UNICODE = '17.0';

  // ---- SHA-256, from the browser ----

  const utf8 = (s) => new TextEncoder().encode(s);
  const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

  /** The SHA-256 digest of a string's UTF-8 bytes, as 32 bytes. */
  async function sha256(s) {
    return new Uint8Array(await crypto.subtle.digest('SHA-256', utf8(s)));
  }

  /** Lowercase hex SHA-256 of a string's UTF-8 bytes. */
  async function sha256Hex(s) {
    return toHex(await sha256(s));
  }

  // ---- §1 Normalize ----

  /**
   * Lowercase the whole text (full Unicode mapping, final sigma included:
   * the browser's toLowerCase does exactly what SPEC §1 says), then turn
   * every run of whitespace into one space and trim. `\s` is ECMAScript's
   * whitespace set, which is SPEC's decision:
   *   U+0009..U+000D U+0020 U+00A0 U+1680 U+2000..U+200A
   *   U+2028 U+2029 U+202F U+205F U+3000 U+FEFF
   * trim() removes the same set. The order matters: lowercase first.
   */
  function normalize(text) {
    return text.toLowerCase().replace(/\s+/g, ' ').trim();
  }

  // ---- §2 Words, and §11 script words ----

  /**
   * SPEC §11's table: under kar-script-shingle-minhash-v1, every code point
   * in these ranges is a word by itself. The table is these numbers, not a
   * Unicode property, so it never changes with the browser's Unicode data.
   */
  const SCRIPT_RANGES = [
    [0x0e00, 0x0e7f], // Thai
    [0x0e80, 0x0eff], // Lao
    [0x1000, 0x109f], // Myanmar
    [0x1780, 0x17ff], // Khmer
    [0x19e0, 0x19ff], // Khmer Symbols
    [0x2e80, 0x2fdf], // CJK and Kangxi radicals
    [0x2ff0, 0x2fff], // Ideographic description
    [0x3001, 0x303f], // CJK symbols and punctuation (U+3000 is whitespace)
    [0x3040, 0x30ff], // Hiragana, Katakana
    [0x3100, 0x312f], // Bopomofo
    [0x3190, 0x31ff], // Kanbun, Bopomofo Extended, CJK Strokes, Katakana extensions
    [0x3400, 0x4dbf], // CJK Extension A
    [0x4e00, 0x9fff], // CJK Unified Ideographs
    [0xa000, 0xa4cf], // Yi
    [0xa9e0, 0xa9ff], // Myanmar Extended-B
    [0xaa60, 0xaa7f], // Myanmar Extended-A
    [0xf900, 0xfaff], // CJK Compatibility Ideographs
    [0xfe30, 0xfe4f], // CJK Compatibility Forms
    [0xff61, 0xff9f], // halfwidth CJK punctuation and Katakana
    [0x1aff0, 0x1b16f], // Kana Extended-B, Kana Supplement, Kana Extended-A, Small Kana
    [0x20000, 0x3ffff], // Supplementary and Tertiary Ideographic Planes
  ];

  /** Whether a code point is in §11's table. */
  function isScriptChar(codePoint) {
    return SCRIPT_RANGES.some(([first, last]) => first <= codePoint && codePoint <= last);
  }

  /**
   * The words of a normalized text. 'space' (§2): split on the one space.
   * 'script' (§11): then split each run further, every code point of the
   * table a word by itself and every maximal sequence of other code points
   * one word, in order.
   */
  function words(normalized, rule = 'space') {
    // An empty text has no words (''.split(' ') would give one empty word).
    if (normalized === '') return [];
    const runs = normalized.split(' ');
    if (rule === 'space') return runs;
    const out = [];
    for (const run of runs) {
      let word = '';
      // for...of walks code points, not UTF-16 units: an ideograph beyond
      // U+FFFF is one code point, though JavaScript stores it as two units.
      for (const c of run) {
        if (isScriptChar(c.codePointAt(0))) {
          if (word !== '') out.push(word);
          out.push(c);
          word = '';
        } else {
          word += c;
        }
      }
      if (word !== '') out.push(word);
    }
    return out;
  }

  // ---- §2 Shingle ----

  /** The set of distinct shingle strings: K consecutive words joined by one space. */
  function shingles(normalized, k, rule = 'space') {
    const list = words(normalized, rule);
    const set = new Set();
    for (let j = 0; j + k <= list.length; j++) {
      set.add(list.slice(j, j + k).join(' '));
    }
    return set;
  }

  // ---- §3 Base hash ----

  /** h0(s): the first 4 bytes of SHA-256(UTF-8 of s), big-endian, unsigned. */
  async function h0(s) {
    const digest = await sha256(s);
    // DataView reads big-endian by default; getUint32 gives 0 ..= 2^32-1.
    return new DataView(digest.buffer).getUint32(0);
  }

  // ---- §4 Permutation constants ----

  /**
   * a[i] = h0("kar-shingle-perm-a-" + i) | 1 and b[i] = h0("kar-shingle-perm-b-" + i),
   * for i = 0 .. n-1 (i in plain decimal).
   */
  async function constants(n) {
    const a = [];
    const b = [];
    for (let i = 0; i < n; i++) {
      // `|` works on signed 32-bit numbers in JavaScript: `>>> 0` turns the
      // result back into the unsigned value (0x80000001, not -2147483647).
      a.push((await h0(`kar-shingle-perm-a-${i}`) | 1) >>> 0);
      b.push(await h0(`kar-shingle-perm-b-${i}`));
    }
    return { a, b };
  }

  // ---- §5 Per-permutation hash ----

  /**
   * h_i(s) = (a_i * h0(s) + b_i) mod 2^32, wrapping unsigned arithmetic.
   * A plain `a * h` would be wrong: the product needs up to 64 bits and a
   * JavaScript number holds 53 exactly. Math.imul gives the low 32 bits of
   * the product exactly (as a signed number); adding b stays far below 2^53;
   * `>>> 0` then takes the sum mod 2^32 as an unsigned number.
   */
  function permute(a, b, h) {
    return (Math.imul(a, h) + b) >>> 0;
  }

  // ---- §6 Signature ----

  /** sig[i] = min over the shingles of h_i; null for a text with no shingles. */
  async function signature(set, { a, b }, n) {
    if (set.size === 0) return null;
    const sig = new Array(n).fill(0xffffffff);
    // The digests are asked for in batches, so that the browser can work on
    // many at once; the result does not depend on the batch size.
    const all = [...set];
    for (let start = 0; start < all.length; start += 4096) {
      const hashes = await Promise.all(all.slice(start, start + 4096).map(h0));
      for (const h of hashes) {
        for (let i = 0; i < n; i++) {
          const v = permute(a[i], b[i], h);
          if (v < sig[i]) sig[i] = v;
        }
      }
    }
    return sig;
  }

  /** §9: each slot as exactly 8 lowercase hex digits, concatenated. */
  function signatureHex(sig) {
    return sig.map((v) => v.toString(16).padStart(8, '0')).join('');
  }

  // ---- §7 Similarity and §8 Verdict ----

  /** The number of slots where the two signatures agree. */
  function countMatches(sigA, sigB) {
    let matches = 0;
    for (let i = 0; i < sigA.length; i++) if (sigA[i] === sigB[i]) matches++;
    return matches;
  }

  /** The first rule that applies wins; integers only, so no rounding can move a verdict. */
  function verdict(docA, docB, matches, n) {
    if (docA.normalized_sha256 === docB.normalized_sha256) return 'IDENTICAL';
    if (docA.shingles === 0 || docB.shingles === 0) return 'INSUFFICIENT-DATA';
    if (100 * matches >= 75 * n) return 'NEAR-DUPLICATE';
    if (100 * matches >= 35 * n) return 'OVERLAPPING';
    return 'DISTINCT';
  }

  // ---- §9 Receipt ----

  /**
   * The canonical form: keys sorted by byte order at every level, no
   * whitespace. (The receipt's keys are ASCII, where JavaScript's default
   * sort, by UTF-16 code units, is byte order; its values are integers,
   * null and ASCII strings, which JSON.stringify writes as SPEC says.)
   */
  function canonical(value) {
    if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
    if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value).sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
    }
    return JSON.stringify(value);
  }

  /**
   * One document: its normalized text, shingle set and signature, and its
   * receipt entry. The receipt hashes the normalized text under either rule.
   */
  async function oneDocument(text, k, n, consts, rule) {
    const normalized = normalize(text);
    const set = shingles(normalized, k, rule);
    const sig = await signature(set, consts, n);
    return {
      normalized,
      signature: sig,
      entry: {
        normalized_sha256: await sha256Hex(normalized),
        shingles: set.size,
        signature_sha256: sig === null ? null : await sha256Hex(signatureHex(sig)),
      },
    };
  }

  /**
   * The receipt of texts A and B (in that order) with shingle size k, n
   * permutations and the word rule ('space' or 'script'): the receipt
   * object, its canonical form and SHA-256, and the intermediate values
   * (normalized texts, signatures) for checking.
   */
  async function receipt(textA, textB, k, n, rule = 'space') {
    if (!Number.isInteger(k) || k < 1 || k > 64) throw new RangeError(`shingle size must be 1..=64, got ${k}`);
    if (!Number.isInteger(n) || n < 16 || n > 256) throw new RangeError(`permutations must be 16..=256, got ${n}`);
    if (!Object.hasOwn(ALGORITHMS, rule)) throw new RangeError(`words must be 'space' or 'script', got '${rule}'`);
    const consts = await constants(n);
    const A = await oneDocument(textA, k, n, consts, rule);
    const B = await oneDocument(textB, k, n, consts, rule);
    const matches = A.signature && B.signature ? countMatches(A.signature, B.signature) : null;
    const object = {
      algorithm: ALGORITHMS[rule],
      documents: [A.entry, B.entry],
      k,
      matches,
      n,
      verdict: verdict(A.entry, B.entry, matches, n),
    };
    const text = canonical(object);
    return { receipt: object, canonical: text, sha256: await sha256Hex(text), documents: [A, B] };
  }

  // ---- Unicode: is this browser's character data SPEC's 17.0? ----

  /**
   * The newest Unicode version this browser's toLowerCase knows, told by
   * capital letters whose lowercase mappings that version added:
   *   17.0: U+A7CE -> U+A7CF (Latin), U+16EA0 -> U+16EBB (Beria Erfe);
   *   16.0: U+A7CB -> U+0264 (Latin), U+10D50 -> U+10D70 (Garay).
   * A browser with data newer than 17.0 also answers '17.0'.
   */
  function unicodeVersion() {
    const lowers = (upper, lower) => String.fromCodePoint(upper).toLowerCase() === String.fromCodePoint(lower);
    if (lowers(0xa7ce, 0xa7cf) && lowers(0x16ea0, 0x16ebb)) return '17.0';
    if (lowers(0xa7cb, 0x0264) && lowers(0x10d50, 0x10d70)) return '16.0';
    return 'older than 16.0';
  }

  /**
   * The code points of `text` this browser's Unicode data does not know
   * (General_Category Unassigned here): with older data than 17.0, those
   * may lowercase, or count as Cased or Case_Ignorable, differently.
   */
  function unknownCodePoints(text) {
    return [...new Set(text.match(/\p{Cn}/gu) || [])].map((c) => c.codePointAt(0));
  }

  // ---- Checking the engine's receipt ----

  const DOC_FIELDS = [['normalized_sha256', 'normalized text'], ['shingles', 'shingle count'], ['signature_sha256', 'signature']];

  /** The word rule whose receipts carry this algorithm id. */
  function ruleOf(algorithm) {
    const rule = Object.keys(ALGORITHMS).find((r) => ALGORITHMS[r] === algorithm);
    if (!rule) throw new RangeError(`unknown algorithm '${algorithm}'`);
    return rule;
  }

  /**
   * Recomputes the receipt of textA and textB with the engine's own k, n
   * and algorithm (its word rule) and compares it with the engine's, field
   * by field. The answer is
   * {status: 'same'}, {status: 'differs', fields: [what differs, in words]},
   * or {status: 'unicode', version, unknown}: the receipts differ, but this
   * browser's Unicode data is older than 17.0 and the texts hold characters
   * it does not know, so the difference may be the browser's, not the engine's.
   */
  async function check(textA, textB, engine) {
    const { k, n, algorithm } = engine.receipt;
    const ours = await receipt(textA, textB, k, n, ruleOf(algorithm));
    if (ours.canonical === canonical(engine.receipt) && ours.sha256 === engine.receipt_sha256) {
      return { status: 'same', sha256: ours.sha256 };
    }
    const version = unicodeVersion();
    const unknown = version === UNICODE ? [] : unknownCodePoints(textA + textB);
    if (unknown.length) return { status: 'unicode', version, unknown };
    const fields = [];
    ['A', 'B'].forEach((who, i) => {
      for (const [key, meaning] of DOC_FIELDS) {
        if (ours.receipt.documents[i][key] !== engine.receipt.documents[i][key]) fields.push(`document ${who}'s ${meaning}`);
      }
    });
    for (const key of ['algorithm', 'matches', 'verdict']) {
      if (ours.receipt[key] !== engine.receipt[key]) fields.push(key);
    }
    // Same fields but another hash: the engine's canonical form or hash is off.
    if (!fields.length) fields.push('the receipt SHA-256');
    return { status: 'differs', fields, sha256: ours.sha256 };
  }

  return {
    ALGORITHM, ALGORITHMS, UNICODE, sha256Hex, normalize, SCRIPT_RANGES, isScriptChar, words,
    shingles, h0, constants, permute, signature, signatureHex, countMatches, verdict, canonical,
    receipt, ruleOf, unicodeVersion, unknownCodePoints, check,
  };
})();
