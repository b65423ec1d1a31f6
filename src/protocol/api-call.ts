/**
 * A generic REST call on the platform (tb-api): its method, and a path and query that stay on the connection's own
 * server. Pure (no I/O, no Node-RED, no Buffer): the runtime, the editor's endpoints and the dialog check a path with
 * the same code.
 *
 * The rule that keeps the token at home: a path is a path on the platform, under `/api/` (every ThingsBoard REST
 * controller is there, `cfg/ThingsboardSecurityConfiguration.java`), never an address. An absolute URL, a
 * protocol-relative `//host`, a host name in front of the path, a backslash (which URL parsers read as a slash) or a
 * dot segment that leaves `/api/` (`..`, also written `%2e%2e`, which the WHATWG URL parser axios uses reads as `..`)
 * is refused before anything is sent. Paths under `/api/noauth/` need no login: they are sent without the token.
 *
 * Placeholders (`{{msg.<path>}}`, `{{flow.<key>}}`, `{{global.<key>}}`, `{{env.<NAME>}}`) are read as elsewhere in
 * the package (bindings.ts). A placeholder that is the whole path gives the path itself (checked like a typed one);
 * one inside the path or the query gives a value, encoded (`encodeURIComponent`), so that it stays one path segment
 * or one query value: a device named `A/B` never changes the path.
 */
import { TbInputError } from '../errors';
import { parseTemplate, type BindingRef } from './bindings';
import { describe } from './validate/primitives';

/** The methods a call may use. */
export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ApiMethod = (typeof API_METHODS)[number];

/** Where a call's body comes from: msg.payload, JSON fixed in the node, or none. */
export const BODY_FROM = ['payload', 'json', 'none'] as const;
export type BodyFrom = (typeof BODY_FROM)[number];

/** The prefix of every REST path of the platform. */
export const API_PREFIX = '/api/';
/** The prefix of the paths the server serves without a login (`NON_TOKEN_BASED_AUTH_ENTRY_POINTS`). */
export const NOAUTH_PREFIX = '/api/noauth/';

/** A path that needs no login: the token is not sent with it. */
export function isNoAuthPath(path: string): boolean {
  return path.startsWith(NOAUTH_PREFIX);
}

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/** A value quoted in a sentence (long ones cut). */
const shown = (v: string): string => describe(v);

/** The method: one of API_METHODS, any case (a message's `"get"` is GET). */
export function prepareMethod(v: unknown, field: string): ApiMethod {
  const m = typeof v === 'string' ? v.trim().toUpperCase() : v;
  if (typeof m === 'string' && (API_METHODS as readonly string[]).includes(m)) return m as ApiMethod;
  return fail(
    field,
    `${field} must be one of ${API_METHODS.join(', ')} ${v === '' ? '(it is empty)' : `(got ${typeof v === 'string' ? shown(v) : String(v)})`}`,
  );
}

/** A decoding that leaves a malformed escape as it is. */
function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Characters a path segment may hold as they are (RFC 3986 pchar, with `%` for escapes already made). */
const PCHAR = /[A-Za-z0-9\-._~!$&'()*+,;=:@%]/;

/** A segment with every character outside `PCHAR` percent-encoded (a space typed in a path becomes %20). */
function encodeSegment(seg: string): string {
  let out = '';
  for (const ch of seg) out += PCHAR.test(ch) ? ch : encodeURIComponent(ch);
  return out;
}

const ADDRESS_HINT = 'write the path only, such as /api/tenant/devices: the connection gives the server';

/**
 * The calls whose answer is a sign-in token (a login, a refresh, a user's token as another user may ask it,
 * `UserController#getUserToken`): refused, so that no token travels in a message.
 */
const TOKEN_PATH = /^\/api\/(auth\/(login|token)(\/|$)|user\/[^/]+\/token\/?$)/i;

/**
 * A path typed in the node or given by a message, checked and written as it is sent: it starts with `/api/` (a
 * leading `api/` gets its slash), dot segments are resolved and must stay under `/api/`, characters a path cannot
 * hold are encoded. A query (`?…`) is not part of it: see `splitPathAndQuery`. Throws a TbInputError naming `field`,
 * the fix first.
 */
export function preparePath(text: unknown, field: string): string {
  if (typeof text !== 'string' || text.trim() === '') {
    return fail(
      field,
      `${field} needs the path of a ThingsBoard REST call, such as /api/tenant/devices ` +
        `${text === undefined || text === null || text === '' ? '(it is empty)' : `(got ${typeof text})`}`,
    );
  }
  const raw = text.trim();
  if (/[\u0000-\u001f\u007f]/.test(raw)) return fail(field, `${field} holds a control character (a line break?)`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//')) {
    return fail(field, `${field} is an address, not a path: ${ADDRESS_HINT} (got ${shown(raw)})`);
  }
  if (raw.includes('\\'))
    return fail(field, `${field} holds a backslash, which a server may read as a slash; ${ADDRESS_HINT}`);
  if (raw.includes('#')) return fail(field, `${field} holds a #: a REST call has no fragment (got ${shown(raw)})`);
  const path = raw.startsWith('/') ? raw : `/${raw}`;
  const segments = path.slice(1).split('/');
  const first = decode(segments[0]);
  if (first !== 'api') {
    if (/[.:]/.test(first) && !/^\.+$/.test(first))
      return fail(field, `${field} starts with a server name: ${ADDRESS_HINT} (got ${shown(raw)})`);
    return fail(field, `${field} must start with /api/: every ThingsBoard REST call is under it (got ${shown(raw)})`);
  }
  // Dot segments, as the URL parser will resolve them (an escaped dot is a dot to it).
  const out: string[] = [];
  for (const seg of segments) {
    const d = decode(seg).toLowerCase();
    if (d === '.') continue;
    if (d === '..') {
      out.pop();
      continue;
    }
    out.push(encodeSegment(seg));
  }
  // `/api/x/..` ends where it started: keep the trailing slash a path may need (POST /api/rule-engine/).
  const last = segments[segments.length - 1];
  const trailing = last === '' || decode(last) === '.' || decode(last) === '..';
  if (out[0] !== 'api' || (out.length === 1 && !trailing)) {
    return fail(field, `${field} leaves /api/ with "..": only paths under /api/ may be called (got ${shown(raw)})`);
  }
  let written = `/${out.join('/')}`;
  if (trailing && !written.endsWith('/')) written += '/';
  if (written.startsWith('//')) return fail(field, `${field} is an address, not a path: ${ADDRESS_HINT}`);
  if (TOKEN_PATH.test(written))
    return fail(
      field,
      `${field}: call the API you need directly; the connection signs in by itself. ${written} answers with ` +
        'sign-in tokens, which a message must not carry',
    );
  return written;
}

/** The path and the query of a text `"/api/x?a=1"`, split at the first `?` (the query without it). */
export function splitPathAndQuery(text: string): { path: string; query: string } {
  const i = text.indexOf('?');
  return i < 0 ? { path: text, query: '' } : { path: text.slice(0, i), query: text.slice(i + 1) };
}

/** A query parameter, its value as text. */
export type QueryPair = readonly [string, string];

/**
 * A query text `a=1&b=two words` as pairs, each key and value decoded (typed in, text may be written plainly or
 * already escaped: `two%20words` and `two words` are the same value). An empty text is no pairs.
 */
export function parseQueryText(text: string): QueryPair[] {
  const pairs: QueryPair[] = [];
  for (const part of text.split('&')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const k = eq < 0 ? part : part.slice(0, eq);
    const v = eq < 0 ? '' : part.slice(eq + 1);
    pairs.push([decode(k.replace(/\+/g, ' ')).trim(), decode(v.replace(/\+/g, ' '))]);
  }
  return pairs;
}

/**
 * A message's query (`msg.query`): an object of names and values (a list gives the name several times; undefined and
 * null leave it out), or a query text. Objects inside are refused: a query holds text.
 */
export function queryFromValue(v: unknown, field: string): QueryPair[] {
  if (v === undefined || v === null || v === '') return [];
  if (typeof v === 'string') return parseQueryText(v.startsWith('?') ? v.slice(1) : v);
  if (typeof v !== 'object' || Array.isArray(v))
    return fail(field, `${field} must be an object of names and values, such as {"pageSize": 10, "page": 0}`);
  const pairs: QueryPair[] = [];
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    for (const item of Array.isArray(x) ? x : [x]) {
      if (item === undefined || item === null) continue;
      if (typeof item === 'object')
        return fail(`${field}.${k}`, `${field}.${k} must be text, a number or a boolean, not an object`);
      pairs.push([k, String(item)]);
    }
  }
  return pairs;
}

/** The query string of pairs, each name and value encoded (empty when there are none). */
export function queryString(pairs: readonly QueryPair[]): string {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

/** Text with placeholders: literal pieces and placeholders, in order, or the whole text as one placeholder. */
export type Template = { readonly whole: BindingRef } | { readonly parts: readonly (string | BindingRef)[] };

/** A text's placeholders (a text without any is one literal piece). */
export function templateOf(text: string): Template {
  const t = parseTemplate(text);
  if (!t) return { parts: [text] };
  return t.whole ? { whole: t.whole } : { parts: t.parts ?? [text] };
}

/** The placeholders of a template, once each. */
export function templateRefs(t: Template): BindingRef[] {
  const refs = 'whole' in t ? [t.whole] : t.parts.filter((p): p is BindingRef => typeof p !== 'string');
  const seen = new Set<string>();
  return refs.filter((r) => !seen.has(r.text) && !!seen.add(r.text));
}

/**
 * One placeholder's value as text, for a path segment or a query value: text, a number or a boolean, given (not
 * undefined, null or empty: a missing id must never call the list of everything).
 */
function valueText(v: unknown, ref: BindingRef, field: string): string {
  if (v === undefined || v === null || v === '') {
    return fail(
      field,
      `${field} takes {{${ref.text}}}, which is ${v === '' ? 'empty' : String(v)}: the message must give it a value`,
    );
  }
  if (typeof v === 'object') {
    return fail(
      field,
      `${field} takes {{${ref.text}}}, which is ${Array.isArray(v) ? 'a list' : 'an object'}: it must be text or a number`,
    );
  }
  return String(v);
}

/**
 * A template's text for this message, each placeholder's value given by `value` and passed through `encode` (a path
 * segment's or a query value's encoding); a whole placeholder's value is the text itself.
 */
export function fillTemplate(
  t: Template,
  value: (ref: BindingRef) => unknown,
  field: string,
  encode: (text: string, ref: BindingRef) => string,
): string {
  if ('whole' in t) return valueText(value(t.whole), t.whole, field);
  let out = '';
  for (const p of t.parts) out += typeof p === 'string' ? p : encode(valueText(value(p), p, field), p);
  return out;
}

/** A placeholder's value as one path segment: encoded, and never a dot segment (it would change the path). */
export function segmentValue(field: string): (text: string, ref: BindingRef) => string {
  return (text, ref) => {
    if (text === '.' || text === '..')
      return fail(
        field,
        `${field} takes {{${ref.text}}}, which is "${text}": that would change the path, not name a thing in it`,
      );
    return encodeURIComponent(text);
  };
}

/** The path settings a node reads once at deploy: the path text's template, and the query's pairs as templates. */
export interface PathTemplate {
  /** The path part (before `?`). */
  readonly path: Template;
  /** Query pairs typed after `?` in the path and in the query setting: a literal name, and a value template. */
  readonly query: ReadonlyArray<readonly [string, Template]>;
}

/**
 * The path and query settings as templates, checked as far as they can be before a message gives their values: a
 * placeholder stands for a harmless segment, so that an address, a `..` leaving /api/ or a host is refused at deploy.
 */
export function preparePathTemplate(
  pathText: string,
  queryText: string,
  field: string,
  queryField: string,
): PathTemplate {
  const { path, query } = splitPathAndQuery(pathText.trim());
  const t = templateOf(path);
  if (!('whole' in t)) {
    // Checked with each placeholder as one harmless segment: what the message gives is checked again.
    preparePath(t.parts.map((p) => (typeof p === 'string' ? p : 'x')).join(''), field);
  }
  const pairs: Array<readonly [string, Template]> = [];
  for (const [k, v] of [...parseQueryText(query), ...parseQueryText(queryText.trim())]) {
    if (k === '')
      return fail(
        queryText.trim() ? queryField : field,
        `${queryText.trim() ? queryField : field} has a value without a name (such as "=5")`,
      );
    pairs.push([k, templateOf(v)]);
  }
  return { path: t, query: pairs };
}

/** Every placeholder of a path template (path and query), once each. */
export function pathTemplateRefs(t: PathTemplate): BindingRef[] {
  const all = [...templateRefs(t.path), ...t.query.flatMap(([, v]) => templateRefs(v))];
  const seen = new Set<string>();
  return all.filter((r) => !seen.has(r.text) && !!seen.add(r.text));
}

/** The call's path and query for one message: the path checked, the query encoded (without the `?`). */
export function fillPathTemplate(
  t: PathTemplate,
  value: (ref: BindingRef) => unknown,
  field: string,
  queryField: string,
): { path: string; query: QueryPair[] } {
  const filled = fillTemplate(t.path, value, field, segmentValue(field));
  // A whole placeholder gives a path, which may bring its own query.
  const split = 'whole' in t.path ? splitPathAndQuery(filled.trim()) : { path: filled, query: '' };
  const path = preparePath(split.path, 'whole' in t.path ? `${field} (from {{${t.path.whole.text}}})` : field);
  const query: QueryPair[] = parseQueryText(split.query);
  for (const [k, v] of t.query) query.push([k, fillTemplate(v, value, queryField, (text) => text)]);
  return { path, query };
}

/** The path with its query, as it is sent and shown (`/api/x?a=1`). */
export function pathWithQuery(path: string, query: readonly QueryPair[]): string {
  const q = queryString(query);
  return q ? `${path}?${q}` : path;
}
