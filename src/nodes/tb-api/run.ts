/**
 * tb-api's per-message work: the call of each message (its method, path, query and body: from the node, else the
 * message; placeholders filled in from the message), checked before anything is sent, and what the answer puts on
 * the message.
 */
import type { Node, NodeAPI, NodeMessageInFlow, NodeStatus } from 'node-red';
import { TbApiError, TbConfigError, TbInputError } from '../../errors';
import { status } from '../../node-red/status';
import { IgnoredWarnings, checkRefs, readRefs } from '../../node-red/value-sources';
import type { ApiAnswer, ApiRequest } from '../../platform/api-call';
import {
  fillPathTemplate,
  isNoAuthPath,
  parseQueryText,
  pathTemplateRefs,
  pathWithQuery,
  preparePath,
  preparePathTemplate,
  prepareMethod,
  queryFromValue,
  splitPathAndQuery,
  type ApiMethod,
  type PathTemplate,
  type QueryPair,
} from '../../protocol/api-call';
import type { BindingRef } from '../../protocol/bindings';
import { unsetNode as fromMessage } from '../../settings/options';
import { bodyOf, looksLikeTimestamp, prepareBodySetting, type BodySetting } from './logic';
import type { ApiSettings } from './settings';

/** What msg.api says of the call sent: its method and path (with the query), placeholders filled in. */
export interface ApiSent {
  method: ApiMethod;
  path: string;
}

/** The settings of the call, read at deploy, and the request of each message. */
export class ApiInputs {
  private readonly method: ApiMethod | undefined;
  /** The path (and query) of the node, undefined when the message gives it. */
  private readonly template: PathTemplate | undefined;
  private readonly refs: BindingRef[];
  private readonly queryFromMsg: boolean;
  private readonly body: BodySetting | undefined;
  /** A setting the node cannot use, found at deploy: every message is refused with it (nothing sent). */
  readonly problem: Error | undefined;
  private warnedTimestamp = false;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    private readonly s: Pick<ApiSettings, 'method' | 'path' | 'query' | 'bodyFrom' | 'body'>,
  ) {
    let method: ApiMethod | undefined;
    let template: PathTemplate | undefined;
    let body: BodySetting | undefined;
    let problem: Error | undefined;
    const path = typeof s.path === 'string' ? s.path : '';
    const query = typeof s.query === 'string' ? s.query : '';
    this.queryFromMsg = fromMessage(query);
    try {
      if (!fromMessage(s.method)) method = prepareMethod(s.method, 'method');
      if (!fromMessage(path)) template = preparePathTemplate(path, query, 'path', 'query');
      body = prepareBodySetting(s.bodyFrom, s.body);
    } catch (err) {
      problem = new TbConfigError((err as Error).message);
    }
    this.refs = template ? pathTemplateRefs(template) : [];
    if (!problem) {
      try {
        checkRefs(RED, this.refs, () => 'The placeholder of the path or query');
      } catch (err) {
        problem = err as Error;
      }
    }
    this.method = method;
    this.template = template;
    this.body = body;
    this.problem = problem;
  }

  /** The call of one message: every check made before anything is sent (TbInputError names the field). */
  async request(msg: NodeMessageInFlow, now: number): Promise<ApiRequest & { sent: ApiSent }> {
    if (this.problem) throw this.problem;
    const m = msg as NodeMessageInFlow & Record<string, unknown>;
    const warn = IgnoredWarnings.of(this.node);
    warn.check(m, 'method', this.method !== undefined);
    warn.check(m, 'path', this.template !== undefined);
    warn.check(m, 'query', !this.queryFromMsg);
    const method = this.method ?? (fromMessage(m.method) ? 'GET' : prepareMethod(m.method, 'msg.method'));
    let filled: { path: string; query: QueryPair[] };
    if (this.template) {
      const values = this.refs.length ? await this.values(msg) : undefined;
      filled = fillPathTemplate(this.template, (ref) => values?.get(ref.text), 'path', 'query');
    } else {
      if (typeof m.path !== 'string' || m.path.trim() === '') {
        throw new TbInputError(
          'msg.path',
          'Set the path in the node, or send it in msg.path (e.g. "/api/tenant/devices?pageSize=10&page=0")' +
            (m.path !== undefined && m.path !== null && typeof m.path !== 'string' ? ` (got ${typeof m.path})` : ''),
        );
      }
      // A message's path is the path itself, checked as typed text: its braces are not placeholders.
      const split = splitPathAndQuery(m.path.trim());
      filled = { path: preparePath(split.path, 'msg.path'), query: parseQueryText(split.query) };
    }
    if (this.queryFromMsg) filled.query.push(...queryFromValue(m.query, 'msg.query'));
    const body = bodyOf(this.body as BodySetting, method, msg.payload);
    if (body !== undefined && (this.body as BodySetting).from === 'payload') this.warnTimestamp(msg.payload, now);
    const path = pathWithQuery(filled.path, filled.query);
    return { method, path, body, noAuth: isNoAuthPath(filled.path), sent: { method, path } };
  }

  private async values(msg: NodeMessageInFlow): Promise<Map<string, unknown>> {
    const read = readRefs(
      this.RED,
      this.node,
      this.refs,
      msg,
      (ref, err) => new TbInputError(ref.text, `Cannot read ${ref.text}: ${err.message}`),
    );
    return read instanceof Promise ? await read : read;
  }

  /**
   * An inject's default payload (a timestamp) sent as the body: most likely not what the call wants. Said once per
   * deploy; the call is still sent.
   */
  private warnTimestamp(payload: unknown, now: number): void {
    if (this.warnedTimestamp || !looksLikeTimestamp(payload, now)) return;
    this.warnedTimestamp = true;
    this.node.warn(
      `msg.payload is ${String(payload)}, which looks like a timestamp (an inject node's default payload), and was ` +
        'sent as the body. If the call takes no body or a fixed one, set Body in the node to "no body" or "fixed ' +
        'JSON"; said once',
    );
  }
}

/** The message properties of an answer: msg.payload, msg.statusCode, msg.headers, a file's name and type, msg.api. */
export function answerProps(answer: ApiAnswer, sent: ApiSent): Record<string, unknown> {
  const props: Record<string, unknown> = {
    payload: answer.payload,
    statusCode: answer.statusCode,
    headers: answer.headers,
    api: sent,
  };
  if (answer.kind === 'file') {
    if (answer.filename !== undefined) props.filename = answer.filename;
    props.contentType = answer.contentType;
  }
  return props;
}

/** A file's status: its size in whole bytes, KB or MB (`200 file, 4 KB`). */
function fileStatus(RED: NodeAPI, code: number, bytes: number): NodeStatus {
  if (bytes < 1024) return status(RED, 'green', 'dot', 'apiFileBytes', { status: code, count: bytes });
  if (bytes < 1024 * 1024)
    return status(RED, 'green', 'dot', 'apiFileKB', { status: code, count: Math.round(bytes / 1024) });
  return status(RED, 'green', 'dot', 'apiFileMB', { status: code, count: Math.round(bytes / 1024 / 1024) });
}

/** Green: the status and what came (`200 JSON`, `200 text`, `200 file, 4 KB`, `204 no body`). */
export function answerStatus(RED: NodeAPI, a: ApiAnswer): NodeStatus {
  switch (a.kind) {
    case 'json':
      return status(RED, 'green', 'dot', 'apiJson', { status: a.statusCode });
    case 'text':
      return status(RED, 'green', 'dot', 'apiText', { status: a.statusCode });
    case 'file':
      return fileStatus(RED, a.statusCode, (a.payload as Buffer).length);
    default:
      return status(RED, 'green', 'dot', 'apiEmpty', { status: a.statusCode });
  }
}

/** The status code of a failed call, for msg.statusCode at Catch (undefined when the server did not answer). */
export function failedStatus(err: unknown): number | undefined {
  return err instanceof TbApiError ? err.status : undefined;
}
