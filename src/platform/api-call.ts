/**
 * Any REST call on the platform, through the connection's session (its login, token refresh, retries and largest
 * answer): tb-api's client, and the editor's "try" of it. The path was checked by protocol/api-call.ts (under
 * `/api/`, never an address); a path under `/api/noauth/` goes without the token.
 *
 * What may be sent again after a failure that leaves open whether the server took it is decided by the method, as
 * the other clients decide it by what their request does: a GET is a read (`default`); PUT and DELETE land the same
 * way twice (`idempotent`); a POST or PATCH may do it twice (`once`: never resent after it may have gone out, nor
 * after a 502/503/504). A 429 is retried for every method: the server did nothing.
 *
 * The answer is read as it comes (any type, see http.ts `raw`), then:
 * - a file (Content-Disposition or `x-filename`: an OTA package, an image, a resource) or a type that is neither
 *   JSON nor text: a Buffer, with its file name and content type;
 * - JSON (`application/json`, `…+json`): parsed; a body that does not parse is TB_BAD_RESPONSE;
 * - text (`text/*`, ThingsBoard's `application/text`, XML, JavaScript): a string;
 * - an HTML page to a REST path: TB_BAD_RESPONSE (a proxy's sign-in page, or the UI answering a path the server
 *   does not know), never passed on as data;
 * - an empty body: null.
 * A 4xx or 5xx answer is a TbApiError with the server's own message, JSON or plain text (`AccessValidator`'s 403 and
 * 404 are bare strings; the 413 of the size filter is a quoted string; a 408 has no body).
 */
import { TbError } from '../errors';
import type { ApiMethod } from '../protocol/api-call';
import { errorBody, type Delivery } from './http';
import type { CallOptions } from './requester';
import type { Session } from './session';

export interface ApiRequest {
  method: ApiMethod;
  /** The path with its query, checked (`/api/…`). */
  path: string;
  /** JSON text, or undefined for no body. */
  body?: string;
  /** Sent without the token (a path under /api/noauth/). */
  noAuth: boolean;
}

export type AnswerKind = 'json' | 'text' | 'file' | 'empty';

export interface ApiAnswer {
  statusCode: number;
  /** The answer's headers, names in lower case. */
  headers: Record<string, string>;
  kind: AnswerKind;
  /** Parsed JSON, text, a Buffer (a file), or null (empty). */
  payload: unknown;
  /** A file's name, as the server gives it (its last part only: never a path). */
  filename?: string;
  /** A file's content type. */
  contentType?: string;
}

/** How a method's request may be sent again (see the file's comment). */
export function deliveryOf(method: ApiMethod): Delivery {
  if (method === 'GET') return 'default';
  if (method === 'PUT' || method === 'DELETE') return 'idempotent';
  return 'once';
}

function headerText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v.map(String).join(', ') : String(v);
}

/** The headers as text, names in lower case (axios gives them so already). */
function headersOf(h: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    const t = headerText(v);
    if (t !== undefined) out[k.toLowerCase()] = t;
  }
  return out;
}

/** The last part of a name a server gives, so that it never names a place to write to. */
function baseName(name: string): string | undefined {
  const last = name.split(/[/\\]/).pop()?.trim() ?? '';
  return last === '' || last === '.' || last === '..' ? undefined : last;
}

/** The file name of `Content-Disposition` (`filename*=UTF-8''…` first, then `filename=`, quoted or not). */
export function dispositionName(cd: string | undefined): string | undefined {
  if (!cd) return undefined;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(cd);
  if (star) {
    try {
      return decodeURIComponent(star[2].trim());
    } catch {
      /* a malformed escape: the plain name, if any */
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(cd);
  if (!plain) return undefined;
  return (plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain[1]).trim();
}

/** The media type alone, in lower case (`application/json; charset=UTF-8` → `application/json`). */
function mediaType(ct: string | undefined): string {
  return (ct ?? '').split(';')[0].trim().toLowerCase();
}

function isJsonType(t: string): boolean {
  return t === 'application/json' || t.endsWith('+json');
}

function isTextType(t: string): boolean {
  return (
    (t.startsWith('text/') && t !== 'text/html') ||
    t === 'application/text' ||
    t === 'application/xml' ||
    t === 'application/javascript'
  );
}

/** Reads a 2xx answer as tb-api passes it on (see the file's comment). */
export function readAnswer(
  status: number,
  rawHeaders: Record<string, unknown>,
  body: Buffer | undefined,
  what: string,
): ApiAnswer {
  const headers = headersOf(rawHeaders);
  const type = mediaType(headers['content-type']);
  const base = { statusCode: status, headers };
  const named = dispositionName(headers['content-disposition']) ?? headers['x-filename'];
  if (named !== undefined || (type !== '' && !isJsonType(type) && !isTextType(type) && type !== 'text/html')) {
    const data = body ?? Buffer.alloc(0);
    const file: ApiAnswer = { ...base, kind: 'file', payload: data, contentType: type || 'application/octet-stream' };
    const name = named === undefined ? undefined : baseName(named);
    if (name !== undefined) file.filename = name;
    return file;
  }
  if (!body || body.length === 0) return { ...base, kind: 'empty', payload: null };
  const text = body.toString('utf8');
  if (type === 'text/html' || (type === '' && /^\s*<(!doctype|html)/i.test(text))) {
    throw new TbError(
      'TB_BAD_RESPONSE',
      `ThingsBoard answered ${what} with an HTML page, not data: a proxy in front of the server (a sign-in page?) ` +
        'or a path the server does not serve',
    );
  }
  if (isJsonType(type) || type === '') {
    try {
      return { ...base, kind: 'json', payload: JSON.parse(text) as unknown };
    } catch {
      if (isJsonType(type)) {
        throw new TbError(
          'TB_BAD_RESPONSE',
          `ThingsBoard answered ${what} with a body that is not the JSON it declares`,
        );
      }
    }
  }
  return { ...base, kind: 'text', payload: text };
}

export class ApiCalls {
  constructor(private readonly session: Session) {}

  /** Sends the call; gives the answer read (a 2xx), or throws our error (the server's status and message). */
  async call(req: ApiRequest, opts?: CallOptions): Promise<ApiAnswer> {
    const res = await this.session.exchange(req.method, req.path, req.body, {
      ...opts,
      raw: true,
      delivery: deliveryOf(req.method),
      noAuth: req.noAuth,
    });
    if (res.status >= 300) {
      // A redirect is not followed (it could lead to another host): an error like any other status.
      throw this.session.http.apiError(res.status, errorBody(res.data), req.method, req.path);
    }
    return readAnswer(res.status, res.headers, res.data as Buffer | undefined, `${req.method} ${req.path}`);
  }
}
