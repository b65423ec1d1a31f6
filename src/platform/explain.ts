/**
 * Putting words in front of a server's error: the same error (class, code, status, the server's own message) with
 * a sentence that says what was being done and to what. Shared by the action clients (alarms, device data, RPC).
 */
import { TbApiError, TbError, TbErrorCode, TbNetworkError } from '../errors';

/** 404 or 403 answered by the server (auth failures, whatever their status, are left as they are). */
export function statusOf(err: unknown): 404 | 403 | undefined {
  if (!(err instanceof TbApiError)) return undefined;
  if (err.code === 'TB_NOT_FOUND') return 404;
  if (err.code === 'TB_PERMISSION') return 403;
  return undefined;
}

/** The same error (code, status) with a clearer message in front of the server's; `code` replaces the code. */
export function explained(err: unknown, message: string, code?: TbErrorCode): unknown {
  if (err instanceof TbApiError && err.constructor === TbApiError) {
    return new TbApiError(
      code ?? err.code,
      err.status,
      err.errorCode,
      err.serverMessage,
      `${message} (${err.message})`,
    );
  }
  if (err instanceof TbNetworkError)
    return new TbNetworkError(code ?? err.code, `${message} (${err.message})`, err.maybeProcessed);
  if (err instanceof TbError && err.constructor === TbError)
    return new TbError(code ?? err.code, `${message} (${err.message})`);
  return err;
}
