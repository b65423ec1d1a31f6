/**
 * The builder's model: the query object is the truth. Controls patch paths in it (set or delete at a path),
 * so a field without a control is never touched, and the JSON view is the object printed. Rendering never
 * writes to the model: only a person's edit does.
 */
import { deletePath, getPath, setPath } from '../../query-model/paths';
import type { QueryMode } from '../../query-model/schema';
import type { Lookups } from './lookups';

export type Path = ReadonlyArray<string | number>;
export type Query = Record<string, unknown>;

export class Model {
  private listeners: Array<() => void> = [];

  constructor(public query: Query) {}

  get(path: Path): unknown {
    return getPath(this.query, path as Array<string | number>);
  }

  /** Sets a value; `undefined` deletes the key. */
  set(path: Path, value: unknown): void {
    if (value === undefined) deletePath(this.query, path as Array<string | number>);
    else setPath(this.query, path as Array<string | number>, value);
    this.changed();
  }

  delete(path: Path): void {
    deletePath(this.query, path as Array<string | number>);
    this.changed();
  }

  /** The array at `path` ([] when absent or not an array: then nothing is written until an edit). */
  list(path: Path): unknown[] {
    const v = this.get(path);
    return Array.isArray(v) ? v : [];
  }

  /** Appends to the array at `path`, creating it when absent. */
  push(path: Path, value: unknown): void {
    const v = this.get(path);
    if (Array.isArray(v)) {
      v.push(value);
      this.changed();
    } else {
      this.set(path, [value]);
    }
  }

  /** Removes item `index` of the array at `path`. */
  removeAt(path: Path, index: number): void {
    const v = this.get(path);
    if (Array.isArray(v) && index >= 0 && index < v.length) {
      v.splice(index, 1);
      this.changed();
    }
  }

  /** Replaces the whole query (from the JSON view). */
  replace(query: Query): void {
    this.query = query;
    this.changed();
  }

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  changed(): void {
    for (const fn of this.listeners) fn();
  }
}

/** What every part of the builder gets. */
export interface Ctx {
  model: Model;
  mode: QueryMode;
  /** A live subscription (tb-subscribe): the "dynamic" page control, and the runtime's live validation. */
  live: boolean;
  lookups: Lookups;
  /** Re-draws the builder after a change of structure (a row added, a filter type changed). */
  rerender(): void;
}

export { isObj } from '../../query-model/schema/spec';

export function str(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}
