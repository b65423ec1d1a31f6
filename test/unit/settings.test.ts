/**
 * The settings declared once (src/settings): reading saved settings by their declaration, and migrating settings
 * saved by an older version.
 */
import assert from 'node:assert/strict';
import { TbConfigError } from '../../src/errors';
import {
  choice,
  connection,
  declareNode,
  duration,
  flag,
  fromMessage,
  number,
  rows,
  text,
  whole,
} from '../../src/settings/declare';
import { everySettingSaved, migrate, savedVersion, type Migration } from '../../src/settings/migrate';
import { defaultSettings, readSettings } from '../../src/settings/read';

const DECL = declareNode({
  type: 'tb-example',
  inputs: 1,
  outputs: 1,
  version: 3,
  settings: {
    name: text(),
    connection: connection(),
    mode: choice(['fast', 'slow'], 'fast'),
    strict: flag(true),
    size: whole(10, { min: 1, max: 100 }),
    limit: whole('', { min: 1, optional: true }),
    timeout: duration('30s', { min: 0 }, { fromMessage: 'msg.timeout' }),
    values: rows(),
  },
});

describe('settings declared once', function () {
  describe('readSettings', function () {
    it('a missing setting reads as its default; version 1 when none was saved', function () {
      const { values, problems } = readSettings(DECL, {});
      assert.deepEqual(problems, []);
      assert.deepEqual(values, {
        name: '',
        connection: '',
        mode: 'fast',
        strict: true,
        size: 10,
        limit: undefined,
        timeout: '30s',
        values: [],
        version: 1,
      });
    });

    it('reads what the editor saved: check boxes as "true"/"false" too, whole numbers as digits', function () {
      const { values, problems } = readSettings(DECL, {
        mode: 'slow',
        strict: 'false',
        size: ' 42 ',
        limit: '7',
        timeout: '',
        values: [{ key: 'a' }],
        version: 3,
      });
      assert.deepEqual(problems, []);
      assert.equal(values.mode, 'slow');
      assert.equal(values.strict, false);
      assert.equal(values.size, 42);
      assert.equal(values.limit, 7);
      assert.equal(values.timeout, '', 'an empty setting a message may give stays empty: the message gives it');
      assert.deepEqual(values.values, [{ key: 'a' }]);
      assert.equal(values.version, 3);
    });

    it('an empty choice, check box or optional number reads as not set', function () {
      const { values } = readSettings(DECL, { mode: '', strict: '', limit: ' ' });
      assert.equal(values.mode, 'fast');
      assert.equal(values.strict, true);
      assert.equal(values.limit, undefined);
    });

    it('a value the setting does not allow is a problem naming it and what it allows; the default is read', function () {
      const { values, problems, problemOf } = readSettings(DECL, {
        mode: 'Slow',
        strict: 'yes',
        size: '0',
        values: 'a',
      });
      assert.deepEqual(
        problems.map((p) => p.message),
        [
          'mode must be one of fast, slow (got "Slow"; did you mean "slow"?)',
          'strict must be true or false (got "yes")',
          'size must be a whole number from 1 to 100 (got "0")',
          'values must be a list (got "a")',
        ],
      );
      assert.ok(problems.every((p) => p instanceof TbConfigError));
      assert.deepEqual(Object.keys(problemOf), ['mode', 'strict', 'size', 'values'], 'each by its setting');
      assert.equal(problemOf.strict, problems[1]);
      assert.equal(values.mode, 'fast');
      assert.equal(values.size, 10);
    });

    it('a setting a message may give reads as saved (empty, a placeholder, a value for the node to check)', function () {
      const decl = declareNode({
        type: 'tb-example',
        inputs: 1,
        outputs: 1,
        version: 2,
        settings: {
          order: choice(['ASC', 'DESC'], 'ASC', { fromMessage: 'msg.order' }),
          limit: whole(100, { min: 1 }, { fromMessage: 'msg.limit' }),
        },
      });
      const empty = readSettings(decl, { order: '', limit: '' });
      assert.deepEqual(empty.values, { order: '', limit: '', version: 1 });
      assert.deepEqual(empty.problems, []);
      assert.deepEqual(readSettings(decl, { order: 'asc', limit: '{{msg.n}}', version: 2 }).values, {
        order: 'asc',
        limit: '{{msg.n}}',
        version: 2,
      });
      assert.deepEqual(readSettings(decl, {}).values, { order: 'ASC', limit: 100, version: 1 }, 'missing: its default');
    });

    it('defaultSettings: what a new node starts with; fromMessage: what a message may give', function () {
      const d = defaultSettings(DECL);
      assert.equal(d.version, 3);
      assert.equal(d.mode, 'fast');
      assert.deepEqual(d.values, []);
      assert.notEqual(d.values, DECL.settings.values.default, 'a copy');
      assert.deepEqual(fromMessage(DECL), { timeout: 'msg.timeout' });
    });
  });

  describe('numbers', function () {
    const NUMBERS = declareNode({
      type: 'tb-numbers',
      inputs: 0,
      outputs: 0,
      version: 2,
      settings: {
        timeout: number(30, 0, { above: true }),
        ratio: number(1, 0),
        retries: whole(3, { min: 0, max: 10, optional: true }),
      },
    });

    it('a missing number reads as its default, an empty one too unless it is optional', function () {
      assert.deepEqual(readSettings(NUMBERS, {}).values, { timeout: 30, ratio: 1, retries: 3, version: 1 });
      const { values, problems } = readSettings(NUMBERS, { timeout: ' ', ratio: '', retries: '' });
      assert.deepEqual(problems, []);
      assert.deepEqual(values, { timeout: 30, ratio: 1, retries: undefined, version: 1 });
    });

    it('a number is read from digits too, fractions allowed; `above` refuses the minimum itself', function () {
      const { values, problems } = readSettings(NUMBERS, { timeout: '0.5', ratio: 0, retries: '10' });
      assert.deepEqual(problems, []);
      assert.deepEqual(values, { timeout: 0.5, ratio: 0, retries: 10, version: 1 });
      assert.deepEqual(
        readSettings(NUMBERS, { timeout: 0, ratio: -1, retries: 11 }).problems.map((p) => p.message),
        [
          'timeout must be a number greater than 0 (got 0)',
          'ratio must be a number of at least 0 (got -1)',
          'retries must be a whole number from 0 to 10 (got 11)',
        ],
      );
    });
  });

  describe('migrate', function () {
    const steps: Migration[] = [
      {
        to: 3,
        why: 'mode "quick" is called "fast"',
        up(s) {
          if (s.mode === 'quick') s.mode = 'fast';
        },
      },
      everySettingSaved(DECL, { timeout: '' }),
    ];

    it('brings version 1 up step by step, in order, on a copy', function () {
      const saved = Object.freeze({ mode: 'quick', size: 5 });
      const m = migrate(DECL, steps, saved);
      assert.equal(m.version, 3);
      assert.equal(m.mode, 'fast');
      assert.equal(m.size, 5, 'a saved value is kept');
      assert.equal(m.timeout, '', 'a missing setting gets what version 1 read in its place');
      assert.equal(m.strict, true, 'else its default');
      assert.deepEqual(saved, { mode: 'quick', size: 5 });
    });

    it('leaves settings of the current version, or of a newer one, as they are', function () {
      assert.deepEqual(migrate(DECL, steps, { version: 3, mode: 'quick' }), { version: 3, mode: 'quick' });
      assert.deepEqual(migrate(DECL, steps, { version: 9 }), { version: 9 });
    });

    it('savedVersion: 1 when none, or none that makes sense, was saved', function () {
      assert.equal(savedVersion({}), 1);
      assert.equal(savedVersion({ version: '2' }), 2);
      assert.equal(savedVersion({ version: 'x' }), 1);
      assert.equal(savedVersion({ version: 0 }), 1);
    });
  });
});
