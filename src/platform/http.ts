/**
 * One keep-alive HTTP client per server (platform or analytics), built on axios and tuned for throughput:
 * a keep-alive agent, no redirect follower (`maxRedirects: 0` skips follow-redirects, ~20 % of the cost of a
 * small request), the body read as a Buffer and parsed once by us, and no AxiosError on non-2xx answers
 * (`validateStatus` accepts every status; we map errors ourselves).
 *
 * It owns the retry policy (capped exponential backoff with jitter, honouring Retry-After, at most `retries` retries
 * and `maxTotalMs` of waiting per request) and the mapping of failures to our error classes. It knows nothing
 * about tokens: the caller passes the auth header.
 *
 * What is retried:
 * - a 429 answer and a refused connection (the request never left): every request;
 * - a 502, 503 or 504 answer (a load balancer in front of a restarting server or a full queue): the requests a
 *   resend cannot harm, `default` (reads) and `idempotent` (writes that land the same way twice);
 * - a lost connection: see `delivery` (RequestOptions): a `default` request once when a kept-alive socket is
 *   reset as it is reused (the server closed it while idle); an `idempotent` request once after any lost
 *   connection; `once` and `atMostOnce` requests never after they may have gone out (an `atMostOnce` request, an
 *   RPC, uses a connection of its own, so that no reused socket can lose it).
 *
 * An answer larger than `maxResponseBytes` is dropped while it is read (never held whole), or before a byte of it
 * is read when it declares its length: TB_RESPONSE_TOO_LARGE. Answers read at the same time share that limit
 * (answer-limit.ts).
 */
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import axios, { AxiosInstance, AxiosRequestConfig, AxiosResponse } from 'axios';
import { TbApiError, TbError, TbErrorCode, TbNetworkError } from '../errors';
import { ANSWER_TOO_LARGE, AnswerLimit } from './answer-limit';
import { backoffDelay, BackoffOptions, parseRetryAfter } from './backoff';

export interface RetryPolicy extends BackoffOptions {
  /**
   * How many times a retryable failure (429, 502/503/504, refused connection) is retried before it becomes an error.
   */
  retries: number;
  /** Give up early when the waits would add up to more than this (ms). */
  maxTotalMs?: number;
}

/**
 * Defaults of the official ThingsBoard clients (3 retries, 1 s initial, 30 s cap, ±20 % jitter), and at most 30 s of
 * waiting in all.
 */
export const DEFAULT_RETRY: RetryPolicy = { retries: 3, initialMs: 1000, maxMs: 30000, jitter: 0.2, maxTotalMs: 30000 };

/** The largest answer read by default (the connection's `maxResponseMB`). */
export const DEFAULT_MAX_RESPONSE_MB = 32;

/** Answers that say "not now" from a gateway or a busy server: worth another try when a resend cannot harm. */
const TRANSIENT_STATUSES = new Set([502, 503, 504]);

export interface HttpClientOptions {
  /** Base URL, e.g. http://host:8080 (a trailing slash is fine). */
  baseUrl: string;
  /** Per-request timeout in ms (0 = none). */
  timeoutMs: number;
  /** Extra TLS options (from a core tls-config node) for https URLs. */
  tls?: https.AgentOptions;
  retry?: RetryPolicy;
  /** What to call the server in error messages ("ThingsBoard", "the analytics service"). */
  serviceName?: string;
  /** The largest answer read, in bytes (default 32 MB); a larger one is dropped while it is read. */
  maxResponseBytes?: number;
  /**
   * The connection setting that sets `maxResponseBytes`, named in TB_RESPONSE_TOO_LARGE (default "Largest answer
   * (maxResponseMB)").
   */
  maxResponseSetting?: string;
}

export interface RequestOptions {
  /** Query-string parameters. */
  params?: Record<string, string | number | boolean>;
  /** Called before each retry, e.g. to show "retrying (2)" in a node status. */
  onRetry?: (attempt: number, delayMs: number) => void;
  /** Override the per-request timeout (ms). */
  timeoutMs?: number;
  /** Override the retry policy for this request. */
  retry?: RetryPolicy;
  /**
   * When the request may be sent again after a failure that leaves open whether the server took it:
   * - `default`: once, when a kept-alive socket is reset as it is reused (the server closed it while idle);
   * - `idempotent`: once after any connection loss (a request whose repetition changes nothing, e.g. a
   *   telemetry save whose points carry their ts);
   * - `once`: a write whose repetition would do it twice (an alarm comment, a raise): like `default` for a reused
   *   socket's reset (nothing was processed), but never after a 502/503/504 answer, which goes to the caller at
   *   once (for 502 and 504 saying that the server may or may not have applied it);
   * - `atMostOnce`: never (an RPC). The request goes out on a connection of its own, so that no kept-alive socket
   *   the server closed can swallow it; a failure before it went out (connection refused, no route, DNS) is
   *   retried under the retry policy like a 429; a loss after it went out (reset, hang-up, timeout) is a
   *   TbNetworkError with `maybeProcessed: true`; a 502/503/504 answer is not retried (as `once`).
   */
  delivery?: Delivery;
  /**
   * The answer as it came (any status): its bytes in `data` (a Buffer; undefined when empty), never parsed, so that a
   * caller that takes any answer (a file, text, JSON) reads it as it is; sent accepting any type, since an endpoint
   * that produces a file answers 406 to `Accept: application/json`. 429 and 502/503/504 are retried and mapped to
   * errors as for any request.
   */
  raw?: boolean;
}

export type Delivery = 'default' | 'idempotent' | 'once' | 'atMostOnce';

/** The HTTP methods the clients use. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpResult {
  status: number;
  /** Parsed JSON body (undefined for an empty body); with `raw`, the body's bytes (a Buffer, or undefined). */
  data: unknown;
  headers: Record<string, unknown>;
}

/** The body of a ThingsBoard error answer. */
interface TbErrorBody {
  status?: number;
  message?: string;
  errorCode?: number;
}

/** Marks a body that is not JSON; `text` keeps the start of it for error messages. */
class NotJson {
  constructor(readonly text: string) {}
}

/**
 * An error answer's body as the error message reads it: the parsed JSON (an error object, or a quoted text such as
 * the 413's), else the start of the text itself (a plain-text 403 or 404); undefined when empty.
 */
export function errorBody(raw: unknown): unknown {
  const parsed = parseBody(raw);
  return parsed instanceof NotJson ? parsed.text : parsed;
}

function parseBody(raw: unknown): unknown {
  if (raw === undefined || raw === null) return undefined;
  let text: string;
  if (Buffer.isBuffer(raw)) {
    if (raw.length === 0) return undefined;
    text = raw.toString('utf8');
  } else if (typeof raw === 'string') {
    if (raw.length === 0) return undefined;
    text = raw;
  } else {
    return raw;
  }
  try {
    return JSON.parse(text);
  } catch {
    return new NotJson(text.length > 200 ? `${text.slice(0, 200)}…` : text);
  }
}

function isResetOfReusedSocket(err: unknown): boolean {
  const e = err as { code?: string; request?: { reusedSocket?: boolean } };
  return e.code === 'ECONNRESET' && e.request?.reusedSocket === true;
}

/**
 * Failures that happen before a single byte of the request went out: the connection was never made. The server
 * certainly did not take such a request.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/** The connection failed before the request went out (see NOT_SENT_CODES). */
export function failedBeforeSending(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && NOT_SENT_CODES.has(code);
}

/** The connection was lost after it was made: reset, hang-up, broken pipe. */
function isConnectionLoss(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/** axios dropped an answer larger than `maxContentLength` while reading it. */
function isTooLarge(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  if (e.code === ANSWER_TOO_LARGE) return true; // its declared length is over the limit (answer-limit.ts)
  return e.code === 'ERR_BAD_RESPONSE' && typeof e.message === 'string' && e.message.startsWith('maxContentLength');
}

const ignore = (): void => undefined;

/**
 * Lets go of a large answer's bytes once it is parsed. axios leaves its reading listeners on the finished response,
 * and they share one closure with the list of chunks read; the response stays reachable from the request for a while
 * (socket and timers), long enough to outlive a few young-generation collections while the flow works on the
 * page. Promoted, the chunks then wait for a full collection: allPages + split over 100 pages held about 60 MB of
 * dead answers before this. Only for answers over 64 KB; small ones are not worth the work.
 */
function releaseBody(res: AxiosResponse): void {
  const body = res.data as Buffer | undefined;
  if (!body || body.length <= 64 * 1024) return;
  res.data = undefined;
  // ClientRequest.res: the answer being read (Node sets it; @types/node leaves it out)
  const incoming = (res.request as { res?: http.IncomingMessage } | undefined)?.res;
  // the answer was read to its end: none of its events is still to come but a late 'error', which must not throw
  incoming?.removeAllListeners().on('error', ignore);
}

function hasProxyEnv(): boolean {
  const e = process.env;
  return Boolean(e.http_proxy || e.HTTP_PROXY || e.https_proxy || e.HTTPS_PROXY || e.all_proxy || e.ALL_PROXY);
}

/** Removes user:password@ from a URL so that it can appear in an error message. */
export function safeUrl(url: string): string {
  return url.replace(/\/\/[^/@]*@/, '//');
}

function codeForStatus(status: number): TbErrorCode {
  if (status === 400) return 'TB_BAD_REQUEST';
  if (status === 401) return 'TB_AUTH_FAILED';
  if (status === 403) return 'TB_PERMISSION';
  if (status === 404) return 'TB_NOT_FOUND';
  if (status === 429) return 'TB_RATE_LIMITED';
  if (TRANSIENT_STATUSES.has(status)) return 'TB_UNAVAILABLE';
  if (status >= 500) return 'TB_SERVER_ERROR';
  return 'TB_HTTP_ERROR';
}

export class HttpClient {
  readonly baseUrl: string;
  readonly serviceName: string;
  private readonly ax: AxiosInstance;
  private readonly retry: RetryPolicy;
  private readonly agent: http.Agent;
  /** An agent without keep-alive, for requests that must never be resent (`delivery: 'atMostOnce'`). */
  private readonly freshAgent: http.Agent;
  private closed = false;
  private readonly abort = new AbortController();
  private readonly waits = new Set<{ timer: NodeJS.Timeout; reject: (e: Error) => void }>();
  private readonly isHttps: boolean;
  private readonly maxResponseBytes: number;
  private readonly maxResponseSetting: string;
  /** What the answers being read may hold, together (answer-limit.ts). */
  readonly answers: AnswerLimit;

  constructor(opts: HttpClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.serviceName = opts.serviceName ?? 'ThingsBoard';
    this.retry = opts.retry ?? DEFAULT_RETRY;
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_MB * 1024 * 1024;
    this.maxResponseSetting = opts.maxResponseSetting ?? 'Largest answer (maxResponseMB)';
    // Every request listens on the one abort signal (close() aborts them all): no listener limit.
    setMaxListeners(0, this.abort.signal);
    const isHttps = this.baseUrl.startsWith('https:');
    // Idle keep-alive sockets are closed after 15 s, before a server's own idle timeout can close them under
    // a new request (Tomcat's default is 20 s; a Keep-Alive hint from the server shortens it further).
    const agentOptions = { keepAlive: true, timeout: 15000 };
    this.answers = new AnswerLimit(this.maxResponseBytes);
    this.agent = this.answers.watch(
      isHttps ? new https.Agent({ ...agentOptions, ...(opts.tls ?? {}) }) : new http.Agent(agentOptions),
    );
    this.freshAgent = this.answers.watch(
      isHttps ? new https.Agent({ keepAlive: false, ...(opts.tls ?? {}) }) : new http.Agent({ keepAlive: false }),
    );
    this.isHttps = isHttps;
    const config: AxiosRequestConfig = {
      // Without a proxy in the environment, tell axios so once: it otherwise looks the environment up on
      // every request. With one, axios keeps honouring http_proxy / https_proxy / no_proxy as usual.
      ...(hasProxyEnv() ? {} : { proxy: false as const }),
      baseURL: this.baseUrl,
      timeout: opts.timeoutMs,
      maxRedirects: 0,
      // Counted as the answer streams in: a larger one is dropped at once, never held whole.
      maxContentLength: this.maxResponseBytes,
      responseType: 'arraybuffer',
      transformResponse: [],
      validateStatus: () => true,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      signal: this.abort.signal,
    };
    if (isHttps) config.httpsAgent = this.agent;
    else config.httpAgent = this.agent;
    this.ax = axios.create(config);
  }

  /**
   * Sends one request; retries 429 answers; resolves with any other answer (2xx or not).
   * Rejects only with TbNetworkError (unreachable, timeout, closed) or TbApiError (429 after every retry).
   * `body` is sent as JSON (a string is sent as is).
   */
  async send(
    method: HttpMethod,
    path: string,
    body: unknown,
    authHeader: string | undefined,
    opts?: RequestOptions,
  ): Promise<HttpResult> {
    const policy = opts?.retry ?? this.retry;
    const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const config: AxiosRequestConfig = { method, url: path, data };
    if (authHeader !== undefined) config.headers = this.authHeaders(authHeader);
    if (opts?.raw) config.headers = { ...config.headers, Accept: '*/*' };
    if (opts?.params) config.params = opts.params;
    if (opts?.timeoutMs !== undefined) config.timeout = opts.timeoutMs;
    const delivery: Delivery = opts?.delivery ?? 'default';
    if (delivery === 'atMostOnce') {
      if (this.isHttps) config.httpsAgent = this.freshAgent;
      else config.httpAgent = this.freshAgent;
    }
    const resendable = delivery === 'default' || delivery === 'idempotent';
    let waited = 0;
    let resetRetried = false;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw this.closedError();
      // The wait before the next try, or undefined when the retries or their time are used up.
      const nextWait = (retryAfter?: number): number | undefined => {
        if (attempt >= policy.retries) return undefined;
        const delay = retryAfter !== undefined ? Math.min(retryAfter, policy.maxMs) : backoffDelay(attempt + 1, policy);
        return policy.maxTotalMs === undefined || waited + delay <= policy.maxTotalMs ? delay : undefined;
      };
      let res: AxiosResponse;
      try {
        res = await this.ax.request(config);
      } catch (err) {
        if (this.closed) throw this.closedError();
        if (isTooLarge(err)) throw this.tooLargeError(method, path);
        // A refused connection: the request certainly never left (the server restarting), so any request may go again.
        const delay = failedBeforeSending(err) ? nextWait() : undefined;
        if (delay !== undefined) {
          waited += delay;
          opts?.onRetry?.(attempt + 1, delay);
          await this.wait(delay);
          continue;
        }
        if (
          delivery !== 'atMostOnce' &&
          !resetRetried &&
          (isResetOfReusedSocket(err) || (delivery === 'idempotent' && isConnectionLoss(err)))
        ) {
          // The server closed an idle keep-alive socket just as we reused it (nothing was processed), or the
          // request may be repeated without harm: send again once.
          resetRetried = true;
          attempt--;
          continue;
        }
        throw this.networkError(err, method, path);
      }
      const transient = TRANSIENT_STATUSES.has(res.status);
      if (res.status === 429 || (transient && resendable)) {
        const delay = nextWait(parseRetryAfter(res.headers['retry-after']));
        if (delay !== undefined) {
          waited += delay;
          opts?.onRetry?.(attempt + 1, delay);
          await this.wait(delay);
          continue;
        }
      }
      const bytes = res.data as Buffer | undefined;
      // A raw answer is given as it came, but a 429 or 502/503/504, which are retried and mapped as for any request.
      const asItCame = opts?.raw === true && !(res.status === 429 || transient);
      const parsed = asItCame ? undefined : parseBody(bytes);
      releaseBody(res);
      if (asItCame) {
        const data = bytes && bytes.length > 0 ? bytes : undefined;
        return { status: res.status, data, headers: res.headers as Record<string, unknown> };
      }
      if (res.status === 429 || transient) {
        const tries = attempt + 1;
        let why = '';
        if (transient && !resendable) {
          why =
            res.status === 503
              ? ' (not sent again: a resend could do it twice)'
              : ' (not sent again: the server may or may not have applied it)';
        } else if (attempt > 0 || policy.retries > 0) {
          why =
            ` (gave up after ${attempt} retr${attempt === 1 ? 'y' : 'ies'}, ${tries} ` +
            `tries, ${Math.round(waited / 100) / 10} s of waiting)`;
        }
        throw this.apiError(res.status, parsed instanceof NotJson ? parsed.text : parsed, method, path, why);
      }
      if (parsed instanceof NotJson) {
        if (res.status >= 200 && res.status < 300) {
          throw new TbError(
            'TB_BAD_RESPONSE',
            `${this.serviceName} answered ${method} ${path} with a body that is not JSON`,
          );
        }
        return { status: res.status, data: parsed.text, headers: res.headers as Record<string, unknown> };
      }
      return { status: res.status, data: parsed, headers: res.headers as Record<string, unknown> };
    }
  }

  private lastAuth: { value: string; headers: Record<string, string> } | undefined;

  /** The header object for a token, reused while the token stays the same (one object less per request). */
  private authHeaders(value: string): Record<string, string> {
    const last = this.lastAuth;
    if (last && last.value === value) return last.headers;
    const headers = { 'X-Authorization': value };
    this.lastAuth = { value, headers };
    return headers;
  }

  /** Builds the error for a non-2xx answer; `suffix` is appended to the message. */
  apiError(status: number, body: unknown, method: string, path: string, suffix = ''): TbApiError {
    const b: TbErrorBody = body && typeof body === 'object' ? (body as TbErrorBody) : {};
    const serverMessage = typeof b.message === 'string' ? b.message : typeof body === 'string' ? body : undefined;
    const errorCode = typeof b.errorCode === 'number' ? b.errorCode : undefined;
    const what = serverMessage ? `: ${serverMessage}` : '';
    const codeText = errorCode !== undefined ? `, errorCode ${errorCode}` : '';
    return new TbApiError(
      codeForStatus(status),
      status,
      errorCode,
      serverMessage,
      `${this.serviceName} answered HTTP ${status}${codeText}${what} (${method} ${path})${suffix}`,
    );
  }

  private networkError(err: unknown, method: string, path: string): TbError {
    if (this.closed || axios.isCancel(err)) return this.closedError();
    const e = err as { code?: string; message?: string };
    const where = `${this.serviceName} at ${safeUrl(this.baseUrl)}`;
    if (e.code === 'ECONNABORTED' || e.code === 'ETIMEDOUT') {
      return new TbNetworkError(
        'TB_TIMEOUT',
        `No answer from ${where} in time (${method} ${path}): ${e.message ?? 'timeout'}`,
      );
    }
    if (isConnectionLoss(err)) {
      return new TbNetworkError(
        'TB_UNREACHABLE',
        `The connection to ${where} was lost before it answered ` +
          `(${method} ${path}): ${e.code ?? e.message ?? 'network error'}`,
      );
    }
    return new TbNetworkError(
      'TB_UNREACHABLE',
      `Cannot reach ${where} (${method} ${path}): ${e.code ?? e.message ?? 'network error'}`,
      !failedBeforeSending(err),
    );
  }

  private tooLargeError(method: string, path: string): TbError {
    const b = this.maxResponseBytes;
    const size = b >= 1024 * 1024 ? `${Math.round((b / 1024 / 1024) * 10) / 10} MB` : `${Math.round(b / 1024)} KB`;
    return new TbError(
      'TB_RESPONSE_TOO_LARGE',
      `${this.serviceName} answered ${method} ${path} with more than ${size}, the connection's limit ` +
        `(${this.maxResponseSetting}); the answer was dropped. Ask for less: a smaller page size (with "all pages" ` +
        'to get every page), fewer fields or keys, a narrower time range, or raise the limit on the connection',
    );
  }

  private closedError(): TbError {
    return new TbNetworkError(
      'TB_CLOSED',
      `The connection to ${this.serviceName} was closed (redeploy or shutdown) before the request finished`,
    );
  }

  /** A wait that `close()` cuts short (so no timer outlives a redeploy). */
  wait(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry = {
        timer: setTimeout(() => {
          this.waits.delete(entry);
          resolve();
        }, ms),
        reject,
      };
      this.waits.add(entry);
    });
  }

  /** Aborts in-flight requests and pending retries, and closes idle keep-alive sockets. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    for (const w of this.waits) {
      clearTimeout(w.timer);
      w.reject(this.closedError());
    }
    this.waits.clear();
    this.agent.destroy();
    this.freshAgent.destroy();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
