/**
 * src/nodes/support/typed-input: one TypedInput setting, prepared at deploy and read for a message with Node-RED's own
 * util (the real @node-red/util, a node whose flow and global context are plain maps).
 */
import assert from 'node:assert/strict';
import { util } from '@node-red/util';
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TbConfigError, TbInputError } from '../../src/errors';
import { TypedInput, typeProblem, type TypedInputOptions } from '../../src/node-red/typed-input';
import type { ValueType } from '../../src/settings/value-rows';

const RED = { util } as unknown as NodeAPI;

/** A node whose context stores answer through their callback, one tick later (as an asynchronous store does). */
function nodeWith(flow: Record<string, unknown>, global: Record<string, unknown> = {}): Node {
  const store = (data: Record<string, unknown>) => ({
    get: (key: string, _store: string | undefined, cb: (err: Error | undefined, v?: unknown) => void) =>
      setImmediate(() => (key === 'broken' ? cb(new Error('store down')) : cb(undefined, data[key]))),
  });
  return { id: 'n1', context: () => ({ flow: store(flow), global: store(global) }), warn: () => {} } as unknown as Node;
}

const node = nodeWith({ room: 'kitchen' }, { limit: 7 });
const msg = { payload: { a: { b: 3 } }, user: 'ann' } as unknown as NodeMessage;

function input(type: ValueType, value: unknown, opts: Partial<TypedInputOptions> = {}): TypedInput {
  return new TypedInput(RED, node, type, value, { name: 'setting', ...opts });
}

function configProblem(t: TypedInput, text: string): void {
  assert.ok(t.problem instanceof TbConfigError, `expected a TbConfigError, got ${String(t.problem)}`);
  assert.equal(t.problem.message, text);
  assert.throws(
    () => t.read(msg),
    (e: unknown) => e === t.problem,
  );
}

async function inputError(p: () => unknown, field: string, text: RegExp): Promise<void> {
  await assert.rejects(
    async () => p(),
    (e: unknown) =>
      e instanceof TbInputError && e.code === 'TB_INVALID_INPUT' && e.field === field && text.test(e.message),
  );
}

describe('typed input (src/nodes/support/typed-input)', () => {
  it('fixed values are read once at deploy and given synchronously, named by the setting', () => {
    assert.deepEqual(input('str', 'eco').read(msg), { value: 'eco', field: 'setting' });
    assert.deepEqual(input('num', ' 21.5 ').read(msg), { value: 21.5, field: 'setting' });
    assert.deepEqual(input('bool', 'false').read(msg), { value: false, field: 'setting' });
    assert.deepEqual(input('json', '{"a":[1]}').read(msg), { value: { a: [1] }, field: 'setting' });
    assert.deepEqual(input('json', '  ').read(msg), { value: undefined, field: 'setting' });
    assert.deepEqual(input('str', undefined).fixed, { value: '', field: 'setting' });
    // Without placeholders a str is text as it is.
    assert.deepEqual(input('str', '{{msg.user}}').read(msg), { value: '{{msg.user}}', field: 'setting' });
  });

  it('a bad fixed value or expression is a deploy problem, and every read throws it', () => {
    configProblem(input('num', 'warm'), 'setting is "warm", which is not a number');
    configProblem(input('bool', 'yes'), 'setting must be true or false (got "yes")');
    assert.match(String(input('json', '{').problem?.message), /^setting is not valid JSON: /);
    assert.match(
      String(input('jsonata', '$$$(').problem?.message),
      /^The JSONata expression of setting is not valid: /,
    );
    const words = { invalid: "The query's JSONata expression is not valid", failed: 'x' };
    assert.match(
      String(input('jsonata', '(', { jsonata: words }).problem?.message),
      /^The query's JSONata expression is not valid: /,
    );
  });

  it('a blank path is refused at deploy only when the caller says how', () => {
    const blank = (t: string) => `setting: name the ${t} to read`;
    configProblem(input('msg', ' ', { blank }), 'setting: name the msg to read');
    configProblem(input('env', '', { blank }), 'setting: name the env to read');
    assert.equal(input('flow', '').problem, undefined);
  });

  it('msg and env are read synchronously, named msg.<path> and env.<NAME>', () => {
    assert.deepEqual(input('msg', 'payload.a.b').read(msg), { value: 3, field: 'msg.payload.a.b' });
    process.env.TB_TYPED_INPUT_TEST = 'on';
    try {
      assert.deepEqual(input('env', 'TB_TYPED_INPUT_TEST').read(msg), {
        value: 'on',
        field: 'env.TB_TYPED_INPUT_TEST',
      });
    } finally {
      delete process.env.TB_TYPED_INPUT_TEST;
    }
  });

  it('a message path through a missing object: "Cannot read msg.<path>", or Node-RED\'s own error when asked', async () => {
    await inputError(
      () => input('msg', 'payload.x.y').read(msg),
      'msg.payload.x.y',
      /^Cannot read msg\.payload\.x\.y: /,
    );
    assert.throws(
      () => input('msg', 'payload.x.y', { rawMsgErrors: true }).read(msg),
      (e: unknown) => e instanceof TypeError,
    );
  });

  it('flow and global through the node context (asynchronous), a failed read naming the key', async () => {
    const f = input('flow', 'room').read(msg);
    assert.ok(f instanceof Promise);
    assert.deepEqual(await f, { value: 'kitchen', field: 'flow.room' });
    assert.deepEqual(await input('global', 'limit').read(msg), { value: 7, field: 'global.limit' });
    await inputError(() => input('flow', 'broken').read(msg), 'flow.broken', /^Cannot read flow\.broken: store down$/);
  });

  it("JSONata prepared once and evaluated against the message, with the default or the caller's wording", async () => {
    assert.deepEqual(await input('jsonata', 'payload.a.b * 2').read(msg), {
      value: 6,
      field: 'setting (JSONata result)',
    });
    await inputError(
      () => input('jsonata', '$error("no")').read(msg),
      'setting (JSONata result)',
      /^The JSONata expression of setting failed: no$/,
    );
    const words = { invalid: 'i', failed: 'The filters expression failed', field: 'filters' };
    assert.deepEqual(await input('jsonata', '{"k": user}', { jsonata: words }).read(msg), {
      value: { k: 'ann' },
      field: 'filters',
    });
    await inputError(
      () => input('jsonata', '$error("no")', { jsonata: words }).read(msg),
      'filters',
      /^The filters expression failed: no$/,
    );
    await inputError(
      () => input('jsonata', '$error("no")', { jsonata: { errorField: 'value' } }).read(msg),
      'value',
      /^The JSONata expression of setting failed/,
    );
  });

  it('a str with placeholders (when asked) is read for each message; a whole placeholder keeps its type and name', async () => {
    const whole = input('str', '{{msg.payload.a}}', { placeholders: true });
    assert.equal(whole.fixed, undefined);
    assert.equal(whole.field, 'msg.payload.a');
    assert.deepEqual(whole.read(msg), { value: { b: 3 }, field: 'msg.payload.a' });
    const text = input('str', 'hello {{msg.user}} in {{flow.room}}', { placeholders: true });
    assert.deepEqual(await text.read(msg), { value: 'hello ann in kitchen', field: 'setting' });
  });

  it('typeProblem: the setting, the types offered and what the flow holds', () => {
    assert.equal(typeProblem('queryType', 'json', ['json', 'msg']), undefined);
    assert.equal(
      typeProblem('valueType', 'date', ['str', 'num'])?.message,
      'valueType must be one of str, num (got "date")',
    );
    assert.equal(typeProblem('alarmType', '5', ['auto'], 5)?.message, 'alarmType must be one of auto (got 5)');
  });
});
