/**
 * The builder of the query dialog that is open (one dialog at a time): opened in oneditprepare, written back and
 * released in oneditsave / oneditcancel (common/query-part.ts; also `TbBuilder.open`/`close`).
 */
import type { QueryMode } from '../../query-model/schema';
import { attach, type Builder } from './builder';

let current: Builder | undefined;

/**
 * Opens the builder in a query node's dialog: attaches the builder to `#node-input-query` (already a TypedInput) in the
 * dialog's `#tb-builder` div.
 */
export function open(o: {
  nodeType: string;
  id?: string;
  query?: string;
  mode(): QueryMode;
  operation(): string;
  live?: boolean;
}): Builder {
  close();
  current = attach({
    nodeType: o.nodeType,
    input: '#node-input-query',
    container: '#tb-builder',
    mode: o.mode,
    operation: o.operation,
    connection: () => String($('#node-input-connection').val() ?? '') || undefined,
    live: o.live,
    id: o.id,
    text: o.query,
  });
  return current;
}

/** Writes the query back and releases the builder (oneditsave / oneditcancel). */
export function close(): void {
  current?.close();
  current = undefined;
}

export function resize(): void {
  current?.resize();
}

/** The node's settings changed the kind of query (operation or subscription kind). */
export function modeChanged(): void {
  current?.modeChanged();
}
