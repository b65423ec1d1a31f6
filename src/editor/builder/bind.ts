/**
 * "From the message", once for every value control of the builder: `bindable` puts a small switch beside a
 * control; switched, the leaf holds a placeholder (`{{msg.payload}}`) and the control gives way to a chip (a
 * choice of msg. / flow. / global. / env and the property path, never the raw braces). Switched back, the fixed
 * value it had comes back. The chip carries a hint the builder fills after its check (what kind of value the
 * leaf must get).
 *
 * Hooks for the tests: the switch `data-tb-bind="<field>"`, the chip `data-tb-binding="<field>"` with its
 * `data-tb-bind-source` select, `data-tb-bind-path` box, `data-tb-action="unbind"` and
 * `data-tb-bound-needs="<field>"` hint.
 */
import type { BindingRef, BindingSource } from '../../protocol/bindings';
import { clone } from '../../query-model/schema/spec';
import { BINDING_SOURCES, placeholder, wholeBinding } from './bound';
import { t } from './dom';
import type { Ctx, Model, Path } from './model';

export interface BindSpec {
  /** The leaf that takes the placeholder. */
  at: Path;
  /** Its `data-tb-field` (the dotted path of the leaf). */
  field: string;
  /** The leaf is a whole list: the message gives the list, or one value (a one-item list). */
  list?: boolean;
  /**
   * The leaf lives in an object the control writes whole (a customer or user `{entityType, id}`): switching
   * writes `value(placeholder)` at `path`, and switching back puts back what `path` held.
   */
  holder?: { path: Path; value(ph: string): unknown };
  /** A short note on what the value is (e.g. "in milliseconds"). */
  note?: string;
}

/** The fixed values a person switched away from, to put back when they switch back (this dialog only). */
const fixedBefore = new WeakMap<Model, Map<string, unknown>>();

function remembered(m: Model): Map<string, unknown> {
  let map = fixedBefore.get(m);
  if (!map) {
    map = new Map();
    fixedBefore.set(m, map);
  }
  return map;
}

/** The control, or the chip of its binding, with the switch between the two. */
export function bindable(ctx: Ctx, spec: BindSpec, control: () => JQuery): JQuery {
  const m = ctx.model;
  const wrap = $('<span class="tb-b-bindable">');
  const ref = wholeBinding(m.get(spec.at));
  const keep = spec.holder?.path ?? spec.at;
  if (ref) {
    wrap.append(
      bindingChip(
        ref,
        spec.field,
        (text) => m.set(spec.at, text),
        () => {
          const before = remembered(m).get(spec.field);
          remembered(m).delete(spec.field);
          m.set(keep, before !== undefined ? before : spec.list ? [] : undefined);
          ctx.rerender();
        },
      ),
    );
    const needs = $('<span class="tb-b-bound-needs">').attr('data-tb-bound-needs', spec.field).appendTo(wrap);
    needs.text([spec.list ? t('bind.list') : '', spec.note ?? '', t('bind.runtime')].filter(Boolean).join('; '));
    return wrap;
  }
  const c = control();
  // A control that takes the rest of the row keeps doing so inside the wrapper.
  if (c.is('.tb-b-wide, .tb-b-chips, .tb-b-entity, .tb-b-controls')) wrap.addClass('tb-b-bindable-wide');
  wrap.append(c);
  $('<button type="button" class="red-ui-button red-ui-button-small tb-b-bind">')
    .attr('data-tb-bind', spec.field)
    .attr('title', t('bind.toggle'))
    .append('<i class="fa fa-envelope-o"></i>')
    .on('click', () => {
      const now = m.get(keep);
      if (now !== undefined) remembered(m).set(spec.field, clone(now));
      const ph = placeholder('msg', 'payload');
      if (spec.holder) m.set(spec.holder.path, spec.holder.value(ph));
      else m.set(spec.at, ph);
      ctx.rerender();
    })
    .appendTo(wrap);
  return wrap;
}

/**
 * A binding as a chip: the source (msg. / flow. / global. / env) and the property path. `write` gets the new
 * placeholder when either changes (an empty path writes nothing: `{{msg.}}` would be literal text); `remove`
 * switches back to a fixed value (absent: no way back, e.g. a list item).
 */
export function bindingChip(
  ref: BindingRef,
  field: string,
  write: (text: string) => void,
  remove?: () => void,
): JQuery {
  const chip = $('<span class="tb-b-bound">')
    .attr('data-tb-binding', field)
    .attr('title', t('bind.chip', { ref: ref.text }));
  $('<i class="fa fa-envelope">').appendTo(chip);
  const source = $('<select class="tb-b-bound-source">').attr('data-tb-bind-source', field).appendTo(chip);
  for (const s of BINDING_SOURCES)
    $('<option>')
      .val(s)
      .text(t(`bind.source.${s}`))
      .appendTo(source);
  source.val(ref.source);
  const path = $('<input type="text" class="tb-b-bound-path">')
    .attr('data-tb-bind-path', field)
    .attr('placeholder', t('bind.path'))
    .val(ref.path)
    .appendTo(chip);
  const update = () => {
    const p = String(path.val() ?? '').trim();
    path.toggleClass('tb-b-invalid', p === '');
    if (p === '') return;
    const text = placeholder(String(source.val()) as BindingSource, p);
    chip.attr('title', t('bind.chip', { ref: `${String(source.val())}.${p}` }));
    write(text);
  };
  source.on('change', update);
  path.on('change input', update);
  if (remove) {
    $('<a data-tb-action="unbind"><i class="fa fa-times"></i></a>')
      .attr('title', t('bind.unbind'))
      .on('click', remove)
      .appendTo(chip);
  }
  return chip;
}

/** Shows, at each bound leaf's chip, what the dialog's check found it must get. */
export function showNeeds(form: JQuery, needs: ReadonlyMap<string, string>): void {
  form.find('[data-tb-bound-needs]').each((_i, el) => {
    const e = $(el);
    const field = String(e.attr('data-tb-bound-needs'));
    const need = needs.get(field);
    const base = String(e.attr('data-tb-base') ?? e.text());
    e.attr('data-tb-base', base);
    e.text(need ? t('bind.needs', { message: need }) : base);
  });
}

/** The leaf holds a whole placeholder (for the parts that choose a mode by the value, e.g. the time). */
export function isBound(v: unknown): boolean {
  return wholeBinding(v) !== undefined;
}
