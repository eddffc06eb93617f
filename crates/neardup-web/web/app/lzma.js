// An LZMA decoder for the embedded wasm (the `.lzma` format that
// `xz --format=lzma` writes: one properties byte, the dictionary size, the
// unpacked size, then the range-coded stream). LZMA makes the wasm 26%
// smaller than gzip -9 does, and browsers have no LZMA of their own
// (DecompressionStream knows gzip and deflate only), so the page carries
// this, after the LZMA SDK's reference decoder (LzmaSpec.cpp, public
// domain), step for step. It needs no imports: the tests run it in node.

/** The bytes that `input`, one `.lzma` stream, holds; throws if it is not one. */
export function lzmaDecode(input) {
  const fail = (why) => {
    throw new Error(`the embedded wasm is not a valid LZMA stream: ${why}`);
  };
  let props = input[0];
  if (props >= 9 * 5 * 5) fail('bad properties');
  const lc = props % 9;
  props = (props / 9) | 0;
  const lp = props % 5;
  const pb = (props / 5) | 0;
  const dictSize = Math.max((input[1] | (input[2] << 8) | (input[3] << 16) | (input[4] << 24)) >>> 0, 4096);
  // The unpacked size, or -1 for unknown (then an end marker closes the stream).
  let size = 0;
  let unknown = true;
  for (let i = 0; i < 8; i++) {
    if (input[5 + i] !== 0xff) unknown = false;
    size += input[5 + i] * 2 ** (8 * i);
  }
  if (unknown) size = -1;

  // The range decoder.
  let pos = 13;
  if (input[pos++] !== 0) fail('bad first byte');
  let range = 0xffffffff;
  let code = 0;
  for (let i = 0; i < 4; i++) code = code * 256 + input[pos++];
  if (code === range) fail('bad range coder start');

  // Every probability in one array; the offsets name the models.
  const LIT = 0;
  const litSize = 0x300 << (lc + lp);
  const IS_MATCH = LIT + litSize;
  const IS_REP = IS_MATCH + 192;
  const IS_REP_G0 = IS_REP + 12;
  const IS_REP_G1 = IS_REP_G0 + 12;
  const IS_REP_G2 = IS_REP_G1 + 12;
  const IS_REP0_LONG = IS_REP_G2 + 12;
  const POS_SLOT = IS_REP0_LONG + 192;
  const POS_SPECIAL = POS_SLOT + 4 * 64;
  const ALIGN = POS_SPECIAL + 115;
  const LEN = ALIGN + 16;
  const REP_LEN = LEN + 514;
  const probs = new Uint16Array(REP_LEN + 514).fill(1024);

  // `range` and `code` live in a typed array, as unsigned 32-bit words:
  // kept in variables, V8 would box them as heap numbers at every step.
  const rc = new Uint32Array(2); // [range, code]
  rc[0] = range;
  rc[1] = code;
  const bit = (i) => {
    const p = probs[i];
    const bound = Math.imul(rc[0] >>> 11, p) >>> 0;
    let b;
    if (rc[1] < bound) {
      rc[0] = bound;
      probs[i] = p + ((2048 - p) >>> 5);
      b = 0;
    } else {
      rc[0] -= bound;
      rc[1] -= bound;
      probs[i] = p - (p >>> 5);
      b = 1;
    }
    if (rc[0] < 0x1000000) {
      rc[0] <<= 8;
      rc[1] = (rc[1] << 8) | input[pos++];
    }
    return b;
  };
  const tree = (base, bits) => {
    let m = 1;
    for (let i = 0; i < bits; i++) m = (m << 1) + bit(base + m);
    return m - (1 << bits);
  };
  const reverse = (base, bits) => {
    let m = 1;
    let symbol = 0;
    for (let i = 0; i < bits; i++) {
      const b = bit(base + m);
      m = (m << 1) + b;
      symbol |= b << i;
    }
    return symbol;
  };
  const direct = (bits) => {
    let result = 0;
    for (let i = 0; i < bits; i++) {
      rc[0] >>>= 1;
      let b = 0;
      if (rc[1] >= rc[0]) {
        rc[1] -= rc[0];
        b = 1;
      }
      result = result * 2 + b;
      if (rc[0] < 0x1000000) {
        rc[0] <<= 8;
        rc[1] = (rc[1] << 8) | input[pos++];
      }
    }
    return result;
  };
  // A length model: choice, choice 2, low[16][8], mid[16][8], high[256].
  const length = (base, posState) => {
    if (bit(base) === 0) return tree(base + 2 + posState * 8, 3);
    if (bit(base + 1) === 0) return 8 + tree(base + 2 + 128 + posState * 8, 3);
    return 16 + tree(base + 2 + 256, 8);
  };

  let out = new Uint8Array(size >= 0 ? size : Math.max(input.length * 4, 1 << 16));
  let outPos = 0;
  const put = (b) => {
    if (outPos === out.length) {
      const bigger = new Uint8Array(out.length * 2);
      bigger.set(out);
      out = bigger;
    }
    out[outPos++] = b;
  };
  const pbMask = (1 << pb) - 1;
  const lpMask = (1 << lp) - 1;
  let state = 0;
  let rep0 = 0;
  let rep1 = 0;
  let rep2 = 0;
  let rep3 = 0;
  for (;;) {
    if (outPos === size) break; // a known size needs no end marker
    if (pos > input.length) fail('truncated');
    const posState = outPos & pbMask;
    if (bit(IS_MATCH + (state << 4) + posState) === 0) {
      const prev = outPos > 0 ? out[outPos - 1] : 0;
      const base = LIT + 0x300 * (((outPos & lpMask) << lc) + (prev >>> (8 - lc)));
      let symbol = 1;
      if (state >= 7) {
        let match = out[outPos - rep0 - 1];
        do {
          const matchBit = (match >>> 7) & 1;
          match <<= 1;
          const b = bit(base + ((1 + matchBit) << 8) + symbol);
          symbol = (symbol << 1) | b;
          if (matchBit !== b) break;
        } while (symbol < 0x100);
      }
      while (symbol < 0x100) symbol = (symbol << 1) | bit(base + symbol);
      put(symbol - 0x100);
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    let len;
    if (bit(IS_REP + state) !== 0) {
      if (outPos === 0) fail('a repeat before any byte');
      if (bit(IS_REP_G0 + state) === 0) {
        if (bit(IS_REP0_LONG + (state << 4) + posState) === 0) {
          state = state < 7 ? 9 : 11;
          put(out[outPos - rep0 - 1]);
          continue;
        }
      } else {
        let dist;
        if (bit(IS_REP_G1 + state) === 0) {
          dist = rep1;
        } else {
          if (bit(IS_REP_G2 + state) === 0) {
            dist = rep2;
          } else {
            dist = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = dist;
      }
      len = length(REP_LEN, posState);
      state = state < 7 ? 8 : 11;
    } else {
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      len = length(LEN, posState);
      state = state < 7 ? 7 : 10;
      // The distance.
      const slot = tree(POS_SLOT + (len < 3 ? len : 3) * 64, 6);
      if (slot < 4) {
        rep0 = slot;
      } else {
        const bits = (slot >>> 1) - 1;
        let dist = (2 | (slot & 1)) * 2 ** bits;
        if (slot < 14) dist += reverse(POS_SPECIAL + dist - slot, bits);
        else dist += direct(bits - 4) * 16 + reverse(ALIGN, 4);
        if (dist === 0xffffffff) {
          if (rc[1] !== 0) fail('bad end marker');
          break;
        }
        rep0 = dist;
      }
      if (rep0 >= outPos || rep0 >= dictSize) fail('a distance before the start');
    }
    len += 2;
    if (size >= 0 && outPos + len > size) fail('longer than its size');
    for (let i = 0; i < len; i++) put(out[outPos - rep0 - 1]);
  }
  if (size >= 0 && outPos !== size) fail('shorter than its size');
  return out.subarray(0, outPos);
}
