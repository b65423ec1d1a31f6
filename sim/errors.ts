/** Errors the simulator answers with, in the server's shapes. */

export const MSG_PERMISSION = "You don't have permission to perform this operation!";
export const MSG_NOT_FOUND = "Requested item wasn't found!";

/** An error answered with the standard `{"status","message","errorCode","timestamp"}` body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
    /** fields the body carries besides the standard four (the entity limit's `entityType` and `limit`) */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** 400 code 31 (IllegalArgumentException, IncorrectParameterException, DataValidationException). */
export function badRequest(message: string): ApiError {
  return new ApiError(400, 31, message);
}
/** 500 code 2 (any other exception). */
export function general(message: string): ApiError {
  return new ApiError(500, 2, message);
}
/** 500 code 2 "JSON parse error: …" (HttpMessageNotReadableException caught by BaseController). */
export function jsonParseError(detail: string): ApiError {
  return new ApiError(500, 2, `JSON parse error: ${detail}`);
}
export function unauthorized(message: string, code = 10): ApiError {
  return new ApiError(401, code, message);
}
export function forbidden(): ApiError {
  return new ApiError(403, 20, MSG_PERMISSION);
}
export function notFound(): ApiError {
  return new ApiError(404, 32, MSG_NOT_FOUND);
}

/** A Spring Boot default error (unknown path, wrong method): `{"timestamp","status","error","path"}`. */
export class SpringError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
  ) {
    super(error);
    this.name = 'SpringError';
  }
}

/**
 * A refusal answered with a bare string (`text/plain`) or an empty body, no `errorCode`: what most telemetry,
 * attribute and RPC routes send (`getImmediateDeferredResult`, `AccessValidator#handleError`), unlike the JSON body
 * of the other routes.
 */
export class PlainError extends Error {
  constructor(
    readonly status: number,
    /** null = empty body */
    readonly text: string | null,
  ) {
    super(text ?? `HTTP ${status}`);
    this.name = 'PlainError';
  }
}
