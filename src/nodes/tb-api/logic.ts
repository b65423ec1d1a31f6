/**
 * tb-api's pure logic: the Body setting (msg.payload, fixed JSON or none) and the body of each message, and the
 * dialog's check of the settings. The path and query rules are the protocol's (protocol/api-call.ts). No I/O, no
 * Node-RED.
 */
import { TbInputError } from '../../errors';
import { BODY_FROM, preparePathTemplate, prepareMethod, type ApiMethod, type BodyFrom } from '../../protocol/api-call';
import { got } from '../../protocol/validate';
import { unsetNode as fromMessage } from '../../settings/options';
import { TB_API } from './settings';

const DEFAULTS = TB_API.settings;

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/** The Body setting as checked at deploy: from msg.payload, JSON text fixed in the node, or none. */
export type BodySetting = { from: 'payload' } | { from: 'json'; text: string } | { from: 'none' };

/**
 * The node's Body setting (`bodyFrom`, and `body`, JSON text, for `json`). Throws a TbInputError naming `body` or
 * `bodyFrom` on a setting the node cannot use.
 */
export function prepareBodySetting(bodyFrom: unknown, body: unknown): BodySetting {
  const from = (
    bodyFrom === undefined || bodyFrom === null || bodyFrom === '' ? DEFAULTS.bodyFrom.default : bodyFrom
  ) as BodyFrom;
  if (from === 'payload' || from === 'none') return { from };
  if (from !== 'json') return fail('bodyFrom', `bodyFrom must be one of ${BODY_FROM.join(', ')} ${got(bodyFrom)}`);
  const text = typeof body === 'string' ? body.trim() : body === undefined || body === null ? '' : JSON.stringify(body);
  if (text === '')
    return fail('body', 'body is empty: type the fixed body as JSON, e.g. {"name": "Pump 7"}, or choose "no body"');
  try {
    JSON.parse(text);
  } catch (err) {
    return fail('body', `body is not valid JSON (e.g. {"name": "Pump 7"}): ${(err as Error).message}`);
  }
  return { from, text };
}

/** Does a value look like a Buffer (Node's), without naming Node's type here? */
function isBytes(v: unknown): boolean {
  return (
    v instanceof Uint8Array || (typeof v === 'object' && v !== null && (v as { type?: unknown }).type === 'Buffer')
  );
}

/**
 * The body of one call, as JSON text, or undefined for none: a GET sends none; msg.payload (undefined or null: none)
 * must be a value JSON can hold, or text that is JSON already (sent as it is); the fixed JSON is sent as typed.
 */
export function bodyOf(setting: BodySetting, method: ApiMethod, payload: unknown): string | undefined {
  if (method === 'GET' || setting.from === 'none') return undefined;
  if (setting.from === 'json') return setting.text;
  const field = 'msg.payload';
  if (payload === undefined || payload === null) return undefined;
  if (typeof payload === 'string') {
    try {
      JSON.parse(payload);
    } catch {
      return fail(
        field,
        `${field} is text that is not JSON: send an object, or JSON text (a text value in quotes: "\\"on\\""), or set ` +
          `Body to "no body" ${got(payload)}`,
      );
    }
    return payload;
  }
  if (isBytes(payload)) return fail(field, `${field} is a Buffer: this node sends JSON; send an object, or JSON text`);
  if (typeof payload === 'function' || typeof payload === 'symbol' || typeof payload === 'bigint')
    return fail(field, `${field} cannot be sent as JSON ${got(payload)}`);
  try {
    return JSON.stringify(payload);
  } catch (err) {
    return fail(field, `${field} cannot be sent as JSON: ${(err as Error).message}`);
  }
}

/** How far from now a number may be to look like an inject's timestamp (its default payload): a day. */
const TIMESTAMP_WINDOW_MS = 86400000;

/** Does msg.payload look like a timestamp (an inject node's default payload), which would be sent as the body? */
export function looksLikeTimestamp(v: unknown, now: number): boolean {
  return typeof v === 'number' && Number.isInteger(v) && Math.abs(v - now) <= TIMESTAMP_WINDOW_MS;
}

/**
 * The dialog's check of the node's settings (the runtime's own checks over the settings as the dialog holds them):
 * a method, a path and a query that are fixed are checked as the runtime checks them at deploy; a placeholder
 * stands for a harmless segment (its value is checked with each message).
 */
export function checkApiSettings(s: Record<string, unknown>): void {
  if (!fromMessage(s.method)) prepareMethod(s.method, 'method');
  const path = typeof s.path === 'string' ? s.path : '';
  const query = typeof s.query === 'string' ? s.query : '';
  if (path.trim() !== '' || query.trim() !== '') {
    preparePathTemplate(path.trim() === '' ? '/api/x' : path, query, 'path', 'query');
  }
  prepareBodySetting(s.bodyFrom, s.body);
}
