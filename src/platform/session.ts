/**
 * An authenticated session with one server: the keep-alive HTTP client plus the token manager, and the
 * rule that a request whose token was rejected as expired is retried once with a fresh one. The platform
 * client and the analytics client both sit on it.
 */
import { AuthManager } from './auth';
import { errorBody, HttpClient, HttpMethod, HttpResult, RequestOptions } from './http';
import type { Requester } from './requester';

export class Session implements Requester {
  constructor(
    readonly http: HttpClient,
    readonly auth: AuthManager,
    /** Statuses that may mean "token no longer good" (the platform: 401; the analytics service: 401, 403). */
    private readonly authStatuses: readonly number[] = [401],
  ) {}

  /** Sends a request with auth; returns the parsed body of a 2xx answer or throws our error. */
  async request(method: HttpMethod, path: string, body: unknown, opts?: RequestOptions): Promise<unknown> {
    const res = await this.exchange(method, path, body, opts ?? {});
    if (res.status >= 300) throw this.http.apiError(res.status, res.data, method, path);
    return res.data;
  }

  /**
   * Sends a request and gives the answer whatever its status (the generic call reads errors itself): with auth and
   * the one retry after "token expired", or, with `noAuth`, without any credential (a path the server serves to
   * anyone: the token is not sent where it is not needed).
   */
  async exchange(
    method: HttpMethod,
    path: string,
    body: unknown,
    opts: RequestOptions & { noAuth?: boolean },
  ): Promise<HttpResult> {
    if (opts.noAuth) return this.http.send(method, path, body, undefined, opts);
    let header = this.auth.header();
    if (typeof header !== 'string') header = await header;
    let res = await this.http.send(method, path, body, header, opts);
    if (this.authStatuses.includes(res.status)) {
      // A raw answer's body is its bytes: read as the error message reads it.
      const err = this.http.apiError(res.status, opts.raw ? errorBody(res.data) : res.data, method, path);
      const verdict = await this.auth.onUnauthorized(header, err);
      if (verdict !== true) throw verdict;
      header = this.auth.header();
      if (typeof header !== 'string') header = await header;
      res = await this.http.send(method, path, body, header, opts);
    }
    if (res.status < 300) this.auth.noteSuccess();
    return res;
  }

  close(): void {
    this.http.close();
  }
}
