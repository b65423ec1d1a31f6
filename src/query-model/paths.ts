/**
 * Path operations of the editor's builder model: the query object is the truth, and each control of the builder
 * reads and patches one path in it. A field that no control covers is never dropped; {@link heldPaths} lists those
 * fields so that the builder can show them as "held".
 *
 * A path is an array of segments (`['keyFilters', 0, 'predicate', 'operation']`) or a string in dotted or bracket
 * form (`'keyFilters.0.predicate.operation'`, `'keyFilters[0].predicate.operation'`). In a string, a segment made of
 * digits only is an array index.
 *
 * Pure: no DOM, no Node-RED, no I/O.
 */

export type PathSegment = string | number;
export type Path = string | readonly PathSegment[];

type Container = Record<string, unknown> | unknown[];

/** Keys that would reach an object's prototype: never read or written through a path. */
const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);
const hasOwn = Object.prototype.hasOwnProperty;
const INDEX_RE = /^(?:0|[1-9]\d*)$/;

function isContainer(v: unknown): v is Container {
  return typeof v === 'object' && v !== null;
}

/**
 * The segments of a path. `'a.b[0].c'` and `'a.b.0.c'` both give `['a', 'b', 0, 'c']`; a bracket may also hold a
 * quoted key (`a["x.y"]`). An array is returned as a copy, digit-only string segments turned into numbers.
 */
export function toSegments(path: Path): PathSegment[] {
  if (typeof path !== 'string') {
    return path.map((s) => (typeof s === 'string' && INDEX_RE.test(s) ? Number(s) : s));
  }
  const out: PathSegment[] = [];
  const re = /\[\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\]]*?))\s*\]|([^.[\]]+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) {
    if (m[1] !== undefined) out.push(m[1].replace(/\\(.)/g, '$1'));
    else if (m[2] !== undefined) out.push(m[2].replace(/\\(.)/g, '$1'));
    else {
      const s = m[3] !== undefined ? m[3] : m[4];
      out.push(INDEX_RE.test(s) ? Number(s) : s);
    }
  }
  return out;
}

/** `['keyFilters', 0, 'key']` -> `'keyFilters.0.key'`. */
export function pathString(path: Path): string {
  return toSegments(path).join('.');
}

function own(c: Container, seg: PathSegment): boolean {
  if (Array.isArray(c)) return typeof seg === 'number' && seg < c.length;
  return !UNSAFE_KEYS.has(String(seg)) && hasOwn.call(c, String(seg));
}

function child(c: Container, seg: PathSegment): unknown {
  return Array.isArray(c) ? c[seg as number] : (c as Record<string, unknown>)[String(seg)];
}

/** The value at `path`, or undefined when any part of the path is missing. An empty path gives `obj`. */
export function getPath(obj: unknown, path: Path): unknown {
  let cur: unknown = obj;
  for (const seg of toSegments(path)) {
    if (!isContainer(cur) || !own(cur, seg)) return undefined;
    cur = child(cur, seg);
  }
  return cur;
}

/** True when `path` is present in `obj` (even with the value undefined or null). */
export function hasPath(obj: unknown, path: Path): boolean {
  let cur: unknown = obj;
  for (const seg of toSegments(path)) {
    if (!isContainer(cur) || !own(cur, seg)) return false;
    cur = child(cur, seg);
  }
  return true;
}

function checkSegment(seg: PathSegment): void {
  if (typeof seg === 'number' ? !Number.isSafeInteger(seg) || seg < 0 : UNSAFE_KEYS.has(seg)) {
    throw new Error(`invalid path segment ${JSON.stringify(seg)}`);
  }
}

function put(c: Container, seg: PathSegment, value: unknown): void {
  if (Array.isArray(c) && typeof seg === 'number') {
    while (c.length < seg) c.push(null); // no holes: JSON shows them as null anyway
    c[seg] = value;
  } else {
    (c as Record<string, unknown>)[String(seg)] = value;
  }
}

/**
 * Sets the value at `path` in place and returns `obj`. Missing or non-object parts along the way are created: an
 * array when the next segment is a number, an object otherwise. An existing key keeps its place; a new key is
 * appended at the end. An index past the end of an array pads it with null. A string key inside an existing array
 * is an error (it would be lost in JSON), as are the segments `__proto__`, `prototype` and `constructor`.
 */
export function setPath<T extends object>(obj: T, path: Path, value: unknown): T {
  const segs = toSegments(path);
  if (segs.length === 0) throw new Error('setPath needs a non-empty path');
  if (!isContainer(obj)) throw new Error('setPath needs an object');
  segs.forEach(checkSegment);
  if (Array.isArray(obj) && typeof segs[0] !== 'number')
    throw new Error(`cannot set the key ${JSON.stringify(segs[0])} in an array`);
  let cur: Container = obj as unknown as Container;
  for (let i = 0; i < segs.length - 1; i++) {
    const seg = segs[i];
    let next = own(cur, seg) ? child(cur, seg) : undefined;
    const wantArray = typeof segs[i + 1] === 'number';
    // A number segment on an existing object is a key; a container is only created where there is none.
    if (!isContainer(next)) {
      next = wantArray ? [] : {};
      put(cur, seg, next);
    }
    cur = next as Container;
    if (Array.isArray(cur) && typeof segs[i + 1] !== 'number') {
      throw new Error(
        `cannot set the key ${JSON.stringify(segs[i + 1])} in the array at ${segs.slice(0, i + 1).join('.')}`,
      );
    }
  }
  put(cur, segs[segs.length - 1], value);
  return obj;
}

/**
 * Removes the value at `path` in place: an object key is deleted, an array element is spliced out (the later
 * elements move up). Parents left empty are kept. Returns true when something was removed.
 */
export function deletePath(obj: unknown, path: Path): boolean {
  const segs = toSegments(path);
  if (segs.length === 0) return false;
  const parent = getPath(obj, segs.slice(0, -1));
  const last = segs[segs.length - 1];
  if (!isContainer(parent) || !own(parent, last)) return false;
  if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete (parent as Record<string, unknown>)[String(last)];
  return true;
}

/** Does `pattern` (dotted, `*` = one segment, trailing `**` = any rest, also none) match `segs`? */
function matches(pattern: readonly string[], segs: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p === '**' && i === pattern.length - 1) return true;
    if (i >= segs.length) return false;
    if (p !== '*' && p !== segs[i]) return false;
  }
  return pattern.length === segs.length;
}

/** Does any of the patterns cover the (dotted) path? */
export function isCovered(path: Path, covered: readonly string[]): boolean {
  const segs = toSegments(path).map(String);
  return covered.some((c) => matches(c.split('.'), segs));
}

/**
 * The leaf paths of `obj` (dotted strings, array indexes as numbers: `keyFilters.0.key.type`) that no pattern of
 * `covered` matches. A leaf is a value that is not a container, or an empty object or array. Patterns are dotted
 * paths where `*` matches any one segment and a trailing `**` any rest (including nothing), e.g.
 * `'entityFilter.type'`, `'keyFilters.*.key.**'`, `'pageLink.sortOrder.**'`. A pattern must match the whole leaf
 * path: `'pageLink'` does not cover `pageLink.page`.
 */
export function heldPaths(obj: unknown, covered: readonly string[]): string[] {
  const patterns = covered.map((c) => c.split('.'));
  const out: string[] = [];
  const seen = new Set<object>();
  const walk = (v: unknown, segs: string[]): void => {
    if (isContainer(v) && !seen.has(v)) {
      const keys = Array.isArray(v) ? v.map((_, i) => String(i)) : Object.keys(v);
      if (keys.length > 0) {
        seen.add(v);
        for (const k of keys) walk(child(v, Array.isArray(v) ? Number(k) : k), [...segs, k]);
        seen.delete(v);
        return;
      }
    }
    if (segs.length > 0 && !patterns.some((p) => matches(p, segs))) out.push(segs.join('.'));
  };
  walk(obj, []);
  return out;
}
