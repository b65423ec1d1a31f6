/**
 * The builder's reusable controls: a text box with suggestions (Node-RED's autoComplete over a look-up),
 * chips (a list of names or keys with an entry box) and an entity picker (name shown, id stored). Every one
 * keeps working as free text when no suggestion can be had.
 */
import { isUuid } from '../dialog/predicates';
import { wholeBinding } from './bound';
import { t } from './dom';

export { isUuid };

export type Suggest = (text: string) => Promise<TbCompletion[] | null>;

/** Suggestions from a fixed list, filtered by the typed text (case-insensitive contains). */
export function fromList(values: () => readonly string[]): Suggest {
  return (text) => {
    const s = text.trim().toLowerCase();
    return Promise.resolve(
      values()
        .filter((v) => v.toLowerCase().includes(s))
        .map((v) => ({ value: v, label: v })),
    );
  };
}

/** Names as completions. */
export function completions(names: readonly string[] | null): TbCompletion[] | null {
  return names ? names.map((n) => ({ value: n, label: n })) : null;
}

/**
 * Attaches suggestions to a text input: shown while typing and when the box gets the focus (all of them),
 * with the free text always allowed.
 */
export function suggest(input: JQuery, source: Suggest): JQuery {
  // A pick (or leaving the box) changes the box: answers to look-ups asked before it are stale. Without this an
  // answer that comes after the pick (a slow server, a cold cache) would open the menu again.
  let generation = 0;
  input.on('change', () => {
    generation++;
  });
  input.autoComplete({
    minLength: 0,
    search: (value, done) => {
      const asked = generation;
      source(value).then(
        (items) => done(asked === generation ? (items ?? []) : []),
        () => done([]),
      );
    },
  });
  watchMenuClose();
  input.on('focus', () => {
    // The widget gives the box its focus back when its menu closes (a click elsewhere, Escape): that is no reason
    // to open the menu again.
    if (Date.now() - menuClosedAt < 500) return;
    // The widget looks for completions on keyup: a neutral key shows the whole list for an empty box.
    if (!String(input.val() ?? '')) input.trigger($.Event('keyup', { keyCode: 40 }));
  });
  return input;
}

/** When a suggestion menu was last closed by a click outside it or by Escape. */
let menuClosedAt = 0;
let watching = false;

/** Notes (once per page, before any other handler) each mousedown or Escape while a suggestion menu is open. */
function watchMenuClose(): void {
  if (watching) return;
  watching = true;
  const note = (e: Event) => {
    if (e.type === 'keydown' && (e as KeyboardEvent).key !== 'Escape') return;
    if (e.type === 'mousedown' && $(e.target as Element).closest('.red-ui-autoComplete-container').length) return;
    if ($('.red-ui-autoComplete-container:visible').length) menuClosedAt = Date.now();
  };
  document.addEventListener('mousedown', note, true);
  document.addEventListener('keydown', note, true);
}

/**
 * A 'change' handler that waits while the suggestion menu is open: a click on a suggestion first blurs the box
 * (a 'change' with the text as typed), then puts the suggestion in and fires 'change' again, and the menu closes;
 * only then does the handler run, once, with what the box holds. Without the menu it runs at once. While it
 * waits the box carries `data-tb-pending` (the browser tests wait for it to go).
 */
function afterSuggestions(input: JQuery, handler: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const menuOpen = () => $('.red-ui-autoComplete-container:visible').length > 0;
  return () => {
    if (timer) return; // already waiting: the handler will read the box when the menu is gone
    if (!menuOpen()) {
      handler();
      return;
    }
    input.attr('data-tb-pending', '');
    const started = Date.now();
    const wait = () => {
      if (menuOpen() && Date.now() - started < 5000) {
        timer = setTimeout(wait, 30);
        return;
      }
      timer = undefined;
      input.removeAttr('data-tb-pending');
      handler();
    };
    timer = setTimeout(wait, 30);
  };
}

export interface ChipItem {
  value: string;
  label?: string;
  /** A small tag after the label (e.g. the key type). */
  tag?: string;
}

export interface ChipsOptions {
  /** `data-tb-field` of the entry box (the path of the list in the query). */
  field: string;
  items: ChipItem[];
  placeholder?: string;
  suggest?: Suggest;
  /** Does the server know chip `index`? Chips it does not know are marked (a misspelt name); `null` = cannot tell. */
  known?: (index: number) => Promise<boolean | null>;
  /** Controls placed before the entry box (e.g. a key type selector). */
  before?: JQuery;
  add(value: string): void;
  remove(index: number): void;
}

/** A list of chips and an entry box: Enter, a picked suggestion or leaving the box adds the text as a chip. */
export function chips(o: ChipsOptions): JQuery {
  const box = $('<div class="tb-b-chips">').attr('data-tb-chips', o.field);
  o.items.forEach((item, i) => {
    const chip = $('<span class="tb-b-chip">').attr('data-tb-chip', item.value).attr('title', item.value);
    // An item from the message (typed in the JSON view): its source and path, never the braces.
    const ref = wholeBinding(item.value);
    if (ref) {
      chip
        .addClass('tb-b-chip-bound')
        .attr('data-tb-chip-binding', ref.text)
        .attr('title', t('bind.chip', { ref: ref.text }));
      $('<i class="fa fa-envelope">').appendTo(chip);
    }
    $('<span>')
      .text(ref ? ref.text : (item.label ?? item.value))
      .appendTo(chip);
    if (item.tag) $('<span class="tb-b-chip-type">').text(item.tag).appendTo(chip);
    $('<a data-tb-action="remove-chip"><i class="fa fa-times"></i></a>')
      .attr('title', t('remove'))
      .on('click', () => o.remove(i))
      .appendTo(chip);
    box.append(chip);
  });
  if (o.before) box.append(o.before);
  const input = $('<input type="text" class="tb-b-text">').attr('data-tb-field', o.field);
  if (o.placeholder) input.attr('placeholder', o.placeholder);
  box.append(input);
  const commit = () => {
    const v = String(input.val() ?? '').trim();
    if (v === '') return;
    input.val('');
    o.add(v);
  };
  input.on('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      // Let the suggestion widget put the chosen value in the box first.
      setTimeout(commit, 0);
    }
  });
  input.on('change', afterSuggestions(input, commit));
  if (o.suggest) suggest(input, o.suggest);
  if (o.known) {
    const known = o.known;
    box.find('.tb-b-chip').each((i, el) => {
      if ($(el).hasClass('tb-b-chip-bound')) return;
      void known(i).then((ok) => {
        if (ok === false)
          $(el)
            .addClass('tb-b-unknown')
            .attr('title', t('unknownName', { name: $(el).attr('data-tb-chip') }));
      });
    });
  }
  return box;
}

export interface EntityPickerOptions {
  field: string;
  entityType: () => string;
  /** The id now in the query (or text the user typed earlier). */
  id: unknown;
  entities: (entityType: string, search: string) => Promise<Array<{ id: { id: string }; name: string }> | null>;
  names: (entityType: string, ids: string[]) => Promise<Map<string, string>>;
  /** The new id (a UUID, or the text typed when it is not one; undefined when cleared). */
  change(id: string | undefined): void;
  placeholder?: string;
}

/** A text box that shows an entity's name and stores its id; the id is shown beside it. */
export function entityPicker(o: EntityPickerOptions): JQuery {
  const wrap = $('<span class="tb-b-entity">');
  const input = $('<input type="text" class="tb-b-text tb-b-wide">').attr('data-tb-field', o.field).appendTo(wrap);
  input.attr('placeholder', o.placeholder ?? t('entityPlaceholder'));
  const idText = $('<span class="tb-b-entity-id">').appendTo(wrap);
  const labels = new Map<string, string>();
  const show = (id: unknown) => {
    if (isUuid(id)) {
      input.val(labels.get(id) ?? id);
      idText.text(labels.has(id) ? id : '');
    } else {
      input.val(typeof id === 'string' ? id : '');
      idText.text('');
    }
  };
  show(o.id);
  if (isUuid(o.id)) {
    const id = o.id;
    void o.names(o.entityType(), [id]).then((m) => {
      const name = m.get(id);
      if (name !== undefined && String(input.val()) === id) {
        labels.set(id, name);
        show(id);
      }
    });
  }
  suggest(input, async (text) => {
    const list = await o.entities(o.entityType(), isUuid(text) || text === labels.get(text) ? '' : text);
    if (!list) return null;
    for (const e of list) labels.set(e.id.id, e.name);
    return list.map((e) => ({ value: e.id.id, label: e.name }));
  });
  input.on(
    'change',
    afterSuggestions(input, () => {
      const v = String(input.val() ?? '').trim();
      if (v === '') {
        o.change(undefined);
        show(undefined);
        return;
      }
      // A name that was shown for the current id: nothing changed.
      for (const [id, name] of labels) {
        if (name === v && String(input.attr('data-tb-id') ?? '') === id) return;
      }
      const byName = [...labels].find(([, name]) => name === v);
      const id = isUuid(v) ? v : byName ? byName[0] : v;
      input.attr('data-tb-id', isUuid(id) ? id : '');
      o.change(id);
      show(id);
    }),
  );
  input.attr('data-tb-id', isUuid(o.id) ? o.id : '');
  return wrap;
}
