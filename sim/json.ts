/**
 * JSON the way the server's two libraries see it, for the telemetry, attribute and RPC routes:
 * - `parseGson`: Gson's `JsonParser.parseString`, which is **lenient** (unquoted names and strings, single quotes,
 *   `//` `#` `/* *\/` comments, `=`/`=>` and `;` separators, empty array slots as null) and keeps every number as the
 *   literal text (`LazilyParsedNumber`): the telemetry and attribute bodies (`C/TelemetryController.java`, `JC`).
 * - `parseJackson`: Jackson's `readTree` (strict JSON, trailing content ignored): RPC bodies and device replies.
 * - `classifyNumber` / `classifyString`: `JsonConverter#parseNumericValue` and the numeric-string cast (`JC:548-582`,
 *   `JC:304-327`).
 * - writers: Gson's compact `toString` (how a JSON value is stored), Jackson's output (doubles `Double.toString`).
 */
import type { KvEntry } from './types';
import { isParsable, javaDouble } from './values';

export type GNode =
  | { t: 'obj'; m: Map<string, GNode> }
  | { t: 'arr'; a: GNode[] }
  | { t: 'str'; v: string }
  | { t: 'num'; raw: string }
  | { t: 'bool'; v: boolean }
  | { t: 'null' };

export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

const NUMBER_RE = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/;

/** Gson `JsonReader#isLiteral`: characters that end an unquoted literal. */
function endsLiteral(c: string | undefined): boolean {
  return c === undefined || '/\\;#={}[]:, \t\f\r\n'.includes(c);
}

class Reader {
  pos = 0;
  constructor(
    private readonly s: string,
    private readonly lenient: boolean,
  ) {}

  fail(msg: string): never {
    throw new JsonSyntaxError(`${msg} at position ${this.pos}`);
  }

  ws(): void {
    const s = this.s;
    for (;;) {
      const c = s[this.pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
        this.pos++;
      } else if (this.lenient && c === '#') {
        while (this.pos < s.length && s[this.pos] !== '\n') this.pos++;
      } else if (this.lenient && c === '/' && s[this.pos + 1] === '/') {
        while (this.pos < s.length && s[this.pos] !== '\n') this.pos++;
      } else if (this.lenient && c === '/' && s[this.pos + 1] === '*') {
        const end = s.indexOf('*/', this.pos + 2);
        if (end < 0) this.fail('Unterminated comment');
        this.pos = end + 2;
      } else {
        return;
      }
    }
  }

  get eof(): boolean {
    return this.pos >= this.s.length;
  }

  peek(): string | undefined {
    return this.s[this.pos];
  }

  value(): GNode {
    this.ws();
    const c = this.peek();
    if (c === undefined) this.fail('End of input');
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"' || (this.lenient && c === "'")) return { t: 'str', v: this.string(c) };
    const kw = this.keyword();
    if (kw) return kw;
    const m = NUMBER_RE.exec(this.s.slice(this.pos, this.pos + 400));
    if (m && m[0].length > 0 && (this.lenient ? endsLiteral(this.s[this.pos + m[0].length]) : true)) {
      this.pos += m[0].length;
      return { t: 'num', raw: m[0] };
    }
    if (!this.lenient) this.fail(`Unexpected character '${c}'`);
    const lit = this.literal();
    if (lit === '') this.fail('Expected value');
    return { t: 'str', v: lit };
  }

  private keyword(): GNode | null {
    for (const [word, node] of [
      ['true', { t: 'bool', v: true }],
      ['false', { t: 'bool', v: false }],
      ['null', { t: 'null' }],
    ] as const) {
      const part = this.s.slice(this.pos, this.pos + word.length);
      const matches = this.lenient ? part.toLowerCase() === word : part === word;
      if (matches && (!this.lenient || endsLiteral(this.s[this.pos + word.length]))) {
        this.pos += word.length;
        return node;
      }
    }
    return null;
  }

  private literal(): string {
    const start = this.pos;
    while (!endsLiteral(this.s[this.pos])) this.pos++;
    return this.s.slice(start, this.pos);
  }

  private string(q: string): string {
    const s = this.s;
    this.pos++;
    let out = '';
    for (;;) {
      const c = s[this.pos++];
      if (c === undefined) this.fail('Unterminated string');
      if (c === q) return out;
      if (c === '\\') {
        const e = s[this.pos++];
        switch (e) {
          case 'u': {
            const hex = s.slice(this.pos, this.pos + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('Malformed Unicode escape');
            out += String.fromCharCode(parseInt(hex, 16));
            this.pos += 4;
            break;
          }
          case 't':
            out += '\t';
            break;
          case 'b':
            out += '\b';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 'f':
            out += '\f';
            break;
          case '"':
          case '\\':
          case '/':
            out += e;
            break;
          case "'":
          case '\n':
            if (!this.lenient) this.fail('Invalid escape sequence');
            out += e;
            break;
          default:
            this.fail('Invalid escape sequence');
        }
      } else {
        if (!this.lenient && c < ' ') this.fail('Illegal unquoted character');
        out += c;
      }
    }
  }

  private name(): string {
    this.ws();
    const c = this.peek();
    if (c === '"' || (this.lenient && c === "'")) return this.string(c);
    if (!this.lenient) this.fail('Expected name');
    const lit = this.literal();
    if (lit === '') this.fail('Expected name');
    return lit;
  }

  private object(): GNode {
    this.pos++;
    const m = new Map<string, GNode>();
    this.ws();
    if (this.peek() === '}') {
      this.pos++;
      return { t: 'obj', m };
    }
    for (;;) {
      const k = this.name();
      this.ws();
      const sep = this.peek();
      if (sep === ':') this.pos++;
      else if (this.lenient && sep === '=') this.pos += this.s[this.pos + 1] === '>' ? 2 : 1;
      else this.fail("Expected ':'");
      m.set(k, this.value());
      this.ws();
      const c = this.peek();
      if (c === ',' || (this.lenient && c === ';')) {
        this.pos++;
        continue;
      }
      if (c === '}') {
        this.pos++;
        return { t: 'obj', m };
      }
      this.fail('Unterminated object');
    }
  }

  private array(): GNode {
    this.pos++;
    const a: GNode[] = [];
    this.ws();
    if (this.peek() === ']') {
      this.pos++;
      return { t: 'arr', a };
    }
    for (;;) {
      this.ws();
      const c = this.peek();
      // lenient: an empty slot (",," or a trailing ",]") is a null
      if (this.lenient && (c === ',' || c === ';' || (c === ']' && a.length > 0))) a.push({ t: 'null' });
      else a.push(this.value());
      this.ws();
      const d = this.peek();
      if (d === ',' || (this.lenient && d === ';')) {
        this.pos++;
        continue;
      }
      if (d === ']') {
        this.pos++;
        return { t: 'arr', a };
      }
      this.fail('Unterminated array');
    }
  }
}

/** Gson `JsonParser.parseString` (lenient; an empty document is JsonNull; "Did not consume the entire document"). */
export function parseGson(text: string): GNode {
  const r = new Reader(text, true);
  r.ws();
  if (r.eof) return { t: 'null' };
  const v = r.value();
  r.ws();
  if (!r.eof && v.t !== 'null') throw new JsonSyntaxError('Did not consume the entire document.');
  return v;
}

/** Jackson `ObjectMapper#readTree` (strict; trailing content ignored, FAIL_ON_TRAILING_TOKENS is off by default). */
export function parseJackson(text: string): GNode {
  const r = new Reader(text, false);
  const v = r.value();
  // a root-level scalar must end at a separator ("123abc", "trueish" are unrecognized tokens)
  if ((v.t === 'num' || v.t === 'bool' || v.t === 'null') && /^[A-Za-z0-9_.$-]/.test(r.peek() ?? ' '))
    r.fail('Unrecognized token');
  return v;
}

// ---------------------------------------------------------------------------------------------------------------
// Writers

/** A JSON string literal; Gson's JsonWriter also escapes U+2028 and U+2029. */
function quote(s: string, gson: boolean): string {
  const q = JSON.stringify(s);
  return gson ? q.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') : q;
}

/**
 * Gson `JsonElement#toString`: compact, numbers as their literal (how a JSON telemetry or attribute value is stored).
 */
export function gsonToString(n: GNode): string {
  switch (n.t) {
    case 'obj':
      return `{${[...n.m].map(([k, v]) => `${quote(k, true)}:${gsonToString(v)}`).join(',')}}`;
    case 'arr':
      return `[${n.a.map(gsonToString).join(',')}]`;
    case 'str':
      return quote(n.v, true);
    case 'num':
      return n.raw;
    case 'bool':
      return n.v ? 'true' : 'false';
    case 'null':
      return 'null';
  }
}

/** Jackson's tree output: integers as they are, other numbers as Java doubles (`1.0`, `1.0E7`). */
export function jacksonText(n: GNode): string {
  switch (n.t) {
    case 'obj':
      return `{${[...n.m].map(([k, v]) => `${quote(k, false)}:${jacksonText(v)}`).join(',')}}`;
    case 'arr':
      return `[${n.a.map(jacksonText).join(',')}]`;
    case 'str':
      return quote(n.v, false);
    case 'num':
      return /^-?[0-9]+$/.test(n.raw)
        ? /^-0+$/.test(n.raw)
          ? '0'
          : n.raw.replace(/^(-?)0+(?=\d)/, '$1')
        : javaDouble(Number(n.raw));
    case 'bool':
      return n.v ? 'true' : 'false';
    case 'null':
      return 'null';
  }
}

/** The tree as a JS value (numbers lose their literal form). */
export function toJs(n: GNode): unknown {
  switch (n.t) {
    case 'obj':
      return Object.fromEntries([...n.m].map(([k, v]) => [k, toJs(v)]));
    case 'arr':
      return n.a.map(toJs);
    case 'str':
      return n.v;
    case 'num':
      return Number(n.raw);
    case 'bool':
      return n.v;
    case 'null':
      return null;
  }
}

/** A JS value as a tree (for replies given as JS values). */
export function fromJs(v: unknown): GNode {
  if (v === null || v === undefined) return { t: 'null' };
  if (typeof v === 'boolean') return { t: 'bool', v };
  if (typeof v === 'number') return Number.isFinite(v) ? { t: 'num', raw: String(v) } : { t: 'null' };
  if (typeof v === 'string') return { t: 'str', v };
  if (Array.isArray(v)) return { t: 'arr', a: v.map(fromJs) };
  if (typeof v === 'object')
    return { t: 'obj', m: new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromJs(x)])) };
  return { t: 'str', v: String(v) };
}

/** A Java double in Jackson output (`23.0`, `1.0E7`). */
export class JDouble {
  constructor(readonly v: number) {}
}
/** Already serialised JSON text. */
export class JRaw {
  constructor(readonly text: string) {}
}
export type JOut = null | boolean | string | number | JDouble | JRaw | JOut[] | { [k: string]: JOut };

/** Jackson-like serialisation of a response value: numbers as longs, `JDouble` as Java doubles, `JRaw` verbatim. */
export function writeJava(v: JOut): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : javaDouble(v);
  if (v instanceof JDouble) return javaDouble(v.v);
  if (v instanceof JRaw) return v.text;
  if (Array.isArray(v)) return `[${v.map(writeJava).join(',')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}:${writeJava(x)}`)
    .join(',')}}`;
}

// ---------------------------------------------------------------------------------------------------------------
// JsonConverter value typing

interface Decimal {
  neg: boolean;
  /** unscaled digits without sign, no leading zeros ("0" for zero) */
  digits: string;
  scale: number;
}

/** `new BigDecimal(s)` for what Gson's number grammar or `isParsable` accept; null when it is not a decimal. */
function decimal(s: string): Decimal | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const frac = m[3] ?? '';
  const exp = m[4] !== undefined ? Number(m[4]) : 0;
  const digits = (m[2] + frac).replace(/^0+(?=\d)/, '');
  return { neg: m[1] === '-', digits: digits === '' ? '0' : digits, scale: frac.length - exp };
}

/** `BigDecimal#toPlainString` (absurd exponents, beyond 10,000 digits, keep the scientific form: no giant strings). */
function plain(d: Decimal): string {
  const sign = d.neg && d.digits !== '0' ? '-' : '';
  if (Math.abs(d.scale) > 10_000) return `${sign}${d.digits}E${-d.scale}`;
  if (d.scale <= 0) return sign + d.digits + (d.digits === '0' ? '' : '0'.repeat(-d.scale));
  const padded = d.digits.padStart(d.scale + 1, '0');
  return `${sign}${padded.slice(0, padded.length - d.scale)}.${padded.slice(padded.length - d.scale)}`;
}

const LONG_MAX = 9223372036854775807n;

/**
 * `JsonConverter#parseNumericValue` (`JC:304-327`): integral values (after stripping trailing zeros) that are not a
 * "simple double" (a `.` and no exponent) are LONG, or a STRING beyond 64 bits; others DOUBLE, or a STRING with more
 * than 16 decimals. `key`-less: the caller adds the key and ts.
 */
export function classifyNumber(raw: string, ts: number): KvEntry | null {
  const d = decimal(raw);
  if (!d) return null;
  const stripped = d.digits === '0' ? 0 : d.digits.length - d.digits.replace(/0+$/, '').length;
  const strippedScale = d.digits === '0' ? 0 : d.scale - stripped;
  const simpleDouble = raw.includes('.') && !/[eE]/.test(raw);
  if (strippedScale <= 0 && !simpleDouble) {
    if (-strippedScale > 19) return { ts, type: 'STRING', value: plain(d) };
    const core =
      d.digits === '0' ? 0n : BigInt(d.digits.slice(0, d.digits.length - stripped)) * 10n ** BigInt(-strippedScale);
    const v = d.neg ? -core : core;
    if (v > LONG_MAX || v < -LONG_MAX - 1n) return { ts, type: 'STRING', value: plain(d) };
    return { ts, type: 'LONG', value: Number(v) };
  }
  if (d.scale <= 16) return { ts, type: 'DOUBLE', value: Number(raw) };
  return { ts, type: 'STRING', value: plain(d) };
}

/** A string value: cast to a number when it `isParsable` (`transport.json.type_cast_enabled`), else STRING. */
export function classifyString(s: string, ts: number): KvEntry {
  if (isParsable(s)) {
    const n = classifyNumber(s, ts);
    if (n) return n;
  }
  return { ts, type: 'STRING', value: s };
}

/**
 * `JsonConverter#parseValues` (`JC:548-582`): the entries of one object, in order. Throws JsonSyntaxError
 * "Can't parse value: null" for a null.
 */
export function parseValues(obj: Map<string, GNode>, ts: number): [string, KvEntry][] {
  const out: [string, KvEntry][] = [];
  for (const [k, v] of obj) {
    switch (v.t) {
      case 'str':
        out.push([k, classifyString(v.v, ts)]);
        break;
      case 'bool':
        out.push([k, { ts, type: 'BOOLEAN', value: v.v }]);
        break;
      case 'num': {
        const n = classifyNumber(v.raw, ts);
        out.push([k, n ?? { ts, type: 'STRING', value: v.raw }]);
        break;
      }
      case 'obj':
      case 'arr':
        out.push([k, { ts, type: 'JSON', value: gsonToString(v) }]);
        break;
      case 'null':
        throw new JsonSyntaxError("Can't parse value: null");
    }
  }
  return out;
}
