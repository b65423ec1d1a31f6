/**
 * Error classes shared by every part of the package.
 *
 * A Catch node sees `msg.error.message = err.toString()`, i.e. "<name>: <message>", and (Node-RED >= 4.1)
 * an own-property `code`. Every other property is dropped on the way, so the message carries the details.
 * No message ever contains a credential or a token.
 */

export type TbErrorCode =
  | 'TB_INVALID_INPUT' // the query / message is wrong; nothing was sent
  | 'TB_CONFIG' // the node or connection is not configured correctly
  | 'TB_AUTH_FAILED' // the server refused the credentials (wrong password, unknown API key...)
  | 'TB_2FA_REQUIRED' // the account needs two-factor authentication: use an API key instead
  | 'TB_TOKEN_EXPIRED' // a pre-issued token (authMode "token") has expired
  | 'TB_PERMISSION' // 403
  | 'TB_NOT_FOUND' // 404
  | 'TB_BAD_REQUEST' // 400
  | 'TB_RATE_LIMITED' // 429 after every retry
  | 'TB_SERVER_ERROR' // 5xx other than 502/503/504
  | 'TB_UNAVAILABLE' // 502, 503 or 504 after every retry (or at once for a request that is never resent)
  | 'TB_RESPONSE_TOO_LARGE' // an answer over the connection's maxResponseMB, dropped while it was read
  | 'TB_HTTP_ERROR' // any other HTTP status
  | 'TB_BAD_RESPONSE' // the server answered something we cannot read
  | 'TB_UNREACHABLE' // connection refused, DNS, reset...
  | 'TB_TIMEOUT' // no answer in time
  | 'TB_CLOSED' // the connection was closed (redeploy / shutdown) while the request waited
  | 'TB_SUBSCRIPTION' // an error reported by the server for a live subscription
  | 'TB_REPORT_FAILED' // the analytics service could not build a report
  | 'TB_RPC_NO_REPLY' // the device did not answer an RPC in time (offline, not subscribed, or no "rpc call request" node)
  | 'TB_RPC_BAD_REPLY' // the device answered an RPC with something that is not JSON (HTTP 406)
  | 'TB_RPC_FAILED' // a persistent RPC ended FAILED
  | 'TB_RPC_EXPIRED' // a persistent RPC ended EXPIRED (its expiration passed before it completed)
  | 'TB_RPC_UNCERTAIN' // the connection was lost after an RPC went out: the device may or may not have run it
  | 'TB_RULE_NO_REPLY' // the rule chain did not answer a rule engine message in time (no "rest call reply" on its path)
  | 'TB_RULE_BAD_REPLY' // the rule chain answered with data that is not JSON (HTTP 406)
  | 'TB_RULE_UNCERTAIN' // the connection was lost after a message went to the rule engine: it may have been handled
  | 'TB_SERVER_TOO_OLD'; // the server lacks the endpoint: it is older than the version that brought it

export class TbError extends Error {
  /** Stable code; an own property so that Node-RED copies it into msg.error.code. */
  code: TbErrorCode;

  constructor(code: TbErrorCode, message: string) {
    super(message);
    this.code = code;
    Object.defineProperty(this, 'name', {
      value: new.target.name,
      enumerable: false,
      configurable: true,
      writable: true,
    });
  }
}

/** Bad input: the message names the field and what is allowed. Nothing was sent to the server. */
export class TbInputError extends TbError {
  /** Path of the offending field, e.g. "query.pageLink.pageSize". */
  readonly field: string;

  constructor(field: string, message: string) {
    super('TB_INVALID_INPUT', message);
    this.field = field;
  }
}

/** Node or connection configuration problem. */
export class TbConfigError extends TbError {
  constructor(message: string) {
    super('TB_CONFIG', message);
  }
}

/** An HTTP error answered by the ThingsBoard (or analytics) server. */
export class TbApiError extends TbError {
  /** HTTP status. */
  readonly status: number;
  /** ThingsBoard `errorCode` from the error body, when there was one. */
  readonly errorCode: number | undefined;
  /** The server's own message, when there was one. */
  readonly serverMessage: string | undefined;

  constructor(
    code: TbErrorCode,
    status: number,
    errorCode: number | undefined,
    serverMessage: string | undefined,
    message: string,
  ) {
    super(code, message);
    this.status = status;
    this.errorCode = errorCode;
    this.serverMessage = serverMessage;
  }
}

/** The server refused to authenticate us; retrying with the same credentials will not help. */
export class TbAuthError extends TbApiError {}

/** The server could not be reached, or did not answer in time. */
export class TbNetworkError extends TbError {
  /**
   * Whether the server may have received (and acted on) the request: false when the connection failed before
   * the request went out (refused, no route, DNS), true when it was lost or timed out after that.
   */
  readonly maybeProcessed: boolean;

  constructor(code: TbErrorCode, message: string, maybeProcessed = true) {
    super(code, message);
    this.maybeProcessed = maybeProcessed;
  }
}
