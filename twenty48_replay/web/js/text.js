// text.js: string helpers shared by the record reader and the fair-play checks.
//
// The spec counts seeds in Unicode CODE POINTS and hashes their UTF-8 bytes; JavaScript
// strings are UTF-16, so a lone surrogate (possible through a JSON escape such as
// "\ud800") has no UTF-8 form and must be found before encoding (TextEncoder would
// silently turn it into U+FFFD).  The reason strings must read exactly like the Python
// reference's, which prints values with repr(): pyRepr and pyFloatRepr reproduce that.
//
// API:
//   codePointCount(s)       -> number of code points (a lone surrogate counts as one)
//   loneSurrogateAt(s)      -> 0-based code point index of the first lone surrogate, or -1
//   utf8Encode(s)           -> Uint8Array (call only when loneSurrogateAt(s) === -1)
//   utf8Length(s)           -> UTF-8 bytes of s, a lone surrogate counting 3 (as Python's
//                              "surrogatepass" does when it measures a record's size)
//   codePointSlice(s, a, b) -> s sliced by code point indices (Python's s[a:b])
//   pyRepr(s)               -> Python's repr() of a str
//   pyFloatRepr(x)          -> Python's repr() of a float
//   groupThousands(n)       -> "1,000,001" (Python's f"{n:,}")

export function codePointCount(s) {
  let count = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

export function loneSurrogateAt(s) {
  let index = 0;
  for (let i = 0; i < s.length; i++, index++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return index;
  }
  return -1;
}

const TEXT_ENCODER = new TextEncoder();

export function utf8Encode(s) {
  return TEXT_ENCODER.encode(s);
}

export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

export function codePointSlice(s, start, end) {
  const points = Array.from(s);
  return points.slice(start, end).join("");
}

// Python's str.isprintable(): not printable are the categories Cc, Cf, Cs, Co, Cn, Zl, Zp
// and Zs other than the space itself.
const TEXT_UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function textHex(code, width) {
  return code.toString(16).padStart(width, "0");
}

export function pyRepr(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (let i = 0; i < s.length; i++) {
    let code = s.charCodeAt(i);
    let ch = s[i];
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < s.length) {
      const low = s.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = (code - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
        ch = s.slice(i, i + 2);
        i++;
      }
    }
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += "\\x" + textHex(code, 2);
    else if (code < 0x7f) out += ch;
    else if (code >= 0xd800 && code <= 0xdfff) out += "\\u" + textHex(code, 4);
    else if (ch !== " " && TEXT_UNPRINTABLE.test(ch)) {
      if (code <= 0xff) out += "\\x" + textHex(code, 2);
      else if (code <= 0xffff) out += "\\u" + textHex(code, 4);
      else out += "\\U" + textHex(code, 8);
    } else out += ch;
  }
  return out + quote;
}

export function pyFloatRepr(x) {
  if (Number.isNaN(x)) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  // toExponential() without digits gives the shortest round-trip digits, as repr() does.
  const [mantissa, exp] = x.toExponential().split("e");
  const e = Number(exp);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  if (e >= -4 && e < 16) {
    if (e < 0) return sign + "0." + "0".repeat(-e - 1) + digits;
    if (digits.length <= e + 1) return sign + digits + "0".repeat(e + 1 - digits.length) + ".0";
    return sign + digits.slice(0, e + 1) + "." + digits.slice(e + 1);
  }
  const body = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
  const magnitude = String(Math.abs(e)).padStart(2, "0");
  return sign + body + "e" + (e < 0 ? "-" : "+") + magnitude;
}

export function groupThousands(n) {
  const text = String(n);
  return text.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
