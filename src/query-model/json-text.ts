/**
 * JSON text helpers for the editor's JSON view: parse with a line and column for the error, find where a value
 * named by a validation error's field path starts, and the two printed forms of a query.
 *
 * Pure: no DOM, no Node-RED, no I/O.
 */

import { toSegments, type Path } from './paths';

/** A place in a text: 1-based line and column, and the 0-based offset. */
export interface TextPosition {
  line: number;
  column: number;
  offset: number;
}

export type ParseResult =
  { ok: true; value: unknown } | { ok: false; message: string; line: number; column: number; offset: number };

// ---------------------------------------------------------------------------------------------------------------
// Positions
// ---------------------------------------------------------------------------------------------------------------

/** Line and column (1-based) of a 0-based offset; an offset past the end points just after the last character. */
export function positionAt(text: string, offset: number): TextPosition {
  const at = Math.max(0, Math.min(Math.floor(offset), text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: at - lineStart + 1, offset: at };
}

/** The 0-based offset of a 1-based line and column (clamped to the text). */
export function offsetAt(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  const lineEnd = text.indexOf('\n', offset);
  const max = lineEnd < 0 ? text.length : lineEnd;
  return Math.min(offset + Math.max(0, column - 1), max);
}

// ---------------------------------------------------------------------------------------------------------------
// A small JSON scanner that keeps positions
// ---------------------------------------------------------------------------------------------------------------

interface JsonNode {
  /** Offset of the value's first character. */
  start: number;
  kind: 'object' | 'array' | 'scalar';
  /** For objects, in text order (a repeated key: the last one wins, as in JSON.parse). */
  members?: { key: string; keyStart: number; value: JsonNode }[];
  items?: JsonNode[];
}

interface ScanResult {
  /** As much of the tree as was read before an error. */
  root?: JsonNode;
  error?: { offset: number; message: string };
}

class ScanError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Reads a JSON text, keeping where every value starts; stops at the first error (strict JSON, as JSON.parse). */
function scanJson(text: string): ScanResult {
  let i = 0;
  const result: ScanResult = {};

  const ws = (): void => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const unexpected = (): never => {
    if (i >= text.length) throw new ScanError(text.length, 'Unexpected end of JSON input');
    throw new ScanError(i, `Unexpected token ${JSON.stringify(text[i])}`);
  };
  const expect = (ch: string): void => {
    if (text[i] !== ch) unexpected();
    i++;
  };

  const readString = (): string => {
    const start = i;
    expect('"');
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return JSON.parse(text.slice(start, i)) as string;
      }
      if (c < 32) throw new ScanError(i, 'Bad control character in string literal');
      if (c === 92) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new ScanError(i, 'Bad Unicode escape');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) {
          i += 2;
        } else {
          throw new ScanError(i, 'Bad escaped character');
        }
      } else {
        i++;
      }
    }
    throw new ScanError(text.length, 'Unterminated string');
  };

  const readValue = (attach: (n: JsonNode) => void, depth: number): void => {
    ws();
    if (depth > 512) throw new ScanError(i, 'Too deeply nested');
    const start = i;
    const c = text[i];
    if (c === '{') {
      const node: JsonNode = { start, kind: 'object', members: [] };
      attach(node);
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const keyStart = i;
        if (text[i] !== '"') unexpected();
        const key = readString();
        ws();
        expect(':');
        readValue((v) => node.members!.push({ key, keyStart, value: v }), depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        expect('}');
        return;
      }
    }
    if (c === '[') {
      const node: JsonNode = { start, kind: 'array', items: [] };
      attach(node);
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        readValue((v) => node.items!.push(v), depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        expect(']');
        return;
      }
    }
    if (c === '"') {
      attach({ start, kind: 'scalar' });
      readString();
      return;
    }
    for (const word of ['true', 'false', 'null']) {
      if (c === word[0]) {
        for (let k = 0; k < word.length; k++, i++) if (text[i] !== word[k]) unexpected();
        attach({ start, kind: 'scalar' });
        return;
      }
    }
    NUMBER_RE.lastIndex = i;
    const m = NUMBER_RE.exec(text);
    if (!m) {
      if (c === '-') i++;
      unexpected();
    }
    i += m![0].length;
    attach({ start, kind: 'scalar' });
  };

  try {
    readValue((n) => {
      result.root = n;
    }, 0);
    ws();
    if (i < text.length) throw new ScanError(i, `Unexpected non-whitespace character after JSON`);
  } catch (e) {
    if (!(e instanceof ScanError)) throw e;
    result.error = { offset: e.offset, message: e.message };
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// Public helpers
// ---------------------------------------------------------------------------------------------------------------

/**
 * JSON.parse with the error's place: 1-based line and column in the (multi-line) text. The place comes from the
 * engine's message ("at position N", "(line X column Y)" or Firefox's "at line X column Y"); when the message has
 * none (V8's "Unexpected token 'x', "..." is not valid JSON"), from a scan of the text, else the end of the text.
 * The message is the engine's own.
 */
export function parseJsonText(text: string): ParseResult {
  const source = typeof text === 'string' ? text : String(text);
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    let offset: number | undefined;
    const lc = /line (\d+) column (\d+)/.exec(message);
    const pos = /at position (\d+)/.exec(message);
    if (lc) offset = offsetAt(source, Number(lc[1]), Number(lc[2]));
    else if (pos) offset = Number(pos[1]);
    else {
      let scanned: ScanResult | undefined;
      try {
        scanned = scanJson(source);
      } catch {
        scanned = undefined;
      }
      offset = scanned?.error ? scanned.error.offset : source.length;
    }
    const p = positionAt(source, offset);
    return { ok: false, message, line: p.line, column: p.column, offset: p.offset };
  }
}

export interface LocateOptions {
  /** When the path is not in the text, give the place of its deepest ancestor that is (possibly the root). */
  nearest?: boolean;
}

/**
 * Where the value at `path` starts in a JSON text, without JSON.parse (the text may even be broken after that
 * value). `path` is what TbInputError.field gives (`query.keyFilters[0].predicate.operation`; the leading `query.`
 * is optional, as is `msg.<property>.`) or an array of segments. Undefined when the path is not in the text (with
 * `nearest`: the place of the deepest ancestor that is) or the text does not start with a JSON value.
 */
export function locatePath(text: string, path: Path, options: LocateOptions = {}): TextPosition | undefined {
  if (typeof text !== 'string') return undefined;
  let root: JsonNode | undefined;
  try {
    root = scanJson(text).root;
  } catch {
    return undefined;
  }
  if (!root) return undefined;
  let segs = toSegments(path);
  const rootHas = (key: string): boolean => !!root!.members && root!.members.some((m) => m.key === key);
  if (segs[0] === 'msg' && segs.length >= 2 && !rootHas('msg')) segs = segs.slice(2);
  else if (segs[0] === 'query' && !rootHas('query')) segs = segs.slice(1);

  let node: JsonNode = root;
  for (const seg of segs) {
    let next: JsonNode | undefined;
    if (node.kind === 'object') {
      const key = String(seg);
      for (const m of node.members!) if (m.key === key) next = m.value;
    } else if (node.kind === 'array' && typeof seg === 'number') {
      next = node.items![seg];
    }
    if (!next) return options.nearest ? positionAt(text, node.start) : undefined;
    node = next;
  }
  return positionAt(text, node.start);
}

/** The JSON view's text: 2-space indentation. */
export function formatQuery(value: unknown): string {
  const s = JSON.stringify(value, null, 2);
  return s === undefined ? '' : s;
}

/** The one-line form stored in the flow. */
export function compactQuery(value: unknown): string {
  const s = JSON.stringify(value);
  return s === undefined ? '' : s;
}

/**
 * An engine's JSON.parse message in one short line for a person, without the engine's own position and text
 * excerpt (the dialog gives the line and column itself): `Unexpected token 'D', "…" is not valid JSON` becomes
 * `Unexpected token 'D'`, `Unexpected end of JSON input` stays, ` at position 5` and `(line 2 column 3)` go.
 */
export function shortJsonMessage(message: string): string {
  const short = String(message)
    .replace(/,\s*(\.\.\.)?"[\s\S]*"(\.\.\.)?\s+is not valid JSON\s*$/, '')
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s+at (position \d+|line \d+ column \d+ of the JSON data)/, '')
    .replace(/\s+/g, ' ')
    .trim();
  return short || String(message);
}
