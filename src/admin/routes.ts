/**
 * The admin HTTP endpoints of tb-connection, for the editor (paths relative to the admin root; JSON in and out):
 *
 *   GET  tb-connection/:id/profiles?entityType=DEVICE|ASSET|ENTITY_VIEW|EDGE&search=
 *        → {items: [{name}]}
 *   GET  tb-connection/:id/entities?entityType=…&search=  |  &ids=<uuid>,<uuid>
 *        → {items: [{id, name}]}
 *   GET  tb-connection/:id/keys?entityType=…&profiles=a,b  |  &ids=<uuid>,<uuid>
 *        → {entityTypes, timeseries, attributes}
 *   GET  tb-connection/:id/alarm-types?search=
 *        → {items: ["High Temperature", …]}
 *   GET  tb-connection/:id/notification-targets?search=
 *        → {items: [{id, name, type, methods}]}
 *   GET  tb-connection/:id/notification-templates?search=
 *        → {items: [{id, name, methods}]}
 *   GET  tb-connection/:id/delivery-methods
 *        → {items: ["WEB", "EMAIL", …]}
 *   POST tb-connection/:id/preview {node, operation, query, format}
 *        → {payload, page?, withoutConditions?}
 *   GET  tb-connection/:id/api-paths
 *        → {serverVersion, authority, items: [{method, path, query?, what, group, since?, authorities, answer?}]}
 *   POST tb-connection/:id/api-try {method: "GET", path}
 *        → {ok: true, statusCode, contentType, kind, text?, cut?, file?, path}
 *        | {ok: false, statusCode?, code, message, path}
 *   POST tb-connection/:id/test
 *        → {ok, user, authority, serverVersion} | {ok:false, code, message}
 *
 * GETs need `tb-connection.read`, POSTs `tb-connection.write`. Errors are `{code, message}` (plus `field` for bad
 * input) with a status from errorReply(). The work is done by EditorApi; this file is the Node-RED wiring: ask
 * tb-connection for the deployed connection (its resolver: admin knows no node type), send JSON without any
 * credential in it.
 */
import type { NextFunction, Request, Response } from 'express';
import type { NodeAPI } from 'node-red';
import { TbApiError, TbError, TbInputError } from '../errors';
import type { PlatformClient } from '../platform/client';
import { editorApiFor, type EditorApi, type EditorApiOptions, type Params } from './editor-api';

/** A deployed tb-connection as the endpoints need it, handed over by tb-connection's resolver. */
export interface EditorConnection {
  /** Undefined when the configuration is unusable; then `configError` says why. */
  platform: PlatformClient | undefined;
  configError: TbError | undefined;
  /** Its credential values: scrubbed from every error answer. */
  secrets: ReadonlyArray<string | undefined>;
  /** The look-up cache's tunables (from the settings). */
  options: EditorApiOptions;
}

/** The deployed tb-connection with this node id, or undefined when there is none. */
export type ConnectionResolver = (id: string) => EditorConnection | undefined;

export interface ErrorReply {
  status: number;
  body: { code: string; message: string; field?: string };
}

/** The connection id names no deployed tb-connection. */
export class NotDeployedError extends Error {
  readonly code = 'TB_NOT_DEPLOYED';
  constructor(id: string) {
    super(
      `No deployed ThingsBoard connection has the id "${id}": deploy the connection first (a new or changed ` +
        'connection is only known to the runtime after a deploy)',
    );
    this.name = 'NotDeployedError';
  }
}

/**
 * The HTTP answer for an error:
 * - bad input 400 (with `field`), a connection with a configuration error 400, an undeployed connection 404;
 * - the server's own 4xx answers keep their status (403 TB_PERMISSION, 404, 429 …), except 401: a refused login
 *   (TB_AUTH_FAILED, TB_2FA_REQUIRED, TB_TOKEN_EXPIRED) is 502, because for the editor a 401 means that its own
 *   Node-RED session lacks the permission;
 * - unreachable, timeout, 5xx, an unreadable answer, a closed connection: 502;
 * - anything else: 500.
 */
export function errorReply(err: unknown): ErrorReply {
  if (err instanceof NotDeployedError) return { status: 404, body: { code: err.code, message: err.message } };
  if (err instanceof TbInputError)
    return { status: 400, body: { code: err.code, field: err.field, message: err.message } };
  if (err instanceof TbError) {
    const body = { code: err.code, message: err.message };
    if (err.code === 'TB_CONFIG') return { status: 400, body };
    if (err instanceof TbApiError && err.status >= 400 && err.status < 500 && err.status !== 401)
      return { status: err.status, body };
    return { status: 502, body };
  }
  return {
    status: 500,
    body: { code: 'TB_ERROR', message: `Unexpected error: ${err instanceof Error ? err.message : String(err)}` },
  };
}

/**
 * Replaces every credential value in a serialised JSON text (each also in its JSON-escaped form). Applied to
 * error answers only: our error texts never hold a credential by construction, this is the second line of
 * defence for texts that come from elsewhere (a server's or a proxy's message). Data answers are not touched, so
 * a device that happens to be named like a password keeps its name.
 */
export function scrub(json: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = json;
  for (const s of secrets) {
    if (typeof s !== 'string' || s.length < 4) continue;
    for (const form of new Set([s, JSON.stringify(s).slice(1, -1)])) out = out.split(form).join('***');
  }
  return out;
}

function sendJson(res: Response, status: number, body: unknown, secrets: ReadonlyArray<string | undefined>): void {
  const text = scrub(JSON.stringify(body), secrets);
  res.status(status);
  res.set({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.send(text);
}

/** The apps that already have the routes: registered once per module load and admin app. */
const registered = new WeakSet<object>();

/** Registers the editor endpoints on RED.httpAdmin (once per admin app); `resolve` finds a deployed connection. */
export function registerEditorEndpoints(RED: NodeAPI, resolve: ConnectionResolver): void {
  const app = RED.httpAdmin;
  if (!app || registered.has(app)) return;
  registered.add(app);
  const read = RED.auth.needsPermission('tb-connection.read');
  const write = RED.auth.needsPermission('tb-connection.write');

  /** Looks up the connection on every request (a redeploy replaces it) and answers the work's result as JSON. */
  const handle =
    (work: (api: EditorApi, req: Request) => Promise<unknown>) =>
    (req: Request, res: Response): void => {
      const id = String(req.params.id ?? '');
      const conn = resolve(id);
      const secrets = conn ? conn.secrets : [];
      const fail = (err: unknown): void => {
        const r = errorReply(err);
        if (r.status === 500)
          RED.log.warn(scrub(`tb-connection ${req.method} ${req.path}: ${r.body.message}`, secrets));
        sendJson(res, r.status, r.body, secrets);
      };
      try {
        if (!conn) throw new NotDeployedError(id);
        if (conn.configError) throw conn.configError;
        if (!conn.platform) throw new NotDeployedError(id);
        const api = editorApiFor(conn.platform, conn.options);
        // Data answers are the server's data, sent as they are; error texts (and a failed test) are scrubbed.
        work(api, req).then(
          (body) => sendJson(res, 200, body, (body as { ok?: unknown }).ok === false ? secrets : []),
          fail,
        );
      } catch (err) {
        fail(err);
      }
    };
  const query = (req: Request): Params => req.query as Params;

  app.get(
    '/tb-connection/:id/profiles',
    read,
    handle((api, req) => api.profiles(query(req))),
  );
  app.get(
    '/tb-connection/:id/entities',
    read,
    handle((api, req) => api.entities(query(req))),
  );
  app.get(
    '/tb-connection/:id/keys',
    read,
    handle((api, req) => api.keys(query(req))),
  );
  app.get(
    '/tb-connection/:id/alarm-types',
    read,
    handle((api, req) => api.alarmTypes(query(req))),
  );
  app.get(
    '/tb-connection/:id/notification-targets',
    read,
    handle((api, req) => api.notificationTargets(query(req))),
  );
  app.get(
    '/tb-connection/:id/notification-templates',
    read,
    handle((api, req) => api.notificationTemplates(query(req))),
  );
  app.get(
    '/tb-connection/:id/delivery-methods',
    read,
    handle((api) => api.deliveryMethods()),
  );
  app.post(
    '/tb-connection/:id/preview',
    write,
    handle((api, req) => api.preview(req.body)),
  );
  app.get(
    '/tb-connection/:id/api-paths',
    read,
    handle((api) => api.apiPaths()),
  );
  app.post(
    '/tb-connection/:id/api-try',
    write,
    handle((api, req) => api.apiTry(req.body)),
  );
  app.post(
    '/tb-connection/:id/test',
    write,
    handle((api) => api.test()),
  );
  // A body the admin app's JSON parser refused (malformed, too large) reaches no route: answer JSON, not
  // Express's HTML error page.
  app.use('/tb-connection', (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.parse.failed') {
      sendJson(
        res,
        400,
        { code: 'TB_INVALID_INPUT', field: 'body', message: 'The request body is not valid JSON' },
        [],
      );
    } else if (e.type === 'entity.too.large') {
      sendJson(res, 413, { code: 'TB_INVALID_INPUT', field: 'body', message: 'The request body is too large' }, []);
    } else {
      const r = errorReply(err);
      sendJson(
        res,
        typeof e.status === 'number' && e.status >= 400 && e.status < 600 ? e.status : r.status,
        r.body,
        [],
      );
    }
  });
}
